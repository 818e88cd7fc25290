"""A shearing box on GPUs split over MPI ranks (astaroth.parallel): the run
equals one process's on the GPU bit for bit, split along z (each rank shifts
its own x ghosts), along x and along y (the ranks on the x faces bring their
planes to the host, share them over the whole y and hand them to
Grid.shear_ghosts: parallel.ShearingFaces), with and without a passive
scalar.  The ranks may share one GPU (each takes the GPU of its rank within
the node modulo the GPUs there); on one GPU exchange="auto" is the peer
transport (CUDA IPC), and one case runs the host's staging instead.

Runs `mpirun --oversubscribe` on tests/mpi_script.py as tests/test_mpi.py
does; marked gpu, and skipped where mpirun, mpi4py, CuPy or a GPU is
missing."""
import os
import sys

import numpy as np
import pytest

import astaroth as ac

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mpi_case import T_SHEAR, make_shear  # noqa: E402
from test_mpi import mpirun, needs_mpi  # noqa: E402

pytestmark = [pytest.mark.gpu, needs_mpi]


@pytest.fixture(autouse=True)
def _a_gpu_and_cupy():
    if "cuda" not in ac.backends():
        pytest.skip("no GPU")
    pytest.importorskip("cupy")  # the split GPU grid's exchanges (astaroth.parallel)


@pytest.mark.parametrize("scalar", [False, True], ids=["mhd-entropy", "mhd-entropy-scalar"])
@pytest.mark.parametrize("split, ranks, dims, exchange", [("z", 2, (1, 1, 2), "auto"), ("x", 2, (2, 1, 1), "auto"),
                                                          ("y", 2, (1, 2, 1), "auto"), ("y", 4, (2, 2, 1), "auto"),
                                                          ("x", 2, (2, 1, 1), "host")],
                         ids=["z", "x", "y", "xy", "x-host"])
def test_a_shearing_box_split_over_gpus_equals_one_process_bit_for_bit(tmp_path, split, ranks, dims, exchange,
                                                                       scalar):
    """tests/test_mpi.py's shearing box (MHD, entropy, qshear = 1.5, deltay past two points; with its
    passive scalar and without) on the GPU, to T_SHEAR: every field, the steps and deltay as one process
    on the GPU, bit for bit."""
    sim = make_shear(None, split, "cuda", scalar)
    sim.run(until=T_SHEAR)
    mpirun(ranks, tmp_path, "shear", split, "cuda", int(scalar), exchange)
    got = np.load(tmp_path / f"shear-{split}-cuda-{int(scalar)}-{exchange}-np{ranks}.npz")
    assert tuple(got["dims"]) == dims and int(got["steps"]) == sim.steps > 3 and float(got["deltay"]) == sim.deltay
    assert exchange == "auto" or str(got["transport"]) == exchange
    assert ("cc" in sim.field_names) == scalar
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)
