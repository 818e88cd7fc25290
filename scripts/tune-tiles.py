"""Time the integration kernels for several kernel shapes (one process per
shape, since a shape is read once from the environment), each beside its
agreement with the CPU backend.
usage: python3 scripts/tune-tiles.py 55p|19p [size] [shape ...]
  55p: ASTAROTH_STREAM_TILE="tx,ty,runs[,lead[,blocks]]" (among the tuning
       shapes of csrc/cuda/schedules.cuh, built only with ASTAROTH_TUNING=1
       at build time: `ASTAROTH_TUNING=1 python setup.py build_ext --inplace`;
       runs up each column of tiles, 0 = chosen per grid; lead: planes copied
       ahead; blocks: register budget)
  19p: ASTAROTH_CUDA_TILE="tx,ty,tz" (tx * ty <= 128)"""
import os
import subprocess
import sys

method = sys.argv[1] if len(sys.argv) > 1 else "55p"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
defaults = {"55p": ["32,8,0,1,0", "32,8,0,2,0", "32,8,0,3,0", "32,8,0,1,3", "32,4,0,1,0", "32,4,0,2,0",
                    "32,4,0,1,3", "64,4,0,1,0", "64,4,0,2,0"],
            "19p": ["32,4,16", "32,4,32", "32,8,16", "64,2,16", "64,4,16", "32,4,64"]}
tiles = sys.argv[3:] or defaults[method]
variable = "ASTAROTH_STREAM_TILE" if method == "55p" else "ASTAROTH_CUDA_TILE"
code = f"""
import numpy as np, astaroth as ac
from astaroth.bench import time_backend, smooth_start
def agreement(dtype, shape=(37, 50, 23)):
    sims = [ac.Simulation(shape=shape, box=(6.3, 3.0, 1.7), nu=0.03, cs=0.8, dtype=dtype, backend=b,
                          method='{method}') for b in ('cpu', 'cuda')]
    for s in sims:
        smooth_start(s)
    for s in sims:
        s.step(1e-3); s.step(1e-3)
    return max(np.max(np.abs(sims[1][f] - sims[0][f])) / np.max(np.abs(sims[0][f])) for f in ac.FIELDS)
r = [time_backend('cuda', '{method}', d, {n}, 0.5) for d in ('float32', 'float64')]
e = [agreement(d) for d in ('float32', 'float64')]
print(' '.join(f'{{x:8.0f}}' for x in r), ' '.join(f'{{x:9.1e}}' for x in e))
"""
print(f"{variable:<22} {method} f32  {method} f64   M/s at {n}^3;  max rel. difference from the CPU "
      "after 2 steps at 37x50x23 (f32, f64)")
for t in tiles:
    env = dict(os.environ, **{variable: t})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(f"{t:<22} {out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)
