"""Wall time of one time-series row (astaroth.diagnostics.row, the default
columns) of a CUDA shearing box (shear -1, its images shifted by deltay =
0.7), median of 10 after one warm-up.

    python row_times_shear.py N PHYSICS ... (e.g. 64 hydro mhd)
"""
import statistics
import sys
import time

import astaroth as ac
from astaroth import diagnostics

n = int(sys.argv[1])
for physics in sys.argv[2:]:
    for dtype in ("float32", "float64"):
        sim = ac.Simulation(shape=n, dtype=dtype, backend="cuda", physics=physics, shear=-1.0)
        sim.deltay = 0.7
        ac.init.random_velocity(sim, urms=0.1, seed=1)
        diagnostics.row(sim, 0.0)
        times = []
        for _ in range(10):
            start = time.perf_counter()
            diagnostics.row(sim, 0.0)
            times.append(time.perf_counter() - start)
        print(f"{n}^3 {physics:6s} shearing box, {dtype}: {1e3 * statistics.median(times):8.3f} ms a row")
        del sim
