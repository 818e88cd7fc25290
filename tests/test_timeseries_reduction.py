"""A time-series row reduced by the backend in one pass (csrc/timeseries.h)
against the same row from the analysis functions alone (astaroth/analysis.py:
NumPy or CuPy statements of each reduction, as a grid split over ranks
takes them), for every module, walls, shear and gravity, both precisions
and both backends."""
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


def _from_analysis(sim, dt, names, monkeypatch):
    """The row as a grid split over ranks takes it: every reduction by the analysis functions."""
    with monkeypatch.context() as m:
        m.setattr(diagnostics, "_values", lambda sim: diagnostics._analysis_values(sim, "all"))
        return diagnostics.row(sim, dt, names)


def _assert_rows_agree(reduced, reference):
    """Columns equal to round-off: 1e-12 relative, or 1e-15 absolute for
    means of signed quantities that cancel to about 1e-18 (uxm, bxm)."""
    assert reduced.keys() == reference.keys()
    for name, value in reference.items():
        assert reduced[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CONFIGURATIONS, ids=IDS)
def test_the_backends_row_equals_the_analysis_functions(kw, dtype, monkeypatch):
    sim = _fields("cpu", dtype, **kw)
    names = _every_column(sim)
    row = diagnostics.row(sim, 0.01, names)
    _assert_rows_agree(row, _from_analysis(sim, 0.01, names, monkeypatch))
    assert row["abm"] > 1e-3 if "physics" in kw else row["oum"] != 0.0  # the helical field's <A . curl A> = k a^2


def test_a_blown_up_row_has_nan_where_the_analysis_functions_have(monkeypatch):
    sim = _fields("cpu", "float64", physics="mhd", energy="entropy")
    names = _every_column(sim)
    sim.view("ux")[3, 4, 5] = np.nan  # as a blow-up leaves them (assignment refuses them)
    sim.view("ss")[0, 0, 0] = np.inf
    row, reference = diagnostics.row(sim, 0.01, names), _from_analysis(sim, 0.01, names, monkeypatch)
    nan = {n for n, v in reference.items() if math.isnan(v)}
    assert {"urms", "umax", "orms", "oum", "uxm"} <= nan and "rhom" not in nan and "brms" not in nan
    assert {n for n, v in row.items() if math.isnan(v)} == nan
    assert row["ssmax"] == reference["ssmax"] == math.inf


WALLED = {"lnrho": "s", "ux": "s", "uy": "s", "uz": "a", "ax": "a", "ay": "a", "az": "s", "ss": "s"}
NON_PERIODIC = [dict(energy="entropy", gravity=(0.0, 0.0, -0.1), boundaries={"z": WALLED}),
                dict(physics="mhd", energy="entropy", gravity=(0.0, 0.0, -0.1), boundaries={"z": WALLED}),
                dict(physics="mhd", shear=-1.0), dict(gravity=(0.05, 0.0, -0.1))]
NON_PERIODIC_IDS = ["entropy+walls+gravity", "mhd+entropy+walls+gravity", "mhd+shear", "gravity"]


def _non_periodic(backend, dtype, kw):
    kw = dict(kw)
    if "boundaries" in kw:
        kw["boundaries"] = {"z": {f: k for f, k in kw["boundaries"]["z"].items()
                                  if f in ("lnrho", "ux", "uy", "uz") or
                                  (f in ("ax", "ay", "az") and kw.get("physics") == "mhd") or
                                  (f == "ss" and kw.get("energy") == "entropy")}}
    sim = _fields(backend, dtype, **kw)
    if "shear" in kw:
        sim.deltay = 0.7  # images shifted by a fraction of a grid spacing and more
    return sim


@pytest.mark.parametrize("kw", NON_PERIODIC, ids=NON_PERIODIC_IDS)
def test_walls_shear_and_gravity(kw, monkeypatch):
    """The backend's row with walls (one-sided first derivatives next to them, volume means with the walls
    at half weight: etotm), gravity (its potential energy: epot) and shear equals the analysis functions'
    (J with walls and every derivative in a shearing box taken from them)."""
    sim = _non_periodic("cpu", "float64", kw)
    names = _every_column(sim)
    before = {name: sim[name] for name in sim.field_names}
    row = diagnostics.row(sim, 0.01, names)
    for name in sim.field_names:  # a row sets no wall values (their random values here break 'a')
        assert np.array_equal(sim[name], before[name]), name
    _assert_rows_agree(row, _from_analysis(sim, 0.01, names, monkeypatch))
    if "gravity" in kw:
        assert row["epot"] == pytest.approx(ac.analysis.potential_energy(sim), rel=1e-12) and row["epot"] != 0.0
    if "energy" in kw:
        assert row["etotm"] == pytest.approx(ac.analysis.total_energy(sim), rel=1e-12)


def test_a_wall_axis_too_short_for_the_one_sided_stencils_is_refused_as_the_analysis_functions_refuse_it():
    sim = ac.Simulation(shape=(8, 8, 5), backend="cpu",
                        boundaries={"z": {"lnrho": "s", "ux": "s", "uy": "s", "uz": "a"}})
    with pytest.raises(ValueError, match="at least 7 points"):
        diagnostics.row(sim, 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", CONFIGURATIONS, ids=IDS)
def test_the_gpus_row_equals_the_cpus_and_the_analysis_functions(kw, dtype, monkeypatch):
    gpu, cpu = _fields("cuda", dtype, **kw), _fields("cpu", dtype, **kw)
    for name in gpu.field_names:
        assert np.array_equal(gpu[name], cpu[name])
    names = _every_column(gpu)
    row = diagnostics.row(gpu, 0.01, names)
    _assert_rows_agree(row, diagnostics.row(cpu, 0.01, names))
    _assert_rows_agree(row, _from_analysis(gpu, 0.01, names, monkeypatch))


@pytest.mark.gpu
@pytest.mark.parametrize("kw", NON_PERIODIC, ids=NON_PERIODIC_IDS)
def test_the_gpus_row_with_walls_shear_and_gravity_equals_the_cpus(kw, monkeypatch):
    gpu, cpu = _non_periodic("cuda", "float64", kw), _non_periodic("cpu", "float64", kw)
    names = _every_column(gpu)
    row = diagnostics.row(gpu, 0.01, names)
    _assert_rows_agree(row, diagnostics.row(cpu, 0.01, names))
    _assert_rows_agree(row, _from_analysis(gpu, 0.01, names, monkeypatch))
