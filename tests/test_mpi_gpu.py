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
from mpi_case import T_HALF, T_SHEAR, YZ_SHAPE, make_entropy, make_shear, make_shear_shock, make_shock  # noqa: E402
from test_walls_entropy import make_entropy_wall_case  # noqa: E402
from test_mpi import c_steps_equal_python, mpirun, needs_mpi  # noqa: E402

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


@pytest.mark.parametrize("case, ranks, dims, exchange", [
    ("entropy", 2, (1, 1, 2), "auto"), ("entropy", 3, (1, 1, 3), "auto"), ("entropy", 4, (2, 1, 2), "auto"),
    ("entropy", 8, (2, 2, 2), "auto"), ("entropy", 4, (2, 1, 2), "host"), ("entropy-yz", 4, (1, 2, 2), "auto"),
    ("walls", 2, (1, 1, 2), "auto"), ("walls", 4, (1, 1, 4), "host")],
    ids=["z", "z3", "xz", "xyz", "xz-host", "yz", "walls-z", "walls-z4-host"])
def test_a_split_gpu_run_with_its_messages_in_one_round_equals_one_gpu_bit_for_bit(tmp_path, case, ranks, dims,
                                                                                     exchange):
    """A forced MHD run with entropy in a tilted rotating frame (tests/mpi_case.make_entropy), and MHD, entropy
    and a scalar between walls along the split axis with gravity (make_entropy_wall_case), on GPUs split over
    1, 2 or 3 axes: every message of a substep packed in one launch before the inner part, unpacked after it
    (astaroth/halo_messages.py), through CUDA IPC or the host, or where x is not split and has no walls copied
    by the copy engine into the neighbours' fields (along z alone, or y and z); every field and the steps as
    one GPU's, and each rank's Simulation.view its own subdomain of the field."""
    make = {"entropy": make_entropy, "walls": make_entropy_wall_case,
            "entropy-yz": lambda comm, **k: make_entropy(comm, shape=YZ_SHAPE, **k)}[case]
    sim = make(None, backend="cuda")
    sim.run(until=T_HALF)
    mpirun(ranks, tmp_path, "gpu", case, exchange)
    got = np.load(tmp_path / f"gpu-{case}-{exchange}-np{ranks}.npz")
    assert tuple(got["dims"]) == dims and int(got["steps"]) == sim.steps > 3
    assert str(got["exchange_kind"]) == "FaceMessages"
    assert bool(got["views"])  # each rank's Simulation.view is its own subdomain of the field
    assert exchange == "auto" or str(got["transport"]) == exchange
    # on peer transport with x not split, field to field (but walls in x: their ghosts are filled)
    assert bool(got["direct"]) == (case != "walls" and dims[0] == 1 and exchange == "auto")
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@pytest.mark.parametrize("case, ranks, dims, exchange", [
    ("shock", 2, (1, 1, 2), "auto"), ("shock", 4, (2, 1, 2), "auto"), ("shock", 4, (2, 1, 2), "host"),
    ("shock", 8, (2, 2, 2), "auto"), ("shear_shock-z", 2, (1, 1, 2), "auto"), ("shear_shock-x", 2, (2, 1, 1), "auto"),
    ("shear_shock-y", 2, (1, 2, 1), "auto")],
    ids=["z", "xz", "xz-host", "xyz", "shear-z", "shear-x", "shear-y"])
def test_shock_viscosity_split_over_gpus_equals_one_gpu_bit_for_bit(tmp_path, case, ranks, dims, exchange):
    """A forced run with shock viscosity (tests/mpi_case.make_shock), and the shearing box with it
    (make_shear_shock, without its scalar) split along z, x or y, on GPUs split over 1 to 3 axes: the profile's passes
    (compression, 3x3x3 maximum, smoothing along x, y, z; csrc/cuda/shock.cuh) each exchanged before the
    next, a shearing box's x images of each shifted across the ranks, against one GPU's profile in one
    kernel: every field and the steps bit for bit."""
    make = make_shock if case == "shock" else lambda comm, **k: make_shear_shock(comm, case[-1], scalar=False, **k)
    sim = make(None, backend="cuda")
    sim.run(until=T_HALF)
    assert sim.shock_viscosity().max() > 0
    mpirun(ranks, tmp_path, "gpu", case, exchange)
    got = np.load(tmp_path / f"gpu-{case}-{exchange}-np{ranks}.npz")
    assert tuple(got["dims"]) == dims and int(got["steps"]) == sim.steps > 3
    assert exchange == "auto" or str(got["transport"]) == exchange
    assert bool(got["views"])
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@pytest.mark.parametrize("case, ranks, dims, direct", [
    ("entropy", 2, (1, 1, 2), True), ("entropy-yz", 4, (1, 2, 2), True), ("entropy", 4, (2, 1, 2), False),
    ("entropy-host", 4, (2, 1, 2), False), ("entropy", 8, (2, 2, 2), False), ("z_walls", 2, (1, 1, 2), True),
    ("z_walls", 4, (1, 1, 4), True), ("walls", 2, (1, 1, 2), False), ("shock", 2, (1, 1, 2), True),
    ("shock", 4, (2, 1, 2), False), ("decaying", 2, (1, 1, 2), True), ("decaying", 4, (2, 1, 2), False),
    ("decaying_entropy", 2, (1, 1, 2), True), ("forced_fluid", 2, (1, 1, 2), True),
    ("forced_fluid", 4, (2, 1, 2), False), ("forced_entropy", 2, (1, 1, 2), True)],
    ids=["z", "yz", "xz", "xz-host", "xyz", "z-walls", "z-walls4", "x-and-z-walls", "shock-z", "shock-xz",
         "decaying-z", "decaying-xz", "decaying-entropy-z", "forced-z", "forced-xz", "forced-entropy-z"])
def test_a_split_gpu_run_stepped_in_c_equals_its_steps_through_python_bit_for_bit(tmp_path, case, ranks, dims,
                                                                                    direct):
    """Simulation.run's batches of a split GPU grid in C (astaroth._split built with CUDA) equal
    ParallelStepper's steps from Python, time series too: its messages straight into the neighbours' fields
    (x not split and periodic: along z, or y and z; walls along the split axis z,
    tests/test_walls_entropy.make_entropy_wall_case), or packed in one launch and carried by CUDA IPC or
    through the host (x split, or walls in x); with shock viscosity its profile's passes exchanged packed;
    hydro with and without entropy, decaying and forced (tests/mpi_case.make_fluid), whose steps in C add the
    forcing and take each next step's signal speed in their last substep."""
    import importlib.util

    data = c_steps_equal_python(tmp_path, case, ranks, "cuda")
    assert tuple(data["dims"]) == dims
    built = importlib.util.find_spec("astaroth._split") is not None
    if built:
        from astaroth import _split
    assert bool(data["direct"]) == direct
    assert bool(data["in_c"]) == (built and _split.cuda)
