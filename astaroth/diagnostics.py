"""Time series and progress for long runs.

`Simulation.run(..., timeseries="ts.csv", diagnostics_every=N)` appends one
row every N steps; the file is plain CSV with a header, read directly by
``numpy.genfromtxt(path, delimiter=",", names=True)`` or ``pandas.read_csv``.
On the CUDA backend with CuPy the reductions run on the device views.
"""
import math
import os
import sys
import time

from . import analysis

COLUMNS = ("step", "t", "dt", "urms", "umax", "lnrho_min", "lnrho_max", "lnrho_mean", "rho_mean", "ekin",
           "divu_rms", "vorticity_rms")
# with physics="mhd" (DESIGN 7): rms and max |B|, rms |J|, <|B|^2> / (2 mu0), <A . curl A>
MAGNETIC_COLUMNS = ("brms", "bmax", "jrms", "emag", "helicity_mag")


def columns(sim):
    """The time-series columns of `sim`: COLUMNS, and MAGNETIC_COLUMNS with physics="mhd"."""
    return COLUMNS + (MAGNETIC_COLUMNS if getattr(sim, "physics", "hydro") == "mhd" else ())


def row(sim, dt):
    """One time-series row (a dict over COLUMNS) for the simulation now
    (NaN entries, without warnings, once the run has blown up)."""
    import numpy as np

    with np.errstate(all="ignore"):
        return _row(sim, dt)


def _row(sim, dt):
    xp = analysis._array_module(sim)
    lnrho = analysis._field(sim, "lnrho", xp).astype(xp.float64)
    u = [c.astype(xp.float64) for c in analysis.velocity(sim)]
    ux, uy, uz = u
    u2 = ux ** 2 + uy ** 2 + uz ** 2
    rho = xp.exp(lnrho)
    div = analysis.divergence(sim, u)
    w = analysis.vorticity(sim, u)
    value = analysis._host
    magnetic = {}
    if getattr(sim, "physics", "hydro") == "mhd":
        b = analysis.magnetic_field(sim)
        b2 = sum(c ** 2 for c in b)
        j2 = sum(c ** 2 for c in analysis.current_density(sim))
        magnetic = {"brms": math.sqrt(value(xp.mean(b2))), "bmax": math.sqrt(value(xp.max(b2))),
                    "jrms": math.sqrt(value(xp.mean(j2))), "emag": value(xp.mean(b2)) / (2 * sim.mu0),
                    "helicity_mag": analysis.magnetic_helicity(sim)}
    return magnetic | {
        "step": sim.steps, "t": sim.t, "dt": dt,
        "urms": math.sqrt(value(xp.mean(u2))), "umax": math.sqrt(value(xp.max(u2))),
        "lnrho_min": value(xp.min(lnrho)), "lnrho_max": value(xp.max(lnrho)), "lnrho_mean": value(xp.mean(lnrho)),
        "rho_mean": value(xp.mean(rho)), "ekin": value(xp.mean(0.5 * rho * u2)),
        "divu_rms": math.sqrt(value(xp.mean(div.astype(xp.float64) ** 2))),
        "vorticity_rms": math.sqrt(sum(value(xp.mean(c.astype(xp.float64) ** 2)) for c in w)),
    }


class TimeSeries:
    """Appends rows to a CSV file, writing the header when the file is new."""

    def __init__(self, path, write=True, columns=COLUMNS):
        self.path = os.fspath(path)
        self.write = write  # False on all MPI ranks but one
        self.columns = columns
        if write and (not os.path.exists(self.path) or os.path.getsize(self.path) == 0):
            with open(self.path, "w") as f:
                f.write(",".join(columns) + "\n")

    def append(self, values):
        if not self.write:
            return
        with open(self.path, "a") as f:
            f.write(",".join(repr(float(values[c])) if c != "step" else str(int(values[c]))
                             for c in self.columns) + "\n")


class ProgressLine:
    """A progress line: on a terminal it rewrites one line; elsewhere
    (notebooks, logs) it prints a line every `every` seconds.  Subclasses
    say what the line reads (text(now, elapsed))."""

    def __init__(self, every=5.0, stream=None):
        self.every = every
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.time0 = self.last = time.perf_counter()

    def update(self, force=False):
        now = time.perf_counter()
        if not force and now - self.last < (0.5 if self.tty else self.every):
            return
        self.last = now
        line = self.text(max(now - self.time0, 1e-9))
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        self.stream.flush()

    def close(self):
        self.update(force=True)
        if self.tty:
            self.stream.write("\n")


class Progress(ProgressLine):
    """Step, t of t_end, M updates/s, time left."""

    def __init__(self, sim, until, every=5.0, stream=None):
        super().__init__(every, stream)
        self.sim, self.until = sim, until
        self.t0, self.steps0 = sim.t, sim.steps

    def text(self, elapsed):
        steps = self.sim.steps - self.steps0
        rate = steps * math.prod(self.sim.shape) / elapsed / 1e6
        done = (self.sim.t - self.t0) / max(self.until - self.t0, 1e-300)
        left = elapsed * (1 - done) / done if done > 0 else float("inf")
        return (f"step {self.sim.steps}  t = {self.sim.t:.6g} of {self.until:g}  {rate:.1f} M updates/s  "
                f"{left:.0f} s left")
