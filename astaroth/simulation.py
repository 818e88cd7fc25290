"""The Simulation: one periodic box of isothermal compressible fluid.

Python checks the input and drives the run; every time step runs in C or
CUDA (astaroth._core).  Equations: seed 001, eqs. (1)-(3); time stepping:
2N-storage RK3, eq. (10); see docs/numerics.md.
"""
import math
import numbers
import os
import signal
import threading
import warnings
import weakref

import numpy as np

from . import _core
from . import boundaries as _walls
from . import parameters as _registry
from . import thermo as _thermo

FIELDS = _registry.field_names(("hydro",))  # lnrho, ux, uy, uz (csrc/fields.h)
MAGNETIC_FIELDS = _registry.field_names(("magnetic",))  # the vector potential A, physics="mhd"
PHYSICS = dict((s["keyword"], s["values"]) for s in _registry.switches())["physics"]
METHODS = ("55p", "19p")
DTYPES = ("float32", "float64")

_FIELD_BUFFER, _RHS_BUFFER = 0, 1
# The hyperdiffusive time-step number (csrc/timestep.h).  Not 0.1: the 7-point
# stencil's largest eigenvalue is 64 / dx^6 per axis, so RK3 (stable to 2.51
# on the negative real axis) needs dt nu_hyper3 sum 1/dx^6 <= 2.51 / 64 =
# 0.039: at 0.1 grid-scale noise grows (tests/test_hyper.py shows it).
CDTV3 = _core.CDTV3


def backends():
    """Backends this build can run here, e.g. ``["cpu", "cuda"]``.

    "cpu" is always present; "cuda" appears when the CUDA backend was
    compiled in and a GPU is visible.
    """
    found = []
    for name in _core.compiled_backends():
        if name == "cuda" and _core.cuda_device_count() < 1:
            continue
        found.append(name)
    return found


def default_backend():
    """The backend "auto" picks: CUDA when a GPU is usable, else the CPU."""
    return "cuda" if "cuda" in backends() else "cpu"


def _auto_backend(parameters):
    """default_backend(), but the CPU (with a warning naming why) where a
    parameter given off its default switches on a term that CUDA does not
    run yet (_core.terms_missing)."""
    backend = default_backend()
    if backend == "cpu":
        return backend
    missing = set(_core.terms_missing(backend))
    for row in _core.parameter_table():
        value = parameters.get(row["name"], row["default"])
        try:
            off = bool(np.any(np.asarray(value, dtype=float) != row["default"]))
        except (TypeError, ValueError):  # a bad value: the parameter's own check names it
            continue
        if row["term_switch"] and row["term"] in missing and off:
            warnings.warn(f"backend='auto' runs on the CPU: the term '{row['term']}' ({row['name']} = {value!r}) "
                          "does not run on the GPU yet", RuntimeWarning, stacklevel=3)
            return "cpu"
    return backend


def _three(value, name, kind):
    """A number or a sequence of three, as a tuple of three of `kind`."""
    if isinstance(value, (numbers.Number, np.number)):
        value = (value,) * 3
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a number or a sequence of three numbers, not {value!r}") from None
    if len(items) != 3:
        raise ValueError(f"{name} must have three entries (x, y, z), got {len(items)}: {value!r}")
    out = []
    for v in items:
        if kind is int:
            if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)):
                raise TypeError(f"{name} entries must be integers, got {v!r}")
            out.append(int(v))
        else:
            if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.number)) or isinstance(v, complex):
                raise TypeError(f"{name} entries must be real numbers, got {v!r}")
            out.append(float(v))
    return tuple(out)


_real = _registry.finite_real


def _positive_dt(dt, name="dt"):
    dt = _real(dt, name)
    if dt <= 0:
        raise ValueError(f"{name} must be positive, got {dt}")
    return dt


# The C indices are ints (padding adds up to two row alignments to an axis);
# a cap on the total keeps every byte count of the backends far from 2**64.
MAX_AXIS = 2 ** 31 - 128
MAX_POINTS = 2 ** 50

# Linear stability of sixth-order centred differences with RK3 (docs/numerics.md):
# the first derivative's largest modified wave number is 1.586 / dx and RK3
# is stable up to sqrt(3) on the imaginary axis, so advection is stable up to
# a Courant number dt max(|u| + cs) / dxmin of 1.09 (along one axis; less in
# 3-D); the second derivative reaches 6.04 / dx^2 per axis, 4/3 of that for
# compressive modes, against RK3's 2.51 on the negative real axis, so
# diffusion is stable up to dt nu sum 1/dx^2 = 0.31.
STABLE_COURANT, STABLE_DIFFUSION = 1.09, 0.31
# Beyond RK3's own bounds no mode of any stencil is stable: step() refuses.
RK3_COURANT, RK3_DIFFUSION = math.sqrt(3.0), 2.51
RK3_HYPER = RK3_DIFFUSION / 64  # the 7-point sixth derivative's largest eigenvalue is 64 / dx^6
# A run that would take more steps than this is refused before its first
# (at a microsecond a step, 1e12 steps are twelve days): its dt is absurdly small.
MAX_RUN_STEPS = 1e12


def _check_grid(shape, box, dtype):
    """Refuse grids the backends cannot index or whose spacing over- or
    underflows the time-step and derivative arithmetic of `dtype`."""
    if max(shape) > MAX_AXIS or math.prod(shape) > MAX_POINTS:
        raise ValueError(f"shape {shape} has {math.prod(shape):.3g} points, more than astaroth can address "
                         f"(at most {MAX_AXIS} per axis and 2**50 in all)")
    info = np.finfo(dtype)
    lo, hi = 1.0 / math.sqrt(float(info.max)), 1.0 / math.sqrt(float(info.tiny))  # 1/dx^2 stays finite and normal
    for n, L, axis in zip(shape, box, "xyz"):
        if not lo <= L / n <= hi:
            raise ValueError(f"box length {L:g} over {n} points along {axis} gives a grid spacing {L / n:.3g}, "
                             f"outside what {dtype} derivatives can take ({lo:.2g} to {hi:.2g}): choose units "
                             f"in which the box is nearer 1")


def _require_55p(what, method):
    """MHD, hyperdiffusion and shock viscosity take the 55-point method's
    stencils (grad div A, the point loops, the streaming kernel), on either
    backend."""
    if method != "55p":
        raise ValueError(f"{what} needs method='55p'")


def _courant_numbers(cdt, cdtv):
    """cdt and cdtv, checked: positive and finite."""
    return _positive_dt(cdt, "cdt"), _positive_dt(cdtv, "cdtv")


def _warn_courant_numbers(cdt, cdtv, stacklevel=4):
    """cdt or cdtv checked as step(dt) checks an explicit dt: beyond RK3's
    stability bound refused (UnstableStepError, before any work), beyond the
    scheme's limit a RuntimeWarning; a CFL step that either limits has that
    Courant or diffusion number."""
    for name, value, rk3, stable, what in (("cdt", cdt, RK3_COURANT, STABLE_COURANT, "Courant number"),
                                           ("cdtv", cdtv, RK3_DIFFUSION, STABLE_DIFFUSION, "diffusion number")):
        if value > rk3:
            raise UnstableStepError(f"{name} = {value:g} is beyond RK3's stability bound {rk3:.3g} for the {what}: "
                                    f"every step that {name} limits would blow up (step(dt) refuses such a step too); "
                                    f"the default is {0.4 if name == 'cdt' else 0.3}")
        if value > stable:
            warnings.warn(f"{name} = {value:g} is beyond the stable limit {stable} of this scheme for the {what}: "
                          f"a step that {name} limits will likely blow up", RuntimeWarning, stacklevel=stacklevel)


class NonFiniteError(FloatingPointError):
    """The fields hold a NaN or Inf: the run has blown up."""


class UnstableStepError(NonFiniteError, ValueError):
    """An explicit dt beyond RK3's stability bound: the step would blow up.
    Both a NonFiniteError (a blow-up, caught where blow-ups are) and a
    ValueError (bad input, refused before any work)."""


class TimeStepTooShortError(RuntimeError):
    """A run's CFL step fell below its dtmin (the Pencil Code's "Time step
    has become too short"): the run stopped there, the fields as they are."""


class _StopRequest:
    """SIGINT/SIGTERM set a flag (in the main thread) instead of interrupting a step."""

    def __init__(self, enabled):
        self.requested = False
        self.saved = {}
        if enabled and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.saved[sig] = signal.signal(sig, self._handler)

    def _handler(self, signum, frame):
        self.requested = True

    def restore(self):
        """Put the earlier handlers back.  A request that came after the
        last look (a segment's last step) passes to an enclosing
        _StopRequest, so that the enclosing loop still stops."""
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
            outer = getattr(handler, "__self__", None)
            if self.requested and isinstance(outer, _StopRequest):
                outer.requested = True
        self.saved = {}


DEVICE_BATCH = 64  # CFL steps a GPU takes between two looks from the host (_CflSteps.batch)
FIRST_DEVICE_BATCH = 8  # ... when it cannot yet tell how many steps are left
HOST_BATCH_SECONDS = 0.5  # a batch of steps in C on the host returns after about this long (_CflSteps._host_batch)


def _device_batch_size(sim, until, dt, batch):
    """How many steps a device loop (run_cfl) should queue for `sim`, at most
    `batch`.  Steps queued past `until` do nothing but still cost launches
    (and those of a reduction a step, their full price): queue about as many
    as remain at dt, the last full step's (or this run's first CFL step's:
    a run's last step, shortened to land on its `until`, is no guide to the
    next run's), a few more; FIRST_DEVICE_BATCH without one."""
    remaining = (until - sim.t) / dt if dt > 0 else FIRST_DEVICE_BATCH
    return batch if remaining + 2 >= batch else int(remaining) + 2


class _CflSteps:
    """CFL steps of `sim` to `until`, the last one shortened to land on it:
    iterating takes one step at a time and yields its dt (also kept in
    .dt, which holds the step being taken when a check raises); the fields
    are checked for NaN/Inf every check_every steps (the caller checks at
    the end).  Simulation.run and Ensemble.run both step through this, so an
    ensemble's member takes exactly the steps it would take alone.
    fixed_dt: steps of that length instead of CFL steps (run(dt=...)), on
    the host; the last one lands on `until` (t drifts by rounding over many
    fixed steps, so a step within 1e-9 dt of `until` is taken as the last).
    Before the first step the count of steps to `until` is checked
    (Simulation._check_step_count).

    batch: how many steps the next iteration may take at once (default 1).
    Above 1, on one process, the steps are taken in C and the iteration
    yields the last dt: where the backend can (CUDA, 55-point method, no
    shock viscosity or shear; forced or not, walls and gravity too) without waiting
    between steps, each dt found on the device with
    cfl_dt's arithmetic, bit for bit, every step checking every field for
    NaN/Inf (the reduction for dt does); else on the host (Grid.run_steps),
    the same steps as one at a time, checked every check_every steps, for
    at most about HOST_BATCH_SECONDS before Python looks in again.  A grid
    split over MPI ranks takes its batches on the host too where its rank's
    steps are in C (ParallelStepper.c_steps, built with an MPI compiler:
    every split run but a shearing box split along x or y), its ranks
    agreeing in C on each dt and on where a batch ends; else one step at a
    time through ParallelStepper."""

    def __init__(self, sim, until, cdt, cdtv, check_every, fixed_dt=None):
        self.sim, self.until, self.cdt, self.cdtv, self.check_every = sim, until, cdt, cdtv, check_every
        self.taken, self.dt = 0, 0.0
        self.batch = 1
        self.stop_file = None  # a path whose appearance ends a batch on the host after its step (run's stop_file)
        self.fixed_dt = fixed_dt  # a fixed step (run(dt=...)) in place of the CFL step
        self._on_device = fixed_dt is None and sim._may_step_on_device()
        self._counted = False  # the step count checked (sim._check_step_count) before the first step
        self._first_dt = 0.0  # the CFL step of the fields as the run began (a device batch's first guess)
        self._began = sim.t  # (with taken: the mean step of the run's device batches, _remember_steps)

    def __iter__(self):
        return self

    def __next__(self):
        sim = self.sim
        if not sim.t < self.until:
            raise StopIteration
        if self.batch > 1 and self.fixed_dt is None and (sim._parallel is None or sim._stepper.c_steps is not None):
            if not self._counted:  # at most one host reduction: the backend finds the steps' dt itself
                self._first_dt = (sim._start_dt(self.cdt, self.cdtv) if self._on_device else
                                  sim.cfl_dt(self.cdt, self.cdtv))
                sim._check_step_count(self.until, self._first_dt, self.cdt, self.cdtv)
                self._counted = True
            dt = self._device_batch() if self._on_device else None
            return dt if dt is not None else self._host_batch()
        if self.fixed_dt is None:
            dt = sim.cfl_dt(self.cdt, self.cdtv)
            last = sim.t + dt >= self.until
        else:  # t drifts by rounding over many fixed steps: a last step within 1e-9 dt of until lands on it
            dt = self.fixed_dt
            last = sim.t + dt * (1 + 1e-9) >= self.until
        if not self._counted:
            sim._check_step_count(self.until, dt, self.cdt, self.cdtv, fixed=self.fixed_dt is not None)
            self._counted = True
        if last:
            dt = self.until - sim.t
        self.dt = dt
        sim._advance(dt, profile_current=self.fixed_dt is None)
        sim.steps += 1
        self.taken += 1
        sim.t = self.until if last else sim.t + dt
        if self.taken % self.check_every == 0:
            sim.check_finite()
        return dt

    def _host_batch(self):
        """Up to `batch` steps taken in C on the host (Grid.run_steps: the
        same dt, forcing and NaN checks as one at a time, without Python
        between them), returning after about HOST_BATCH_SECONDS."""
        sim = self.sim
        split = None if sim._parallel is None else sim._stepper.c_steps
        if split is not None:  # the packed exchanges alternate receive buffers, counted as FaceMessages counts them
            split.exchanges = sim._stepper.halo.count
        try:
            t, taken, dt, nonfinite = sim._grid.run_steps(sim.t, self.until, self.cdt, self.cdtv, self.batch,
                                                           self.taken, self.check_every, HOST_BATCH_SECONDS,
                                                           self.stop_file, split and split.steps)
        finally:
            if split is not None:
                sim._stepper.halo.count = split.exchanges
                sim._stepper.ghosts_fresh = False  # its exchanges were of the fields before these steps
        sim._advanced(t, taken)
        if taken:
            self.taken += taken
            self.dt = dt
        if nonfinite:  # before a step, as cfl_dt raises, or after one, as check_finite does
            sim._raise_nonfinite()
        return self.dt

    def _device_batch(self):
        """Up to `batch` steps on the device; None if the backend cannot (then
        the host steps)."""
        sim = self.sim
        most = _device_batch_size(sim, self.until, self.dt or self._first_dt, self.batch)
        result = sim._grid.run_cfl(sim.t, self.until, self.cdt, self.cdtv, most)
        if result is None:
            self._on_device = False
            return None
        t, taken, dt, nonfinite = result
        if taken:
            self.taken += taken  # (the run's steps so far: a short last batch says little of dt alone)
            sim._remember_steps(self.cdt, self.cdtv, t - self._began, self.taken, dt, t == self.until)
            self.dt = dt
        sim._advanced(t, taken)
        if nonfinite:  # as cfl_dt raises before a step from fields that are not finite
            sim._raise_nonfinite()
        return self.dt


class Simulation:
    """Isothermal compressible hydrodynamics on a periodic box.

    Parameters
    ----------
    shape : int or (nx, ny, nz)
        Grid points per axis, each at least 1 (1 makes that axis trivial,
        so ``(n, 1, 1)`` is a 1-D run).
    box : float or (Lx, Ly, Lz)
        Box lengths; the spacing is ``L / n`` (``L / (n - 1)`` on an axis
        with walls) and point ``i`` sits at ``origin + i * dx``.
    nu, cs : float
        Kinematic viscosity and isothermal sound speed (physics parameters,
        below).
    dtype : "float32" or "float64"
        Precision of the fields and of all arithmetic.
    backend : "auto", "cpu" or "cuda"
        "auto" picks CUDA when a GPU is usable, else the CPU.
    method : "55p" or "19p"
        The seed's single-pass 55-point or two-pass 19-point integrator.
    origin : float or (x0, y0, z0)
        Coordinate of point 0 on each axis (the lower wall on a wall axis).
    boundaries : dict or None
        Walls (astaroth.boundaries): ``{"z": {"ux": "s", "uy": "s", "uz":
        "a", "lnrho": "a2"}}`` puts walls at both ends of z with a kind per
        field, or a pair (lower, upper) of kinds: "s", "a", "a2" or
        "set:VALUE", with the Pencil Code's meaning.  Axes not named stay
        periodic.  A wall axis puts its first and last points on the walls
        (spacing ``L / (n - 1)``).  The 55-point method, no shock viscosity
        and no forcing, for now.
    comm : mpi4py communicator or None
        With e.g. ``MPI.COMM_WORLD`` (and more than one rank) the grid is
        split over the ranks (astaroth.parallel), one GPU per rank on the
        CUDA backend.  The script stays the same: ``sim[name]`` gets and sets
        the whole field on every rank, diagnostics and snapshots are global,
        ``sim.view(name)`` is the rank's own subdomain.  Every rank must make
        the same calls.  Needs the 55-point method.
    exchange : "auto", "device", "peer" or "host"
        How GPU ghost zones travel between ranks: device buffers through a
        CUDA-aware MPI, peer-to-peer writes between the GPUs of one node
        (CUDA IPC), staged through pinned host memory, or ("auto") peer on
        one node, else device where MPI is CUDA-aware, else host.
    procs : None or (nprocx, nprocy, nprocz)
        The ranks along each axis of a split grid (their product the number
        of ranks, at least 3 points a rank along a split axis); None lets
        ``astaroth.parallel.split_dims`` choose.  Splitting along z alone,
        or y and z, lets GPUs of one node copy their faces field to field.
    physics : "hydro" or "mhd" (a switch; keyword)
        "mhd" adds the module 'magnetic': the vector potential A as the
        fields "ax", "ay", "az", B = curl A + b_ext, the Lorentz force
        J x B / rho in the momentum equation, dA/dt = u x B + eta lap A.
        With the 55-point method.
    energy : "isothermal" or "entropy" (a switch; keyword)
        "entropy" adds the module 'entropy': the specific entropy "ss" of an
        ideal gas (the Pencil Code's entropy module with eos_idealgas;
        csrc/terms/entropy.h): cs is then the sound speed at rho = rho0
        and ss = 0, the pressure force -cs2 (grad lnrho + grad lnTT) / gamma
        with the local cs2, and dss/dt has advection, viscous (and shock)
        heating, conduction (chi), chi_hyper3 and, with MHD, Ohmic heating.
        The CFL step uses the local sound speed, the diffusive limit gamma
        chi.  astaroth.analysis.temperature and pressure give T and p.
        With the 55-point method.
    passive_scalar : 0, 1 or 2 (a switch; keyword; True is 1)
        The number of passive scalars (the module 'pscalar' and its second
        copy 'pscalar2'): the fields "cc" and "cc2", each advected by the
        flow and diffused with its own diffusivity, dc/dt = -u . grad c +
        D lap c with D = pscalar_diff for cc and pscalar_diff2 for cc2
        (csrc/terms/passive_scalar.h); the flow does not see them.  With
        the 55-point method.
    **parameters
        The physics parameters by name, each a row of csrc/parameters.def
        (``astaroth.parameters()`` gives its default, bounds, unit, module
        and meaning; the list below is made from it).  A parameter of a
        module that is off keeps its default.  A term whose parameters are
        all 0 (hyperdiffusion, shock viscosity) is left out, and the run is
        then bit for bit what it was without it.  The shock viscosity's
        profile (the compression's maximum over the 3x3x3 neighbourhood,
        smoothed by (1, 2, 1) / 4 along each axis) is computed at the
        start of each step and held for its substeps; it adds du/dt +=
        zeta (div u grad lnrho + grad div u) + div u grad zeta, and the
        CFL step counts nu + max zeta.
    qshear : float (a keyword)
        A shearing box in a rotating frame: shear = -qshear * omega[2] (the
        Pencil Code's qshear; 1.5 is Keplerian), in place of shear=.  The
        shearing box (shear, x0_shear; csrc/terms/shear.h,
        docs/guide/rotation.md) has shearing-periodic x faces whose shift
        along y is sim.deltay.

    The fields start at rest with uniform density (lnrho = 0).
    """

    # the defaults of nu, cs and physics written out, as the API page shows them: csrc/parameters.def's
    # (tests/test_docs_match_code.py checks that they agree)
    def __init__(self, shape=(64, 64, 64), box=(2 * math.pi,) * 3, nu=5e-3, cs=1.0, dtype="float64", backend="auto",
                 method="55p", origin=0.0, comm=None, exchange="auto", procs=None, physics="hydro", boundaries=None,
                 **parameters):
        shape = _three(shape, "shape", int)
        if any(n < 1 for n in shape):
            raise ValueError(f"shape entries must be at least 1, got {shape}")
        box = _three(box, "box", float)
        if any(not (L > 0 and math.isfinite(L)) for L in box):
            raise ValueError(f"box lengths must be positive and finite, got {box}")
        origin = _three(origin, "origin", float)
        if not all(math.isfinite(o) for o in origin):
            raise ValueError(f"origin must be finite, got {origin}")
        switches = {k: parameters.pop(k) for k in _registry.SWITCHES if k in parameters}
        switches["physics"] = physics
        parameters.update(nu=nu, cs=cs)
        if "qshear" in parameters:
            _shear_of_q(parameters)
        dtype = np.dtype(dtype).name if isinstance(dtype, (type, np.dtype)) else dtype
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        # every parameter and switch of csrc/parameters.def, checked (bounds, modules, 55p; one process below)
        switches, modules, values = _registry.resolve(parameters, switches, method)
        _check_grid(shape, box, dtype)
        available = backends()
        if backend == "auto":
            backend = _auto_backend(parameters)
        elif backend not in ("cpu", "cuda"):
            raise ValueError(f"backend must be 'auto', 'cpu' or 'cuda', got {backend!r}")
        elif backend not in available:
            raise ValueError(f"backend {backend!r} is not available here (available: {available})")

        walls = _walls.parse(boundaries, _registry.field_names(modules))
        # values the precision cannot hold, or from which the ideal gas's constants over- or underflow it
        _registry.check_dtype(values, dtype)
        _walls.check_dtype(walls, float(np.finfo(dtype).max), dtype)
        if "entropy" in modules:
            _thermo.check_constants(values, dtype)
        if walls:
            _walls.check_shape(walls, shape)
            if method != "55p":
                raise ValueError("boundaries: walls need method='55p'")
            if values.get("nu_shock", 0.0) != 0.0:
                raise ValueError("boundaries: walls with shock viscosity (nu_shock) are not supported yet")
        _check_shear(values, walls, shape)

        self._shape = shape
        self._box = box
        self._origin = origin
        self._walls = walls
        self._spacing = _walls.spacing(box, shape, walls)
        self._switches, self._modules, self._values = switches, modules, values
        for name, value in {**switches, **values}.items():  # self._nu, self._physics, ...: what the methods read
            setattr(self, "_" + name, value)
        self._field_names = _registry.field_names(modules)
        self._dtype = np.dtype(dtype)
        self._method = method
        self._backend = backend
        self._comm = comm
        self._recent_step = None  # (cdt, cdtv, dt) of the device's last steps (_remember_steps)
        self._parallel = None
        self._device_cfl = True  # run() may find dt on the device (_CflSteps.batch); tests turn it off to compare
        local_shape, offset = shape, (0, 0, 0)
        if procs is not None and (comm is None or comm.Get_size() == 1):
            from .parallel import given_dims

            given_dims(procs, 1, shape)  # one process: (1, 1, 1) alone
        if comm is not None and comm.Get_size() > 1:
            from .parallel import Decomposition, ParallelStepper

            if method != "55p":
                raise ValueError("a grid split over MPI ranks needs method='55p' (the 19-point method's second "
                                 "pass would need a second ghost-zone exchange per substep)")
            self._parallel = Decomposition(comm, shape, exchange, procs)
            local_shape, offset = self._parallel.local_shape, self._parallel.offset
            if walls:
                small = [a for a in _walls.wall_axes(walls) if local_shape[a] < _walls.MIN_POINTS]
                if small:
                    raise ValueError(f"boundaries: a subdomain has {local_shape[small[0]]} points along the wall "
                                     f"axis {'xyz'[small[0]]!r}, fewer than {_walls.MIN_POINTS}; use fewer ranks")
            if backend == "cuda":
                _core.cuda_set_device(self._parallel.node_rank % _core.cuda_device_count())
        self._grid = _core.Grid(backend, dtype, method, local_shape, self._spacing, origin, offset,
                                _registry.module_mask(modules), values,
                                _walls.entries(walls, self._field_names, offset, local_shape, shape),
                                _shearing(self))
        if self._parallel is not None:
            self._stepper = ParallelStepper(self, self._parallel)
        self._forcing = None
        self.t = 0.0
        self.steps = 0

    # --- description -----------------------------------------------------
    shape = property(lambda self: self._shape, doc="Grid points per axis (nx, ny, nz).")
    box = property(lambda self: self._box, doc="Box lengths (Lx, Ly, Lz).")
    spacing = property(lambda self: self._spacing,
                       doc="Grid spacing (dx, dy, dz) = box / shape (box / (shape - 1) on a wall axis).")

    @property
    def t(self):
        """The simulation time; assigning it (e.g. to restart a run's clock) takes a finite real number,
        a TypeError or ValueError naming `t` otherwise (NaN would stop every later run at its first check)."""
        return self._t

    @t.setter
    def t(self, value):
        self._t = _real(value, "t")

    @property
    def deltay(self):
        """The shearing box's shift along y of the x faces' images (the Pencil Code's deltay): the x ghost
        zones of one face are the other face's interior shifted by it (csrc/terms/shear.h).  With shear it
        advances by -shear Lx each substep's time (in (-Ly, Ly)); snapshots keep it; 0 without shear.
        Assigning it takes a finite real number."""
        return self._grid.deltay

    @deltay.setter
    def deltay(self, value):
        self._grid.deltay = _real(value, "deltay")

    @property
    def boundaries(self):
        """The walls, ``{axis: {field: (lower, upper)}}`` (astaroth.boundaries); {} when periodic."""
        return {a: dict(k) for a, k in self._walls.items()}
    dtype = property(lambda self: self._dtype, doc="NumPy dtype of the fields.")
    method = property(lambda self: self._method, doc="Integration method, '55p' or '19p'.")
    backend = property(lambda self: self._backend, doc="Backend running this simulation.")
    comm = property(lambda self: self._comm, doc="The MPI communicator, or None.")
    modules = property(lambda self: self._modules,
                       doc="The modules this simulation runs (astaroth.parameters.modules()), e.g. ('hydro',).")
    field_names = property(lambda self: self._field_names,
                           doc="The fields, in memory order: those of csrc/fields.h whose module is on.")
    # and one property per physics parameter and switch (nu, cs, eta, ..., physics), made below the class
    @property
    def decomposition(self):
        """This rank's part of a grid split over MPI ranks (astaroth.parallel.Decomposition:
        dims, coords, local_shape, offset, slices), or None."""
        return self._parallel

    @property
    def is_root(self):
        """True on the rank that writes files (rank 0, or the only process)."""
        return self._comm is None or self._comm.Get_rank() == 0

    def _axis(self, a):
        return self._origin[a] + self._spacing[a] * np.arange(self._shape[a], dtype=np.float64)

    @property
    def x(self):
        """x coordinates of the grid points (1-D, float64)."""
        return self._axis(0)

    @property
    def y(self):
        """y coordinates of the grid points (1-D, float64)."""
        return self._axis(1)

    @property
    def z(self):
        """z coordinates of the grid points (1-D, float64)."""
        return self._axis(2)

    def parameters(self):
        """The construction parameters, as plain values (what a snapshot records): the grid, dtype and method,
        the switches not at their default, and the physics parameters of the modules and terms that are on."""
        parameters = {"shape": np.array(self._shape), "box": np.array(self._box), "origin": np.array(self._origin),
                      "dtype": self._dtype.name, "method": self._method}
        parameters.update(_registry.recorded(self._switches, self._modules, self._values))
        if self._walls:  # a JSON string of astaroth.boundaries' canonical form
            parameters["boundaries"] = _walls.dumps(self._walls)
        return parameters

    def save(self, path, xdmf=True):
        """Write an HDF5 snapshot (and an XDMF index); see astaroth.io.save."""
        from .io import save
        return save(self, path, xdmf=xdmf)

    def __repr__(self):
        shown = _registry.recorded(self._switches, self._modules, self._values)
        values = {**self._switches, **self._values}
        physics = "".join(f"{k}={values[k]!r}, " for k in shown)
        return (f"Simulation(shape={self._shape}, box={self._box}, {physics}"
                f"dtype={self._dtype.name!r}, backend={self._backend!r}, method={self._method!r}, "
                f"t={self.t}, steps={self.steps})")

    @property
    def forcing(self):
        """The random forcing (an astaroth.Forcing), or None (the default).

        Assigning a Forcing starts its generator from its seed; None
        switches the forcing off.
        """
        return self._forcing

    @forcing.setter
    def forcing(self, value):
        from .forcing import Forcing

        if value is None:
            self._grid.set_forcing(None)
        elif isinstance(value, Forcing):
            _walls.refuse_wall_axes(self._walls, range(3), "forcing")
            value.check_grid(self._shape)
            self._grid.set_forcing(*value.arguments(self._box))
        else:
            raise TypeError(f"forcing must be an astaroth.Forcing or None, not {type(value).__name__}")
        self._forcing = value

    # --- fields ----------------------------------------------------------
    def _field_index(self, name):
        names = self._field_names
        if not isinstance(name, str):
            raise TypeError(f"field names are strings, one of {names}; got {name!r}")
        try:
            return names.index(name)
        except ValueError:
            module = _registry.field_module(name)
            switch = _registry.module_switch(module) if module else None
            hint = f" (the fields of the module {module!r} need {switch})" if switch else ""
            raise KeyError(f"unknown field {name!r}; fields are {names}{hint}") from None

    def __getitem__(self, name):
        """A NumPy copy of field `name`, shape (nx, ny, nz), x fastest in memory."""
        local = self._local_field(name)
        return local if self._parallel is None else self._parallel.gather(local)

    def _local_field(self, name):
        """A NumPy copy of this rank's part of field `name` (the whole field on one process), x fastest."""
        return self._grid.read(_FIELD_BUFFER, self._field_index(name))

    def __setitem__(self, name, value):
        """Set field `name` from a scalar or an array broadcastable to the grid."""
        self._field_index(name)  # an unknown name refused before its values are looked at
        array = np.asarray(value)
        if array.dtype == object and array.size and all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) for v in array.flat):
            # NumPy keeps Python ints beyond 64 bits (and lists mixing them in) as objects
            bits = max(abs(int(v)).bit_length() if isinstance(v, numbers.Integral) else 0 for v in array.flat)
            if bits > 63:
                raise ValueError(f"values for {name!r} hold an integer of {bits} bits, too large for NumPy's "
                                 f"64-bit integers; give it as a float if you mean it")
            array = array.astype(np.float64)
        if array.dtype.kind not in "iuf":
            raise TypeError(f"values for {name!r} must be real numbers, got an array of dtype {array.dtype}")
        if not np.all(np.isfinite(array)):
            raise ValueError(f"values for {name!r} contain NaN or Inf")
        try:
            array = np.broadcast_to(array, self._shape)
        except ValueError:
            raise ValueError(f"values for {name!r} have shape {array.shape}, which does not fit the grid "
                             f"shape {self._shape}") from None
        if self._parallel is not None:
            array = array[self._parallel.slices]  # every rank is given the whole field
        self._write_local_field(name, array)

    def _write_local_field(self, name, array):
        """This rank's part of field `name` (the whole field on one process), finite real values, set."""
        with np.errstate(over="ignore"):
            array = np.asfortranarray(array, dtype=self._dtype)
        if not np.all(np.isfinite(array)):  # finite before the cast: too large for the dtype
            raise ValueError(f"values for {name!r} exceed the range of {self._dtype.name} "
                             f"(largest {np.finfo(self._dtype).max:.3g})")
        self._grid.write(self._field_index(name), array)
        self._fields_as_given = True  # no step since: a blow-up names these values if they are huge

    def view(self, name):
        """Zero-copy view of field `name`'s interior.

        On the CPU backend a writable NumPy array sharing memory with the
        simulation; on the CUDA backend a DeviceView exposing
        ``__cuda_array_interface__`` and DLPack (``cupy.asarray(view)``,
        ``torch.from_dlpack(view)``).  Either way it follows every step, and
        writing to it changes the run.  On a grid split over MPI ranks it is
        this rank's subdomain (``sim.decomposition.local_shape``, at
        ``sim.decomposition.slices`` of the whole grid).

        Setting a restart-changeable parameter (``sim.nu = 1e-3``) makes the
        simulation's memory afresh.  A DeviceView follows it (it looks up
        the simulation's memory at each use); a NumPy view of the CPU
        backend, and arrays made from a DeviceView before (CuPy, torch),
        cannot: the setter warns, and the NumPy views taken here then hold
        NaN and refuse writes (``ValueError: assignment destination is
        read-only``) rather than show the run's old state.  Take them again
        after the change.
        """
        index = self._field_index(name)
        if self._backend == "cpu":
            view = self._grid.host_view(_FIELD_BUFFER, index)
            self._views = [v for v in getattr(self, "_views", []) if v() is not None] + [weakref.ref(view)]
            return view
        from .device import DeviceView  # CUDA backend only
        return DeviceView(self, _FIELD_BUFFER, index)

    def fields(self):
        """All fields as a dict of NumPy copies."""
        return {name: self[name] for name in self._field_names}

    # --- time stepping ---------------------------------------------------
    def rhs(self):
        """Time derivatives of all fields now (no forcing), as NumPy arrays."""
        if self._parallel is None:
            self._grid.rhs()
            return {name: self._grid.read(_RHS_BUFFER, i) for i, name in enumerate(self._field_names)}
        self._stepper.rhs()
        return {name: self._parallel.gather(self._grid.read(_RHS_BUFFER, i)) for i, name in enumerate(self._field_names)}

    def cfl_dt(self, cdt=0.4, cdtv=0.3):
        """Largest stable time step: min(cdt dxmin / max c, cdtv / (max D sum 1/dx^2), cdtv3 / (max H sum 1/dx^6)).

        c is the signal speed at each point: |u| plus the sound speed (the
        local one of the ideal gas with energy="entropy"), with
        physics="mhd" the fast magnetosonic speed sqrt(cs^2 + |B|^2 / (mu0
        rho)) in place of the sound speed.  D is each field's second-order
        diffusivity (nu, plus max zeta with shock viscosity, for u; eta for
        A; gamma chi for ss; pscalar_diff for cc, pscalar_diff2 for cc2), H its sixth-order one
        (nu_hyper3, diff_hyper3, chi_hyper3), cdtv3 = CDTV3 = 0.03 (0.1
        would be unstable for grid-scale modes; see CDTV3).  Each term
        declares its part (csrc/terms/*.h) and csrc/timestep.h sums them,
        as both backends' CFL loops do (docs/guide/mhd.md,
        docs/guide/hyperdiffusion.md).

        Sums and minima run over the axes with more than one point (a trivial
        axis carries no gradients).  The viscous limit counts every resolved
        axis, as the Pencil Code does: with dxmin^2 / nu alone a 3-D run at
        cdtv = 0.3 is unstable (the sixth-order Laplacian reaches 6.04 / dx^2
        per axis, times 4/3 for compressive modes, against RK3's 2.51).
        cdt and cdtv must be positive and finite.
        Raises NonFiniteError if the fields are not finite.
        """
        cdt, cdtv = _courant_numbers(cdt, cdtv)
        speed, zeta = self._speed_and_shock()
        if not math.isfinite(speed):
            self._raise_nonfinite()
        dt, limit = self._grid.cfl_dt(speed, zeta, cdt, cdtv)
        if limit is None:
            raise ValueError("no time-step limit: the fluid is at rest with cs = 0 and nu = 0; pass dt explicitly")
        return dt

    def _start_dt(self, cdt, cdtv):
        """The CFL step that sizes a device run's first batch and checks its
        step count: that of the device's last steps at these Courant numbers
        (_remember_steps) where no field has been set since, else cfl_dt's.
        cfl_dt waits for the GPU, and Ensemble.run would wait so for every
        member at every call."""
        known = self._recent_step
        if known is not None and known[:2] == (cdt, cdtv) and not getattr(self, "_fields_as_given", False):
            return known[2]
        return self.cfl_dt(cdt, cdtv)

    def _remember_steps(self, cdt, cdtv, span, taken, dt, landed):
        """After `taken` device steps over a time `span`, the last of length
        dt (landed: shortened to land on the run's until): a full step's
        length for _start_dt, or an estimate of it from the steps' mean with
        the last one counted as half (within a third for two steps, 3 % for
        twenty); one shortened step alone says nothing."""
        if not landed:
            self._recent_step = (cdt, cdtv, dt)
        elif taken >= 2:
            self._recent_step = (cdt, cdtv, span / (taken - 0.5))

    def _advanced(self, t, steps):
        """After `steps` steps taken in C to time t (a float the backend
        found): the clock, the step count, and the fields no longer as
        given (a step leaves them so), without the checks that assignments
        from a script take (sim.run's batches in C, Ensemble.run's for
        each member)."""
        object.__setattr__(self, "_t", t)
        if steps:
            object.__setattr__(self, "_fields_as_given", False)
            object.__setattr__(self, "steps", self.steps + steps)

    def _may_step_on_device(self):
        """Whether a run may try the device's CFL loop (the binding's run_cfl and run_cfl_members say
        which configurations it takes): a GPU, one process, and tests have not turned it off."""
        return self._backend == "cuda" and self._device_cfl and self._parallel is None

    def _local_signal_speed(self):
        """The largest signal speed over this rank's part of the grid (the
        whole grid on one process; csrc/timestep.h), inf where it is not
        finite.  Wall values as every substep has them ('a' and 'set')."""
        if self._walls:
            self._grid.set_walls(0)
        if self._parallel is not None and self._grid.signal_reads_neighbours:  # B at the edges needs their A
            self._stepper.exchange_fields()
        speed = self._grid.signal_speed(self._parallel is None)
        return speed if math.isfinite(speed) else math.inf

    def _speed_and_shock(self):
        """The largest signal speed and zeta (_local_max_shock_viscosity) over
        the grid, on every rank: a split grid's CFL step reduces them over the
        ranks at once, its only reduction."""
        speed, zeta = self._local_signal_speed(), self._local_max_shock_viscosity()
        if self._parallel is None:
            return speed, zeta
        return self._parallel.allreduce((float(speed), float(zeta)), self._parallel.MPI.MAX)

    def _rates(self):
        """(max c, dxmin, diffusion rate, hyperdiffusion rate, what sets each
        diffusion rate, max zeta): a step dt has Courant number dt c / dxmin,
        diffusion number dt max D sum 1/dx^2 and hyperdiffusion number
        dt max H sum 1/dx^6 (cfl_dt); entries 4 and 5 are (field,
        parameter) of the largest D and H, or None."""
        speed, zeta = self._speed_and_shock()
        dxmin, diffusion, hyper, by, hyper_by = self._grid.time_step_rates(zeta)
        return speed, dxmin, diffusion, hyper, by, hyper_by, zeta

    def _local_max_shock_viscosity(self):
        """max zeta of the fields now over this rank's part of the grid (the
        whole grid on one process), 0 without shock viscosity, inf where not
        finite on a split grid; reduced where the fields are (a GPU copies no
        profile)."""
        if self._parallel is not None and self._grid.shock_address(0) is not None:
            local = self._stepper.shock_max()
            return local if math.isfinite(local) else math.inf
        largest = self._grid.shock_max()
        if largest is None:
            profile = self._grid.shock_profile()
            largest = 0.0 if profile is None else float(profile.max())
        return largest

    def shock_viscosity(self):
        """The shock viscosity's profile zeta of the fields now: a NumPy array
        of the grid's shape (see the class docstring, nu_shock).

        Returns None when nu_shock = 0: no profile is computed or held then
        (the run has no shock viscosity, so zeta is zero everywhere)."""
        return self._grid.shock_profile()

    def step(self, dt=None, force=False):
        """One full RK3 step (three substeps) of length `dt` (default: the CFL step).

        An explicit dt is checked against the stability of the scheme in the
        present state (Courant number C = dt max(|u| + cs) / dxmin, diffusion
        number D = dt nu sum 1/dx^2): beyond RK3's own bounds (C > sqrt(3)
        or D > 2.51) no mode is stable and the step is refused with
        UnstableStepError (a ValueError and a NonFiniteError) before any
        work; beyond the sixth-order scheme's limits (C > 1.09, D > 0.31) a
        RuntimeWarning says the run will likely blow up.  force=True takes
        the step without either.
        Returns the dt taken; raises NonFiniteError if the step produced NaN/Inf.
        """
        # cfl_dt and the stability check compute the shock profile of the fields the step starts from
        current = dt is None or not force
        if dt is None:
            dt = self.cfl_dt()
        else:
            dt = _positive_dt(dt)
            if not force:
                self._check_stability(dt)
        self._advance(dt, profile_current=current)
        self.t += dt
        self.steps += 1
        self.check_finite()
        return dt

    def _check_stability(self, dt, stacklevel=3, hint=" Pass force=True to take it anyway"):
        speed, dxmin, viscous, hyper, _, _, _ = self._rates()
        if not math.isfinite(speed):
            return  # fields already not finite: the step's own check names them
        hyper = dt * hyper
        if hyper > RK3_HYPER:
            raise UnstableStepError(
                f"dt = {dt:g} at step {self.steps}, t = {self.t:.6g} has hyperdiffusion number {hyper:.3g} "
                f"(dt max(nu_hyper3, diff_hyper3) sum 1/dx^6): beyond RK3's stability bound {RK3_HYPER:.3g} for "
                f"the 7-point sixth derivative, so grid-scale noise would blow up; the CFL step here is "
                f"{self.cfl_dt():.3g} (sim.cfl_dt()).{hint}")
        courant, diffusion = dt * speed / dxmin, dt * viscous
        state = (f"dt = {dt:g} at step {self.steps}, t = {self.t:.6g} has Courant number {courant:.3g} "
                 f"(dt max(|u| + cs) / dxmin) and diffusion number {diffusion:.3g} (dt nu sum 1/dx^2)")
        if courant > RK3_COURANT or diffusion > RK3_DIFFUSION:
            causes = _thermo.overflow_causes(self) if courant > RK3_COURANT else []
            large = "".join(f"; the sound speed is that large because {c}" for c in causes)
            raise UnstableStepError(
                f"{state}: beyond RK3's stability bounds ({RK3_COURANT:.3g} and {RK3_DIFFUSION:.3g}), so the step "
                f"would blow up; the CFL step here is {self.cfl_dt():.3g} (sim.cfl_dt()){large}.{hint}")
        if courant > STABLE_COURANT or diffusion > STABLE_DIFFUSION:
            warnings.warn(f"{state}: beyond the stable limits of this scheme ({STABLE_COURANT} and "
                          f"{STABLE_DIFFUSION}); the run will likely blow up (sim.cfl_dt() = {self.cfl_dt():.3g})",
                          RuntimeWarning, stacklevel=stacklevel)

    def _advance(self, dt, profile_current=False):
        """One RK3 step (and the forcing) without the bookkeeping.
        profile_current: cfl_dt has just run and nothing has changed the
        fields since, so the step may take the shock profile it computed
        rather than compute it again."""
        self._fields_as_given = False
        if self._parallel is None:
            self._grid.step(dt, 1, profile_current)
        else:
            self._stepper.step(dt, profile_current)

    def _agree(self, flag):
        """A stop decision every rank shares (any rank asking stops them all)."""
        if self._parallel is None:
            return bool(flag)
        return bool(self._parallel.allreduce(bool(flag), self._parallel.MPI.LOR))

    def run(self, until, cdt=0.4, cdtv=0.3, check_every=10, timeseries=None, diagnostics_every=10,
            progress=False, stop_file=None, handle_signals=False, on_stop=None, dt=None, diagnostics=None,
            outputs=(), nt=None, reload_file=None, on_reload=None, dtmin=None):
        """Advance with CFL steps to time `until`, the last step shortened to land on it.

        dt: a fixed time step in place of the CFL step (the Pencil Code's
            `dt` in run.in); the last step is shortened to land on `until`
            (one within 1e-9 dt of it lands there).  It is checked once, at
            the start, as step(dt) checks it: beyond RK3's stability bounds
            the run is refused (UnstableStepError), beyond the scheme's
            limits a RuntimeWarning says it will likely blow up; cdt and
            cdtv do not apply.  Everything else (time series, progress, stops,
            NaN checks) is as for CFL steps.
        cdt, cdtv: the Courant numbers of the CFL step (see cfl_dt).  Beyond
            RK3's stability bounds (cdt > sqrt(3), cdtv > 2.51), or the
            scheme's limits (cdt > 1.09, cdtv > 0.31), a RuntimeWarning says
            that a step they limit will likely blow up, as step(dt) warns.
        A run whose first step says it would take more than MAX_RUN_STEPS
        (1e12) steps is refused before it, naming what makes dt that small.

        check_every: the fields are checked for NaN/Inf every this many steps
            and at the end; a blow-up raises NonFiniteError naming the step,
            time and field (after writing a last time-series row).
        timeseries, diagnostics_every: a file (or a list of files) to which
            a row of diagnostics is appended at every step whose number
            (sim.steps) is a multiple of diagnostics_every, and after the
            last step (so a run split into several calls, or restarted from
            a snapshot, writes the rows one call would): CSV, or the Pencil
            Code's time_series.dat format for a name ending in .dat
            (pencil.read.ts reads it; docs/guide/diagnostics.md).
        diagnostics: the columns of the time series, names from
            astaroth.diagnostics.catalogue() (the Pencil Code's print.in);
            it, t and dt come first.  None: the default set
            (astaroth.diagnostics.columns(sim)).
        outputs: averages, slices and spectra written at their own cadence
            (astaroth.outputs.Averages, Slices, Spectra).
        nt: take at most this many steps in this call (the Pencil Code's
            `nt`); the run then returns before `until`.
        dtmin: raise TimeStepTooShortError, naming what limits dt, when a
            CFL step short of `until` is shorter than this (the Pencil
            Code's `dtmin`): a run whose time step collapses (a blow-up in
            the making) stops instead of crawling on.  Looked at after each
            batch of steps (see stop_file), so up to one batch passes below
            it; the fields stay as they are, the time series has its row.
        reload_file, on_reload: when the file appears after a step it is
            removed and on_reload(sim) called (`astaroth run` re-reads the
            restart-changeable parameters of its TOML file, as the Pencil
            Code's RELOAD re-reads run.in); if it returns True this call ends
            there (the caller goes on with new arguments).
        progress: True for a progress line (step, t, steps/s, M updates/s,
            time left), or a diagnostics.Progress to go on with (one line
            over several calls, e.g. to the end of the whole run).
        stop_file: a path; the run stops cleanly after the step in which it
            appears.  handle_signals: SIGINT/SIGTERM finish the current step
            and stop cleanly.  (Up to DEVICE_BATCH steps, or those up to the
            next row of the time series or output, are taken at once in C:
            on a GPU without waiting between them, a stop coming at the end
            of such a batch and every step checking every field for NaN/Inf;
            elsewhere for at most about HOST_BATCH_SECONDS, a signal's stop
            coming at the end of the batch.)
            on_stop: called as on_stop(sim) when the run stops early this
            way (e.g. to write a checkpoint).
        Returns the number of steps taken.
        """
        from .diagnostics import Progress
        from .during import RunOutputs

        until, cdt, cdtv = self._run_arguments(until, cdt, cdtv, check_every, dt)
        if dt is not None:
            dt = _positive_dt(dt)
        if dtmin is not None:
            dtmin = _positive_dt(dtmin, "dtmin")
        if isinstance(diagnostics_every, bool) or not (isinstance(diagnostics_every, numbers.Integral)
                                                       and diagnostics_every >= 1):
            raise ValueError(f"diagnostics_every must be a positive integer, got {diagnostics_every!r}")
        if dt is not None and self.t < until:
            self._check_stability(dt, hint="")
        written = RunOutputs(self, timeseries, diagnostics, diagnostics_every, outputs, nt, reload_file, on_reload)
        bar = None
        if progress and self.is_root:
            bar = progress if isinstance(progress, Progress) else Progress(self, until)
        stop = _StopRequest(handle_signals)
        steps = self._cfl_steps(until, cdt, cdtv, check_every, dt)
        steps.stop_file = None if stop_file is None else os.fspath(stop_file)

        def batch():  # the steps up to the next output (and within nt), taken at once where the backend can
            return written.batch(steps.taken, DEVICE_BATCH)

        steps.batch = batch()
        try:
            for dt in steps:
                steps.batch = batch()
                written.after_step(dt)
                if bar is not None:
                    bar.update()
                # the ranks agree on a stop only where one may be asked for (a split run waits for them)
                if (handle_signals or stop_file is not None) and self._agree(
                        stop.requested or (stop_file is not None and os.path.exists(stop_file))):
                    if on_stop is not None:
                        on_stop(self)
                    break
                if written.capped(steps.taken) or (written.reload_requested() and written.reload()):
                    break
                if dtmin is not None and steps.fixed_dt is None and self._agree(dt < dtmin and self.t < until):
                    self.check_finite()  # a blow-up says so first
                    raise TimeStepTooShortError(self._below_dtmin(dt, dtmin, cdt, cdtv))
            self.check_finite()
        except (NonFiniteError, TimeStepTooShortError):
            written.row(steps.dt)
            raise
        finally:
            stop.restore()
            written.close()
            if bar is not None:
                bar.close() if bar is not progress else bar.update()  # a caller's line goes on after this run
        written.finish(steps.taken, steps.dt)
        return steps.taken

    def _run_arguments(self, until, cdt, cdtv, check_every, dt=None):
        """run()'s until, cdt and cdtv, checked (check_every too); warns of
        Courant numbers beyond the stability bounds (not with a fixed dt)."""
        until = _real(until, "until")
        cdt, cdtv = _courant_numbers(cdt, cdtv)
        if until < self.t:
            raise ValueError(f"until={until} lies before the current time t={self.t}")
        if isinstance(check_every, bool) or not (isinstance(check_every, numbers.Integral) and check_every >= 1):
            raise ValueError(f"check_every must be a positive integer, got {check_every!r}")
        if dt is None:
            _warn_courant_numbers(cdt, cdtv)
        return until, cdt, cdtv

    def _cfl_steps(self, until, cdt, cdtv, check_every, dt=None):
        """CFL steps to `until`, or steps of a fixed `dt` (see _CflSteps)."""
        return _CflSteps(self, until, cdt, cdtv, check_every, dt)

    def _check_step_count(self, until, dt, cdt, cdtv, fixed=False):
        """Refuse a run to `until` whose (first) step dt would make it take
        more than MAX_RUN_STEPS steps, naming what limits dt."""
        count = (until - self.t) / dt if dt > 0 else math.inf
        # the fields' causes copy two whole fields to the host: read where fields set by hand may hold them, or to
        # name them in a refusal, not at every call of run()
        causes = self._overflowing_gas() if count <= MAX_RUN_STEPS else _thermo.overflow_causes(self)
        if count <= MAX_RUN_STEPS and not causes:
            return
        why = (f"the fixed dt = {dt:.3g} (run(dt=...))" if fixed else self._limiting(dt, cdt, cdtv))
        if count <= MAX_RUN_STEPS:  # a float32 run can crawl this way (rho0 = 1e-30: 1e9 steps of dt = 3e-11)
            raise ValueError(f"run(until={until:g}) from t = {self.t:.6g}: {'; '.join(causes)}, so cs2 times a "
                             f"gradient may overflow {self._dtype.name}, and the step is dt = {dt:.3g} (about "
                             f"{count:.3g} steps to until), set by {why}. Check those parameters (units, a typo), "
                             f"or use dtype='float64'")
        why += "".join(f"; {cause}" for cause in causes)
        raise ValueError(f"run(until={until:g}) from t = {self.t:.6g} would take about {count:.3g} steps of "
                         f"dt = {dt:.3g}, more than {MAX_RUN_STEPS:.0e}: the time step is set by {why}. "
                         f"Check that parameter (units, a typo); a run this long would not finish")

    def _below_dtmin(self, dt, dtmin, cdt, cdtv):
        """Why a run stops whose CFL step dt fell below dtmin, now: the
        step, the time and what limits dt (TimeStepTooShortError's words,
        and a sweep member's that stops so)."""
        return (f"the time step fell to dt = {dt:.3g} < dtmin = {dtmin:g} at step {self.steps}, t = {self.t:.6g}; "
                f"{self._limiting(dt, cdt, cdtv)}")

    def _limiting(self, dt, cdt, cdtv):
        """What sets the CFL step dt (cfl_dt's limits): the parameter or
        quantity to name when dt is absurdly small."""
        speed, dxmin, diffusion, hyper, by, hyper_by, zeta = self._rates()
        limits = []
        if speed > 0:
            if self._physics == "mhd":
                what = (f"the fast magnetosonic speed max(|u| + sqrt(cs^2 + |B|^2 / (mu0 rho))) = {speed:.3g} "
                        f"(cs = {self._cs:g}, b_ext = {self._b_ext}, mu0 = {self._mu0:g}; |B| includes curl A)")
            elif "entropy" in self._modules:
                what = (f"the largest signal speed max(|u| + sqrt(cs2)) = {speed:.3g} with the local sound speed "
                        f"cs2 of the ideal gas (cs = {self._cs:g} at rho0, ss = 0)")
            else:
                umax = speed - self._cs
                what = (f"the sound speed cs = {self._cs:g}" if self._cs >= umax else
                        f"the flow speed max |u| = {umax:.3g}")
            limits.append((cdt * dxmin / speed, f"{what}, through the Courant limit cdt dxmin / speed"))
        if diffusion > 0:
            field, name = by
            if name == "nu_shock":
                value, symbol = f"nu_shock = {self._nu_shock:g} (max zeta = {zeta:.3g})", "zeta"
            else:
                value, symbol = f"{name} = {self._values[name]:g}", name
            limits.append((cdtv / diffusion, f"{value}, through the diffusive limit cdtv / ({symbol} sum 1/dx^2) "
                                             f"of {field}"))
        if hyper > 0:
            field, name = hyper_by
            limits.append((CDTV3 / hyper, f"{name} = {self._values[name]:g}, through the hyperdiffusive limit "
                                          f"cdtv3 / ({name} sum 1/dx^6) of {field}"))
        return min(limits, key=lambda item: item[0])[1] if limits else f"dt = {dt:.3g}"

    def check_finite(self):
        """Raise NonFiniteError if any field holds a NaN or Inf."""
        if self._first_nonfinite_field() >= 0:
            self._raise_nonfinite()

    def _first_nonfinite_field(self):
        field = self._grid.first_nonfinite_field()
        if self._parallel is not None:
            names = len(self._field_names)
            field = self._parallel.allreduce(field if field >= 0 else names, self._parallel.MPI.MIN)
            field = field if field < names else -1
        return field

    def _raise_nonfinite(self):
        field = self._first_nonfinite_field()
        where = f"at step {self.steps}, t = {self.t:.6g}"
        if field >= 0:
            what = f"field {self._field_names[field]!r} holds NaN or Inf {where}"
        else:  # the fields are finite, but the CFL reduction's speed is not
            speed = ("the fast magnetosonic speed sqrt(cs^2 + |B|^2 / (mu0 rho)), |B| = |curl A + b_ext|,"
                     if self._physics == "mhd" else "the largest speed max |u| + cs")
            what = f"{speed} overflows {self._dtype.name} {where} (the fields themselves are finite)"
        large = self._large_values()
        if large:
            why = (f"what is large: {'; '.join(large)} (in {self._dtype.name}, squares and products of these "
                   f"overflow): check those values")
        else:
            why = "the run is unstable (try a smaller time step, cdt or dt, or a larger viscosity)"
        raise NonFiniteError(f"{what}: {why}")

    def _overflowing_gas(self):
        """What makes the ideal gas's exponents overflow (astaroth.thermo.overflow_causes) where no step has
        run since the fields were set (after steps, large fields are the blow-up itself, not its cause)."""
        return _thermo.overflow_causes(self) if getattr(self, "_fields_as_given", False) or not self.steps else []

    def save_pencil(self, datadir, varfile="var.dat", procs=(1, 1, 1)):
        """Write a Pencil Code snapshot that its run.x continues from, for a run
        on procs = (nprocx, nprocy, nprocz) processes; see astaroth.pencil.write_var."""
        from .pencil import write_var
        return write_var(self, datadir, varfile=varfile, procs=procs)

    def _large_values(self):
        """The inputs whose size alone breaks the arithmetic of the step
        (beyond the fourth root of the dtype's largest number, so that their
        squares times the other factors overflow), as phrases: b_ext, and
        the fields where no step has run since they were set (after steps,
        large fields are the blow-up itself, not its cause)."""
        limit = float(np.finfo(self._dtype).max) ** 0.25
        large = []
        if self._physics == "mhd" and max(abs(b) for b in self._b_ext) > limit:
            large.append(f"b_ext = {self._b_ext}")
        large += _walls.large_values(self._walls, limit) + self._overflowing_gas()
        for name in self._field_names if getattr(self, "_fields_as_given", False) else ():
            values = np.abs(self[name])
            finite = values[np.isfinite(values)]
            if finite.size and float(finite.max()) > limit:
                large.append(f"max |{name}| = {float(finite.max()):.3g}")
        return large


def _parameter_property(name):
    r = _registry.row(name)
    if r["restart"]:  # as `astaroth run --restart` may change it (csrc/parameters.def, its restart column)
        return property(lambda self: self._values[name], lambda self, value: _set_parameter(self, name, value),
                        doc=f"{r['description']} ({r['unit']}; module {r['module']}; astaroth.parameters()). "
                            f"May change on a live simulation (sim.{name} = value), as on a restart.")
    return property(lambda self: self._values[name], lambda self, value: _refuse_fixed(name),
                    doc=f"{r['description']} ({r['unit']}; module {r['module']}; astaroth.parameters()). "
                        f"Fixed for the life of the simulation.")


def changeable_parameters():
    """The physics parameters a live Simulation may change (``sim.nu = 1e-3``):
    those whose restart column in csrc/parameters.def is 1, the keys
    `astaroth run --restart` may change."""
    return tuple(n for n in _registry.NAMES if _registry.row(n)["restart"])


def _refuse_fixed(name):
    raise AttributeError(f"{name} ({_registry.meaning(name)}) is fixed for the life of a simulation (as on "
                         f"`astaroth run --restart`); a live simulation may change "
                         f"{', '.join(changeable_parameters())}; start a new Simulation with another {name}")


def _set_parameter(sim, name, value):
    """sim.<name> = value for a restart-changeable parameter: checked as the
    constructor checks it (bounds, the module being on, the 55-point method,
    one process), then in effect from the next step on.  The compiled Grid
    takes its parameters when it is made (csrc/binding/grid_object.c,
    Grid_init, has no setter), so the grid is made afresh with the new
    values and the fields, the forcing's generator state, t and steps carried
    over: the run goes on bit for bit as one started with the new value.
    A DeviceView follows the new grid; the NumPy views of the CPU backend
    taken before (sim.view) cannot, and are disowned (_disown_views)."""
    value = _registry.check(name, value)
    values = dict(sim._values, **{name: value})
    try:  # a module that is off, the 55-point method: named as the constructor names them
        _registry.resolve(values, sim._switches, sim._method)
    except ValueError as e:
        raise ValueError(f"sim.{name} = {value}: {e}") from None
    if sim._walls and values.get("nu_shock", 0.0) != 0.0:
        raise ValueError("boundaries: walls with shock viscosity (nu_shock) are not supported yet")
    _check_shear(values, sim._walls, sim._shape)
    if value == sim._values[name]:
        return
    _remake_grid(sim, values)
    sim._values = values
    setattr(sim, "_" + name, value)
    _disown_views(sim, f"sim.{name} = {value}")


def _disown_views(sim, change):
    """After the grid was made afresh: the NumPy views of the old one that
    are still held (sim.view on the CPU) are filled with NaN and made
    read-only, so that a stale view cannot pass for the run (reading it
    gives NaN, writing it raises), and a warning says so."""
    held = [v for v in (ref() for ref in getattr(sim, "_views", [])) if v is not None]
    sim._views = []
    if not held:
        return
    for view in held:
        view[...] = np.nan
        view.flags.writeable = False
    warnings.warn(f"{change} made the simulation's memory afresh: the {len(held)} view(s) of its fields taken "
                  f"before (sim.view) no longer follow the run; they now hold NaN and are read-only. Take them "
                  f"again with sim.view(name)", RuntimeWarning, stacklevel=5)


def _remake_grid(sim, values):
    """A new compiled Grid of sim's configuration with `values`, holding sim's fields and forcing state."""
    old = sim._grid
    sim._recent_step = None  # the device's last steps (_start_dt) were those of the old parameters
    local_shape, offset = sim._shape, (0, 0, 0)
    if sim._parallel is not None:
        local_shape, offset = sim._parallel.local_shape, sim._parallel.offset
    grid = _core.Grid(sim._backend, sim._dtype.name, sim._method, local_shape, sim._spacing, sim._origin, offset,
                      _registry.module_mask(sim._modules), values,
                      _walls.entries(sim._walls, sim._field_names, offset, local_shape, sim._shape), _shearing(sim))
    deltay = sim.deltay
    count = len(sim._field_names)
    xp = None
    if sim._backend == "cuda":
        try:
            import cupy as xp
        except ImportError:  # without CuPy through the host
            pass
    if xp is not None:  # device to device: no field comes to the host
        from .device import DeviceView

        sources = [xp.asarray(DeviceView(sim, _FIELD_BUFFER, i)) for i in range(count)]
        sim._grid = grid
        for i, source in enumerate(sources):
            xp.asarray(DeviceView(sim, _FIELD_BUFFER, i))[...] = source
        xp.cuda.Stream.null.synchronize()
    else:
        for i in range(count):
            grid.write(i, np.asfortranarray(old.read(_FIELD_BUFFER, i)))
        sim._grid = grid
    grid.deltay = deltay
    if sim._forcing is not None:
        state = old.forcing_state
        grid.set_forcing(*sim._forcing.arguments(sim._box))
        grid.forcing_state = state
    if sim._parallel is not None:
        from .parallel import ParallelStepper

        sim._stepper = ParallelStepper(sim, sim._parallel)


def _shear_of_q(parameters):
    """shear in place of the keyword qshear (parameters.shear_of_qshear)."""
    q = _real(parameters.pop("qshear"), "qshear")
    omega_z = _registry.check("omega", parameters.get("omega", 0.0))[2]
    parameters["shear"] = _registry.shear_of_qshear(q, omega_z, parameters)


def _check_shear(values, walls, shape):
    """Refuse, naming them, what the shearing box does not take yet: walls across x or y (its x faces are
    shearing-periodic, its images wrap in y), fewer than 3 points along x (the ghosts copy 3 planes)."""
    if values.get("shear", 0.0) == 0.0:
        return
    crossing = [a for a in "xy" if a in walls]
    if crossing:
        raise ValueError(f"shear: the x faces of the shearing box are shearing-periodic and y periodic; walls on "
                         f"{' and '.join(crossing)} (boundaries) do not go with it")
    if shape[0] < 3:
        raise ValueError(f"shear: the shearing-periodic x faces need at least 3 points along x, got {shape[0]}")


def _shearing(sim):
    """The Grid's shearing argument: (Lx, Ly, ny) of the whole box and whether the grid holds every y and
    both x faces, shifting its x ghosts itself (else astaroth.parallel does)."""
    d = sim._parallel
    local = d is None or (d.dims[0] == 1 and d.dims[1] == 1)
    return (sim._box[0], sim._box[1], sim._shape[1], int(local))


# Attributes a script sets on a Simulation besides its properties with setters.
_PLAIN_ATTRIBUTES = ("t", "steps")


def _setattr(self, name, value):
    """Refuse an attribute that Simulation does not have (``sim.chi_hyper =
    1e-3`` for chi_hyper3), naming the close matches, instead of keeping a
    value that nothing reads.  Subclasses may add their own attributes,
    except ones that look like a misspelt parameter."""
    if name.startswith("_") or name in _PLAIN_ATTRIBUTES or hasattr(type(self), name):
        return object.__setattr__(self, name, value)
    import difflib

    known = sorted(set(_registry.NAMES + _registry.SWITCHES + _PLAIN_ATTRIBUTES) |
                   {n for n in dir(Simulation) if not n.startswith("_")})
    by_lower = {n.lower(): n for n in known}  # "Nu" is nu: case counts as a misspelling too
    close = [by_lower[n] for n in difflib.get_close_matches(name.lower(), by_lower, n=3, cutoff=0.75)]
    if type(self) is not Simulation and not close:
        return object.__setattr__(self, name, value)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    raise AttributeError(f"Simulation has no attribute {name!r}{hint} (a live simulation may change "
                         f"{', '.join(changeable_parameters())}, and t, steps and forcing)")


Simulation.__setattr__ = _setattr


def _switch_property(keyword, description):
    return property(lambda self: self._switches[keyword], doc=description)


for _name in _registry.NAMES:
    setattr(Simulation, _name, _parameter_property(_name))
for _switch in _registry.switches():
    setattr(Simulation, _switch["keyword"], _switch_property(_switch["keyword"], _switch["description"]))
del _name, _switch


def _document_parameters():
    """Simulation's signature and docstring list every parameter of the table."""
    import inspect

    init = Simulation.__init__
    signature = inspect.signature(init)
    params = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
    present = {p.name for p in params}
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=_registry.default(name))
               for name in _registry.SWITCHES + _registry.NAMES if name not in present]
    init.__signature__ = signature.replace(parameters=params)
    lines = ["", "    Physics parameters (astaroth.parameters()):", ""]
    for name in _registry.NAMES:
        lines.append(f"    {name} = {_registry.default(name)!r}: {_registry.help_line(name)}")
    Simulation.__doc__ = (Simulation.__doc__ or "") + "\n".join(lines) + "\n"


_document_parameters()
