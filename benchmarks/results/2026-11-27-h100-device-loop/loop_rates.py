"""sim.run of one 256^3 run and Ensemble.run of 64 x 32^3, aggregate M grid
points per second (float32, 55p), in one build, three ways: the host's loop
in C (Grid.run_steps), the device's loop launching each kernel
(ASTAROTH_NO_GRAPHS=1), the device's loop in CUDA graphs."""
import os
import sys

import astaroth as ac
from astaroth.bench import run_rate, smooth_start

PHYSICS = {"hydro": {}, "mhd": dict(physics="mhd", eta=5e-3), "entropy": dict(energy="entropy", chi=5e-3),
           "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3)}
which = sys.argv[1:] or list(PHYSICS)


def members(name, n, count, forced, device):
    sims = []
    for i in range(count):
        sim = ac.Simulation(shape=(n,) * 3, dtype="float32", backend="cuda", nu=5e-3 * (1 + i / 10), **PHYSICS[name])
        smooth_start(sim)
        sim._device_cfl = device
        if forced:
            sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1 + i, relhel=1.0 if name == "mhd" else 0.0)
        sims.append(sim)
    return sims


MODES = (("host loop", False, "1"), ("device, launches", True, "1"), ("device, graphs", True, "0"))
print(f"{'physics':<13}{'forced':<7}" + "".join(f"{m + ' ' + s:>28}" for m, _, _ in MODES for s in ("256^3",))
      + "".join(f"{m + ' 64x32^3':>28}" for m, _, _ in MODES), flush=True)
for name in which:
    for forced in (False, True):
        big, small = [], []
        for mode, device, no_graphs in MODES:
            os.environ["ASTAROTH_NO_GRAPHS"] = no_graphs
            one = members(name, 256, 1, forced, device)
            big.append(run_rate(lambda u: one[0].run(until=u), one, 20, 1.0))
            del one
            sims = members(name, 32, 64, forced, device)
            ens = ac.Ensemble(sims)
            small.append(run_rate(lambda u: ens.run(until=u), sims, 40, 1.0))
            del ens, sims
        print(f"{name:<13}{str(forced):<7}" + "".join(f"{r:>28.0f}" for r in big + small), flush=True)
