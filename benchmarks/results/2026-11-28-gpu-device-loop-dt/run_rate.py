"""sim.run against host steps at 256^3, float32, one tree (PYTHONPATH): for
each physics, one simulation (astaroth.bench.sweep_members) warmed by a
first sim.run, then sim.run over about STEPS CFL steps (600 unless set), three times (M
points/s from the steps taken), and the bench row's host steps
(backend_stepper, _Timing) of the same physics."""
import os
import sys
import time

from astaroth import bench

STEPS = int(os.environ.get("STEPS", "600"))
for name in sys.argv[1:]:
    for forced in (False, True):
        sim = bench.sweep_members("cuda", "55p", "float32", 256, 1, name, forced)[0]
        sim.run(until=sim.t + 5 * sim.cfl_dt())
        best = 0.0
        for _ in range(3):
            before, t0 = sim.steps, time.perf_counter()
            sim.run(until=sim.t + STEPS * sim.cfl_dt())
            best = max(best, (sim.steps - before) * 256**3 / (time.perf_counter() - t0) / 1e6)
        del sim
        print(f"{name:<14} forced={forced!s:<6} sim.run {best:8.0f} M/s", flush=True)
