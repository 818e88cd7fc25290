"""M updates/s of sim.run for a forced hydro run on one GPU (the device's
CFL loop), the fastest of three runs of `steps` steps.

    python3 forced_run.py [n=256] [dtype=float32] [steps=60]
"""
import sys
import time

import numpy as np

import astaroth as ac

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 60
sim = ac.Simulation(shape=(n, n, n), nu=5e-3, dtype=dtype, backend="cuda")
ac.init.random_velocity(sim, urms=0.1, seed=5)
sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=11)
sim.run(until=sim.t + 5 * sim.cfl_dt())  # warm up
best = np.inf
for _ in range(3):
    dt = sim.cfl_dt()
    before, start = sim.steps, time.perf_counter()
    sim.run(until=sim.t + steps * dt * 0.999)
    seconds = time.perf_counter() - start
    best = min(best, seconds / (sim.steps - before))
print(f"forced sim.run, {n}^3 {dtype}: {best * 1e3:.3f} ms a step, {n ** 3 / best / 1e6:.0f} M updates/s", flush=True)
