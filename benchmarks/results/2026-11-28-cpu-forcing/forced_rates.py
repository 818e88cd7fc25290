"""Forced runs on the CPU, one thread, in the tree on sys.path: M grid points
per second of fixed-dt steps (Grid.step, forcing included) and of sim.run,
the best of five batches, for helically forced MHD at 16^3 and forced hydro
at 64^3 (float64)."""
import time

import numpy as np

import astaroth as ac
from astaroth.bench import smooth_start


def make(n, physics):
    extra = dict(physics="mhd", eta=5e-3) if physics == "mhd" else {}
    sim = ac.Simulation(shape=(n,) * 3, nu=5e-3, dtype="float64", backend="cpu", **extra)
    smooth_start(sim)
    if physics == "mhd":
        sim["az"] = 0.01 * np.sin(sim.x)[:, None, None] * np.ones(sim.shape)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1, relhel=1.0 if physics == "mhd" else 0.0)
    return sim


for n, physics, steps in ((16, "mhd", 400), (64, "hydro", 20)):
    sim = make(n, physics)
    dt = sim.cfl_dt()
    run, loop = 0.0, 0.0
    for _ in range(5):
        before, t0 = sim.steps, time.perf_counter()
        sim.run(until=sim.t + steps * dt)
        run = max(run, (sim.steps - before) * n**3 / (time.perf_counter() - t0) / 1e6)
        t0 = time.perf_counter()
        sim._grid.step(dt, steps)
        loop = max(loop, steps * n**3 / (time.perf_counter() - t0) / 1e6)
    print(f"{n}^3 forced {physics}, float64, one thread: Grid.step {loop:.2f} M/s, sim.run {run:.2f} M/s, "
          f"ratio {run / loop:.3f}", flush=True)
