"""A time-series row reduced by the backend in one pass (csrc/timeseries.h)
against the same row from the analysis functions (astaroth/analysis.py:
NumPy or CuPy statements of each column), for every module, both
precisions, and both backends."""
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth import diagnostics

CONFIGURATIONS = [dict(), dict(physics="mhd"), dict(energy="entropy"), dict(physics="mhd", energy="entropy"),
                  dict(physics="mhd", passive_scalar=2)]
IDS = ["hydro", "mhd", "entropy", "mhd+entropy", "mhd+scalars"]


def _fields(backend, dtype, **kw):
    """A state with every column nonzero: a random flow, a helical field, uneven density and entropy."""
    sim = ac.Simulation(shape=(16, 12, 10), dtype=dtype, backend=backend, nu=1e-2, **kw)
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    rng = np.random.default_rng(4)
    sim["lnrho"] = 0.05 * rng.standard_normal(sim.shape)
    if kw.get("physics") == "mhd":
        ac.init.beltrami_field(sim, k=1, amplitude=0.1)
        sim["az"] = sim["az"] + 0.01 * rng.standard_normal(sim.shape)
    if kw.get("energy") == "entropy":
        sim["ss"] = 0.1 * rng.standard_normal(sim.shape)
    return sim


def _every_column(sim):
    return [n for n, (_, _, needs) in diagnostics.EXTRA_COLUMNS.items() if diagnostics._available(sim, needs)]


def _from_analysis(sim, dt, names):
    out = diagnostics._row(sim, dt)
    out.update(diagnostics._extra(sim, names))
    return out


def _assert_rows_agree(reduced, reference):
    """Columns equal to round-off: 1e-12 relative, or 1e-15 absolute for
    means of signed quantities that cancel to about 1e-18 (uxm, bxm)."""
    assert reduced.keys() == reference.keys()
    for name, value in reference.items():
        assert reduced[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CONFIGURATIONS, ids=IDS)
def test_the_backends_row_equals_the_analysis_functions(kw, dtype):
    sim = _fields("cpu", dtype, **kw)
    names = _every_column(sim)
    assert diagnostics._reduced_in_c(sim)
    row = diagnostics.row(sim, 0.01, names)
    _assert_rows_agree(row, _from_analysis(sim, 0.01, names))
    assert row["abm"] > 1e-3 if "physics" in kw else row["oum"] != 0.0  # the helical field's <A . curl A> = k a^2


def test_a_blown_up_row_has_nan_where_the_analysis_functions_have():
    sim = _fields("cpu", "float64", physics="mhd", energy="entropy")
    names = _every_column(sim)
    sim.view("ux")[3, 4, 5] = np.nan  # as a blow-up leaves them (assignment refuses them)
    sim.view("ss")[0, 0, 0] = np.inf
    row, reference = diagnostics.row(sim, 0.01, names), _from_analysis(sim, 0.01, names)
    nan = {n for n, v in reference.items() if math.isnan(v)}
    assert {"urms", "umax", "orms", "oum", "uxm"} <= nan and "rhom" not in nan and "brms" not in nan
    assert {n for n, v in row.items() if math.isnan(v)} == nan
    assert row["ssmax"] == reference["ssmax"] == math.inf


def test_walls_shear_and_gravity_take_the_analysis_functions():
    assert not diagnostics._reduced_in_c(ac.Simulation(shape=(8, 8, 8), backend="cpu",
                                                       boundaries={"z": {"lnrho": "s", "ux": "s", "uy": "s", "uz": "a"}}))
    assert not diagnostics._reduced_in_c(ac.Simulation(shape=(8, 8, 8), backend="cpu", shear=-1.0))
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu", gravity=(0.0, 0.0, -0.1))
    assert not diagnostics._reduced_in_c(sim) and "epot" in diagnostics.row(sim, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CONFIGURATIONS, ids=IDS)
def test_the_gpus_row_equals_the_cpus_and_the_analysis_functions(kw, dtype):
    gpu, cpu = _fields("cuda", dtype, **kw), _fields("cpu", dtype, **kw)
    for name in gpu.field_names:
        assert np.array_equal(gpu[name], cpu[name])
    names = _every_column(gpu)
    row = diagnostics.row(gpu, 0.01, names)
    _assert_rows_agree(row, diagnostics.row(cpu, 0.01, names))
    _assert_rows_agree(row, _from_analysis(gpu, 0.01, names))
