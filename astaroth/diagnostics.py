"""Time series and progress for long runs.

`Simulation.run(..., timeseries="ts.csv", diagnostics_every=N)` appends one
row every N steps; the file is plain CSV with a header, read directly by
``numpy.genfromtxt(path, delimiter=",", names=True)`` or ``pandas.read_csv``
(or by read_timeseries(path), which also reads files written under the
column names before they followed the Pencil Code).  On one process the
backend reduces a row in one pass where the fields are (csrc/timeseries.h:
on the GPU a launch and a copy of its numbers; J with walls and every
derivative in a shearing box from the analysis functions); a grid split
over ranks takes its rows from the analysis functions (_values).

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
# (formula, meaning) of each default column, as in the table above.
_DEFAULT_TABLE = {
    "it": ("sim.steps", "steps taken"), "t": ("sim.t", "time after the step"), "dt": ("dt", "the step's length"),
    "urms": ("<|u|^2>^(1/2)", "rms speed"), "umax": ("max |u|", "largest speed"),
    "ekin": ("<rho |u|^2 / 2>", "kinetic energy per unit volume"), "rhom": ("<rho>", "mean density"),
    "lnrhomin": ("min lnrho", "smallest log density"), "lnrhomax": ("max lnrho", "largest log density"),
    "divu2m": ("<(div u)^2>", "compressibility"), "orms": ("<|omega|^2>^(1/2)", "rms vorticity"),
    "omax": ("max |omega|", "largest vorticity"), "oum": ("<omega . u>", "kinetic helicity"),
    "brms": ("<|B|^2>^(1/2)", "rms field, b_ext included"), "bmax": ("max |B|", "largest field"),
    "b2m": ("<|B|^2>", "twice the magnetic energy per unit volume, times mu0"),
    "jrms": ("<|J|^2>^(1/2)", "rms current density"), "jmax": ("max |J|", "largest current density"),
    "abm": ("<A . curl A>", "magnetic helicity, without b_ext"),
    "TTm": ("<T>", "mean temperature"), "TTmax": ("max T", "largest temperature"),
    "TTmin": ("min T", "smallest temperature"), "ssm": ("<ss>", "mean specific entropy"),
    "ethm": ("<rho cv T>", "thermal energy per unit volume"),
    "etotm": ("<rho |u|^2/2 + rho cv T + |B|^2/(2 mu0) + rho Phi>", "total energy per unit volume"),
    "epot": ("<rho Phi>", "potential energy per unit volume"),
}

# More columns a run may choose (run(diagnostics=[...]), [diagnostics] columns
# in TOML), with the Pencil Code's print.in names and meaning: name ->
# (formula, meaning, what it needs: None, "mhd", "entropy" or "gravity").
EXTRA_COLUMNS = {
    "uxm": ("<ux>", "mean x velocity", None), "uym": ("<uy>", "mean y velocity", None),
    "uzm": ("<uz>", "mean z velocity", None),
    "ux2m": ("<ux^2>", "mean square x velocity", None), "uy2m": ("<uy^2>", "mean square y velocity", None),
    "uz2m": ("<uz^2>", "mean square z velocity", None),
    "rhomin": ("min rho", "smallest density", None), "rhomax": ("max rho", "largest density", None),
    "bxm": ("<Bx>", "mean x field", "mhd"), "bym": ("<By>", "mean y field", "mhd"),
    "bzm": ("<Bz>", "mean z field", "mhd"),
    "bx2m": ("<Bx^2>", "mean square x field", "mhd"), "by2m": ("<By^2>", "mean square y field", "mhd"),
    "bz2m": ("<Bz^2>", "mean square z field", "mhd"),
    "ssmin": ("min ss", "smallest specific entropy", "entropy"),
    "ssmax": ("max ss", "largest specific entropy", "entropy"),
}
_NEEDS = {"mhd": 'physics="mhd"', "entropy": 'energy="entropy"', "gravity": "gravity (a nonzero sim.gravity)"}


def catalogue():
    """Every time-series column a run may choose: {name: (formula, meaning,
    needs)}, needs None or what the simulation must have ("mhd", "entropy",
    "gravity").  The default columns (columns(sim)) come first, then
    EXTRA_COLUMNS; docs/guide/diagnostics.md has the same table."""
    out = {}
    for names, needs in ((COLUMNS, None), (MAGNETIC_COLUMNS, "mhd"), (ENTROPY_COLUMNS, "entropy"),
                         (GRAVITY_COLUMNS, "gravity")):
        out.update((name, _DEFAULT_TABLE[name] + (needs,)) for name in names)
    out.update(EXTRA_COLUMNS)
    return out


def _available(sim, needs):
    return (needs is None or (needs == "mhd" and getattr(sim, "physics", "hydro") == "mhd") or
            (needs == "entropy" and getattr(sim, "energy", "isothermal") == "entropy") or
            (needs == "gravity" and _has_gravity(sim)))


def check_names(names, what="diagnostics"):
    """`names` (a list of column names) checked against the catalogue: a
    TypeError for what is not a list of strings, a ValueError naming an
    unknown name and its close matches.  Returns them as a tuple."""
    import difflib

    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"{what} must be a list of column names, e.g. ['it', 't', 'urms'], not {names!r}")
    names = tuple(names)
    known = catalogue()
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what}: column names are strings, got {name!r}")
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise ValueError(f"{what}: unknown column {name!r}{hint}; the columns are {', '.join(known)} "
                             f"(docs/guide/diagnostics.md)")
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: a column is named twice in {list(names)}")
    return names


def select(sim, names=None, what="diagnostics"):
    """The time-series columns of `sim` for the chosen `names` (None: the
    default set, columns(sim)): checked against the catalogue and against
    what `sim` has (brms needs physics="mhd", ...), each refused naming the
    column; it, t and dt come first whether named or not (a restart
    truncates the rows by `it`)."""
    if names is None:
        return columns(sim)
    names = check_names(names, what)
    known = catalogue()
    for name in names:
        needs = known[name][2]
        if not _available(sim, needs):
            raise ValueError(f"{what}: column {name!r} ({known[name][1]}) needs {_NEEDS[needs]}")
    return ("it", "t", "dt") + tuple(n for n in names if n not in ("it", "t", "dt"))


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


def row(sim, dt, names=None):
    """One time-series row (a dict over columns(sim), and over any of
    `names` from EXTRA_COLUMNS) for the simulation now (NaN entries,
    without warnings, once the run has blown up), from the reductions of
    _values."""
    import numpy as np

    extra = tuple(n for n in names or () if n in EXTRA_COLUMNS)
    with np.errstate(all="ignore"):
        values = _values(sim)
        out = {"it": sim.steps, "t": sim.t, "dt": dt}
        for name in columns(sim)[3:] + extra:
            if name == "etotm":  # energy_budget's sum, in its order
                out[name] = (values["ekin_vol"] + values.get("eth_vol", 0.0) +
                             (values["b2_vol"] / (2 * float(sim.mu0)) if "b2_vol" in values else 0.0) +
                             values["epot_vol"])
            else:
                value, conversion = _COLUMN_OF[name]
                out[name] = conversion(values[value])
        return out


# Each column from the reductions of csrc/timeseries.h (by their names there):
# column -> (the reduction, its conversion); etotm sums the energies.
_COLUMN_OF = {
    "urms": ("u2", math.sqrt), "umax": ("u2_max", math.sqrt), "ekin": ("ekin", float), "rhom": ("rho", float),
    "lnrhomin": ("lnrho_min", float), "lnrhomax": ("lnrho_max", float), "divu2m": ("divu2", float),
    "orms": ("w2", math.sqrt), "omax": ("w2_max", math.sqrt), "oum": ("wu", float),
    "brms": ("b2", math.sqrt), "bmax": ("b2_max", math.sqrt), "b2m": ("b2", float), "jrms": ("j2", math.sqrt),
    "jmax": ("j2_max", math.sqrt), "abm": ("ab", float),
    "TTm": ("TT", float), "TTmax": ("TT_max", float), "TTmin": ("TT_min", float), "ssm": ("ss", float),
    "ethm": ("eth", float), "epot": ("epot_vol", float),
    "uxm": ("ux", float), "uym": ("uy", float), "uzm": ("uz", float),
    "ux2m": ("ux2", float), "uy2m": ("uy2", float), "uz2m": ("uz2", float),
    "rhomin": ("lnrho_min", math.exp), "rhomax": ("lnrho_max", math.exp),
    "bxm": ("bx", float), "bym": ("by", float), "bzm": ("bz", float),
    "bx2m": ("bx2", float), "by2m": ("by2", float), "bz2m": ("bz2", float),
    "ssmin": ("ss_min", float), "ssmax": ("ss_max", float),
}


def _values(sim):
    """The reductions of a row ({name: value}, csrc/timeseries.h's names).
    On one process the backend takes them in one pass where the fields are
    (Grid.timeseries: on the GPU a launch and a copy of its numbers), those
    of _taken_from_analysis(sim) aside."""
    taken = _taken_from_analysis(sim)
    if taken == "all":
        return _analysis_values(sim, "all")
    values = sim._grid.timeseries()
    if taken is not None:
        values.update(_analysis_values(sim, taken))
    return values


def _taken_from_analysis(sim):
    """Which of a row's reductions the analysis functions give rather than
    the backend's one pass: "all" for a grid split over ranks (gathered),
    "derivatives" in a shearing box (its images by Fourier series) or on a
    wall axis too short for the one-sided stencils (their ValueError says
    so), "currents" with walls and physics="mhd" (J as the curl of B there;
    Grid.timeseries leaves it out), else None.  Under CUDA without CuPy
    those copy the fields to the host (during.host_copies)."""
    if sim.decomposition is not None:
        return "all"
    walls = analysis.walls_of(sim)
    if analysis._sheared(sim) or any(sim.shape[a] < 7 for a in walls):
        return "derivatives"
    if walls and getattr(sim, "physics", "hydro") == "mhd":
        return "currents"
    return None


def _analysis_values(sim, what):
    """The reductions of a row by the analysis functions (astaroth.analysis,
    on the device views under CuPy): what = "currents" (J), "derivatives"
    (div u, omega, B, J) or "all"."""
    xp = analysis._array_module(sim)
    value = analysis._host
    mhd = getattr(sim, "physics", "hydro") == "mhd"
    if what == "currents":  # (physics="mhd")
        j2 = sum(c ** 2 for c in analysis.current_density(sim))
        return {"j2": value(xp.mean(j2)), "j2_max": value(xp.max(j2))}
    u = [c.astype(xp.float64) for c in analysis.velocity(sim)]
    w = [c.astype(xp.float64) for c in analysis.vorticity(sim, u)]
    w2 = sum(c ** 2 for c in w)
    div = analysis.divergence(sim, u).astype(xp.float64)
    out = {"divu2": value(xp.mean(div ** 2)), "w2": value(xp.mean(w2)), "w2_max": value(xp.max(w2)),
           "wu": analysis.kinetic_helicity(sim, u, w)}
    if mhd:  # A and curl A read and taken once for B, J and <A . curl A>
        a = analysis.vector_potential(sim)
        curl_a = analysis.curl_of_potential(sim, a)
        b = analysis.magnetic_field(sim, curl_a)
        b2 = sum(c ** 2 for c in b)
        j2 = sum(c ** 2 for c in analysis.current_density(sim, a))
        out |= {"b2": value(xp.mean(b2)), "b2_max": value(xp.max(b2)), "j2": value(xp.mean(j2)),
                "j2_max": value(xp.max(j2)), "ab": analysis.magnetic_helicity(sim, a, curl_a),
                "b2_vol": analysis.volume_mean(sim, b2)}
        for x, c in zip("xyz", b):
            out |= {f"b{x}": value(xp.mean(c)), f"b{x}2": value(xp.mean(c ** 2))}
    if what == "derivatives":
        return out
    lnrho = analysis._field(sim, "lnrho", xp).astype(xp.float64)
    rho = xp.exp(lnrho)
    u2 = sum(c ** 2 for c in u)
    out |= {"u2": value(xp.mean(u2)), "u2_max": value(xp.max(u2)), "ekin": analysis.kinetic_energy(sim, u, rho),
            "rho": value(xp.mean(rho)), "lnrho_min": value(xp.min(lnrho)), "lnrho_max": value(xp.max(lnrho)),
            "ekin_vol": analysis.volume_mean(sim, 0.5 * rho * u2), "epot_vol": analysis.potential_energy(sim, rho)}
    for x, c in zip("xyz", u):
        out |= {f"u{x}": value(xp.mean(c)), f"u{x}2": value(xp.mean(c ** 2))}
    if getattr(sim, "energy", "isothermal") == "entropy":
        import numpy as np

        T = analysis.temperature(sim)
        ss = np.asarray(sim["ss"], dtype=np.float64)
        rho_host = np.exp(np.asarray(sim["lnrho"], dtype=np.float64))
        out |= {"TT": float(np.mean(T)), "TT_max": float(np.max(T)), "TT_min": float(np.min(T)),
                "ss": float(np.mean(ss)), "ss_max": float(np.max(ss)), "ss_min": float(np.min(ss)),
                "eth": analysis.thermal_energy(sim, rho_host, T),
                "eth_vol": analysis.volume_mean(sim, rho_host * (float(sim.cp) / float(sim.gamma)) * T)}
    return out


def _pencil(path):
    """Whether `path` is a time series in the Pencil Code's format (a name ending in .dat)."""
    return os.fspath(path).endswith(".dat")


def _read_csv(path):
    """(header names, rows of cells) of a time series, CSV or the Pencil
    Code's time_series.dat (pencil_header); a partial last line is dropped."""
    with open(path) as f:
        lines = [line for line in f.read().split("\n") if line.strip()]
    if not lines:
        return [], []
    if _pencil(path):
        heads = [i for i, line in enumerate(lines) if line.startswith("#--")]
        if not heads:
            return [], []
        header = [name for name in lines[heads[-1]].strip("#-").split("-") if name]
        rows = (line.split() for line in lines[heads[-1] + 1:] if not line.startswith("#"))
        return header, [cells for cells in rows if len(cells) == len(header)]
    header = lines[0].split(",")
    return header, [cells for cells in (line.split(",") for line in lines[1:]) if len(cells) == len(header)]


# The Pencil Code's time_series.dat: a header line "#--it-----t-------dt---..."
# naming the columns (each name right-aligned over its column, dashes as fill,
# as its src/diagnostics.f90 writes it), then rows of numbers separated by
# blanks; its Python reader, pencil.read.ts, strips "#-" from the header,
# splits it at runs of dashes and the rows at blanks.
_INT_WIDTH, _REAL_WIDTH = 8, 14


def _widths(columns):
    return [max(_INT_WIDTH if c == "it" else _REAL_WIDTH, len(c) + 2) for c in columns]


def pencil_header(columns):
    """The header line of a time_series.dat with `columns` (no name may hold a '-')."""
    return "#" + "".join(c.rjust(w, "-") for c, w in zip(columns, _widths(columns)))


def _cells(values, columns):
    """The cells of one row as text: `it` an integer, the others repr'd floats (CSV)."""
    return [str(int(values[c])) if c == "it" else repr(float(values[c])) for c in columns]


def _line(cells, columns, pencil):
    if not pencil:
        return ",".join(cells)
    out = []
    for c, cell, w in zip(columns, cells, _widths(columns)):
        if c != "it":
            cell = f"{float(cell):.6e}"
        out.append(cell.rjust(w))
    return "".join(out)


def _write_table(path, columns, rows):
    """Write a whole time series (header and rows of cells) to `path` in its format, atomically."""
    from .io import atomic_path

    pencil = _pencil(path)
    lines = [pencil_header(columns) if pencil else ",".join(columns)]
    lines += [_line(cells, columns, pencil) for cells in rows]
    with atomic_path(path, "time series") as tmp, open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")


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
    """Appends rows to a time series, writing the header when the file is
    new: CSV, or the Pencil Code's time_series.dat for a path ending in
    .dat (pencil_header; pencil.read.ts reads it).  A file whose header
    differs (an earlier run's, before a column was renamed, added or
    chosen otherwise) is first rewritten under `columns`: renamed and kept
    columns keep their values, new ones read nan."""

    def __init__(self, path, write=True, columns=COLUMNS):
        self.path = os.fspath(path)
        self.write = write  # False on all MPI ranks but one
        self.columns = columns
        self.pencil = _pencil(self.path)
        if self.pencil and any("-" in c for c in columns):
            raise ValueError(f"{self.path}: the Pencil Code's time_series.dat cannot hold a column name with '-'")
        if not write:
            return
        if not os.path.exists(self.path) or os.path.getsize(self.path) == 0:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)  # as the outputs make theirs
            _write_table(self.path, columns, [])
            return
        header, rows = _read_csv(self.path)
        if header != list(columns):
            self._upgrade(header, rows)

    def _upgrade(self, header, rows):
        names, rows = _renamed(header, rows)
        where = {name: i for i, name in enumerate(names)}
        _write_table(self.path, self.columns,
                     [[cells[where[c]] if c in where else "nan" for c in self.columns] for cells in rows])

    def append(self, values):
        if not self.write:
            return
        with open(self.path, "a") as f:
            f.write(_line(_cells(values, self.columns), self.columns, self.pencil) + "\n")


def truncate(path, steps, keep_last):
    """Drop the rows of the time series `path` (CSV or .dat) past step
    `steps`, the row at `steps` itself unless keep_last, and any partial
    line a kill left; returns how many rows went.  The file is rewritten
    atomically."""
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        count = sum(1 for line in f.read().split("\n")[1:] if line.strip() and not line.startswith("#"))
    header, rows = _read_csv(path)
    if "it" not in header:
        return 0
    at = header.index("it")
    kept = []
    for cells in rows:
        try:
            step = int(cells[at])
        except ValueError:
            continue
        if step < steps or (step == steps and keep_last):
            kept.append(cells)
    if len(kept) == count:
        return 0
    _write_table(path, header, kept)
    return count - len(kept)


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
