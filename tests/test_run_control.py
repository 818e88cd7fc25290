"""Runs users can leave alone: time series, progress, STOP file, signals, NaN rows."""
import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import astaroth as ac
from astaroth.diagnostics import COLUMNS, Progress


def flow(**kw):
    sim = ac.Simulation(shape=(16, 16, 16), nu=5e-3, backend="cpu", **kw)
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    return sim


def test_timeseries_rows_read_by_numpy(tmp_path):
    sim = flow()
    path = tmp_path / "ts.csv"
    taken = sim.run(until=0.5, timeseries=path, diagnostics_every=3)
    data = np.genfromtxt(path, delimiter=",", names=True)
    assert data.dtype.names == COLUMNS
    assert len(data) == taken // 3 + (taken % 3 != 0)
    assert data["t"][-1] == sim.t and data["it"][-1] == sim.steps
    assert data["urms"][-1] == pytest.approx(ac.analysis.rms(sim, "u"), rel=1e-12)
    assert np.all(data["rhom"] == pytest.approx(1.0, abs=1e-3))
    assert np.all(data["ekin"] > 0) and np.all(data["orms"] > 0)
    sim.run(until=0.7, timeseries=path, diagnostics_every=3)  # appends, one header only
    assert len(np.genfromtxt(path, delimiter=",", names=True)) > len(data)


def test_blow_up_writes_a_last_row_and_names_the_step(tmp_path):
    sim = ac.Simulation(shape=(16, 16, 16), nu=0.0, cs=1.0, backend="cpu")
    sim["ux"] = np.sin(sim.x)[:, None, None]
    path = tmp_path / "ts.csv"
    with pytest.raises(ac.NonFiniteError, match=r"at step \d+, t = "):
        with pytest.warns(RuntimeWarning, match="beyond the stable limit"):  # cdt > 1.73 is refused (beyond RK3's bound)
            sim.run(until=100.0, cdt=1.6, timeseries=path, diagnostics_every=1000, check_every=1)
    data = np.genfromtxt(path, delimiter=",", names=True)
    assert data.size >= 1 and not np.isfinite(np.atleast_1d(data["urms"])[-1])


def test_stop_file_stops_cleanly_and_calls_on_stop(tmp_path):
    sim = flow()
    stop = tmp_path / "STOP"
    stopped = []

    def on_stop(s):
        stopped.append(s.steps)
        stop.unlink()

    stop.write_text("")
    taken = sim.run(until=10.0, stop_file=stop, on_stop=on_stop)
    assert taken == 1 and stopped == [1] and sim.t < 10.0


def test_sigterm_finishes_the_step_and_checkpoints(tmp_path):
    pytest.importorskip("h5py")
    checkpoint = tmp_path / "chk.h5"
    script = textwrap.dedent(f"""
        import sys, astaroth as ac
        sim = ac.Simulation(shape=(32, 32, 32), backend="cpu")
        ac.init.random_velocity(sim, urms=0.1, seed=1)
        sim.step()
        print("running", flush=True)
        taken = sim.run(until=1e6, handle_signals=True, on_stop=lambda s: s.save({str(checkpoint)!r}))
        print("stopped after", taken, "steps at step", sim.steps, flush=True)
    """)
    # run outside the source tree so that the child imports the installed package
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=str(tmp_path))
    assert child.stdout.readline().strip() == "running"
    time.sleep(1.0)  # the run (and its signal handlers) starts right after "running"
    child.send_signal(signal.SIGTERM)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0
    steps = int(out.split()[-1])
    assert steps >= 2 and ac.load(checkpoint).steps == steps


def test_progress_line():
    sim = flow()
    stream = io.StringIO()
    bar = Progress(sim, until=1.0, every=0.0, stream=stream)
    sim.step()
    bar.update(force=True)
    assert "M updates/s" in stream.getvalue() and "of 1" in stream.getvalue()
    sim.run(until=sim.t + 0.1, progress=True)  # runs with the progress line on stderr


def test_a_run_whose_time_step_falls_below_dtmin_stops_naming_what_limits_it(tmp_path):
    """dtmin (the Pencil Code's): the run stops with TimeStepTooShortError after the batch in which the CFL
    step fell below it, the fields and t as the steps left them and the time series with its last row; a
    dtmin below every step changes nothing."""
    free = flow()
    dt = free.cfl_dt()
    free.run(until=10.0, dtmin=dt / 10)
    sim = flow()
    path = tmp_path / "ts.csv"
    with pytest.raises(ac.TimeStepTooShortError, match=r"dtmin = .* at step \d+.*sound speed"):
        sim.run(until=10.0, dtmin=2 * dt, timeseries=path)
    assert 0 < sim.steps < free.steps and 0 < sim.t < 10.0
    assert np.genfromtxt(path, delimiter=",", names=True)["it"][-1] == sim.steps
    stepped = flow()
    for _ in range(sim.steps):
        stepped.step()
    assert stepped.t == sim.t
    np.testing.assert_array_equal(stepped["ux"], sim["ux"])
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="dtmin"):
            flow().run(until=0.1, dtmin=bad)
