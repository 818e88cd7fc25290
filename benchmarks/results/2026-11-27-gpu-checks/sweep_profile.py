"""Where the dynamo-onset sweep's time goes on the GPU: the notebook's
members (32^3 forced helical MHD, float64, 8 eta x 4 seeds) to t = T, once
through ac.sweep at the notebook's row cadence (T_END / 150 of t = 400) and
once as one Ensemble.run, with cProfile's top entries for the sweep."""
import cProfile
import math
import pstats
import sys
import tempfile
import time

import numpy as np

import astaroth as ac

T = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
ETAS, SEEDS = [0.018, 0.021, 0.024, 0.028, 0.032, 0.037, 0.043, 0.05], [1, 2, 3, 4]


def make(eta, seed):
    sim = ac.Simulation(shape=(32,) * 3, box=(2 * math.pi,) * 3, nu=5e-3, eta=eta, cs=1.0, dtype="float64",
                        physics="mhd", backend="cuda")
    sim.forcing = ac.Forcing(kmin=2.1, kmax=2.9, f0=0.07, seed=seed, relhel=1.0)
    rng = np.random.default_rng(seed)
    for name in ("ax", "ay", "az"):
        sim[name] = 1e-4 * rng.standard_normal(sim.shape)
    return sim


members = [make(e, s) for e in ETAS for s in SEEDS]
ens = ac.Ensemble(members)
t0 = time.perf_counter()
ens.run(T)
wall = time.perf_counter() - t0
steps = sum(m.steps for m in members)
print(f"Ensemble.run of {len(members)} members to t = {T:g}: {wall:.2f} s, {steps} member steps, "
      f"{steps * 32**3 / wall / 1e6:.0f} M/s aggregate")
del ens, members
prof = cProfile.Profile()
t0 = time.perf_counter()
prof.enable()
table = ac.sweep(make, {"eta": ETAS, "seed": SEEDS}, until=T, rundir=tempfile.mkdtemp() + "/s", every=400 / 150,
                 progress=False)
prof.disable()
wall = time.perf_counter() - t0
steps = int(table[table.final].it.sum())
print(f"ac.sweep to t = {T:g}, a row every {400 / 150:.3g}: {wall:.2f} s, {steps} member steps, "
      f"{steps * 32**3 / wall / 1e6:.0f} M/s aggregate")
pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
