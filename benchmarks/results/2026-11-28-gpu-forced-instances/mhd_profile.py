"""Steps of an MHD run through sim.run (the device loop, its signal-speed
reduction and the ghost faces of A it reads a launch each step), for
Nsight Compute:

    ncu --kernel-name regex:"fill_faces|signal_reduce" ... python3 mhd_profile.py [n=256] [dtype=float32]
"""
import sys

import astaroth as ac

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
sim = ac.Simulation(shape=(n, n, n), physics="mhd", nu=5e-3, eta=5e-3, dtype=dtype, backend="cuda")
ac.init.random_velocity(sim, urms=0.1, seed=5)
sim["az"] = 0.01 * sim["ux"]
sim.run(until=sim.t + 4.5 * sim.cfl_dt())
print(f"{sim.steps} steps", flush=True)
