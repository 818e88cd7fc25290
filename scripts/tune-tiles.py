"""Time the integration kernels for several thread-block tiles (one process
per tile, since a tile is read once from the environment).
usage: python3 scripts/tune-tiles.py 55p|19p [size] [tile ...]
  55p: ASTAROTH_STREAM_TILE="tx,ty,runs" (tx, ty among the built tiles,
       csrc/cuda/kernels.h; runs up each column of tiles, 0 = chosen per grid)
  19p: ASTAROTH_CUDA_TILE="tx,ty,tz" (tx * ty <= 128)"""
import os
import subprocess
import sys

method = sys.argv[1] if len(sys.argv) > 1 else "55p"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
defaults = {"55p": ["32,8,0", "32,4,0", "64,4,0", "32,8,1", "32,4,1"],
            "19p": ["32,4,16", "32,4,32", "32,8,16", "64,2,16", "64,4,16", "32,4,64"]}
tiles = sys.argv[3:] or defaults[method]
variable = "ASTAROTH_STREAM_TILE" if method == "55p" else "ASTAROTH_CUDA_TILE"
code = f"""
from astaroth.bench import time_backend
r = [time_backend('cuda', '{method}', d, {n}, 0.5) for d in ('float32', 'float64')]
print(' '.join(f'{{x:8.0f}}' for x in r))
"""
print(f"{variable:<22} {method} f32  {method} f64   M/s at {n}^3")
for t in tiles:
    env = dict(os.environ, **{variable: t})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(f"{t:<22} {out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)
