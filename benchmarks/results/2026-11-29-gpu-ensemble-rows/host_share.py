"""Where the wall time of the sweep rows' Ensemble.run goes, batch by batch
as `astaroth bench --sweeps` times it (run_rate: calls of about STEPS CFL
steps of every member): the seconds inside _core.run_cfl_members (the C
loop, GPU work included) against the whole call, and cProfile's largest
Python costs outside it.

    python host_share.py PHYSICS N COUNT DTYPE [forced] [STEPS]"""
import cProfile
import pstats
import sys
import time

from astaroth import _core
from astaroth.bench import sweep_members
from astaroth.ensemble import Ensemble

physics, n, count, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
forced = "forced" in sys.argv[5:]
steps = int(next((a for a in sys.argv[5:] if a.isdigit()), 20))
sims = sweep_members("cuda", "55p", dtype, n, count, physics, forced)
ens = Ensemble(sims)
dt = min(sim.cfl_dt() for sim in sims)
ens.run(until=max(sim.t for sim in sims) + 3 * dt)  # set up

inside = [0.0, 0]
original = _core.run_cfl_members


batches = []  # (steps asked, most taken by a member) of each call


def timed(*args):
    t0 = time.perf_counter()
    try:
        result = original(*args)
        batches.append((args[2], max(r[1] for r in result) if result else None))
        return result
    finally:
        inside[0] += time.perf_counter() - t0
        inside[1] += 1


_core.run_cfl_members = timed  # (ensemble.py calls it through the module)
calls, taken = 10, 0
before = sum(sim.steps for sim in sims)
t0 = time.perf_counter()
for _ in range(calls):
    ens.run(until=max(sim.t for sim in sims) + steps * dt)
wall = time.perf_counter() - t0
taken = (sum(sim.steps for sim in sims) - before) / count
print(f"## {count} x {physics}{' forced' if forced else ''} {n}^3 {dtype}: {calls} calls of Ensemble.run, "
      f"{taken / calls:.1f} steps a member each: {wall / calls * 1e3:.3f} ms a call, "
      f"{inside[0] / calls * 1e3:.3f} ms in run_cfl_members ({inside[1] / calls:.1f} a call), "
      f"{(wall - inside[0]) / calls * 1e3:.3f} ms outside; {count * n**3 * taken / wall / 1e6:.0f} M/s")
print(f"   steps asked, most taken by a member, call by call: {batches}")
prof = cProfile.Profile()
prof.enable()
for _ in range(calls):
    ens.run(until=max(sim.t for sim in sims) + steps * dt)
prof.disable()
pstats.Stats(prof).sort_stats("tottime").print_stats(14)
