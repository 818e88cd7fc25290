"""Magnetohydrodynamics (docs/guide/mhd.md), on the CPU backend: an independent NumPy
statement of the right-hand side, and two exact solutions (a decaying
Beltrami field, a circularly polarised Alfven wave) whose errors converge at
sixth order."""
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth.numpy_reference import d2dx2, d2dxdy, ddx, time_derivatives
from helpers import assert_rhs_agree, smooth_random_fields


def mhd_time_derivatives(lnrho, u, a, h, nu, cs, eta, mu0, b_ext):
    """The seven time derivatives, written from docs/guide/mhd.md with the seed's stencils."""
    dlnrho, du = time_derivatives(lnrho, u, h, nu, cs)
    grad = [[ddx(a[i], j, h[j]) for j in range(3)] for i in range(3)]  # grad[i][j] = d_j A_i
    b = [grad[2][1] - grad[1][2] + b_ext[0], grad[0][2] - grad[2][0] + b_ext[1], grad[1][0] - grad[0][1] + b_ext[2]]
    lap = [sum(d2dx2(a[i], j, h[j]) for j in range(3)) for i in range(3)]
    grad_div = [sum(d2dx2(a[i], i, h[i]) if i == j else d2dxdy(a[j], i, j, h[i], h[j]) for j in range(3))
                for i in range(3)]
    j = [(grad_div[i] - lap[i]) / mu0 for i in range(3)]
    rho = np.exp(lnrho)
    lorentz = np.cross(np.stack(j), np.stack(b), axis=0) / rho
    induction = np.cross(np.stack(u), np.stack(b), axis=0) + eta * np.stack(lap)
    return [dlnrho] + [du[i] + lorentz[i] for i in range(3)] + [induction[i] for i in range(3)]


def mhd_sim(shape, box, dtype="float64", backend="cpu", **kw):
    params = dict(nu=0.03, cs=0.8, eta=0.02, mu0=1.3, b_ext=(0.1, -0.2, 0.3))
    params.update(kw)
    return ac.Simulation(shape=shape, box=box, dtype=dtype, backend=backend, physics="mhd", **params)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_rhs_matches_a_numpy_statement_on_an_anisotropic_grid(backend):
    shape, box = (20, 14, 9), (2 * math.pi, 3.0, 1.7)
    sim = mhd_sim(shape, box, backend=backend)
    rng = np.random.default_rng(3)
    values = smooth_random_fields(shape, box, rng) + smooth_random_fields(shape, box, rng)[:3]
    for name, f in zip(sim.field_names, values):
        sim[name] = f
    got = sim.rhs()
    want = mhd_time_derivatives(values[0], values[1:4], values[4:7], sim.spacing, sim.nu, sim.cs, sim.eta, sim.mu0,
                                sim.b_ext)
    for name, w in zip(sim.field_names, want):
        scale = np.max(np.abs(w))
        assert scale > 0, name
        assert np.max(np.abs(got[name] - w)) <= 1e-10 * scale, name
    # the Lorentz force and the induction equation are there: without A, hydro's right-hand side
    hydro = ac.Simulation(shape=shape, box=box, nu=sim.nu, cs=sim.cs, dtype="float64", backend=backend)
    for name, f in zip(ac.FIELDS, values):
        hydro[name] = f
    assert np.max(np.abs(hydro.rhs()["ux"] - got["ux"])) > 1e-3 * np.max(np.abs(got["ux"]))


def beltrami_error(n, k=3, a=0.1, eta=0.05, t_end=0.4, dt=2e-3, backend="cpu"):
    """Max error of A against a (sin kz, cos kz, 0) exp(-eta k^2 t), and max |u|."""
    sim = ac.Simulation(shape=(1, 1, n), box=(2 * math.pi,) * 3, nu=0.01, cs=1.0, dtype="float64", backend=backend,
                        physics="mhd", eta=eta)
    z = sim.z[None, None, :]
    sim["ax"], sim["ay"] = a * np.sin(k * z), a * np.cos(k * z)
    while sim.t < t_end - 1e-12:
        sim.step(min(dt, t_end - sim.t))
    decay = math.exp(-eta * k * k * sim.t)
    error = max(np.max(np.abs(sim["ax"] - a * decay * np.sin(k * z))),
                np.max(np.abs(sim["ay"] - a * decay * np.cos(k * z))), np.max(np.abs(sim["az"])))
    return error, max(np.max(np.abs(sim[c])) for c in ("ux", "uy", "uz", "lnrho"))


def test_beltrami_field_is_force_free_and_decays_at_sixth_order():
    sizes = (16, 24, 32)  # measured: errors 5.8e-5, 5.7e-6, 1.1e-6; orders 5.71, 5.85 (12 -> 16: 5.43)
    results = [beltrami_error(n) for n in sizes]
    for _, still in results:
        assert still < 1e-14  # force-free: the flow stays at rest to round-off (A is 0.1)
    errors = [e for e, _ in results]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(sizes[i + 1] / sizes[i]) for i in range(2)]
    assert errors[-1] < 2e-6
    assert min(orders) >= 5.5, (errors, orders)


def alfven_error(n, k=2, a=0.05, b0=1.0, nu=0.02, t_end=0.5, dt=2e-3, backend="cpu"):
    """Max error of A and u against the circularly polarised Alfven wave along b_ext = (0, 0, b0):
    A = a (sin k(z - vA t), cos k(z - vA t), 0) e^(-nu k^2 t), u = -k A / sqrt(mu0 rho)."""
    sim = ac.Simulation(shape=(1, 1, n), box=(2 * math.pi,) * 3, nu=nu, cs=1.0, dtype="float64", backend=backend,
                        physics="mhd", eta=nu, b_ext=(0.0, 0.0, b0))
    z = sim.z[None, None, :]

    def exact(t):
        phase, decay = k * (z - b0 * t), a * math.exp(-nu * k * k * t)  # vA = b0 / sqrt(mu0 rho) = b0
        return decay * np.sin(phase), decay * np.cos(phase)

    ax, ay = exact(0.0)
    sim["ax"], sim["ay"], sim["ux"], sim["uy"] = ax, ay, -k * ax, -k * ay
    while sim.t < t_end - 1e-12:
        sim.step(min(dt, t_end - sim.t))
    ax, ay = exact(sim.t)
    return max(np.max(np.abs(sim["ax"] - ax)), np.max(np.abs(sim["ay"] - ay)),
               np.max(np.abs(sim["ux"] + k * ax)) / k, np.max(np.abs(sim["uy"] + k * ay)) / k,
               np.max(np.abs(sim["uz"])), np.max(np.abs(sim["lnrho"])))


def test_alfven_wave_travels_at_the_alfven_speed_at_sixth_order():
    sizes = (16, 24, 32)  # measured: errors 1.4e-5, 1.3e-6, 2.4e-7; orders 5.83, 5.99
    errors = [alfven_error(n) for n in sizes]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(sizes[i + 1] / sizes[i]) for i in range(2)]
    assert errors[-1] < 5e-7
    assert min(orders) >= 5.5, (errors, orders)


def test_cfl_step_counts_the_fast_magnetosonic_speed_and_eta():
    shape, box = (16, 16, 16), (2 * math.pi,) * 3
    sim = mhd_sim(shape, box, nu=1e-4, eta=1e-4, cs=1.0, b_ext=(0.0, 0.0, 2.0), mu0=1.0)
    dx = box[0] / shape[0]
    assert sim.cfl_dt() == pytest.approx(0.4 * dx / math.sqrt(1.0 + 4.0), rel=1e-12)
    sim["lnrho"] = math.log(4.0)  # rho = 4: vA = 1
    assert sim.cfl_dt() == pytest.approx(0.4 * dx / math.sqrt(2.0), rel=1e-12)
    slow = mhd_sim(shape, box, nu=1e-3, eta=0.5, cs=1.0, b_ext=(0.0, 0.0, 0.0))
    assert slow.cfl_dt() == pytest.approx(0.3 / (0.5 * 3 / dx ** 2), rel=1e-12)


def test_mhd_fields_get_set_view_and_save(tmp_path):
    sim = mhd_sim((8, 6, 4), (1.0, 2.0, 3.0))
    assert sim.field_names == ac.FIELDS + ("ax", "ay", "az")
    sim["az"] = 0.5
    assert np.all(sim["az"] == 0.5) and np.all(sim.view("az") == 0.5)
    sim.step(1e-3)
    assert set(sim.fields()) == set(sim.field_names)
    pytest.importorskip("h5py")
    sim.save(tmp_path / "m.h5")
    back = ac.load(tmp_path / "m.h5")
    assert (back.physics, back.eta, back.mu0, back.b_ext) == ("mhd", sim.eta, sim.mu0, sim.b_ext)
    sim.step(1e-3)
    back.step(1e-3)
    for name in sim.field_names:
        assert np.array_equal(sim[name], back[name]), name


def test_bad_mhd_parameters_are_refused_clearly():
    with pytest.raises(ValueError, match="physics"):
        ac.Simulation(shape=8, physics="mhd2")
    with pytest.raises(ValueError, match="eta"):
        ac.Simulation(shape=8, physics="mhd", eta=-1.0)
    with pytest.raises(ValueError, match="mu0"):
        ac.Simulation(shape=8, physics="mhd", mu0=0.0)
    with pytest.raises(ValueError, match="physics='mhd'"):
        ac.Simulation(shape=8, eta=0.1)
    with pytest.raises(ValueError, match="55p"):
        ac.Simulation(shape=8, physics="mhd", method="19p", backend="cpu")
    with pytest.raises(KeyError, match="physics='mhd'"):
        ac.Simulation(shape=8, backend="cpu")["ax"]


def test_initial_conditions_analysis_and_time_series(tmp_path):
    n, box = 16, (2 * math.pi,) * 3
    sim = ac.Simulation(shape=(n, n, n), box=box, nu=0.02, eta=0.02, cs=1.0, dtype="float64", backend="cpu",
                        physics="mhd", b_ext=(0.0, 0.0, 0.5), mu0=2.0)
    ac.init.alfven_wave(sim, k=2, amplitude=0.05)
    b = ac.analysis.magnetic_field(sim)
    z = sim.z[None, None, :]
    assert np.max(np.abs(b[0] - 2 * 0.05 * np.sin(2 * z))) < 5e-4  # curl A = k A, to the stencil's accuracy (k dx = 0.79)
    assert np.allclose(b[2], 0.5)
    assert np.allclose(sim["ux"], -2 * sim["ax"] / math.sqrt(2.0))  # u = -dB / sqrt(mu0 rho)
    j = ac.analysis.current_density(sim)
    assert np.max(np.abs(j[0] - 2 * b[0] / 2.0)) < 5e-4  # J = curl B / mu0 = k dB / mu0
    k, E = ac.analysis.spectrum(sim, field="magnetic")
    mean_b2 = np.mean(sum(c ** 2 for c in b))
    assert E.sum() == pytest.approx(mean_b2 / (2 * 2.0), rel=1e-12)  # Parseval, over mu0
    assert E[0] == pytest.approx(0.25 / (2 * 2.0), rel=1e-12) and k[np.argmax(E[1:]) + 1] == pytest.approx(2.0)
    helicity = ac.analysis.magnetic_helicity(sim)
    assert helicity == pytest.approx(2 * 0.05 ** 2, rel=5e-3)  # <A . k A> = k a^2, k to the stencil's accuracy
    sim.run(until=0.2, timeseries=tmp_path / "ts.csv", diagnostics_every=1)
    ts = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    for column in ("brms", "bmax", "b2m", "jrms", "jmax", "abm"):
        assert column in ts.dtype.names and np.all(np.isfinite(ts[column]))
    assert ts["b2m"][-1] < ts["b2m"][0]  # resistive decay
    ac.init.beltrami_field(sim, k=1, amplitude=0.1, axis="x")
    assert np.allclose(sim["ax"], 0) and np.allclose(sim["ay"], 0.1 * np.sin(sim.x)[:, None, None])
    with pytest.raises(ValueError, match="nonzero wave number"):
        ac.init.beltrami_field(sim, k=1.5)
    hydro = ac.Simulation(shape=8, backend="cpu")
    with pytest.raises(ValueError, match="physics='mhd'"):
        ac.analysis.magnetic_field(hydro)
    with pytest.raises(ValueError, match="physics='mhd'"):
        ac.init.beltrami_field(hydro)


def test_bench_physics_mhd_rows(capsys):
    from astaroth.cli import main

    assert main(["bench", "--backend", "cpu", "--physics", "mhd", "--sizes", "8", "--dtype", "float64",
                 "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("astaroth cpu")]
    assert len(row) == 1 and "mhd" in row[0] and float(row[0].split()[-1]) > 0


GPU = pytest.mark.gpu
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


@GPU
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(37, 50, 23), (24, 20, 1), (1, 1, 33)])
def test_cuda_matches_cpu(dtype, shape):
    box = (2 * math.pi, 3.0, 1.7)
    sims = [mhd_sim(shape, box, dtype=dtype, backend=b) for b in ("cpu", "cuda")]
    rng = np.random.default_rng(4)
    assert_rhs_agree(sims, smooth_random_fields(shape, box, rng) + smooth_random_fields(shape, box, rng)[:3],
                     TOLERANCE[dtype])
    sims[1]._grid.poison_scratch()  # every interior point of every substep must be written
    assert sims[1].cfl_dt() == pytest.approx(sims[0].cfl_dt(), rel=TOLERANCE[dtype])
    dt = sims[0].cfl_dt()
    for s in sims:
        s.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3, relhel=1.0) if shape == (37, 50, 23) else None
        s.step(dt)
        s.step(dt)
    for name in sims[0].field_names:
        c, g = sims[0][name], sims[1][name]
        assert np.all(np.isfinite(g)), name
        assert np.max(np.abs(g - c)) <= TOLERANCE[dtype] * max(np.max(np.abs(c)), 1e-30) or not np.any(c), name


@GPU
def test_beltrami_and_alfven_converge_on_the_gpu():
    sizes = (32, 48, 64)
    for error in (lambda n: beltrami_error(n, k=6, backend="cuda")[0], lambda n: alfven_error(n, k=5, backend="cuda")):
        errors = [error(n) for n in sizes]
        orders = [math.log(errors[i] / errors[i + 1]) / math.log(sizes[i + 1] / sizes[i]) for i in range(2)]
        assert min(orders) >= 5.5, (errors, orders)
