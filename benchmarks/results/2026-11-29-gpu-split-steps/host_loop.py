"""sim.run of a forced run with shock viscosity on one GPU: the host's run loop (Grid.run_steps; the device loop
takes no shock viscosity), M points a second over STEPS steps after two warm-up steps.

    python3 host_loop.py N STEPS DTYPE
"""
import sys
import time

import astaroth as ac

n, steps, dtype = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
sim = ac.Simulation(shape=(n, n, n), dtype=dtype, backend="cuda", nu=5e-3, nu_shock=1.0)
ac.init.random_velocity(sim, urms=0.1, seed=5)
sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=7)
dt = sim.cfl_dt()
sim.run(until=2 * dt * 0.999)
t0, steps0 = sim.t, sim.steps
start = time.perf_counter()
sim.run(until=t0 + steps * dt * 0.999)
_ = sim["ux"]  # the last step done
seconds = time.perf_counter() - start
print(f"{n}^3 {dtype} forced, nu_shock = 1, sim.run: {sim.steps - steps0} steps, "
      f"{(sim.steps - steps0) * n ** 3 / seconds / 1e6:.1f} M/s")
