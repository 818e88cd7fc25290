"""The CFL reduction of one grid (csrc/cuda/mhd_substep.cuh), the walk up z
against PX consecutive x points a thread read as aligned pieces, in one
process: ASTAROTH_SIGNAL_PIECES="PX BLOCKS" picks the kernel ("0": the walk)
at each launch.

    python signal_pieces.py N [PHYSICS ...]

Per physics and dtype at N^3: first each variant's reduction kernel, GPU
ms a launch (CUPTI, 20 launches of Grid.signal_speed, the ghost fill before
it apart) and whether its maximum equals the walk's to the bit; then the
bench's fixed-dt rate and sim.run's (best of 3 batches), the walk and the
fastest variant with the walk's bits in turn, two rounds."""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import astaroth
from astaroth.bench import sweep_members

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-11-28-gpu-run-profile"))
from run_rates import fixed_rate, run_rate  # noqa: E402

VARIANTS = {"float32": ["0", "4 2", "4 3", "4 4", "2 4", "2 5", "2 6"],
            "float64": ["0", "2 2", "2 3", "2 4", "1 4", "1 5"]}
KEY = "ASTAROTH_SIGNAL_PIECES"


def grid_for(physics, dtype, n):
    os.environ[KEY] = "0"
    sim = sweep_members("cuda", "55p", dtype, n, 1, physics, False)[0]
    sim.run(until=sim.t + 5 * sim.cfl_dt())  # a field with structure in every array
    return sim


def speeds(sim, physics, dtype):
    """{variant: ms a launch} of the variants whose maximum is the walk's to the bit"""
    walk, same = None, {}
    for variant in VARIANTS[dtype]:
        os.environ[KEY] = variant
        value = sim._grid.signal_speed()
        walk = value if walk is None else walk
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                sim._grid.signal_speed()
        times = [ev.device_time_total / 1e3 for ev in prof.events()
                 if ev.device_type == torch.autograd.DeviceType.CUDA and "signal_" in ev.name]
        ms = sum(times) / max(len(times), 1)
        print(f"{physics:<14}{dtype:>8}{variant:>9}{ms:>9.4f}{value.hex():>24}  {value == walk}", flush=True)
        if value == walk:
            same[variant] = ms
    return same


def rates(sim, physics, dtype, n, variants):
    fixed = fixed_rate(sim, n)
    for variant in variants * 2:
        os.environ[KEY] = variant
        rate = run_rate(sim, n)
        print(f"{physics:<14}{dtype:>8}{variant:>9}{fixed:>11.0f}{rate:>10.0f}{rate / fixed:>10.3f}", flush=True)


torch.zeros(1, device="cuda")
print(f"# build {astaroth.__file__}; ASTAROTH_PLAIN_ORDER={os.environ.get('ASTAROTH_PLAIN_ORDER')}")
n = int(sys.argv[1])
for dtype in ("float32", "float64"):
    for physics in sys.argv[2:] or ("mhd", "hydro+entropy", "mhd+entropy"):
        sim = grid_for(physics, dtype, n)
        print(f"{'physics':<14}{'dtype':>8}{'variant':>9}{'ms':>9}{'speed':>24}  same bits as the walk")
        same = speeds(sim, physics, dtype)
        fastest = min(same, key=same.get)
        print(f"{'physics':<14}{'dtype':>8}{'variant':>9}{'fixed M/s':>11}{'run M/s':>10}{'run/fixed':>10}")
        rates(sim, physics, dtype, n, ["0", fastest])
        del sim
