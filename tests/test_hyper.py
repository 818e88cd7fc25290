"""Hyperdiffusion (docs/guide/hyperdiffusion.md): an independent NumPy statement of the terms
(both backends), the decay rate of a sine wave against the discrete and the
continuous operator, nothing changed when the coefficients are 0, and the
CUDA backend against the CPU (tests marked gpu)."""
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth.numpy_reference import time_derivatives
from helpers import assert_rhs_agree, assert_runs_agree, smooth_random_fields


def del6(f, h):
    """Sum over the axes of the 7-point sixth derivative (f3 - 6 f2 + 15 f1 - 20 f0 + ...) / dx^6."""
    total = 0
    for axis in range(3):
        r = lambda s: np.roll(f, -s, axis=axis)  # f at i + s
        total = total + (r(3) + r(-3) - 6 * (r(2) + r(-2)) + 15 * (r(1) + r(-1)) - 20 * f) / h[axis] ** 6
    return total


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_rhs_matches_a_numpy_statement_on_an_anisotropic_grid(backend):
    shape, box = (20, 14, 9), (2 * math.pi, 3.0, 1.7)
    sim = ac.Simulation(shape=shape, box=box, nu=0.02, cs=0.8, dtype="float64", backend=backend,
                        nu_hyper3=3e-5, diff_hyper3=2e-5)
    values = smooth_random_fields(shape, box, np.random.default_rng(8))
    for name, f in zip(ac.FIELDS, values):
        sim[name] = f
    got = sim.rhs()
    dlnrho, du = time_derivatives(values[0], values[1:], sim.spacing, sim.nu, sim.cs)
    want = [dlnrho + 2e-5 * del6(values[0], sim.spacing)] + [du[i] + 3e-5 * del6(values[1 + i], sim.spacing)
                                                             for i in range(3)]
    for name, w in zip(ac.FIELDS, want):
        assert np.max(np.abs(got[name] - w)) <= 1e-10 * np.max(np.abs(w)), name
    plain = ac.Simulation(shape=shape, box=box, nu=0.02, cs=0.8, dtype="float64", backend=backend)
    for name, f in zip(ac.FIELDS, values):
        plain[name] = f
    assert np.max(np.abs(plain.rhs()["ux"] - got["ux"])) > 1e-3 * np.max(np.abs(got["ux"]))  # the terms are there


def decay_rate(n, k=3, nu3=1e-4, t_end=0.5, dt=1e-3):
    """The measured decay rate of u_y = a sin(kx) under nu_hyper3 alone."""
    sim = ac.Simulation(shape=(n, 1, 1), box=(2 * math.pi,) * 3, nu=0.0, cs=1.0, dtype="float64", backend="cpu",
                        nu_hyper3=nu3)
    profile = np.sin(k * sim.x)[:, None, None]
    sim["uy"] = 1e-3 * profile
    dt = min(dt, sim.cfl_dt())  # the hyperdiffusive limit at the finer grids
    while sim.t < t_end - 1e-12:
        sim.step(min(dt, t_end - sim.t))
    amplitude = np.sum(sim["uy"] * profile) / np.sum(profile * profile)
    return -math.log(amplitude / 1e-3) / sim.t, sim


def test_sine_wave_decays_at_the_discrete_rate_converging_at_second_order():
    k, nu3 = 3, 1e-4
    sizes = (24, 32, 48, 64)  # measured orders 1.89, 1.95, 1.97 (16 -> 24: 1.78)
    rates = [decay_rate(n, k, nu3)[0] for n in sizes]
    for n, rate in zip(sizes, rates):
        h = 2 * math.pi / n
        discrete = nu3 * (2 - 2 * math.cos(k * h)) ** 3 / h ** 6
        assert rate == pytest.approx(discrete, rel=1e-6)  # RK3's own error only
    errors = [abs(rate - nu3 * k ** 6) / (nu3 * k ** 6) for rate in rates]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(sizes[i + 1] / sizes[i]) for i in range(3)]
    assert min(orders) >= 1.8, (errors, orders)  # the 7-point stencil is second-order accurate
    _, sim = decay_rate(16, k, nu3, t_end=0.1)
    assert np.max(np.abs(sim["ux"])) == 0 and np.max(np.abs(sim["lnrho"])) == 0


def test_zero_coefficients_change_nothing():
    shape, box = (12, 10, 8), (2 * math.pi, 3.0, 1.7)
    values = smooth_random_fields(shape, box, np.random.default_rng(9))
    runs = []
    for kw in ({}, {"nu_hyper3": 0.0, "diff_hyper3": 0.0}, {"nu_hyper3": 1e-9}):
        sim = ac.Simulation(shape=shape, box=box, nu=0.02, cs=0.8, dtype="float64", backend="cpu", **kw)
        for name, f in zip(ac.FIELDS, values):
            sim[name] = f
        sim.step(1e-3)
        sim.step(1e-3)
        runs.append(sim)
    for name in ac.FIELDS:
        assert np.array_equal(runs[0][name], runs[1][name]), name
    assert not np.array_equal(runs[0]["ux"], runs[2]["ux"])


def test_cfl_step_has_the_hyperdiffusive_limit_and_parameters_are_checked(tmp_path):
    n = 32
    sim = ac.Simulation(shape=(n, n, n), nu=0.0, cs=1e-6, dtype="float64", backend="cpu", nu_hyper3=1e-3)
    dx = 2 * math.pi / n
    assert sim.cfl_dt() == pytest.approx(0.03 / (1e-3 * 3 / dx ** 6), rel=1e-12)
    # the CFL step keeps grid-scale noise stable (at cdtv3 = 0.1, docs/guide/hyperdiffusion.md's value, it grows like 1e30 in 200 steps)
    sim["ux"] = 1e-3 * np.random.default_rng(1).standard_normal(sim.shape)
    for _ in range(200):
        sim.step()
    assert np.max(np.abs(sim["ux"])) < 1e-3
    bound = (2.51 / 64) * sim.cfl_dt() / 0.03  # the dt of RK3's bound on the hyperdiffusion number
    with pytest.raises(ac.UnstableStepError, match="hyperdiffusion number"):
        sim.step(1.05 * bound)
    sim.step(0.95 * bound)  # taken
    with pytest.raises(ValueError, match="nu_hyper3"):
        ac.Simulation(shape=8, nu_hyper3=-1.0)
    with pytest.raises(ValueError, match="55p"):
        ac.Simulation(shape=8, diff_hyper3=1e-6, method="19p", backend="cpu")
    pytest.importorskip("h5py")
    sim.save(tmp_path / "h.h5")
    assert ac.load(tmp_path / "h.h5").nu_hyper3 == 1e-3


GPU = pytest.mark.gpu
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


@GPU
@pytest.mark.parametrize("physics", ["hydro", "mhd"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(37, 50, 23), (24, 20, 1)])
def test_cuda_matches_cpu(physics, dtype, shape):
    box = (2 * math.pi, 3.0, 1.7)
    extra = dict(physics="mhd", eta=0.02, b_ext=(0.1, -0.2, 0.3)) if physics == "mhd" else {}
    sims = [ac.Simulation(shape=shape, box=box, nu=0.02, cs=0.8, dtype=dtype, backend=b, nu_hyper3=3e-5,
                          diff_hyper3=2e-5, **extra) for b in ("cpu", "cuda")]
    rng = np.random.default_rng(9)
    assert_rhs_agree(sims, smooth_random_fields(shape, box, rng) + smooth_random_fields(shape, box, rng)[:3],
                     TOLERANCE[dtype])
    assert_runs_agree(sims, TOLERANCE[dtype])


@GPU
def test_device_loop_with_hyperdiffusion_equals_the_host_loop():
    def make():
        sim = ac.Simulation(shape=(32, 24, 16), nu=0.0, cs=1.0, dtype="float64", backend="cuda", nu_hyper3=1e-4)
        for name, f in zip(ac.FIELDS, smooth_random_fields(sim.shape, sim.box, np.random.default_rng(2))):
            sim[name] = f
        return sim

    host, device = make(), make()
    host._device_cfl = False
    for s in (host, device):
        s.run(until=0.3)
    assert (host.t, host.steps) == (device.t, device.steps)
    assert all(np.array_equal(host[n], device[n]) for n in ac.FIELDS)

