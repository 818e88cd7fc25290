"""A performance model of astaroth's runs split over many GPUs
(docs/performance/scaling.md): weak and strong scaling efficiency from the
measured single-GPU step time and the bandwidths of the links the ghost
zones cross, for clusters of 4-GPU nodes.

    python3 scripts/scaling_model.py [--figure docs/figures/scaling_model.png]

Each substep updates the inner part of a subdomain while its faces travel,
then the rims (astaroth/parallel.py).  So a step takes

    3 * (max(inner, exchange) + rim + sum over split axes of (C + face / PACK)),

inner and rim the update time of their points (TAU per point and substep,
from the measured single-GPU rate), exchange the time to send GHOST layers of
every field across each split face (both directions at once) over NVLink
within a node or the network between nodes, plus a latency per message; C +
face / PACK is what the exchange costs that the update does not hide
(packing, unpacking, synchronisation), fitted to the two measured 2-GPU
points of docs/guide/parallel.md.  The grid is split as
astaroth.parallel.split_dims splits it, ranks filling nodes in order.
"""
import argparse
import math

from astaroth.parallel import split_dims

GHOST = 3
FIELDS, BYTES = 4, 4  # hydro, float32 (MHD+entropy: 8 fields, the same bytes per point of update)
# one H100 runs a 256^3 float32 hydro step at 11,700 M updates/s through sim.run
# (benchmarks/results/2026-11-27-h100-device-loop/sweep-rates.log)
TAU = 1 / 11.7e9 / 3  # seconds per point and substep
# not hidden, per split axis and substep, fitted to 2 x H200 (docs/guide/parallel.md, 2026-11-23-h200x2-4bdfb3f):
# weak 256^3 2.88 -> 2.95 ms (faces of 3.1 MB: 23 us), strong 512^3 21.63 -> 11.04 ms (12.6 MB: 75 us)
C = 5.6e-6  # seconds
PACK = 181e9  # bytes/s
GPUS_PER_NODE = 4
NVLINK = 150e9  # bytes/s a GPU sends to one neighbour over NVLink through CUDA IPC (assumed, H100/H200 SXM)
NETWORK = 45e9  # bytes/s a GPU sends across nodes (one 400 Gb/s NIC per GPU at 90 %, assumed)
LATENCY = 10e-6  # seconds a message costs besides its bytes (MPI, GPU synchronisation; assumed)


def step_time(global_shape, gpus):
    """Seconds per RK3 step of `global_shape` on `gpus` GPUs, by the model above."""
    dims = split_dims(gpus, global_shape)
    local = [n // d for n, d in zip(global_shape, dims)]
    points = math.prod(local)
    split = [a for a in range(3) if dims[a] > 1]
    inner = math.prod(n - 2 * GHOST if a in split else n for a, n in enumerate(local))
    rim = points - inner
    # ranks numbered x fastest: neighbours along x are 1 apart, along y dims[0], along z dims[0] dims[1]
    stride = {0: 1, 1: dims[0], 2: dims[0] * dims[1]}
    exchange = exposed = 0.0
    for a in split:
        face = GHOST * points // local[a] * FIELDS * BYTES
        across_nodes = stride[a] >= GPUS_PER_NODE or gpus > GPUS_PER_NODE and stride[a] * dims[a] > GPUS_PER_NODE
        exchange += LATENCY + face / (NETWORK if across_nodes else NVLINK)
        exposed += C + face / PACK
    return 3 * (max(inner * TAU, exchange) + rim * TAU + exposed)


def weak(gpus, n=256):
    """Efficiency with n^3 points a GPU (the grid grows along z, then y, then x, as the GPUs do)."""
    dims = split_dims(gpus, (n * gpus,) * 3)  # the shape the GPUs take, to grow the grid by
    shape = tuple(n * d for d in dims)
    return step_time((n,) * 3, 1) / step_time(shape, gpus)


def strong(gpus, n):
    """Efficiency of one n^3 grid."""
    return step_time((n,) * 3, 1) / (gpus * step_time((n,) * 3, gpus))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figure", help="write the efficiencies against the GPU count to this PNG")
    args = parser.parse_args()
    counts = [1, 2, 4, 8, 64, 512, 4096]
    print(f"{'GPUs':>6}{'weak 256^3/GPU':>16}{'strong 512^3':>14}{'strong 1024^3':>15}{'strong 2048^3':>15}")
    for g in counts:
        print(f"{g:>6}{weak(g):>16.3f}" + "".join(f"{strong(g, n):>14.3f}" if g <= (n // 8) ** 3 else f"{'-':>14}"
                                                    for n in (512, 1024, 2048)))
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.6))
        many = [2 ** k for k in range(0, 13)]
        ax.plot(many, [weak(g) for g in many], "o-", label="weak, 256³ a GPU")
        for n in (512, 1024, 2048):
            gs = [g for g in many if g <= (n // 8) ** 3]
            ax.plot(gs, [strong(g, n) for g in gs], "s--", label=f"strong, {n}³")
        ax.plot([2, 2], [0.976, 0.980], "k*", ms=10, label="measured, 2 × H200 (weak; strong 512³)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs (4 a node)")
        ax.set_ylabel("efficiency")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.figure, dpi=130)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
