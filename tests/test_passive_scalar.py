"""The passive scalar cc (module pscalar): dcc/dt = -u . grad cc + kappa lap cc.

Advection-diffusion of sin(k x) in a uniform flow against the exact
solution sin(k (x - U t)) exp(-kappa k^2 t), its convergence order, an
independent NumPy statement of the right-hand side on an anisotropic grid,
and CUDA against the CPU.
"""
import math

import numpy as np
import pytest

import astaroth as ac

K, U, KAPPA, T_END = 3, 0.5, 0.02, 1.0


def advection_error(n, backend="cpu", dtype="float64"):
    sim = ac.Simulation(shape=(n, 1, 1), box=(2 * math.pi, 1.0, 1.0), nu=0.0, cs=1.0, dtype=dtype,
                        backend=backend, passive_scalar=True, pscalar_diff=KAPPA)
    sim["ux"] = np.full(sim.shape, U)
    sim["cc"] = np.sin(K * sim.x)[:, None, None]
    sim.run(until=T_END, cdt=0.05)
    exact = np.sin(K * (sim.x - U * T_END)) * math.exp(-KAPPA * K * K * T_END)
    return math.sqrt(np.mean((sim["cc"][:, 0, 0] - exact) ** 2))


def test_advection_diffusion_converges_at_sixth_order():
    sizes = [32, 64, 128]
    errors = [advection_error(n) for n in sizes]
    orders = [math.log2(e0 / e1) for e0, e1 in zip(errors, errors[1:])]
    print(f"errors {errors}, orders {orders}")
    assert all(order >= 5.5 for order in orders), (errors, orders)
    assert errors[-1] < 1e-6


def _d1(f, axis, h):
    """Sixth-order first derivative, eq. (6) of Pekkila et al. (2017), periodic."""
    r = lambda s: np.roll(f, -s, axis=axis)  # f(x + s h)
    return (45 * (r(1) - r(-1)) - 9 * (r(2) - r(-2)) + (r(3) - r(-3))) / (60 * h)


def _d2(f, axis, h):
    r = lambda s: np.roll(f, -s, axis=axis)
    return (-490 * f + 270 * (r(1) + r(-1)) - 27 * (r(2) + r(-2)) + 2 * (r(3) + r(-3))) / (180 * h * h)


def _state(sim, seed=3):
    rng = np.random.default_rng(seed)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    k = [2 * np.pi / L for L in sim.box]
    for name in sim.field_names:
        a, b, c = rng.integers(1, 3, size=3)
        sim[name] = 0.1 * rng.uniform(0.5, 1) * np.sin(a * k[0] * x + b * k[1] * y + c * k[2] * z + rng.uniform(0, 6))


@pytest.mark.parametrize("physics", ["hydro", "mhd"])
def test_rhs_against_numpy(physics):
    extra = dict(eta=0.01) if physics == "mhd" else {}
    sim = ac.Simulation(shape=(20, 16, 12), box=(2 * np.pi, 1.5 * np.pi, 1.2 * np.pi), nu=0.01, backend="cpu",
                        physics=physics, passive_scalar=True, pscalar_diff=0.03, **extra)
    assert sim.field_names[-1] == "cc"
    _state(sim)
    cc, u = sim["cc"], [sim["ux"], sim["uy"], sim["uz"]]
    h = sim.spacing
    expected = -sum(u[a] * _d1(cc, a, h[a]) for a in range(3)) + 0.03 * sum(_d2(cc, a, h[a]) for a in range(3))
    got = sim.rhs()["cc"]
    assert np.max(np.abs(got - expected)) < 1e-12 * max(1.0, np.max(np.abs(expected)))


def test_scalar_is_passive():
    """The flow does not see cc: the other fields' right-hand sides are those without it (to
    round-off: with cc the CPU takes the generic physics_rhs path, without it the tuned hydro loop)."""
    a = ac.Simulation(shape=(16, 12, 10), backend="cpu", nu=0.01, passive_scalar=True, pscalar_diff=0.01)
    b = ac.Simulation(shape=(16, 12, 10), backend="cpu", nu=0.01)
    _state(a)
    for name in b.field_names:
        b[name] = a[name]
    ra, rb = a.rhs(), b.rhs()
    for name in b.field_names:
        assert np.max(np.abs(ra[name] - rb[name])) <= 1e-13 * np.max(np.abs(rb[name])), name


def test_bad_scalar_parameters():
    with pytest.raises(ValueError, match="pscalar_diff"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", passive_scalar=True, pscalar_diff=-1.0)
    with pytest.raises(ValueError, match="pscalar_diff"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", pscalar_diff=0.1)  # without the scalar


def test_save_load_and_ensemble(tmp_path):
    pytest.importorskip("h5py")
    sim = ac.Simulation(shape=(16, 12, 10), backend="cpu", nu=0.01, passive_scalar=True, pscalar_diff=0.02)
    _state(sim)
    sim.step(0.01)
    sim.save(tmp_path / "s.h5")
    again = ac.load(tmp_path / "s.h5", backend="cpu")
    assert again.field_names == sim.field_names and again.pscalar_diff == 0.02
    sim.step(0.01)
    again.step(0.01)
    assert np.array_equal(sim["cc"], again["cc"])
    members = []
    for kappa in (0.01, 0.02):
        m = ac.Simulation(shape=(16, 12, 10), backend="cpu", nu=0.01, passive_scalar=True, pscalar_diff=kappa)
        _state(m)
        members.append(m)
    alone = ac.Simulation(shape=(16, 12, 10), backend="cpu", nu=0.01, passive_scalar=True, pscalar_diff=0.02)
    _state(alone)
    ac.Ensemble(members).run(until=0.03)
    alone.run(until=0.03)
    assert np.array_equal(members[1]["cc"], alone["cc"])


@pytest.mark.gpu
@pytest.mark.parametrize("physics", ["hydro", "mhd"])
def test_cuda_equals_cpu(physics):
    extra = dict(eta=0.01) if physics == "mhd" else {}
    sims = [ac.Simulation(shape=(24, 20, 16), box=(2 * np.pi, 1.5 * np.pi, 1.2 * np.pi), nu=0.01, backend=b,
                          physics=physics, passive_scalar=True, pscalar_diff=0.03, **extra) for b in ("cpu", "cuda")]
    for sim in sims:
        _state(sim)
        for _ in range(3):
            sim.step(0.01)
    for name in sims[0].field_names:
        assert np.max(np.abs(sims[0][name] - sims[1][name])) < 1e-12, name
