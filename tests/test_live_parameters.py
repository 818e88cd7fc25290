"""Restart-changeable parameters set on a live Simulation (sim.nu = ...), and
attributes that Simulation does not have refused with the close match."""
import numpy as np
import pytest

import astaroth as ac
from astaroth.simulation import changeable_parameters


def _turbulent(nu=5e-3, **kw):
    sim = ac.Simulation(shape=16, nu=nu, **kw)
    ac.init.random_velocity(sim, urms=0.2, seed=3)
    return sim


def _copy(sim, **kw):
    """A fresh simulation with sim's fields, time and step count."""
    other = ac.Simulation(shape=sim.shape, **kw)
    for name in sim.field_names:
        other[name] = sim[name]
    other.t, other.steps = sim.t, sim.steps
    return other


def test_changed_viscosity_goes_on_as_a_fresh_simulation_bit_for_bit():
    sim = _turbulent()
    sim.run(until=0.2)
    sim.nu = 1e-3
    assert sim.nu == 1e-3 and sim.parameters()["nu"] == 1e-3
    fresh = _copy(sim, nu=1e-3)
    sim.run(until=0.5)
    fresh.run(until=0.5)
    assert sim.steps == fresh.steps
    for name in sim.field_names:
        np.testing.assert_array_equal(sim[name], fresh[name])


def test_changed_viscosity_changes_the_run():
    a, b = _turbulent(), _turbulent()
    b.nu = 5e-2
    a.run(until=0.3)
    b.run(until=0.3)
    # ten times the viscosity takes measurably more energy out
    assert ac.analysis.kinetic_energy(b) < 0.99 * ac.analysis.kinetic_energy(a)


def test_changed_term_switches_on_hyperdiffusion_and_keeps_forcing_state():
    forced = _turbulent()
    forced.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=7)
    forced.run(until=0.1)
    forced.nu_hyper3 = 1e-6
    fresh = _copy(forced, nu_hyper3=1e-6)
    fresh.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=7)
    fresh._grid.forcing_state = forced._grid.forcing_state
    forced.run(until=0.2)
    fresh.run(until=0.2)
    for name in forced.field_names:
        np.testing.assert_array_equal(forced[name], fresh[name])


def test_a_numpy_view_taken_before_a_changed_parameter_is_disowned_loudly():
    """The setter makes the simulation's memory afresh: a CPU view taken before cannot follow, so it holds
    NaN and refuses writes (never the run's old state passing for its present), and a warning says so; a
    view taken after follows the run."""
    sim = _turbulent()
    stale = sim.view("ux")
    part = stale[:, 0, :]
    with pytest.warns(RuntimeWarning, match=r"sim.nu = 0.001 made the simulation's memory afresh: the 1 view"):
        sim.nu = 1e-3
    assert np.all(np.isnan(stale)) and np.all(np.isnan(part)) and not stale.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        stale[0, 0, 0] = 1.0
    assert np.all(np.isfinite(sim["ux"]))
    view = sim.view("ux")
    sim.run(until=0.05)
    np.testing.assert_array_equal(view, sim["ux"])


def test_no_view_no_warning():
    import warnings

    sim = _turbulent()
    sim.view("ux")  # dropped at once: nothing left to disown
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim.nu = 1e-3


def test_a_device_view_follows_the_simulation_across_a_changed_parameter():
    """The CUDA backend's DeviceView looks up the simulation's memory at each use, and keeps every grid it
    handed out alive (for the arrays made from it); its addresses checked here on the CPU grid."""
    from astaroth.device import DeviceView
    from astaroth.simulation import _FIELD_BUFFER

    sim = _turbulent()
    ux = sim.field_names.index("ux")
    view = DeviceView(sim, _FIELD_BUFFER, ux)
    old, before = sim._grid, view.ptr
    sim.nu = 1e-3
    assert sim._grid is not old and view.ptr == sim._grid.interior_address(_FIELD_BUFFER, ux) != before
    assert view._exported == [old, sim._grid]
    sim.run(until=0.05)
    np.testing.assert_array_equal(view.get(), sim["ux"])


def test_mhd_resistivity_and_external_field():
    sim = ac.Simulation(shape=16, physics="mhd", eta=1e-3)
    sim.eta = 2e-3
    sim.b_ext = 0.1
    assert sim.eta == 2e-3 and sim.b_ext == (0.1, 0.1, 0.1)


@pytest.mark.parametrize("name, value, error, words", [
    ("nu", -1.0, ValueError, "nu (kinematic viscosity) must be >= 0"),
    ("nu", "big", TypeError, "nu must be a real number"),
    ("nu", float("nan"), ValueError, "nu must be finite"),
    ("eta", 1e-3, ValueError, "physics='mhd'"),
    ("cs", 2.0, AttributeError, "cs (isothermal sound speed) is fixed"),
    ("gravity", (0, 0, -1), AttributeError, "gravity"),
])
def test_bad_values_refused_naming_the_parameter_and_nothing_changed(name, value, error, words):
    sim = _turbulent()
    before = sim.parameters()
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        setattr(sim, name, value)
    assert sim.parameters().keys() == before.keys()
    assert all(np.all(sim.parameters()[k] == before[k]) for k in before)


def test_shock_viscosity_needs_one_process_and_no_walls():
    walled = ac.Simulation(shape=(8, 8, 16), boundaries={"z": {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2"}})
    with pytest.raises(ValueError, match="nu_shock"):
        walled.nu_shock = 1.0


@pytest.mark.parametrize("typo, match", [("chi_hyper", "chi_hyper3"), ("Nu", "nu"), ("etaa", "eta"),
                                         ("nu_hyper", "nu_hyper3")])
def test_misspelt_attribute_refused_naming_the_close_match(typo, match):
    sim = ac.Simulation(shape=8)
    with pytest.raises(AttributeError, match=f"no attribute '{typo}'; did you mean .*'{match}'"):
        setattr(sim, typo, 1e-3)
    assert not hasattr(sim, typo)


def test_unknown_attribute_refused_and_the_usual_ones_kept():
    sim = ac.Simulation(shape=8)
    with pytest.raises(AttributeError, match="no attribute 'notes'"):
        sim.notes = "x"
    sim.t, sim.steps = 1.5, 3
    assert (sim.t, sim.steps) == (1.5, 3)


def test_a_subclass_may_add_attributes_but_not_misspelt_parameters():
    class Mine(ac.Simulation):
        pass

    sim = Mine(shape=8)
    sim.label = "run A"
    assert sim.label == "run A"
    with pytest.raises(AttributeError, match="chi_hyper3"):
        sim.chi_hyper = 1e-3


def test_changeable_parameters_are_the_restart_column():
    assert set(changeable_parameters()) == {p["name"] for p in ac.parameters() if p["restart"]}
    assert "nu" in changeable_parameters() and "cs" not in changeable_parameters()


@pytest.mark.gpu
def test_a_changed_parameter_on_the_gpu_goes_on_as_a_fresh_simulation_bit_for_bit():
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    sim = _turbulent(backend="cuda", physics="mhd", eta=1e-3)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=5)
    sim.run(until=0.1)
    sim.eta, sim.nu_hyper3 = 3e-3, 1e-6
    fresh = _copy(sim, backend="cuda", physics="mhd", eta=3e-3, nu_hyper3=1e-6)
    fresh.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=5)
    fresh._grid.forcing_state = sim._grid.forcing_state
    sim.run(until=0.2)
    fresh.run(until=0.2)
    assert sim.steps == fresh.steps
    for name in sim.field_names:
        np.testing.assert_array_equal(sim[name], fresh[name])

