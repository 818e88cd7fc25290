"""Where an ensemble's step goes: Ensemble.run of COUNT members at N^3 of
PHYSICS in DTYPE (the sweep rows' members), its kernels timed by PyTorch's
profiler (CUPTI): wall time and GPU busy time per step of every member, and
per kernel the launches and GPU time per step.

    python ensemble_times.py PHYSICS N COUNT DTYPE [forced]"""
import re
import sys
import time
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from astaroth.bench import sweep_members
from astaroth.ensemble import Ensemble

physics, n, count, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
forced = sys.argv[5:6] == ["forced"]
torch.zeros(1, device="cuda")
sims = sweep_members("cuda", "55p", dtype, n, count, physics, forced)
ens = Ensemble(sims)
dt = min(sim.cfl_dt() for sim in sims)
ens.run(until=max(sim.t for sim in sims) + 3 * dt)  # set up
before = sum(sim.steps for sim in sims)
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    t0 = time.perf_counter()
    ens.run(until=max(sim.t for sim in sims) + 30 * dt)
    wall = time.perf_counter() - t0
steps = (sum(sim.steps for sim in sims) - before) / count
per = defaultdict(lambda: [0, 0.0])
for ev in prof.events():
    if ev.device_type == torch.autograd.DeviceType.CUDA:
        m = re.search(r"(\w+_kernel\w*)<([^>]*)>", ev.name) or re.search(r"(\w+)\(", ev.name)
        key = f"{m.group(1)}<{m.group(2)}>" if m and m.lastindex == 2 else (m.group(1) if m else ev.name[:60])
        per[key][0] += 1
        per[key][1] += ev.device_time_total
busy = sum(v[1] for v in per.values())
print(f"## {count} x {physics}{' forced' if forced else ''} {n}^3 {dtype}, {steps:.1f} steps a member: wall "
      f"{wall / steps * 1e3:.3f} ms a step, GPU busy {busy / steps / 1e3:.3f} ms, "
      f"{count * n**3 * steps / wall / 1e6:.0f} M/s (under the profiler)")
for key, (launches, us) in sorted(per.items(), key=lambda kv: -kv[1][1]):
    print(f"  {us / steps / 1e3:9.4f} ms/step {launches / steps:7.2f} launches/step  {key[:100]}")
