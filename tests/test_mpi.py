"""A grid split over MPI ranks (astaroth.parallel) gives the single-process
run bit for bit; snapshots restart on another number of ranks.

Runs `mpirun --oversubscribe` on tests/mpi_script.py; skipped where mpi4py or
mpirun is missing (docs/guide/parallel.md says how to install them).
"""
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import astaroth as ac
from astaroth.parallel import split_dims

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mpi_case import FIELDS, T_END, T_HALF, T_SHEAR, make, make_mhd, make_shear, make_shear_shock, make_shock, make_terms  # noqa: E402

MPIRUN = shutil.which("mpirun") or shutil.which("mpiexec")
try:
    import mpi4py  # noqa: F401
    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False
needs_mpi = pytest.mark.skipif(not (MPIRUN and HAVE_MPI4PY), reason="needs mpirun and mpi4py (docs/guide/parallel.md says how to install them)")


def mpirun_prefix(ranks):
    """mpirun and its flags for `ranks` processes on this machine (Open MPI: oversubscribed, as root if so)."""
    flags = ["--oversubscribe"] if "Open MPI" in subprocess.run([MPIRUN, "--version"], capture_output=True,
                                                                  text=True).stdout else []
    if hasattr(os, "geteuid") and os.geteuid() == 0 and flags:
        flags.append("--allow-run-as-root")
    return [MPIRUN, *flags, "-np", str(ranks)]


def mpirun(ranks, *args, timeout=300):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    cmd = [*mpirun_prefix(ranks), sys.executable, os.path.join(HERE, "mpi_script.py"), *map(str, args)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The single-process run: fields at T_END and its time series."""
    out = tmp_path_factory.mktemp("single")
    sim = make()
    sim.run(until=T_HALF, timeseries=out / "ts.csv", diagnostics_every=2)
    sim.run(until=T_END, timeseries=out / "ts.csv", diagnostics_every=2)
    return sim, np.genfromtxt(out / "ts.csv", delimiter=",", names=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpi")
    if MPIRUN and HAVE_MPI4PY:
        for ranks in (1, 2, 4, 8):
            mpirun(ranks, out, "run")
    return out


def test_split_dims_prefers_z_and_keeps_the_stencil_radius():
    assert split_dims(2, (16, 12, 20)) == (1, 1, 2)
    assert split_dims(4, (16, 12, 20)) == (2, 1, 2)
    assert split_dims(8, (16, 12, 20)) == (2, 2, 2)
    assert split_dims(4, (64, 1, 1)) == (4, 1, 1)  # a 1-D run splits along x only
    with pytest.raises(ValueError, match="at least 3 points"):
        split_dims(8, (8, 1, 1))


@needs_mpi
@pytest.mark.parametrize("ranks", [1, 2, 4, 8])
def test_forced_run_equals_one_process_bit_for_bit(runs, single, ranks):
    sim, _ = single
    got = np.load(runs / f"fields-np{ranks}.npz")
    assert int(got["steps"]) == sim.steps
    if ranks > 1:
        assert np.prod(got["dims"]) == ranks
    for name in FIELDS:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 8])
def test_diagnostics_and_spectrum_are_global(runs, single, ranks):
    sim, series = single
    got = np.genfromtxt(runs / f"ts-np{ranks}.csv", delimiter=",", names=True)
    assert len(got) == len(series) > 2
    for column in series.dtype.names:
        np.testing.assert_allclose(got[column], series[column], rtol=1e-12, atol=1e-15, err_msg=column)
    k, e = ac.analysis.spectrum(sim)
    fields = np.load(runs / f"fields-np{ranks}.npz")
    np.testing.assert_allclose(fields["spectrum_e"], e, rtol=1e-12)


@needs_mpi
@pytest.mark.parametrize("written, read, procs", [(2, 4, None), (8, 1, None), (4, 3, None), (2, 4, "4x1x1")])
def test_snapshot_restarts_on_another_number_of_ranks(runs, single, tmp_path, written, read, procs):
    sim, _ = single
    mpirun(read, tmp_path, "restart", runs / f"half-np{written}.h5", *([procs] if procs else []))
    got = np.load(tmp_path / f"restart-np{read}.npz")
    assert int(got["steps"]) == sim.steps
    assert procs is None or "x".join(map(str, got["dims"])) == procs  # load(procs=) lays the ranks out so
    for name in FIELDS:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4, 8])
def test_a_split_snapshot_is_written_by_every_rank_and_reads_as_one(runs, ranks):
    """sim.save of a split grid gathers nothing: each rank writes its subdomain into PATH.parts/, and PATH
    holds each field as a virtual dataset of the parts (astaroth.io._save_split), which one process reads
    as the single-process snapshot, bit for bit."""
    import h5py

    path = runs / f"half-np{ranks}.h5"
    with h5py.File(path) as f:
        sources = f["fields/ux"].virtual_sources()
        assert f["fields/ux"].is_virtual and len(sources) == ranks
    sets = list((runs / f"half-np{ranks}.h5.parts").iterdir())
    assert len(sets) == 1 and len(list(sets[0].iterdir())) == ranks  # one part a rank, no other set left
    split, whole = ac.load(path, backend="cpu"), ac.load(runs / "half-np1.h5", backend="cpu")
    assert (split.t, split.steps) == (whole.t, whole.steps)
    for name in whole.field_names:
        np.testing.assert_array_equal(split[name], whole[name], err_msg=name)


@needs_mpi
def test_a_split_snapshot_without_its_parts_is_refused_naming_them(runs, tmp_path):
    """Copied without PATH.parts/, HDF5 would read the fields as zeros: ac.load names the missing part."""
    shutil.copy(runs / "half-np2.h5", tmp_path / "alone.h5")
    with pytest.raises(ValueError, match=r"alone\.h5.*half-np2\.h5\.parts/.*rank00000\.h5 is missing"):
        ac.load(tmp_path / "alone.h5", backend="cpu")
    shutil.copytree(runs / "half-np2.h5.parts", tmp_path / "half-np2.h5.parts")  # under the name it names
    assert ac.load(tmp_path / "alone.h5", backend="cpu").steps > 0


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_mhd_run_equals_one_process_bit_for_bit(tmp_path, ranks):
    sim = make_mhd()
    sim.run(until=T_HALF, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    series = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    mpirun(ranks, tmp_path, "mhd")
    got = np.load(tmp_path / f"mhd-np{ranks}.npz")
    assert int(got["steps"]) == sim.steps
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)
    split = np.genfromtxt(tmp_path / f"mhd-ts-np{ranks}.csv", delimiter=",", names=True)
    assert "brms" in split.dtype.names and len(split) == len(series)
    for column in series.dtype.names:
        np.testing.assert_allclose(split[column], series[column], rtol=1e-12, atol=1e-15, err_msg=column)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4, 8])
def test_the_scalar_hyperdiffusion_and_rotation_split_equal_one_process_bit_for_bit(tmp_path, ranks):
    sim = make_terms()
    sim.run(until=T_HALF, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    mpirun(ranks, tmp_path, "terms")
    got = np.load(tmp_path / f"terms-np{ranks}.npz")
    assert int(got["steps"]) == sim.steps > 3
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4, 8])
def test_shock_viscosity_split_equals_one_process_bit_for_bit(tmp_path, ranks):
    """The shock profile's passes (compression, 3x3x3 maximum, smoothing) exchange what each wrote before the
    next (astaroth/parallel.py), and dt takes the largest zeta over every rank: one process's steps, bit for
    bit, and its time series."""
    sim = make_shock()
    sim.run(until=T_HALF, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    assert sim.shock_viscosity().max() > 0
    series = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    mpirun(ranks, tmp_path, "shock")
    got = np.load(tmp_path / f"shock-np{ranks}.npz")
    assert int(got["steps"]) == sim.steps > 3
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)
    split = np.genfromtxt(tmp_path / f"shock-ts-np{ranks}.csv", delimiter=",", names=True)
    for column in series.dtype.names:
        np.testing.assert_allclose(split[column], series[column], rtol=1e-12, atol=1e-15, err_msg=column)


@needs_mpi
@pytest.mark.parametrize("split, ranks, dims", [("z", 2, (1, 1, 2)), ("x", 2, (2, 1, 1)), ("y", 2, (1, 2, 1)),
                                                ("y", 8, (2, 4, 1))])
def test_a_shearing_box_split_equals_one_process_bit_for_bit(tmp_path, split, ranks, dims):
    """The shifted x faces (MHD, entropy, a passive scalar, qshear = 1.5): split along z they shift in C
    as on one process; along x and y the ranks on the x faces share their planes over the whole y
    (astaroth.parallel.ShearingFaces) and shift them in C; deltay advances on every rank alike.  Without
    the shared planes the fields would differ by 0.2."""
    sim = make_shear(None, split)
    sim.run(until=T_SHEAR)
    mpirun(ranks, tmp_path, "shear", split)
    got = np.load(tmp_path / f"shear-{split}-cpu-1-auto-np{ranks}.npz")
    assert tuple(got["dims"]) == dims and int(got["steps"]) == sim.steps > 3 and float(got["deltay"]) == sim.deltay
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@needs_mpi
@pytest.mark.parametrize("split, ranks, dims", [("z", 2, (1, 1, 2)), ("x", 2, (2, 1, 1)), ("y", 2, (1, 2, 1)),
                                                ("y", 4, (2, 2, 1))])
def test_a_shearing_box_with_shock_viscosity_split_over_ranks_equals_one_process_bit_for_bit(tmp_path, split,
                                                                                               ranks, dims):
    """The profile's passes take shifted x images as the fields do: split along z, each rank fills its own
    (csrc/cpu/point_impl.h) and exchanges along z; along x or y the ranks on the x faces share each pass's
    planes over the whole y (astaroth.parallel.ShearingFaces) before the exchanges and fills of y and z
    carry them into the edges."""
    sim = make_shear_shock(None, split)
    sim.run(until=T_HALF)
    mpirun(ranks, tmp_path, "shear_shock", split)
    got = np.load(tmp_path / f"shear_shock-{split}-np{ranks}.npz")
    assert tuple(got["dims"]) == dims and int(got["steps"]) == sim.steps > 3
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


def _split_built():
    import importlib.util

    return importlib.util.find_spec("astaroth._split") is not None


@pytest.mark.skipif(not shutil.which(os.environ.get("MPICC", "mpicc")), reason="needs an MPI compiler (mpicc)")
def test_an_install_where_mpicc_is_found_builds_the_split_steps_in_c():
    assert _split_built(), ("astaroth._split (csrc/split/) is missing though mpicc is on PATH: setup.py builds it "
                            "with mpicc; install astaroth again after MPI")


@needs_mpi
@pytest.mark.parametrize("case, ranks", [("forced", 4), ("mhd", 2), ("entropy", 4), ("terms", 2), ("walls", 2),
                                         ("shear", 2), ("shock", 2), ("shock", 4), ("shear_shock", 2),
                                         ("decaying_entropy", 2), ("forced_entropy", 2)])
def test_a_split_run_stepped_in_c_equals_its_steps_through_python_bit_for_bit(tmp_path, case, ranks):
    """Simulation.run's batches of a split grid in C (astaroth._split: the exchanges, the substeps, dt and
    the end of a batch agreed over the ranks; with shock viscosity its profile's passes exchanged between
    them) equal ParallelStepper's steps from Python, time series too."""
    data = c_steps_equal_python(tmp_path, case, ranks)
    assert bool(data["in_c"]) == _split_built()


def c_steps_equal_python(tmp_path, case, ranks, *backend):
    """mpi_script.py's c_steps run of `case` on `ranks`: its steps in C and from Python, every field and the
    time series equal, more than three steps; its record (in_c, direct, dims)."""
    mpirun(ranks, tmp_path, "c_steps", case, *backend)
    data = np.load(tmp_path / f"c_steps-{case}-np{ranks}.npz")
    assert int(data["steps_c"]) == int(data["steps_python"]) > 3
    names = [key[2:] for key in data.files if key.startswith("c_")]
    assert len(names) >= 4
    for name in names:
        assert np.array_equal(data[f"c_{name}"], data[f"python_{name}"]), name
    series = [(tmp_path / f"c_steps-{case}-{path}-np{ranks}.csv").read_text() for path in ("c", "python")]
    assert series[0] == series[1] and series[0].count("\n") > 2
    return data


@needs_mpi
def test_nan_in_one_subdomain_stops_every_rank(tmp_path):
    mpirun(4, tmp_path, "nonfinite")
    message = (tmp_path / "nonfinite-np4.txt").read_text()
    assert "NaN or Inf at step 1" in message


@needs_mpi
def test_nan_in_one_subdomain_stops_every_rank_of_a_run_stepped_in_c_after_the_same_step(tmp_path):
    """A NaN in one rank's passive scalar, which no other field and so no signal speed takes up: after the
    first step (Simulation.run's batch, in C where astaroth._split is built) only that rank sees it; all agree
    on it with the next step's reduction of dt and stop there, each raising NonFiniteError that names the
    scalar at step 1."""
    mpirun(4, tmp_path, "nonfinite_run")
    for rank in range(4):
        steps, in_c, message = (tmp_path / f"nonfinite_run-np4-rank{rank}.txt").read_text().split(maxsplit=2)
        assert steps == "1" and in_c == str(_split_built()) and "'cc' holds NaN or Inf at step 1" in message


def test_19p_is_refused_on_a_split_grid():
    class FakeComm:  # just enough of a communicator for the check
        def Get_size(self):
            return 2

    with pytest.raises(ValueError, match="55p"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", method="19p", comm=FakeComm())


@needs_mpi
@pytest.mark.parametrize("case, ranks, procs", [("forced", 2, (1, 1, 2)), ("forced", 4, (2, 2, 1)),
                                                ("walls", 4, (2, 1, 2))])
def test_a_split_run_writes_the_pencil_code_folders_of_one_process_byte_for_byte(tmp_path, case, ranks, procs):
    """save_pencil of a run split over ranks, its process layout other than the ranks' (and with walls, whose
    ghosts each process box takes from its own points): every file as one process writes it, byte for byte,
    each rank sending rank 0 only its part of one process's field at a time (astaroth/pencil.py)."""
    from test_walls_entropy import make_entropy_wall_case

    sim = {"forced": make, "walls": make_entropy_wall_case}[case]()
    sim.run(until=T_HALF)
    one = tmp_path / "one"
    sim.save_pencil(one, procs=procs)
    mpirun(ranks, tmp_path, "pencil", case, "x".join(map(str, procs)))
    split = tmp_path / f"pencil-{case}-np{ranks}"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(split) for p in split.rglob("*") if p.is_file())
    assert len([f for f in files if f.name == "var.dat"]) == math.prod(procs)
    for name in files:
        assert (one / name).read_bytes() == (split / name).read_bytes(), name


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_read_var_splits_a_pencil_snapshot_over_ranks_each_reading_only_its_processes(tmp_path, ranks):
    """A Pencil Code run on 1 x 2 x 2 processes (tests/data/pencil/hydro8p4) and the walls run written for
    2 x 1 x 2 (save_pencil), read by read_var(comm=) over ranks that split the grid otherwise: every field and
    t as one process reads them, bit for bit."""
    from test_walls_entropy import make_entropy_wall_case

    walls = make_entropy_wall_case()
    walls.run(until=0.05)
    written = tmp_path / "walls"
    walls.save_pencil(written, procs=(2, 1, 2))
    here = os.path.dirname(os.path.abspath(__file__))
    for source, varfile in ((os.path.join(here, "data", "pencil", "hydro8p4"), "VAR1"), (str(written), "var.dat")):
        one = ac.pencil.read_var(source, varfile, backend="cpu")
        mpirun(ranks, tmp_path, "read_pencil", source, varfile)
        got = np.load(tmp_path / f"read-pencil-np{ranks}.npz")
        assert float(got["t"]) == one.t and np.prod(got["dims"]) == ranks
        for name in one.field_names:
            np.testing.assert_array_equal(got[name], one[name], err_msg=f"{source} {name}")


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_a_rank_that_cannot_read_its_part_stops_save_pencil_on_every_rank_and_nothing_is_lost(tmp_path, ranks):
    """save_pencil of a split run where rank 1 cannot read its part of one field (its read raises): rank 0
    does not wait for it (mpirun's timeout would end the test), every rank raises an error naming rank 1 and
    the field, and the Pencil Code folders written before are there byte for byte."""
    mpirun(ranks, tmp_path, "pencil_fail", timeout=120)
    got = np.load(tmp_path / f"pencil-fail-np{ranks}.npz", allow_pickle=True)
    said = list(got["said"])
    assert len(said) == ranks and all(s is not None and "rank 1" in s and "'uy'" in s and "the device is gone" in s
                                      for s in said), said
    assert bool(got["kept"])


@needs_mpi
@pytest.mark.parametrize("ranks, procs", [(2, (2, 1, 1)), (4, (1, 1, 4)), (4, (4, 1, 1)), (4, (1, 2, 2))])
def test_the_ranks_laid_out_as_given_run_as_one_process_bit_for_bit(tmp_path, ranks, procs):
    """Simulation(procs=): the ranks along each axis as given, not as split_dims chooses; the forced run
    equals one process's bit for bit."""
    sim = make()
    sim.run(until=T_HALF)
    name = "x".join(map(str, procs))
    mpirun(ranks, tmp_path, "procs", name)
    got = np.load(tmp_path / f"procs-{name}-np{ranks}.npz")
    assert tuple(got["dims"]) == procs and int(got["steps"]) == sim.steps
    for field in FIELDS:
        np.testing.assert_array_equal(got[field], sim[field], err_msg=field)


def test_procs_that_do_not_fit_the_ranks_or_the_grid_are_refused_naming_them():
    from astaroth.parallel import given_dims

    assert given_dims((1, 1, 4), 4, (16, 12, 20)) == (1, 1, 4)
    for procs, size, match in (((1, 2, 2), 8, "product"), ((1, 1, 8), 8, "at least 3 points"),
                               ((2, 2), 4, "three positive"), ((0, 2, 2), 0, "three positive"),
                               ((1.0, 1, 4), 4, "three positive")):
        with pytest.raises(ValueError, match=match):
            given_dims(procs, size, (16, 12, 20))
    with pytest.raises(ValueError, match="procs"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", procs=(1, 1, 2))  # one process
    assert ac.Simulation(shape=(8, 8, 8), backend="cpu", procs=(1, 1, 1)).decomposition is None


def test_a_region_substep_names_the_periodic_axes_it_reads_in_place():
    """Grid.region_wraps: the unsplit axes whose ghost values a split grid's substep reads from periodic images
    (the GPU's streaming kernel; none on the CPU, whose loops read the ghost zones the exchange fills); a mask
    outside x, y, z is refused."""
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    assert sim._grid.region_wraps(3) == 0
    with pytest.raises(ValueError, match="periodic"):
        sim._grid.substep_region(0, 1e-3, (0, 0, 0), (8, 8, 8), 8)
    if "cuda" in ac.backends():
        gpu = ac.Simulation(shape=(16, 16, 16), backend="cuda")
        assert gpu._grid.region_wraps(3) == 3  # x (rows of whole 16-byte pieces) and y
        walls = ac.Simulation(shape=(16, 16, 16), backend="cuda",
                              boundaries={"y": {"ux": "a", "uy": "a", "uz": "a", "lnrho": "s"}})
        assert walls._grid.region_wraps(7) == 5  # not the wall axis


RUN_TOML = """[grid]
shape = [16, 12, 20]
box = [6.0, 4.5, 7.5]
[physics]
physics = "mhd"
nu = 0.02
eta = 0.03
[numerics]
backend = "cpu"
dtype = "float64"
[initial]
kind = "random_velocity"
urms = 0.1
seed = 5
seed_field = 0.01
[forcing]
kmin = 1.0
kmax = 2.0
f0 = 0.1
seed = 11
[output]
dir = "{dir}"
until = 0.8
snapshot_every = 0.4
timeseries_every = 2
progress = false
nt = {nt}
"""


def astaroth_run(ranks, folder, config, *options, status=0):
    """`astaroth run` on `ranks` MPI ranks (1: without mpirun), in `folder`; its exit status must be `status`."""
    command = [sys.executable, "-m", "astaroth", "run", config, "--no-plot", *options]
    if ranks > 1:
        command = [*mpirun_prefix(ranks), *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=folder,
                          env=dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1"))
    assert done.returncode == status, f"{' '.join(command)} gave {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@needs_mpi
def test_a_stop_file_stops_every_rank_of_astaroth_run(tmp_path):
    """STOP in the run directory: every rank stops after the same step (none waits on the others), the
    checkpoint is written and the file removed; exit status 3."""
    (tmp_path / "run.toml").write_text(RUN_TOML.format(dir="out", nt=0))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "STOP").write_text("")
    said = astaroth_run(2, tmp_path, "run.toml", status=3)
    assert said.count("stopped at step 1") == 1
    assert not (tmp_path / "out" / "STOP").exists()
    assert ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu").steps == 1


@needs_mpi
def test_astaroth_run_under_mpirun_equals_one_process_and_restarts_on_other_ranks(tmp_path):
    """The same TOML file under `mpirun -np 2`: the grid split, messages and
    files from rank 0 only, the checkpoint and time series those of one
    process bit for bit; stopped by nt there and continued with --restart on
    4 ranks, the same again."""
    (tmp_path / "one.toml").write_text(RUN_TOML.format(dir="one", nt=0))
    (tmp_path / "two.toml").write_text(RUN_TOML.format(dir="two", nt=0))
    (tmp_path / "part.toml").write_text(RUN_TOML.format(dir="part", nt=5))
    (tmp_path / "rest.toml").write_text(RUN_TOML.format(dir="part", nt=0))
    astaroth_run(1, tmp_path, "one.toml")
    said = astaroth_run(2, tmp_path, "two.toml")
    assert said.count("split over 2 MPI ranks") == 1 and said.count("t = 0.8 after") == 1  # rank 0 speaks
    astaroth_run(2, tmp_path, "part.toml")
    said = astaroth_run(4, tmp_path, "rest.toml", "--restart")
    assert "split over 4 MPI ranks" in said
    one = ac.load(tmp_path / "one" / "checkpoint.h5", backend="cpu")
    assert one.steps > 5 and one.t == 0.8  # nt = 5 stops the first part before the end
    series = np.genfromtxt(tmp_path / "one" / "timeseries.csv", delimiter=",", names=True)
    for other in ("two", "part"):
        sim = ac.load(tmp_path / other / "checkpoint.h5", backend="cpu")
        assert (sim.t, sim.steps) == (one.t, one.steps), other
        for name in one.field_names:
            np.testing.assert_array_equal(sim[name], one[name], err_msg=f"{other}: {name}")
        split = np.genfromtxt(tmp_path / other / "timeseries.csv", delimiter=",", names=True)
        assert len(split) == len(series), other
        for column in series.dtype.names:
            np.testing.assert_allclose(split[column], series[column], rtol=1e-12, atol=1e-15, err_msg=column)
