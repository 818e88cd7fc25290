"""Fixed time steps, the Pencil Code's forcing normalisation and explicit
wave vectors, and bad input (parameters, snapshots, walls, time, values that
overflow the arithmetic) refused with an error that names it."""
import math
import os
import re
import shutil
import time
import warnings

import numpy as np
import pytest

import astaroth as ac
from astaroth import config as configuration
from astaroth.cli import build_simulation, main
from helpers import noisy_gas

h5py = pytest.importorskip("h5py")


def flow(shape=(16, 16, 16), **kw):
    kw.setdefault("nu", 0.01)
    sim = ac.Simulation(shape=shape, backend="cpu", **kw)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    sim["ux"] = 0.1 * np.sin(y) * np.cos(z)
    sim["uy"] = 0.1 * np.sin(z + x)
    return sim


# --- a fixed time step ------------------------------------------------------------
def test_run_with_a_fixed_dt_equals_the_hand_written_step_loop_bit_for_bit():
    a, b = flow(), flow()
    taken = a.run(until=0.95, dt=0.1)
    for _ in range(9):
        b.step(0.1)
    b.step(0.95 - b.t)
    assert taken == 10 and a.steps == b.steps == 10 and a.t == 0.95
    for name in a.field_names:
        assert np.array_equal(a[name], b[name])


def test_a_fixed_dt_lands_on_until_without_a_sliver_step(tmp_path):
    sim = flow()
    path = tmp_path / "ts.csv"
    assert sim.run(until=1.0, dt=0.1, timeseries=path, diagnostics_every=5) == 10  # 10 x 0.1 drifts below 1.0
    assert sim.t == 1.0
    data = np.genfromtxt(path, delimiter=",", names=True)
    assert list(data["it"]) == [5, 10] and data["dt"] == pytest.approx(0.1, rel=1e-9)


def test_a_fixed_dt_run_stops_on_the_stop_file(tmp_path):
    sim = flow()
    stop = tmp_path / "STOP"
    stop.write_text("")
    stopped = []
    assert sim.run(until=1.0, dt=0.05, stop_file=stop, on_stop=lambda s: stopped.append(s.steps)) == 1
    assert stopped == [1] and sim.t == pytest.approx(0.05)


@pytest.mark.parametrize("dt, error, words", [
    (0.0, ValueError, "dt must be positive"), (-1.0, ValueError, "dt must be positive"),
    ("0.1", TypeError, "dt must be a real number"), (float("nan"), ValueError, "dt must be finite"),
    (2.0, ac.UnstableStepError, "beyond RK3's stability bounds"),
])
def test_a_bad_fixed_dt_is_refused_before_any_step(dt, error, words):
    sim = flow()
    before = sim["ux"]
    with pytest.raises(error, match=words) as info:
        sim.run(until=10.0, dt=dt)
    assert "force=True" not in str(info.value)  # run has no force option
    assert sim.steps == 0 and np.array_equal(sim["ux"], before)


def test_a_fixed_dt_beyond_the_scheme_limit_warns():
    sim = flow()
    dt = 1.3 * sim.cfl_dt(cdt=1.0) / 1.0  # a Courant number of about 1.3: beyond 1.09, within RK3's 1.73
    with pytest.warns(RuntimeWarning, match="likely blow up"):
        sim.run(until=dt, dt=dt)


def test_ensemble_run_with_a_fixed_dt_equals_each_member_alone():
    members, alone = [flow(), flow(cs=2.0)], [flow(), flow(cs=2.0)]
    assert ac.Ensemble(members, workers=1).run(until=0.3, dt=0.04) == [8, 8]
    for sim in alone:
        sim.run(until=0.3, dt=0.04)
    for a, b in zip(members, alone):
        assert a.t == b.t == 0.3 and np.array_equal(a["uy"], b["uy"])


def test_numerics_dt_in_the_toml_file(tmp_path):
    config = configuration.validate({"numerics": {"dt": 0.05, "backend": "cpu"}, "grid": {"shape": [8, 8, 8]},
                                     "output": {"dir": str(tmp_path / "run"), "until": 0.3, "progress": False,
                                                "snapshot_every": 0.2}})
    assert config["numerics"]["dt"] == 0.05 and configuration.default()["numerics"]["dt"] == 0.0
    toml = tmp_path / "run.toml"
    toml.write_text(f'[grid]\nshape = [8, 8, 8]\n[numerics]\nbackend = "cpu"\ndt = 0.05\n'
                    f'[output]\ndir = "{tmp_path / "run"}"\nuntil = 0.3\nsnapshot_every = 0.2\nprogress = false\n'
                    f'timeseries_every = 1\n')
    assert main(["run", str(toml), "--no-plot"]) == 0
    data = np.genfromtxt(tmp_path / "run" / "timeseries.csv", delimiter=",", names=True)
    assert data["dt"] == pytest.approx(0.05, rel=1e-9) and data["t"][-1] == 0.3 and data["it"][-1] == 6
    with pytest.raises(configuration.ConfigError, match=r"\[numerics\] dt"):
        configuration.validate({"numerics": {"dt": -1.0}})


# --- the Pencil Code's normalisation and explicit wave vectors ---------------------
def draws(forcing, count=200, dt=1e-3, box=2 * math.pi):
    sim = ac.Simulation(shape=(16, 16, 16), box=box, backend="cpu")
    sim.forcing = forcing
    out = [sim._grid.draw_forcing(dt) for _ in range(count)]
    return [(np.array(k), np.linalg.norm(amplitude)) for k, amplitude, _ in out]


def test_mean_k_normalisation_uses_the_mean_k_of_the_set_for_every_vector():
    f0, dt = 0.05, 1e-3
    mean = draws(ac.Forcing(f0=f0, normalize="mean_k"), dt=dt)
    kav = ac.Forcing().mean_k
    assert all(n == pytest.approx(f0 * math.sqrt(kav / dt), rel=1e-12) for _, n in mean)
    per_k = draws(ac.Forcing(f0=f0), dt=dt)
    assert all(n == pytest.approx(f0 * math.sqrt(np.linalg.norm(k) / dt), rel=1e-12) for k, n in per_k)
    assert [tuple(k) for k, _ in mean] == [tuple(k) for k, _ in per_k]  # the same draws: only N differs
    # a box of length 1: the physical kav is 2 pi kav
    assert draws(ac.Forcing(f0=f0, normalize="mean_k"), count=1, box=1.0)[0][1] == \
        pytest.approx(f0 * math.sqrt(2 * math.pi * kav / dt), rel=1e-12)


def test_explicit_wave_vectors_are_the_only_ones_drawn():
    forcing = ac.Forcing(wavevectors=[[2, 0, 0], [0, -1, 1]], f0=0.1)
    assert forcing.explicit and forcing.kmin == 1.0 * math.sqrt(2) and forcing.kmax == 2.0
    seen = {tuple(np.round(k).astype(int)) for k, _ in draws(forcing)}
    assert seen == {(2, 0, 0), (0, -1, 1)}
    assert "explicit wavevectors" in repr(forcing)


@pytest.mark.parametrize("kw, error, words", [
    (dict(wavevectors=[[1.5, 0, 0]]), ValueError, "integer vectors"),
    (dict(wavevectors=[[0, 0, 0], [1, 0, 0]]), ValueError, "zero vector"),
    (dict(wavevectors=[1, 0, 0]), ValueError, r"\(n, 3\)"),
    (dict(wavevectors=[["a", 0, 0]]), TypeError, "wavevectors"),
    (dict(wavevectors=[[1, 0, 0]], kmin=1.0), ValueError, "either kmin and kmax"),
    (dict(kav=1.5), ValueError, "kav goes with wavevectors"),
    (dict(normalize="kav"), ValueError, "normalize must be one of"),
])
def test_bad_explicit_sets_and_normalisations_name_the_parameter(kw, error, words):
    with pytest.raises(error, match=words):
        ac.Forcing(**kw)


def test_an_explicit_set_past_nyquist_is_refused_when_assigned():
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    with pytest.raises(ValueError, match="wavevectors reach wave vectors with \\|k_y\\| = 5"):
        sim.forcing = ac.Forcing(wavevectors=[[1, 0, 0], [0, 5, 0]])


def write_kdat(path, vectors, kav):
    k = np.array(vectors)
    path.write_text(f"{len(k)} {kav}\n" + "\n".join(" ".join(f"{v:g}." for v in k[:, a]) for a in range(3)) + "\n")
    return path


def test_from_kdat_reads_the_pencil_code_file_and_its_kav(tmp_path):
    vectors = [[1, 0, 0], [-1, 0, 0], [0, 1, 1], [0, 2, 0]]
    path = write_kdat(tmp_path / "k.dat", vectors, 1.25)
    forcing = ac.Forcing.from_kdat(path, f0=0.05)
    assert np.array_equal(forcing.wavenumbers, vectors) and forcing.kav == 1.25
    assert forcing.normalize == "mean_k" and forcing.kdat == os.fspath(path)
    assert all(n == pytest.approx(0.05 * math.sqrt(1.25 / 1e-3), rel=1e-12) for _, n in draws(forcing))
    (tmp_path / "bad.dat").write_text("3 1.0\n1 0 0\n0 1 0\n")
    with pytest.raises(ValueError, match="bad.dat: nk = 3 needs 3 nk = 9"):
        ac.Forcing.from_kdat(tmp_path / "bad.dat")
    (tmp_path / "words.dat").write_text("hello\n")
    with pytest.raises(ValueError, match="words.dat is not a k.dat file"):
        ac.Forcing.from_kdat(tmp_path / "words.dat")
    with pytest.raises(FileNotFoundError, match="missing.dat"):
        ac.Forcing.from_kdat(tmp_path / "missing.dat")


def test_an_explicit_mean_k_forcing_survives_a_snapshot_bit_for_bit(tmp_path):
    path = write_kdat(tmp_path / "k.dat", [[1, 0, 0], [0, 1, 1], [0, 2, 0]], 1.3)
    a = flow()
    a.forcing = ac.Forcing.from_kdat(path, f0=0.05, seed=7, relhel=0.5)
    a.run(until=0.2)
    back = ac.load(a.save(tmp_path / "snap.h5"))
    assert back.forcing.kav == 1.3 and back.forcing.normalize == "mean_k" and back.forcing.kdat == os.fspath(path)
    a.run(until=0.4)
    back.run(until=0.4)
    assert np.array_equal(a["uz"], back["uz"])
    b = flow()
    b.forcing = ac.Forcing(f0=0.05, normalize="mean_k")
    b.run(until=0.1)
    again = ac.load(b.save(tmp_path / "shell.h5"))
    assert again.forcing.normalize == "mean_k" and not again.forcing.explicit


def test_forcing_keys_in_the_toml_file(tmp_path):
    path = write_kdat(tmp_path / "k.dat", [[1, 0, 0], [0, 1, 0], [0, 0, 1]], 1.0)
    config = configuration.validate({"grid": {"shape": [8, 8, 8]}, "numerics": {"backend": "cpu"},
                                     "forcing": {"kdat": str(path), "f0": 0.1}})
    sim = build_simulation(config)
    assert sim.forcing.kdat == str(path) and sim.forcing.normalize == "per_k"
    config = configuration.validate({"grid": {"shape": [8, 8, 8]}, "numerics": {"backend": "cpu"},
                                     "forcing": {"normalize": "mean_k"}})
    assert build_simulation(config).forcing.normalize == "mean_k"
    with pytest.raises(configuration.ConfigError, match="kdat gives the wave vectors: leave out kmin and kmax"):
        configuration.validate({"forcing": {"kdat": str(path), "kmax": 3.0}})
    with pytest.raises(configuration.ConfigError, match=r"\[forcing\] normalize"):
        configuration.validate({"forcing": {"normalize": "kav"}})


# --- Courant numbers beyond the stability bounds ----------------------------------
def test_courant_numbers_beyond_rk3s_bounds_are_refused_as_an_explicit_dt_is():
    sim = flow()
    with pytest.raises(ac.UnstableStepError, match="cdt = 1000 is beyond RK3's stability bound 1.73"):
        sim.run(until=sim.cfl_dt(), cdt=1e3, cdtv=1e3)
    with pytest.raises(ValueError, match="cdtv = 1000 is beyond RK3's stability bound 2.51"):
        sim.run(until=sim.cfl_dt(), cdtv=1e3)
    assert sim.steps == 0  # refused before any work
    with pytest.warns(RuntimeWarning, match="cdt = 1.5 is beyond the stable limit 1.09"):
        flow().run(until=0.01, cdt=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flow().run(until=0.05)  # the defaults warn of nothing


# --- absurd step counts --------------------------------------------------------------
@pytest.mark.parametrize("kw, name, limit", [
    (dict(nu=1e300), "nu = 1e+300", "cdtv / (nu sum"), (dict(physics="mhd", eta=1e300), "eta = 1e+300", "(eta sum"),
    (dict(nu_hyper3=1e300), "nu_hyper3 = 1e+300", "(nu_hyper3 sum 1/dx^6)"),
    (dict(diff_hyper3=1e300), "diff_hyper3 = 1e+300", "(diff_hyper3 sum 1/dx^6)"),
    (dict(nu_shock=1e300), "nu_shock = 1e+300", "(zeta sum"), (dict(cs=1e300), "sound speed cs = 1e+300", "Courant"),
    (dict(energy="entropy", chi=1e300), "chi = 1e+300", "(chi sum"),
    (dict(passive_scalar=True, pscalar_diff=1e300), "pscalar_diff = 1e+300", "(pscalar_diff sum"),
])
def test_a_run_of_absurdly_many_steps_is_refused_naming_the_parameter(kw, name, limit):
    sim = flow(**kw)
    sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None]  # compressive, for the shock viscosity
    start = time.perf_counter()
    with pytest.raises(ValueError, match="more than 1e\\+12") as info:
        sim.run(until=0.01)
    assert name in str(info.value) and sim.steps == 0 and time.perf_counter() - start < 10
    assert limit in str(info.value)  # the limit written with the parameter that sets it


def test_a_fixed_dt_of_absurdly_many_steps_is_refused():
    with pytest.raises(ValueError, match=r"the fixed dt = 1e-15 \(run\(dt=...\)\)"):
        flow().run(until=1.0, dt=1e-15)


def test_an_ensemble_of_absurdly_many_steps_is_refused():
    with pytest.raises(ValueError, match="nu = 1e\\+300"):
        ac.Ensemble([flow(), flow(nu=1e300)], workers=1).run(until=0.01)


# --- relhel -------------------------------------------------------------------------
def test_relhel_is_bounded_to_where_the_normalisation_is_finite():
    with pytest.raises(ValueError, match=r"relhel must lie in \[-1e\+150, 1e\+150\].*sqrt\(1 \+ relhel\^2\)"):
        ac.Forcing(relhel=1e308)
    with pytest.raises(ValueError, match="relhel must lie"):
        ac.Forcing(relhel=-1e200)
    sim = flow()
    sim.forcing = ac.Forcing(relhel=1e150, f0=0.1)
    before = ac.analysis.rms(sim, "u")
    sim.run(until=0.05)
    assert ac.analysis.rms(sim, "u") != before  # at the bound the forcing still forces


@pytest.mark.parametrize("name, value, error, words", [
    ("relhel", 1e308, ValueError, "relhel must lie in"), ("relhel", math.inf, TypeError, "relhel must be a finite"),
    ("f0", -0.1, ValueError, "f0 must be >= 0"), ("f0", "0.1", TypeError, "f0 must be a finite real number"),
    ("seed", 1.5, ValueError, "seed must be an integer")])
def test_forcing_values_set_after_construction_are_checked(name, value, error, words):
    """forcing.relhel = 1e308 on an existing Forcing is refused as in the constructor (it reached the step loop at
    the next sim.forcing = forcing and switched the forcing off); the value before stays."""
    forcing = ac.Forcing(f0=0.1, relhel=1.0, seed=3)
    with pytest.raises(error, match=words):
        setattr(forcing, name, value)
    assert (forcing.f0, forcing.relhel, forcing.seed) == (0.1, 1.0, 3)
    forcing.relhel = -0.5
    assert forcing.relhel == -0.5 and isinstance(forcing.relhel, float)


# --- Ensemble(sim), workers=True ----------------------------------------------------------
def test_ensemble_of_one_simulation_asks_for_a_sequence():
    sim = flow()
    with pytest.raises(TypeError, match=r"a sequence of Simulation objects.*not one Simulation"):
        ac.Ensemble(sim)
    with pytest.raises(TypeError, match="a sequence of Simulation objects, not int"):
        ac.Ensemble(3)
    assert len(ac.Ensemble([sim])) == 1


@pytest.mark.parametrize("workers", [True, False, 0, 1.5])
def test_ensemble_workers_must_be_a_positive_int_not_a_bool(workers):
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        ac.Ensemble([flow()], workers=workers)


# --- magnetic initial conditions -----------------------------------------------------------
def mhd(shape, **kw):
    return ac.Simulation(shape=shape, physics="mhd", eta=0.01, backend="cpu", **kw)


@pytest.mark.parametrize("k", [4, 5, -4, 9])
def test_beltrami_wave_numbers_at_or_past_nyquist_are_refused(k):
    with pytest.raises(ValueError, match=r"at or past the Nyquist wave number nz / 2 = 4 of 8 points"):
        ac.init.beltrami_field(mhd((8, 8, 8)), k=k)


def test_beltrami_below_nyquist_is_a_beltrami_field():
    sim = mhd((8, 8, 8))
    ac.init.beltrami_field(sim, k=3, amplitude=0.1)
    assert np.max(np.abs(sim["ax"])) == pytest.approx(0.1, rel=1e-2)


def test_waves_along_a_flat_axis_are_refused_naming_it():
    with pytest.raises(ValueError, match="one point along z"):
        ac.init.beltrami_field(mhd((16, 16, 1)), k=1, axis="z")
    with pytest.raises(ValueError, match="one point along x"):
        ac.init.alfven_wave(mhd((1, 1, 32), b_ext=(1.0, 0.0, 0.0)), k=1)
    with pytest.raises(ValueError, match="at or past the Nyquist wave number nx / 2"):
        ac.init.alfven_wave(mhd((8, 4, 4), b_ext=(1.0, 0.0, 0.0)), k=4)


@pytest.mark.parametrize("kw, error, words", [
    (dict(k="1"), TypeError, "k must be a real number"), (dict(k=None), TypeError, "k must be a real number"),
    (dict(amplitude="big"), TypeError, "amplitude must be a real number"),
    (dict(amplitude=[0.1, 0.2]), TypeError, "amplitude must be a real number"),
    (dict(amplitude=float("inf")), ValueError, "amplitude must be finite"),
    (dict(k=float("nan")), ValueError, "k must be finite"),
])
def test_non_numeric_k_and_amplitude_name_the_parameter(kw, error, words):
    for init in (ac.init.beltrami_field, lambda s, **a: ac.init.alfven_wave(s, **a)):
        sim = mhd((8, 8, 8), b_ext=(0.0, 0.0, 1.0))
        with pytest.raises(error, match=words):
            init(sim, **kw)


@pytest.mark.parametrize("shape, kw, error, words", [
    ((8, 8, 8), dict(k=4), ValueError, "k = 4 along x is 4 wave lengths in the box, at or past the Nyquist"),
    ((8, 8, 8), dict(k=(0, 0, -5)), ValueError, "k = -5 along z .* Nyquist wave number nz / 2 = 4"),
    ((8, 8, 8), dict(), ValueError, "k = 13 along x"),  # the default k = 13 needs 27 points or more
    ((16, 16, 1), dict(k=(1, 0, 1)), ValueError, "one point along z"),
    ((1, 16, 16), dict(k=1), ValueError, "one point along x"),
    ((8, 8, 8), dict(k="1"), TypeError, "k must be a number or three numbers, got '1'"),
    ((8, 8, 8), dict(k=(1, "a", 0)), TypeError, "k along y must be a real number"),
    ((8, 8, 8), dict(k=1, amplitude="big"), TypeError, "amplitude must be a real number"),
    ((8, 8, 8), dict(k=1, amplitude=[1e-3, 2e-3]), TypeError, "amplitude must be a real number"),
    ((8, 8, 8), dict(k=1, phase=float("nan")), ValueError, "phase must be finite"),
])
def test_sine_wave_refuses_what_the_grid_cannot_carry_and_non_numbers(shape, kw, error, words):
    """sine_wave as beltrami_field and alfven_wave: a wave number at or past Nyquist aliased (sin(4 x) on 8
    points is zero everywhere), one along a flat axis gave a constant, and a string amplitude a raw
    UFuncTypeError."""
    sim = ac.Simulation(shape=shape, backend="cpu")
    with pytest.raises(error, match=words):
        ac.init.sine_wave(sim, **kw)
    assert not np.any(sim["uy"])  # refused before any field is written


def test_sine_wave_below_nyquist_and_along_resolved_axes():
    sim = ac.Simulation(shape=(16, 16, 1), backend="cpu")
    ac.init.sine_wave(sim, "uy", amplitude=0.5, k=(3, 7, 0), phase=0.25)
    x, y = np.meshgrid(sim.x, sim.y, indexing="ij")
    np.testing.assert_allclose(sim["uy"][:, :, 0], 0.5 * np.sin(3 * x + 7 * y + 0.25), rtol=0, atol=1e-15)


# --- damaged snapshots ---------------------------------------------------------------------
@pytest.fixture
def snapshot(tmp_path):
    return flow().save(tmp_path / "snap.h5")


def test_a_snapshot_of_unknown_physics_is_refused_naming_the_file(snapshot):
    with h5py.File(snapshot, "r+") as f:
        f.attrs["physics"] = "foo"
    with pytest.raises(ValueError, match=r"snap.h5: attribute 'physics' is 'foo'"):
        ac.load(snapshot)


@pytest.mark.parametrize("key, value, words", [
    ("eta", "x", r"snap.h5: the recorded parameters are not valid: attribute 'eta' is 'x', not a number"),
    ("nu", b"fast", r"attribute 'nu' is 'fast', not a number"),
    ("physics", 3, r"snap.h5: attribute 'physics' is 3, which this version does not know"),
])
def test_a_snapshot_attribute_of_the_wrong_kind_is_named(snapshot, key, value, words):
    with h5py.File(snapshot, "r+") as f:
        if key == "eta":
            f.attrs["physics"] = "mhd"
        f.attrs[key] = value
    with pytest.raises(ValueError, match=words):
        ac.load(snapshot)


def test_a_forged_mhd_snapshot_without_eta_names_what_it_lacks(tmp_path):
    sim = mhd((8, 8, 8))
    path = sim.save(tmp_path / "mhd.h5")
    with h5py.File(path, "r+") as f:
        del f.attrs["eta"]
    with pytest.raises(ValueError, match=r"mhd.h5 is not a complete astaroth snapshot \(physics 'mhd'\): it lacks "
                                         r"attribute 'eta'"):
        ac.load(path)


def test_a_truncated_snapshot_is_refused_naming_the_file(snapshot, tmp_path):
    data = open(snapshot, "rb").read()
    cut = tmp_path / "cut.h5"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(OSError, match=r"cannot read the snapshot .*cut.h5 \(truncated or damaged\?\)"):
        ac.load(cut)


def test_a_nan_snapshot_is_refused_naming_the_file_and_field(snapshot):
    with h5py.File(snapshot, "r+") as f:
        f["fields/uy"][0, 0, 0] = np.nan
    with pytest.raises(ValueError, match=r"snap.h5: dataset 'fields/uy' holds NaN or Inf"):
        ac.load(snapshot)


WALLS = {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2"}


@pytest.mark.parametrize("value, words", [
    ('{"z": {"ux": ["s", "s"', "attribute 'boundaries' is '{\"z\": {\"ux\": [\"s\", \"s\"', not JSON"),
    ('["z"]', "attribute 'boundaries' is '[\"z\"]', not a table"),
    ('{"z": {"ux": ["s", 5]}}', "attribute 'boundaries' is not valid: boundaries['z']"),
])
def test_a_snapshot_with_damaged_walls_is_named_by_load_and_plot(tmp_path, capsys, value, words):
    path = ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries={"z": WALLS}).save(tmp_path / "walls.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["boundaries"] = value
    with pytest.raises(ValueError, match="walls.h5: " + re.escape(words)):
        ac.load(path)
    capsys.readouterr()
    assert main(["plot", str(path)]) == 2
    err = capsys.readouterr().err
    assert "walls.h5: " + words in err and "Traceback" not in err


@pytest.mark.parametrize("kind", [None, 5, 1.5, {"s": 1}])
def test_a_wall_kind_that_is_not_a_string_is_refused_naming_axis_and_field(kind):
    with pytest.raises(ValueError, match=r"boundaries\['z'\]\['uy'\]: a kind is a string"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries={"z": {**WALLS, "uy": kind}})
    with pytest.raises(ValueError, match=r"boundaries\['x'\]\['lnrho'\]: a kind is a string"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries={"x": {**WALLS, "lnrho": ("s", kind)}})


@pytest.mark.parametrize("value, error", [(math.nan, ValueError), (math.inf, ValueError), ("1", TypeError),
                                          (None, TypeError), (True, TypeError)])
def test_a_time_that_is_not_a_finite_number_is_refused(value, error):
    sim = flow((8, 8, 8))
    sim.t = 0.25
    with pytest.raises(error, match=r"^t must be"):
        sim.t = value
    assert sim.t == 0.25
    sim.run(until=0.3)
    assert sim.t == pytest.approx(0.3)


@pytest.mark.parametrize("damage", ["truncate", "nan"])
def test_restart_from_a_damaged_checkpoint_names_it(tmp_path, capsys, damage):
    toml = tmp_path / "run.toml"
    folder = tmp_path / "run"
    toml.write_text(f'[grid]\nshape = [8, 8, 8]\n[numerics]\nbackend = "cpu"\n[forcing]\nf0 = 0.05\n'
                    f'[output]\ndir = "{folder}"\nuntil = 0.1\nsnapshot_every = 0.1\nprogress = false\n')
    assert main(["run", str(toml), "--no-plot"]) == 0
    checkpoint = folder / "checkpoint.h5"
    if damage == "truncate":
        data = checkpoint.read_bytes()
        checkpoint.write_bytes(data[:len(data) // 3])
    else:
        with h5py.File(checkpoint, "r+") as f:
            f["fields/ux"][1, 1, 1] = np.inf
    capsys.readouterr()
    toml.write_text(toml.read_text().replace("until = 0.1", "until = 0.2"))
    assert main(["run", str(toml), "--no-plot", "--restart"]) == 2
    err = capsys.readouterr().err
    assert str(checkpoint) in err and "Traceback" not in err


# --- astaroth bench options ------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["--methods", "19p", "--terms"], "--methods 19p does not apply to --terms or --physics mhd"),
    (["--methods", "55p", "19p", "--physics", "mhd"], "--methods 19p does not apply"),
    (["--sweeps", "--physics", "mhd"], "--physics mhd does not apply"),
    (["--sweeps", "--terms"], "--terms and --sweeps are 2 benchmarks"),
    (["--sweeps", "--terms", "--physics", "all"], "--terms and --sweeps are 2 benchmarks"),
    (["--walls", "--terms"], "--walls and --terms are 2 benchmarks"),
    (["--walls", "--sweeps"], "--walls and --sweeps are 2 benchmarks"),
    (["--walls", "--energy", "entropy"], "--walls and --energy entropy are 2 benchmarks"),
    (["--energy", "entropy", "--terms", "--sweeps"], "--energy entropy, --terms and --sweeps are 3 benchmarks"),
    (["--walls", "--methods", "19p"], "--methods 19p does not apply"),
    (["--physics", "all"], "--physics all goes with --terms, --walls, --energy entropy or --sweeps"),
])
def test_bench_refuses_options_that_do_not_apply(argv, words, capsys):
    assert main(["bench", "--backend", "cpu"] + argv) == 2
    assert words in capsys.readouterr().err


def test_bench_sweeps_honours_sizes_and_seconds(capsys):
    start = time.perf_counter()
    assert main(["bench", "--backend", "cpu", "--sweeps", "--sizes", "4", "--seconds", "0.05",
                 "--dtype", "float64", "--methods", "55p"]) == 0
    assert time.perf_counter() - start < 120  # 5 minutes before; generous for a loaded 2-core machine
    out = capsys.readouterr().out
    assert "4^3" in out and "32^3" not in out and "Ensemble of 64" in out
    from astaroth.bench import SWEEP_ENSEMBLES, SWEEP_SIZES, sweep_ensembles
    assert sweep_ensembles(SWEEP_SIZES) == SWEEP_ENSEMBLES
    assert sweep_ensembles((16, 128)) == ((64, 16), (16, 16)) and sweep_ensembles((48,)) == ((64, 48), (16, 48))


# --- what blew up, plot --timeseries, shock_viscosity, workers ---------------------------------
def test_a_huge_b_ext_blow_up_names_b_ext():
    sim = mhd((8, 8, 8), b_ext=(0.0, 0.0, 1e200))
    sim["ux"] = 0.01
    with pytest.raises(ac.NonFiniteError) as info:
        sim.run(until=0.1)
    text = str(info.value)
    assert "b_ext = (0.0, 0.0, 1e+200)" in text and "smaller time step" not in text
    assert "fields themselves are finite" in text and "field 'u'" not in text


def test_a_huge_seed_field_blow_up_names_the_field(tmp_path, capsys):
    toml = tmp_path / "run.toml"
    toml.write_text(f'[grid]\nshape = [8, 8, 8]\n[physics]\nphysics = "mhd"\neta = 0.01\n[numerics]\n'
                    f'backend = "cpu"\n[initial]\nseed_field = 1e200\n[output]\ndir = "{tmp_path / "run"}"\n'
                    f'until = 0.1\nprogress = false\n')
    assert main(["run", str(toml), "--no-plot"]) == 4
    err = capsys.readouterr().err
    assert "max |ax| = " in err and "e+200" in err and "smaller time step" not in err


@pytest.mark.parametrize("make, words", [
    (lambda: noisy_gas(gamma=1e300), "cv1 ss with cv1 = gamma / cp = 1e+300 (gamma = 1e+300, cp = 1)"),
    (lambda: noisy_gas(cp=1e-300), "cv1 = gamma / cp = 1.67e+300 (gamma = 1.66667, cp = 1e-300)"),
    (lambda: noisy_gas(cp=1e-30, dtype="float32"), "(gamma = 1.66667, cp = 1e-30)"),
    (lambda: (lambda sim: (sim.__setitem__("ss", 1e3), sim)[1])(noisy_gas()), "max |ss| = 1e+03"),
    (lambda: ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries={"z": {**WALLS, "lnrho": "set:1e200"}}),
     "boundaries['z']['lnrho'] lower = 'set:1e+200'"),
])
def test_an_overflow_names_the_parameter_or_field_that_caused_it(make, words):
    sim = make()
    with pytest.raises(ac.NonFiniteError) as info:
        sim.run(until=0.05)
    assert words in str(info.value) and "smaller time step" not in str(info.value)


def test_a_reference_density_that_makes_the_sound_speed_absurd_is_named():
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu", energy="entropy", rho0=1e-300)
    with pytest.raises(ValueError, match=r"rho0 = 1e-300 and max \|lnrho - ln rho0\| = 691"):
        sim.run(until=0.05)


@pytest.mark.parametrize("make", [lambda: noisy_gas(dtype="float32", rho0=1e-30),
                                  lambda: ac.Simulation(shape=(8, 8, 8), backend="cpu", dtype="float32",
                                                        energy="entropy", rho0=1e-30)])
def test_a_float32_reference_density_that_makes_the_sound_speed_huge_is_named(make):
    """rho0 = 1e-30 in float32 is within the precision (refused only below its smallest normal number) but
    puts cs2 at 1e20: a CFL run would crawl through 1e9 steps and a fixed step is unstable; both name rho0."""
    words = "rho0 = 1e-30 and max |lnrho - ln rho0| = 69.1 reaches 46.1 in the exponent of the sound speed"
    with pytest.raises(ValueError) as crawl:
        make().run(until=0.05)
    assert words in str(crawl.value) and "dtype='float64'" in str(crawl.value)
    with pytest.raises(ac.UnstableStepError) as unstable:
        make().run(until=0.05, dt=1e-3)
    assert words in str(unstable.value) and "the sound speed is that large because" in str(unstable.value)


def test_the_gas_overflow_check_reads_the_fields_only_while_they_are_as_set(monkeypatch):
    """run() names fields that make the ideal gas overflow (the test above) by copying ss and lnrho to the host:
    before the first step and after fields are set, not at every call (a 256^3 run in calls of 20 steps spent
    most of its time there), in a Simulation's run and in an Ensemble's members alike."""
    from astaroth import thermo

    calls = []
    real = thermo.overflow_causes
    monkeypatch.setattr(thermo, "overflow_causes", lambda sim: calls.append(sim) or real(sim))
    sims = [noisy_gas() for _ in range(2)]
    sims[0].run(until=0.02)
    assert len(calls) == 1
    sims[0].run(until=0.04)
    sims[0].run(until=0.06)
    assert len(calls) == 1
    sims[0]["ss"] = sims[0]["ss"]
    sims[0].run(until=0.08)
    assert len(calls) == 2
    ensemble = ac.Ensemble(sims)
    ensemble.run(until=0.1)
    ensemble.run(until=0.12)
    assert len(calls) == 3  # sims[1] before its first step; sims[0]'s fields were stepped since they were set


@pytest.mark.parametrize("kw, words", [
    (dict(dtype="float32", gravity=(0, 0, -1e39), boundaries={"z": WALLS}),
     "gravity = (0.0, 0.0, -1e+39) is beyond the largest float32 number"),
    (dict(dtype="float32", energy="entropy", gamma=1e300), "gamma = 1e+300 is beyond the largest float32"),
    (dict(dtype="float32", energy="entropy", cp=1e-300), "cp = 1e-300 is below the smallest normal float32"),
    (dict(dtype="float32", nu=1e39), "nu = 1e+39 is beyond the largest float32"),
    (dict(energy="entropy", gamma=1e300, cp=1e-10), "cv1 = gamma / cp = inf with gamma = 1e+300, cp = 1e-10"),
    (dict(energy="entropy", cs=1e200), "cs^2 = inf with gamma = 1.66667, cp = 1, cs = 1e+200"),
    (dict(dtype="float32", boundaries={"z": {**WALLS, "ux": "set:1e39"}}),
     "boundaries['z']['ux'] lower = 'set:1e+39' is beyond the largest float32 number"),
])
def test_values_the_precision_cannot_hold_are_refused_at_construction(kw, words):
    with pytest.raises(ValueError) as info:
        ac.Simulation(shape=(8, 8, 8), backend="cpu", **kw)
    assert words in str(info.value)


def test_an_ordinary_blow_up_keeps_the_advice():
    sim = ac.Simulation(shape=(16, 16, 16), nu=0.0, backend="cpu")
    sim["ux"] = np.sin(sim.x)[:, None, None]
    with pytest.raises(ac.NonFiniteError, match=r"at step \d+, t = .*the run is unstable \(try a smaller time step"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim.run(until=100.0, cdt=1.6, check_every=1)


def test_plot_timeseries_of_a_non_csv_file_names_the_option_and_file(snapshot, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    binary = tmp_path / "junk.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    assert main(["plot", snapshot, "--timeseries", str(binary)]) == 2
    err = capsys.readouterr().err
    assert "--timeseries" in err and "junk.bin" in err and "Traceback" not in err
    text = tmp_path / "notes.txt"
    text.write_text("hello, world\n1, 2\n")
    assert main(["plot", snapshot, "--timeseries", str(text)]) == 2
    assert "--timeseries" in capsys.readouterr().err
    assert main(["plot", snapshot, "--timeseries", str(tmp_path / "none.csv")]) == 2
    assert "none.csv" in capsys.readouterr().err


def test_shock_viscosity_without_nu_shock_is_none_as_documented():
    assert flow().shock_viscosity() is None
    assert "Returns None when nu_shock = 0" in ac.Simulation.shock_viscosity.__doc__


# --- read-only snapshots ---------------------------------------------------------------------
def test_a_read_only_snapshot_is_not_replaced(snapshot):
    before = open(snapshot, "rb").read()
    os.chmod(snapshot, 0o444)
    try:
        sim = flow()
        sim.run(until=0.05)
        with pytest.raises(PermissionError, match=r"snap.h5: it exists and is read-only \(mode 0444\)"):
            sim.save(snapshot)
        assert open(snapshot, "rb").read() == before and os.stat(snapshot).st_mode & 0o777 == 0o444
        assert not [p for p in os.listdir(os.path.dirname(snapshot)) if p.startswith(".tmp-")]
    finally:
        os.chmod(snapshot, 0o644)
    flow().save(snapshot)  # writable again: replaced as before


def test_a_replaced_snapshot_keeps_its_mode(snapshot):
    """Replacing a writable snapshot (written beside it, then renamed over it) keeps the mode it had."""
    os.chmod(snapshot, 0o640)
    flow().save(snapshot)
    assert os.stat(snapshot).st_mode & 0o777 == 0o640
    xdmf = os.path.splitext(snapshot)[0] + ".xdmf"
    os.chmod(xdmf, 0o600)
    flow().save(snapshot)
    assert os.stat(xdmf).st_mode & 0o777 == 0o600 and os.stat(snapshot).st_mode & 0o777 == 0o640
