"""`astaroth bench`: million grid-point updates per second per full RK3 step.

A program, not a test: it times whole RK3 steps (three substeps, all four
fields) for each method, precision and size asked for, and in the same run
the statement of the same equations that the tests check against
(astaroth.numpy_reference): NumPy on the CPU, JAX (jit) or CuPy on the GPU.
On the GPU it also measures a device-to-device copy and reports effective
bandwidth from the minimum traffic (docs/performance/index.md) against it.
"""
import math
import os
import platform
import time

import numpy as np

from .simulation import Simulation

def check_bench_options(args):
    """Refuse `astaroth bench` options that the benchmark asked for would
    ignore (args: the parsed command line, --methods None when not given).

    --walls, --energy entropy, --terms and --sweeps are four benchmarks, one
    at a time; the first three time the 55-point method only, --sweeps
    hydrodynamics only, and --physics all goes with the first three."""
    energy = getattr(args, "energy", "isothermal") == "entropy"
    walls = getattr(args, "walls", False)
    chosen = [name for name, on in (("--walls", walls), ("--energy entropy", energy), ("--terms", args.terms),
                                    ("--sweeps", args.sweeps)) if on]
    if len(chosen) > 1:
        listed = ", ".join(chosen[:-1]) + " and " + chosen[-1]
        raise ValueError(f"{listed} are {len(chosen)} benchmarks, which run one at a time: give one "
                         f"of them (a second command runs the other)")
    if args.methods and "19p" in args.methods and (args.terms or args.physics == "mhd" or energy or walls):
        raise ValueError("--methods 19p does not apply to --terms or --physics mhd (nor to --energy entropy or "
                         "--walls): hyperdiffusion, shock viscosity, MHD, entropy and walls run with the 55-point "
                         "method only (leave out --methods, or give 55p)")
    if args.sweeps and args.physics == "mhd":
        raise ValueError("--sweeps times hydro sweeps, or with --physics all those of hydro, MHD, hydro+entropy and "
                         "MHD+entropy, each forced and not; --physics mhd does not apply to it")
    if args.physics == "all" and not (args.terms or walls or energy or args.sweeps):
        raise ValueError("--physics all goes with --terms, --walls, --energy entropy or --sweeps (the other "
                         "benchmarks take hydro or mhd)")


BYTES_PER_POINT = {"float32": 160, "float64": 320}  # minimum traffic per full step (docs/performance/index.md)
MHD_BYTES_PER_POINT = {"float32": 280, "float64": 560}  # seven fields


def smooth_start(sim):
    """A smooth, stable flow so that every timed step does real arithmetic."""
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    sim["lnrho"] = 0.01 * np.sin(x + 2 * y) * np.cos(z)
    sim["ux"] = 0.1 * np.sin(y) * np.cos(2 * z)
    sim["uy"] = 0.1 * np.sin(z + x)
    sim["uz"] = 0.1 * np.cos(x) * np.sin(3 * y)


BATCHES = 5


class _Timing:
    """Seconds per call of step(), as the fastest of several batches (as
    timeit does: on a shared machine the other tenants only ever slow a
    batch down).  The batch length is set from one timed call so that
    BATCHES batches take about target_seconds."""

    def __init__(self, step, target_seconds, synchronize=lambda: None):
        self.step, self.synchronize = step, synchronize
        step()  # warm-up
        synchronize()
        t0 = time.perf_counter()
        step()
        synchronize()
        once = time.perf_counter() - t0
        self.count = max(1, int(math.ceil(target_seconds / BATCHES / max(once, 1e-9))))
        self.best = math.inf

    def batch(self):
        t0 = time.perf_counter()
        for _ in range(self.count):
            self.step()
        self.synchronize()
        self.best = min(self.best, (time.perf_counter() - t0) / self.count)


def _time_interleaved(timings):
    """Batches of every timing in turn, BATCHES rounds: implementations
    compared with each other meet the same phases of a shared machine."""
    for _ in range(BATCHES):
        for timing in timings:
            timing.batch()
    return [timing.best for timing in timings]


class _Stepper:
    """One implementation at one size, ready to step: step() and
    synchronize() for the timing, finish() once timed."""

    def __init__(self, n, step, synchronize=lambda: None, finish=lambda: None):
        self.points, self.step, self.synchronize, self.finish = n ** 3, step, synchronize, finish

    def mps(self, seconds):
        return self.points / seconds / 1e6


def backend_stepper(backend, method, dtype, n, physics="hydro", energy="isothermal", **terms):
    """astaroth itself: the steps run inside the backend (terms: extra
    Simulation parameters such as nu_hyper3)."""
    magnetic = dict(physics="mhd", eta=5e-3, b_ext=(0.0, 0.0, 0.1)) if physics == "mhd" else {}
    thermal = dict(energy="entropy", chi=5e-3) if energy == "entropy" else {}
    sim = Simulation(shape=(n, n, n), nu=5e-3, cs=1.0, dtype=dtype, backend=backend, method=method,
                     **magnetic, **thermal, **terms)
    smooth_start(sim)
    if physics == "mhd" or energy == "entropy":
        x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    if physics == "mhd":
        sim["ax"], sim["ay"] = 0.05 * np.sin(z), 0.05 * np.cos(z + x)
    if energy == "entropy":
        sim["ss"] = 0.05 * np.sin(x + y)
    dt = sim.cfl_dt()
    return _Stepper(n, lambda: sim._grid.step(dt, 1), finish=sim.check_finite)  # step() waits for the GPU


def _initial_state(dtype, n):
    sim = Simulation(shape=(n, n, n), nu=5e-3, cs=1.0, dtype=dtype, backend="cpu")
    smooth_start(sim)
    return sim, sim.cfl_dt()


def numpy_stepper(dtype, n):
    """The same equations in NumPy (astaroth.numpy_reference)."""
    from .numpy_reference import rk3_step

    sim, dt = _initial_state(dtype, n)
    state = [sim["lnrho"], [sim["ux"], sim["uy"], sim["uz"]]]

    def step():
        state[0], state[1] = rk3_step(state[0], state[1], sim.spacing, sim.nu, sim.cs, dt)

    return _Stepper(n, step)


def jax_stepper(dtype, n):
    """The same equations under jax.jit on the GPU."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave GPU memory to astaroth
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    from .numpy_reference import rk3_step

    sim, dt = _initial_state(dtype, n)
    step_fn = jax.jit(lambda l, u: rk3_step(l, u, sim.spacing, sim.nu, sim.cs, dt))
    state = [jnp.asarray(sim["lnrho"]), [jnp.asarray(sim[c]) for c in ("ux", "uy", "uz")]]

    def step():
        state[0], state[1] = step_fn(state[0], state[1])

    return _Stepper(n, step, lambda: jax.block_until_ready(state[0]), lambda: state.clear())


def cupy_stepper(dtype, n):
    """The same equations in CuPy."""
    import cupy

    from .numpy_reference import rk3_step

    sim, dt = _initial_state(dtype, n)
    state = [cupy.asarray(sim["lnrho"]), [cupy.asarray(sim[c]) for c in ("ux", "uy", "uz")]]

    def step():
        state[0], state[1] = rk3_step(state[0], state[1], sim.spacing, sim.nu, sim.cs, dt)

    def finish():
        state.clear()
        cupy.get_default_memory_pool().free_all_blocks()

    return _Stepper(n, step, cupy.cuda.runtime.deviceSynchronize, finish)


def time_steppers(steppers, target_seconds):
    """M updates/s of each stepper, timed in interleaved batches."""
    seconds = _time_interleaved([_Timing(st.step, target_seconds, st.synchronize) for st in steppers])
    for st in steppers:
        st.finish()
    return [st.mps(t) for st, t in zip(steppers, seconds)]


def time_backend(backend, method, dtype, n, target_seconds):
    """M updates/s of one configuration of astaroth."""
    return time_steppers([backend_stepper(backend, method, dtype, n)], target_seconds)[0]


def baseline_for(backend):
    """(name, timing function, size) of the comparison implementation."""
    if backend == "cpu":
        return "numpy", numpy_stepper, 64
    try:
        import jax  # noqa: F401
        return "jax.jit", jax_stepper, 256
    except ImportError:
        return "cupy", cupy_stepper, 256


def _copy_bandwidth(backend, out, traffic):
    """The device-to-device copy bandwidth timed in this run (None off the
    GPU), printed with `traffic`, the minimum traffic its ratios assume."""
    if backend != "cuda":
        return None
    from .device import copy_bandwidth

    copy_bw = copy_bandwidth(1 << 30)
    out(f"# device-to-device copy (1 GiB, bytes read + written): {copy_bw / 1e9:.0f} GB/s; {traffic}")
    return copy_bw


def run_bench(backend="cpu", sizes=(64, 128), dtypes=("float32", "float64"), methods=("55p", "19p"),
              target_seconds=1.0, out=print):
    """Print the benchmark table; returns a list of result rows (dicts)."""
    from . import _core

    out(f"# astaroth bench: backend={backend}, host={platform.node()}, "
        f"cpu={platform.processor() or platform.machine()}, openmp_threads={_core.openmp_threads()}, "
        f"numpy={np.__version__}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    out("# M/s = million grid points updated per second per full RK3 step (3 substeps, 4 fields); "
        f"each row: the fastest of {BATCHES} batches of steps")
    copy_bw = _copy_bandwidth(backend, out, f"effective bandwidth = M/s x minimum traffic "
                              f"({BYTES_PER_POINT['float32']} B/point float32, "
                              f"{BYTES_PER_POINT['float64']} B/point float64 per step)")
    name, baseline_stepper, base_n = baseline_for(backend)
    out(f"# speed-up: over the same equations in {name} (astaroth.numpy_reference) at {base_n}^3, same precision; "
        f"at {base_n}^3 astaroth and {name} are timed in alternating batches")
    rows = []
    baselines = {}
    measured = {}  # (n, dtype, method) -> M/s of the rows timed beside the baseline
    beside = list(methods) if base_n in sizes else []  # the methods timed beside the baseline
    for dtype in dtypes:
        steppers = [backend_stepper(backend, m, dtype, base_n) for m in beside]
        try:
            rates = time_steppers(steppers + [baseline_stepper(dtype, base_n)], target_seconds)
            baselines[dtype] = rates.pop()
        except Exception as e:  # a missing or failing baseline must not hide our own numbers
            out(f"# {name} baseline in {dtype} failed: {type(e).__name__}: {e}")
            baselines[dtype] = float("nan")
            rates = time_steppers(steppers, target_seconds)
        measured.update({(base_n, dtype, m): r for m, r in zip(beside, rates)})
        del steppers
        rows.append(dict(impl=f"{name} reference", method="-", dtype=dtype, n=base_n, mps=baselines[dtype]))
    header = f"{'implementation':<18}{'method':>7}{'dtype':>9}{'size':>8}{'M/s':>11}{'speed-up':>10}"
    if copy_bw:
        header += f"{'GB/s':>8}{'of copy':>9}"
    out(header)

    def show(row):
        line = (f"{row['impl']:<18}{row['method']:>7}{row['dtype']:>9}{str(row['n']) + '^3':>8}"
                f"{row['mps']:>11.2f}{row['mps'] / baselines[row['dtype']]:>10.1f}")
        if copy_bw:
            gbs = row["mps"] * 1e6 * BYTES_PER_POINT[row["dtype"]]
            line += f"{gbs / 1e9:>8.0f}{gbs / copy_bw:>9.2f}"
        out(line)

    for row in rows:
        show(row)
    for n in sizes:
        for dtype in dtypes:
            for method in methods:
                mps = measured.get((n, dtype, method))
                if mps is None:
                    mps = time_backend(backend, method, dtype, n, target_seconds)
                row = dict(impl=f"astaroth {backend}", method=method, dtype=dtype, n=n, mps=mps)
                rows.append(row)
                show(row)
    return rows


# --- parameter sweeps: small grids and ensembles ---------- ----------------------

SWEEP_SIZES = (32, 64, 128, 256)        # one simulation, sim.run with CFL steps
SWEEP_ENSEMBLES = ((64, 32), (16, 64))  # (members, size): an Ensemble beside a loop over the same members


# the physics of `bench --sweeps --physics all`: Simulation's keywords, and the forcing's relhel when forced
SWEEP_PHYSICS = {"hydro": ({}, 0.0), "mhd": (dict(physics="mhd", eta=5e-3), 1.0),
                 "hydro+entropy": (dict(energy="entropy", chi=5e-3), 0.0),
                 "mhd+entropy": (dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3), 0.0)}


def sweep_members(backend, method, dtype, n, count, physics="hydro", forced=False):
    """`count` simulations of one sweep: the same smooth flow, viscosities
    5e-3 (1 + i/10); of SWEEP_PHYSICS[physics], forced at kf 1-2 (seed
    1 + i; helically for MHD) if `forced`."""
    from .forcing import Forcing

    keywords, relhel = SWEEP_PHYSICS[physics]
    sims = []
    for i in range(count):
        sim = Simulation(shape=(n, n, n), nu=5e-3 * (1 + 0.1 * i), cs=1.0, dtype=dtype, backend=backend,
                         method=method, **keywords)
        smooth_start(sim)
        if forced:
            sim.forcing = Forcing(kmin=1, kmax=2, f0=0.02, seed=1 + i, relhel=relhel)
        sims.append(sim)
    return sims


def run_rate(advance, sims, steps, target_seconds):
    """Aggregate M updates/s of advance(until) over sims: grid points times
    steps taken over the seconds, the best of BATCHES batches; each batch
    runs every member about `steps` CFL steps further (sim.run's path: the
    CFL reduction, NaN checks, the last step shortened to land), fewer where
    the timed step after the warm-up says BATCHES batches of `steps` would
    take longer than target_seconds.  The warm-up (a first run of each new
    simulation sets up its device loop, about a second on a GPU) is not
    timed: timed, it made batches of one step, which measured that setup."""
    points = math.prod(sims[0].shape)
    dt = min(sim.cfl_dt() for sim in sims)
    advance(max(sim.t for sim in sims) + dt)  # warm-up, untimed
    t0 = time.perf_counter()
    advance(max(sim.t for sim in sims) + dt)  # about one step of every member, timed
    once = time.perf_counter() - t0
    steps = max(1, min(steps, int(target_seconds / BATCHES / max(once, 1e-9))))
    span = steps * dt
    best = 0.0
    for _ in range(BATCHES):
        until = max(sim.t for sim in sims) + span
        before = sum(sim.steps for sim in sims)
        t0 = time.perf_counter()
        advance(until)
        seconds = time.perf_counter() - t0
        best = max(best, (sum(sim.steps for sim in sims) - before) * points / seconds / 1e6)
        if seconds > target_seconds and steps > 2:
            steps //= 2
            span /= 2
    return best


def sweep_ensembles(sizes):
    """The (members, size) of the ensembles timed beside `sizes`: those of
    SWEEP_ENSEMBLES, each at the largest of `sizes` not above its own size
    (the smallest of `sizes` if none is), so that small --sizes give small
    ensembles; the default sizes give SWEEP_ENSEMBLES."""
    return tuple((members, max((s for s in sizes if s <= n), default=min(sizes))) for members, n in SWEEP_ENSEMBLES)


def _single_rate(sims, steps, target_seconds):
    """run_rate of sim.run of the one simulation in `sims`."""
    return run_rate(lambda until: sims[0].run(until=until), sims, steps, target_seconds)


def _ensemble_rate(sims, steps, target_seconds):
    """run_rate of an Ensemble of `sims`."""
    from .ensemble import Ensemble

    ens = Ensemble(sims)
    return run_rate(lambda until: ens.run(until=until), sims, steps, target_seconds)


def run_sweep_bench(backend="cpu", dtype="float32", method="55p", sizes=SWEEP_SIZES, ensembles=None,
                    steps=20, target_seconds=1.0, out=print):
    """Rows for parameter sweeps: one simulation's sim.run at each size, and
    each ensemble's aggregate rate beside a plain loop over the same
    members (default: sweep_ensembles(sizes)); ratios to the largest
    single-simulation size.  Each row takes about target_seconds.
    Returns the rows."""
    ensembles = sweep_ensembles(sizes) if ensembles is None else ensembles

    out(f"# parameter sweeps ({dtype}, {method}, {backend}): M/s = grid points x CFL steps taken / seconds, "
        f"through sim.run / Ensemble.run (CFL reduction and NaN checks included), aggregate over the members")
    out(f"{'what':<24}{'size':>8}{'M/s':>11}{'of ' + str(max(sizes)) + '^3 run':>16}")
    rows = []
    for n in sizes:
        rows.append(dict(what="sim.run, 1 simulation", n=n,
                         mps=_single_rate(sweep_members(backend, method, dtype, n, 1), steps, target_seconds)))
    reference = rows[-1]["mps"]
    for count, n in ensembles:
        sims = sweep_members(backend, method, dtype, n, count)
        rows.append(dict(what=f"Ensemble of {count}", n=n, mps=_ensemble_rate(sims, steps, target_seconds)))

        def loop(until):
            for sim in sims:
                sim.run(until=until)

        rows.append(dict(what=f"loop over {count}", n=n, mps=run_rate(loop, sims, steps, target_seconds)))
        del sims
    for row in rows:
        out(f"{row['what']:<24}{str(row['n']) + '^3':>8}{row['mps']:>11.2f}{row['mps'] / reference:>16.2f}")
    return rows


def bench_row_rate(backend, method, dtype, n, physics, target_seconds):
    """M/s of the bench's fixed-dt row of a sweep physics (SWEEP_PHYSICS):
    the stepper that `astaroth bench` (--physics mhd, --energy entropy)
    times, unforced, at n^3."""
    keywords = SWEEP_PHYSICS[physics][0]
    stepper = backend_stepper(backend, method, dtype, n, physics=keywords.get("physics", "hydro"),
                              energy=keywords.get("energy", "isothermal"))
    return time_steppers([stepper], target_seconds)[0]


def run_sweep_physics_bench(backend="cpu", dtype="float32", method="55p", sizes=SWEEP_SIZES, ensembles=None,
                            physics=tuple(SWEEP_PHYSICS), steps=20, target_seconds=1.0, out=print):
    """Rows for sweeps of each physics, unforced and forced: the bench's
    fixed-dt row of the physics at the largest of `sizes` (bench_row_rate),
    sim.run of one simulation there with its ratio to that row, and each
    ensemble's aggregate rate (default: sweep_ensembles(sizes)) with its
    ratio to that run.  Returns the rows."""
    ensembles = sweep_ensembles(sizes) if ensembles is None else ensembles
    n = max(sizes)
    out(f"# parameter sweeps of each physics ({dtype}, {method}, {backend}): M/s = grid points x CFL steps taken / "
        f"seconds through sim.run / Ensemble.run, aggregate over the members; {n}^3 row: the bench's fixed-dt steps "
        f"of the physics, unforced; in brackets, the run's of that row and the ensembles' of the run")
    out(f"{'physics':<16}{'forced':<8}{str(n) + '^3 row':>12}{str(n) + '^3 run':>18}" +
        "".join(f"{f'{c} x {m}^3':>18}" for c, m in ensembles))
    rows = []
    for name in physics:
        fixed = bench_row_rate(backend, method, dtype, n, name, target_seconds)
        for forced in (False, True):
            row = dict(physics=name, forced=forced, n=n, ensembles=[], bench_row=fixed,
                       mps=_single_rate(sweep_members(backend, method, dtype, n, 1, name, forced), steps,
                                        target_seconds))
            for count, m in ensembles:
                sims = sweep_members(backend, method, dtype, m, count, name, forced)
                row["ensembles"].append(dict(count=count, n=m, mps=_ensemble_rate(sims, steps, target_seconds)))
                del sims
            rows.append(row)
            out(f"{name:<16}{str(forced):<8}{fixed:>12.0f}{row['mps']:>11.0f} ({row['mps'] / fixed:.2f})" +
                "".join(f"{e['mps']:>11.0f} ({e['mps'] / row['mps']:.2f})" for e in row["ensembles"]))
    return rows


# --- magnetohydrodynamics ----------- ---------------------------------------------

def run_mhd_bench(backend="cpu", sizes=(64,), dtypes=("float32", "float64"), target_seconds=1.0, out=print):
    """Rows for physics="mhd" (55-point method): M/s, and on the GPU the
    effective bandwidth from the minimum traffic of seven fields
    (MHD_BYTES_PER_POINT) against a device copy timed in the same run."""
    out(f"# astaroth bench --physics mhd: backend={backend}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
        f"M/s = million grid points per full RK3 step (7 fields), the fastest of {BATCHES} batches")
    copy_bw = _copy_bandwidth(backend, out, f"minimum traffic {MHD_BYTES_PER_POINT['float32']} / "
                              f"{MHD_BYTES_PER_POINT['float64']} B per point and step")
    out(f"{'implementation':<18}{'physics':>8}{'dtype':>9}{'size':>8}{'M/s':>11}" + (f"{'GB/s':>8}{'of copy':>9}"
                                                                                       if copy_bw else ""))
    rows = []
    for n in sizes:
        for dtype in dtypes:
            mps = time_steppers([backend_stepper(backend, "55p", dtype, n, physics="mhd")], target_seconds)[0]
            rows.append(dict(impl=f"astaroth {backend}", physics="mhd", dtype=dtype, n=n, mps=mps))
            line = f"{'astaroth ' + backend:<18}{'mhd':>8}{dtype:>9}{str(n) + '^3':>8}{mps:>11.4g}"
            if copy_bw:
                gbs = mps * 1e6 * MHD_BYTES_PER_POINT[dtype]
                line += f"{gbs / 1e9:>8.0f}{gbs / copy_bw:>9.2f}"
            out(line)
    return rows


# --- the energy equation ----------- ------------------------------------------------

BYTES_PER_FIELD = {"float32": 40, "float64": 80}  # minimum traffic per field, point and full step (docs/performance/index.md)


def run_entropy_bench(backend="cpu", sizes=(64,), dtypes=("float32", "float64"), physics=("hydro", "mhd"),
                      target_seconds=1.0, out=print):
    """Rows for energy="entropy" (the 55-point method) beside the isothermal
    run of the same physics, timed interleaved: M/s, and on the GPU the
    effective bandwidth from the minimum traffic of the configuration's
    fields (BYTES_PER_FIELD each: 5 fields hydro+entropy, 8 MHD+entropy)
    against a device copy timed in the same run."""
    out(f"# astaroth bench --energy entropy: backend={backend}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
        f"M/s = million grid points per full RK3 step, the fastest of {BATCHES} batches; chi = nu = 5e-3")
    copy_bw = _copy_bandwidth(backend, out, f"minimum traffic {BYTES_PER_FIELD['float32']} / "
                              f"{BYTES_PER_FIELD['float64']} B per field, point and step")
    out(f"{'implementation':<18}{'physics':>8}{'energy':>12}{'fields':>7}{'dtype':>9}{'size':>8}{'M/s':>11}"
        + (f"{'GB/s':>8}{'of copy':>9}" if copy_bw else ""))
    rows = []
    for n in sizes:
        for phys in physics:
            for dtype in dtypes:
                energies = ("isothermal", "entropy")
                steppers = [backend_stepper(backend, "55p", dtype, n, physics=phys, energy=e) for e in energies]
                rates = time_steppers(steppers, target_seconds)
                del steppers
                for energy, mps in zip(energies, rates):
                    fields = 4 + (3 if phys == "mhd" else 0) + (1 if energy == "entropy" else 0)
                    rows.append(dict(impl=f"astaroth {backend}", physics=phys, energy=energy, fields=fields,
                                     dtype=dtype, n=n, mps=mps))
                    line = (f"{'astaroth ' + backend:<18}{phys:>8}{energy:>12}{fields:>7}{dtype:>9}"
                            f"{str(n) + '^3':>8}{mps:>11.4g}")
                    if copy_bw:
                        gbs = mps * 1e6 * BYTES_PER_FIELD[dtype] * fields
                        rows[-1].update(gbs=gbs, of_copy=gbs / copy_bw)
                        line += f"{gbs / 1e9:>8.0f}{gbs / copy_bw:>9.2f}"
                    out(line)
    return rows


# --- higher Reynolds numbers ----------- --------------------------------------------

# Coefficients of the timed runs: at 256^3 (dx = 2 pi / 256) nu_hyper3 = 1e-10
# damps the Nyquist mode about as nu = 5e-3 damps k = 15; nu_shock = 1 is the
# Pencil Code's usual choice.  The sheared row is the rotating frame with a
# Keplerian shear (qshear = 3/2: shear = -0.75), as a shearing box runs it.
TERM_ROWS = (("none", {}),
             ("hyper3", dict(nu_hyper3=1e-10, diff_hyper3=1e-10)),
             ("shock", dict(nu_shock=1.0)),
             ("rotation", dict(omega=(0.0, 0.0, 0.5))),
             ("rot+shear", dict(omega=(0.0, 0.0, 0.5), qshear=1.5)))


def _z_walls(physics):
    """Walls at both ends of z for every field (astaroth.boundaries), the kinds of a stratified layer."""
    faces = {"lnrho": "a2", "ux": "s", "uy": "s", "uz": "a"}
    if physics == "mhd":
        faces.update(ax="a", ay="a", az="s")
    return {"z": faces}


def _variant_rows(backend, sizes, dtypes, physics, variants, key, ratio, widths, target_seconds, out):
    """The 55-point step of each variant (name, Simulation parameters) of
    variants(physics) beside the first, timed interleaved: one row each,
    the name under `key`, its M/s, and under `ratio` its M/s over the
    first's (a variant the backend refuses is reported as not run);
    widths: of the name and ratio columns."""
    column, ratio_column = widths
    rows = []
    for n in sizes:
        for phys in physics:
            for dtype in dtypes:
                names, steppers = [], []
                for name, params in variants(phys):
                    try:
                        steppers.append(backend_stepper(backend, "55p", dtype, n, physics=phys, **params))
                        names.append(name)
                    except (ValueError, NotImplementedError) as e:
                        out(f"{'astaroth ' + backend:<18}{phys:>8}{dtype:>9}{str(n) + '^3':>8}{name:>{column}}"
                            f"  not run: {e}")
                rates = time_steppers(steppers, target_seconds)
                for name, mps in zip(names, rates):
                    rows.append({"impl": f"astaroth {backend}", "physics": phys, "dtype": dtype, "n": n, key: name,
                                 "mps": mps, ratio: mps / rates[0]})
                    out(f"{'astaroth ' + backend:<18}{phys:>8}{dtype:>9}{str(n) + '^3':>8}{name:>{column}}"
                        f"{mps:>11.4g}{mps / rates[0]:>{ratio_column}.2f}")
                del steppers
    return rows


def run_walls_bench(backend="cpu", sizes=(64,), dtypes=("float32", "float64"), physics=("hydro", "mhd"),
                    target_seconds=1.0, out=print):
    """M/s of the 55-point step with walls at both ends of z beside the
    periodic run, timed interleaved; 'of periodic' is their ratio."""
    out(f"# astaroth bench --walls: backend={backend}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
        f"M/s = million grid points per full RK3 step, the fastest of {BATCHES} batches; walls: z, "
        f"lnrho a2, ux uy s, uz a (mhd: ax ay a, az s)")
    out(f"{'implementation':<18}{'physics':>8}{'dtype':>9}{'size':>8}{'walls':>10}{'M/s':>11}{'of periodic':>13}")
    return _variant_rows(backend, sizes, dtypes, physics,
                         lambda phys: [("periodic", {}), ("z", dict(boundaries=_z_walls(phys)))], "walls",
                         "of_periodic", (10, 13), target_seconds, out)


def run_terms_bench(backend="cpu", sizes=(64,), dtypes=("float32", "float64"), physics=("hydro", "mhd"),
                    target_seconds=1.0, out=print):
    """M/s of the 55-point step with each term for higher Reynolds numbers (hyperdiffusion,
    shock viscosity), the rotation and the rotation with a Keplerian shear
    (a shearing box: its shifted x ghosts and, on the GPU, its instances of
    the streaming kernel) beside the same run without them, timed
    interleaved; 'of none' is the ratio to the row without the terms (a
    term that a backend does not run is reported)."""
    out(f"# astaroth bench --terms: backend={backend}, date={time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
        f"M/s = million grid points per full RK3 step, the fastest of {BATCHES} batches; terms: "
        + "; ".join(f"{name} {params}" for name, params in TERM_ROWS[1:]))
    out(f"{'implementation':<18}{'physics':>8}{'dtype':>9}{'size':>8}{'terms':>10}{'M/s':>11}{'of none':>9}")
    return _variant_rows(backend, sizes, dtypes, physics, lambda phys: TERM_ROWS, "terms", "of_none", (10, 9),
                         target_seconds, out)
