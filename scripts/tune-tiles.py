"""Time the integration kernels for several thread-block tiles (one process
per tile, since the tile is read once from ASTAROTH_CUDA_TILE).
usage: python3 scripts/tune-tiles.py [size]"""
import os
import subprocess
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
tiles = ["32,4,16", "32,4,32", "32,8,16", "32,2,32", "64,2,16", "64,4,16", "32,4,64", "16,8,16", "128,1,16"]
code = f"""
from astaroth.bench import time_backend
r = [time_backend('cuda', m, d, {n}, 0.5) for m in ('55p', '19p') for d in ('float32', 'float64')]
print(' '.join(f'{{x:8.0f}}' for x in r))
"""
print(f"tile (x,y,z)   55p f32  55p f64  19p f32  19p f64   M/s at {n}^3")
for t in tiles:
    env = dict(os.environ, ASTAROTH_CUDA_TILE=t)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(f"{t:<12} {out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)
