"""Wall time of one time-series row (astaroth.diagnostics.row, the default
columns) of a CUDA simulation, median of 10 after one warm-up.

    python row_times.py N PHYSICS[+entropy] ... (e.g. 32 hydro mhd mhd+entropy)
"""
import statistics
import sys
import time

import astaroth as ac
from astaroth import diagnostics

n = int(sys.argv[1])
for case in sys.argv[2:]:
    physics, _, energy = case.partition("+")
    for dtype in ("float32", "float64"):
        sim = ac.Simulation(shape=n, dtype=dtype, backend="cuda", physics=physics, energy=energy or "isothermal")
        ac.init.random_velocity(sim, urms=0.1, seed=1)
        diagnostics.row(sim, 0.0)
        times = []
        for _ in range(10):
            start = time.perf_counter()
            diagnostics.row(sim, 0.0)
            times.append(time.perf_counter() - start)
        print(f"{n}^3 {case:12s} {dtype}: {1e3 * statistics.median(times):8.3f} ms a row "
              f"({n ** 3 / statistics.median(times) / 1e9:.2f} G points/s)")
        del sim
