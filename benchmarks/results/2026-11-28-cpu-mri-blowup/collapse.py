import math, time, numpy as np, astaroth as ac
from astaroth import shearing
OMEGA, Q = 1.0, 1.5
SHAPE, BOX, NU = (32, 128, 32), (1.0, 4.0, 1.0), 3e-4
HYPER = 1e-10
B0 = shearing.fastest_k_va(OMEGA, Q) / (2 * math.pi * 6)
sim = ac.Simulation(shape=SHAPE, box=BOX, origin=tuple(-b / 2 for b in BOX), nu=NU, eta=NU, cs=1.0, physics="mhd",
                    b_ext=(0, 0, B0), omega=(0, 0, OMEGA), qshear=Q, nu_hyper3=HYPER, diff_hyper3=HYPER, backend="cpu")
ac.init.random_velocity(sim, urms=0.05, seed=1)
dt0 = sim.cfl_dt(); t0 = time.time()
for t in np.arange(1.0, 40, 0.5):
    sim.run(until=t, nt=int(0.5 / (dt0 / 20)) + 1)
    bx, by, bz = ac.analysis.magnetic_field(sim)
    rho = np.exp(sim["lnrho"]); b2 = bx**2 + by**2 + bz**2
    va = np.sqrt(b2 / rho); u = np.sqrt(sim["ux"]**2 + sim["uy"]**2 + sim["uz"]**2)
    sp, dxmin, visc, hyp, by_, hby = sim._rates()
    print(f"t={sim.t:6.2f} dt={sim.cfl_dt():.2e} rho[min,max]=[{rho.min():.3e},{rho.max():.2f}] max vA={va.max():.2f} "
          f"max|u|={u.max():.2f} speed={sp:.2f} cour_dt={0.4*dxmin/sp:.2e} visc_dt={0.3/visc:.2e} hyp_dt={0.03/hyp if hyp else 0:.2e} "
          f"max|B|={np.sqrt(b2).max():.3f} wall={time.time()-t0:.0f}s", flush=True)
    if sim.t < t - 1e-12: print("collapsed"); break
