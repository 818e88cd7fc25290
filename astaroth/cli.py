"""The `astaroth` command (also `python -m astaroth`).

    astaroth run [CONFIG.toml]   a run from a TOML file (default: forced
                                 turbulence at 64^3 on the default backend)
    astaroth sweep CONFIG.toml   a run for every value of the keys its [sweep]
                                 table lists (astaroth.sweeps), resumable
    astaroth plot SNAPSHOT       slices, spectrum and time series as a PNG
    astaroth bench               million grid-point updates per second
    astaroth bench ops           GB/s of the GPU derivative kernels of
                                 astaroth.ops against a device copy

Exit status: 0 done, 1 an unexpected error, 2 refused before any work,
3 a run stopped early (signal or STOP file; --restart continues it),
4 a run whose fields became NaN or Inf.
"""
import argparse
import math
import os
import sys

# Exit statuses (README, "Command line"); argparse's own usage errors are 2 too.
EXIT_DONE = 0      # the run reached `until` (or the command finished)
EXIT_ERROR = 1     # an unexpected error, with a traceback
EXIT_INPUT = 2     # refused before any work: bad configuration, options, run directory or files
EXIT_STOPPED = 3   # stopped early by SIGINT, SIGTERM or a STOP file; the checkpoint continues it (--restart)
EXIT_BLOWUP = 4    # the fields became NaN or Inf (the message names the step and time)


def build_simulation(config, comm=None):
    """A Simulation set up as `config` (astaroth.config) says, split over
    the ranks of `comm` where given (astaroth.parallel)."""
    from . import init
    from . import parameters as registry
    from .forcing import Forcing
    from .simulation import Simulation

    g, ph, nm, ic, fo = (config[k] for k in ("grid", "physics", "numerics", "initial", "forcing"))
    physics = {key: ph[key] for key in registry.SWITCHES + registry.NAMES}  # csrc/parameters.def
    sim = Simulation(shape=tuple(g["shape"]), box=tuple(g["box"]), origin=tuple(g["origin"]), dtype=nm["dtype"],
                     backend=nm["backend"], method=nm["method"], comm=comm,
                     boundaries={axis: t for axis, t in config["boundaries"].items() if t} or None, **physics)
    if ic["kind"] == "sine_wave":
        init.sine_wave(sim, field=ic["field"], amplitude=ic["amplitude"], k=ic["k"])
    elif ic["kind"] == "radial_explosion":
        init.radial_explosion(sim, amplitude=ic["amplitude"], r0=ic["r0"], width=ic["width"])
    elif ic["kind"] == "random_velocity":
        init.random_velocity(sim, urms=ic["urms"], spectrum=lambda k: k ** ic["slope"], seed=ic["seed"])
    if ic["stratification"] != "none":
        init.hydrostatic(sim, kind=ic["stratification"], mpoly=ic["mpoly"],
                         zref=None if ic["zref"] == "bottom" else ic["zref"])
    if ic["seed_field"]:
        if sim.physics != "mhd":
            raise ValueError('[initial] seed_field seeds the vector potential A: it needs [physics] physics = "mhd"')
        import numpy as np

        rng = np.random.default_rng(ic["seed"])
        for name in ("ax", "ay", "az"):
            sim[name] = ic["seed_field"] * rng.standard_normal(sim.shape)
    if fo["enabled"] and fo["kdat"]:
        sim.forcing = Forcing.from_kdat(fo["kdat"], f0=fo["f0"], seed=fo["seed"], relhel=fo["relhel"],
                                        normalize=fo["normalize"])
    elif fo["enabled"]:
        sim.forcing = Forcing(kmin=fo["kmin"], kmax=fo["kmax"], f0=fo["f0"], seed=fo["seed"], relhel=fo["relhel"],
                              normalize=fo["normalize"])
    return sim


class RunError(ValueError):
    """A run that cannot start as asked (the message says why and what to do)."""


# the variables by which mpirun (Open MPI, and MPICH's and Intel MPI's hydra) tells a process the number of ranks
_MPI_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def _world():
    """MPI.COMM_WORLD where `astaroth run` was started by mpirun on more than
    one rank, else None (mpi4py is imported only then)."""
    size = next((int(os.environ[k]) for k in _MPI_SIZE_VARIABLES if os.environ.get(k, "").isdigit()), 1)
    if size < 2:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise RunError(f"astaroth run was started on {size} MPI ranks, but mpi4py is missing: pip install mpi4py "
                       "(docs/guide/parallel.md)") from None
    return MPI.COMM_WORLD if MPI.COMM_WORLD.Get_size() > 1 else None


class _Ranks:
    """What `astaroth run` does once for all ranks (files, messages: rank 0)
    and in step (barrier); one process is its own root."""

    def __init__(self, comm):
        self.comm = comm
        self.root = comm is None or comm.Get_rank() == 0

    def barrier(self):
        if self.comm is not None:
            self.comm.Barrier()


def _optional_outputs(want_plot):
    """(can_save, can_plot), after one line naming what a missing package costs."""
    import importlib.util

    can_save = importlib.util.find_spec("h5py") is not None
    can_plot = want_plot and importlib.util.find_spec("matplotlib") is not None
    skipped = ([] if can_save else ["h5py: no snapshots or checkpoint, so no --restart"]) + \
              ([] if can_plot or not want_plot else ["matplotlib: no summary.png"])
    if skipped:
        print(f"astaroth: not installed: {'; '.join(skipped)} (pip install h5py matplotlib, or the package's "
              f"[io,plot] extras)", file=sys.stderr)
    return can_save, can_plot


def _restart(config, folder, checkpoint, config_name, ranks=None):
    """The checkpoint's simulation and its restart history, after checking the
    configuration against it, taking the run-time parameters that changed
    (config.CHANGED_ON_RESTART) and truncating the time series to it; prints
    one line per change."""
    from . import config as configuration, rundir
    from .io import attributes, load

    if not os.path.exists(checkpoint):
        newest = rundir.newest_snapshot(folder)
        why = (f"the run was killed before writing it; the newest snapshot is {newest}: copy it to {checkpoint} "
               f"to continue from there" if newest else
               "the run was killed before writing its first one; start afresh with --overwrite"
               if rundir.holds_run(folder) else f"{folder}/ holds no run; start one without --restart")
        raise RunError(f"no checkpoint {checkpoint} to restart from: {why}")
    ranks = ranks or _Ranks(None)
    sim = load(checkpoint, backend=config["numerics"]["backend"], comm=ranks.comm)
    recorded = attributes(checkpoint)
    refused, changed = rundir.compare(config, sim, rundir.decode(recorded.get("run_config")))
    taken = rundir.changes(config, sim)
    if refused:
        allowed = [f"[{section}] {key} = {configuration.toml_value(new)} (checkpoint: {configuration.toml_value(old)})"
                   for section, keys in taken.items() for key, (old, new) in keys.items()]
        raise RunError(f"{config_name} differs from {checkpoint} in keys that cannot change on a restart: "
                       f"{'; '.join(refused)}. Restore them, or start afresh with --overwrite"
                       + (f" (these may change on a restart: {'; '.join(allowed)})" if allowed else ""))
    if taken.get("physics"):  # the run-time parameters of csrc/parameters.def whose restart column is 1
        sim = load(checkpoint, backend=config["numerics"]["backend"], comm=ranks.comm,
                   parameters={key: new for key, (old, new) in taken["physics"].items()})
    if taken.get("forcing"):
        _change_forcing(sim, config["forcing"])
    for line in changed:
        print(f"astaroth: restart takes {line}")
    history = rundir.decode(recorded.get(rundir.HISTORY)) or []
    if taken:
        history.append(rundir.history_entry(sim, taken))
    keep_last = bool(recorded.get("segment_end", True)) or sim.steps % config["output"]["timeseries_every"] == 0
    if ranks.root:  # the files are rank 0's
        for name in (rundir.TIMESERIES, rundir.PENCIL_TIMESERIES):
            dropped = rundir.truncate_timeseries(os.path.join(folder, name), sim.steps, keep_last)
            if dropped:
                print(f"astaroth: dropped {dropped} rows of {name} written after the checkpoint's step {sim.steps}")
        from .outputs import truncate_files

        for name, dropped in truncate_files(folder, sim.steps).items():
            print(f"astaroth: dropped {dropped} rows of {name} written after the checkpoint's step {sim.steps}")
    ranks.barrier()
    return sim, history


def _change_forcing(sim, fo):
    """A new shell, amplitude or helicity of sim's forcing from the [forcing]
    table `fo`; the generator goes on from its state."""
    from .forcing import Forcing

    old, state = sim.forcing, sim._grid.forcing_state
    common = dict(f0=fo["f0"], seed=old.seed, relhel=fo["relhel"], normalize=old.normalize)
    if old.explicit:  # a k.dat file's set, kept
        sim.forcing = Forcing(wavevectors=old.wavenumbers, kav=old.kav, **common)
        sim.forcing.kdat = old.kdat
    else:
        sim.forcing = Forcing(kmin=fo["kmin"], kmax=fo["kmax"], **common)
    sim._grid.forcing_state = state


def run_outputs(config, folder):
    """The averages, slices and spectra that [diagnostics] asks for (astaroth.outputs), written in `folder`."""
    from . import outputs

    d = config["diagnostics"]
    found = []
    kinds = {kind: d[f"{kind}averages"] for kind in ("xy", "xz", "yz", "z")}
    if any(kinds.values()):
        found.append(outputs.Averages(folder, every=d["averages_every"], **kinds))
    if d["slices"]:
        found.append(outputs.Slices(folder, d["slices"], point=d["slice_point"] or None, every=d["slices_every"]))
    if d["spectra"]:
        found.append(outputs.Spectra(folder, d["spectra"], every=d["spectra_every"]))
    return found


def _reload(config, new_config, sim, config_name):
    """What a RELOAD file asks: `new_config` (the TOML file read again) in
    place of `config` where a restart could change it (astaroth.config,
    CHANGED_ON_RESTART and the [numerics], [output] and forcing keys a
    restart takes), the physics parameters set on the live simulation.
    Returns (lines to print, the changes taken for the restart history), or
    raises RunError naming the keys that cannot change while running."""
    from . import rundir

    refused, changed = rundir.compare(new_config, sim, config)
    for section in ("diagnostics",):
        refused += [f"[{section}] {key}" for key in new_config[section] if new_config[section][key] != config[section][key]]
    if new_config["output"]["dir"] != config["output"]["dir"]:
        refused.append("[output] dir")
    if refused:
        raise RunError(f"{config_name} differs in keys that cannot change while the run goes on: "
                       f"{'; '.join(refused)}")
    taken = rundir.changes(new_config, sim)
    for key, (old, new) in taken.get("physics", {}).items():
        setattr(sim, key, new)  # a restart-changeable parameter (Simulation's setters)
    if taken.get("forcing"):
        _change_forcing(sim, new_config["forcing"])
    for section in new_config:
        config[section] = new_config[section]
    return changed, taken


PHYSICS = {"hydro": "isothermal hydrodynamics", "mhd": "isothermal MHD (vector potential A)"}


def _changed_keys(config):
    """The keys `config` sets to other than the default (astaroth.config.DEFAULT),
    as "[section] key = value" grouped by section, in the file's order."""
    from . import config as configuration

    groups = []
    for section, defaults in configuration.DEFAULT.items():
        keys = [f"{key} = {configuration.toml_value(config[section][key])}"
                for key, default in defaults.items() if config[section][key] != default]
        if keys:
            groups.append(f"[{section}] " + ", ".join(keys))
    return groups


def _start_lines(config, sim, config_name, start):
    """What the run is: its physics, start, grid, where it runs and writes;
    then every parameter that differs from the default."""
    from . import analysis

    out = config["output"]
    f = sim.forcing
    forcing = "unforced"
    if f is not None:
        helical = f"relhel = {f.relhel:g}, " if f.relhel else ""
        forcing = f"forced at kf = {analysis.forcing_wavenumber(sim):.3g} ({helical}f0 = {f.f0:g})"
    physics = PHYSICS.get(sim.physics, sim.physics)
    if getattr(sim, "energy", "isothermal") == "entropy":  # an ideal gas with an energy equation, not isothermal
        physics = physics.replace("isothermal ", "") + f" with entropy (ideal gas, gamma = {sim.gamma:g})"
    first = (f"{physics}, {forcing}, {start}, {'x'.join(map(str, sim.shape))} grid, "
             f"nu = {sim.nu:g}{f', eta = {sim.eta:g}' if sim.physics == 'mhd' else ''}, {sim.dtype.name}, "
             f"method {sim.method}, backend {sim.backend}, until t = {out['until']:g}; output in {out['dir']}/")
    changed = _changed_keys(config)
    second = (f"{config_name} sets " + "; ".join(changed) if changed else
              f"{config_name}: every parameter at its default (astaroth run --help lists them)")
    return [first, second]


def _end_lines(sim):
    """The summary at the end, from the time-series row of the state now
    (astaroth.diagnostics): urms, Re, ekin and the spectrum peak; with MHD
    brms, Rm, the magnetic energy and helicity; with forcing its power."""
    from . import analysis
    from .diagnostics import row

    now = row(sim, 0.0)
    kf = analysis.forcing_wavenumber(sim)
    re = analysis.reynolds_numbers(sim, kf)
    k_name, k_value = ("kf", kf) if kf else ("k1", 2 * math.pi / max(sim.box))  # forcing, else box, scale

    def peak(field):
        if analysis.walls_of(sim):  # spectra are of periodic axes
            return ""
        k, E = analysis.spectrum(sim, field=field)
        return f", {field} spectrum peak at k = {k[1:][E[1:].argmax()]:g}" if k.size > 1 else ""

    lines = [f"t = {sim.t:g} after {sim.steps} steps: urms = {now['urms']:.4g}, Re = urms / (nu {k_name}) = "
             f"{re['Re']:.3g} ({k_name} = {k_value:.3g}), ekin = <rho u^2 / 2> = {now['ekin']:.4g}{peak('kinetic')}"]
    if sim.physics == "mhd":
        emag = now["b2m"] / (2 * sim.mu0)
        lines.append(f"magnetic: brms = {now['brms']:.4g}, Rm = urms / (eta {k_name}) = {re['Rm']:.3g}, "
                     f"<B^2> / (2 mu0) = {emag:.4g} ({emag / now['ekin'] if now['ekin'] else math.inf:.3g} of ekin), "
                     f"<A . B> = {now['abm']:.4g}{peak('magnetic')}")
    power = analysis.forcing_power(sim)
    if power is not None:
        takers = "viscosity and resistivity take" if sim.physics == "mhd" else "viscosity takes"
        lines.append(f"the forcing puts in {power:.3g} per unit volume and time on average (f0^2 cs^3 kf <rho> / 4); "
                     f"in a steady state {takers} out as much")
    return lines


def cmd_run(args):
    from . import config as configuration, rundir
    from .io import save
    from .diagnostics import Progress
    from .simulation import _StopRequest

    ranks = _Ranks(_world())  # under mpirun: the grid split over the ranks, files and messages from rank 0
    if not ranks.root:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (this rank's for the rest of the process)
    config = configuration.load(args.config) if args.config else configuration.default()
    config_name = args.config or "the default configuration"
    out = config["output"]
    folder = out["dir"]
    can_save, can_plot = _optional_outputs(not args.no_plot)
    if args.restart and not can_save:
        raise RunError("--restart reads the checkpoint and needs h5py (pip install h5py)")
    holds = rundir.holds_run(folder)  # every rank sees the same files before rank 0 changes any
    ranks.barrier()
    if not args.restart and holds:
        if not args.overwrite:
            names = [os.path.basename(p) for p in rundir.run_files(folder)]
            raise RunError(f"{folder}/ already holds a run ({', '.join(names[:4])}{', ...' if len(names) > 4 else ''}): "
                           f"continue it with --restart, or start afresh with --overwrite (which deletes those files)")
        if ranks.root:
            print(f"astaroth: --overwrite: removed {rundir.remove_run(folder)} files of the earlier run in {folder}/")
    if os.path.isdir(folder) and ranks.root:
        for name in rundir.remove_temporaries(folder):
            print(f"astaroth: removed {os.path.join(folder, name)}, left by a run killed while writing")
    checkpoint = os.path.join(folder, rundir.CHECKPOINT)
    series = [os.path.join(folder, rundir.TIMESERIES), os.path.join(folder, rundir.PENCIL_TIMESERIES)]
    stop_file = os.path.join(folder, rundir.STOP)
    reload_file = os.path.join(folder, rundir.RELOAD)
    if not args.restart and ranks.root:
        os.makedirs(folder, exist_ok=True)
    ranks.barrier()
    if args.restart:
        sim, history = _restart(config, folder, checkpoint, config_name, ranks)
        start = f"restart from {checkpoint} at step {sim.steps}, t = {sim.t:g}"
    else:
        sim, history = build_simulation(config, ranks.comm), []
        start = f"{config['initial']['kind']} start"
    if ranks.comm is not None:
        start += f", split over {ranks.comm.Get_size()} MPI ranks"
    from .diagnostics import select

    select(sim, config["diagnostics"]["columns"] or None, "[diagnostics] columns")  # refused before any work
    for output in run_outputs(config, folder):
        output.check(sim)
    if os.path.exists(reload_file) and ranks.root:
        os.unlink(reload_file)  # asked of an earlier run: this one reads the file now
    ranks.barrier()
    for line in _start_lines(config, sim, config_name, start):
        print(f"astaroth: {line}")
    record = {"run_config": rundir.encode(config)}
    if history:  # every restart that changed a run-time parameter: step, time, [old, new]
        record[rundir.HISTORY] = rundir.encode(history)
    stopped = []
    target = None

    def on_stop(s):
        stopped.append(True)
        if can_save:
            save(s, checkpoint, attributes={**record, "segment_end": s.t == target})
        print(f"\nastaroth: stopped at step {s.steps}, t = {s.t:g}" +
              (f"; checkpoint {checkpoint}: continue with --restart" if can_save else ""))
        if ranks.root and os.path.exists(stop_file):
            os.unlink(stop_file)  # done what it asked: a restart must not stop again at once
            print(f"astaroth: removed {stop_file}")
        ranks.barrier()

    def on_reload(s):  # RELOAD: the TOML file's restart-changeable keys, read again (the Pencil Code's run.in)
        if not args.config:
            print("\nastaroth: RELOAD: the default configuration has no file to read again; nothing changed")
            return False
        try:
            lines, taken = _reload(config, configuration.load(args.config), s, config_name)
        except ValueError as e:
            print(f"\nastaroth: RELOAD at step {s.steps}: {e}; nothing changed")
            return False
        print(f"\nastaroth: RELOAD at step {s.steps}, t = {s.t:g}: " + ("; ".join(lines) or "nothing changed"))
        if taken:
            history.append(rundir.history_entry(s, taken))
            record[rundir.HISTORY] = rundir.encode(history)
        record["run_config"] = rundir.encode(config)
        return True  # this segment's call ends: the next takes the new cdt, cadences, until

    left = config["output"]["nt"] or None  # the Pencil Code's nt: steps of this invocation
    signals = _StopRequest(True)  # between segments too, while snapshots are written; run() has its own
    bar = Progress(sim, out["until"]) if out["progress"] and not args.quiet else None  # the whole run's line
    try:
        while sim.t < config["output"]["until"] and not stopped:
            out = config["output"]  # a RELOAD may change it
            if sim._agree(signals.requested):  # a signal reaches each rank alone: every rank stops together
                on_stop(sim)
                break
            # segment ends at multiples of snapshot_every, so a restarted run takes the same steps
            every = out["snapshot_every"]
            target = min(out["until"], (math.floor(sim.t / every * (1 + 1e-12)) + 1) * every)
            taken = sim.run(until=target, cdt=config["numerics"]["cdt"], cdtv=config["numerics"]["cdtv"],
                            dt=config["numerics"]["dt"] or None, timeseries=series,
                            diagnostics=config["diagnostics"]["columns"] or None,
                            outputs=run_outputs(config, folder), diagnostics_every=out["timeseries_every"],
                            progress=bar or False, stop_file=stop_file, handle_signals=True, on_stop=on_stop,
                            nt=left, reload_file=reload_file, on_reload=on_reload, dtmin=out["dtmin"] or None)
            if can_save and sim.t == target:  # a segment's end (a stop on its last step still ends it)
                save(sim, os.path.join(folder, rundir.snapshot_name(sim.steps)), attributes=record)
                save(sim, checkpoint, attributes={**record, "segment_end": True})  # .xdmf kept current
            left = None if left is None else left - taken
            if left is not None and left <= 0 and not stopped and sim.t < config["output"]["until"]:
                if can_save and sim.t < target:
                    save(sim, checkpoint, attributes={**record, "segment_end": False})
                print(f"\nastaroth: reached nt = {config['output']['nt']} steps at step {sim.steps}, t = {sim.t:g}"
                      + (f"; checkpoint {checkpoint}: continue with --restart" if can_save else ""))
                break
    finally:
        signals.restore()
        if bar is not None:
            bar.close()
    out = config["output"]
    for line in _end_lines(sim):
        print(line)
    if can_save and can_plot and ranks.root:
        from .plot import summary

        path = summary(checkpoint, series[0], os.path.join(folder, rundir.SUMMARY))
        if path:
            print(f"picture: {path}")
    if stopped and sim.t < out["until"]:
        print(f"astaroth: exit status {EXIT_STOPPED}: stopped before t = {out['until']:g}", file=sys.stderr)
        return EXIT_STOPPED
    return EXIT_DONE


def cmd_sweep(args):
    from . import config as configuration, sweeps

    user, grid, settings = configuration.load_sweep(args.config)
    base = configuration.validate(user)
    out, numerics = base["output"], base["numerics"]
    folder = out["dir"]

    def make(**params):
        return build_simulation(configuration.sweep_member(user, params))

    count = math.prod(len(values) for values in grid.values())
    print(f"astaroth sweep: {count} members ({' x '.join(f'{len(v)} {name}' for name, v in grid.items())}) to "
          f"t = {out['until']:g}; results in {folder}/ (run again to go on after a stop)")
    try:
        records = sweeps.run(make, grid, out["until"], folder, every=settings["every"] or None,
                             diagnostics=base["diagnostics"]["columns"] or None, wave=settings["wave"] or None,
                             progress=out["progress"] and not args.quiet, overwrite=args.overwrite,
                             cdt=numerics["cdt"], cdtv=numerics["cdtv"], dt=numerics["dt"] or None,
                             dtmin=out["dtmin"] or None)
    except KeyboardInterrupt:
        print(f"\nastaroth: stopped; the members that finished are in {folder}/{sweeps.MEMBERS}/: the same command "
              f"goes on from there", file=sys.stderr)
        return EXIT_STOPPED
    for record in records:
        last = dict(zip(record["columns"], record["rows"][-1]))
        values = ", ".join(f"{name} = {configuration.toml_value(v)}" for name, v in record["params"].items())
        shown = ", ".join(f"{c} = {last[c]:.4g}" for c in ("urms", "brms") if c in last)
        print(f"member {record['member']}: {values}: {record['status']} at t = {record['t']:g}"
              + (f", {shown}" if shown else ""))
    print(f"table: {os.path.join(folder, sweeps.TABLE)}")
    report = sweeps.blowups(records)
    if report:
        print(f"astaroth: exit status {EXIT_BLOWUP}: {report}", file=sys.stderr)
        return EXIT_BLOWUP
    return EXIT_DONE


def _is_spectra(path):
    """Whether `path` is a spectra.h5 of astaroth.outputs.Spectra (an HDF5 file whose kind is 'spectra')."""
    try:
        import h5py

        with h5py.File(path, "r", libver="latest", swmr=True) as f:
            return f.attrs.get("kind") == "spectra"
    except (ImportError, OSError):
        return False


def cmd_plot(args):
    from .diagnostics import read_timeseries
    from .plot import spectra_evolution, summary

    if _is_spectra(args.snapshot):  # the spectra's time evolution
        return _plotted(spectra_evolution(args.snapshot, args.output))
    if args.timeseries is not None:
        if not os.path.isfile(args.timeseries):
            raise RunError(f"--timeseries {args.timeseries}: no such file")
        try:
            read_timeseries(args.timeseries)
        except (ValueError, UnicodeDecodeError) as e:
            raise RunError(f"--timeseries {args.timeseries} is not a time-series CSV of astaroth run: {e}") from None
    return _plotted(summary(args.snapshot, args.timeseries, args.output))


def _plotted(path):
    """The exit status of a plot: its path printed, or (None: no matplotlib) a line saying what to install."""
    if not path:
        print("astaroth: plotting needs matplotlib (pip install matplotlib, or the package's [plot] extra)",
              file=sys.stderr)
        return EXIT_INPUT
    print(path)
    return EXIT_DONE


def cmd_bench(args):
    from . import _core
    from .bench import run_bench
    from .simulation import backends, default_backend

    backend = default_backend() if args.backend == "auto" else args.backend
    if backend == "cuda" and "cuda" not in backends():
        why = ("this build has no CUDA backend (nvcc was not found when it was installed)"
               if "cuda" not in _core.compiled_backends() else "the CUDA backend is built, but no GPU is visible")
        raise RunError(f"--backend cuda: no GPU is usable here: {why}; use --backend cpu")
    from .bench import check_bench_options
    try:
        check_bench_options(args)
    except ValueError as e:
        raise RunError(str(e)) from None
    args.methods = args.methods or ["55p", "19p"]
    if args.walls or args.energy == "entropy":  # beside the periodic or isothermal run, 55p
        from .bench import run_entropy_bench, run_walls_bench

        sizes = tuple(args.sizes) if args.sizes else ((32,) if backend == "cpu" else (256,))
        physics = ("hydro", "mhd") if args.physics == "all" else (args.physics,)
        (run_walls_bench if args.walls else run_entropy_bench)(backend=backend, sizes=sizes, dtypes=tuple(args.dtype),
                                                              physics=physics, target_seconds=args.seconds)
        return EXIT_DONE
    if args.terms:
        from .bench import run_terms_bench

        sizes = tuple(args.sizes) if args.sizes else ((32,) if backend == "cpu" else (256,))
        physics = ("hydro", "mhd") if args.physics == "all" else (args.physics,)
        run_terms_bench(backend=backend, sizes=sizes, dtypes=tuple(args.dtype), physics=physics,
                        target_seconds=args.seconds)
        return EXIT_DONE
    if args.physics == "mhd":
        from .bench import run_mhd_bench

        sizes = tuple(args.sizes) if args.sizes else ((32, 64) if backend == "cpu" else (128, 256))
        run_mhd_bench(backend=backend, sizes=sizes, dtypes=tuple(args.dtype), target_seconds=args.seconds)
        return EXIT_DONE
    if args.sweeps:
        from .bench import SWEEP_SIZES, run_sweep_bench, run_sweep_physics_bench

        sizes = tuple(args.sizes) if args.sizes else SWEEP_SIZES
        bench = run_sweep_physics_bench if args.physics == "all" else run_sweep_bench
        bench(backend=backend, dtype=args.dtype[0], method=args.methods[0], sizes=sizes, target_seconds=args.seconds)
        return EXIT_DONE
    sizes = tuple(args.sizes) if args.sizes else ((64, 128) if backend == "cpu" else (128, 256, 512))
    run_bench(backend=backend, sizes=sizes, dtypes=tuple(args.dtype), methods=tuple(args.methods),
              target_seconds=args.seconds)
    return EXIT_DONE


def cmd_bench_ops(args):
    from .bench_ops import main

    return main(n=args.size, repeats=args.repeats)


def _positive(kind):
    """An argparse type: a positive, finite `kind` (argparse names the option in its error)."""
    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a positive {'integer' if kind is int else 'number'}, "
                                             f"got {text!r}") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    return convert


EPILOG_RUN = """exit status: {done} the run reached until; {input} refused before any work (bad configuration,
options or run directory); {stopped} stopped early by SIGINT, SIGTERM or a STOP file (the checkpoint
continues it: --restart); {blowup} the fields became NaN or Inf, or the time step fell below dtmin;
{error} an unexpected error.

{keys}"""


EPILOG_SWEEP = """Each member is the run of the file's keys with one combination of the [sweep] values;
the members run in waves of an ensemble (astaroth.Ensemble) to [output] until, and each
finished member's results are written to OUTPUT_DIR/members/ at once: the same command
after a stop or kill runs only the members not finished. The table of all members'
time series is OUTPUT_DIR/sweep.csv.

exit status: {done} every member reached until; {input} refused before any work (bad
configuration, options, or an output directory holding another sweep); {stopped} stopped by
SIGINT (the same command goes on); {blowup} the sweep finished, but some members' fields became
NaN or Inf, or their time step fell below [output] dtmin (named, and status "blew up" in the
table); {error} an unexpected error.

{keys}"""


def build_parser():
    from . import __version__, config as configuration

    parser = argparse.ArgumentParser(prog="astaroth", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"astaroth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run a simulation from a TOML file (default: forced turbulence, 64^3)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=EPILOG_RUN.format(done=EXIT_DONE, input=EXIT_INPUT, stopped=EXIT_STOPPED,
                                                blowup=EXIT_BLOWUP, error=EXIT_ERROR, keys=configuration.describe()))
    p.add_argument("config", nargs="?", help="TOML configuration (the keys are listed below)")
    again = p.add_mutually_exclusive_group()
    again.add_argument("--restart", action="store_true",
                       help="continue from OUTPUT_DIR/checkpoint.h5: run-time parameters may change, as in the "
                            "Pencil Code's run.in (until, cadences, progress, backend, cdt, cdtv, dt, the forcing's "
                            "f0, kmin, kmax and relhel, and the physics parameters marked 'may change on "
                            "--restart' below), each reported and recorded in the checkpoint's restart_history; "
                            "grid, box, dtype, method, the physics switches, their fixed parameters and the "
                            "forcing's kind (on or off, normalize, kdat) may not")
    again.add_argument("--overwrite", action="store_true",
                       help="start afresh in an output directory that holds a run, deleting its files")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--no-plot", action="store_true", help="no summary picture at the end")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("sweep", help="a run for every value of the keys a TOML file's [sweep] table lists",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=EPILOG_SWEEP.format(done=EXIT_DONE, input=EXIT_INPUT, stopped=EXIT_STOPPED,
                                                  blowup=EXIT_BLOWUP, error=EXIT_ERROR,
                                                  keys=configuration.describe_sweep()))
    p.add_argument("config", help="TOML configuration: the keys of astaroth run, and a [sweep] table")
    p.add_argument("--overwrite", action="store_true",
                   help="delete the results of an earlier sweep in the output directory and start afresh")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=cmd_sweep)
    p = sub.add_parser("plot", help="a PNG of mid-plane slices, the spectrum and the time series")
    p.add_argument("snapshot", help="an HDF5 snapshot or checkpoint, or a spectra.h5 (the spectra's time evolution)")
    p.add_argument("--timeseries", help="a time-series CSV to plot beside it")
    p.add_argument("-o", "--output", default=None, help="PNG path (default: SNAPSHOT with .png)")
    p.set_defaults(func=cmd_plot)
    p = sub.add_parser("bench", help="million grid-point updates per second per RK3 step")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"], help="auto (default), cpu or cuda")
    p.add_argument("--sizes", type=_positive(int), nargs="+",
                   help="grid sizes (default: 64 128 on the CPU, 128 256 512 on the GPU)")
    p.add_argument("--dtype", nargs="+", default=["float32", "float64"], choices=["float32", "float64"])
    p.add_argument("--methods", nargs="+", choices=["55p", "19p"], help="55p 19p (default both)")
    p.add_argument("--seconds", type=_positive(float), default=1.0, help="time spent per measurement (default 1)")
    p.add_argument("--physics", default="hydro", choices=["hydro", "mhd", "all"],
                   help="mhd: rows for magnetohydrodynamics (seven fields, the 55-point method; default sizes "
                        "32 64 on the CPU, 128 256 on the GPU); all: both, with --terms")
    p.add_argument("--walls", action="store_true",
                   help="rows with walls at both ends of z beside the periodic run (55p; default size 32 on the "
                        "CPU, 256 on the GPU)")
    p.add_argument("--energy", default="isothermal", choices=["isothermal", "entropy"],
                   help="entropy: rows for the energy equation (hydro+entropy 5 fields, MHD+entropy 8, with "
                        "--physics hydro, mhd or all) beside the isothermal run, timed interleaved (55p; default "
                        "size 32 on the CPU, 256 on the GPU)")
    p.add_argument("--terms", action="store_true",
                   help="rows for hyperdiffusion and shock viscosity beside the same run without them (55p; "
                        "default size 32 on the CPU, 256 on the GPU)")
    p.add_argument("--sweeps", action="store_true",
                   help="parameter-sweep rows instead: sim.run of one simulation at --sizes (default 32 64 128 "
                        "256), an Ensemble of 64 at 32^3 and of 16 at 64^3 (or the nearest smaller --sizes) beside "
                        "a loop over the same members "
                        "(the first --dtype and --methods; e.g. --dtype float32 --methods 55p); with --physics all, "
                        "the largest size's run and the ensembles of hydro, MHD, hydro+entropy and MHD+entropy, "
                        "each forced and not")
    p.set_defaults(func=cmd_bench)
    q = p.add_subparsers(dest="bench_target", title="other benchmarks", metavar="ops").add_parser(
        "ops", help="GB/s of the astaroth.ops first-derivative kernels on the GPU (x, y, z) against a device copy")
    q.add_argument("--size", type=_positive(int), default=256,
                   help="points per axis of the float32 test array (default 256)")
    q.add_argument("--repeats", type=_positive(int), default=50, help="launches timed per kernel (default 50)")
    q.set_defaults(func=cmd_bench_ops)
    return parser


def main(argv=None):
    """The command line; returns the exit status (EXIT_*)."""
    from .simulation import NonFiniteError, TimeStepTooShortError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except NonFiniteError as e:
        print(f"astaroth: the run blew up: {e}", file=sys.stderr)
        return EXIT_BLOWUP
    except TimeStepTooShortError as e:
        print(f"astaroth: the run stopped (dtmin): {e}", file=sys.stderr)
        return EXIT_BLOWUP
    except (ValueError, TypeError, KeyError, OSError, MemoryError) as e:
        print(f"astaroth: error: {e}", file=sys.stderr)
        return EXIT_INPUT
