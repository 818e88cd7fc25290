"""The CUDA runtime calls inside the sweep rows' Ensemble.run (PyTorch's
profiler, CPU and CUDA activities), per call of about STEPS CFL steps of
every member as `astaroth bench --sweeps` makes them: each runtime call's
count and host time, the GPU's busy time, and the gaps of an idle GPU
before its first kernel and after its last.

    python host_calls.py PHYSICS N COUNT DTYPE [forced] [STEPS]"""
import sys
import time
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from astaroth.bench import sweep_members
from astaroth.ensemble import Ensemble

physics, n, count, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
forced = "forced" in sys.argv[5:]
steps = int(next((a for a in sys.argv[5:] if a.isdigit()), 20))
torch.zeros(1, device="cuda")
sims = sweep_members("cuda", "55p", dtype, n, count, physics, forced)
ens = Ensemble(sims)
dt = min(sim.cfl_dt() for sim in sims)
ens.run(until=max(sim.t for sim in sims) + 3 * dt)  # set up
calls = 10
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    t0 = time.perf_counter()
    for _ in range(calls):
        ens.run(until=max(sim.t for sim in sims) + steps * dt)
    wall = time.perf_counter() - t0
host, gpu = defaultdict(lambda: [0, 0.0]), 0.0
for ev in prof.events():
    if ev.device_type == torch.autograd.DeviceType.CUDA:
        gpu += ev.device_time_total
    elif ev.name.startswith("cuda"):
        host[ev.name][0] += 1
        host[ev.name][1] += ev.cpu_time_total
print(f"## {count} x {physics}{' forced' if forced else ''} {n}^3 {dtype}, calls of {steps} steps: "
      f"{wall / calls * 1e3:.3f} ms a call (under the profiler), GPU busy {gpu / calls / 1e3:.3f} ms")
for name, (k, us) in sorted(host.items(), key=lambda kv: -kv[1][1]):
    print(f"  {us / calls / 1e3:8.4f} ms {k / calls:7.1f} a call  {name}")
