"""The `astaroth` command (also `python -m astaroth`).

    astaroth run [CONFIG.toml]   a run from a TOML file (default: forced
                                 turbulence at 64^3 on the default backend)
    astaroth plot SNAPSHOT       slices, spectrum and time series as a PNG
    astaroth bench               million grid-point updates per second
    astaroth bench ops           GB/s of the GPU derivative kernels of
                                 astaroth.ops against a device copy
"""
import argparse
import math
import sys


def build_simulation(config):
    """A Simulation set up as `config` (astaroth.config) says."""
    from . import init
    from .forcing import Forcing
    from .simulation import Simulation

    g, ph, nm, ic, fo = (config[k] for k in ("grid", "physics", "numerics", "initial", "forcing"))
    sim = Simulation(shape=tuple(g["shape"]), box=tuple(g["box"]), origin=tuple(g["origin"]), nu=ph["nu"],
                     cs=ph["cs"], dtype=nm["dtype"], backend=nm["backend"], method=nm["method"])
    if ic["kind"] == "sine_wave":
        init.sine_wave(sim, field=ic["field"], amplitude=ic["amplitude"], k=ic["k"])
    elif ic["kind"] == "radial_explosion":
        init.radial_explosion(sim, amplitude=ic["amplitude"], r0=ic["r0"], width=ic["width"])
    elif ic["kind"] == "random_velocity":
        init.random_velocity(sim, urms=ic["urms"], spectrum=lambda k: k ** ic["slope"], seed=ic["seed"])
    if fo["enabled"]:
        sim.forcing = Forcing(kmin=fo["kmin"], kmax=fo["kmax"], f0=fo["f0"], seed=fo["seed"])
    return sim


def cmd_run(args):
    import os

    from . import analysis, config as configuration
    from .io import load

    config = configuration.load(args.config) if args.config else configuration.default()
    out = config["output"]
    os.makedirs(out["dir"], exist_ok=True)
    checkpoint = os.path.join(out["dir"], "checkpoint.h5")
    if args.restart:
        sim = load(checkpoint, backend=config["numerics"]["backend"])
        print(f"astaroth: restarting from {checkpoint} at step {sim.steps}, t = {sim.t:g}")
    else:
        sim = build_simulation(config)
    try:
        import h5py  # noqa: F401
        can_save = True
    except ImportError:
        can_save = False
        print("astaroth: h5py not installed: no snapshots or checkpoints (pip install h5py)", file=sys.stderr)
    print(f"astaroth: {config['initial']['kind']} start, {'forced' if sim.forcing else 'unforced'}, "
          f"{'x'.join(map(str, sim.shape))} grid, nu = {sim.nu:g}, {sim.dtype.name}, method {sim.method}, "
          f"backend {sim.backend}, until t = {out['until']:g}; output in {out['dir']}/")
    stopped = []

    def on_stop(s):
        stopped.append(True)
        if can_save:
            s.save(checkpoint)
        print(f"\nastaroth: stopped at step {s.steps}, t = {s.t:g}" + (f"; checkpoint {checkpoint}" if can_save else ""))

    t_start = sim.t
    while sim.t < out["until"] and not stopped:
        # segment ends at multiples of snapshot_every, so a restarted run takes the same steps
        every = out["snapshot_every"]
        target = min(out["until"], (math.floor(sim.t / every * (1 + 1e-12)) + 1) * every)
        sim.run(until=target, cdt=config["numerics"]["cdt"], cdtv=config["numerics"]["cdtv"],
                timeseries=os.path.join(out["dir"], "timeseries.csv"), diagnostics_every=out["timeseries_every"],
                progress=out["progress"] and not args.quiet, stop_file=os.path.join(out["dir"], "STOP"),
                handle_signals=True, on_stop=on_stop)
        if can_save and not stopped:
            sim.save(os.path.join(out["dir"], f"snapshot_{sim.steps:07d}.h5"))
            sim.save(checkpoint, xdmf=False)
    k, E = analysis.spectrum(sim)
    urms = analysis.rms(sim, "u")
    print(f"t = {sim.t:g} after {sim.steps} steps: urms = {urms:.4g}, spectrum peak at k = {k[1:][E[1:].argmax()]:g}")
    if sim.forcing is not None and t_start == 0:
        rate = 0.25 * sim.forcing.f0 ** 2 * sim.cs ** 3 * sim.forcing.mean_k
        print(f"kinetic energy <u^2>/2 = {0.5 * urms ** 2:.4g}; forcing injects {rate:.3g} per unit time "
              f"(so at most {rate * sim.t:.4g} by now, less what viscosity took)")
    if can_save and not args.no_plot:
        from .plot import summary

        path = summary(checkpoint, os.path.join(out["dir"], "timeseries.csv"), os.path.join(out["dir"], "summary.png"))
        if path:
            print(f"picture: {path}")
    return 0


def cmd_plot(args):
    from .plot import summary

    path = summary(args.snapshot, args.timeseries, args.output)
    if not path:
        print("astaroth: plotting needs matplotlib (pip install matplotlib)", file=sys.stderr)
        return 1
    print(path)
    return 0


def cmd_bench(args):
    from .bench import run_bench
    from .simulation import default_backend

    backend = default_backend() if args.backend == "auto" else args.backend
    sizes = tuple(args.sizes) if args.sizes else ((64, 128) if backend == "cpu" else (128, 256, 512))
    run_bench(backend=backend, sizes=sizes, dtypes=tuple(args.dtype), methods=tuple(args.methods),
              target_seconds=args.seconds)
    return 0


def cmd_bench_ops(args):
    from .bench_ops import main

    return main(n=args.size, repeats=args.repeats)


def build_parser():
    parser = argparse.ArgumentParser(prog="astaroth", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run a simulation from a TOML file (default: forced turbulence, 64^3)")
    p.add_argument("config", nargs="?", help="TOML configuration (see astaroth/config.py for the keys)")
    p.add_argument("--restart", action="store_true", help="continue from OUTPUT_DIR/checkpoint.h5")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument("--no-plot", action="store_true", help="no summary picture at the end")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("plot", help="a PNG of mid-plane slices, the spectrum and the time series")
    p.add_argument("snapshot", help="an HDF5 snapshot or checkpoint")
    p.add_argument("--timeseries", help="a time-series CSV to plot beside it")
    p.add_argument("-o", "--output", default=None, help="PNG path (default: SNAPSHOT with .png)")
    p.set_defaults(func=cmd_plot)
    p = sub.add_parser("bench", help="million grid-point updates per second per RK3 step")
    p.add_argument("--backend", default="auto", help="auto (default), cpu or cuda")
    p.add_argument("--sizes", type=int, nargs="+", help="grid sizes (default: 64 128 on the CPU, 128 256 512 on the GPU)")
    p.add_argument("--dtype", nargs="+", default=["float32", "float64"], choices=["float32", "float64"])
    p.add_argument("--methods", nargs="+", default=["55p", "19p"], choices=["55p", "19p"])
    p.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement (default 1)")
    p.set_defaults(func=cmd_bench)
    q = p.add_subparsers(dest="bench_target", title="other benchmarks", metavar="ops").add_parser(
        "ops", help="GB/s of the astaroth.ops first-derivative kernels on the GPU (x, y, z) against a device copy")
    q.add_argument("--size", type=int, default=256, help="points per axis of the float32 test array (default 256)")
    q.add_argument("--repeats", type=int, default=50, help="launches timed per kernel (default 50)")
    q.set_defaults(func=cmd_bench_ops)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, KeyError, OSError) as e:
        print(f"astaroth: error: {e}", file=sys.stderr)
        return 2
