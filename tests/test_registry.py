"""The parameter registry (csrc/parameters.def, astaroth.parameters) and what
derives from it; `astaroth run --restart` with changed run-time parameters."""
import json
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth import _core, config as configuration, parameters as registry
from astaroth.cli import main

ROWS = {"nu", "cs", "eta", "mu0", "b_ext", "nu_hyper3", "diff_hyper3", "nu_shock", "gravity", "omega",
        "shear", "x0_shear", "gamma", "cp", "rho0", "chi", "chi_hyper3",  # energy="entropy"
        "pscalar_diff",  # passive_scalar=True (the first module added through the registry)
        "pscalar_diff2"}  # passive_scalar=2: the second copy of the scalar module (fields by count)


def test_rows_have_the_documented_keys():
    rows = ac.parameters()
    assert {r["name"] for r in rows} == ROWS
    for r in rows:
        for key in ("name", "default", "module", "description", "restart", "bounds", "unit", "kind", "term"):
            assert key in r, (r["name"], key)
        assert r["module"] in {m["name"] for m in registry.modules()}
        assert isinstance(r["restart"], bool) and r["description"] and r["unit"]
    by_name = {r["name"]: r for r in rows}
    assert by_name["b_ext"]["kind"] == "vector" and by_name["b_ext"]["default"] == (0.0, 0.0, 0.0)
    assert by_name["mu0"]["bounds"] == (0.0, math.inf) and by_name["mu0"]["lower_open"]
    assert by_name["eta"]["module"] == "magnetic" and by_name["nu"]["module"] == "hydro"
    # the Pencil Code's run.in parameters may change on a restart, its start.in ones may not
    assert {r["name"] for r in rows if r["restart"]} == {"nu", "eta", "b_ext", "nu_hyper3", "diff_hyper3", "nu_shock",
                                                         "chi", "chi_hyper3", "pscalar_diff", "pscalar_diff2", "omega",
                                                         "shear", "x0_shear"}
    assert "| `nu` |" in registry.table()


def test_simulation_keywords_properties_and_fields_come_from_the_tables():
    sim = ac.Simulation(shape=8, backend="cpu")
    for r in ac.parameters():
        assert getattr(sim, r["name"]) == r["default"]
        assert r["description"] in type(sim).__dict__[r["name"]].__doc__
    assert sim.field_names == tuple(name for name, module, role in _core.field_table() if module == "hydro")
    mhd = ac.Simulation(shape=8, backend="cpu", physics="mhd", b_ext=0.5)
    assert mhd.field_names == tuple(name for name, module, role in _core.field_table() if module in ("hydro", "magnetic"))
    assert mhd.b_ext == (0.5, 0.5, 0.5) and mhd.modules == ("hydro", "magnetic")
    assert ac.Simulation(shape=8, backend="cpu").parameters().keys() == {
        "shape", "box", "origin", "dtype", "method", "nu", "cs"}
    assert {"physics", "eta", "mu0", "b_ext"} <= mhd.parameters().keys()
    assert "nu_hyper3" not in mhd.parameters()


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(nu_hyper3=-1.0), ValueError, ["nu_hyper3", ">= 0"]),
    (dict(diff_hyper3=float("inf")), ValueError, ["diff_hyper3", "finite"]),
    (dict(physics="mhd", mu0=-2.0), ValueError, ["mu0", "> 0"]),
    (dict(physics="mhd", b_ext=(1.0, 2.0)), ValueError, ["b_ext", "three"]),
    (dict(physics="mhd", b_ext="north"), TypeError, ["b_ext"]),
    (dict(b_ext=0.5), ValueError, ["b_ext", "module 'magnetic'", "physics='mhd'"]),
    (dict(mu0=2.0, eta=0.1), ValueError, ["eta and mu0", "physics='mhd'"]),
    (dict(nu_shock=1.0, method="19p"), ValueError, ["nu_shock", "55p"]),
    (dict(viscosity=1.0), TypeError, ["viscosity", "parameters are nu, cs"]),
    (dict(physics="entropy"), ValueError, ["physics", "'hydro', 'mhd'"]),
])
def test_bad_parameters_are_refused_generically_naming_them(kwargs, exc, words):
    with pytest.raises(exc) as info:
        ac.Simulation(shape=8, backend="cpu", **kwargs)
    for word in words:
        assert word in str(info.value)


def test_the_binding_takes_parameters_by_name_and_checks_them():
    def grid(modules=1, **params):
        return _core.Grid("cpu", "float64", "55p", (8, 8, 8), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0, 0, 0),
                          modules, params)

    grid(nu=0.1, cs=2.0)
    grid(3, eta=0.1, b_ext=(0.0, 0.0, 1.0))
    for params, exc, words in [(dict(nu=-0.1), ValueError, "nu (kinematic viscosity) must be >= 0"),
                               (dict(viscosity=0.1), ValueError, "unknown parameter 'viscosity'"),
                               (dict(eta=0.1), ValueError, "eta belongs to the module 'magnetic'"),
                               (dict(nu="x"), TypeError, "nu must be a real number"),
                               (dict(b_ext=(0.0, math.nan, 0.0)), ValueError, "b_ext[1]"),
                               (dict(b_ext=1.0), TypeError, "b_ext must be a sequence of 3")]:
        with pytest.raises(exc, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            grid(3 if "b_ext" in params else 1, **params)
    with pytest.raises(ValueError, match="modules = 2 is not a configuration"):
        grid(2)


def test_toml_schema_help_and_restart_rules_come_from_the_table(capsys):
    for name in registry.NAMES:
        assert configuration.SCHEMA["physics"][name] == "parameter"
        default = configuration.DEFAULT["physics"][name]
        expected = configuration.RUN_PHYSICS.get(name, registry.default(name))  # the run's own choices
        assert (tuple(default) if isinstance(default, list) else default) == expected
        assert registry.row(name)["description"] in configuration.HELP["physics"][name]
        restart = registry.row(name)["restart"]
        assert (name in configuration.FIXED_ON_RESTART["physics"]) == (not restart)
        assert (name in configuration.CHANGED_ON_RESTART["physics"]) == restart
    assert configuration.SCHEMA["physics"]["physics"] == ("hydro", "mhd")
    with pytest.raises(configuration.ConfigError, match=r"\[physics\] mu0 = 0.0: must be > 0"):
        configuration.validate({"physics": {"mu0": 0.0}})
    assert configuration.validate({"physics": {"b_ext": 0.5}})["physics"]["b_ext"] == [0.5, 0.5, 0.5]
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    for name in registry.NAMES:
        assert f"    {name} = " in text.split("[physics]")[-1]


def test_snapshots_hold_every_parameter_and_old_ones_load_with_defaults(tmp_path):
    h5py = pytest.importorskip("h5py")
    sim = ac.Simulation(shape=8, backend="cpu", physics="mhd", eta=0.02, b_ext=(0.0, 0.0, 0.3), nu_hyper3=1e-6)
    sim.save(tmp_path / "s.h5", xdmf=False)
    with h5py.File(tmp_path / "s.h5", "r") as f:
        assert set(registry.NAMES) | {"physics"} <= set(f.attrs)
    back = ac.load(tmp_path / "s.h5")
    for name in registry.NAMES:
        assert getattr(back, name) == getattr(sim, name), name
    with h5py.File(tmp_path / "s.h5", "a") as f:  # as a snapshot written before these parameters existed
        for name in ("nu_hyper3", "diff_hyper3", "nu_shock"):
            del f.attrs[name]
    old = ac.load(tmp_path / "s.h5")
    assert old.physics == "mhd" and old.eta == 0.02 and old.nu_hyper3 == 0.0 and old.nu_shock == 0.0
    assert ac.load(tmp_path / "s.h5", parameters={"nu": 0.5, "eta": 0.1}).nu == 0.5
    with h5py.File(tmp_path / "s.h5", "a") as f:
        f.attrs["physics"] = "foo"
    with pytest.raises(ValueError, match=r"s\.h5.*physics"):
        ac.load(tmp_path / "s.h5")


# --- astaroth run --restart with changed run-time parameters -------------------- ----------------------
RUN = """
[grid]
shape = [16, 8, 8]
box = 6.283185307179586
[physics]
nu = 0.02
physics = "mhd"
eta = 0.02
b_ext = [0.0, 0.0, 0.1]
[numerics]
backend = "cpu"
[initial]
kind = "random_velocity"
urms = 0.05
seed_field = 0.01
[forcing]
kmin = 1.0
kmax = 2.0
f0 = 0.05
seed = 3
[output]
dir = "{dir}"
until = 0.4
snapshot_every = 0.2
timeseries_every = 2
progress = false
"""


def write(tmp_path, text, name="run.toml", **changes):
    text = text.format(dir=(tmp_path / "out").as_posix())
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_restart_takes_changed_run_time_parameters_reports_and_records_them(tmp_path, capsys):
    h5py = pytest.importorskip("h5py")
    assert main(["run", write(tmp_path, RUN), "--quiet", "--no-plot"]) == 0
    stop = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    capsys.readouterr()
    changed = write(tmp_path, RUN, "changed.toml", **{
        "until = 0.4": "until = 0.8", "nu = 0.02": "nu = 0.03\nnu_hyper3 = 1e-7", "eta = 0.02": "eta = 0.01",
        "b_ext = [0.0, 0.0, 0.1]": "b_ext = [0.0, 0.1, 0.1]", "f0 = 0.05": "f0 = 0.07", "kmax = 2.0": "kmax = 2.5",
        "seed = 3": "seed = 3\nrelhel = 1.0"})
    assert main(["run", changed, "--restart", "--quiet", "--no-plot"]) == 0
    out = capsys.readouterr().out
    for line in ("[physics] nu = 0.03 (was 0.02)", "[physics] nu_hyper3 = 1e-07 (was 0.0)",
                 "[physics] eta = 0.01 (was 0.02)", "[physics] b_ext = [0.0, 0.1, 0.1] (was [0.0, 0.0, 0.1])",
                 "[forcing] f0 = 0.07 (was 0.05)", "[forcing] kmax = 2.5 (was 2.0)",
                 "[forcing] relhel = 1.0 (was 0.0)"):
        assert f"astaroth: restart takes {line}\n" in out, line
    end = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    assert (end.nu, end.eta, end.b_ext, end.nu_hyper3) == (0.03, 0.01, (0.0, 0.1, 0.1), 1e-7)
    assert (end.forcing.f0, end.forcing.kmax, end.forcing.relhel, end.forcing.seed) == (0.07, 2.5, 1.0, 3)
    history = json.loads(ac.io.attributes(tmp_path / "out" / "checkpoint.h5")["restart_history"])
    assert len(history) == 1 and history[0]["steps"] == stop.steps and history[0]["t"] == pytest.approx(0.4)
    assert history[0]["changes"]["[physics] nu"] == [0.02, 0.03]
    assert history[0]["changes"]["[forcing] f0"] == [0.05, 0.07]

    # the same continuation by hand: the checkpoint with the new values, the generator where it was
    by_hand = ac.load(tmp_path / "out" / f"snapshot_{stop.steps:07d}.h5", backend="cpu",
                      parameters={"nu": 0.03, "nu_hyper3": 1e-7, "eta": 0.01, "b_ext": (0.0, 0.1, 0.1)})
    state = by_hand._grid.forcing_state
    by_hand.forcing = ac.Forcing(kmin=1.0, kmax=2.5, f0=0.07, seed=3, relhel=1.0)
    by_hand._grid.forcing_state = state
    for until in (3 * 0.2, 4 * 0.2):  # the segment ends of the command line: multiples of snapshot_every
        by_hand.run(until=until)
    assert by_hand.steps == end.steps
    for name in end.field_names:
        np.testing.assert_array_equal(by_hand[name], end[name])

    # a later restart that changes nothing keeps the history; one that changes again adds to it
    again = write(tmp_path, open(changed).read().replace(str(tmp_path / "out"), "{dir}"), "again.toml",
                  **{"until = 0.8": "until = 1.0"})
    assert main(["run", again, "--restart", "--quiet", "--no-plot"]) == 0
    assert "restart takes [physics]" not in capsys.readouterr().out
    assert len(json.loads(ac.io.attributes(tmp_path / "out" / "checkpoint.h5")["restart_history"])) == 1
    third = write(tmp_path, open(changed).read().replace(str(tmp_path / "out"), "{dir}"), "third.toml",
                  **{"until = 0.8": "until = 1.2", "nu = 0.03": "nu = 0.04"})
    assert main(["run", third, "--restart", "--quiet", "--no-plot"]) == 0
    history = json.loads(ac.io.attributes(tmp_path / "out" / "checkpoint.h5")["restart_history"])
    assert [list(h["changes"]) for h in history][1] == ["[physics] nu"] and history[1]["t"] == pytest.approx(1.0)
    with h5py.File(tmp_path / "out" / "checkpoint.h5", "r") as f:
        assert f.attrs["nu"] == 0.04


@pytest.mark.parametrize("change, refused", [
    ({"nu = 0.02": "nu = 0.02\ncs = 2.0"}, "[physics] cs = 2.0 (checkpoint: 1.0)"),
    ({"eta = 0.02": "eta = 0.02\nmu0 = 2.0"}, "[physics] mu0 = 2.0 (checkpoint: 1.0)"),
    ({'physics = "mhd"\neta = 0.02\nb_ext = [0.0, 0.0, 0.1]': 'physics = "hydro"',
      "seed_field = 0.01": "seed_field = 0.0"}, '[physics] physics = "hydro" (checkpoint: "mhd")'),
    ({"box = 6.283185307179586": "box = 3.0"}, "[grid] box = [3.0, 3.0, 3.0]"),
    ({"[numerics]": "[numerics]\nmethod = \"19p\""}, '[numerics] method = "19p" (checkpoint: "55p")'),
    ({"nu = 0.02": "nu = 0.02\npassive_scalar = 2"}, "[physics] passive_scalar = 2 (checkpoint: 0)"),
])
def test_restart_refuses_the_grid_box_dtype_method_switches_and_start_parameters(tmp_path, capsys, change, refused):
    pytest.importorskip("h5py")
    assert main(["run", write(tmp_path, RUN), "--quiet", "--no-plot"]) == 0
    before = (tmp_path / "out" / "checkpoint.h5").read_bytes()
    capsys.readouterr()
    text = RUN
    for old, new in change.items():
        assert old in text
        text = text.replace(old, new)
    bad = write(tmp_path, text.replace("nu = 0.02\n", "nu = 0.025\n"), "bad.toml")  # and one that may change
    assert main(["run", bad, "--restart", "--quiet", "--no-plot"]) == 2
    err = capsys.readouterr().err
    assert refused in err and "cannot change on a restart" in err
    assert "these may change on a restart: [physics] nu = 0.025 (checkpoint: 0.02)" in err
    assert (tmp_path / "out" / "checkpoint.h5").read_bytes() == before


def test_terms_name_the_backends_that_run_them():
    """ac.terms()'s backends: every compiled backend but those whose terms_missing names the term (none
    today: the CUDA backend runs the shearing box too; a notebook asks this before taking the GPU)."""
    rows = {t["name"]: t["backends"] for t in ac.terms()}
    compiled = _core.compiled_backends()
    assert rows["continuity"] == rows["coriolis"] == rows["shear"] == compiled
    assert all(_core.terms_missing(b) == [] for b in compiled)
