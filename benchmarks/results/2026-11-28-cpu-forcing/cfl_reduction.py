"""cfl_dt (the CFL reduction, with its ghost fills) against one fixed-dt step of
the sweep rows' members at 64^3, float64, in the tree on sys.path: the best
of five, milliseconds."""
import time, numpy as np, astaroth as ac
from astaroth.bench import sweep_members
for phys in ("mhd", "hydro+entropy", "mhd+entropy"):
    sim = sweep_members("cpu", "55p", "float64", 64, 1, phys, False)[0]
    dt = sim.cfl_dt()
    best_r = best_s = 1e9
    for _ in range(5):
        t0 = time.perf_counter(); sim.cfl_dt(); best_r = min(best_r, time.perf_counter() - t0)
        t0 = time.perf_counter(); sim._grid.step(dt, 1); best_s = min(best_s, time.perf_counter() - t0)
    print(f"{phys:14s} 64^3 f64 1 thread: cfl_dt {best_r*1e3:.2f} ms, step {best_s*1e3:.2f} ms, ratio {best_r/best_s:.3f}")
