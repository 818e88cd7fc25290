"""Two time-series rows of a CUDA simulation (for a profiler: the second is profiled).

    python one_row.py N PHYSICS[+entropy] DTYPE
"""
import sys

import astaroth as ac
from astaroth import diagnostics

physics, _, energy = sys.argv[2].partition("+")
sim = ac.Simulation(shape=int(sys.argv[1]), dtype=sys.argv[3], backend="cuda", physics=physics,
                    energy=energy or "isothermal")
ac.init.random_velocity(sim, urms=0.1, seed=1)
for _ in range(2):
    diagnostics.row(sim, 0.0)
