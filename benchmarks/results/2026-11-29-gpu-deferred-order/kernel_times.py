"""GPU time of each kernel of sim.run's steps at one size (PyTorch's
profiler, CUPTI): per launch, launches per step, and the total per step,
for each physics and precision given.

    python kernel_times.py N PHYSICS:DTYPE [PHYSICS:DTYPE ...]"""
import re
import sys
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from astaroth.bench import sweep_members


def kernel_times(n, physics, dtype, forced=False, steps=10, rows=None):
    """Print the kernels of about `steps` CFL steps of sim.run (the sweep
    bench's run; forced: its forcing), the `rows` largest (None: all)."""
    sim = sweep_members("cuda", "55p", dtype, n, 1, physics, forced)[0]
    sim.run(until=sim.t + 3 * sim.cfl_dt())
    # (as each script ran: the forced one finds until before the profiler starts, the other inside it)
    until = sim.t + steps * sim.cfl_dt() if forced else None
    before = sim.steps
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        sim.run(until=until if forced else sim.t + steps * sim.cfl_dt())
    steps = sim.steps - before
    per = defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            name = ev.name
            m = re.search(r"(\w+_kernel\w*)<([^>]*)>", name) or re.search(r"(\w+)\(", name)
            key = f"{m.group(1)}<{m.group(2)}>" if m and m.lastindex == 2 else (m.group(1) if m else name[:60])
            per[key][0] += 1
            per[key][1] += ev.device_time_total / 1e3
    total = sum(v[1] for v in per.values())
    print(f"# {physics}{' forced' if forced else ''} {dtype} {n}^3: {steps} steps, {total / steps:.4f} ms a step "
          f"on the GPU")
    for key, (count, ms) in sorted(per.items(), key=lambda kv: -kv[1][1])[:rows]:
        print(f"  {ms / count:9.4f} ms x {count / steps:5.2f} a step = {ms / steps:8.4f}  {key[:110]}")
    del sim


if __name__ == "__main__":
    n = int(sys.argv[1])
    torch.zeros(1, device="cuda")
    for case in sys.argv[2:]:
        physics, dtype = case.split(":")
        kernel_times(n, physics, dtype)
