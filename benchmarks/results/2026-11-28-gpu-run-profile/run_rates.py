"""sim.run against the bench rows' fixed-dt steps, per physics, at one size:
M/s of each (best of 3 batches), their ratio, and from PyTorch's profiler
(CUPTI) the GPU time of the CFL reduction per launch and of the ghost fills
per step of sim.run.  Run once per build (PYTHONPATH) to compare them.

    python run_rates.py N DTYPE [DTYPE ...]"""
import sys
import time
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

import astaroth
from astaroth.bench import SWEEP_PHYSICS, sweep_members


def fixed_rate(sim, n):
    """M/s of the bench's fixed-dt steps (Grid.step at the CFL dt), best of 3 batches of 10."""
    dt = sim.cfl_dt()
    sim._grid.step(dt, 2)
    fixed = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        sim._grid.step(dt, 10)
        sim.check_finite()
        fixed = max(fixed, 10 * n**3 / (time.perf_counter() - t0) / 1e6)
    return fixed


def run_rate(sim, n):
    """M/s of sim.run over 30 CFL steps, best of 3, after a first run that sets up the device loop."""
    sim.run(until=sim.t + 3 * sim.cfl_dt())
    run = 0.0
    for _ in range(3):
        before, span = sim.steps, 30 * sim.cfl_dt()
        t0 = time.perf_counter()
        sim.run(until=sim.t + span)
        run = max(run, (sim.steps - before) * n**3 / (time.perf_counter() - t0) / 1e6)
    return run


def main():
    n = int(sys.argv[1])
    dtypes = sys.argv[2:] or ["float32"]
    torch.zeros(1, device="cuda")
    print(f"# build {astaroth.__file__}")
    print(f"{'physics':<14}{'dtype':>8}{'fixed M/s':>11}{'run M/s':>10}{'run/fixed':>10}{'reduce ms':>10}"
          f"{'fills ms/step':>14}")
    for dtype in dtypes:
        for physics in SWEEP_PHYSICS:
            sim = sweep_members("cuda", "55p", dtype, n, 1, physics, False)[0]
            fixed = fixed_rate(sim, n)
            run = run_rate(sim, n)
            before = sim.steps
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                sim.run(until=sim.t + 10 * sim.cfl_dt())
            steps = sim.steps - before
            per = defaultdict(lambda: [0, 0.0])
            for ev in prof.events():
                if ev.device_type == torch.autograd.DeviceType.CUDA:
                    reduction = "reduce_kernel" in ev.name or "signal_piece_kernel" in ev.name
                    key = "reduce" if reduction else "fill" if "fill_ghost" in ev.name else "other"
                    per[key][0] += 1
                    per[key][1] += ev.device_time_total / 1e3
            reduce_ms = per["reduce"][1] / max(per["reduce"][0], 1)
            print(f"{physics:<14}{dtype:>8}{fixed:>11.0f}{run:>10.0f}{run / fixed:>10.3f}{reduce_ms:>10.4f}"
                  f"{per['fill'][1] / max(steps, 1):>14.4f}", flush=True)
            del sim


if __name__ == "__main__":
    main()
