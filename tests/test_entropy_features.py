"""energy="entropy" with everything the other fields have:
the registry (switch, module, parameters, TOML keys), get/set and views of
ss, save/load and restart bit for bit, ensembles, forcing, MHD, hyper3 and
shock viscosity, the CFL step with the local sound speed and gamma chi, the
time-series columns, the plot; and isothermal runs unchanged."""
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import astaroth as ac

HERE = os.path.dirname(os.path.abspath(__file__))


def make(shape=(12, 10, 8), physics="hydro", seed=3, **params):
    params = dict(dict(nu=2e-2, chi=3e-2, gamma=5 / 3, cp=1.2, rho0=0.9, cs=1.1), **params)
    sim = ac.Simulation(shape=shape, box=(2 * np.pi, 5.0, 4.0), dtype="float64", backend="cpu", physics=physics,
                        energy="entropy", **params)
    rng = np.random.default_rng(seed)
    for name in sim.field_names:
        sim[name] = 0.05 * rng.standard_normal(shape)
    return sim


def test_the_registry_has_the_switch_module_and_parameters():
    assert "energy" in ac.parameters.SWITCHES
    assert ac.parameters.default("energy") == "isothermal"
    rows = {p["name"]: p for p in ac.parameters()}
    for name, default in (("gamma", 5 / 3), ("cp", 1.0), ("rho0", 1.0), ("chi", 0.0), ("chi_hyper3", 0.0)):
        assert rows[name]["module"] == "entropy" and rows[name]["default"] == pytest.approx(default)
    assert ac.parameters.field_names(("hydro", "entropy")) == ("lnrho", "ux", "uy", "uz", "ss")
    assert ac.parameters.field_names(("hydro", "magnetic", "entropy")) == ("lnrho", "ux", "uy", "uz", "ax", "ay",
                                                                         "az", "ss")
    # the isothermal layouts are unchanged
    assert ac.Simulation(shape=(8, 8, 8), backend="cpu").field_names == ("lnrho", "ux", "uy", "uz")


@pytest.mark.parametrize("name,value,words", [("gamma", 1.0, "gamma"), ("cp", 0.0, "cp"), ("rho0", -1.0, "rho0"),
                                              ("chi", -0.1, "chi"), ("chi_hyper3", -1.0, "chi_hyper3")])
def test_bad_parameters_are_refused_by_name(name, value, words):
    with pytest.raises(ValueError, match=words):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", energy="entropy", **{name: value})


def test_bad_energy_is_refused():
    with pytest.raises(ValueError, match="energy"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", energy="adiabatic")
    with pytest.raises(ValueError, match="energy='entropy' needs method='55p'"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", energy="entropy", method="19p")
    with pytest.raises(ValueError, match="chi belongs to the module 'entropy'"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", chi=0.1)
    with pytest.raises(ValueError, match="temperature needs energy='entropy'"):
        ac.analysis.temperature(ac.Simulation(shape=(8, 8, 8), backend="cpu"))


def test_ss_get_set_and_view():
    sim = make()
    values = np.linspace(0, 1, 12 * 10 * 8).reshape(12, 10, 8)
    sim["ss"] = values
    assert np.array_equal(sim["ss"], values)
    assert np.array_equal(np.asarray(sim.view("ss")), values)
    assert sim.energy == "entropy" and sim.modules == ("hydro", "entropy")


def test_uniform_state_at_rho0_and_ss0_stays_at_rest():
    """cs is the sound speed at rho0 and ss = 0: a uniform state is in equilibrium, T = cs^2 / (cp (gamma - 1))."""
    sim = make()
    for name in sim.field_names:
        sim[name] = np.zeros(sim.shape)
    sim["lnrho"] = np.full(sim.shape, math.log(sim.rho0))
    rhs = sim.rhs()
    assert all(np.max(np.abs(r)) < 1e-14 for r in rhs.values())
    T = ac.analysis.temperature(sim)
    assert np.allclose(T, sim.cs ** 2 / (sim.cp * (sim.gamma - 1)))
    assert np.allclose(ac.analysis.pressure(sim), sim.rho0 * sim.cs ** 2 / sim.gamma)


def test_cfl_step_uses_the_local_sound_speed_and_gamma_chi():
    sim = make(nu=0.0, chi=0.0)
    sim["ss"] = np.full(sim.shape, 0.6)  # hotter: cs2 = cs^2 exp(cv1 ss)
    for c in ("ux", "uy", "uz"):
        sim[c] = np.zeros(sim.shape)
    sim["lnrho"] = np.full(sim.shape, math.log(sim.rho0))
    c = sim.cs * math.exp(sim.gamma / sim.cp * 0.6 / 2)
    dxmin = min(sim.spacing)
    assert sim.cfl_dt() == pytest.approx(0.4 * dxmin / c, rel=1e-12)
    hot = make(nu=1e-3, chi=0.5)
    rate = hot.gamma * 0.5 * sum(1 / dx ** 2 for dx in hot.spacing)
    assert hot.cfl_dt(cdt=100.0) == pytest.approx(0.3 / rate, rel=1e-12)


@pytest.mark.parametrize("physics", ["hydro", "mhd"])
def test_restart_continues_bit_for_bit(tmp_path, physics):
    extra = dict(eta=2e-2) if physics == "mhd" else {}
    one = make(physics=physics, **extra)
    one.run(until=0.2)
    one.run(until=0.4)
    two = make(physics=physics, **extra)
    two.run(until=0.2)
    two.save(tmp_path / "snap.h5")
    back = ac.load(tmp_path / "snap.h5", backend="cpu")
    assert back.energy == "entropy" and back.chi == two.chi and back.gamma == two.gamma
    back.run(until=0.4)
    for name in one.field_names:
        assert np.array_equal(one[name], back[name]), name


def test_ensemble_members_equal_solo_runs():
    solo = [make(seed=s) for s in range(3)]
    for sim in solo:
        sim.run(until=0.1)
    ens = ac.Ensemble(make(seed=s) for s in range(3))
    ens.run(until=0.1)
    for a, b in zip(solo, ens):
        for name in a.field_names:
            assert np.array_equal(a[name], b[name]), name


def test_forcing_hyper3_shock_and_mhd_run():
    """Every other term together with entropy: a forced MHD run with hyper3, chi_hyper3 and shock viscosity
    stays finite, and its time series has the entropy columns."""
    sim = make(shape=(16, 12, 10), physics="mhd", eta=1e-2, nu_hyper3=1e-6, diff_hyper3=1e-6, chi_hyper3=1e-6,
               nu_shock=1.0)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=2)
    sim.run(until=0.3, timeseries=None)
    sim.check_finite()
    row = ac.diagnostics.row(sim, 0.01)
    for column in ac.diagnostics.ENTROPY_COLUMNS:
        assert math.isfinite(row[column]), column
    assert row["TTmin"] <= row["TTm"] <= row["TTmax"]
    T = ac.analysis.temperature(sim)
    assert row["ethm"] == pytest.approx(np.mean(np.exp(sim["lnrho"]) * sim.cp / sim.gamma * T))
    assert row["etotm"] == pytest.approx(ac.analysis.total_energy(sim))


def test_timeseries_file_has_the_entropy_columns(tmp_path):
    sim = make()
    sim.run(until=0.1, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    ts = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    for column in ac.diagnostics.ENTROPY_COLUMNS:
        assert column in ts.dtype.names


def test_viscous_heating_warms_a_decaying_shear_flow():
    """Viscosity turns kinetic energy into heat: in a shear flow ux = U sin(2 pi y / Ly) (div u = 0, no
    pressure work) <rho cv T> rises by what ekin loses, and the total stays."""
    sim = make(nu=5e-2, chi=0.0, shape=(8, 32, 1))
    for name in sim.field_names:
        sim[name] = np.zeros(sim.shape)
    sim["lnrho"] = np.full(sim.shape, math.log(sim.rho0))
    y = np.arange(32) * sim.spacing[1]
    sim["ux"] = np.broadcast_to((0.1 * np.sin(2 * np.pi * y / sim.box[1]))[None, :, None], sim.shape)
    e0, th0, tot0 = (f(sim) for f in (ac.analysis.kinetic_energy, ac.analysis.thermal_energy, ac.analysis.total_energy))
    sim.run(until=2.0)
    lost = e0 - ac.analysis.kinetic_energy(sim)
    assert lost > 0.1 * e0
    assert ac.analysis.thermal_energy(sim) - th0 == pytest.approx(lost, rel=1e-6)
    assert abs(ac.analysis.total_energy(sim) - tot0) < 1e-6 * lost


def test_plot_shows_the_temperature(tmp_path):
    pytest.importorskip("matplotlib")
    from astaroth import plot

    sim = make()
    sim.run(until=0.05, timeseries=tmp_path / "ts.csv", diagnostics_every=1)
    sim.save(tmp_path / "snap.h5")
    out = plot.summary(tmp_path / "snap.h5", tmp_path / "ts.csv")
    assert out and os.path.exists(out)


def test_toml_run_with_entropy(tmp_path):
    """The [physics] keys energy, gamma, chi ... come from the registry."""
    config = tmp_path / "run.toml"
    config.write_text('[grid]\nshape = [8, 8, 8]\n[physics]\nenergy = "entropy"\nchi = 0.01\ngamma = 1.4\n'
                      f'[output]\nuntil = 0.05\ndir = "{tmp_path / "out"}"\n[numerics]\nbackend = "cpu"\n')
    # the astaroth that pytest imported (installed, or the source tree with its build), not the folder it runs in
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ac.__file__)))
    done = subprocess.run([sys.executable, "-m", "astaroth", "run", str(config)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=package_root), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "entropy" in done.stdout


def test_split_grid_equals_one_process_bit_for_bit(tmp_path):
    """MHD with entropy on 2 MPI ranks gives the single-process run bit for bit (tests/test_mpi.py's pattern)."""
    sys.path.insert(0, HERE)
    from mpi_case import T_HALF, make_entropy
    from test_mpi import HAVE_MPI4PY, MPIRUN, mpirun

    if not (MPIRUN and HAVE_MPI4PY):
        pytest.skip("needs mpirun and mpi4py (docs/guide/parallel.md says how to install them)")
    sim = make_entropy()
    sim.run(until=T_HALF, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    series = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    mpirun(2, tmp_path, "entropy")
    got = np.load(tmp_path / "entropy-np2.npz")
    assert int(got["steps"]) == sim.steps
    for name in sim.field_names:
        np.testing.assert_array_equal(got[name], sim[name], err_msg=name)
    split = np.genfromtxt(tmp_path / "entropy-ts-np2.csv", delimiter=",", names=True)
    for column in series.dtype.names:
        np.testing.assert_allclose(split[column], series[column], rtol=1e-12, atol=1e-15, err_msg=column)


def test_bench_entropy_rows(capsys):
    """`astaroth bench --energy entropy` times hydro+entropy (5 fields) and MHD+entropy (8) beside isothermal."""
    from astaroth.cli import main

    assert main(["bench", "--backend", "cpu", "--energy", "entropy", "--physics", "all", "--sizes", "8",
                 "--dtype", "float64", "--seconds", "0.05"]) == 0
    text = capsys.readouterr().out
    rows = [line.split() for line in text.splitlines() if line.startswith("astaroth cpu")]
    assert [(r[2], r[3], r[4]) for r in rows] == [("hydro", "isothermal", "4"), ("hydro", "entropy", "5"),
                                                  ("mhd", "isothermal", "7"), ("mhd", "entropy", "8")]


GPU_CASES = [("hydro", {}), ("hydro", dict(nu_shock=1.0, chi_hyper3=1e-6, nu_hyper3=1e-6)),
             ("mhd", dict(eta=2e-2, b_ext=(0.0, 0.1, 0.0))), ("mhd", dict(eta=2e-2, nu_shock=1.0, chi_hyper3=1e-6))]


@pytest.mark.gpu
@pytest.mark.parametrize("physics,extra", GPU_CASES, ids=["hydro", "hydro-shock-hyper3", "mhd", "mhd-shock-hyper3"])
def test_cuda_steps_agree_with_the_cpu(physics, extra):
    """Ten CFL steps with energy="entropy" on the GPU against the CPU in float64 (a periodic 32 x 24 x 40 grid):
    the same dt (the signal-speed reduction) and fields to 1e-10 of each field's largest value."""
    if "cuda" not in ac.backends():
        pytest.skip("no GPU")
    runs = {}
    for backend in ("cpu", "cuda"):
        sim = ac.Simulation(shape=(32, 24, 40), box=(2 * np.pi, 5.0, 7.0), dtype="float64", backend=backend,
                            physics=physics, energy="entropy", nu=2e-2, chi=3e-2, gamma=1.4, cp=1.3, rho0=0.8,
                            cs=1.1, **extra)
        rng = np.random.default_rng(1)
        x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
        for q, name in enumerate(sim.field_names):
            sim[name] = 0.05 * np.sin(x + q) * np.cos(2 * np.pi * y / 5.0 + 0.3 * q) * np.cos(2 * np.pi * z / 7.0)
        dts = [sim.step() for _ in range(10)]
        runs[backend] = (dts, {name: sim[name] for name in sim.field_names})
    np.testing.assert_allclose(runs["cuda"][0], runs["cpu"][0], rtol=1e-12)
    for name, want in runs["cpu"][1].items():
        got = runs["cuda"][1][name]
        assert np.max(np.abs(got - want)) <= 1e-10 * np.max(np.abs(want)), name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_forced_mhd_entropy_run_stays_finite(dtype):
    """A forced MHD run with entropy at 64^3 on the GPU in both precisions, its time series columns finite."""
    if "cuda" not in ac.backends():
        pytest.skip("no GPU")
    sim = ac.Simulation(shape=(64, 64, 64), dtype=dtype, backend="cuda", physics="mhd", energy="entropy", nu=5e-3,
                        eta=5e-3, chi=5e-3)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3)
    sim.run(until=0.5)
    sim.check_finite()
    row = ac.diagnostics.row(sim, 0.0)
    assert all(math.isfinite(row[c]) for c in ac.diagnostics.ENTROPY_COLUMNS)
