"""The CPU backend against the independent NumPy statement of the equations."""
import numpy as np
import pytest

import astaroth as ac
from astaroth.numpy_reference import rk3_step, time_derivatives
from helpers import smooth_random_fields

SHAPE = (20, 14, 11)          # non-cubic, not a multiple of anything
BOX = (2 * np.pi, 3.0, 1.7)   # anisotropic spacing
NU, CS = 0.03, 0.8


def make(method, dtype="float64", shape=SHAPE, box=BOX, seed=0):
    sim = ac.Simulation(shape=shape, box=box, nu=NU, cs=CS, dtype=dtype, backend="cpu", method=method)
    fields = smooth_random_fields(shape, box, np.random.default_rng(seed))
    for name, f in zip(ac.FIELDS, fields):
        sim[name] = f
    return sim, fields


def rel_error(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


def test_rhs_55p_matches_numpy_reference():
    sim, (lnrho, *u) = make("55p")
    dl, du = time_derivatives(lnrho, u, sim.spacing, NU, CS)
    got = sim.rhs()
    for name, want in zip(ac.FIELDS, [dl, *du]):
        assert np.max(np.abs(want)) > 1e-3, "test fields too trivial"
        assert rel_error(got[name], want) < 1e-10, name


# SHAPE and nz = 16 take the substep-by-substep path; nz >= 17 the 55-point step fused along z (its rings
# of planes and the planes kept for the end of the sweep fit from there)
@pytest.mark.parametrize("shape", [SHAPE, (20, 14, 16), (20, 14, 17), (13, 9, 29)])
def test_full_step_matches_numpy_reference(shape):
    sim, (lnrho, *u) = make("55p", shape=shape)
    dt = sim.cfl_dt()
    sim.step(dt)
    l1, u1 = rk3_step(lnrho, u, sim.spacing, NU, CS, dt)
    for name, want, before in zip(ac.FIELDS, [l1, *u1], [lnrho, *u]):
        assert rel_error(sim[name] - before, want - before) < 1e-10, name  # compare the change, not the state
    assert sim.t == dt and sim.steps == 1


@pytest.mark.parametrize("method", ["55p", "19p"])
@pytest.mark.parametrize("shape", [(20, 14, 11), (20, 14, 17), (16, 10, 24)])
def test_steps_read_only_what_they_wrote(method, shape):
    """Three steps over scratch memory (intermediate fields, w, ghost zones)
    filled with NaN equal the same steps over zeroed memory bit for bit, and
    follow the reference."""
    clean, (lnrho, *u) = make(method, shape=shape)
    poisoned, _ = make(method, shape=shape)
    poisoned._grid.poison_scratch()
    dt = clean.cfl_dt()
    for _ in range(3):
        clean.step(dt)
        poisoned.step(dt)
        lnrho, u = rk3_step(lnrho, u, clean.spacing, NU, CS, dt)
    for name, want in zip(ac.FIELDS, [lnrho, *u]):
        np.testing.assert_array_equal(poisoned[name], clean[name])
        if method == "55p":
            assert rel_error(clean[name], want) < 1e-10, name


def test_19p_agrees_with_55p_to_truncation_error():
    """The two methods differ only in how grad div u is discretised."""
    a, _ = make("55p", shape=(32, 24, 16), box=(2 * np.pi,) * 3)
    b, _ = make("19p", shape=(32, 24, 16), box=(2 * np.pi,) * 3)
    ra, rb = a.rhs(), b.rhs()
    assert rel_error(rb["lnrho"], ra["lnrho"]) < 1e-13  # continuity is the same
    for name in ("ux", "uy", "uz"):
        diff = rel_error(rb[name], ra[name])
        assert 0 < diff < 1e-3, name


@pytest.mark.parametrize("method", ["55p", "19p"])
def test_float32_agrees_with_float64_to_roundoff(method):
    s64, _ = make(method, "float64")
    s32, _ = make(method, "float32")
    dt = s64.cfl_dt()
    for _ in range(5):
        s64.step(dt)
        s32.step(dt)
    for name in ac.FIELDS:
        assert s32[name].dtype == np.float32
        err = rel_error(s32[name].astype(np.float64), s64[name])
        assert err < 2e-5, (name, err)  # float32 epsilon is 1.2e-7


@pytest.mark.parametrize("shape", [(16, 1, 1), (1, 12, 1), (1, 1, 9), (12, 10, 1), (1, 1, 1), (2, 3, 5)])
def test_thin_grids_match_reference(shape):
    """1-D, 2-D and tiny grids: the periodic ghost zones wrap any n >= 1."""
    box = (2.0, 3.0, 4.0)
    sim, (lnrho, *u) = make("55p", shape=shape, box=box, seed=3)
    dl, du = time_derivatives(lnrho, u, sim.spacing, NU, CS)
    got = sim.rhs()
    for name, want in zip(ac.FIELDS, [dl, *du]):
        scale = max(np.max(np.abs(want)), 1e-300)
        assert np.max(np.abs(got[name] - want)) / scale < 1e-10 or np.max(np.abs(got[name])) < 1e-12, name
