"""The Python API (docs/reference/api.md) and its refusals of bad input (docs/guide/simulations.md)."""
import math

import numpy as np
import pytest

import astaroth as ac


def small(**kw):
    args = dict(shape=(8, 6, 4), box=(1.0, 2.0, 3.0), backend="cpu")
    args.update(kw)
    return ac.Simulation(**args)


def test_backends_lists_cpu():
    assert "cpu" in ac.backends()


def test_coordinates_and_shape():
    sim = small(origin=(0.5, 0.0, -1.0))
    assert sim.shape == (8, 6, 4)
    assert sim.spacing == (1 / 8, 2 / 6, 3 / 4)
    np.testing.assert_allclose(sim.x, 0.5 + np.arange(8) / 8)
    np.testing.assert_allclose(sim.y, np.arange(6) * 2 / 6)
    np.testing.assert_allclose(sim.z, -1.0 + np.arange(4) * 0.75)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_get_set_layout_and_copy_semantics(dtype):
    sim = small(dtype=dtype)
    values = np.arange(8 * 6 * 4, dtype=float).reshape(8, 6, 4)
    sim["ux"] = values
    got = sim["ux"]
    assert got.dtype == np.dtype(dtype) and got.shape == (8, 6, 4)
    assert got.flags["F_CONTIGUOUS"]  # x fastest in memory, as in the C layout
    np.testing.assert_array_equal(got, values)
    got[0, 0, 0] = -1  # a copy: the simulation is unchanged
    assert sim["ux"][0, 0, 0] == 0
    for other in ("lnrho", "uy", "uz"):
        assert not sim[other].any()


def test_set_broadcasts_like_numpy():
    sim = small()
    sim["lnrho"] = 0.25
    assert np.all(sim["lnrho"] == 0.25)
    sim["uy"] = np.sin(sim.x)[:, None, None]
    np.testing.assert_allclose(sim["uy"][:, 3, 2], np.sin(sim.x))


def test_view_is_zero_copy_and_follows_steps():
    sim = small(nu=0.1)
    v = sim.view("ux")
    assert v.shape == sim.shape
    v[:] = np.cos(2 * np.pi * sim.x)[:, None, None]  # writing the view changes the simulation
    np.testing.assert_array_equal(sim["ux"], v)
    before = v.copy()
    sim.step(1e-3)
    assert not np.array_equal(v, before)            # the view sees the step
    np.testing.assert_array_equal(sim["ux"], v)


def test_rhs_returns_all_fields():
    sim = small()
    sim["ux"] = np.sin(2 * np.pi * sim.x)[:, None, None]
    d = sim.rhs()
    assert set(d) == set(ac.FIELDS)
    # continuity: d lnrho/dt = -div u = -2 pi cos(2 pi x) (sixth-order accurate)
    np.testing.assert_allclose(d["lnrho"][:, 0, 0], -2 * np.pi * np.cos(2 * np.pi * sim.x), atol=2e-2)
    # rhs() does not advance the fields
    np.testing.assert_array_equal(sim["ux"][:, 0, 0], np.sin(2 * np.pi * sim.x))
    assert sim.t == 0 and sim.steps == 0


def test_run_lands_exactly_on_until_with_cfl_steps():
    sim = small(shape=(16, 16, 16), box=2 * np.pi, nu=0.01)
    sim["ux"] = 0.5 * np.sin(sim.y)[None, :, None]
    dt0 = sim.cfl_dt()
    dx = 2 * np.pi / 16
    assert dt0 == pytest.approx(min(0.4 * dx / (0.5 + 1.0), 0.3 / (0.01 * 3 / dx ** 2)), rel=1e-6)
    # a viscous run: the limit sums 1/dx^2 over the three axes (stability of the 3-D Laplacian)
    viscous = small(shape=(16, 16, 16), box=2 * np.pi, nu=1.0)
    assert viscous.cfl_dt() == pytest.approx(0.3 / (1.0 * 3 / dx ** 2), rel=1e-12)


def test_viscous_time_step_is_stable_in_3d():
    """Grid-scale noise decays under the CFL step when viscosity sets it, and
    grows under the step cdtv dx^2 / nu that ignores the number of axes."""
    def noise_growth(dt_of):
        sim = small(shape=(16, 16, 16), box=2 * np.pi, nu=0.5, cs=0.1)
        rng = np.random.default_rng(0)
        for name in ("ux", "uy", "uz"):
            sim[name] = 1e-3 * rng.standard_normal(sim.shape)
        before = np.sqrt(np.mean(sim["ux"] ** 2))
        try:
            for _ in range(200):
                sim.step(dt_of(sim))
        except ac.NonFiniteError:
            return np.inf
        return np.sqrt(np.mean(sim["ux"] ** 2)) / before
    assert noise_growth(lambda s: s.cfl_dt()) < 0.05
    assert noise_growth(lambda s: 0.3 * s.spacing[0] ** 2 / s.nu) > 1e3


def test_cfl_ignores_trivial_axes():
    sim = small(shape=(32, 1, 1), box=(1.0, 100.0, 100.0), nu=0.0, cs=1.0)
    assert sim.cfl_dt() == pytest.approx(0.4 / 32)


def test_blow_up_is_reported_with_step_and_time():
    sim = small(shape=(16, 16, 1), box=1.0, nu=0.0, cs=1.0)
    sim["ux"] = np.sin(2 * np.pi * sim.x)[:, None, None]
    with pytest.raises(FloatingPointError, match=r"step \d+, t = "):
        for _ in range(200):
            sim.step(0.5, force=True)  # 20 times the CFL limit, past the refusal


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(shape=(0, 8, 8)), ValueError, "shape"),
    (dict(shape=(8, -1, 8)), ValueError, "shape"),
    (dict(shape=(8, 8)), ValueError, "shape"),
    (dict(shape=(8.5, 8, 8)), TypeError, "shape"),
    (dict(shape="big"), TypeError, "shape"),
    (dict(box=(1.0, 0.0, 1.0)), ValueError, "box"),
    (dict(box=-2.0), ValueError, "box"),
    (dict(box=(1.0, float("inf"), 1.0)), ValueError, "box"),
    (dict(nu=-1e-3), ValueError, "nu"),
    (dict(nu=float("nan")), ValueError, "nu"),
    (dict(nu="thick"), TypeError, "nu"),
    (dict(cs=-1.0), ValueError, "cs"),
    (dict(dtype="float16"), ValueError, "dtype"),
    (dict(backend="tpu"), ValueError, "backend"),
    (dict(method="27p"), ValueError, "method"),
    (dict(origin=(0.0, float("nan"), 0.0)), ValueError, "origin"),
    (dict(origin=float("-inf")), ValueError, "origin"),
    (dict(shape=(2 ** 31, 8, 8)), ValueError, "shape"),                 # beyond the C int indices
    (dict(shape=(2 ** 31 - 100,) * 3), ValueError, "shape"),            # the byte count would wrap around
    (dict(shape=(2 ** 20,) * 3), ValueError, "shape"),
    (dict(box=1e-200), ValueError, "box"),                               # 1/dx^2 overflows in cfl_dt
    (dict(box=1e300), ValueError, "box"),                                # 1/dx^2 underflows to 0
    (dict(box=1e-25, dtype="float32"), ValueError, "box"),
])
def test_bad_construction_names_the_parameter(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        small(**kwargs)


def test_unavailable_backend_is_refused_clearly():
    if "cuda" in ac.backends():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ValueError, match="backend 'cuda' is not available"):
        small(backend="cuda")


def test_bad_field_access():
    sim = small()
    with pytest.raises(KeyError, match="rho"):
        sim["rho"]
    with pytest.raises(KeyError, match="unknown field"):
        sim["uw"] = 1.0
    with pytest.raises(KeyError, match="bz"):
        sim.view("bz")
    with pytest.raises(ValueError, match=r"'ux'.*shape \(3, 3\)"):
        sim["ux"] = np.zeros((3, 3))
    with pytest.raises(TypeError, match="'uy'.*dtype complex"):
        sim["uy"] = np.zeros(sim.shape, dtype=complex)
    with pytest.raises(TypeError, match="'uz'"):
        sim["uz"] = np.array(["a"] * 4)
    with pytest.raises(ValueError, match="'lnrho'.*NaN"):
        sim["lnrho"] = np.full(sim.shape, np.nan)


@pytest.mark.parametrize("dt, exc", [(0.0, ValueError), (-1e-3, ValueError), (float("nan"), ValueError),
                                     (float("inf"), ValueError), ("soon", TypeError)])
def test_bad_dt_is_refused_before_any_work(dt, exc):
    sim = small()
    with pytest.raises(exc, match="dt"):
        sim.step(dt)
    assert sim.steps == 0 and sim.t == 0


def test_run_refuses_going_back_in_time():
    sim = small()
    sim.run(until=0.01)
    with pytest.raises(ValueError, match="until"):
        sim.run(until=0.0)


def test_grid_too_large_for_memory_is_a_memory_error_naming_its_size():
    with pytest.raises(MemoryError, match="100000 x 100000 x 100000"):
        small(shape=(100000,) * 3)


@pytest.mark.parametrize("call", [
    lambda s: s.cfl_dt(cdt=0), lambda s: s.cfl_dt(cdt=-0.4), lambda s: s.cfl_dt(cdtv=0.0),
    lambda s: s.cfl_dt(cdt=float("nan")), lambda s: s.cfl_dt(cdtv=float("inf")),
    lambda s: s.run(until=1.0, cdt=0.0), lambda s: s.run(until=1.0, cdtv=-1.0),
    lambda s: s.run(until=1.0, cdt=float("inf")),
])
def test_bad_courant_numbers_are_refused(call):
    sim = small(nu=0.01)
    with pytest.raises(ValueError, match="cdtv?"):
        call(sim)
    assert sim.steps == 0


@pytest.mark.parametrize("value, word", [
    (2 ** 70, "too large for NumPy"), (-(2 ** 1100), "too large for NumPy"), ([1.0, 2.0, 3, 2 ** 80], "too large"),
])
def test_integers_too_large_for_numpy_are_refused_naming_the_field(value, word):
    sim = small()
    with pytest.raises(ValueError, match=f"'ux'.*{word}"):
        sim["ux"] = value
    sim["ux"] = [1.0, 2.0, 3, 2 ** 40]  # a list mixing floats and ints that fit
    assert sim["ux"][0, 0, 3] == 2.0 ** 40


def test_values_beyond_the_dtype_are_refused_naming_the_field():
    sim = small(dtype="float32")
    with pytest.raises(ValueError, match="'uy'.*float32"):
        sim["uy"] = 1e300
    sim["uy"] = 2.0 ** 70  # a float32 holds it
    assert sim["uy"][0, 0, 0] == np.float32(2.0 ** 70)


def test_an_explicit_dt_beyond_rk3_stability_is_refused_before_any_work():
    sim = small(shape=(16, 16, 16), box=2 * np.pi, nu=1e-3)
    ac.init.sine_wave(sim, field="ux", amplitude=0.1, k=1.0)
    before = sim["ux"]
    with pytest.raises(ac.UnstableStepError, match=r"dt = 1e\+06 at step 0, t = 0 .*force=True") as info:
        sim.step(dt=1e6)
    assert isinstance(info.value, ValueError) and isinstance(info.value, ac.NonFiniteError)
    assert sim.steps == 0 and sim.t == 0 and np.array_equal(sim["ux"], before)
    # the viscous bound too: a still fluid with a large viscosity
    viscous = small(shape=(16, 16, 16), box=2 * np.pi, nu=10.0)
    with pytest.raises(ac.UnstableStepError, match="diffusion number"):
        viscous.step(dt=3 * viscous.cfl_dt(cdtv=2.51))
    # force=True takes it (and the blow-up is then caught at this very step or soon after)
    with pytest.raises(ac.NonFiniteError):
        for _ in range(10):
            sim.step(dt=1e6, force=True)


def test_an_explicit_dt_past_the_schemes_limit_warns_and_a_cfl_dt_does_not():
    import warnings

    sim = small(shape=(16, 16, 16), box=2 * np.pi, nu=1e-3)
    ac.init.sine_wave(sim, field="ux", amplitude=0.1, k=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.step(sim.cfl_dt())
        sim.step(sim.cfl_dt(cdt=1.0))  # at the scheme's 1-D limit: allowed silently
    with pytest.warns(RuntimeWarning, match="Courant number 1.5"):
        sim.step(sim.cfl_dt(cdt=1.5))


def test_a_nan_already_in_the_fields_is_still_reported_after_the_step_it_meets():
    """The stability check of an explicit dt leaves NaN fields to the step's own check (step 1, not 0)."""
    sim = small(nu=0.01)
    ux = sim["ux"]
    ux[1, 2, 3] = np.nan
    sim._grid.write(1, np.asfortranarray(ux))  # past the finite check of sim[...] =
    with pytest.raises(ac.NonFiniteError, match="NaN or Inf at step 1"):
        sim.step(1e-3)
