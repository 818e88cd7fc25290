"""Every parameter of astaroth.parameters() reaches every path that runs it.

Each parameter is moved off its default in every configuration that has its
module (hydro with the 55- and 19-point methods, MHD, the entropy module,
MHD with entropy, one and two passive scalars, walls) and run on every path
(Simulation.step, Simulation.run, an Ensemble): either the fields end
different from the same run at the default, or the simulation is refused
with an error that names the parameter.  A parameter that some loop ignored
(a path building its coefficients without it) would end with the same
fields and fail here.  OFF_DEFAULT must name every parameter, so a new one
is tested as soon as it is a row of csrc/parameters.def.
"""
import numpy as np
import pytest

import astaroth as ac

from helpers import smooth_random_fields

OFF_DEFAULT = {
    "nu": 0.02, "cs": 1.3, "eta": 0.02, "mu0": 1.7, "b_ext": (0.1, -0.2, 0.3), "nu_hyper3": 1e-4,
    "diff_hyper3": 1e-4, "nu_shock": 1.0, "gravity": (0.05, 0.0, -0.3), "gamma": 1.4, "cp": 1.3, "rho0": 1.4,
    "chi": 0.02, "chi_hyper3": 1e-4, "pscalar_diff": 0.05, "pscalar_diff2": 0.07, "omega": (0.3, -0.2, 1.1),
    "shear": -0.4, "x0_shear": 0.7,
}
# parameters that change nothing alone, with what makes them count (in the run at the default too)
COMPANIONS = {"x0_shear": {"shear": -0.4}}

WALLS = {"z": {"lnrho": "a2", "ux": "s", "uy": "s", "uz": "a", "ax": "a", "ay": "a", "az": "s", "ss": "a2"}}
CONFIGURATIONS = {
    "hydro": dict(), "hydro_19p": dict(method="19p"), "mhd": dict(physics="mhd"), "entropy": dict(energy="entropy"),
    "mhd_entropy": dict(physics="mhd", energy="entropy"), "scalar": dict(passive_scalar=True),
    "scalars": dict(passive_scalar=2, physics="mhd"), "walls": dict(physics="mhd", energy="entropy"),
}
MODULE_SWITCH = {"hydro": None, "magnetic": ("physics", "mhd"), "entropy": ("energy", "entropy"),
                 "pscalar": ("passive_scalar", 1), "pscalar2": ("passive_scalar", 2)}
PATHS = ("step", "run", "ensemble")
# what is refused, by design: the terms beyond plain hydrodynamics with the
# 19-point method, shock viscosity between walls
REFUSED = {("hydro_19p", "nu_hyper3"), ("hydro_19p", "diff_hyper3"), ("hydro_19p", "nu_shock"),
           ("hydro_19p", "gravity"), ("hydro_19p", "omega"), ("walls", "nu_shock"), ("hydro_19p", "shear"),
           ("hydro_19p", "x0_shear")}
# ... and on the GPU the configurations the build holds no kernel for (csrc/cuda/instances.def): the rotation
# without the shear with passive scalars, two passive scalars with a kernel term
REFUSED_ON_THE_GPU = (REFUSED | {("scalar", "omega")} | {("scalars", n) for n in ("omega", "shear", "x0_shear")} |
                      {("scalars", name) for name in ("nu_hyper3", "diff_hyper3", "nu_shock")})
SHAPE, BOX, DT = (10, 8, 9), (2 * np.pi, 1.7 * np.pi, 1.3 * np.pi), 2e-3


def test_the_table_of_off_default_values_names_every_parameter():
    assert set(OFF_DEFAULT) == {r["name"] for r in ac.parameters()}


def applies(configuration, row):
    switch = MODULE_SWITCH[row["module"]]
    if switch is None:
        return True
    value = CONFIGURATIONS[configuration].get(switch[0])
    return value is not None and (value >= switch[1] if switch[0] == "passive_scalar" else value == switch[1])


CASES = [(c, r["name"]) for c in CONFIGURATIONS for r in ac.parameters() if applies(c, r)]


def make(configuration, backend, **parameters):
    kw = dict(CONFIGURATIONS[configuration])
    if configuration == "walls":
        kw["boundaries"] = WALLS
    sim = ac.Simulation(shape=SHAPE, box=BOX, dtype="float64", backend=backend, **kw, **parameters)
    values = smooth_random_fields(SHAPE, BOX, np.random.default_rng(3), modes=6, amplitude=0.2)
    for i, name in enumerate(sim.field_names):
        sim[name] = values[i % 4] * (0.3 if name == "ss" else 1.0) + (0.1 * i if name in ("ax", "cc", "cc2") else 0.0)
    return sim


def advance(sims, path):
    if path == "step":
        for sim in sims:
            sim.step(DT)
            sim.step(DT)
    elif path == "run":
        for sim in sims:
            sim.run(until=2 * DT, dt=DT)
    else:
        ac.Ensemble(sims).run(until=2 * DT, dt=DT)


def check(configuration, name, path, backend):
    companions = COMPANIONS.get(name, {})
    try:
        moved = make(configuration, backend, **companions, **{name: OFF_DEFAULT[name]})
    except (ValueError, TypeError, NotImplementedError) as error:
        assert name in str(error), f"refused without naming {name}: {error}"
        return "refused"
    base = make(configuration, backend, **companions)
    advance([base, moved], path)
    differs = [f for f in base.field_names if not np.array_equal(base[f], moved[f])]
    assert differs, f"{name} = {OFF_DEFAULT[name]} changed no field of {configuration} on the {path} path"
    return "changed"


@pytest.mark.parametrize("configuration, name", CASES)
def test_each_parameter_changes_the_run_or_is_refused_naming_it_on_the_cpu(configuration, name):
    outcomes = {check(configuration, name, path, "cpu") for path in PATHS}
    assert outcomes == {"refused" if (configuration, name) in REFUSED else "changed"}


@pytest.mark.gpu
@pytest.mark.parametrize("configuration, name", CASES)
def test_each_parameter_changes_the_run_or_is_refused_naming_it_on_the_gpu(configuration, name):
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    outcomes = {check(configuration, name, path, "cuda") for path in PATHS}
    assert outcomes == {"refused" if (configuration, name) in REFUSED_ON_THE_GPU else "changed"}
