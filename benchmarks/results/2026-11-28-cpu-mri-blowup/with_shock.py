import numpy as np, astaroth as ac, sys, time
s = ac.load("/tmp/mri_t225.h5")
s.nu_shock = float(sys.argv[1])
out = []; t0 = time.time()
for t in np.arange(22.6, 24.01, 0.1):
    s.run(until=t, nt=3000)
    rho = np.exp(s["lnrho"]); u = np.sqrt(s["ux"]**2 + s["uy"]**2 + s["uz"]**2)
    out.append(f"{s.t:.2f}:{rho.min():.1e}/{rho.max():.1f}/{u.max():.1f}/dt{s.cfl_dt():.1e}")
    if s.t < t - 1e-9: out.append("stalled"); break
print(f"nu_shock {sys.argv[1]} ({time.time()-t0:.0f}s): " + "  ".join(out), flush=True)
