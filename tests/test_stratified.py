"""Stratified layers at rest (astaroth.init.hydrostatic, the Pencil Code's
initlnrho 'isothermal' and 'polytropic_simple'): in equilibrium to round-off
on the grid with walls and gravity, from Python and from the TOML file; the
setups that cannot be at rest refused naming the parameter; and
astaroth.stability.conv_slab's progress line.  CPU, float64."""
import io
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth import config as run_config
from astaroth.cli import build_simulation

WALL = {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2"}
STEPS = 100
TOLERANCE = 1e-12  # max |u| and the change of lnrho and ss after STEPS steps


def layer(n=24, energy="isothermal", gravity=(0.0, 0.0, -1.0), walls=None, **parameters):
    bc = walls or {"z": {**WALL, **({"ss": "a2"} if energy == "entropy" else {})}}
    return ac.Simulation(shape=(4, 4, n), box=(1.0, 1.0, 1.0), backend="cpu", gravity=gravity, energy=energy,
                         boundaries=bc, nu=1e-2, **parameters)


def drift_after_steps(sim, steps=STEPS):
    """(max |u|, max change of lnrho and ss) after `steps` CFL steps."""
    before = {f: sim[f].copy() for f in ("lnrho", "ss") if f in sim.field_names}
    for _ in range(steps):
        sim.step()
    assert sim.steps == steps
    umax = max(np.abs(sim[c]).max() for c in ("ux", "uy", "uz"))
    return umax, max(np.abs(sim[f] - before[f]).max() for f in before)


@pytest.mark.parametrize("energy", ["isothermal", "entropy"])
def test_isothermal_layer_stays_at_rest(energy):
    """lnrho linear in z (with entropy ss too, T uniform): the stencils and
    the 'a2' ghosts are exact on it, so it needs no correction and stays at
    rest to round-off."""
    sim = layer(energy=energy, gamma=1.4, cs=0.8) if energy == "entropy" else layer(cs=0.8)
    profiles = ac.init.hydrostatic(sim, kind="isothermal")
    gamma = 1.4 if energy == "entropy" else 1.0
    np.testing.assert_allclose(profiles["lnrho"], -gamma * sim.z / 0.64, rtol=0, atol=1e-14)  # zref: the bottom
    if energy == "entropy":
        np.testing.assert_allclose(ac.analysis.temperature(sim), ac.analysis.temperature(sim).flat[0], rtol=1e-14)
    umax, change = drift_after_steps(sim)
    assert umax < TOLERANCE and change < TOLERANCE, (umax, change)


def test_isothermal_layer_with_gravity_along_x_upward_and_symmetric_lnrho_walls():
    """Gravity along +x, lnrho 's' walls (not exact on a linear lnrho): the
    Newton correction balances it all the same."""
    walls = {"x": {"ux": "a", "uy": "s", "uz": "s", "lnrho": "s"}}
    sim = ac.Simulation(shape=(20, 4, 4), box=(1.5, 1.0, 1.0), backend="cpu", gravity=(0.7, 0.0, 0.0),
                        boundaries=walls, nu=1e-2)
    ac.init.hydrostatic(sim, kind="isothermal")
    # the bottom is the upper x wall; 's' bends lnrho next to the walls, by 0.016 of its 1.6 here
    assert sim["lnrho"][-1, 0, 0] == pytest.approx(0.0, abs=0.03)
    assert sim["lnrho"][0, 0, 0] == pytest.approx(-0.7 * 1.5, abs=0.03)
    umax, change = drift_after_steps(sim)
    assert umax < TOLERANCE and change < TOLERANCE, (umax, change)


def polytrope(n, mpoly=1.0, ss_walls="a2", **kw):
    sim = layer(n, energy="entropy", walls={"z": {**WALL, "ss": ss_walls}})
    return sim, ac.init.hydrostatic(sim, kind="polytropic", mpoly=mpoly, **kw)


@pytest.mark.parametrize("n", [17, 32])
@pytest.mark.parametrize("mpoly", [1.0, 1.5, 2.5])
def test_polytropic_layer_stays_at_rest(n, mpoly):
    """Superadiabatic (1.0), adiabatic (1.5 = 1 / (gamma - 1)) and stable
    (2.5) polytropes: balanced on the grid, they stay at rest to round-off
    (the analytic profile accelerates at O(dz) next to the walls,
    tests/test_walls_entropy.py)."""
    sim, _ = polytrope(n, mpoly)
    umax, change = drift_after_steps(sim)
    assert umax < TOLERANCE and change < TOLERANCE, (umax, change)


def test_polytrope_with_set_entropy_walls_stays_at_rest():
    _, profiles = polytrope(24)
    ss = [float(profiles["ss"][i]) for i in (0, -1)]
    sim, _ = polytrope(24, ss_walls=(f"set:{ss[0]!r}", f"set:{ss[1]!r}"))
    umax, change = drift_after_steps(sim)
    assert umax < TOLERANCE and change < TOLERANCE, (umax, change)


def test_polytrope_is_the_pencil_codes_to_truncation_error():
    """The Pencil Code's polytropic_simple: cs2 = cs^2 + gamma g (z - zref)
    / (mpoly + 1), lnrho = ln rho0 + mpoly ln(cs2 / cs^2), ss from the ideal
    gas.  The analytic profile's force is O(1) next to the walls at these
    resolutions; the balanced one differs from it by a correction that
    falls at order about 2 (1.72, 1.86 measured; largest at the top wall,
    where lnrho curves most) and the force is round-off; zinfty in place of
    zref gives the same layer."""
    gamma, mpoly, corrections = 5 / 3, 1.0, []
    for n in (17, 33, 65):
        sim, profiles = polytrope(n, mpoly)
        cs2 = 1.0 - gamma * sim.z / (mpoly + 1)
        analytic = mpoly * np.log(cs2)
        np.testing.assert_allclose(profiles["ss"], ((mpoly + 1) / gamma - mpoly) * np.log(cs2), atol=1e-15)
        corrections.append(np.abs(profiles["lnrho"] - analytic).max())
        assert np.abs(sim.rhs()["uz"][:, :, 1:-1]).max() < 1e-13
        sim["lnrho"] = np.broadcast_to(analytic, sim.shape).copy()
        assert np.abs(sim.rhs()["uz"][:, :, 1:-1]).max() > 1e-3  # what the correction removes
    orders = [math.log2(corrections[i] / corrections[i + 1]) for i in range(2)]
    assert min(orders) >= 1.6 and corrections[-1] < 1.5e-3, (corrections, orders)
    zinfty = (mpoly + 1) / gamma  # where cs2 reaches 0 above zref = 0
    _, by_zinfty = polytrope(17, mpoly, zinfty=zinfty)
    _, by_zref = polytrope(17, mpoly)
    np.testing.assert_allclose(by_zinfty["lnrho"], by_zref["lnrho"], rtol=0, atol=1e-13)


def test_diffusion_that_moves_the_layer_is_named_in_a_warning():
    sim = layer(energy="entropy", chi=1e-2)
    with pytest.warns(RuntimeWarning, match="chi = 0.01"):
        ac.init.hydrostatic(sim, kind="polytropic")


BAD = [
    ("gravity", dict(gravity=(0.0, 0.0, 0.0)), {}),
    ("gravity", dict(gravity=(0.0, 0.3, -1.0)), {}),
    ("boundaries", dict(walls={"x": {**WALL, "ux": "a", "uz": "s"}}), {}),
    ("energy", {}, dict(kind="polytropic")),
    ("'uz'", dict(walls={"z": {**WALL, "uz": "s"}}), {}),
    ("'ux'", dict(walls={"z": {**WALL, "ux": "set:0.5"}}), {}),
    ("'lnrho'", dict(walls={"z": {**WALL, "lnrho": ("set:0.0", "a2")}}), {}),
    ("'ss'", dict(energy="entropy", walls={"z": {**WALL, "ss": ("a2", "set:1.0")}}), dict(kind="polytropic")),
    ("zinfty", dict(energy="entropy"), dict(kind="polytropic", zinfty=0.5)),
    ("zinfty", dict(energy="entropy"), dict(kind="isothermal", zinfty=2.0)),
    ("mpoly", dict(energy="entropy"), dict(kind="polytropic", mpoly=-1.0)),
    ("kind", {}, dict(kind="adiabatic")),
]


@pytest.mark.parametrize("name, setup, arguments", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_a_setup_that_cannot_be_at_rest_is_refused_naming_the_parameter(name, setup, arguments):
    sim = layer(**setup)
    before = sim["lnrho"].copy()
    with pytest.raises(ValueError, match=name):
        ac.init.hydrostatic(sim, **arguments)
    assert np.array_equal(sim["lnrho"], before)  # nothing written


POLYTROPE_TOML = {
    "grid": {"shape": [4, 4, 20], "box": [1.0, 1.0, 1.0]},
    "physics": {"energy": "entropy", "gravity": [0.0, 0.0, -1.0], "nu": 0.01},
    "boundaries": {"z": {**WALL, "ss": "a2"}},
    "numerics": {"backend": "cpu"},
    "initial": {"stratification": "polytropic", "mpoly": 1.2, "zref": 0.25},
}


def test_stratification_from_the_toml_file_is_the_python_layer():
    sim = build_simulation(run_config.validate(POLYTROPE_TOML))
    python = layer(20, energy="entropy")
    ac.init.hydrostatic(python, kind="polytropic", mpoly=1.2, zref=0.25)
    for field in ("lnrho", "ss"):
        assert np.array_equal(sim[field], python[field]), field
    umax, change = drift_after_steps(sim)
    assert umax < TOLERANCE and change < TOLERANCE, (umax, change)


@pytest.mark.parametrize("initial, name", [
    ({"stratification": "polytropic", "kind": "radial_explosion"}, "stratification"),
    ({"stratification": "isothermal", "kind": "sine_wave", "field": "lnrho"}, "stratification"),
    ({"stratification": "polytropic", "zref": "top"}, "zref"),
    ({"stratification": "layered"}, "stratification"),
])
def test_toml_stratification_errors_name_the_key(initial, name):
    with pytest.raises(run_config.ConfigError, match=name):
        run_config.validate({**POLYTROPE_TOML, "initial": initial})


def test_toml_polytrope_without_entropy_is_refused_naming_energy():
    physics = {k: v for k, v in POLYTROPE_TOML["physics"].items() if k != "energy"}
    config = run_config.validate({**POLYTROPE_TOML, "physics": physics, "boundaries": {"z": WALL}})
    with pytest.raises(ValueError, match="energy"):
        build_simulation(config)


def test_conv_slab_shows_its_progress_and_is_quiet_when_asked(capsys):
    from astaroth import stability

    stream = io.StringIO()
    stability.conv_slab(shape=(8, 1, 8), n=16, progress=stream)
    assert "161 of 161 eigenvalue problems" in stream.getvalue()
    stability.conv_slab(shape=(8, 1, 8), n=16, progress=False)
    assert capsys.readouterr().err == ""


def test_the_stratified_page_names_every_key_and_its_toml_block_runs():
    """docs/guide/stratified.md documents the [initial] keys the README's
    TOML block leaves to it (astaroth.config.DOCUMENTED_ON), and its
    TOML block builds a layer at rest (on a smaller grid)."""
    import pathlib
    import re
    import tomllib

    page = (pathlib.Path(__file__).parent.parent / "docs" / "guide" / "stratified.md").read_text()
    for key in run_config.DOCUMENTED_ON["docs/guide/stratified.md"]["initial"]:
        assert f"`{key}" in page, key
    user = tomllib.loads(re.search(r"```toml\n(.*?)```", page, re.S).group(1))
    user["grid"]["shape"] = [8, 8, 16]
    user["numerics"] = {"backend": "cpu"}
    sim = build_simulation(run_config.validate(user))
    assert 0 < np.abs(sim["uz"]).max() < 1e-3  # the seed of random_velocity
    for velocity in ("ux", "uy", "uz"):
        sim[velocity] = 0.0
    assert np.abs(sim.rhs()["uz"][:, :, 1:-1]).max() < 1e-13
