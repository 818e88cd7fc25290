"""Ensembles: many simulations of one shape advanced together (parameter sweeps).

    sims = [ac.Simulation(shape=(64,) * 3, nu=nu) for nu in (1e-3, 2e-3, 5e-3)]
    ens = ac.Ensemble(sims)
    ens.run(until=1.0)          # every member with its own CFL steps, each landing on t = 1
    for sim in ens:
        print(sim.nu, ac.analysis.symmetry_error(sim))

The members stay ordinary Simulation objects.  Each advances exactly as it
would alone (the same steps through the same arithmetic, so the same bits).
On the GPU, members that find their dt on the device go together:
members of one configuration (MHD, entropy, passive scalars,
hyperdiffusion, the Coriolis force, plain hydrodynamics: every one the
device's loop takes but walls and gravity), all forced or none, in shared
launches, each stepping all of them (up to MEMBERS_PER_LAUNCH; fewer a
launch where they have more fields, cuda_backend.cu's run_members), so that
many small grids fill the GPU like one large one; the others (walls, gravity, members of different
configurations, forced beside unforced) in one CUDA graph of all their steps
(cuda_backend.cu's run_members_graphed).  Members with shock
viscosity or the 19-point method run side by side in worker threads
(the compiled steps release the GIL); on the CPU the OpenMP threads are
shared out over the members running at once.
"""
import math
import time
from concurrent.futures import ThreadPoolExecutor

from . import _core
from .diagnostics import ProgressLine
from .simulation import DEVICE_BATCH, NonFiniteError, Simulation, _device_batch_size, _positive_dt

MEMBERS_PER_LAUNCH = 128  # members one call steps (kernels.h's AC_MAX_MEMBERS; the backend splits wider members)

# what members must share: an ensemble is one kind of run swept over parameters
# the modules (csrc/parameters.def: physics, and any later switch) fix the field list
_SAME = ("shape", "dtype", "method", "modules", "backend")


class Ensemble:
    """Simulations of the same shape, dtype, method, physics and backend, advanced together.

    Parameters
    ----------
    sims : iterable of Simulation
        The members, which may differ in anything else (viscosity, sound
        speed, forcing and its seed, initial state, box, time).  A
        simulation appears at most once; grids split over MPI ranks are not
        members.
    workers : int or None
        Members advanced at once (default: on the CPU, one per OpenMP thread
        up to the number of members, the threads shared out among them; on
        the GPU, all members).

    ``len(ens)``, iteration and indexing give the members.
    """

    def __init__(self, sims, workers=None):
        if isinstance(sims, Simulation):
            raise TypeError("Ensemble takes a sequence of Simulation objects, e.g. Ensemble([sim1, sim2]), "
                            "not one Simulation (an ensemble of one is Ensemble([sim]))")
        try:
            sims = list(sims)
        except TypeError:
            raise TypeError(f"Ensemble takes a sequence of Simulation objects, not {type(sims).__name__}") from None
        if not sims:
            raise ValueError("an Ensemble needs at least one Simulation")
        for i, sim in enumerate(sims):
            if not isinstance(sim, Simulation):
                raise TypeError(f"Ensemble members must be astaroth.Simulation objects; member {i} is "
                                f"{type(sim).__name__}")
            if sim.decomposition is not None:
                raise ValueError(f"member {i} is split over MPI ranks; an Ensemble runs whole grids")
        if len({id(sim) for sim in sims}) != len(sims):
            raise ValueError("a Simulation appears twice in the Ensemble; each member must be its own object")
        first = sims[0]
        for i, sim in enumerate(sims[1:], 1):
            for name in _SAME:
                if getattr(sim, name) != getattr(first, name):
                    what = "modules (physics and the other switches)" if name == "modules" else name
                    raise ValueError(f"Ensemble members must share their {what}: member 0 has "
                                     f"{getattr(first, name)}, member {i} has {getattr(sim, name)}")
        self._sims = sims
        if workers is None:
            workers = len(sims) if first.backend == "cuda" else min(len(sims), _core.openmp_threads())
        if isinstance(workers, bool) or not (isinstance(workers, int) and workers >= 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self._workers = min(workers, len(sims))

    # --- the members --------------------------------------------------------
    def __len__(self):
        return len(self._sims)

    def __iter__(self):
        return iter(self._sims)

    def __getitem__(self, index):
        """The member at `index` (a Simulation), or a list of members for a slice."""
        return self._sims[index]

    def __repr__(self):
        first = self._sims[0]
        return (f"Ensemble({len(self)} members, shape={first.shape}, dtype={first.dtype.name}, "
                f"method={first.method!r}, backend={first.backend!r})")

    shape = property(lambda self: self._sims[0].shape, doc="Grid points per axis, shared by the members.")
    t = property(lambda self: [sim.t for sim in self._sims], doc="Each member's time.")
    steps = property(lambda self: [sim.steps for sim in self._sims], doc="Each member's steps taken.")

    # --- advancing ----------------------------------------------------------
    def step(self, dt=None):
        """One step of every member: `dt` (checked as Simulation.step checks
        it), or by default each member's own CFL step.  Returns the list of
        the dt each member took."""
        return self._each(lambda sim: sim.step(dt))

    def run(self, until, cdt=0.4, cdtv=0.3, check_every=10, progress=False, dt=None):
        """Advance every member with its own CFL steps to time `until`, each
        landing exactly on it (as Simulation.run; cdt, cdtv, check_every and
        dt, a fixed time step for every member, mean the same).  progress:
        True for a line every few seconds (members done, slowest member's
        time, aggregate M updates/s), or a diagnostics.ProgressLine to go
        on with (one line over several calls, e.g. a whole sweep's:
        astaroth.sweeps).  Returns the list of steps each member
        took.  A member that blows up raises NonFiniteError naming it, after
        the others have finished."""
        # the arguments are every member's: checked once, then each member's time against `until`
        plan = self._sims[0]._run_arguments(until, cdt, cdtv, check_every, dt)
        for i, sim in enumerate(self._sims):
            if plan[0] < sim.t:
                raise ValueError(f"until={plan[0]} lies before member {i}'s current time t={sim.t}")
        plans = [plan] * len(self._sims)
        if dt is not None:
            dt = _positive_dt(dt)
            for i, sim in enumerate(self._sims):
                if sim.t < until:
                    _named(i, sim._check_stability, dt, 3, "")
        bar = progress if isinstance(progress, ProgressLine) else _Progress(self, until) if progress else None

        def advance(sim, plan):
            steps = sim._cfl_steps(*plan, check_every, dt)
            steps.batch = DEVICE_BATCH  # where the backend can, a member's steps run without waiting between them
            for _ in steps:
                pass
            sim.check_finite()
            return steps.taken

        try:
            taken, alone = (self._run_together(*plans[0], bar) if dt is None else
                             ([0] * len(self._sims), list(range(len(self._sims)))))
            for i, steps in zip(alone, self._each(advance, plans, bar, alone)):
                taken[i] += steps
            self._raise_first_error(taken)
            return taken
        finally:
            if bar is not None:
                bar.close() if bar is not progress else bar.update()  # a caller's line goes on after this run

    def _run_together(self, until, cdt, cdtv, bar):
        """The members that can, to `until` in shared launches on the GPU
        (_core.run_cfl_members), each with its own dt found on the device as
        its solo run finds it.  Returns the steps each member took and the
        indices of those left to run alone; a member that blew up keeps its
        error in place of its steps (raised by _raise_first_error)."""
        sims = self._sims
        taken = [0] * len(sims)
        # members already at `until` go alone: their run is only the final NaN check; the device
        # finds each member's dt (_core.run_cfl_members refuses what it cannot step there)
        together = [i for i, sim in enumerate(sims) if sim._may_step_on_device() and sim.t < until]
        if len(together) < 2:
            return taken, list(range(len(sims)))
        guess = {}  # each member's last full step, first its CFL step now (the size of the batches)

        def check(i):
            guess[i] = sims[i]._start_dt(cdt, cdtv)
            sims[i]._check_step_count(until, guess[i], cdt, cdtv)

        for i in list(together):  # one host reduction each: the device finds the steps' dt itself
            # a member whose fields are already not finite keeps its error; the others run on
            error = _error_of(i, lambda: check(i))
            if error is not None:
                taken[i] = error
                together.remove(i)
        if len(together) < 2:
            return taken, [i for i in range(len(sims)) if isinstance(taken[i], int)]
        began = {i: sims[i].t for i in together}
        for first in range(0, len(together), MEMBERS_PER_LAUNCH):
            group = together[first:first + MEMBERS_PER_LAUNCH]
            while True:
                active = [i for i in group if sims[i].t < until and isinstance(taken[i], int)]
                if not active:
                    break
                most = max(_device_batch_size(sims[i], until, guess[i], DEVICE_BATCH) for i in active)
                results = _core.run_cfl_members([sims[i]._grid for i in active],
                                                [(sims[i].t, until, cdt, cdtv) for i in active], most)
                if results is None:  # they cannot go together: each runs alone
                    return taken, [i for i in range(len(sims)) if isinstance(taken[i], int)]
                for i, (t, steps, dt, nonfinite) in zip(active, results):
                    sim = sims[i]
                    taken[i] += steps
                    if steps:  # (the steps of this run so far: a short last call says little of dt alone)
                        sim._remember_steps(cdt, cdtv, t - began[i], taken[i], dt, t == until)
                        guess[i] = dt
                    sim._advanced(t, steps)
                    if nonfinite:  # before a step, as cfl_dt raises, or after the last (every step is checked)
                        taken[i] = _error_of(i, sim._raise_nonfinite)
                if bar is not None:
                    bar.update()
        grouped = set(together)
        return taken, [i for i in range(len(sims)) if i not in grouped and isinstance(taken[i], int)]

    @staticmethod
    def _raise_first_error(taken):
        for steps in taken:
            if isinstance(steps, Exception):
                raise steps

    def _each(self, work, extra=None, bar=None, members=None):
        """work(member[, extra[i]]) for every member (or those of the indices
        `members`), `workers` at a time; results in that order.  Errors are
        raised after every member has finished, naming the first member that
        failed."""
        members = range(len(self._sims)) if members is None else members
        args = [(i, (self._sims[i],) if extra is None else (self._sims[i], extra[i])) for i in members]
        if not args:
            return []
        if self._workers == 1:
            return [_named(i, work, *a) for i, a in args]
        threads = _omp_share(self._sims[0].backend, self._workers)

        def task(i, a):
            if threads is not None:
                _core.set_openmp_threads(threads)
            return _named(i, work, *a)

        with ThreadPoolExecutor(max_workers=self._workers) as pool:
            futures = [pool.submit(task, i, a) for i, a in args]
            if bar is not None:
                while not all(f.done() for f in futures):
                    time.sleep(0.05)
                    bar.update()
            errors = [f.exception() for f in futures]
        for error in errors:
            if error is not None:
                raise error
        return [f.result() for f in futures]


def _omp_share(backend, workers):
    """OpenMP threads per member when `workers` CPU members run at once."""
    if backend != "cpu":
        return None
    return max(1, _core.openmp_threads() // workers)


def _error_of(i, work):
    """The NonFiniteError work() raises, naming ensemble member i, or None."""
    try:
        _named(i, work)
    except NonFiniteError as error:
        return error
    return None


def _named(i, work, *args):
    """work(*args), with a blow-up's message naming ensemble member i."""
    try:
        return work(*args)
    except NonFiniteError as error:
        error.args = (f"ensemble member {i}: {error.args[0] if error.args else error}",) + error.args[1:]
        raise


class _Progress(ProgressLine):
    """Members done, the slowest member's time, aggregate M updates/s."""

    def __init__(self, ens, until, every=5.0, stream=None):
        super().__init__(every, stream)
        self.ens, self.until = ens, until
        self.steps0 = sum(ens.steps)

    def text(self, elapsed):
        times = self.ens.t
        done = sum(t >= self.until for t in times)
        rate = (sum(self.ens.steps) - self.steps0) * math.prod(self.ens.shape) / elapsed / 1e6
        return (f"{done} of {len(times)} members at t = {self.until:g}; slowest at t = {min(times):.6g}  "
                f"{rate:.1f} M updates/s in all")
