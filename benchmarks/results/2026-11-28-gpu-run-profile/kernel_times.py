"""Where a step's time goes on the GPU: the kernels of N fixed-dt steps
(the bench rows' `_grid.step`) against N CFL steps of `sim.run`, of one
physics at one size, timed by PyTorch's profiler (CUPTI, every kernel of
the process, not serialised).  Prints wall time per step, and per kernel
name the launches and GPU time per step.

    python kernel_times.py PHYSICS N [DTYPE] [STEPS] [forced]
PHYSICS: a key of astaroth.bench.SWEEP_PHYSICS (hydro, mhd, hydro+entropy,
mhd+entropy); forced: with the sweep rows' forcing."""
import sys
import time
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

from astaroth.bench import sweep_members

physics, n = sys.argv[1], int(sys.argv[2])
dtype = sys.argv[3] if len(sys.argv) > 3 else "float32"
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 20
forced = sys.argv[5:6] == ["forced"]
torch.zeros(1, device="cuda")  # the context before the profiler starts


def table(name, prof, wall, count):
    per = defaultdict(lambda: [0, 0.0])
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            key = ev.name[:90]
            per[key][0] += 1
            per[key][1] += ev.device_time_total  # us
    busy = sum(v[1] for v in per.values())
    print(f"## {name}: {physics}{' forced' if forced else ''} {n}^3 {dtype}, {count} steps: wall {wall / count * 1e3:.3f} ms/step, "
          f"GPU busy {busy / count / 1e3:.3f} ms/step, {n**3 * count / wall / 1e6:.0f} M/s")
    for key, (launches, us) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        print(f"  {us / count / 1e3:9.4f} ms/step {launches / count:6.2f} launches/step  {key}")


sim = sweep_members("cuda", "55p", dtype, n, 1, physics, forced)[0]
dt = sim.cfl_dt()
sim._grid.step(dt, 2)
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    t0 = time.perf_counter()
    for _ in range(steps):
        sim._grid.step(dt, 1)  # with the forcing where the grid has one
    wall = time.perf_counter() - t0
table("fixed-dt steps (_grid.step, the bench rows' stepper)", prof, wall, steps)

sim.run(until=sim.t + 3 * dt)  # the device loop set up
dt = sim.cfl_dt()
before = sim.steps
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    t0 = time.perf_counter()
    sim.run(until=sim.t + steps * dt * 0.999)
    wall = time.perf_counter() - t0
table("sim.run (CFL steps in the device loop)", prof, wall, sim.steps - before)
