"""Test data, and what tests and scripts/check_second_week.py share."""
import re
from pathlib import Path

import numpy as np


def smooth_random_fields(shape, box, rng, modes=4, amplitude=0.2):
    """lnrho, ux, uy, uz as sums of random low Fourier modes of the box."""
    coords = np.meshgrid(*[np.arange(n) * L / n for n, L in zip(shape, box)], indexing="ij")
    out = []
    for _ in range(4):
        f = np.zeros(shape)
        for _ in range(modes):
            k = [rng.integers(-2, 3) * 2 * np.pi / L if n > 1 else 0.0 for n, L in zip(shape, box)]
            phase = rng.uniform(0, 2 * np.pi)
            f += rng.uniform(-1, 1) * amplitude * np.cos(sum(ki * c for ki, c in zip(k, coords)) + phase)
        out.append(f)
    return out


def pencil_ts(path):
    """time_series.dat read by the rules of the Pencil Code's reader pencil.read.ts
    (python/pencil/read/timeseries.py), not by astaroth's: a header line starting '#--', stripped of '#'
    and '-' and split at runs of dashes; rows split at blanks."""
    keys, rows = [], []
    for line in Path(path).read_text().splitlines():
        if re.search("^#--", line):
            keys = re.split("-+", line.strip("#-\n"))
        else:
            rows.append([float(v) for v in re.split(" +", line.strip(" \n"))])
    return {k: np.array(rows)[:, i] for i, k in enumerate(keys)}


def assert_rhs_agree(sims, values, tolerance):
    """Set `values` (in field_names order) on every simulation and check the
    right-hand sides of sims[1:] against sims[0]'s, relative to its largest
    value per field (fields whose right-hand side is 0 there are skipped)."""
    for s in sims:
        for name, f in zip(s.field_names, values):
            s[name] = f
    reference = sims[0].rhs()
    for other in sims[1:]:
        got = other.rhs()
        for name in sims[0].field_names:
            scale = np.max(np.abs(reference[name]))
            if scale > 0:
                assert np.max(np.abs(got[name] - reference[name])) <= tolerance * scale, ("rhs", name)



def assert_runs_agree(sims, tolerance, until=0.05):
    """Run every simulation to `until` and check that sims[1:] took
    sims[0]'s steps and end within 10 x tolerance of its fields, relative to
    each field's largest value."""
    for s in sims:
        s.run(until=until)
    for other in sims[1:]:
        assert other.steps == sims[0].steps
        for name in sims[0].field_names:
            c, g = sims[0][name], other[name]
            assert np.max(np.abs(g - c)) <= 10 * tolerance * max(np.max(np.abs(c)), 1e-30), name


KILL_PRELUDE = """
import atexit, os, signal, sys
_kill_at, _calls = int(os.environ["KILL_AT"]), []
_IO = {"open", "write", "close", "flush", "fsync", "fdopen", "replace", "rename", "link", "unlink", "chmod",
       "mkstemp", "truncate"}
def _profile(frame, event, arg):
    if event == "c_call" and getattr(arg, "__name__", "") in _IO and "astaroth" in frame.f_code.co_filename:
        _calls.append(arg.__name__)
        if len(_calls) == _kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
sys.setprofile(_profile)
atexit.register(lambda: print("calls", " ".join(_calls), flush=True))
"""


def kill_at_random_moments(script, folder, trials, reset, seed=0, every_from=None):
    """Run the Python source `script` in `folder`, first to its end, then
    `trials` times killed (SIGKILL) at a random one of the file-system calls
    (open, write, flush, fsync, link, rename, ...) that code of the astaroth
    package makes, just before that call: between any two steps of a write,
    e.g. after a file is truncated and before it is written again.
    every_from: the name of a call (e.g. "link"): besides, killed before
    each call from the first of that name on that changes what the folder
    holds (write, link, rename, replace, unlink: every state a kill can
    leave there, through the naming and renaming of finished files, where a
    kill leaves the most to set right).  reset() is
    called before each start.  Yields the child's exit status after the
    first run (0) and after each kill (-9), so that the caller can look at
    what it left."""
    import os
    import subprocess
    import sys

    def run(kill_at):
        reset()
        return subprocess.run([sys.executable, "-c", KILL_PRELUDE + script], cwd=str(folder), capture_output=True,
                              text=True, timeout=300, env={**os.environ, "KILL_AT": str(kill_at)})

    first = run(0)
    assert first.returncode == 0, first.stderr
    names = first.stdout.split("calls")[-1].split()
    calls = len(names)
    yield 0
    chosen = set(np.random.default_rng(seed).choice(np.arange(1, calls + 1), min(trials, calls), replace=False))
    if every_from is not None:
        first = names.index(every_from)
        chosen |= {i + 1 for i in range(first, calls) if names[i] in ("write", "link", "rename", "replace", "unlink")}
    for kill_at in sorted(int(k) for k in chosen):
        yield run(kill_at).returncode


def noisy_gas(dtype="float64", **kw):
    """An ideal gas (energy="entropy") whose fields hold small random values."""
    import astaroth as ac

    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu", dtype=dtype, energy="entropy", **kw)
    rng = np.random.default_rng(1)
    for name in sim.field_names:
        sim[name] = 1e-2 * rng.standard_normal(sim.shape)
    return sim


# A save over an earlier snapshot (t = 0) of the same grid, for kill_at_random_moments.
KILLED_SAVE = """
import astaroth as ac
sim = ac.Simulation(shape=(12, 10, 8), backend="cpu")
sim.t, sim["ux"] = 1.0, 0.5
sim.save("snap.h5")
"""
# A write_var over an earlier set (the same grid and modules at t = 0), and the files it writes.
KILLED_WRITER = """
import numpy as np, astaroth as ac
sim = ac.Simulation(shape=(12, 10, 8), backend="cpu", physics="mhd", energy="entropy", nu=1e-2)
sim.t = 1.0
for name in sim.field_names:
    sim[name] = np.random.default_rng(1).standard_normal(sim.shape) * 1e-2
ac.pencil.write_var(sim, "data")
"""
WRITE_VAR_SET = ("proc0/var.dat", "proc0/grid.dat", "allprocs/grid.dat", "proc0/dim.dat", "dim.dat", "index.pro",
                 "param.nml", "param2.nml")
