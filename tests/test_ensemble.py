"""Ensembles (docs/guide/ensembles.md): members differ in everything but shape,
dtype, method and backend, advance with their own CFL steps, and end
bit-identical to running alone.  CPU in CI; the same tests on the GPU carry
the `gpu` marker."""
import math
import threading

import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
SHAPE = (24, 16, 12)


def member(i, backend, dtype="float64", shape=SHAPE, **params):
    """Member i of a sweep: its own viscosity, sound speed, box, forcing
    seed and initial state (params: more Simulation parameters)."""
    box = (2 * math.pi, 2 * math.pi * (1 + 0.1 * i), 2 * math.pi)
    sim = ac.Simulation(shape=shape, box=box, nu=0.02 + 0.01 * i, cs=0.8 + 0.1 * i, dtype=dtype, backend=backend,
                        **params)
    for name, f in zip(ac.FIELDS, smooth_random_fields(shape, box, np.random.default_rng(10 + i), amplitude=0.05)):
        sim[name] = f
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=i + 1)
    return sim


def assert_same(a, b):
    assert a.t == b.t and a.steps == b.steps
    for name in ac.FIELDS:
        assert np.array_equal(a[name], b[name]), name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_run_is_bit_identical_to_each_member_alone(backend, dtype):
    ens = ac.Ensemble(member(i, backend, dtype) for i in range(5))
    taken = ens.run(until=0.3)
    assert all(sim.t == 0.3 for sim in ens)
    assert len(set(taken)) > 1  # the members took their own CFL steps
    for i, sim in enumerate(ens):
        alone = member(i, backend, dtype)
        assert alone.run(until=0.3) == taken[i]
        assert_same(sim, alone)


@pytest.mark.parametrize("backend", BACKENDS)
def test_step_takes_each_members_own_cfl_step(backend):
    ens = ac.Ensemble(member(i, backend) for i in range(3))
    dts = ens.step()
    dts += ens.step()
    for i, sim in enumerate(ens):
        alone = member(i, backend)
        assert [alone.step(), alone.step()] == dts[i::3]
        assert_same(sim, alone)
    fixed = ens.step(1e-3)
    assert fixed == [1e-3] * 3


def test_one_worker_and_many_give_the_same_bits():
    one = ac.Ensemble((member(i, "cpu") for i in range(4)), workers=1)
    many = ac.Ensemble((member(i, "cpu") for i in range(4)), workers=4)
    one.run(until=0.2)
    many.run(until=0.2)
    for a, b in zip(one, many):
        assert_same(a, b)


def test_members_keep_the_simulation_api(tmp_path):
    sims = [member(i, "cpu") for i in range(3)]
    ens = ac.Ensemble(sims)
    assert len(ens) == 3 and list(ens) == sims and ens[1] is sims[1] and ens[-1] is sims[2]
    assert ens[0:2] == sims[:2]
    ens.run(until=0.1)
    sim = ens[2]
    assert sim.nu == pytest.approx(0.04)
    assert np.shares_memory(sim.view("ux"), sim.view("ux"))
    k, E = ac.analysis.spectrum(sim)
    assert E.sum() > 0
    sim.save(tmp_path / "m2.h5")
    back = ac.load(tmp_path / "m2.h5")
    assert_same(back, sim)
    assert "3 members" in repr(ens)


def test_a_members_blow_up_names_it():
    sims = [member(i, "cpu") for i in range(3)]
    sims[1].view("ux")[3, 4, 5] = np.nan  # the live field: setting NaN through sim[...] is refused
    with pytest.raises(ac.NonFiniteError, match="ensemble member 1"):
        ac.Ensemble(sims).run(until=0.1)


def test_bad_members_are_refused_clearly():
    with pytest.raises(ValueError, match="at least one"):
        ac.Ensemble([])
    with pytest.raises(TypeError, match="member 1 is"):
        ac.Ensemble([member(0, "cpu"), "not a simulation"])
    with pytest.raises(ValueError, match="shape"):
        ac.Ensemble([member(0, "cpu"), member(1, "cpu", shape=(24, 16, 8))])
    with pytest.raises(ValueError, match="dtype"):
        ac.Ensemble([member(0, "cpu"), member(1, "cpu", dtype="float32")])
    with pytest.raises(ValueError, match="physics"):
        ac.Ensemble([member(0, "cpu"), ac.Simulation(shape=SHAPE, backend="cpu", physics="mhd")])
    sim = member(0, "cpu")
    with pytest.raises(ValueError, match="twice"):
        ac.Ensemble([sim, sim])
    with pytest.raises(ValueError, match="workers"):
        ac.Ensemble([sim], workers=0)
    with pytest.raises(ValueError, match="until"):
        ac.Ensemble([sim]).run(until=-1.0)
    ahead = member(1, "cpu")
    ahead.t = 0.5
    before = ahead["ux"].copy()
    with pytest.raises(ValueError, match="member 1's current time t=0.5"):  # and none of them stepped
        ac.Ensemble([sim, ahead]).run(until=0.25)
    assert sim.steps == ahead.steps == 0 and sim.t == 0.0 and np.array_equal(ahead["ux"], before)


def test_progress_line(capsys):
    ac.Ensemble(member(i, "cpu") for i in range(2)).run(until=0.05, progress=True)
    err = capsys.readouterr().err
    assert "2 of 2 members at t = 0.05" in err and "M updates/s" in err


@pytest.mark.parametrize("backend", BACKENDS)
def test_simulations_in_two_threads_equal_solo_runs(backend):
    """Simulations stepped from separate Python threads (the GIL is released
    while they work) end as they would alone."""
    sims = [member(i, backend) for i in range(2)]
    threads = [threading.Thread(target=sim.run, kwargs={"until": 0.2}) for sim in sims]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, sim in enumerate(sims):
        alone = member(i, backend)
        alone.run(until=0.2)
        assert_same(sim, alone)


def test_sweep_bench_rows():
    from astaroth.bench import run_sweep_bench

    lines = []
    rows = run_sweep_bench(backend="cpu", sizes=(8, 12), ensembles=((3, 8),), steps=2, target_seconds=0.05,
                           out=lines.append)
    assert [r["what"] for r in rows] == ["sim.run, 1 simulation"] * 2 + ["Ensemble of 3", "loop over 3"]
    assert all(r["mps"] > 0 for r in rows)
    assert "of 12^3 run" in lines[1] and lines[-1].startswith("loop over 3")


def test_sweep_bench_rows_of_every_physics_forced_and_not():
    from astaroth.bench import SWEEP_PHYSICS, run_sweep_physics_bench

    lines = []
    rows = run_sweep_physics_bench(backend="cpu", sizes=(8,), ensembles=((2, 8),), steps=2, target_seconds=0.02,
                                   out=lines.append)
    assert [(r["physics"], r["forced"]) for r in rows] == [(p, f) for p in SWEEP_PHYSICS for f in (False, True)]
    assert all(r["mps"] > 0 and r["ensembles"][0]["mps"] > 0 and r["bench_row"] > 0 for r in rows)
    # a physics' forced and unforced runs share its (unforced) bench row
    assert all(rows[i]["bench_row"] == rows[i + 1]["bench_row"] for i in range(0, len(rows), 2))
    assert "8^3 row" in lines[1] and "8^3 run" in lines[1]
    last = lines[-1].split()
    assert last[:2] == ["mhd+entropy", "True"]
    # the run's ratio to the row, and the ensemble's to the run, as printed
    assert last[4] == f"({rows[-1]['mps'] / rows[-1]['bench_row']:.2f})"
    assert last[6] == f"({rows[-1]['ensembles'][0]['mps'] / rows[-1]['mps']:.2f})"


def test_bench_sweeps_command(capsys):
    from astaroth.cli import main

    assert main(["bench", "--backend", "cpu", "--sweeps", "--sizes", "8", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "Ensemble of 64" in out and "loop over 16" in out


# --- members in shared launches on the GPU ------------------- -------------------

def unforced(i, dtype="float32", shape=(32, 16, 12), **params):
    """Member i without forcing: on the GPU it finds dt on the device, so it
    goes in the ensemble's shared launches."""
    sim = member(i, "cuda", dtype, shape, **params)
    sim.forcing = None
    return sim


@pytest.fixture
def launches(monkeypatch):
    """Counts the calls of _core.run_cfl_members that stepped members together."""
    from astaroth import ensemble

    calls = []
    real = ensemble._core.run_cfl_members

    def counted(grids, runs, max_steps):
        result = real(grids, runs, max_steps)
        calls.append((len(grids), result is not None))
        return result

    monkeypatch.setattr(ensemble._core, "run_cfl_members", counted)
    return calls


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_members_in_shared_launches_equal_solo_runs(dtype, launches, monkeypatch):
    from astaroth import ensemble

    monkeypatch.setattr(ensemble, "MEMBERS_PER_LAUNCH", 2)  # groups of 2, 2 and 1
    ens = ac.Ensemble(unforced(i, dtype) for i in range(5))
    taken = ens.run(until=0.4)
    assert launches and all(together for _, together in launches)
    assert {count for count, _ in launches} >= {2, 1}
    assert len(set(taken)) > 1 and all(sim.t == 0.4 for sim in ens)
    for i, sim in enumerate(ens):
        alone = unforced(i, dtype)
        assert alone.run(until=0.4) == taken[i]  # the solo device loop
        assert_same(sim, alone)
        host = unforced(i, dtype)
        host._device_cfl = False
        host.run(until=0.4)  # and the host's step-by-step loop
        assert_same(sim, host)
    taken = ens.run(until=0.5)  # a second run continues each member as a second solo run would
    for i, sim in enumerate(ens):
        alone = unforced(i, dtype)
        alone.run(until=0.4)
        assert alone.run(until=0.5) == taken[i]
        assert_same(sim, alone)


@pytest.mark.gpu
def test_members_that_cannot_share_launches_step_together_in_one_graph(launches):
    hyper = dict(nu_hyper3=1e-7)  # one member's configuration differs: shared launches run one configuration
    sims = [unforced(i, **(hyper if i == 2 else {})) for i in range(3)]
    solo = [unforced(i, **(hyper if i == 2 else {})) for i in range(3)]
    ac.Ensemble(sims).run(until=0.2)
    assert launches and all(together for _, together in launches)
    for sim, alone in zip(sims, solo):
        alone.run(until=0.2)
        assert_same(sim, alone)


@pytest.mark.gpu
def test_a_blow_up_in_shared_launches_names_the_member():
    cupy = pytest.importorskip("cupy")
    sims = [unforced(i) for i in range(3)]
    cupy.asarray(sims[1].view("uy"))[3, 4, 5] = np.nan  # (sim["uy"] = ... refuses NaN)
    with pytest.raises(ac.NonFiniteError, match="ensemble member 1.*'uy'"):
        ac.Ensemble(sims).run(until=0.1)
    assert sims[0].t == sims[2].t == 0.1  # the others finished
    assert sims[1].t == 0.0


def test_cpu_grids_do_not_share_launches():
    from astaroth import _core

    sims = [member(i, "cpu") for i in range(2)]
    runs = [(0.0, 0.1, 0.4, 0.3)] * 2
    assert _core.run_cfl_members([s._grid for s in sims], runs, 4) is None
    with pytest.raises(ValueError, match="max_steps"):
        _core.run_cfl_members([s._grid for s in sims], runs, 0)
    with pytest.raises(ValueError, match="one run per grid"):
        _core.run_cfl_members([s._grid for s in sims], runs[:1], 4)
    with pytest.raises(TypeError, match="grid 1 is not a Grid"):
        _core.run_cfl_members([sims[0]._grid, "x"], runs, 4)


# --- every configuration the device loop runs, in shared launches ------------

# the configurations of csrc/cuda/instances.def that the solo device loop runs (no shock viscosity, no shear):
# each member's parameters differ (nu, cs, box; eta, chi, the diffusivities by member), its configuration not
SHARED_CONFIGURATIONS = {
    "hydro": {},
    "mhd": dict(physics="mhd"),
    "entropy": dict(energy="entropy"),
    "mhd-entropy": dict(physics="mhd", energy="entropy"),
    "scalar": dict(passive_scalar=1),
    "mhd-scalar": dict(physics="mhd", passive_scalar=1),
    "mhd-entropy-scalar": dict(physics="mhd", energy="entropy", passive_scalar=1),
    "scalars2": dict(passive_scalar=2),
    "mhd-entropy-scalars2": dict(physics="mhd", energy="entropy", passive_scalar=2),
    "hyper3": dict(nu_hyper3=1e-6),
    "mhd-hyper3": dict(physics="mhd", nu_hyper3=1e-6),
    "entropy-scalar-hyper3": dict(energy="entropy", passive_scalar=1, nu_hyper3=1e-6),
    "coriolis": dict(omega=(0.3, -0.2, 1.1)),
    "mhd-entropy-coriolis": dict(physics="mhd", energy="entropy", omega=(0.0, 0.0, 1.0)),
}


def configured(i, config, dtype, shape=(32, 16, 12), **extra):
    """Unforced member i of configuration `config`: its own diffusivities of
    the modules it has, and every field its own smooth start (extra: more
    Simulation parameters)."""
    params = dict(SHARED_CONFIGURATIONS[config], **extra)
    if params.get("physics") == "mhd":
        params["eta"] = 0.02 + 0.005 * i
    if params.get("energy") == "entropy":
        params["chi"] = 0.02 + 0.004 * i
    if params.get("passive_scalar"):
        params["pscalar_diff"] = 0.01 + 0.002 * i
    if params.get("passive_scalar") == 2:
        params["pscalar_diff2"] = 0.03 + 0.002 * i
    sim = unforced(i, dtype, shape, **params)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    for q, name in enumerate(sim.field_names):
        if name not in ac.FIELDS:
            sim[name] = 0.05 * np.sin(x + q + i) * np.cos(y + 0.3 * q) * np.cos(z + 0.1 * q * i)
    return sim


def assert_same_fields(a, b):
    assert a.t == b.t and a.steps == b.steps
    for name in a.field_names:
        assert np.array_equal(a[name], b[name]), name


def shared_runs():
    from astaroth import _core

    return _core.cuda_shared_member_runs()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", list(SHARED_CONFIGURATIONS))
def test_members_of_every_device_loop_configuration_share_launches_and_equal_solo_runs(config, dtype, launches):
    before = shared_runs()
    ens = ac.Ensemble(configured(i, config, dtype) for i in range(4))
    taken = ens.run(until=0.4)
    assert launches and all(together for _, together in launches)
    # every member run of every call went through the shared launches (cuda_backend.cu's run_members)
    assert shared_runs() - before == sum(count for count, _ in launches)
    assert len(set(taken)) > 1 and all(sim.t == 0.4 for sim in ens)
    for i, sim in enumerate(ens):
        alone = configured(i, config, dtype)
        assert alone.run(until=0.4) == taken[i]  # the solo device loop
        assert_same_fields(sim, alone)
    taken = ens.run(until=0.5)  # a second run continues each member as a second solo run would
    for i, sim in enumerate(ens):
        alone = configured(i, config, dtype)
        alone.run(until=0.4)
        assert alone.run(until=0.5) == taken[i]
        assert_same_fields(sim, alone)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", ["mhd", "mhd-entropy"])
@pytest.mark.parametrize("shape", [(40, 12, 36), (20, 10, 6)])
def test_members_whose_speed_reads_b_equal_solo_runs_on_uneven_grids(shape, config, dtype, launches):
    """The members' reduction streams A through shared memory (mhd_substep.cuh's
    signal_stream_body) where a solo run walks z: tiles cut by the grid's edge,
    several runs up each column of tiles (36 planes) or one run shorter than
    the stencil (6 planes) find the same dt, step by step, as the solo runs."""
    ens = ac.Ensemble(configured(i, config, dtype, shape) for i in range(3))
    taken = ens.run(until=1.0)
    assert launches and all(together for _, together in launches)
    assert len(set(taken)) > 1  # each member its own dt
    for i, sim in enumerate(ens):
        alone = configured(i, config, dtype, shape)
        assert alone.run(until=1.0) == taken[i]
        assert_same_fields(sim, alone)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_more_members_than_a_launch_holds_step_in_several(dtype, launches, monkeypatch):
    """MHD with entropy and two scalars (ten fields): fewer members fit the
    constant-memory table than MEMBERS_PER_LAUNCH; the backend splits the
    call into launches of as many as fit."""
    before = shared_runs()
    shape = (8, 8, 8)
    ens = ac.Ensemble(configured(i, "mhd-entropy-scalars2", dtype, shape) for i in range(128))
    taken = ens.run(until=0.5)
    assert launches and all(together for _, together in launches)
    assert shared_runs() - before == sum(count for count, _ in launches)
    for i in (0, 70, 127):
        alone = configured(i, "mhd-entropy-scalars2", dtype, shape)
        assert alone.run(until=0.5) == taken[i]
        assert_same_fields(ens[i], alone)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_members_of_different_configurations_fall_back_to_one_graph(dtype, launches):
    configs = ["mhd", "mhd", "mhd-hyper3", "mhd"]
    before = shared_runs()
    ens = ac.Ensemble(configured(i, c, dtype) for i, c in enumerate(configs))
    ens.run(until=0.1)
    assert launches and all(together for _, together in launches)
    assert shared_runs() == before  # the graphed path: each member's own chain of kernels
    for i, (sim, c) in enumerate(zip(ens, configs)):
        alone = configured(i, c, dtype)
        alone.run(until=0.1)
        assert_same_fields(sim, alone)


@pytest.mark.gpu
def test_members_with_gravity_step_in_one_graph(launches):
    """Gravity is a kernel of its own after each substep (terms/gravity.h),
    which the shared launches do not have: such members take the graph."""
    def make(i):
        return configured(i, "mhd", "float64", gravity=(0.0, 0.0, -0.1 - 0.01 * i))

    sims = [make(i) for i in range(3)]
    before = shared_runs()
    ac.Ensemble(sims).run(until=0.1)
    assert launches and all(together for _, together in launches)
    assert shared_runs() == before
    for i, sim in enumerate(sims):
        alone = make(i)
        alone.run(until=0.1)
        assert_same_fields(sim, alone)


@pytest.mark.gpu
def test_hydro_members_share_launches():
    before = shared_runs()
    ac.Ensemble(unforced(i) for i in range(3)).run(until=0.1)
    assert shared_runs() - before >= 3


def forced(i, config, dtype, **extra):
    """Member i of `config` forced at kf 1-2 with its own seed (helically
    where it has a magnetic field, as the sweep benchmarks force MHD)."""
    sim = configured(i, config, dtype, **extra)
    relhel = 1.0 if "mhd" in config else 0.0
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=i + 1, relhel=relhel)
    return sim


FORCED_CONFIGURATIONS = ["hydro", "mhd", "entropy", "mhd-entropy", "scalar", "hyper3", "coriolis"]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", FORCED_CONFIGURATIONS)
def test_forced_members_share_launches_and_equal_solo_runs(config, dtype, launches):
    """Forced members step in the shared launches as unforced ones do, one launch a step adding each member's
    own draw at its own grid's points (their boxes differ: member()), and end as their solo runs bit for bit."""
    before = shared_runs()
    ens = ac.Ensemble(forced(i, config, dtype) for i in range(4))
    taken = ens.run(until=0.4)
    assert launches and all(together for _, together in launches)
    assert shared_runs() - before == sum(count for count, _ in launches)
    assert len(set(taken)) > 1 and all(sim.t == 0.4 for sim in ens)
    for i, sim in enumerate(ens):
        alone = forced(i, config, dtype)
        assert alone.run(until=0.4) == taken[i]
        assert_same_fields(sim, alone)
    taken = ens.run(until=0.5)  # the generators continue where each member's left off
    for i, sim in enumerate(ens):
        alone = forced(i, config, dtype)
        alone.run(until=0.4)
        assert alone.run(until=0.5) == taken[i]
        assert_same_fields(sim, alone)


@pytest.mark.gpu
def test_more_forced_members_than_a_launch_holds_step_in_several(launches):
    """Forced MHD with entropy and two scalars in float32: the backend splits the call into launches of as many
    as its table holds, each member's draws and grid going with it."""
    before = shared_runs()
    shape = (8, 8, 8)
    ens = ac.Ensemble(forced(i, "mhd-entropy-scalars2", "float32", shape=shape) for i in range(128))
    taken = ens.run(until=0.3)
    assert launches and all(together for _, together in launches)
    assert shared_runs() - before == sum(count for count, _ in launches)
    for i in (0, 70, 127):
        alone = forced(i, "mhd-entropy-scalars2", "float32", shape=shape)
        assert alone.run(until=0.3) == taken[i]
        assert_same_fields(ens[i], alone)


@pytest.mark.gpu
def test_forced_and_unforced_members_fall_back_to_one_graph(launches):
    sims = [forced(i, "mhd", "float32") if i % 2 else configured(i, "mhd", "float32") for i in range(4)]
    before = shared_runs()
    ac.Ensemble(sims).run(until=0.2)
    assert launches and all(together for _, together in launches)
    assert shared_runs() == before
    for i, sim in enumerate(sims):
        alone = forced(i, "mhd", "float32") if i % 2 else configured(i, "mhd", "float32")
        alone.run(until=0.2)
        assert_same_fields(sim, alone)


@pytest.mark.gpu
def test_later_runs_find_their_first_step_without_a_host_reduction(launches):
    """Ensemble.run sizes each member's first batch and checks its step count with the step its device steps
    last took (Simulation._start_dt), not with cfl_dt, which waits for the GPU member by member: only a member
    whose fields were set since takes one.  The members end as their solo runs do."""
    ens = ac.Ensemble(configured(i, "mhd", "float32") for i in range(4))
    ens.run(until=0.2)
    calls = []
    for i, sim in enumerate(ens):
        sim.cfl_dt = (lambda real, i: lambda *a, **k: calls.append(i) or real(*a, **k))(sim.cfl_dt, i)
    ens.run(until=0.3)
    assert calls == [] and launches and all(together for _, together in launches)
    ens[2]["ux"] = ens[2]["ux"]
    taken = ens.run(until=0.4)
    assert calls == [2]
    for i in (0, 2):
        alone = configured(i, "mhd", "float32")
        alone.run(until=0.2)
        alone.run(until=0.3)
        assert alone.run(until=0.4) == taken[i]
        assert_same_fields(ens[i], alone)


@pytest.mark.gpu
def test_a_runs_last_steps_are_sized_from_all_of_its_calls(launches, monkeypatch):
    """The step a member's next run sizes its first batch with (Simulation._start_dt) is the mean over every
    call of the C loop in the run before, the last step counted as half: the last call alone, often of a step
    or two, says little of dt, and a batch sized from it falls short and costs another call."""
    from astaroth import ensemble

    monkeypatch.setattr(ensemble, "DEVICE_BATCH", 3)  # several calls, the last one short
    ens = ac.Ensemble(configured(i, "mhd", "float32") for i in range(3))
    ens.run(until=0.05)
    began, steps, calls = ens.t, ens.steps, len(launches)
    ens.run(until=0.8)
    assert len(launches) - calls >= 3 and all(together for _, together in launches)
    for sim, t, s in zip(ens, began, steps):
        assert sim.steps - s > 6
        assert sim._recent_step[2] == (sim.t - t) / (sim.steps - s - 0.5)
