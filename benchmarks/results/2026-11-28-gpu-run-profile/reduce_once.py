"""A 256^3 run of PHYSICS (astaroth.bench.SWEEP_PHYSICS) that launches the
CFL reduction a few times: for Nsight Compute to profile
(--kernel-name regex:signal_reduce --launch-skip 2 --launch-count 1)."""
import sys

from astaroth.bench import sweep_members

physics = sys.argv[1]
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
sim = sweep_members("cuda", "55p", dtype, 256, 1, physics, False)[0]
for _ in range(4):
    sim.cfl_dt()
