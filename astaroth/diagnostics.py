"""Time series and progress for long runs.

`Simulation.run(..., timeseries="ts.csv", diagnostics_every=N)` appends one
row every N steps; the file is plain CSV with a header, read directly by
``numpy.genfromtxt(path, delimiter=",", names=True)`` or ``pandas.read_csv``
(or by read_timeseries(path), which also reads files written under the
column names before they followed the Pencil Code).  On the CUDA backend
with CuPy the reductions run on the device views.

The columns take the Pencil Code's names (its ``print.in`` names) where it
has the quantity; <.> is the mean over the grid, max the maximum over it,
rho = exp(lnrho), omega = curl u, B = curl A + b_ext, J = curl B / mu0,
every derivative the solver's sixth-order central difference:

    column    formula                  meaning
    it        sim.steps                steps taken
    t         sim.t                    time after the step
    dt        dt                       the step's length
    urms      <|u|^2>^(1/2)            rms speed
    umax      max |u|                  largest speed
    ekin      <rho |u|^2 / 2>          kinetic energy per unit volume (analysis.kinetic_energy)
    rhom      <rho>                    mean density (the mass, conserved)
    lnrhomin  min lnrho                smallest log density
    lnrhomax  max lnrho                largest log density
    divu2m    <(div u)^2>              compressibility
    orms      <|omega|^2>^(1/2)        rms vorticity
    omax      max |omega|              largest vorticity
    oum       <omega . u>              kinetic helicity (analysis.kinetic_helicity)

and with physics="mhd" (MAGNETIC_COLUMNS):

    brms      <|B|^2>^(1/2)            rms field, b_ext included
    bmax      max |B|                  largest field
    b2m       <|B|^2>                  twice the magnetic energy per unit volume, times mu0
    jrms      <|J|^2>^(1/2)            rms current density
    jmax      max |J|                  largest current density
    abm       <A . curl A>             magnetic helicity, without b_ext (analysis.magnetic_helicity)

and with energy="entropy" (ENTROPY_COLUMNS; T the ideal gas's temperature,
analysis.temperature, ss the specific entropy, cv = cp / gamma):

    TTm       <T>                      mean temperature
    TTmax     max T                    largest temperature
    TTmin     min T                    smallest temperature
    ssm       <ss>                     mean specific entropy
    ethm      <rho cv T>               thermal energy per unit volume (analysis.thermal_energy)
    etotm     <rho |u|^2/2 + rho cv T + |B|^2/(2 mu0) + rho Phi>  total energy per unit volume
              (analysis.total_energy; rho Phi with gravity; on wall axes a volume_mean, the walls at half weight)

and with gravity (GRAVITY_COLUMNS; Phi = -g . x):

    epot      <rho Phi>                potential energy per unit volume (analysis.potential_energy)

docs/timeseries.md has the same table with the Pencil Code's differences.
"""
import math
import os
import sys
import time

from . import analysis

COLUMNS = ("it", "t", "dt", "urms", "umax", "ekin", "rhom", "lnrhomin", "lnrhomax", "divu2m", "orms", "omax", "oum")
MAGNETIC_COLUMNS = ("brms", "bmax", "b2m", "jrms", "jmax", "abm")
ENTROPY_COLUMNS = ("TTm", "TTmax", "TTmin", "ssm", "ethm", "etotm")
GRAVITY_COLUMNS = ("epot",)

# Time series written before the columns took the Pencil Code's names:
# old name -> (new name, conversion); read_timeseries and a restart's
# TimeSeries read such files under the new names.
OLD_COLUMNS = {"step": ("it", None), "rho_mean": ("rhom", None), "lnrho_min": ("lnrhomin", None),
               "lnrho_max": ("lnrhomax", None), "divu_rms": ("divu2m", lambda v: v * v),
               "vorticity_rms": ("orms", None), "helicity_mag": ("abm", None)}


def columns(sim):
    """The time-series columns of `sim`: COLUMNS, MAGNETIC_COLUMNS with physics="mhd", ENTROPY_COLUMNS
    with energy="entropy", GRAVITY_COLUMNS with gravity."""
    return (COLUMNS + (MAGNETIC_COLUMNS if getattr(sim, "physics", "hydro") == "mhd" else ()) +
            (ENTROPY_COLUMNS if getattr(sim, "energy", "isothermal") == "entropy" else ()) +
            (GRAVITY_COLUMNS if _has_gravity(sim) else ()))


def _has_gravity(sim):
    return any(float(g) != 0.0 for g in getattr(sim, "gravity", (0.0, 0.0, 0.0)))


def row(sim, dt):
    """One time-series row (a dict over columns(sim)) for the simulation now
    (NaN entries, without warnings, once the run has blown up)."""
    import numpy as np

    with np.errstate(all="ignore"):
        return _row(sim, dt)


def _row(sim, dt):
    xp = analysis._array_module(sim)
    value = analysis._host
    lnrho = analysis._field(sim, "lnrho", xp).astype(xp.float64)
    u = [c.astype(xp.float64) for c in analysis.velocity(sim)]
    u2 = sum(c ** 2 for c in u)
    w = [c.astype(xp.float64) for c in analysis.vorticity(sim, u)]
    w2 = sum(c ** 2 for c in w)
    div = analysis.divergence(sim, u).astype(xp.float64)
    rho = xp.exp(lnrho)
    magnetic = {}
    if getattr(sim, "physics", "hydro") == "mhd":
        b2 = sum(c ** 2 for c in analysis.magnetic_field(sim))
        j2 = sum(c ** 2 for c in analysis.current_density(sim))
        magnetic = {"brms": math.sqrt(value(xp.mean(b2))), "bmax": math.sqrt(value(xp.max(b2))),
                    "b2m": value(xp.mean(b2)), "jrms": math.sqrt(value(xp.mean(j2))),
                    "jmax": math.sqrt(value(xp.max(j2))), "abm": analysis.magnetic_helicity(sim)}
    thermal = {}
    if getattr(sim, "energy", "isothermal") == "entropy":
        import numpy as np

        T = analysis.temperature(sim)
        rho_host = np.exp(np.asarray(sim["lnrho"], dtype=np.float64))
        ethm = analysis.thermal_energy(sim, rho_host, T)
        etotm = analysis.energy_budget(sim, u, rho, T, b2 if magnetic else None)["total"]
        thermal = {"TTm": float(np.mean(T)), "TTmax": float(np.max(T)), "TTmin": float(np.min(T)),
                   "ssm": float(np.mean(np.asarray(sim["ss"], dtype=np.float64))), "ethm": ethm, "etotm": etotm}
    if _has_gravity(sim):
        thermal["epot"] = analysis.potential_energy(sim, rho)
    return magnetic | thermal | {
        "it": sim.steps, "t": sim.t, "dt": dt,
        "urms": math.sqrt(value(xp.mean(u2))), "umax": math.sqrt(value(xp.max(u2))),
        "ekin": analysis.kinetic_energy(sim, u, rho), "rhom": value(xp.mean(rho)),
        "lnrhomin": value(xp.min(lnrho)), "lnrhomax": value(xp.max(lnrho)),
        "divu2m": value(xp.mean(div ** 2)),
        "orms": math.sqrt(value(xp.mean(w2))), "omax": math.sqrt(value(xp.max(w2))),
        "oum": analysis.kinetic_helicity(sim, u, w),
    }


def _read_csv(path):
    """(header names, rows of cells) of a CSV time series; a partial last line is dropped."""
    with open(path) as f:
        lines = [line for line in f.read().split("\n") if line]
    if not lines:
        return [], []
    header = lines[0].split(",")
    return header, [cells for cells in (line.split(",") for line in lines[1:]) if len(cells) == len(header)]


def _renamed(header, rows):
    """header and rows under today's column names (OLD_COLUMNS), converted where needed."""
    names, convert = [], []
    for name in header:
        new, how = OLD_COLUMNS.get(name, (name, None))
        names.append(new)
        convert.append(how)
    rows = [[c if how is None else repr(how(float(c))) for c, how in zip(cells, convert)] for cells in rows]
    return names, rows


def read_timeseries(path):
    """A time-series CSV as a NumPy structured array (one field per column),
    with the columns of files written before they took the Pencil Code's
    names (`step`, `rho_mean`, `divu_rms`, `vorticity_rms`, `helicity_mag`,
    ...) under today's names (`it`, `rhom`, `divu2m`, `orms`, `abm`, ...).
    A ValueError names the file when it is not such a CSV."""
    import numpy as np

    path = os.fspath(path)
    try:
        header, rows = _read_csv(path)
        names, rows = _renamed(header, rows)
        if not names or "t" not in names:
            raise ValueError("no header with a column t")
        data = np.array([tuple(float(c) for c in cells) for cells in rows],
                        dtype=[(n, np.float64) for n in names])
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not a time series of astaroth (a CSV file with a header naming its "
                         f"columns): {e}") from None
    return data


class TimeSeries:
    """Appends rows to a CSV file, writing the header when the file is new.
    A file whose header differs (an earlier run's, before a column was
    renamed or added) is first rewritten under `columns`: renamed columns
    keep their values, new ones read nan."""

    def __init__(self, path, write=True, columns=COLUMNS):
        self.path = os.fspath(path)
        self.write = write  # False on all MPI ranks but one
        self.columns = columns
        if not write:
            return
        if not os.path.exists(self.path) or os.path.getsize(self.path) == 0:
            with open(self.path, "w") as f:
                f.write(",".join(columns) + "\n")
            return
        header, rows = _read_csv(self.path)
        if header != list(columns):
            self._upgrade(header, rows)

    def _upgrade(self, header, rows):
        from .io import atomic_path

        names, rows = _renamed(header, rows)
        where = {name: i for i, name in enumerate(names)}
        lines = [",".join(self.columns)]
        lines += [",".join(cells[where[c]] if c in where else "nan" for c in self.columns) for cells in rows]
        with atomic_path(self.path, "time series") as tmp, open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")

    def append(self, values):
        if not self.write:
            return
        with open(self.path, "a") as f:
            f.write(",".join(repr(float(values[c])) if c != "it" else str(int(values[c]))
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
        if self.tty:  # blanks over the rest of a longer line before
            line, self.width = line.ljust(getattr(self, "width", 0)), len(line)
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        self.stream.flush()

    def close(self):
        self.update(force=True)
        if self.tty:
            self.stream.write("\n")


class Progress(ProgressLine):
    """Step, t of the end time, steps and M grid-point updates per second,
    time left.  One Progress may span several run() calls (the command line
    passes one over its whole run, segment after segment): t, the rates and
    the time left are then those of the whole run.  The time left divides
    the simulated time still to go by the pace of the last RECENT seconds,
    since a developing flow shortens its steps."""

    RECENT = 30.0

    def __init__(self, sim, until, every=5.0, stream=None):
        super().__init__(every, stream)
        self.sim, self.until = sim, until
        self.t0, self.steps0 = sim.t, sim.steps
        self.samples = [(self.time0, sim.t)]  # (wall clock, t), the last RECENT seconds and one before

    def text(self, elapsed):
        sim = self.sim
        now = self.time0 + elapsed
        self.samples.append((now, sim.t))
        while len(self.samples) > 2 and now - self.samples[1][0] >= self.RECENT:
            self.samples.pop(0)
        wall, t_then = self.samples[0]
        pace = (sim.t - t_then) / max(now - wall, 1e-9)  # simulated time per second
        left = (self.until - sim.t) / pace if pace > 0 else math.inf
        steps = (sim.steps - self.steps0) / elapsed
        updates = steps * math.prod(sim.shape) / 1e6
        return (f"step {sim.steps}  t = {sim.t:.6g} of {self.until:g}  {_figures(steps)} steps/s, "
                f"{_figures(updates)} M updates/s  {_duration(left)} left")


def _figures(x):
    """x to three significant figures, without an exponent: 0.0123, 4.56, 789, 4540."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def _duration(seconds):
    """seconds as '42 s', '3 min 5 s', '2 h 10 min' (or '?' when unknown)."""
    if not math.isfinite(seconds):
        return "?"
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
