"""The `astaroth` command (also `python -m astaroth`).

    astaroth run      a sine-wave decay on the default backend, checked against
                      the exact solution (seed Sect. 6, eq. 22)
    astaroth bench    million grid-point updates per second (DESIGN 4)
"""
import argparse
import math
import sys
import time

import numpy as np


def _common(p):
    p.add_argument("--backend", default="auto", help="auto (default), cpu or cuda")
    p.add_argument("--method", default="55p", choices=["55p", "19p"])


def cmd_run(args):
    from .simulation import Simulation

    n = args.size
    sim = Simulation(shape=(n, n, n), box=2 * math.pi, nu=args.nu, cs=1.0, dtype=args.dtype,
                     backend=args.backend, method=args.method)
    k, u0 = 13, 1e-3  # seed Sect. 6: k = 13, decay to t = 1.5
    sim["uy"] = u0 * np.sin(k * sim.x)[:, None, None]
    print(f"astaroth: sine-wave decay, u_y = {u0} sin({k} x), {n}^3 grid, nu = {args.nu}, "
          f"{sim.dtype.name}, method {sim.method}, backend {sim.backend}")
    start = time.perf_counter()
    report_at = args.until / 5
    while sim.t < args.until:
        sim.run(until=min(args.until, sim.t + report_at))
        elapsed = time.perf_counter() - start
        print(f"  step {sim.steps:5d}  t = {sim.t:6.3f} of {args.until}  "
              f"{sim.steps * n ** 3 / max(elapsed, 1e-9) / 1e6:8.1f} M updates/s", flush=True)
    exact = u0 * math.exp(-args.nu * k * k * sim.t) * np.sin(k * sim.x)[:, None, None]
    error = np.sqrt(np.mean((sim["uy"] - exact) ** 2))
    amplitude = np.sqrt(2 * np.mean(sim["uy"] ** 2))
    print(f"amplitude {amplitude:.6e}, exact {u0 * math.exp(-args.nu * k * k * sim.t):.6e}; "
          f"rms error {error:.3e} ({error / (u0 * math.exp(-args.nu * k * k * sim.t) / math.sqrt(2)):.2e} relative)")
    return 0


def cmd_bench(args):
    from .bench import run_bench
    from .simulation import backends

    backend = args.backend
    if backend == "auto":
        backend = "cuda" if "cuda" in backends() else "cpu"
    sizes = tuple(args.sizes) if args.sizes else ((64, 128) if backend == "cpu" else (128, 256, 512))
    run_bench(backend=backend, sizes=sizes, dtypes=tuple(args.dtype), methods=tuple(args.methods),
              target_seconds=args.seconds)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="astaroth", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run a sine-wave decay and compare with the exact solution")
    _common(p)
    p.add_argument("--size", type=int, default=64, help="points per axis (default 64)")
    p.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    p.add_argument("--nu", type=float, default=5e-3, help="viscosity (default 5e-3)")
    p.add_argument("--until", type=float, default=1.5, help="end time (default 1.5)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("bench", help="million grid-point updates per second per RK3 step")
    p.add_argument("--backend", default="auto", help="auto (default), cpu or cuda")
    p.add_argument("--sizes", type=int, nargs="+", help="grid sizes (default: 64 128 on the CPU, 128 256 512 on the GPU)")
    p.add_argument("--dtype", nargs="+", default=["float32", "float64"], choices=["float32", "float64"])
    p.add_argument("--methods", nargs="+", default=["55p", "19p"], choices=["55p", "19p"])
    p.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement (default 1)")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, KeyError) as e:
        print(f"astaroth: error: {e}", file=sys.stderr)
        return 2
