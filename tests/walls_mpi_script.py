"""Run under mpirun by tests/test_walls_mpi.py: a run with walls and gravity
on a grid split over the ranks, written by rank 0.

    mpirun -np N python walls_mpi_script.py OUT_DIR [CASE]

CASE: hydro (test_walls.make_wall_case, the default) or entropy
(test_walls_entropy.make_entropy_wall_case: entropy, a passive scalar, MHD).
"""
import os
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(__file__))
from test_walls import make_wall_case  # noqa: E402
from test_walls_entropy import make_entropy_wall_case  # noqa: E402

CASES = {"hydro": make_wall_case, "entropy": make_entropy_wall_case}
case = sys.argv[2] if len(sys.argv) > 2 else "hydro"
comm = MPI.COMM_WORLD
sim = CASES[case](comm)
sim.run(until=0.1)
fields = {name: sim[name] for name in sim.field_names}  # collective
if comm.Get_rank() == 0:
    d = sim.decomposition
    np.savez(os.path.join(sys.argv[1], f"walls-{case}-np{comm.Get_size()}.npz"), steps=sim.steps,
             dims=np.array(d.dims if d else (1, 1, 1)), **fields)
