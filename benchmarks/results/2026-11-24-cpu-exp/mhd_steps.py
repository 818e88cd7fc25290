import time, numpy as np, astaroth as ac, sys
n=40
sim = ac.Simulation((n,n,n), dtype="float64", backend="cpu", nu=1e-2, physics=sys.argv[1] if len(sys.argv)>1 else "mhd", **({"eta":1e-3} if (len(sys.argv)<2 or sys.argv[1]=="mhd") else {}))
rng = np.random.default_rng(1)
for f in sim.field_names: sim[f] = 1e-3*rng.standard_normal((n,n,n))
g = sim._grid
t=time.perf_counter(); g.step(1e-4, 300); print((time.perf_counter()-t)/300*1e3, "ms")
