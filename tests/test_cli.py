"""`astaroth run CONFIG.toml`, its checks, restarts and pictures."""
import os
import subprocess
import sys

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
    assert main(["run", str(path), "--quiet", "--no-plot"]) == 0
    stopped = ac.load(out / "checkpoint.h5")
    assert stopped.t < 0.6
    (out / "STOP").unlink()
    assert main(["run", str(path), "--restart", "--quiet", "--no-plot"]) == 0
    restarted = ac.load(out / "checkpoint.h5")
    assert restarted.steps == straight.steps
    for name in ac.FIELDS:
        np.testing.assert_array_equal(restarted[name], straight[name])


def test_python_dash_m_astaroth(tmp_path):
    out = subprocess.run([sys.executable, "-m", "astaroth", "run", "--help"], capture_output=True, text=True,
                         cwd=str(tmp_path))
    assert out.returncode == 0 and "CONFIG" in out.stdout.upper()
