import math, time, numpy as np, astaroth as ac, os
from astaroth import shearing
B0 = shearing.fastest_k_va(1.0, 1.5) / (2 * math.pi * 6)
sim = ac.Simulation(shape=(32, 128, 32), box=(1.0, 4.0, 1.0), origin=(-0.5, -2, -0.5), nu=3e-4, eta=3e-4, cs=1.0, physics="mhd",
                    b_ext=(0, 0, B0), omega=(0, 0, 1.0), qshear=1.5, nu_hyper3=1e-10, diff_hyper3=1e-10, backend="cpu")
ac.init.random_velocity(sim, urms=0.05, seed=1)
dt0 = sim.cfl_dt()
for t in np.arange(1.0, 22.51, 0.5):
    sim.run(until=t, nt=int(0.5 / (dt0 / 20)) + 1)
sim.save("/tmp/mri_t225.h5")
print("saved at", sim.t, sim.steps, flush=True)
for chunk in (0.5, 0.05):
    s = ac.load("/tmp/mri_t225.h5")
    out = []
    for t in np.arange(22.5 + chunk, 23.51, chunk):
        s.run(until=t, nt=5000)
        rho = np.exp(s["lnrho"]); u = np.sqrt(s["ux"]**2 + s["uy"]**2 + s["uz"]**2)
        out.append(f"{s.t:.2f}:{rho.min():.1e}/{rho.max():.1f}/{u.max():.1f}")
        if s.t < t - 1e-9: out.append("stalled"); break
    print(f"chunk {chunk}: " + "  ".join(out), flush=True)
