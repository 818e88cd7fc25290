"""Steps of a forced hydro run through sim.run (the device loop), for
Nsight Compute to profile its last substep and forcing kernels:

    ncu --kernel-name regex:"stream_substep|forcing" ... python3 forced_profile.py [n=256] [dtype=float32]
"""
import sys

import astaroth as ac

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
sim = ac.Simulation(shape=(n, n, n), nu=5e-3, dtype=dtype, backend="cuda")
ac.init.random_velocity(sim, urms=0.1, seed=5)
sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=11)
sim.run(until=sim.t + 4.5 * sim.cfl_dt())
print(f"{sim.steps} steps", flush=True)
