"""What a run writes and watches while it goes on (Simulation.run's
diagnostics hooks): the time series (CSV and the Pencil Code's
time_series.dat), a step cap (the Pencil Code's `nt`), a RELOAD file, and
outputs at their own cadence (astaroth.outputs: averages, slices, spectra).

Every output acts after the steps whose number (sim.steps) is a multiple of
its cadence, so a run split into several calls, or restarted from a
snapshot, writes what one call would; on a GPU the steps up to the next such
step are taken at once (Simulation.run's batches)."""
import numbers
import os
import warnings

from . import analysis, diagnostics


def host_copies(sim):
    """Where a CUDA run's time series and outputs cannot be computed on the
    device (analysis._array_module: without CuPy, or a grid split over MPI
    ranks), what that costs, as a sentence; None where they are (the CPU
    backend, or CUDA with CuPy: only the reduced numbers come to the host)."""
    if getattr(sim, "backend", "cpu") != "cuda" or analysis._array_module(sim) is not analysis.np:
        return None
    if getattr(sim, "decomposition", None) is not None:
        return ("this CUDA run is split over MPI ranks: each row of its time series and each average, slice "
                "and spectrum gathers the whole fields it needs on every rank and computes on the host")
    return ("CuPy is not installed: each average, slice and spectrum of this CUDA run (and each row of its "
            "time series, in a shearing box or with walls and a magnetic field) copies the whole fields it needs "
            "from the GPU and computes on the host; install CuPy (pip install cupy-cuda12x) to compute them on "
            "the device")


def _count(value, name, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not (isinstance(value, numbers.Integral) and value >= 1):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


class RunOutputs:
    """The outputs of one Simulation.run call, checked when made (before any
    step): time-series paths (one path or several; a name ending in .dat is
    written in the Pencil Code's format), the chosen columns, their
    cadence, outputs (objects with `every`, `check(sim)`, `open(sim)`,
    `write(sim)`, `close()`), nt, and a reload file with its callback."""

    def __init__(self, sim, timeseries=None, columns=None, every=10, outputs=(), nt=None, reload_file=None,
                 on_reload=None):
        self.sim = sim
        self.every = _count(every, "diagnostics_every", allow_none=False)
        self.nt = _count(nt, "nt")
        if timeseries is None:
            paths = []
        elif isinstance(timeseries, (str, bytes, os.PathLike)):
            paths = [os.fspath(timeseries)]
        else:
            try:
                paths = [os.fspath(p) for p in timeseries]
            except TypeError:
                raise TypeError(f"timeseries must be a path or a list of paths, not {timeseries!r}") from None
        if columns is not None and not paths:
            raise ValueError("diagnostics names the columns of the time series: pass timeseries=PATH as well")
        self.columns = diagnostics.select(sim, columns)
        self.outputs = list(outputs or ())
        for out in self.outputs:
            if not all(hasattr(out, a) for a in ("every", "check", "open", "write", "close")):
                raise TypeError(f"outputs: {out!r} is not an output (astaroth.outputs: Averages, Slices, Spectra)")
            out.check(sim)  # every output checked before any file is written
        if (reload_file is None) != (on_reload is None):
            raise ValueError("reload_file and on_reload go together: the file asks, on_reload(sim) re-reads")
        self.reload_file, self.on_reload = reload_file, on_reload
        # rows are computed on every rank (the reductions are global), written by one
        self.series = [diagnostics.TimeSeries(p, write=sim.is_root, columns=self.columns) for p in paths]
        for out in self.outputs:
            out.open(sim)
        # a row copies nothing but its numbers, save what the analysis functions give it
        rows_copy = self.series and diagnostics._taken_from_analysis(sim) is not None
        note = host_copies(sim) if self.outputs or rows_copy else None
        if note:
            warnings.warn(note, RuntimeWarning, stacklevel=3)

    def cadences(self):
        return ([self.every] if self.series else []) + [out.every for out in self.outputs]

    def batch(self, taken, default):
        """How many steps may be taken at once from now: up to the next step
        at which something is written, and not past nt."""
        steps = self.sim.steps
        gaps = [every - steps % every for every in self.cadences()]
        most = min(gaps) if gaps else default
        if self.nt is not None:
            most = min(most, self.nt - taken)
        return max(most, 1)

    def row(self, dt):
        if not self.series:
            return
        values = diagnostics.row(self.sim, dt, self.columns)
        for series in self.series:
            series.append(values)

    def after_step(self, dt):
        """Write what is due after the step just taken."""
        steps = self.sim.steps
        if self.series and steps % self.every == 0:
            self.row(dt)
        for out in self.outputs:
            if steps % out.every == 0:
                out.write(self.sim)

    def capped(self, taken):
        """Whether this call has taken its nt steps."""
        return self.nt is not None and taken >= self.nt

    def reload_requested(self):
        """Whether the reload file has appeared (on any rank)."""
        return self.reload_file is not None and self.sim._agree(os.path.exists(self.reload_file))

    def reload(self):
        """Remove the reload file and call on_reload(sim); True when it asks the run to end this call."""
        if self.sim.is_root and os.path.exists(self.reload_file):
            os.unlink(self.reload_file)
        return bool(self.on_reload(self.sim))

    def finish(self, taken, dt):
        """After the last step: the time series' last row (if not written at this step)."""
        if self.series and taken and self.sim.steps % self.every != 0:
            self.row(dt)

    def close(self):
        for out in self.outputs:
            out.close()
