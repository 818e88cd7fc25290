"""Two passive scalars (passive_scalar=2: the fields cc and cc2, each with its
own diffusivity pscalar_diff and pscalar_diff2; fields by count,
csrc/fields.h): each decays at its own rate, the second is bit for bit the
first where their diffusivities and initial states agree, neither changes
the flow, with MHD and with the entropy module; in ensembles, snapshots and
restarts bit for bit; refused input names the keyword."""
import math

import numpy as np
import pytest

import astaroth as ac

from helpers import smooth_random_fields

K, U = 3, 0.5
D1, D2 = 0.01, 0.04  # the scalars' diffusivities: decay rates D k^2 four times apart
CONFIGURATIONS = {"hydro": {}, "mhd": dict(physics="mhd", eta=0.02, b_ext=(0.0, 0.1, 0.0)),
                  "entropy": dict(energy="entropy", chi=0.02),
                  "mhd_entropy": dict(physics="mhd", energy="entropy", eta=0.02, chi=0.02)}
SHAPE, BOX = (16, 12, 10), (2 * math.pi, 1.5 * math.pi, 1.2 * math.pi)


def decaying_wave(n, backend="cpu", dtype="float64", until=1.0):
    """Both scalars start as sin(k x) in a uniform flow U along x; returns the
    simulation at `until` and the exact solutions sin(k (x - U t)) exp(-D k^2 t)."""
    sim = ac.Simulation(shape=(n, 1, 1), box=(2 * math.pi, 1.0, 1.0), nu=0.0, dtype=dtype, backend=backend,
                        passive_scalar=2, pscalar_diff=D1, pscalar_diff2=D2)
    sim["ux"] = np.full(sim.shape, U)
    for name in ("cc", "cc2"):
        sim[name] = np.sin(K * sim.x)[:, None, None]
    sim.run(until=until, cdt=0.05)
    wave = np.sin(K * (sim.x - U * sim.t))
    return sim, {name: wave * math.exp(-d * K * K * sim.t) for name, d in (("cc", D1), ("cc2", D2))}


def test_each_scalar_decays_at_its_own_rate():
    """The amplitude of each scalar's advected wave decays as exp(-D k^2 t)
    with its own D: the measured rate within 1e-5 of D k^2 (the rates are
    four times apart), and the field within 2e-5 of the exact one (at 64
    points; the advected wave's phase error)."""
    sim, exact = decaying_wave(64)
    mode = np.sin(K * (sim.x - U * sim.t))
    for name, d in (("cc", D1), ("cc2", D2)):
        amplitude = 2 * np.mean(sim[name][:, 0, 0] * mode)
        rate = -math.log(amplitude) / sim.t
        assert abs(rate - d * K * K) < 1e-5 * d * K * K, (name, rate, d * K * K)
        assert np.max(np.abs(sim[name][:, 0, 0] - exact[name])) < 2e-5, name


def test_each_scalar_converges_at_sixth_order():
    errors = {name: [] for name in ("cc", "cc2")}
    for n in (32, 64):
        sim, exact = decaying_wave(n)
        for name in errors:
            errors[name].append(math.sqrt(np.mean((sim[name][:, 0, 0] - exact[name]) ** 2)))
    for name, (coarse, fine) in errors.items():
        assert math.log2(coarse / fine) >= 5.5, (name, coarse, fine)


def _state(sim, seed=3):
    """Smooth random fields, the two scalars equal."""
    values = smooth_random_fields(sim.shape, sim.box, np.random.default_rng(seed), modes=6, amplitude=0.2)
    for i, name in enumerate(f for f in sim.field_names if f != "cc2"):
        sim[name] = values[i % 4] * (0.3 if name == "ss" else 1.0) + 0.1 * i
    if "cc2" in sim.field_names:
        sim["cc2"] = sim["cc"]


def _run(sim):
    sim.run(until=0.05)
    sim.step(2e-3)


@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
def test_second_scalar_is_the_first_bit_for_bit_and_changes_nothing_else(configuration):
    """cc2 with pscalar_diff2 = pscalar_diff from cc's state is cc bit for
    bit, through the CFL run and a fixed step; and the flow and cc of that
    run are those of the run with one scalar, bit for bit."""
    kw = dict(CONFIGURATIONS[configuration], shape=SHAPE, box=BOX, backend="cpu", nu=0.02)
    two = ac.Simulation(passive_scalar=2, pscalar_diff=0.03, pscalar_diff2=0.03, **kw)
    one = ac.Simulation(passive_scalar=1, pscalar_diff=0.03, **kw)
    assert two.field_names == one.field_names + ("cc2",)
    for sim in (two, one):
        _state(sim)
        _run(sim)
    assert two.steps == one.steps and two.t == one.t
    assert np.array_equal(two["cc2"], two["cc"])
    for name in one.field_names:
        assert np.array_equal(two[name], one[name]), name


@pytest.mark.parametrize("configuration", ["hydro", "mhd_entropy"])
def test_second_diffusivity_changes_only_the_second_scalar(configuration):
    kw = dict(CONFIGURATIONS[configuration], shape=SHAPE, box=BOX, backend="cpu", nu=0.02, passive_scalar=2,
              pscalar_diff=0.03)
    same, other = ac.Simulation(pscalar_diff2=0.03, **kw), ac.Simulation(pscalar_diff2=0.06, **kw)
    for sim in (same, other):
        _state(sim)
        for _ in range(3):
            sim.step(2e-3)
    assert not np.array_equal(same["cc2"], other["cc2"])
    # the more diffusive copy loses more of its variance
    assert np.var(other["cc2"]) < np.var(same["cc2"])
    for name in same.field_names[:-1]:
        assert np.array_equal(same[name], other[name]), name


def test_time_step_counts_the_larger_diffusivity_and_names_it():
    kw = dict(shape=SHAPE, box=BOX, backend="cpu", nu=1e-3, passive_scalar=2)
    small = ac.Simulation(pscalar_diff=0.1, pscalar_diff2=0.5, **kw)
    large = ac.Simulation(pscalar_diff=0.5, pscalar_diff2=0.1, **kw)
    inverse = sum(dx ** -2 for dx in small.spacing)
    for sim, by in ((small, ("cc2", "pscalar_diff2")), (large, ("cc", "pscalar_diff"))):
        assert sim.cfl_dt() == pytest.approx(0.3 / (0.5 * inverse), rel=1e-12)
        assert sim._rates()[4] == by


def test_ensemble_member_equals_its_run_alone():
    kw = dict(shape=SHAPE, box=BOX, backend="cpu", nu=0.02, physics="mhd", eta=0.02, passive_scalar=2,
              pscalar_diff=0.02)
    members = [ac.Simulation(pscalar_diff2=d, **kw) for d in (0.01, 0.05)]
    alone = ac.Simulation(pscalar_diff2=0.05, **kw)
    for sim in members + [alone]:
        _state(sim)
    ac.Ensemble(members).run(until=0.03)
    alone.run(until=0.03)
    assert members[1].steps == alone.steps
    for name in alone.field_names:
        assert np.array_equal(members[1][name], alone[name]), name
    assert not np.array_equal(members[0]["cc2"], members[1]["cc2"])


@pytest.mark.parametrize("configuration", ["hydro", "mhd_entropy"])
def test_save_load_and_restart_are_bit_for_bit(tmp_path, configuration):
    pytest.importorskip("h5py")
    kw = dict(CONFIGURATIONS[configuration], shape=SHAPE, box=BOX, backend="cpu", nu=0.02, passive_scalar=2,
              pscalar_diff=0.02, pscalar_diff2=0.05)
    straight = ac.Simulation(**kw)
    _state(straight)
    straight["cc2"] = 0.5 * straight["cc"] ** 2
    straight.run(until=0.02)
    straight.save(tmp_path / "s.h5")
    again = ac.load(tmp_path / "s.h5", backend="cpu")
    assert again.field_names == straight.field_names and again.passive_scalar == 2
    assert (again.pscalar_diff, again.pscalar_diff2) == (0.02, 0.05)
    for name in straight.field_names:
        assert np.array_equal(again[name], straight[name]), name
    for sim in (straight, again):  # the restart: the loaded run continues as the one that wrote it
        sim.run(until=0.04)
    assert again.steps == straight.steps
    for name in straight.field_names:
        assert np.array_equal(again[name], straight[name]), name
    changed = ac.load(tmp_path / "s.h5", backend="cpu", parameters={"pscalar_diff2": 0.1})
    assert changed.pscalar_diff2 == 0.1 and changed.pscalar_diff == 0.02


def test_split_grid_equals_one_process_bit_for_bit(tmp_path):
    """MHD with two scalars on 2 MPI ranks gives the single-process run bit for bit (tests/test_mpi.py's
    pattern)."""
    from mpi_case import T_HALF, make_scalars
    from test_mpi import HAVE_MPI4PY, MPIRUN, mpirun

    if not (MPIRUN and HAVE_MPI4PY):
        pytest.skip("needs mpirun and mpi4py (docs/guide/parallel.md says how to install them)")
    sim = make_scalars()
    sim.run(until=T_HALF)
    mpirun(2, tmp_path, "scalars")
    got = np.load(tmp_path / "scalars-np2.npz")
    assert int(got["steps"]) == sim.steps
    assert not np.array_equal(sim["cc"], sim["cc2"])
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)


@pytest.mark.parametrize("value, error", [(-1, ValueError), (3, ValueError), (1.5, TypeError), ("two", TypeError),
                                          (2.0, TypeError), (None, TypeError)])
def test_bad_scalar_counts_are_refused_naming_the_keyword(value, error):
    with pytest.raises(error, match="passive_scalar"):
        ac.Simulation(shape=8, backend="cpu", passive_scalar=value)


def test_second_diffusivity_needs_the_second_scalar_and_bounds():
    with pytest.raises(ValueError, match=r"pscalar_diff2.*passive_scalar=2"):
        ac.Simulation(shape=8, backend="cpu", passive_scalar=1, pscalar_diff2=0.1)
    with pytest.raises(ValueError, match="pscalar_diff2"):
        ac.Simulation(shape=8, backend="cpu", passive_scalar=2, pscalar_diff2=-0.1)


def test_counts_true_and_false_and_the_fields_of_each_count():
    for value, fields in ((False, ()), (0, ()), (True, ("cc",)), (1, ("cc",)), (2, ("cc", "cc2")),
                          (np.int64(2), ("cc", "cc2"))):
        sim = ac.Simulation(shape=8, backend="cpu", passive_scalar=value)
        assert sim.field_names == ac.FIELDS + fields and sim.passive_scalar == len(fields)
    assert [t for t in ac.terms() if t["name"] == "passive_scalar"][0]["parameters"] == ["pscalar_diff",
                                                                                         "pscalar_diff2"]
    assert ac.parameters.row("pscalar_diff2")["module"] == "pscalar2"


@pytest.mark.gpu
@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
def test_cuda_equals_cpu(configuration):
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    sims = [ac.Simulation(**CONFIGURATIONS[configuration], shape=(24, 20, 16), box=BOX, nu=0.02, backend=b,
                          passive_scalar=2, pscalar_diff=0.02, pscalar_diff2=0.05) for b in ("cpu", "cuda")]
    for sim in sims:
        _state(sim)
        sim["cc2"] = 0.5 * sim["cc"] ** 2
        for _ in range(3):
            sim.step(0.01)
    for name in sims[0].field_names:  # the GPU's exp and reductions round apart from the CPU's
        assert np.max(np.abs(sims[0][name] - sims[1][name])) < 1e-11 * max(1.0, np.max(np.abs(sims[0][name]))), name


@pytest.mark.gpu
def test_cuda_second_scalar_is_the_first_bit_for_bit():
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    sim = ac.Simulation(shape=(24, 20, 16), box=BOX, nu=0.02, backend="cuda", physics="mhd", eta=0.02,
                        passive_scalar=2, pscalar_diff=0.03, pscalar_diff2=0.03)
    _state(sim)
    _run(sim)
    assert np.array_equal(sim["cc2"], sim["cc"])


@pytest.mark.gpu
def test_cuda_each_scalar_decays_at_its_own_rate():
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    sim, exact = decaying_wave(64, backend="cuda")
    for name in ("cc", "cc2"):
        assert np.max(np.abs(sim[name][:, 0, 0] - exact[name])) < 2e-5, name


@pytest.mark.parametrize("count, second, fields", [("true", "", ("cc",)), ("2", "pscalar_diff2 = 0.03", ("cc", "cc2"))])
def test_a_run_from_a_file_takes_the_count_of_scalars(tmp_path, count, second, fields):
    pytest.importorskip("h5py")
    from astaroth.cli import main

    from test_cli import SMALL  # a small forced run; here with the scalars

    path = tmp_path / "run.toml"
    path.write_text(SMALL.format(dir=(tmp_path / "out").as_posix()).replace(
        "nu = 0.01\n", f"nu = 0.01\npassive_scalar = {count}\npscalar_diff = 0.01\n{second}\n").replace(
        "until = 0.6", "until = 0.3"))
    assert main(["run", str(path), "--quiet", "--no-plot"]) == 0
    sim = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    assert sim.field_names == ac.FIELDS + fields and sim.passive_scalar == len(fields)
    assert sim.pscalar_diff2 == (0.03 if second else 0.0)


@pytest.mark.parametrize("value, words", [("3", ["[physics] passive_scalar = 3", "from 0 to 2"]),
                                          ("1.5", ["[physics] passive_scalar = 1.5", "whole number"]),
                                          ('"two"', ["[physics] passive_scalar = 'two'", "whole number"])])
def test_a_bad_count_in_a_file_names_the_key(tmp_path, value, words):
    from astaroth import config as configuration

    path = tmp_path / "bad.toml"
    path.write_text(f"[physics]\npassive_scalar = {value}\n")
    with pytest.raises(configuration.ConfigError) as info:
        configuration.load(path)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("count, index", [(1, {"icc": 5}), (2, {"icc": 5, "icc1": 5, "icc2": 6})])
def test_pencil_files_round_trip_with_the_pencil_codes_names(tmp_path, count, index):
    """write_var names the scalars as pscalar_nolog with npscalar = count does in index.pro (icc; icc, icc1,
    icc2: src/farray.f90) after lnrho and u, and read_var gives the run back bit for bit."""
    from astaroth import pencil

    sim = ac.Simulation(shape=SHAPE, box=BOX, backend="cpu", nu=0.02, passive_scalar=count, pscalar_diff=0.03,
                        **({"pscalar_diff2": 0.03} if count == 2 else {}))
    _state(sim)
    if count == 2:
        sim["cc2"] = 0.5 * sim["cc"] ** 2
    sim.step(2e-3)
    sim.save_pencil(tmp_path)
    assert {k: v for k, v in pencil.read_index(tmp_path / "index.pro").items() if k.startswith("icc")} == index
    assert pencil.read_namelist(tmp_path / "param2.nml")["pscalar_run_pars"] == dict(pscalar_diff=0.03,
                                                                                     lpscalar_diff_simple=True)
    back = pencil.read_var(tmp_path, backend="cpu")
    assert back.field_names == sim.field_names and back.passive_scalar == count
    assert back.parameters().keys() == sim.parameters().keys()
    assert (back.pscalar_diff, back.pscalar_diff2) == (sim.pscalar_diff, sim.pscalar_diff2)
    for name in sim.field_names:
        assert np.array_equal(back[name], sim[name]), name


def test_pencil_refuses_what_pscalar_nolog_cannot_say(tmp_path):
    from astaroth import pencil

    with pytest.raises(ValueError, match="one pscalar_diff"):
        ac.Simulation(shape=8, backend="cpu", passive_scalar=2, pscalar_diff=0.01,
                      pscalar_diff2=0.02).save_pencil(tmp_path / "two")
    ac.Simulation(shape=8, backend="cpu", passive_scalar=1, pscalar_diff=0.01).save_pencil(tmp_path / "one")
    for old, new, match in ((" LPSCALAR_DIFF_SIMPLE=T,\n", "", "lpscalar_diff_simple"),
                            (" LPSCALAR_DIFF_SIMPLE=T,\n", " LPSCALAR_DIFF_SIMPLE=T,\n SOREt_DIFF=0.1,\n", "soret_diff")):
        path = tmp_path / "one" / "param2.nml"
        text = path.read_text()
        path.write_text(text.replace(old, new))
        with pytest.raises(ValueError, match=match):
            pencil.read_var(tmp_path / "one", backend="cpu")
        path.write_text(text)
    index = tmp_path / "one" / "index.pro"
    index.write_text(index.read_text() + " icc3=7\n")
    with pytest.raises(ValueError, match="icc3=7 in index.pro: a third passive scalar"):
        pencil.read_var(tmp_path / "one", backend="cpu")
