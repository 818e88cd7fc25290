"""sim.run of a helically forced MHD run at 16^3 (float64, one thread) against
the C loop's own rate: the CFL steps in C (Grid.run_steps, what sim.run hands
its batches to: dt from the signal speed, forcing, NaN checks) and, stricter,
Grid.step of fixed-dt steps (no CFL reduction), in the tree on sys.path: M
grid points per second, the best of five batches."""
import time

import numpy as np

import astaroth as ac
from astaroth.bench import smooth_start


def make():
    sim = ac.Simulation(shape=(16,) * 3, physics="mhd", eta=5e-3, nu=5e-3, dtype="float64", backend="cpu")
    smooth_start(sim)
    sim["az"] = 0.01 * np.sin(sim.x)[:, None, None] * np.ones(sim.shape)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1, relhel=1.0)
    return sim


points, steps = 16 ** 3, 400
sim = make()
dt = sim.cfl_dt()
alone = make()  # the C loop's own CFL steps, on a simulation of their own
run, loop, cfl = 0.0, 0.0, 0.0
for _ in range(5):
    before, t0 = sim.steps, time.perf_counter()
    sim.run(until=sim.t + steps * dt)
    run = max(run, (sim.steps - before) * points / (time.perf_counter() - t0) / 1e6)
    t0 = time.perf_counter()
    t, taken, _, _ = alone._grid.run_steps(alone.t, alone.t + steps * dt, 0.4, 0.3, 10 ** 6, 0, 10)
    cfl = max(cfl, taken * points / (time.perf_counter() - t0) / 1e6)
    alone.t = t
    t0 = time.perf_counter()
    sim._grid.step(dt, steps)
    loop = max(loop, steps * points / (time.perf_counter() - t0) / 1e6)
print(f"16^3 helically forced MHD, float64, one thread: sim.run {run:.2f} M/s, the C loop's CFL steps (Grid.run_steps) "
      f"{cfl:.2f} M/s, ratio {run / cfl:.3f}; fixed-dt steps (Grid.step) {loop:.2f} M/s, ratio {run / loop:.3f}")
