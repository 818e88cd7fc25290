"""Every configuration of the streaming kernel (csrc/cuda/schedules.cuh: the
modules hydro, magnetic, entropy and none, one or two passive scalars, with and without the
kernel terms hyperdiffusion, shock viscosity, the Coriolis force and the shear) in both precisions
runs on the GPU and agrees with the CPU, or is refused when the build holds no
instance of it (csrc/cuda/instances.def: two scalars without kernel terms
only, the Coriolis force alone without scalars, the shear with one scalar at
most, hyperdiffusion with them only beside both).  Each configuration is its own kernel
instance with its own schedule row, so one that does not fit the device (its
shared memory) or reads a field wrongly shows here and nowhere else."""
import itertools

import numpy as np
import pytest

import astaroth as ac

MODULES = [dict(physics=p, energy=e, passive_scalar=c)
           for p, e, c in itertools.product(("hydro", "mhd"), ("isothermal", "entropy"), (0, 1, 2))]
TERMS = {"plain": {}, "hyper3": dict(nu_hyper3=1e-6), "shock": dict(nu_shock=1.0),
         "hyper3-shock": dict(nu_hyper3=1e-6, nu_shock=1.0), "coriolis": dict(omega=(0.3, -0.2, 1.1)),
         "shear": dict(shear=-0.7), "coriolis-shear": dict(omega=(0.0, 0.0, 1.0), shear=-1.5),
         "hyper3-coriolis-shear": dict(nu_hyper3=1e-6, omega=(0.0, 0.0, 1.0), shear=-1.5),
         "shock-coriolis-shear": dict(nu_shock=1.0, omega=(0.0, 0.0, 1.0), shear=-1.5),
         "hyper3-shock-coriolis-shear": dict(nu_hyper3=1e-6, nu_shock=1.0, omega=(0.0, 0.0, 1.0), shear=-1.5)}
SHEARS = ("shear", "coriolis-shear", "hyper3-coriolis-shear", "shock-coriolis-shear", "hyper3-shock-coriolis-shear")
TOLERANCE = {"float64": 1e-10, "float32": 1e-4}  # of each field's largest value after three steps


def built(modules, terms):
    """Whether the build holds the configuration's instance (instances.def): two passive scalars without
    kernel terms only, the Coriolis force alone without passive scalars, the shear (alone, with the Coriolis
    force, both with hyperdiffusion: the box of notebooks/mri.ipynb) with one scalar at most, the Coriolis
    force and the shear with shock viscosity (and hyperdiffusion) without passive scalars."""
    if terms == "coriolis" or "shock" in terms and "shear" in terms:
        return modules["passive_scalar"] == 0
    if terms in SHEARS:
        return modules["passive_scalar"] < 2
    return modules["passive_scalar"] < 2 or not TERMS[terms]


def _id(modules):
    return "-".join([modules["physics"]] + (["entropy"] if modules["energy"] == "entropy" else []) +
                    ([("scalar", "scalars2")[modules["passive_scalar"] - 1]] if modules["passive_scalar"] else []))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("terms", list(TERMS))
@pytest.mark.parametrize("modules", MODULES, ids=[_id(m) for m in MODULES])
def test_every_configuration_steps_on_the_gpu_as_on_the_cpu(modules, terms, dtype):
    """Three steps of a fixed dt on a 36 x 20 x 24 grid from the same smooth
    fields of every variable: the GPU's fields agree with the CPU's."""
    if "cuda" not in ac.backends():
        pytest.skip("no GPU")
    extra = dict(modules, **TERMS[terms])
    if modules["physics"] == "mhd":
        extra["eta"] = 2e-2
    if modules["energy"] == "entropy":
        extra["chi"] = 2e-2
    if modules["passive_scalar"]:
        extra["pscalar_diff"] = 1e-2
    if modules["passive_scalar"] == 2:
        extra["pscalar_diff2"] = 3e-2
    if not built(modules, terms):
        named = ".* and ".join(f"'{term}' \\(parameters? .*{parameter}" for term in terms.split("-")
                               for parameter in TERMS[term])  # each term with the parameter that switched it on
        with pytest.raises(ValueError, match="this build holds no cuda kernel for the configuration "
                                             rf"hydro\S*\+pscalar(\+pscalar2)? with the term {named}.*instances\.def"):
            ac.Simulation(shape=(36, 20, 24), dtype=dtype, backend="cuda", **extra)
        return
    runs = {}
    for backend in ("cpu", "cuda"):
        sim = ac.Simulation(shape=(36, 20, 24), box=(2 * np.pi, 4.0, 5.0), dtype=dtype, backend=backend, nu=2e-2,
                            **extra)
        x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
        for q, name in enumerate(sim.field_names):
            sim[name] = 0.05 * np.sin(x + q) * np.cos(np.pi * y / 2 + 0.3 * q) * np.cos(0.4 * np.pi * z + 0.1 * q)
        for _ in range(3):
            sim.step(2e-3)
        sim.check_finite()
        runs[backend] = {name: sim[name].astype(np.float64) for name in sim.field_names}
    for name, want in runs["cpu"].items():
        error = np.max(np.abs(runs["cuda"][name] - want))
        assert error <= TOLERANCE[dtype] * np.max(np.abs(want)), (name, error)
