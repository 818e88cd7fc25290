"""HDF5 snapshots: contents, atomic writes, and restarts that continue bit for bit."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import astaroth as ac

h5py = pytest.importorskip("h5py")


def forced(backend="cpu", dtype="float64"):
    sim = ac.Simulation(shape=(16, 12, 10), box=(2 * np.pi, 4.0, 3.0), nu=2e-3, dtype=dtype, backend=backend,
                        method="55p", origin=(0.5, 0.0, -1.0))
    ac.init.random_velocity(sim, urms=0.05, seed=3)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=9)
    return sim


def test_snapshot_holds_fields_coordinates_time_and_parameters(tmp_path):
    sim = forced()
    sim.run(until=0.3)
    path = sim.save(tmp_path / "snap.h5")
    with h5py.File(path) as f:
        assert f.attrs["t"] == sim.t and f.attrs["steps"] == sim.steps
        assert tuple(f.attrs["shape"]) == sim.shape and f.attrs["nu"] == sim.nu and f.attrs["method"] == "55p"
        np.testing.assert_array_equal(f["coordinates/y"][...], sim.y)
        np.testing.assert_array_equal(f["fields/ux"][...].T, sim["ux"])
        assert f["forcing"].attrs["generator_state"] == np.uint64(sim._grid.forcing_state)
    xdmf = (tmp_path / "snap.xdmf").read_text()
    assert "3DCoRectMesh" in xdmf and "snap.h5:/fields/lnrho" in xdmf and 'Dimensions="10 12 16"' in xdmf
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_restart_continues_bit_for_bit(tmp_path, dtype):
    """2N CFL steps straight equal N steps, save, load, N steps (forcing included)."""
    n = 8
    straight = forced(dtype=dtype)
    for _ in range(2 * n):
        straight.step()
    half = forced(dtype=dtype)
    for _ in range(n):
        half.step()
    half.save(tmp_path / "half.h5")
    del half
    restarted = ac.load(tmp_path / "half.h5", backend="cpu")
    for _ in range(n):
        restarted.step()
    assert restarted.steps == straight.steps == 2 * n and restarted.t == straight.t
    for name in ac.FIELDS:
        np.testing.assert_array_equal(restarted[name], straight[name])
    assert not np.array_equal(restarted["ux"], forced(dtype=dtype)["ux"])  # the run did move


def test_a_writer_killed_mid_write_leaves_the_old_snapshot(tmp_path):
    sim = forced()
    good = sim.save(tmp_path / "chk.h5")
    before = open(good, "rb").read()
    # a child process starts overwriting the same file and is killed inside the write
    script = textwrap.dedent(f"""
        import os, signal, h5py, numpy as np, astaroth as ac, astaroth.io as io
        sim = ac.Simulation(shape=(16, 12, 10), backend="cpu")
        original = h5py.File.flush
        def die(self):
            os.kill(os.getpid(), signal.SIGKILL)
        h5py.File.flush = die
        sim.save({str(good)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path))
    assert proc.returncode == -9
    assert open(good, "rb").read() == before
    assert ac.load(good).steps == 0


def test_load_refuses_other_files(tmp_path):
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["x"] = 1
    with pytest.raises(ValueError, match="not an astaroth snapshot"):
        ac.load(tmp_path / "other.h5")


@pytest.mark.parametrize("damage, words", [
    (lambda f: f.attrs.__delitem__("nu"), ["attribute 'nu'"]),
    (lambda f: f.__delitem__("fields/uz"), ["dataset 'fields/uz'"]),
    (lambda f: (f.attrs.__delitem__("steps"), f["forcing"].attrs.__delitem__("generator_state")),
     ["attribute 'steps'", "forcing attribute 'generator_state'"]),
])
def test_load_of_an_incomplete_snapshot_names_the_file_and_what_is_missing(tmp_path, damage, words):
    path = forced().save(tmp_path / "snap.h5")
    with h5py.File(path, "a") as f:
        damage(f)
    with pytest.raises(ValueError, match="not a complete astaroth snapshot") as info:
        ac.load(path)
    assert str(path) in str(info.value)
    for word in words:
        assert word in str(info.value)


def test_load_of_a_missing_or_non_hdf5_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.h5"):
        ac.load(tmp_path / "nothing.h5")
    text = tmp_path / "notes.h5"
    text.write_text("not HDF5")
    with pytest.raises(ValueError, match="notes.h5 is not an HDF5 file"):
        ac.load(text)


def test_save_errors_name_the_users_path_not_the_temporary_file(tmp_path):
    sim = forced()
    target = tmp_path / "no-such-folder" / "snap.h5"
    with pytest.raises(FileNotFoundError) as info:
        sim.save(target)
    assert str(target) in str(info.value) and ".tmp-" not in str(info.value)
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o500)
    try:
        if os.access(readonly, os.W_OK):
            pytest.skip("running as root: permissions are not enforced")
        with pytest.raises(PermissionError, match="readonly/snap.h5") as info:
            sim.save(readonly / "snap.h5")
        assert ".tmp-" not in str(info.value)
    finally:
        readonly.chmod(0o700)


def test_a_failed_xdmf_write_leaves_no_empty_file(tmp_path):
    """The file-size limit makes the XDMF text (about 1.5 kB) fail to write."""
    script = textwrap.dedent("""
        import resource, signal, sys, astaroth as ac, astaroth.io as io
        sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
        try:
            io.write_xdmf("snap.h5", sim)
        except OSError as e:
            print("refused:", e)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), capture_output=True, text=True)
    assert "refused: " in out.stdout and "snap.xdmf" in out.stdout, out.stdout + out.stderr
    assert os.listdir(tmp_path) == []  # neither a 0-byte snap.xdmf nor a temporary file


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_snapshots_get_the_mode_the_umask_gives(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        path = forced().save(tmp_path / "snap.h5")
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == mode
    assert os.stat(tmp_path / "snap.xdmf").st_mode & 0o777 == mode


def _snapshot_time(folder):
    """(t of snap.h5, t of snap.xdmf or None), read without astaroth (whose ac.load sets the folder right)."""
    import re

    with h5py.File(folder / "snap.h5", "r") as f:
        t = float(f.attrs["t"])
    index = folder / "snap.xdmf"
    return t, float(re.search(r'<Time Value="([^"]+)"', index.read_text()).group(1)) if index.exists() else None


def test_save_killed_at_any_moment_leaves_no_stale_index_and_after_the_next_load_no_temporary(tmp_path):
    """sim.save killed before a random one of its file-system calls, and
    before each call from the naming of its finished files on: right after
    the kill the folder holds the earlier snapshot or the new one, and an
    XDMF index of that very snapshot's time or none (never the old index
    beside the new snapshot); after the next ac.load it holds exactly
    snap.h5 and snap.xdmf, both the earlier or both the new, and no
    temporary file (astaroth.io.cleanup_folder)."""
    from helpers import KILLED_SAVE, kill_at_random_moments

    def reset():
        for p in tmp_path.iterdir():
            p.unlink()
        ac.Simulation(shape=(12, 10, 8), backend="cpu").save(tmp_path / "snap.h5")

    statuses, left_by_kill, outcomes, finished = [], 0, [], 0
    for status in kill_at_random_moments(KILLED_SAVE, tmp_path, 12, reset, every_from="link"):
        statuses.append(status)
        t, indexed = _snapshot_time(tmp_path)
        assert t in (0.0, 1.0) and indexed in (None, t), (t, indexed)
        before = (t, indexed)
        left = [p.name for p in tmp_path.iterdir() if p.name not in ("snap.h5", "snap.xdmf")]
        assert all(name.startswith(".tmp-") for name in left), left
        left_by_kill += bool(left)
        t = ac.load(tmp_path / "snap.h5", backend="cpu").t
        assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.h5", "snap.xdmf"]
        assert _snapshot_time(tmp_path) == (t, t)
        outcomes.append(t)
        finished += before != (t, t)  # killed after the commit record: the load made the renames left
    kills = statuses.count(-9)
    assert statuses[0] == 0 and kills >= 15 and left_by_kill >= 1 and finished >= 1, \
        (statuses, left_by_kill, finished)
    assert 0.0 in outcomes[1:] and 1.0 in outcomes[1:], outcomes  # killed before the commit, and after it


def test_a_temporary_of_a_live_writer_is_left_alone(tmp_path):
    """The cleanup removes only temporaries whose process has ended: one of a
    running process (here this one) or of an unknown form stays."""
    from astaroth.io import _temporary_name, cleanup_folder

    mine = tmp_path / _temporary_name(".h5")
    other = tmp_path / ".tmp-notes.h5"
    for p in (mine, other):
        p.write_bytes(b"x")
    # from tmp_path, so that an installed astaroth is imported, not the source tree's (which has no extension)
    dead = subprocess.run([sys.executable, "-c", "from astaroth.io import _temporary_name; "
                                                 "print(_temporary_name('.h5'))"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert dead.returncode == 0, dead.stderr
    gone = tmp_path / dead.stdout.strip()
    gone.write_bytes(b"x")
    assert cleanup_folder(tmp_path) == [gone.name]
    assert mine.exists() and other.exists() and not gone.exists()
    assert cleanup_folder(tmp_path, everything=True) == [other.name] and mine.exists()
