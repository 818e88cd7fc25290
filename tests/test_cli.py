"""`astaroth run CONFIG.toml`, its checks, restarts and pictures."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import astaroth as ac
from astaroth import config as configuration
from astaroth.cli import main

SMALL = """
[grid]
shape = [16, 16, 8]
box = 6.283185307179586
[physics]
nu = 0.01
[numerics]
backend = "cpu"
[initial]
kind = "random_velocity"
urms = 0.05
[forcing]
kmin = 1.0
kmax = 2.0
f0 = 0.05
seed = 3
[output]
dir = "{dir}"
until = 0.6
snapshot_every = 0.3
timeseries_every = 2
progress = false
"""


def write(tmp_path, text):
    path = tmp_path / "run.toml"
    path.write_text(text.format(dir=(tmp_path / "out").as_posix()))
    return path


@pytest.mark.parametrize("text, words", [
    ("[grid]\nshpae = [8, 8, 8]\n", ["shpae", "allowed keys", "shape"]),
    ("[gird]\n", ["[gird]", "allowed sections", "grid"]),
    ("[physics]\nnu = -1.0\n", ["[physics] nu", ">= 0"]),
    ("[physics]\nnu = \"thick\"\n", ["[physics] nu", "number"]),
    ("[grid]\nshape = [8, 0, 8]\n", ["[grid] shape", "at least 1"]),
    ("[numerics]\nmethod = \"27p\"\n", ["[numerics] method", "'55p'"]),
    ("[output]\ntimeseries_every = 0\n", ["[output] timeseries_every", "positive integer"]),
    ("[forcing]\nkmin = 3.0\nkmax = 2.0\n", ["kmax", "kmin"]),
])
def test_bad_configurations_name_the_key(tmp_path, text, words):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(configuration.ConfigError) as info:
        configuration.load(path)
    for word in words:
        assert word in str(info.value)


def test_cli_reports_config_errors(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text("[grid]\nsize = 3\n")
    assert main(["run", str(path)]) == 2
    assert "unknown key 'size'" in capsys.readouterr().err


def test_run_from_a_file_writes_series_snapshots_and_picture(tmp_path):
    pytest.importorskip("h5py")
    path = write(tmp_path, SMALL)
    assert main(["run", str(path), "--quiet", "--no-plot"]) == 0
    out = tmp_path / "out"
    data = np.genfromtxt(out / "timeseries.csv", delimiter=",", names=True)
    assert data["t"][-1] == pytest.approx(0.6)
    snapshots = sorted(p.name for p in out.glob("snapshot_*.h5"))
    assert len(snapshots) == 2 and (out / "checkpoint.h5").exists()
    sim = ac.load(out / "checkpoint.h5")
    assert sim.t == pytest.approx(0.6) and sim.forcing is not None and sim.shape == (16, 16, 8)
    pytest.importorskip("matplotlib")
    png = tmp_path / "pic.png"
    assert main(["plot", str(out / "checkpoint.h5"), "--timeseries", str(out / "timeseries.csv"), "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_physics_keys_of_the_extended_terms_reach_the_simulation(tmp_path):
    pytest.importorskip("h5py")
    text = SMALL.replace("nu = 0.01\n", "nu = 0.01\nnu_hyper3 = 1e-6\nnu_shock = 0.5\n")
    assert main(["run", str(write(tmp_path, text)), "--quiet", "--no-plot"]) == 0
    sim = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    assert (sim.nu_hyper3, sim.diff_hyper3, sim.nu_shock) == (1e-6, 0.0, 0.5) and sim.t == pytest.approx(0.6)


def test_a_keplerian_shearing_box_from_qshear_in_a_file(tmp_path):
    """[physics] qshear sets shear = -qshear omega_z, as Simulation's keyword does; the snapshot holds the
    shear and deltay; qshear without rotation, or beside shear, is refused naming both keys."""
    pytest.importorskip("h5py")
    text = SMALL.replace("nu = 0.01\n", "nu = 0.01\nomega = [0.0, 0.0, 1.0]\nqshear = 1.5\n")
    text = text[:text.index("[forcing]")] + text[text.index("[output]"):]  # a shearing box unforced
    assert main(["run", str(write(tmp_path, text)), "--quiet", "--no-plot"]) == 0
    sim = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    assert sim.shear == -1.5 and sim.deltay != 0.0 and sim.t > 0
    page = (Path(__file__).parent.parent / "docs" / "guide" / "rotation.md").read_text()
    assert "qshear = 1.5" in page and "qshear" in configuration.DOCUMENTED_ON["docs/guide/rotation.md"]["physics"]
    with pytest.raises(configuration.ConfigError, match="qshear = 1.5 needs a rotating frame"):
        configuration.validate({"physics": {"qshear": 1.5}})
    with pytest.raises(configuration.ConfigError, match="qshear = 1.5 and shear = -1.0"):
        configuration.validate({"physics": {"omega": [0, 0, 1.0], "qshear": 1.5, "shear": -1.0}})


def test_an_mhd_run_from_a_file(tmp_path, capsys):
    pytest.importorskip("h5py")
    text = SMALL.replace("nu = 0.01\n", 'nu = 0.01\nphysics = "mhd"\neta = 0.01\nb_ext = [0.0, 0.0, 0.2]\n')
    text = text.replace("urms = 0.05\n", "urms = 0.05\nseed_field = 1e-4\n")
    assert main(["run", str(write(tmp_path, text)), "--quiet", "--no-plot"]) == 0
    sim = ac.load(tmp_path / "out" / "checkpoint.h5", backend="cpu")
    assert sim.physics == "mhd" and sim.eta == 0.01 and tuple(sim.b_ext) == (0.0, 0.0, 0.2)
    data = np.genfromtxt(tmp_path / "out" / "timeseries.csv", delimiter=",", names=True)
    assert data["brms"][-1] > 0.19  # the imposed field, bent by the flow
    assert 0 < np.max(np.abs(sim["ax"])) < 1e-2  # the seed field, evolved
    text = SMALL.replace("nu = 0.01\n", "nu = 0.01\neta = 0.01\n")  # eta without physics = "mhd"
    (tmp_path / "bad").mkdir()
    assert main(["run", str(write(tmp_path / "bad", text)), "--quiet", "--no-plot"]) != 0
    assert "physics='mhd'" in capsys.readouterr().err


def test_stop_file_checkpoint_and_restart_equal_a_straight_run(tmp_path):
    pytest.importorskip("h5py")
    straight_cfg = write(tmp_path, SMALL.replace('dir = "{dir}"', 'dir = "{dir}-straight"'))
    assert main(["run", str(straight_cfg), "--quiet", "--no-plot"]) == 0
    straight = ac.load(str(tmp_path / "out-straight" / "checkpoint.h5"))
    # the same run, stopped by a STOP file after its first segment, then restarted
    path = write(tmp_path, SMALL)
    out = tmp_path / "out"
    out.mkdir()
    (out / "STOP").write_text("")
    assert main(["run", str(path), "--quiet", "--no-plot"]) == 3  # stopped early: not 0
    stopped = ac.load(out / "checkpoint.h5")
    assert stopped.t < 0.6
    assert not (out / "STOP").exists()  # its stop done, so the restart runs on
    assert main(["run", str(path), "--restart", "--quiet", "--no-plot"]) == 0
    restarted = ac.load(out / "checkpoint.h5")
    assert restarted.steps == straight.steps
    for name in ac.FIELDS:
        np.testing.assert_array_equal(restarted[name], straight[name])


def test_python_dash_m_astaroth(tmp_path):
    out = subprocess.run([sys.executable, "-m", "astaroth", "run", "--help"], capture_output=True, text=True,
                         cwd=str(tmp_path))
    assert out.returncode == 0 and "CONFIG" in out.stdout.upper()


# --- run directories: restarts, stops, kills ---------- ------------------------
LONG = SMALL.replace("until = 0.6", "until = 1.5").replace("snapshot_every = 0.3", "snapshot_every = 0.5")


def config(tmp_path, text=LONG, name="run.toml", folder="out", **changes):
    """A configuration file writing to tmp_path/folder; changes: {"old line": "new line"}."""
    text = text.format(dir=(tmp_path / folder).as_posix())
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def straight_series(tmp_path, text=LONG):
    """The time series of the uninterrupted run."""
    assert main(["run", config(tmp_path, text, "straight.toml", "straight"), "--quiet", "--no-plot"]) == 0
    return (tmp_path / "straight" / "timeseries.csv").read_text()


def run_child(code, tmp_path):
    """Python code in a child process (outside the source tree: the installed package)."""
    return subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), capture_output=True, text=True, timeout=300)


def test_restart_refuses_keys_that_cannot_change_naming_each(tmp_path, capsys):
    pytest.importorskip("h5py")
    path = config(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "STOP").write_text("")
    assert main(["run", path, "--quiet", "--no-plot"]) == 3
    before = (tmp_path / "out" / "checkpoint.h5").read_bytes()
    capsys.readouterr()
    changed = config(tmp_path, **{"shape = [16, 16, 8]": "shape = [12, 12, 12]", "nu = 0.01": "nu = 0.02",
                                  "kmax = 2.0": "kmax = 3.0", "[numerics]": "[numerics]\ndtype = \"float32\""})
    assert main(["run", changed, "--restart", "--quiet", "--no-plot"]) == 2
    err = capsys.readouterr().err
    for words in ("[grid] shape = [12, 12, 12] (checkpoint: [16, 16, 8])", "[physics] nu = 0.02 (checkpoint: 0.01)",
                  "[forcing] kmax = 3.0 (checkpoint: 2.0)", '[numerics] dtype = "float32" (checkpoint: "float64")',
                  "--overwrite"):
        assert words in err
    assert "[output]" not in err and (tmp_path / "out" / "checkpoint.h5").read_bytes() == before
    unforced = config(tmp_path, LONG.replace("[forcing]\nkmin = 1.0\nkmax = 2.0\nf0 = 0.05\nseed = 3\n", ""))
    assert main(["run", unforced, "--restart", "--quiet", "--no-plot"]) == 2
    assert "[forcing] enabled = false (checkpoint: true)" in capsys.readouterr().err


def test_restart_takes_and_reports_keys_that_may_change(tmp_path, capsys):
    pytest.importorskip("h5py")
    path = config(tmp_path)
    assert main(["run", path, "--quiet", "--no-plot"]) == 0
    capsys.readouterr()
    longer = config(tmp_path, **{"until = 1.5": "until = 2.0", "timeseries_every = 2": "timeseries_every = 3",
                                 "urms = 0.05": "urms = 0.5"})
    assert main(["run", longer, "--restart", "--quiet", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "restart from" in out and "rest start" not in out and "random_velocity start" not in out
    assert "[output] until = 2.0 (was 1.5)" in out and "[output] timeseries_every = 3 (was 2)" in out
    assert "[initial] urms = 0.5 (was 0.05) (ignored" in out
    assert ac.load(tmp_path / "out" / "checkpoint.h5").t == pytest.approx(2.0)


def test_stop_file_is_removed_and_the_restarted_series_equals_the_straight_one(tmp_path, capsys):
    """A STOP present at the start stops the run after step 1, mid-segment and off the row cadence."""
    pytest.importorskip("h5py")
    straight = straight_series(tmp_path)
    path = config(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "STOP").write_text("")
    assert main(["run", path, "--quiet", "--no-plot"]) == 3
    assert not (tmp_path / "out" / "STOP").exists() and "removed" in capsys.readouterr().out
    assert main(["run", path, "--restart", "--quiet", "--no-plot"]) == 0
    assert (tmp_path / "out" / "timeseries.csv").read_text() == straight


KILLED = """
import os, signal, sys
import astaroth.diagnostics as diagnostics
from astaroth.cli import main
original, rows = diagnostics.TimeSeries.append, []
def append(self, values):
    original(self, values)
    if not self.path.endswith(".csv"):  # the same row of time_series.dat
        return
    rows.append(values["it"])
    if len(rows) == {rows}:
        os.kill(os.getpid(), signal.SIGKILL)
diagnostics.TimeSeries.append = append
sys.exit(main(["run", {path!r}, "--quiet", "--no-plot"]))
"""


def test_restart_after_sigkill_equals_the_straight_run_row_for_row(tmp_path):
    pytest.importorskip("h5py")
    straight = straight_series(tmp_path)
    steps = [int(line.split(",")[0]) for line in straight.splitlines()[1:]]
    first_checkpoint = min(int(p.stem.split("_")[1]) for p in (tmp_path / "straight").glob("snapshot_*.h5"))
    kill_after = steps.index(first_checkpoint) + 3  # rows written past the first checkpoint
    assert kill_after < len(steps)
    path = config(tmp_path)
    child = run_child(KILLED.format(rows=kill_after, path=path), tmp_path)
    assert child.returncode == -9, child.stderr
    assert len((tmp_path / "out" / "timeseries.csv").read_text().splitlines()) == kill_after + 1
    assert main(["run", path, "--restart", "--quiet", "--no-plot"]) == 0
    assert (tmp_path / "out" / "timeseries.csv").read_text() == straight


KILLED_IN_CHECKPOINT = """
import os, signal, sys
import h5py
import astaroth.io as io
from astaroth.cli import main
save = io.save
def dying_save(sim, path, *args, **kw):
    if str(path).endswith("checkpoint.h5"):
        h5py.File.flush = lambda self: os.kill(os.getpid(), signal.SIGKILL)
    return save(sim, path, *args, **kw)
io.save = dying_save
sys.exit(main(["run", {path!r}, "--quiet", "--no-plot"]))
"""


def test_kill_in_the_first_checkpoint_leaves_no_temporary_and_restart_names_the_snapshot(tmp_path, capsys):
    """The checkpoint is written without a name (astaroth.io.atomic_files): a kill inside it leaves none."""
    pytest.importorskip("h5py")
    path = config(tmp_path)
    child = run_child(KILLED_IN_CHECKPOINT.format(path=path), tmp_path)
    assert child.returncode == -9, child.stderr
    out = tmp_path / "out"
    assert not list(out.glob(".tmp-*")) and not (out / "checkpoint.h5").exists()
    snapshot = next(out.glob("snapshot_*.h5"))
    capsys.readouterr()
    assert main(["run", path, "--restart", "--quiet", "--no-plot"]) == 2
    captured = capsys.readouterr()
    assert f"no checkpoint {out / 'checkpoint.h5'}" in captured.err and f"newest snapshot is {snapshot}" in captured.err
    assert "HDF5" not in captured.err and not list(out.glob(".tmp-*"))
    # as the message says: the snapshot continues the run
    snapshot.rename(out / "checkpoint.h5")
    snapshot.with_suffix(".xdmf").unlink()
    assert main(["run", path, "--restart", "--quiet", "--no-plot"]) == 0
    assert ac.load(out / "checkpoint.h5").t == pytest.approx(1.5)


def test_a_directory_holding_a_run_is_refused_unless_restart_or_overwrite(tmp_path, capsys):
    pytest.importorskip("h5py")
    path = config(tmp_path, SMALL)
    assert main(["run", path, "--quiet", "--no-plot"]) == 0
    series = (tmp_path / "out" / "timeseries.csv").read_text()
    capsys.readouterr()
    assert main(["run", path, "--quiet", "--no-plot"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'out'}/ already holds a run" in err and "--restart" in err and "--overwrite" in err
    assert (tmp_path / "out" / "timeseries.csv").read_text() == series  # nothing appended
    (tmp_path / "out" / ".tmp-stale.h5").write_text("")
    assert main(["run", path, "--overwrite", "--quiet", "--no-plot"]) == 0
    assert "removed" in capsys.readouterr().out and not list((tmp_path / "out").glob(".tmp-*"))
    assert (tmp_path / "out" / "timeseries.csv").read_text() == series  # afresh: the same run again
    with pytest.raises(SystemExit):
        main(["run", path, "--overwrite", "--restart"])


def test_sigterm_exits_with_the_stopped_status(tmp_path):
    pytest.importorskip("h5py")
    path = config(tmp_path, LONG.replace("until = 1.5", "until = 1000.0").replace("progress = false",
                                                                                      "progress = true"))
    child = subprocess.Popen([sys.executable, "-m", "astaroth", "run", path, "--no-plot"], cwd=str(tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (tmp_path / "out" / "timeseries.csv").exists():  # the run and its signal handlers are going
        time.sleep(0.1)
    time.sleep(0.5)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 3, err
    assert "stopped at step" in out and ac.load(tmp_path / "out" / "checkpoint.h5").t < 1000


def test_a_signal_after_a_segments_last_look_still_stops_the_run():
    # the race behind a SIGTERM lost in CI: it came between run()'s last look and its handlers' restore
    from astaroth.simulation import _StopRequest

    outer = _StopRequest(True)
    try:
        inner = _StopRequest(True)
        signal.raise_signal(signal.SIGTERM)
        assert inner.requested and not outer.requested
        inner.restore()
        assert outer.requested
    finally:
        outer.restore()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_exit_statuses_are_documented():
    from astaroth import cli

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for code in (cli.EXIT_DONE, cli.EXIT_ERROR, cli.EXIT_INPUT, cli.EXIT_STOPPED, cli.EXIT_BLOWUP):
        assert f"| {code} |" in readme


# --- help, version, README ---------------------------------------------------
def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"astaroth {ac.__version__}"


def test_run_help_lists_every_key(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    assert "astaroth/config.py" not in text and "exit status" in text
    for section, keys in configuration.SCHEMA.items():
        part = text.split(f"[{section}]")[1]
        for key in keys:
            assert f"    {key} = " in part


def test_readme_toml_shows_every_key_and_is_valid(tmp_path):
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    block = readme.split("```toml\n")[1].split("```")[0]
    (tmp_path / "readme.toml").write_text(block)
    configuration.load(tmp_path / "readme.toml")
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    sections = {}
    section = None
    for line in lines:
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line:
            sections.setdefault(section, set()).add(line.split("=")[0].strip())
    elsewhere = configuration.DOCUMENTED_ELSEWHERE  # on docs/guide/diagnostics.md (tests/test_diagnostics_during_run.py)
    expected = {s: set(keys) - set(elsewhere.get(s, ())) for s, keys in configuration.SCHEMA.items()}
    assert sections == {s: keys for s, keys in expected.items() if keys}


# --- bench and optional packages -----------------------------------------------
@pytest.mark.skipif("cuda" in ac.backends(), reason="a GPU is usable here")
def test_bench_on_cuda_without_a_gpu_says_so(capsys):
    assert main(["bench", "--backend", "cuda"]) == 2
    err = capsys.readouterr().err
    assert "no GPU is usable" in err and "memory" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv, option", [
    (["--sizes", "0"], "--sizes"), (["--sizes", "64", "-8"], "--sizes"), (["--seconds", "-1"], "--seconds"),
    (["--seconds", "nan"], "--seconds"), (["--sizes", "many"], "--sizes"),
])
def test_bench_refuses_bad_sizes_and_seconds_naming_the_option(argv, option, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "--backend", "cpu"] + argv)
    assert info.value.code == 2
    assert f"argument {option}: must be" in capsys.readouterr().err


def test_run_without_h5py_and_matplotlib_says_once_what_it_skips(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py now fails
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["run", config(tmp_path, SMALL), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("not installed") == 1 and "h5py" in err and "matplotlib" in err and "[io,plot]" in err
    assert (tmp_path / "out" / "timeseries.csv").exists() and not list((tmp_path / "out").glob("*.h5"))
    assert main(["run", config(tmp_path, SMALL), "--restart"]) == 2
    assert "needs h5py" in capsys.readouterr().err


def test_summary_figure_labels_slices_clears_the_spectrum_label_and_marks_the_snapshot(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from astaroth.plot import figure

    sim = ac.Simulation(shape=(16, 16, 8), backend="cpu")
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    series = tmp_path / "ts.csv"
    sim.run(until=0.6, timeseries=series, diagnostics_every=1)
    sim.run(until=1.0)  # the snapshot's time lies inside the series
    fig = figure(sim, str(series))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    slices, spectrum, history, bars = fig.axes[:4], fig.axes[4], fig.axes[5], fig.axes[6:]
    assert all(ax.get_xlabel() == "x" and ax.get_ylabel() == "y" for ax in slices) and len(bars) == 4
    label = spectrum.yaxis.label.get_window_extent(renderer)
    assert not any(bar.get_tightbbox(renderer).overlaps(label) for bar in bars)
    marks = [line for line in history.get_lines() if np.all(np.asarray(line.get_xdata()) == sim.t)]
    assert len(marks) == 1 and "snapshot" in marks[0].get_label()
    plt.close(fig)


def test_output_dtmin_stops_astaroth_run_and_astaroth_sweep_members(tmp_path, capsys):
    """[output] dtmin (the Pencil Code's): a run whose CFL step falls below it ends with the blow-up's exit
    status, naming dtmin and what limits dt; a dtmin below every step changes nothing; astaroth sweep
    stops the members whose step falls below it, as blown up, and ends with the same exit status."""
    text = SMALL.replace("progress = false\n", "progress = false\ndtmin = 1.0\n")
    assert main(["run", str(write(tmp_path, text)), "--quiet", "--no-plot"]) == 4
    err = capsys.readouterr().err
    assert "dtmin = 1" in err and "Courant" in err
    small = tmp_path / "small"
    small.mkdir()
    text = SMALL.replace("progress = false\n", "progress = false\ndtmin = 1e-9\n")
    assert main(["run", str(write(small, text)), "--quiet", "--no-plot"]) == 0
    sweep = tmp_path / "sweep.toml"
    text = SMALL.format(dir=(tmp_path / "sw").as_posix()).replace("progress = false\n", "progress = false\ndtmin = 0.05\n")
    # nu = 2 limits the step to about 0.008 (diffusion), nu = 0.01 leaves it near 0.15 (Courant)
    sweep.write_text(text + "[sweep]\nphysics.nu = [0.01, 2.0]\nevery = 0.1\n")
    assert main(["sweep", str(sweep), "--quiet"]) == 4
    captured = capsys.readouterr()
    assert "member 0: physics.nu = 0.01: done at t = 0.6" in captured.out
    assert "member 1: physics.nu = 2.0: blew up at t = 0.1" in captured.out
    assert "1 of 2 sweep members blew up" in captured.err and "member 1 (physics.nu=2.0)" in captured.err
    assert "< dtmin = 0.05" in captured.err and "nu" in captured.err.split("dtmin = 0.05")[1]
