"""Sweeps (astaroth/sweeps.py, `astaroth sweep CONFIG.toml`): every member of
the grid runs, the table holds each member's time series beside its
parameters, a killed sweep goes on without running finished members again,
a member that blows up is reported while the others run on, bad input is
refused naming the parameter."""
import gc
import json
import os
import signal
import subprocess
import sys
import time
import weakref

import numpy as np
import pytest

import astaroth as ac
from astaroth import config as configuration
from astaroth import sweeps
from astaroth.cli import main
from astaroth.diagnostics import row

pandas = pytest.importorskip("pandas")


def make(nu, seed=1, urms=0.05):
    """A small forced-free member: random velocity of rms `urms` (seeded) at 8^3."""
    sim = ac.Simulation(shape=(8, 8, 8), nu=nu, backend="cpu")
    ac.init.random_velocity(sim, urms=urms, seed=seed)
    return sim


def make_shock(amplitude, nu=1e-4):
    """A sine wave of speed `amplitude` on a line: at amplitude 5 (Mach 5) it steepens and blows up near t = 0.85."""
    sim = ac.Simulation(shape=(16, 1, 1), nu=nu, backend="cpu")
    ac.init.sine_wave(sim, field="ux", amplitude=amplitude, k=1.0)
    return sim


GRID = {"nu": [0.01, 0.02], "seed": [1, 2, 3]}


def test_every_member_runs_and_the_table_holds_its_parameters_and_time_series(tmp_path):
    table = ac.sweep(make, GRID, until=0.5, rundir=tmp_path / "s", every=0.125, progress=False)
    assert list(table.columns[:4]) == ["nu", "seed", "member", "status"] and table.columns[-1] == "final"
    assert {"it", "t", "dt", "urms", "ekin"} <= set(table.columns)
    final = table[table.final]
    assert list(zip(final.nu, final.seed)) == [(nu, s) for nu in GRID["nu"] for s in GRID["seed"]]  # last fastest
    assert list(final.member) == list(range(6)) and set(table.status) == {"done"}
    for _, rows in table.groupby("member"):
        assert list(rows.t) == [0.0, 0.125, 0.25, 0.375, 0.5]  # one time axis for every member
    # each member is the run it would be alone, bit for bit (Ensemble's members step as solo runs do)
    for _, last in final.iterrows():
        alone = make(last.nu, int(last.seed))
        for t in (0.125, 0.25, 0.375, 0.5):
            alone.run(until=t)
        assert last.it == alone.steps and last.urms == row(alone, 0.0)["urms"]
    # the same table as CSV in the run directory, for pandas.read_csv
    stored = pandas.read_csv(tmp_path / "s" / "sweep.csv", engine="python")  # exact, as docs/guide/sweeps.md says
    assert list(stored.columns) == list(table.columns) and np.array_equal(stored.urms, table.urms)


def test_a_sweep_called_again_reads_its_finished_members_and_runs_none(tmp_path):
    table = ac.sweep(make, GRID, until=0.3, rundir=tmp_path, progress=False)
    files = sorted((tmp_path / "members").iterdir())
    assert len(files) == 6
    stamps = [f.stat().st_mtime_ns for f in files]
    made = []
    again = ac.sweep(lambda nu, seed: made.append((nu, seed)) or make(nu, seed), GRID, until=0.3, rundir=tmp_path,
                     progress=False)
    assert made == [] and again.equals(table)
    assert [f.stat().st_mtime_ns for f in files] == stamps


KILLED = """
import os, sys, time
import astaroth as ac
sys.path.insert(0, {tests!r})
from test_sweep import make

def slow(nu, seed):
    with open("made.log", "a") as f:
        f.write(f"{{nu}} {{seed}}\\n")
    time.sleep(0.3)  # each member takes a while: the parent kills the sweep between two of them
    return make(nu, seed)

ac.sweep(slow, {grid!r}, until=0.3, rundir="s", wave=1, progress=False)
"""


def test_a_killed_sweep_goes_on_without_running_its_finished_members_again(tmp_path):
    script = KILLED.format(tests=os.path.dirname(__file__), grid=GRID)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    members = tmp_path / "s" / "members"
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        if members.is_dir() and len(list(members.glob("[0-9]*.json"))) >= 2:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    assert child.wait(timeout=60) == -signal.SIGKILL, child.stderr.read()
    finished = {f.name: f.stat().st_mtime_ns for f in members.glob("[0-9]*.json")}
    assert 2 <= len(finished) < 6
    made = []
    table = ac.sweep(lambda nu, seed: made.append((nu, seed)) or make(nu, seed), GRID, until=0.3,
                     rundir=tmp_path / "s", wave=1, progress=False)
    assert len(made) == 6 - len(finished)  # only the members not finished
    done = {tuple(json.loads((members / name).read_text())["params"].values()) for name in finished}
    assert not done & set(made)
    assert {f.name: f.stat().st_mtime_ns for f in members.glob("[0-9]*.json") if f.name in finished} == finished
    assert not list((tmp_path / "s").glob(".tmp-*")) and not list(members.glob(".tmp-*"))
    # and the table is the uninterrupted sweep's, row for row
    straight = ac.sweep(make, GRID, until=0.3, rundir=tmp_path / "straight", wave=1, progress=False)
    assert table.equals(straight)


def test_a_member_that_blows_up_is_reported_and_the_others_run_on(tmp_path):
    with pytest.warns(RuntimeWarning, match=r"1 of 3 sweep members blew up.*member 1 \(amplitude=5.0\)"):
        table = ac.sweep(make_shock, {"amplitude": [0.01, 5.0, 0.02]}, until=2.0, rundir=tmp_path, every=0.5,
                         progress=False)
    final = table[table.final].set_index("amplitude")
    assert list(final.status) == ["done", "blew up", "done"]
    assert final.t[0.01] == final.t[0.02] == 2.0 and 0.5 < final.t[5.0] < 1.0  # it blew up near t = 0.85
    assert not np.isfinite(final.urms[5.0]) and np.isfinite(final.urms[0.02])
    assert "NaN or Inf" in table.attrs["messages"][1]
    # on a later call the member that blew up counts as finished: nothing runs again
    made = []
    with pytest.warns(RuntimeWarning, match="blew up"):
        ac.sweep(lambda amplitude: made.append(amplitude) or make_shock(amplitude), {"amplitude": [0.01, 5.0, 0.02]},
                 until=2.0, rundir=tmp_path, every=0.5, progress=False)
    assert made == []


def test_a_member_whose_time_step_falls_below_dtmin_stops_and_the_others_run_on(tmp_path):
    """dtmin (the Pencil Code's), checked at each row: nu = 2 limits the step to about 0.06 at 8^3, nu = 0.01
    leaves it near 0.3."""
    with pytest.warns(RuntimeWarning, match=r"1 of 2 sweep members blew up.*member 1 \(nu=2.0\)"):
        table = ac.sweep(make, {"nu": [0.01, 2.0]}, until=0.5, rundir=tmp_path, every=0.125, dtmin=0.1,
                         progress=False)
    final = table[table.final].set_index("nu")
    assert list(final.status) == ["done", "blew up"] and final.t[0.01] == 0.5 and final.t[2.0] == 0.125
    message = table.attrs["messages"][1]
    assert "< dtmin = 0.1 at step" in message and "nu = 2" in message
    alone = make(2.0)
    alone.run(until=0.125)
    assert f"dt = {alone.cfl_dt():.3g}" in message  # the step the member would take next
    assert json.loads((tmp_path / "sweep.json").read_text())["dtmin"] == 0.1
    # a dtmin below every step changes nothing; a run directory made without dtmin is another sweep's
    table = ac.sweep(make, {"nu": [0.01, 2.0]}, until=0.5, rundir=tmp_path / "low", every=0.125, dtmin=1e-6,
                     progress=False)
    assert set(table.status) == {"done"}
    with pytest.raises(ValueError, match=r"holds a different sweep \(dtmin = 1e-06 there, None here\)"):
        ac.sweep(make, {"nu": [0.01, 2.0]}, until=0.5, rundir=tmp_path / "low", every=0.125, progress=False)
    # a record written before sweeps took dtmin (no such key) is the same sweep as one without it
    record = json.loads((tmp_path / "low" / "sweep.json").read_text())
    del record["dtmin"]
    ac.sweep(make, {"nu": [0.01, 2.0]}, until=0.5, rundir=tmp_path / "old", every=0.125, progress=False)
    (tmp_path / "old" / "sweep.json").write_text(json.dumps({**record, "make": "make"}))
    made = []
    ac.sweep(lambda nu: made.append(nu) or make(nu), {"nu": [0.01, 2.0]}, until=0.5, rundir=tmp_path / "old",
             every=0.125, progress=False)
    assert made == []


def test_members_run_in_waves_of_at_most_wave_members(tmp_path):
    alive, most = [], [0]

    def counted(nu, seed):
        gc.collect()
        most[0] = max(most[0], sum(ref() is not None for ref in alive) + 1)
        sim = make(nu, seed)
        alive.append(weakref.ref(sim))
        return sim

    ac.sweep(counted, GRID, until=0.2, rundir=tmp_path, wave=4, progress=False)
    assert most[0] == 4 and len(alive) == 6  # a wave of 4, then one of 2


def test_one_progress_line_for_the_whole_sweep(tmp_path, capsys):
    ac.sweep(make, GRID, until=0.2, rundir=tmp_path, progress=True)
    lines = [line for line in capsys.readouterr().err.replace("\r", "\n").splitlines() if line.strip()]
    assert lines and all(line.startswith("sweep: ") for line in lines)  # no ensemble's own line
    assert lines[-1].startswith("sweep: 6 of 6 members done")


@pytest.mark.parametrize("grid, kind, words", [
    ({"nuu": [0.01]}, ValueError, ["'nuu'", "nu, seed, urms"]),
    ({"seed": [1]}, ValueError, ["'nu'", "no default"]),
    ({"nu": []}, ValueError, ["grid['nu']", "empty"]),
    ({"nu": 0.01}, TypeError, ["grid['nu']", "list"]),
    ({"nu": "0.01"}, TypeError, ["grid['nu']", "list"]),
    ({"nu": [0.01, 0.01]}, ValueError, ["grid['nu']", "twice"]),
    ({"nu": [float("nan")]}, ValueError, ["grid['nu']", "finite"]),
    ({"nu": [object()]}, TypeError, ["grid['nu']", "number"]),
    ({"nu": [0.01], "seed": [-1]}, ValueError, ["grid['seed']", "[0, 2**64)"]),
    ({"nu": [0.01], "seed": [1.5]}, TypeError, ["grid['seed']", "integers"]),
    ({"nu": [0.01], "seed": [True]}, TypeError, ["grid['seed']", "integers"]),
    ({}, ValueError, ["grid is empty"]),
    ([("nu", [0.01])], TypeError, ["grid must be a dict"]),
    ({"urms": [0.1]}, ValueError, ["'urms'", "column"]),
])
def test_a_bad_grid_is_refused_naming_the_parameter_before_any_work(tmp_path, grid, kind, words):
    with pytest.raises(kind) as info:
        ac.sweep(make, grid, until=0.1, rundir=tmp_path / "s", progress=False)
    for word in words:
        assert word in str(info.value)
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("arguments, kind, words", [
    ({"until": 0.0}, ValueError, ["until"]),
    ({"until": "1"}, TypeError, ["until"]),
    ({"every": -1.0}, ValueError, ["every"]),
    ({"wave": 0}, ValueError, ["wave"]),
    ({"wave": 1.5}, ValueError, ["wave"]),
    ({"diagnostics": ["urms", "emag"]}, ValueError, ["diagnostics", "'emag'"]),
    ({"progress": "yes"}, TypeError, ["progress"]),
    ({"cdt": -0.4}, ValueError, ["cdt"]),
    ({"rundir": 3}, TypeError, ["rundir"]),
    ({"dtmin": 0.0}, ValueError, ["dtmin", "positive"]),
    ({"dtmin": "1e-6"}, TypeError, ["dtmin"]),
])
def test_bad_arguments_are_refused_naming_them(tmp_path, arguments, kind, words):
    given = {"until": 0.1, "rundir": tmp_path / "s", "progress": False, **arguments}
    with pytest.raises(kind) as info:
        ac.sweep(make, GRID, **given)
    for word in words:
        assert word in str(info.value)
    assert not (tmp_path / "s").exists()


def test_make_must_be_callable_and_return_a_simulation(tmp_path):
    with pytest.raises(TypeError, match="make must be a function"):
        ac.sweep("make", GRID, until=0.1, rundir=tmp_path, progress=False)
    with pytest.raises(TypeError, match=r"make\(nu=0.01\) returned dict, not an astaroth.Simulation"):
        ac.sweep(lambda nu: {}, {"nu": [0.01]}, until=0.1, rundir=tmp_path, progress=False)


def test_a_run_directory_of_another_sweep_is_refused_naming_what_differs(tmp_path):
    ac.sweep(make, GRID, until=0.2, rundir=tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"holds a different sweep \(grid = .* there, .* here\).*overwrite=True"):
        ac.sweep(make, {"nu": [0.01, 0.03], "seed": [1, 2, 3]}, until=0.2, rundir=tmp_path, progress=False)
    with pytest.raises(ValueError, match=r"until = 0.2 there, 0.3 here"):
        ac.sweep(make, GRID, until=0.3, rundir=tmp_path, progress=False)
    made = []
    table = ac.sweep(lambda nu: made.append(nu) or make(nu), {"nu": [0.01, 0.03]}, until=0.3, rundir=tmp_path,
                     progress=False, overwrite=True)
    assert made == [0.01, 0.03] and len(list((tmp_path / "members").iterdir())) == 2 and len(table[table.final]) == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds files but no sweep.json"):
        ac.sweep(make, GRID, until=0.2, rundir=tmp_path / "other", progress=False)


# --- astaroth sweep CONFIG.toml ---------------------------------------------------------
SWEEP = {"grid": {"shape": [8, 8, 8]}, "physics": {"nu": 0.02}, "numerics": {"backend": "cpu"},
         "initial": {"kind": "random_velocity", "urms": 0.05}, "output": {"until": 0.3, "progress": False},
         "sweep": {"physics.nu": [0.01, 0.02], "seed": [1, 2], "every": 0.1}}


def sweep_file(tmp_path, tables=SWEEP, **changes):
    """The TOML file of `tables` (writing to tmp_path/out), then changes {"old text": "new text"} made to it."""
    tables = {**tables, "output": {"dir": (tmp_path / "out").as_posix(), **tables["output"]}}
    text = "".join(f"[{section}]\n" + "".join(f"{key} = {configuration.toml_value(value)}\n" for key, value in keys.items())
                   for section, keys in tables.items())
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    return str(path)


def test_astaroth_sweep_runs_the_files_members_and_goes_on_from_its_directory(tmp_path, capsys):
    path = sweep_file(tmp_path)
    assert main(["sweep", path, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "4 members (2 physics.nu x 2 seed)" in out and "member 3: physics.nu = 0.02, seed = 2: done at t = 0.3" in out
    table = pandas.read_csv(tmp_path / "out" / "sweep.csv", engine="python")  # exact, as docs/guide/sweeps.md says
    assert list(table.columns[:4]) == ["physics.nu", "seed", "member", "status"]
    assert list(table[table.member == 2].t) == [0.0, 0.1, 0.2, 0.3]
    # the members are those of `astaroth run` with each combination
    one = ac.Simulation(shape=(8, 8, 8), nu=0.02, backend="cpu", dtype="float64")
    ac.init.random_velocity(one, urms=0.05, spectrum=lambda k: k ** -2.0, seed=2)
    for t in (0.1, 0.2, 0.3):
        one.run(until=t)
    assert table[table.member == 3].urms.iloc[-1] == row(one, 0.0)["urms"]
    stamps = {f: f.stat().st_mtime_ns for f in (tmp_path / "out" / "members").iterdir()}
    assert main(["sweep", path, "--quiet"]) == 0  # again: read, not run
    assert {f: f.stat().st_mtime_ns for f in (tmp_path / "out" / "members").iterdir()} == stamps
    capsys.readouterr()
    longer = sweep_file(tmp_path, **{"until = 0.3": "until = 0.4"})
    assert main(["sweep", longer, "--quiet"]) == 2
    assert "holds a different sweep (until = 0.3 there, 0.4 here" in capsys.readouterr().err
    assert main(["sweep", longer, "--quiet", "--overwrite"]) == 0


def test_astaroth_sweep_exits_4_naming_the_members_that_blew_up(tmp_path, capsys):
    shock = {**SWEEP, "grid": {"shape": [16, 1, 1]}, "physics": {"nu": 1e-4},
             "initial": {"kind": "sine_wave", "field": "ux"}, "output": {"until": 1.5, "progress": False},
             "sweep": {"initial.amplitude": [0.01, 5.0]}}
    assert main(["sweep", sweep_file(tmp_path, shock), "--quiet"]) == 4
    captured = capsys.readouterr()
    assert "member 1: initial.amplitude = 5.0: blew up at t = 0.8" in captured.out
    assert "1 of 2 sweep members blew up" in captured.err and "member 1 (initial.amplitude=5.0)" in captured.err


@pytest.mark.parametrize("changes, words", [
    ({"physics.nu = [0.01, 0.02]": "physics.nuu = [0.01]"}, ["[sweep] physics.nuu", "allowed keys"]),
    ({"physics.nu = [0.01, 0.02]": "physics.nu = 0.01"}, ["[sweep] physics.nu", "non-empty list"]),
    ({"physics.nu = [0.01, 0.02]": "physics.nu = []"}, ["[sweep] physics.nu", "non-empty list"]),
    ({"physics.nu = [0.01, 0.02]": "physics.nu = [0.01, -1.0]"}, ["[sweep] physics.nu = -1.0", ">= 0"]),
    ({"seed = [1, 2]": "seed = [1, -2]"}, ["[sweep] seed = -2", "non-negative integer"]),
    ({"seed = [1, 2]": "seeds = [1, 2]"}, ["'seeds' in [sweep]", "SECTION.KEY"]),
    ({"every = 0.1": "every = -1.0"}, ["[sweep] every", ">= 0"]),
    ({"every = 0.1": "wave = 1.5"}, ["[sweep] wave", "integer"]),
    ({"physics.nu = [0.01, 0.02]\nseed = [1, 2]": "output.until = [1.0]"}, ["'output' in [sweep]"]),
    ({"physics.nu = [0.01, 0.02]\nseed = [1, 2]\n": ""}, ["[sweep] sweeps nothing"]),
    ({"[sweep]\nphysics.nu = [0.01, 0.02]\nseed = [1, 2]\nevery = 0.1\n": ""}, ["no [sweep] table"]),
    ({"physics.nu = [0.01, 0.02]": "grid.shape = [[8, 8, 8], [8, 0, 8]]"},
     ["[sweep] grid.shape = [8, 0, 8]", "at least 1"]),
    ({"[sweep]": "[forcing]\nkmin = 1.0\nkmax = 2.0\n[sweep]\nforcing.kmax = [2.0, 0.5]"},
     ["the member", "forcing.kmax = 0.5", "kmax must be >= kmin"]),
])
def test_a_bad_sweep_table_is_refused_naming_the_key(tmp_path, capsys, changes, words):
    assert main(["sweep", sweep_file(tmp_path, **changes), "--quiet"]) == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err
    assert not (tmp_path / "out").exists()


def test_astaroth_run_refuses_a_sweep_table(tmp_path, capsys):
    assert main(["run", sweep_file(tmp_path), "--quiet", "--no-plot"]) == 2
    assert "[sweep] is for `astaroth sweep CONFIG.toml`" in capsys.readouterr().err


def test_the_cli_sweeps_without_pandas(tmp_path):
    """`astaroth sweep` writes its table with the csv module: a child without pandas runs it."""
    path = sweep_file(tmp_path, **{"seed = [1, 2]": "seed = [1]"})
    code = ("import sys; sys.modules['pandas'] = None\n"
            "from astaroth.cli import main\n"
            f"sys.exit(main(['sweep', {path!r}, '--quiet']))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out" / "sweep.csv").read_text().startswith("physics.nu,seed,member,status,it,t,dt")
    api = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pandas'] = None; import astaroth as ac; "
                          "ac.sweep(lambda seed: None, {'seed': [1]}, until=1.0, rundir='x')"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert api.returncode == 1 and "ImportError: ac.sweep returns a pandas DataFrame: pip install pandas" in api.stderr
    assert not (tmp_path / "x").exists()  # refused before any work


def test_the_record_files_hold_what_the_docstring_says(tmp_path):
    ac.sweep(make, {"nu": [0.01]}, until=0.1, rundir=tmp_path, progress=False)
    spec = json.loads((tmp_path / sweeps.SPEC).read_text())
    assert spec["format"] == sweeps.FORMAT and spec["grid"] == {"nu": [0.01]} and spec["until"] == 0.1
    record = json.loads((tmp_path / sweeps.MEMBERS / "00000.json").read_text())
    assert record["params"] == {"nu": 0.01} and record["status"] == "done" and record["columns"][:3] == ["it", "t", "dt"]


def test_sweep_help_lists_the_sweep_table_and_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    text = capsys.readouterr().out
    assert "SECTION.KEY = [values]" in text and "seed = [values]" in text and "exit status: 0" in text
    for key in configuration.SWEEP:
        assert f"    {key} = " in text
