"""The CFL step of every configuration (csrc/timestep.h, summed from what
each term of csrc/terms/ declares) against an independent NumPy statement
of the limits:

    dt = min(cdt dxmin / max(|u| + sqrt(cs2 + |B|^2 / (mu0 rho))),
             cdtv / (max D sum 1/dx^2), cdtv3 / (max H sum 1/dx^6)),

cs2 = cs^2 (isothermal) or cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0))
(the ideal gas), B = curl A + b_ext by the sixth-order stencil, D the
second-order diffusivities (nu + max zeta, eta, gamma chi, pscalar_diff,
pscalar_diff2), H
the sixth-order ones (nu_hyper3, diff_hyper3, chi_hyper3), over the axes
with more than one point.  Agreement to 1e-12 relative: the C sums and the
NumPy ones round differently.
"""
import math

import numpy as np
import pytest

import astaroth as ac

from helpers import smooth_random_fields

SHAPE, BOX = (12, 10, 8), (2 * math.pi, 1.7 * math.pi, 1.3 * math.pi)

CONFIGURATIONS = {
    "hydro": dict(nu=3e-3, cs=0.7),
    "hydro_19p": dict(nu=3e-2, cs=1.3, method="19p"),
    "hyper3": dict(nu=1e-3, nu_hyper3=2e-3, diff_hyper3=5e-3),
    "shock": dict(nu=1e-3, nu_shock=8.0),
    "mhd": dict(physics="mhd", nu=1e-3, eta=4e-3, mu0=1.3, b_ext=(0.2, -0.1, 0.3)),
    "mhd_diffusive": dict(physics="mhd", nu=1e-3, eta=0.5, b_ext=(0.0, 0.0, 0.1)),
    "entropy": dict(energy="entropy", nu=1e-3, chi=2e-3, gamma=1.4, cp=1.3, rho0=0.8, cs=0.9),
    "entropy_hyper": dict(energy="entropy", nu=1e-3, chi_hyper3=6e-3),
    "mhd_entropy": dict(physics="mhd", energy="entropy", eta=2e-3, chi=0.4, b_ext=(0.0, 0.3, 0.0)),
    "scalar": dict(passive_scalar=True, nu=1e-3, pscalar_diff=0.5),
    "scalars": dict(passive_scalar=2, physics="mhd", nu=1e-3, pscalar_diff=0.2, pscalar_diff2=0.6),
    "walls_gravity": dict(nu=1e-3, gravity=(0.0, 0.0, -1.0),
                          boundaries={"z": {"lnrho": "a2", "ux": "s", "uy": "s", "uz": "a"}}),
}


def numpy_cfl_dt(sim, cdt=0.4, cdtv=0.3):
    """The CFL step of `sim`'s fields now, written out in NumPy, and which
    limit sets it (0 advective, 1 diffusive, 2 hyperdiffusive)."""
    v = {name: sim[name].astype(np.float64) for name in sim.field_names}
    h = [dx for dx, n in zip(sim.spacing, sim.shape) if n > 1]
    wave2 = np.full(sim.shape, sim.cs ** 2)
    if "ss" in v:
        cv1, gm1 = sim.gamma / sim.cp, sim.gamma - 1
        wave2 = sim.cs ** 2 * np.exp(cv1 * v["ss"] + gm1 * (v["lnrho"] - math.log(sim.rho0)))
    if "ax" in v:
        b = [c + e for c, e in zip(ac.ops.curl([v["ax"], v["ay"], v["az"]], sim.spacing), sim.b_ext)]
        wave2 = wave2 + (b[0] ** 2 + b[1] ** 2 + b[2] ** 2) / (sim.mu0 * np.exp(v["lnrho"]))
    speed = np.max(np.sqrt(v["ux"] ** 2 + v["uy"] ** 2 + v["uz"] ** 2) + np.sqrt(wave2))
    zeta = sim.shock_viscosity()
    second = [sim.nu + (float(zeta.max()) if zeta is not None else 0.0)]
    second += [sim.eta] if "ax" in v else []
    second += [sim.gamma * sim.chi] if "ss" in v else []
    second += [sim.pscalar_diff] if "cc" in v else []
    second += [sim.pscalar_diff2] if "cc2" in v else []
    sixth = [sim.nu_hyper3, sim.diff_hyper3] + ([sim.chi_hyper3] if "ss" in v else [])
    limits = [cdt * min(h) / speed, math.inf, math.inf]
    if max(second) > 0:
        limits[1] = cdtv / (max(second) * sum(dx ** -2 for dx in h))
    if max(sixth) > 0:
        limits[2] = 0.03 / (max(sixth) * sum(dx ** -6 for dx in h))
    return min(limits), int(np.argmin(limits))


BINDING = {}  # configuration -> the limit that binds at cdt = 0.4, cdtv = 0.3


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_cfl_step_of_every_configuration_equals_its_numpy_statement(name, backend):
    if backend not in ac.backends():
        pytest.skip(f"no {backend} backend here")
    kw = dict(CONFIGURATIONS[name])
    sim = ac.Simulation(shape=SHAPE, box=BOX, dtype="float64", backend=backend, **kw)
    rng = np.random.default_rng(5)
    values = smooth_random_fields(sim.shape, sim.box, rng, amplitude=0.3)
    for i, field in enumerate(sim.field_names):
        sim[field] = values[i % len(values)] * (0.2 if field == "ss" else 1.0)
    if sim.boundaries:
        sim.step(1e-4)  # the wall values as the step leaves them
    dt, BINDING[name] = numpy_cfl_dt(sim)
    assert sim.cfl_dt() == pytest.approx(dt, rel=1e-12)
    assert sim.cfl_dt(cdt=0.1, cdtv=0.05) == pytest.approx(numpy_cfl_dt(sim, 0.1, 0.05)[0], rel=1e-12)


def test_the_configurations_above_exercise_every_limit():
    if len(BINDING) < len(CONFIGURATIONS):
        pytest.skip("needs the CPU cases of test_cfl_step_of_every_configuration_equals_its_numpy_statement")
    assert set(BINDING.values()) == {0, 1, 2}, BINDING
    assert {BINDING[n] for n in ("hyper3", "entropy_hyper")} == {2} and BINDING["shock"] == 1


def test_each_limit_of_the_step_is_named_by_what_sets_it():
    """Which limit binds comes from the terms: the sound speed, a diffusivity
    (with its field), the hyperdiffusivity."""
    dx = 2 * math.pi / 16
    sim = ac.Simulation(shape=(16, 16, 16), nu=1e-3, cs=1.0)
    assert sim._grid.cfl_dt(1.0, 0.0, 0.4, 0.3) == (pytest.approx(0.4 * dx), "advective")
    viscous = ac.Simulation(shape=(16, 16, 16), nu=10.0)
    dt, limit = viscous._grid.cfl_dt(1.0, 0.0, 0.4, 0.3)
    assert limit == "diffusive" and dt == pytest.approx(0.3 * dx ** 2 / (3 * 10.0), rel=1e-14)
    assert viscous._grid.time_step_rates()[3] == ("ux", "nu")
    mhd = ac.Simulation(shape=(16, 16, 16), physics="mhd", nu=1e-3, eta=0.7)
    assert mhd._grid.time_step_rates()[3] == ("ax", "eta")
    hyper = ac.Simulation(shape=(16, 16, 16), nu=1e-3, diff_hyper3=1.0)
    assert hyper._grid.cfl_dt(1.0, 0.0, 0.4, 0.3)[1] == "hyper"
    assert hyper._grid.time_step_rates()[4] == ("lnrho", "diff_hyper3")
    at_rest = ac.Simulation(shape=(8, 8, 8), nu=0.0, cs=0.0)
    assert at_rest._grid.cfl_dt(0.0, 0.0, 0.4, 0.3) == (math.inf, None)
    with pytest.raises(ValueError, match="no time-step limit"):
        at_rest.cfl_dt()
