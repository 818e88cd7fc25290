"""The CFL reduction of one grid, launched for Nsight Compute: a 256^3 run of
PHYSICS (astaroth.bench's sweep grid) stepped five CFL steps, then
Grid.signal_speed four times (the ghost fill and the reduction each time).

    python reduce_once.py N DTYPE PHYSICS"""
import sys

from astaroth.bench import sweep_members

n, dtype, physics = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sim = sweep_members("cuda", "55p", dtype, n, 1, physics, False)[0]
sim.run(until=sim.t + 5 * sim.cfl_dt())
print(physics, dtype, [sim._grid.signal_speed().hex() for _ in range(4)])
