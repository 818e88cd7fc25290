"""The convection notebook's layer (notebooks/convection.ipynb) at full size:
a conductive, superadiabatic layer of ideal gas between walls in z under
gravity (astaroth.stability.conv_slab, after the Pencil Code's conv-slab
sample), seeded with its most unstable mode; the kinetic energy grows at the
rate of the linear stability analysis (astaroth.stability.Layer, a Chebyshev
eigenvalue problem) and saturates.

Writes into OUT_DIR: convection.log (device, date, commit, command, the
measured growth rate against linear theory) and convection.png (the
kinetic energy against time with the linear growth, and uz at the end).

    python scripts/convection_gpu.py OUT_DIR                       # 128 x 128 x 64 on the GPU
    python scripts/convection_gpu.py OUT_DIR --shape 16 16 8 --backend cpu --until 20   # a check
"""
import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
import time

import numpy as np

import astaroth as ac
from astaroth import stability


def device_name(backend):
    """The GPU's name from nvidia-smi on the CUDA backend, else the CPU's."""
    if backend == "cuda":
        try:
            names = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                   text=True, timeout=30).stdout.strip().splitlines()
            if names:
                return names[0]
        except (OSError, subprocess.SubprocessError):
            pass
        return "a CUDA GPU (nvidia-smi not found)"
    return f"CPU {platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def commit():
    """$COMMIT where set (a tree copied without its git history, as on the
    device machine), else the repository's commit (and '+changes' if the
    work tree differs), or 'unknown'."""
    if os.environ.get("COMMIT"):
        return os.environ["COMMIT"]
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return (head + ("+changes" if dirty else "")) if head else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="directory for convection.log and convection.png (created)")
    ap.add_argument("--shape", type=int, nargs=3, default=(128, 128, 64), metavar=("NX", "NY", "NZ"),
                    help="grid points (default 128 128 64; z is the wall axis)")
    ap.add_argument("--backend", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--until", type=float, default=80.0, help="end time (default 80: growth and saturation)")
    ap.add_argument("--samples", type=float, default=0.5, help="time between kinetic-energy samples (default 0.5)")
    ap.add_argument("--amplitude", type=float, default=1e-5, help="the seed mode's largest speed (default 1e-5)")
    args = ap.parse_args(argv)
    if args.backend == "cuda" and "cuda" not in ac.backends():
        ap.error("--backend cuda: no usable GPU here (ac.backends() = %s); use --backend cpu" % (ac.backends(),))
    if args.until <= 0 or args.samples <= 0:
        ap.error("--until and --samples must be positive")
    os.makedirs(args.out, exist_ok=True)

    start = time.time()
    sim, layer, k, rate = stability.conv_slab(shape=tuple(args.shape), backend=args.backend, dtype=args.dtype,
                                              amplitude=args.amplitude)
    t, ekin = [sim.t], [ac.analysis.energy_budget(sim)["kinetic"]]
    while sim.t < args.until * (1 - 1e-12):
        sim.run(until=min(args.until, sim.t + args.samples))
        t.append(sim.t)
        ekin.append(ac.analysis.energy_budget(sim)["kinetic"])
    seconds = time.time() - start
    t, ekin = np.array(t), np.array(ekin)
    measured = stability.growth_rate(t, ekin)
    saturated = ekin.argmax() < len(ekin) - 1
    lines = [
        "# astaroth convection run (scripts/convection_gpu.py; notebooks/convection.ipynb at full size)",
        f"device: {device_name(args.backend)}",
        f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"commit: {commit()}",
        f"command: {shlex.join([sys.executable, *sys.argv])}",
        f"astaroth {ac.__version__}, backend {args.backend}, dtype {args.dtype}, shape {tuple(args.shape)}, "
        f"box {tuple(round(b, 6) for b in sim.box)}",
        f"layer: nu = chi = {sim.nu}, gravity {tuple(sim.gravity)}, walls {sim.boundaries['z']}",
        f"linear theory (Chebyshev, {len(layer.z)} points): most unstable k = {k:.6f}, growth rate {rate:.6f}, "
        f"Ra(mid) = {layer.rayleigh_number():.4g}",
        f"measured growth rate (kinetic energy / 2, linear phase): {measured:.6f} "
        f"(relative difference {measured / rate - 1:+.2e})",
        f"kinetic energy: start {ekin[0]:.3e}, largest {ekin.max():.3e} at t = {t[ekin.argmax()]:.1f} "
        f"({'saturated' if saturated else 'still growing at the end'}), end {ekin[-1]:.3e}",
        f"{sim.steps} steps to t = {sim.t:g} in {seconds:.1f} s",
    ]
    with open(os.path.join(args.out, "convection.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    a.semilogy(t, ekin, "k-", label="astaroth")
    a.semilogy(t, ekin[0] * np.exp(2 * rate * t), "r--", label=f"linear theory, 2 x {rate:.4f}")
    a.set_ylim(ekin.min() / 3, ekin.max() * 3)
    a.set_xlabel("t")
    a.set_ylabel(r"$\langle \rho u^2 / 2 \rangle$")
    a.legend()
    a.set_title(f"{args.shape[0]}x{args.shape[1]}x{args.shape[2]}, {args.backend}: measured {measured:.4f}")
    uz = sim["uz"][:, args.shape[1] // 2, :]
    image = b.imshow(uz.T, origin="lower", extent=(0, sim.box[0], 0, sim.box[2]), cmap="RdBu_r", aspect="equal")
    fig.colorbar(image, ax=b, label="uz")
    b.set_xlabel("x")
    b.set_ylabel("z")
    b.set_title(f"uz at t = {sim.t:g}, y = {sim.y[args.shape[1] // 2]:.3g}")
    fig.savefig(os.path.join(args.out, "convection.png"), dpi=110, bbox_inches="tight")
    print("wrote", os.path.join(args.out, "convection.log"), "and convection.png")


if __name__ == "__main__":
    main()
