"""Parameter sweeps: a run for every point of a grid of parameters and
seeds, in one call, resumable from its run directory.

    def make(eta, seed):
        sim = ac.Simulation(shape=(32,) * 3, physics="mhd", nu=5e-3, eta=eta)
        sim.forcing = ac.Forcing(kmin=2.1, kmax=2.9, f0=0.07, seed=seed, relhel=1.0)
        return sim

    table = ac.sweep(make, {"eta": [0.02, 0.05, 0.1], "seed": [1, 2, 3]}, until=200.0, rundir="onset")
    table[table.final]        # each member's last row: eta, seed, status and its diagnostics

The members are the Cartesian product of the grid's lists, the last name
varying fastest.  They run in waves of astaroth.Ensemble: members of one
configuration (shape, dtype, method, physics, backend) share launches on
the GPU where they can, up to MEMBERS_PER_LAUNCH and as many as fit the
GPU's free memory, and on the CPU one member per OpenMP thread.  Each
member's time series is sampled every `every` units of simulated time, so
the members share their time axis.

The run directory holds

    sweep.json            what the sweep is (grid, until, every, diagnostics, cdt, cdtv, dt);
                          a call with another sweep there is refused
    members/NNNNN.json    one file per finished member (NNNNN its index): its parameters,
                          status and time series, written atomically (astaroth.io.atomic_path)
    sweep.csv             the whole table, rewritten at the end of each call

A later call with the same sweep (after a kill, say) reads the finished
members from their files and runs only the others; a member killed while
it ran starts again from make().  A member that blows up (NaN or Inf)
ends there with status "blew up", its last row at the time it blew up (NaN or
Inf in the columns the bad values reach); the others go on.
"""
import csv
import gc
import inspect
import itertools
import json
import math
import numbers
import os
import time
import warnings
from collections.abc import Mapping

import numpy as np

from . import _core
from .diagnostics import ProgressLine, _duration, catalogue, check_names, row, select
from .ensemble import _SAME, MEMBERS_PER_LAUNCH, Ensemble
from .io import atomic_path
from .rundir import remove_temporaries
from .simulation import (NonFiniteError, Simulation, UnstableStepError, _courant_numbers, _positive_dt,
                         _real)

FORMAT = "astaroth-sweep-1"
SPEC, MEMBERS, TABLE = "sweep.json", "members", "sweep.csv"
DONE, BLEW_UP = "done", "blew up"
ROWS = 100  # rows of a member's time series when `every` is not given: every = until / ROWS
OWN_COLUMNS = ("member", "status", "final")  # the table's columns besides the parameters and the time series
_BUFFERS = 5  # a member's field-sized buffers, at most (csrc/cpu/cpu_backend.c: 4 a field, and div u or zeta)
_GHOST = 3  # ghost points at each end of an axis (csrc/grid.h AC_GHOST)


def sweep(make, grid, until, rundir, every=None, diagnostics=None, wave=None, progress=True, overwrite=False,
          cdt=0.4, cdtv=0.3, dt=None, dtmin=None):
    """Run `make(**params)` for every point of `grid` to time `until`, and
    return the results as one pandas DataFrame.

    Parameters
    ----------
    make : callable
        make(**params) -> Simulation: the member of one point of the grid,
        set up (forcing, initial state) and ready to run.  It is called
        once per member that has not finished yet.
    grid : dict
        {name: list of values}: the parameters of make and their values;
        the members are every combination (the last name varying fastest).
        Values are numbers, strings, booleans or lists of them (they are
        recorded in the run directory's sweep.json); a name "seed" takes
        integers in [0, 2**64).
    until : float
        The time every member runs to.
    rundir : str or path
        The run directory (made if missing).  Holding the same sweep, the
        call goes on from it: finished members are read, not run again.
        Holding another sweep, or files but no sweep, it is refused.
    every : float or None
        Simulated time between rows of each member's time series (default
        until / 100); rows at the start, at multiples of `every` and at
        `until`.
    diagnostics : list of str or None
        The time-series columns (astaroth.diagnostics.catalogue(); it, t
        and dt come first); None: the default set of each member
        (astaroth.diagnostics.columns).
    wave : int or None
        Members run at once, as one ensemble per configuration (default: on
        the GPU as many as fit its free memory, at most MEMBERS_PER_LAUNCH;
        on the CPU one per OpenMP thread).  A kill loses only the wave
        running.
    progress : bool
        One progress line for the whole sweep (members done, the slowest
        running member's time, time left).
    overwrite : bool
        Delete the results of an earlier sweep in `rundir` and start afresh.
    cdt, cdtv, dt
        As for Simulation.run.
    dtmin : float or None
        The Pencil Code's dtmin: a member whose CFL step, found at each of
        its rows, has fallen below dtmin stops there, as one that blew up
        (its message names the step, the time and what limits dt); the
        others run on.  None: never (nor with a fixed dt).

    Returns
    -------
    pandas.DataFrame
        One row per time-series row of each member: the swept parameters,
        `member` (the index of the member), `status` ("done" or "blew up"),
        the time-series columns and `final` (True on each member's last
        row): ``table[table.final]`` gives each member's final diagnostics.
        ``table.attrs["messages"]`` maps a member that blew up to what
        happened.  A RuntimeWarning names the members that blew up.

    Bad input raises ValueError or TypeError naming the parameter before
    any member runs.  Needs pandas (``pip install ".[sweep]"``); the
    command ``astaroth sweep CONFIG.toml`` does the same from a TOML file
    without it.
    """
    try:
        import pandas
    except ImportError:
        raise ImportError("ac.sweep returns a pandas DataFrame: pip install pandas (or the package's [sweep] "
                          "extra); `astaroth sweep CONFIG.toml` runs a sweep without it") from None
    records = run(make, grid, until, rundir, every, diagnostics, wave, progress, overwrite, cdt, cdtv, dt, dtmin)
    report = blowups(records)
    if report:
        warnings.warn(report, RuntimeWarning, stacklevel=2)
    header, rows = table(records, list(grid))
    frame = pandas.DataFrame(rows, columns=header)
    frame.attrs["messages"] = {r["member"]: r["message"] for r in records if r["status"] == BLEW_UP}
    return frame


def run(make, grid, until, rundir, every=None, diagnostics=None, wave=None, progress=True, overwrite=False,
        cdt=0.4, cdtv=0.3, dt=None, dtmin=None):
    """The sweep of `sweep` (the same arguments), without pandas: returns
    the member records in the grid's order, each a dict with `member`,
    `params`, `status`, `message`, `columns` and `rows` (as the files
    members/NNNNN.json hold them), after writing sweep.csv."""
    if not callable(make):
        raise TypeError(f"make must be a function make(**params) -> Simulation, not {make!r}")
    grid = check_grid(grid, make)
    until = _real(until, "until")
    if until <= 0:
        raise ValueError(f"until must be positive, got {until}")
    every = until / ROWS if every is None else _positive_dt(every, "every")
    if diagnostics is not None:
        diagnostics = list(check_names(diagnostics, "diagnostics"))
    if wave is not None and (isinstance(wave, bool) or not isinstance(wave, numbers.Integral) or wave < 1):
        raise ValueError(f"wave must be a positive integer (members run at once) or None, got {wave!r}")
    for name, flag in (("progress", progress), ("overwrite", overwrite)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    cdt, cdtv = _courant_numbers(cdt, cdtv)
    dt = None if dt is None else _positive_dt(dt)
    dtmin = None if dtmin is None else _positive_dt(dtmin, "dtmin")
    spec = {"format": FORMAT, "grid": {name: [_plain(v) for v in values] for name, values in grid.items()},
            "until": until, "every": every, "diagnostics": diagnostics, "cdt": cdt, "cdtv": cdtv, "dt": dt,
            "dtmin": dtmin}  # (a record from before dtmin, without the key, reads as None: the same sweep)
    folder = _open(rundir, spec, overwrite, getattr(make, "__qualname__", repr(make)))
    members = [dict(zip(grid, values)) for values in itertools.product(*grid.values())]
    records = [_finished(folder, i, _plain(params)) for i, params in enumerate(members)]
    todo = [i for i, r in enumerate(records) if r is None]
    bar = _Bar(len(members), len(members) - len(todo), until) if progress and todo else None
    waves = _Waves(make, members, folder, until, every, diagnostics, cdt, cdtv, dt, dtmin, bar)
    try:
        while todo:
            todo = waves.wave(todo, wave, records)
    finally:
        if bar is not None:
            bar.close()
    header, rows = table(records, list(grid))
    with atomic_path(os.path.join(folder, TABLE), "sweep table") as tmp, open(tmp, "w", newline="") as f:
        csv.writer(f).writerows([header] + rows)
    return records


def check_grid(grid, make=None):
    """`grid` checked: a dict {name: list of values}, each list not empty,
    without repeats, of numbers, strings, booleans or lists of them; seeds
    (the name "seed") integers in [0, 2**64); names that make (when given)
    takes, every parameter of make without a default among them.  Returns
    it as {name: list}.  TypeError or ValueError naming the parameter."""
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a dict {{parameter name: list of values}}, e.g. {{'eta': [0.01, 0.02], "
                        f"'seed': [1, 2]}}, not {type(grid).__name__}")
    if not grid:
        raise ValueError("grid is empty: name at least one parameter of make and its values, e.g. {'seed': [1, 2]}")
    out = {}
    for name, values in grid.items():
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"grid: parameter names are non-empty strings, got {name!r}")
        if name in OWN_COLUMNS or name in catalogue():
            raise ValueError(f"grid: the parameter name {name!r} is also a column of the sweep's table (the columns "
                             f"{', '.join(OWN_COLUMNS)} and those of astaroth.diagnostics.catalogue()); rename it")
        if isinstance(values, np.ndarray):
            values = values.tolist() if values.ndim == 1 else values
        if not isinstance(values, (list, tuple, range)):
            raise TypeError(f"grid[{name!r}] must be a list of values, e.g. [1, 2, 3], not {values!r}")
        values = list(values)
        if not values:
            raise ValueError(f"grid[{name!r}] is an empty list: give it at least one value")
        seen = set()
        for v in values:
            plain = _plain(v, f"grid[{name!r}]")
            if name == "seed":
                _check_seed(v)
            key = json.dumps(plain)
            if key in seen:
                raise ValueError(f"grid[{name!r}] holds {v!r} twice: each value once")
            seen.add(key)
        out[name] = values
    if make is not None:
        _check_make(make, out)
    return out


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)):
        raise TypeError(f"grid['seed']: seeds are integers in [0, 2**64), got {seed!r}")
    if not 0 <= int(seed) < 2 ** 64:
        raise ValueError(f"grid['seed']: seeds are integers in [0, 2**64), got {seed!r}")


def _check_make(make, grid):
    """Every name of `grid` a keyword make takes, every parameter of make without a default in `grid`."""
    try:
        parameters = inspect.signature(make).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: make(**params) will tell
        return
    named = {p.name: p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if not any(p.kind == p.VAR_KEYWORD for p in parameters):
        for name in grid:
            if name not in named:
                raise ValueError(f"grid: make takes no parameter {name!r}; its parameters are "
                                 f"{', '.join(named) or 'none'}")
    missing = [name for name, p in named.items() if p.default is p.empty and name not in grid]
    if missing:
        raise ValueError(f"grid: make's parameter {missing[0]!r} has no default and is not swept: add it to the "
                         f"grid (a list of one value holds it fixed)")


def _plain(value, what=None):
    """`value` as JSON writes it back (numbers, strings, booleans, lists of them; a dict's values too)."""
    if isinstance(value, dict):
        return {k: _plain(v, what) for k, v in value.items()}
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise ValueError(f"{what}: {value!r} is not a finite number")
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v, what) for v in value]
    raise TypeError(f"{what}: {value!r} is not a number, string, boolean or list of them (the values are recorded "
                    f"in the run directory's {SPEC})")


def _open(rundir, spec, overwrite, maker):
    """The run directory, made or checked against `spec` (ValueError naming
    what differs), emptied of an earlier sweep where `overwrite`; returns its
    path after writing sweep.json."""
    if not isinstance(rundir, (str, os.PathLike)):
        raise TypeError(f"rundir must be a path (a string), not {rundir!r}")
    folder = os.fspath(rundir)
    spec_path = os.path.join(folder, SPEC)
    if os.path.isdir(folder):
        remove_temporaries(folder)
        if os.path.isdir(os.path.join(folder, MEMBERS)):
            remove_temporaries(os.path.join(folder, MEMBERS))
    if os.path.exists(spec_path):
        recorded = _read(spec_path)
        if recorded is None:
            raise ValueError(f"rundir {folder}: {SPEC} is not a sweep's record (not JSON); move it away, or choose "
                             f"another rundir")
        differ = [f"{key} = {recorded.get(key)!r} there, {value!r} here" for key, value in spec.items()
                  if recorded.get(key) != value]
        if overwrite:
            for path in [spec_path, os.path.join(folder, TABLE)] + _member_files(folder):
                if os.path.exists(path):
                    os.unlink(path)
        elif differ:
            raise ValueError(f"rundir {folder} holds a different sweep ({'; '.join(differ)}): choose another rundir, "
                             f"or overwrite=True (astaroth sweep --overwrite) to delete its results and start afresh")
    elif os.path.isdir(folder) and os.listdir(folder):
        raise ValueError(f"rundir {folder} holds files but no {SPEC}: it is not a sweep's directory; choose a new or "
                         f"empty one")
    os.makedirs(os.path.join(folder, MEMBERS), exist_ok=True)
    if not os.path.exists(spec_path):
        _write(spec_path, {**spec, "make": maker}, "sweep record")
    return folder


def _member_files(folder):
    found = os.path.join(folder, MEMBERS)
    return [os.path.join(found, n) for n in sorted(os.listdir(found)) if n.endswith(".json")] \
        if os.path.isdir(found) else []


def _member_path(folder, i):
    return os.path.join(folder, MEMBERS, f"{i:05d}.json")


def _read(path):
    """The JSON in `path`, or None where it is not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (ValueError, UnicodeDecodeError):
        return None


def _write(path, value, what):
    with atomic_path(path, what) as tmp, open(tmp, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")


def _finished(folder, i, params):
    """The record of member i where its file holds it (finished earlier), else None."""
    path = _member_path(folder, i)
    if not os.path.exists(path):
        return None
    record = _read(path)
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("params") != params:
        return None  # not this member's record: it runs again, and its file is replaced
    return record


def _params_text(params):
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _made(make, params):
    sim = make(**params)
    if not isinstance(sim, Simulation):
        raise TypeError(f"make({_params_text(params)}) returned {type(sim).__name__}, not an astaroth.Simulation")
    return sim


def _wave_size(sim, wave):
    """Members of a wave: `wave`, or as many as memory holds beside `sim`
    (on the GPU at most MEMBERS_PER_LAUNCH), on the CPU one per OpenMP thread."""
    if wave is not None:
        return wave
    member = _BUFFERS * len(sim.field_names) * math.prod(n + 2 * _GHOST for n in sim.shape) * sim.dtype.itemsize
    if sim.backend == "cuda":
        from .device import memory_info

        return max(1, min(MEMBERS_PER_LAUNCH, int(0.8 * memory_info()[0] // member) + 1))
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        free = math.inf
    return max(1, min(_core.openmp_threads(), int(min(0.5 * free // member, 2 ** 31)) + 1))


class _Waves:
    """The members' runs, a wave at a time."""

    def __init__(self, make, members, folder, until, every, diagnostics, cdt, cdtv, dt, dtmin, bar):
        self.make, self.members, self.folder = make, members, folder
        self.until, self.every, self.diagnostics = until, every, diagnostics
        self.cdt, self.cdtv, self.dt, self.bar = cdt, cdtv, dt, bar
        self.dtmin = dtmin if dt is None else None  # (a fixed step is not a CFL step: as Simulation.run)

    def wave(self, todo, wave, records):
        """Run the first wave of `todo` (member indices), filling `records`; returns the members left."""
        first = _made(self.make, self.members[todo[0]])
        ids = todo[:_wave_size(first, wave)]
        sims = {ids[0]: first}
        for i in ids[1:]:
            sims[i] = _made(self.make, self.members[i])
        del first
        for i, record in self._advance(sims):
            records[i] = record
        sims.clear()
        gc.collect()  # the wave's grids go before the next wave's are made
        return todo[len(ids):]

    def _next(self, t):
        """The time of a member's next row: the next multiple of `every`, or until."""
        return min(self.until, (math.floor(t / self.every * (1 + 1e-12)) + 1) * self.every)

    def _advance(self, sims):
        """Run the members `sims` ({index: Simulation}) to `until`, a row at
        each multiple of `every`; yields (index, record) as each finishes."""
        started = time.perf_counter()
        columns = {i: select(sim, self.diagnostics) for i, sim in sims.items()}
        rows = {i: [self._row(sim, columns[i], math.nan)] for i, sim in sims.items()}
        active = dict(sims)
        if self.bar is not None:
            self.bar.running = {i: (sim, sim.t) for i, sim in sims.items()}
        while active:
            after = {i: self._next(sim.t) if sim.t < self.until else sim.t for i, sim in active.items()}
            target = min(after.values())
            batch = [i for i in active if after[i] == target]
            before = {i: (active[i].t, active[i].steps) for i in batch}
            for group in _configurations(active, batch):
                try:
                    Ensemble([active[i] for i in group]).run(target, self.cdt, self.cdtv, progress=self.bar or False,
                                                              dt=self.dt)
                except UnstableStepError:  # a fixed dt beyond RK3's bounds: bad input, not a blow-up
                    raise
                except NonFiniteError:  # the others have finished the segment; which blew up is found below
                    pass
            for i in batch:
                sim = active[i]
                t0, steps0 = before[i]
                mean_dt = (sim.t - t0) / (sim.steps - steps0) if sim.steps > steps0 else math.nan
                rows[i].append(self._row(sim, columns[i], mean_dt))
                blown = _blowup(sim, target)
                if not blown and self.dtmin is not None and sim.t < self.until:
                    blown = _too_short(sim, self.dtmin, self.cdt, self.cdtv)
                if blown or sim.t >= self.until:
                    del active[i]
                    if self.bar is not None:
                        self.bar.finished(i, blown)
                    yield i, self._finish(i, sim, columns[i], rows[i], blown, time.perf_counter() - started)
        if self.bar is not None:
            self.bar.update()

    def _row(self, sim, columns, dt):
        values = row(sim, dt, self.diagnostics)
        return [values[c] for c in columns]

    def _finish(self, i, sim, columns, rows, blown, wall):
        """Write member i's record (atomically) and return it."""
        record = {"format": FORMAT, "member": i, "params": _plain(self.members[i]),
                  "status": BLEW_UP if blown else DONE, "message": blown, "t": sim.t, "steps": sim.steps,
                  "wall_s": wall, "columns": list(columns), "rows": rows}
        _write(_member_path(self.folder, i), record, "sweep member's results")
        return record


def _configurations(sims, batch):
    """The members of `batch` grouped by what an Ensemble's members share (shape, dtype, method, modules, backend)."""
    groups = {}
    for i in batch:
        groups.setdefault(tuple(str(getattr(sims[i], name)) for name in _SAME), []).append(i)
    return list(groups.values())


def _blowup(sim, target):
    """What went wrong with a member that should have reached `target`, or None."""
    try:
        sim.check_finite()
    except NonFiniteError as error:
        return str(error)
    if sim.t < target:  # finite fields, but its run stopped: the CFL speed overflowed
        return (f"stopped at step {sim.steps}, t = {sim.t:.6g}, before t = {target:g}: its signal speed is not finite "
                f"(the fields overflow the precision)")
    return None


def _too_short(sim, dtmin, cdt, cdtv):
    """What stops a member whose CFL step has fallen below dtmin, as
    Simulation.run's TimeStepTooShortError says it, or None."""
    dt = sim.cfl_dt(cdt, cdtv)
    return None if dt >= dtmin else sim._below_dtmin(dt, dtmin, cdt, cdtv)


def blowups(records):
    """A line naming the members of `records` that blew up, with what happened, or None."""
    blown = [r for r in records if r["status"] == BLEW_UP]
    if not blown:
        return None
    named = "; ".join(f"member {r['member']} ({_params_text(r['params'])}): {r['message']}" for r in blown[:5])
    more = f"; and {len(blown) - 5} more" if len(blown) > 5 else ""
    return (f"{len(blown)} of {len(records)} sweep members blew up (status {BLEW_UP!r} in the table, their last row "
            f"at the blow-up); the others ran on: {named}{more}")


def table(records, names):
    """(header, rows) of the sweep's table: a row per time-series row of
    each member, with the parameters `names`, the member's index and status,
    the time-series columns (those of all members; NaN where a member has
    none) and `final` (True on each member's last row)."""
    columns = []
    for record in records:
        columns += [c for c in record["columns"] if c not in columns]
    header = list(names) + ["member", "status"] + columns + ["final"]
    out = []
    for record in records:
        where = {c: k for k, c in enumerate(record["columns"])}
        last = len(record["rows"]) - 1
        for j, values in enumerate(record["rows"]):
            out.append([record["params"][n] for n in names] + [record["member"], record["status"]] +
                       [values[where[c]] if c in where else math.nan for c in columns] + [j == last])
    return header, out


class _Bar(ProgressLine):
    """Members done of all (how many blew up), the running members' slowest time, time left."""

    def __init__(self, total, done, until, every=10.0, stream=None):
        super().__init__(every, stream)
        self.total, self.done, self.until = total, done, until
        self.todo, self.finished_now, self.blown = total - done, 0, 0
        self.running = {}  # index -> (Simulation, its time when it started)

    def finished(self, i, blown):
        self.running.pop(i, None)
        self.done += 1
        self.finished_now += 1
        self.blown += bool(blown)

    def text(self, elapsed):
        part = sum(1.0 if self.until <= t0 else (sim.t - t0) / (self.until - t0) for sim, t0 in self.running.values())
        share = (self.finished_now + part) / self.todo
        left = elapsed * (1 - share) / share if share > 0 else math.inf
        slowest = min((sim.t for sim, _ in self.running.values()), default=self.until)
        blown = f" ({self.blown} blew up)" if self.blown else ""
        return (f"sweep: {self.done} of {self.total} members done{blown}, {len(self.running)} running (slowest at "
                f"t = {slowest:.4g} of {self.until:g}); {_duration(elapsed)} so far, {_duration(left)} left")
