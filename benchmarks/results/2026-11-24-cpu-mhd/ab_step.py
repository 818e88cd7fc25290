"""Interleaved one-thread A/B of grid.step at 40^3 f64: hydro and MHD in each tree."""
import subprocess, sys, json, statistics, os
trees = sys.argv[1:3]; rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
W = r'''
import time, numpy as np, astaroth as ac, json, sys
n=int(sys.argv[1]); dt=sys.argv[2]
out={}
for name, kw in (("hydro", {}), ("mhd", dict(physics="mhd", eta=1e-3))):
    sim = ac.Simulation((n,n,n), dtype=dt, backend="cpu", nu=1e-2, **kw)
    rng = np.random.default_rng(1)
    for f in sim.field_names: sim[f] = 1e-3*rng.standard_normal((n,n,n))
    g = sim._grid; g.step(1e-4, 1)
    best=1e9
    for b in range(7):
        t=time.perf_counter()
        for _ in range(8): g.step(1e-4, 1)
        best=min(best,(time.perf_counter()-t)/8)
    out[name]=best
print(json.dumps(out))
'''
res = {t: [] for t in trees}
for r in range(rounds):
    for t in trees:
        o = subprocess.run([sys.executable, "-c", W, os.environ.get("N", "40"), os.environ.get("DT", "float64")], env=dict(os.environ, PYTHONPATH=t, OMP_NUM_THREADS="1"), capture_output=True, text=True, cwd="/")
        d = json.loads(o.stdout.strip().splitlines()[-1]); res[t].append(d)
        print(t, f"hydro {d['hydro']*1e3:.3f} mhd {d['mhd']*1e3:.3f} ratio {d['mhd']/d['hydro']:.3f}", flush=True)
for t in trees:
    h = statistics.median(d['hydro'] for d in res[t]); m = statistics.median(d['mhd'] for d in res[t])
    print("MEDIAN", t, f"hydro {h*1e3:.3f} ms mhd {m*1e3:.3f} ms ratio {m/h:.3f}")
