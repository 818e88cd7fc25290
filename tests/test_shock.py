"""Shock viscosity (docs/guide/hyperdiffusion.md, the Pencil Code's 'nu-shock'): the profile and
the momentum term against a NumPy statement on both backends, an isothermal
Riemann problem whose error against the exact solution falls with
resolution, where the same run without shock viscosity blows up, and the
CUDA backend against the CPU (tests marked gpu)."""
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth.numpy_reference import d2dx2, d2dxdy, ddx
from helpers import assert_rhs_agree, assert_runs_agree, smooth_random_fields


def numpy_profile(u, h, shape, nu_shock):
    """zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]], written from docs/guide/hyperdiffusion.md."""
    div = sum(ddx(u[j], j, h[j]) for j in range(3))
    z = np.maximum(-div, 0.0)
    for axis in range(3):  # the 3x3x3 maximum, one axis at a time
        z = np.maximum(np.maximum(np.roll(z, 1, axis), z), np.roll(z, -1, axis))
    for axis in range(3):  # the (1, 2, 1) / 4 smoothing
        z = (np.roll(z, 1, axis) + 2 * z + np.roll(z, -1, axis)) / 4
    dxmin = min(dx for dx, n in zip(h, shape) if n > 1)
    return nu_shock * dxmin ** 2 * z


BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def compressed_flow(nu_shock, shape=(20, 14, 9), box=(2 * math.pi, 3.0, 1.7), backend="cpu"):
    sim = ac.Simulation(shape=shape, box=box, nu=0.01, cs=1.0, dtype="float64", backend=backend, nu_shock=nu_shock)
    values = smooth_random_fields(shape, box, np.random.default_rng(7), amplitude=0.3)
    for name, f in zip(ac.FIELDS, values):
        sim[name] = f
    return sim, values


@pytest.mark.parametrize("backend", BACKENDS)
def test_profile_matches_a_numpy_statement(backend):
    sim, values = compressed_flow(nu_shock=1.7, backend=backend)
    got = sim.shock_viscosity()
    want = numpy_profile(values[1:], sim.spacing, sim.shape, 1.7)
    assert want.max() > 0
    assert np.max(np.abs(got - want)) <= 1e-12 * want.max()


def _write_through_view(sim, name, values):
    """Writes a field behind the backend's back (a view), as a user may."""
    view = sim.view(name)
    if sim.backend == "cpu":
        view[...] = values
    else:
        import cupy
        cupy.asarray(view)[...] = cupy.asarray(values)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_step_takes_the_profile_its_cfl_step_computed(backend):
    """step() and run() compute the profile once a step: cfl_dt's, taken by
    the step.  Bit for bit as recomputing it; and it is cfl_dt's profile that
    the step takes, as a field changed through a view afterwards (which the
    backend cannot see, and which step() never does) shows."""
    reused, _ = compressed_flow(nu_shock=1.7, backend=backend)
    fresh, _ = compressed_flow(nu_shock=1.7, backend=backend)
    for _ in range(3):
        dt = reused.step()
        assert fresh.cfl_dt() == dt
        fresh.step(dt, force=True)  # no stability check: the step computes its own profile
    reused.run(until=reused.t + 2 * dt)
    while fresh.t < reused.t:
        dt = fresh.cfl_dt()
        fresh.step(min(dt, reused.t - fresh.t), force=True)
    assert fresh.steps == reused.steps
    for name in ac.FIELDS:
        assert np.array_equal(reused[name], fresh[name]), name

    # a field written through the backend (sim[name] = ...) is seen: the profile is computed again
    dt = reused.cfl_dt()
    still = reused["ux"] * 0.5
    reused["ux"] = still
    fresh["ux"] = still
    reused._grid.step(dt, 1, True)
    fresh.step(dt, force=True)
    for name in ac.FIELDS:
        assert np.array_equal(reused[name], fresh[name]), name

    # through a view it is not: the step takes the profile of the fields before
    reused.cfl_dt()
    _write_through_view(reused, "ux", reused["ux"] * 0.5)
    fresh["ux"] = fresh["ux"] * 0.5
    reused._grid.step(dt, 1, True)
    fresh.step(dt, force=True)
    assert not np.array_equal(reused["ux"], fresh["ux"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_momentum_term_matches_a_numpy_statement(backend):
    shocked, values = compressed_flow(nu_shock=1.7, backend=backend)
    plain, _ = compressed_flow(nu_shock=0.0, backend=backend)
    got, without = shocked.rhs(), plain.rhs()
    h, u = shocked.spacing, values[1:]
    zeta = numpy_profile(u, h, shocked.shape, 1.7)
    div = sum(ddx(u[j], j, h[j]) for j in range(3))
    for i, name in enumerate(("ux", "uy", "uz")):
        grad_div = sum(d2dx2(u[i], i, h[i]) if i == j else d2dxdy(u[j], i, j, h[i], h[j]) for j in range(3))
        term = zeta * (div * ddx(values[0], i, h[i]) + grad_div) + div * ddx(zeta, i, h[i])
        assert np.max(np.abs(term)) > 1e-3 * np.max(np.abs(without[name]))
        assert np.max(np.abs(got[name] - without[name] - term)) <= 1e-10 * np.max(np.abs(got[name]))
    # the continuity equation has no shock term; the runs take different loops
    # (the shock pass), which a compiler may vectorise differently: round-off only
    assert np.max(np.abs(got["lnrho"] - without["lnrho"])) <= 1e-14 * np.max(np.abs(without["lnrho"]))
    assert shocked._local_max_shock_viscosity() == pytest.approx(zeta.max(), rel=1e-12)


def test_zero_coefficient_changes_nothing():
    a, _ = compressed_flow(nu_shock=0.0)
    b = ac.Simulation(shape=a.shape, box=a.box, nu=a.nu, cs=a.cs, dtype="float64", backend="cpu")
    for name in ac.FIELDS:
        b[name] = a[name]
    a.run(until=0.2)
    b.run(until=0.2)
    assert a.steps == b.steps and all(np.array_equal(a[n], b[n]) for n in ac.FIELDS)
    assert a.shock_viscosity() is None


def test_cfl_step_counts_nu_plus_max_zeta():
    sim, _ = compressed_flow(nu_shock=50.0)
    zeta = sim.shock_viscosity().max()
    resolved = sum(1 / dx ** 2 for dx in sim.spacing)
    viscous = 0.3 / ((sim.nu + zeta) * resolved)
    assert viscous < 0.4 * min(sim.spacing) / 2  # the diffusive limit binds here
    assert sim.cfl_dt() == pytest.approx(viscous, rel=1e-12)


# --- the isothermal Riemann problem ----------------------------------------------

def riemann_star(rho_l, rho_r, cs=1.0):
    """The state between a left rarefaction and a right shock (both at rest
    before): u* = cs ln(rho_l / rho*) = cs (sqrt(rho* / rho_r) - sqrt(rho_r / rho*))."""
    f = lambda r: math.log(rho_l / r) - (math.sqrt(r / rho_r) - math.sqrt(rho_r / r))  # noqa: E731
    lo, hi = rho_r, rho_l
    for _ in range(100):  # bisection: f falls from + to -
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    rho = 0.5 * (lo + hi)
    return rho, cs * math.log(rho_l / rho)


def riemann_density(xi, t, rho_l=10.0, rho_r=1.0, cs=1.0):
    """The exact density at xi = x - x0 of a jump rho_l | rho_r at x0, at rest
    at t = 0: a rarefaction into the dense side, a shock into the other."""
    rho_s, u_s = riemann_star(rho_l, rho_r, cs)
    shock = rho_s * u_s / (rho_s - rho_r)  # mass conservation across the shock
    fan = rho_l * np.exp(-(xi / t + cs) / cs)  # u = xi / t + cs = cs ln(rho_l / rho)
    return np.where(xi < -cs * t, rho_l, np.where(xi < (u_s - cs) * t, fan, np.where(xi < shock * t, rho_s, rho_r)))


def riemann_error(n, nu_shock, t_end=2.0, length=20.0, backend="cpu"):
    """L1 error of the density at t_end: a 10:1 slab between x = L/4 and 3L/4
    (two jumps, periodic), waves still apart at t_end."""
    sim = ac.Simulation(shape=(n, 1, 1), box=(length, 1, 1), nu=0.0, cs=1.0, dtype="float64", backend=backend,
                        nu_shock=nu_shock)
    x = sim.x
    sim["lnrho"] = np.where((x >= length / 4) & (x < 3 * length / 4), math.log(10.0), 0.0)[:, None, None]
    sim.run(until=t_end)
    exact = np.where(x < length / 2, riemann_density(length / 4 - x, t_end), riemann_density(x - 3 * length / 4, t_end))
    return np.mean(np.abs(np.exp(sim["lnrho"][:, 0, 0]) - exact)) * length


def test_isothermal_riemann_problem_converges_with_shock_viscosity():
    errors = [riemann_error(n, nu_shock=2.0) for n in (100, 200, 400)]
    orders = [math.log2(errors[i] / errors[i + 1]) for i in range(2)]
    # measured: L1 errors 3.72, 1.92, 0.94; orders 0.96, 1.02 (first order, as a shock-capturing viscosity gives)
    assert errors[-1] < 1.0 and all(order >= 0.8 for order in orders), (errors, orders)


def test_the_same_riemann_problem_blows_up_without_it():
    with pytest.raises(ac.NonFiniteError):
        riemann_error(200, nu_shock=0.0)


def test_bad_shock_viscosity_is_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="nu_shock"):
        ac.Simulation(shape=(8, 8, 8), nu_shock=-1.0, backend="cpu")
    with pytest.raises(ValueError, match="55p"):
        ac.Simulation(shape=(8, 8, 8), nu_shock=1.0, backend="cpu", method="19p")
    pytest.importorskip("h5py")
    sim, _ = compressed_flow(nu_shock=1.5)
    sim.run(until=0.05)
    sim.save(tmp_path / "s.h5")
    back = ac.load(tmp_path / "s.h5", backend="cpu")
    assert back.nu_shock == 1.5 and np.array_equal(back.shock_viscosity(), sim.shock_viscosity())


# --- the CUDA backend -------------------------------------------------------------

GPU = pytest.mark.gpu
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


@GPU
@pytest.mark.parametrize("physics", ["hydro", "mhd"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("hyper", [0.0, 3e-5])
def test_cuda_matches_cpu(physics, dtype, hyper):
    shape, box = (37, 50, 23), (2 * math.pi, 3.0, 1.7)
    extra = dict(physics="mhd", eta=0.02, b_ext=(0.1, -0.2, 0.3)) if physics == "mhd" else {}
    sims = [ac.Simulation(shape=shape, box=box, nu=0.02, cs=0.8, dtype=dtype, backend=b, nu_shock=1.3,
                          nu_hyper3=hyper, **extra) for b in ("cpu", "cuda")]
    rng = np.random.default_rng(9)
    values = smooth_random_fields(shape, box, rng, amplitude=0.3) + smooth_random_fields(shape, box, rng)[:3]
    assert_rhs_agree(sims, values, TOLERANCE[dtype])
    zeta = [s.shock_viscosity() for s in sims]
    assert np.max(np.abs(zeta[1] - zeta[0])) <= TOLERANCE[dtype] * np.max(zeta[0])
    assert_runs_agree(sims, TOLERANCE[dtype])


@GPU
def test_riemann_problem_on_the_gpu_equals_the_cpu():
    errors = [riemann_error(200, nu_shock=2.0, backend=b) for b in ("cpu", "cuda")]
    assert errors[1] == pytest.approx(errors[0], rel=1e-9) and errors[1] < 2.0


def test_bench_terms_rows(capsys):
    from astaroth.cli import main

    assert main(["bench", "--backend", "cpu", "--terms", "--physics", "all", "--sizes", "8", "--dtype", "float64",
                 "--seconds", "0.05"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("astaroth cpu")]
    assert [(r[2], r[5]) for r in rows] == [(p, t) for p in ("hydro", "mhd")
                                            for t in ("none", "hyper3", "shock", "rotation", "rot+shear")]
    assert all(float(r[-2]) > 0 and float(r[-1]) > 0 for r in rows) and float(rows[0][-1]) == 1.0
    assert main(["bench", "--backend", "cpu", "--physics", "all"]) != 0  # all goes with --terms
    assert "--terms" in capsys.readouterr().err
