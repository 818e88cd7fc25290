"""tests/entropy_reference.py against today's astaroth: its isothermal
variant (no ss field, fpres = -cs^2 grad lnrho) must give sim.rhs() of the
CPU backend to 1e-12 (float64, relative to each field's largest value) on a
non-cubic grid with anisotropic spacing, hydro (with hyper3 and shock
viscosity) and MHD.  This validates the reference's stencils, viscous,
Lorentz and induction terms before it is used for the entropy tests; its own
entropy terms are checked for consistency (a uniform-entropy state gives the
isothermal pressure force scaled as the polytrope says)."""
import math

import numpy as np
import pytest

import astaroth as ac
import entropy_reference as ref
from helpers import smooth_random_fields

SHAPE = (20, 14, 11)
BOX = (2 * np.pi, 3.0, 1.7)


def _fields(names, seed):
    rng = np.random.default_rng(seed)
    values = smooth_random_fields(SHAPE, BOX, rng, amplitude=0.3) + smooth_random_fields(SHAPE, BOX, rng)
    return dict(zip(names, values))


def _compare(sim, fields, params, tolerance=1e-12):
    for name, f in fields.items():
        sim[name] = f
    got = sim.rhs()
    want = ref.rhs(fields, dict(params, spacing=sim.spacing))
    assert set(got) == set(want)
    for name in want:
        scale = np.max(np.abs(want[name]))
        assert scale > 1e-3, f"{name}: test fields too trivial"
        err = np.max(np.abs(got[name] - want[name])) / scale
        assert err < tolerance, (name, err)


@pytest.mark.parametrize("extra", [{}, dict(nu_hyper3=2e-5, diff_hyper3=1e-5), dict(nu_shock=1.3)],
                         ids=["plain", "hyper3", "shock"])
def test_isothermal_hydro_reference_matches_astaroth(extra):
    params = dict(nu=0.03, cs=0.8, **extra)
    sim = ac.Simulation(shape=SHAPE, box=BOX, dtype="float64", backend="cpu", **params)
    _compare(sim, _fields(ref.field_names(mhd=False, entropy=False), 3), params)


def test_isothermal_mhd_reference_matches_astaroth():
    params = dict(nu=0.03, cs=0.8, eta=0.02, mu0=1.3, b_ext=(0.1, -0.2, 0.3))
    sim = ac.Simulation(shape=SHAPE, box=BOX, dtype="float64", backend="cpu", physics="mhd", **params)
    _compare(sim, _fields(ref.field_names(mhd=True, entropy=False), 4), params)


def test_entropy_terms_are_consistent():
    """Internal checks of the entropy variant (no astaroth needed):
    at ss = 0 and rho = rho0 the pressure force is the isothermal one with
    cs^2 (cs2 = cs^2 there and grad ss = 0 gives gamma grad lnrho / gamma);
    with u = 0 and chi = 0 nothing but the pressure force acts; the EOS
    inverts (entropy_of)."""
    h = tuple(L / n for L, n in zip(BOX, SHAPE))
    x = np.arange(SHAPE[0])[:, None, None] * h[0] + np.zeros(SHAPE)
    eps = 1e-7
    lnrho = eps * np.sin(x)
    zero = np.zeros(SHAPE)
    fields = dict(lnrho=lnrho, ux=zero, uy=zero, uz=zero, ss=zero)
    p = dict(cs=0.8, gamma=1.4, cp=2.0, rho0=1.0, spacing=h)
    r = ref.rhs(fields, p)
    # linear: du/dt = -cs^2 (1 + (gamma-1)) glnrho / gamma = -cs^2 glnrho
    want = -0.8 ** 2 * ref.d1(lnrho, 0, h)
    assert np.max(np.abs(r["ux"] - want)) < 1e-6 * np.max(np.abs(want))
    assert np.max(np.abs(r["ss"])) == 0 and np.max(np.abs(r["lnrho"])) == 0
    rho, pp = np.array([1.0, 0.125]), np.array([1.0, 0.1])
    ss = ref.entropy_of(rho, pp, p)
    assert np.allclose(ref.pressure(np.log(rho), ss, p), pp, rtol=1e-14)
    # T = cs2 / (cp (gamma - 1)) and p = rho (cp - cv) T
    T = ref.temperature(np.log(rho), ss, p)
    assert np.allclose(pp, rho * (2.0 - 2.0 / 1.4) * T, rtol=1e-14)


def test_riemann_solver_reproduces_toro():
    """astaroth/riemann.py against Toro (2009), Table 4.2: tests 1 (Sod), 2 (123) and 3."""
    from astaroth import riemann
    for left, right, p_star, u_star in [(riemann.SOD_LEFT, riemann.SOD_RIGHT, 0.30313, 0.92745),
                                        ((1.0, -2.0, 0.4), (1.0, 2.0, 0.4), 0.00189, 0.0),
                                        ((1.0, 0.0, 1000.0), (1.0, 0.0, 0.01), 460.894, 19.5975)]:
        p, u = riemann.star_state(left, right)
        assert abs(p - p_star) < 1e-5 * max(1.0, p_star) and abs(u - u_star) < 1e-5 * max(1.0, u_star)
    rho, u, p = riemann.solution(np.array([-0.5, 0.0, 0.3, 0.5]), 0.25)
    assert np.allclose(rho, [1.0, 0.42632, 0.26557, 0.125], atol=1e-5)
    # mass, momentum and energy between two points outside the waves are conserved
    x = np.linspace(-1, 1, 200001)
    rho, u, p = riemann.solution(x, 0.25)
    dx = x[1] - x[0]
    mass = np.sum(rho) * dx
    assert abs(mass - (1.0 + 0.125)) < 1e-4
    energy = np.sum(p / 0.4 + rho * u ** 2 / 2) * dx
    assert abs(energy - (1.0 / 0.4 + 0.1 / 0.4)) < 1e-4


def test_thermo_functions_agree_with_the_reference():
    """astaroth/thermo.py evaluates the solver's equation of state (csrc/eos/); the reference writes it out."""
    from astaroth import thermo
    rng = np.random.default_rng(1)
    fields = dict(lnrho=rng.uniform(-1, 1, (5, 4, 3)), ss=rng.uniform(-1, 1, (5, 4, 3)))
    p = dict(gamma=1.4, cp=2.5, rho0=0.7, cs=1.3)
    sim = ac.Simulation(shape=(5, 4, 3), energy="entropy", backend="cpu", **p)
    for name, value in fields.items():
        sim[name] = value
    T = thermo.temperature(sim)
    assert np.allclose(T, ref.temperature(fields["lnrho"], fields["ss"], p), rtol=1e-14)
    pp = thermo.pressure(sim)
    assert np.allclose(pp, ref.pressure(fields["lnrho"], fields["ss"], p), rtol=1e-14)
    assert np.allclose(thermo.sound_speed_squared(sim), 1.4 * pp / np.exp(fields["lnrho"]), rtol=1e-14)
    # at rho0 and ss = 0 the sound speed is cs
    sim["lnrho"], sim["ss"] = np.full((5, 4, 3), math.log(0.7)), np.zeros((5, 4, 3))
    assert np.allclose(thermo.sound_speed_squared(sim), 1.3 ** 2, rtol=1e-14)
    with pytest.raises(ValueError, match="gamma"):
        ac.Simulation(shape=(5, 4, 3), energy="entropy", **dict(p, gamma=1.0))


def test_thermo_functions_on_an_isothermal_simulation():
    from astaroth import thermo
    sim = ac.Simulation(shape=(6, 5, 4), cs=0.7, backend="cpu")
    sim["lnrho"] = np.full((6, 5, 4), 0.3)
    assert np.allclose(thermo.pressure(sim), math.exp(0.3) * 0.49, rtol=1e-14)
    with pytest.raises(ValueError, match="energy"):
        thermo.temperature(sim)


def _energy_rate(n, seed=2):
    """d/dt <rho u^2/2 + rho cv T + B^2/(2 mu0)> from the reference's right-hand
    side, relative to the dissipation <2 nu rho S:S + eta mu0 J^2>, on an
    n^3 periodic MHD box with nu, eta, chi and smooth random fields."""
    shape, box = (n, n, n), (2 * np.pi, 2 * np.pi, 4.0)
    h = tuple(L / m for L, m in zip(box, shape))
    p = dict(nu=0.05, eta=0.04, chi=0.03, mu0=1.2, cs=1.0, gamma=5 / 3, cp=1.5, rho0=0.8, b_ext=(0.1, 0.0, -0.2),
             spacing=h)
    values = smooth_random_fields(shape, box, np.random.default_rng(seed), amplitude=0.2, modes=3) + \
        smooth_random_fields(shape, box, np.random.default_rng(seed + 1), amplitude=0.2, modes=3)
    f = dict(zip(ref.field_names(mhd=True, entropy=True), values))
    r = ref.rhs(f, p)
    rho = np.exp(f["lnrho"])
    u = [f["ux"], f["uy"], f["uz"]]
    du = [r["ux"], r["uy"], r["uz"]]
    T = ref.temperature(f["lnrho"], f["ss"], p)
    cv1 = p["gamma"] / p["cp"]
    dlnTT = (p["gamma"] - 1) * r["lnrho"] + cv1 * r["ss"]
    curl = lambda a: [ref.d1(a[2], 1, h) - ref.d1(a[1], 2, h), ref.d1(a[0], 2, h) - ref.d1(a[2], 0, h),
                      ref.d1(a[1], 0, h) - ref.d1(a[0], 1, h)]
    a = [f["ax"], f["ay"], f["az"]]
    B = [c + b for c, b in zip(curl(a), p["b_ext"])]
    dB = curl([r["ax"], r["ay"], r["az"]])
    rate = np.mean(rho * ref.dot(u, du) + ref.dot(u, u) / 2 * rho * r["lnrho"]
                   + rho * T / cv1 * (r["lnrho"] + dlnTT) + ref.dot(B, dB) / p["mu0"])
    gu = [[ref.d1(u[i], j, h) for j in range(3)] for i in range(3)]
    div = gu[0][0] + gu[1][1] + gu[2][2]
    S2 = sum((0.5 * (gu[i][j] + gu[j][i]) - (div / 3 if i == j else 0)) ** 2 for i in range(3) for j in range(3))
    J = [c / p["mu0"] for c in curl(B)]
    dissipation = np.mean(2 * p["nu"] * rho * S2 + p["eta"] * p["mu0"] * ref.dot(J, J))
    return abs(rate) / dissipation


def test_reference_heating_conserves_total_energy():
    """The entropy terms of the reference against each other: viscous and
    Ohmic heating return what the viscous force and resistivity take, the
    pressure work and conduction move energy about, so the total energy's
    rate of change computed from the right-hand side is truncation error
    relative to the dissipation (measured: 8.5e-3 at 16^3, 1.8e-4 at
    32^3, order 5.5); a factor wrong in any heating term would leave O(1)."""
    coarse, fine = _energy_rate(16), _energy_rate(32)
    assert fine < 1e-3 and math.log2(coarse / fine) > 4.5, (coarse, fine)


def test_convection_linear_solver_finds_the_boussinesq_onset():
    """astaroth.stability in the Boussinesq limit (a thin, nearly
    adiabatic layer): critical Rayleigh number 27 pi^4 / 4 at k d = pi / sqrt(2)
    for stress-free walls at fixed temperature (measured: 657.511 at 24 and
    32 Chebyshev points), and a conductive layer in equilibrium."""
    from astaroth import stability as cl

    ra, layer = cl.boussinesq_critical_rayleigh(n=24)
    assert abs(ra / (27 * math.pi ** 4 / 4) - 1) < 1e-3, ra
    gas = cl.Gas()
    layer = cl.Layer(gas, -1.0, 0.005, 0.005, 0.0, 1.0,
                     lambda z: cl.conductive_layer(z, gas, -1.0, 0.005, 0.0065, 0.0, 4.0, 1.0), n=24)
    assert layer.thermal_drift_rate() < 1e-9 and layer.hydrostatic_residual < 1e-9
    assert abs(layer.growth_rate(4.0) - 0.1851527) < 1e-6  # the same at 24 to 64 points
