"""The MRI box of notebooks/mri.ipynb at its GPU size (128 x 512 x 128,
float32, MHD with rotation, shear and hyperdiffusion): milliseconds a step
of sim.run with and without shock viscosity (nu_shock = 1: the sheared
profile's passes, csrc/cuda/shock.cuh), interleaved, three repeats."""
import math
import time

import astaroth as ac
from astaroth import shearing

B0 = shearing.fastest_k_va(1.0, 1.5) / (2 * math.pi * 6)
HYPER = 1e-10 * (32 / 128) ** 6


def box(nu_shock):
    sim = ac.Simulation(shape=(128, 512, 128), box=(1.0, 4.0, 1.0), nu=3e-4, eta=3e-4, cs=1.0, physics="mhd",
                        b_ext=(0, 0, B0), omega=(0, 0, 1.0), qshear=1.5, nu_hyper3=HYPER, diff_hyper3=HYPER,
                        nu_shock=nu_shock, backend="cuda", dtype="float32")
    ac.init.random_velocity(sim, urms=0.05, seed=1)
    sim.run(until=1e9, nt=20)  # warm
    return sim


sims = {nu: box(nu) for nu in (0.0, 1.0)}
for repeat in range(3):
    for nu, sim in sims.items():
        start = time.perf_counter()
        sim.run(until=1e9, nt=300)
        ms = (time.perf_counter() - start) / 300 * 1e3
        print(f"repeat {repeat}: nu_shock = {nu:g}: {ms:.3f} ms a step ({128 * 512 * 128 / ms / 1e3:,.0f} M points/s)",
              flush=True)
