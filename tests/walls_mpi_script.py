"""Run under mpirun by tests/test_walls_mpi.py: a run with walls and gravity
on a grid split over the ranks, written by rank 0.

    mpirun -np N python walls_mpi_script.py OUT_DIR
"""
import os
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(__file__))
from test_walls import make_wall_case  # noqa: E402

comm = MPI.COMM_WORLD
sim = make_wall_case(comm)
sim.run(until=0.1)
fields = {name: sim[name] for name in sim.field_names}  # collective
if comm.Get_rank() == 0:
    d = sim.decomposition
    np.savez(os.path.join(sys.argv[1], f"walls-np{comm.Get_size()}.npz"), steps=sim.steps,
             dims=np.array(d.dims if d else (1, 1, 1)), **fields)
