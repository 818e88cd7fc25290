"""GPU time of each kernel of sim.run's forced steps at one size (PyTorch's
profiler, CUPTI), as ../2026-11-29-gpu-deferred-order/kernel_times.py
prints them for unforced runs: per launch, launches per step, total per
step, the eight largest; about 20 steps of the sweep bench's forced run
(kf 1-2, helical for MHD).

    python forced_kernel_times.py N PHYSICS:DTYPE [PHYSICS:DTYPE ...]"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-11-29-gpu-deferred-order"))
from kernel_times import kernel_times  # noqa: E402

n = int(sys.argv[1])
torch.zeros(1, device="cuda")
for case in sys.argv[2:]:
    physics, dtype = case.split(":")
    kernel_times(n, physics, dtype, forced=True, steps=20, rows=8)
