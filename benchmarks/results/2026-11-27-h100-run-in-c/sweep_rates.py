"""The sweep table of every physics, forced and unforced (float32, 55p):
sim.run of one 256^3 run, an Ensemble of 64 x 32^3 and of 16 x 64^3, aggregate
M grid points per second through CFL steps, in the tree on sys.path."""
import sys

import astaroth as ac
from astaroth.bench import run_rate, smooth_start

PHYSICS = {"hydro": {}, "mhd": dict(physics="mhd", eta=5e-3), "entropy": dict(energy="entropy", chi=5e-3),
           "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3)}
FORCING = {"hydro": dict(relhel=0.0), "mhd": dict(relhel=1.0), "entropy": dict(relhel=0.0),
           "mhd+entropy": dict(relhel=0.0)}
which = sys.argv[1:] or list(PHYSICS)


def members(name, n, count, forced):
    sims = []
    for i in range(count):
        sim = ac.Simulation(shape=(n,) * 3, dtype="float32", backend="cuda", nu=5e-3 * (1 + i / 10), **PHYSICS[name])
        smooth_start(sim)
        if forced:
            sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1 + i, **FORCING[name])
        sims.append(sim)
    return sims


print(f"{'physics':<14}{'forced':<8}{'256^3 run':>11}{'64 x 32^3':>11}{'16 x 64^3':>11}", flush=True)
for name in which:
    for forced in (False, True):
        one = members(name, 256, 1, forced)
        single = run_rate(lambda u: one[0].run(until=u), one, 20, 1.0)
        del one
        rates = []
        for n, count in ((32, 64), (64, 16)):
            sims = members(name, n, count, forced)
            ens = ac.Ensemble(sims)
            rates.append(run_rate(lambda u: ens.run(until=u), sims, 20, 1.0))
            del ens, sims
        print(f"{name:<14}{str(forced):<8}{single:>11.0f}{rates[0]:>11.0f}{rates[1]:>11.0f}", flush=True)
