"""sim.run's rate (M grid points per second through CFL steps: the
reduction for dt, NaN checks) for each physics at 128^3 and 256^3 in
float32, and an Ensemble of 16 x 64^3, in the tree on sys.path; the CFL
reduction of the magnetic and entropy configurations is what changed."""
import astaroth as ac
from astaroth.bench import run_rate, smooth_start

CASES = {"hydro": {}, "mhd": dict(physics="mhd", eta=5e-3), "entropy": dict(energy="entropy", chi=5e-3),
         "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3)}
print(f"{'physics':<14}{'what':<22}{'M/s':>10}")
for name, kw in CASES.items():
    for n in (128, 256):
        sim = ac.Simulation(shape=(n,) * 3, dtype="float32", backend="cuda", nu=5e-3, **kw)
        smooth_start(sim)
        print(f"{name:<14}{f'sim.run {n}^3':<22}{run_rate(lambda u: sim.run(until=u), [sim], 20, 1.0):>10.1f}",
              flush=True)
        del sim
    sims = [ac.Simulation(shape=(64,) * 3, dtype="float32", backend="cuda", nu=5e-3 * (1 + i / 10), **kw)
            for i in range(16)]
    for s in sims:
        smooth_start(s)
    ens = ac.Ensemble(sims)
    print(f"{name:<14}{'Ensemble 16 x 64^3':<22}{run_rate(lambda u: ens.run(until=u), sims, 20, 1.0):>10.1f}",
          flush=True)
