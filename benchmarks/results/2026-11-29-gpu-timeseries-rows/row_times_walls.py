"""Wall time of one time-series row (astaroth.diagnostics.row, the default
columns) of a CUDA simulation between walls in z under gravity (a
convection box), median of 10 after one warm-up.

    python row_times_walls.py N PHYSICS+entropy ... (e.g. 32 hydro+entropy mhd+entropy)
"""
import statistics
import sys
import time

import astaroth as ac
from astaroth import diagnostics

WALLS = {"lnrho": "s", "ux": "s", "uy": "s", "uz": "a", "ax": "a", "ay": "a", "az": "s", "ss": "s"}
n = int(sys.argv[1])
for case in sys.argv[2:]:
    physics, _, energy = case.partition("+")
    fields = ["lnrho", "ux", "uy", "uz"] + (["ax", "ay", "az"] if physics == "mhd" else []) + ["ss"]
    for dtype in ("float32", "float64"):
        sim = ac.Simulation(shape=n, dtype=dtype, backend="cuda", physics=physics, energy=energy,
                            gravity=(0.0, 0.0, -0.1), boundaries={"z": {f: WALLS[f] for f in fields}})
        ac.init.random_velocity(sim, urms=0.1, seed=1)
        diagnostics.row(sim, 0.0)
        times = []
        for _ in range(10):
            start = time.perf_counter()
            diagnostics.row(sim, 0.0)
            times.append(time.perf_counter() - start)
        print(f"{n}^3 {case:12s} walls in z, gravity, {dtype}: {1e3 * statistics.median(times):8.3f} ms a row")
        del sim
