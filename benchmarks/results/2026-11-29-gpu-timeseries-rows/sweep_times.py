"""End-to-end wall time of the dynamo-onset notebook's GPU sweep
(docs/notebooks/dynamo_onset.ipynb: helically forced MHD at N^3 in float64,
8 values of eta x 4 seeds, 150 time-series rows a member), and the part of
it spent in the rows (astaroth.diagnostics.row, timed by wrapping the name
astaroth.sweeps calls).

    python sweep_times.py T_END [N] [DTYPE]
"""
import math
import sys
import tempfile
import time

import numpy as np

import astaroth as ac
from astaroth import sweeps

T_END = float(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 else 32
DTYPE = sys.argv[3] if len(sys.argv) > 3 else "float64"
ETAS, SEEDS = [0.018, 0.021, 0.024, 0.028, 0.032, 0.037, 0.043, 0.05], [1, 2, 3, 4]


def make(eta, seed):
    sim = ac.Simulation(shape=(N, N, N), box=(2 * math.pi,) * 3, nu=5e-3, eta=eta, cs=1.0, dtype=DTYPE,
                        physics="mhd", backend="cuda")
    sim.forcing = ac.Forcing(kmin=2.1, kmax=2.9, f0=0.07, seed=seed, relhel=1.0)
    rng = np.random.default_rng(seed)
    for name in ("ax", "ay", "az"):
        sim[name] = 1e-4 * rng.standard_normal(sim.shape)
    return sim


in_rows = [0.0, 0]
row = sweeps.row


def timed_row(*args, **kw):
    start = time.perf_counter()
    out = row(*args, **kw)
    in_rows[0] += time.perf_counter() - start
    in_rows[1] += 1
    return out


sweeps.row = timed_row
rundir = tempfile.mkdtemp(prefix="sweep-times-") + "/sweep"
start = time.perf_counter()
table = ac.sweep(make, {"eta": ETAS, "seed": SEEDS}, until=T_END, rundir=rundir, every=T_END / 150, progress=False)
wall = time.perf_counter() - start
final = table[table.final]
steps = int(final.it.sum())
print(f"sweep {len(final)} x {N}^3 {DTYPE} to t = {T_END:g}: {wall:.2f} s, {steps} member-steps, "
      f"{steps * N ** 3 / wall / 1e6:.0f} M/s end to end; rows {in_rows[1]} in {in_rows[0]:.2f} s "
      f"({1e3 * in_rows[0] / max(in_rows[1], 1):.2f} ms a row); final brms {final.brms.min():.3e}..{final.brms.max():.3e}")
