"""A performance model of astaroth's runs split over many GPUs
(docs/performance/scaling.md): weak and strong scaling efficiency from the
measured single-GPU step time and the bandwidths of the links the ghost
zones cross, for clusters of 4-GPU nodes.

    python3 scripts/scaling_model.py [--figure docs/figures/scaling_model.png]

Each substep sends every message at once (astaroth/halo_messages.py) and
updates the inner part of a subdomain while they travel, then the shell.
Within a node (CUDA IPC) the copy engine moves each message from field to
field and the shell's slabs run beside the inner part's end; between nodes
the messages are packed and unpacked (one launch each) and the shell runs
after the inner part.  So a step takes

    3 * (max(inner, exchange) + C + [within a node: shell; across nodes: faces / PACK + SLAB * shell]),

inner and shell the update time of their points (TAU per point and
substep, from the measured single-GPU rate; a slab 3 planes thick runs SLAB
times slower a point), exchange the time to send GHOST layers of every
field to every neighbour (all at once, over NVLink within a node or the
network between nodes, the slower link setting the pace) plus a latency,
C what is left unhidden within a node (fitted to the 2-GPU points), and
faces / PACK the packing and unpacking (measured on one H200).  The grid is
split as astaroth.parallel.split_dims splits it, ranks filling nodes in
order.
"""
import argparse
import math

from astaroth.parallel import split_dims

GHOST = 3
FIELDS, BYTES = 4, 4  # hydro, float32 (MHD+entropy: 8 fields, the same bytes per point of update)
# one H100 runs a 256^3 float32 hydro step at 11,700 M updates/s through sim.run
# (benchmarks/results/2026-11-27-h100-device-loop/sweep-rates.log)
TAU = 1 / 11.7e9 / 3  # seconds per point and substep
# measured on 2 x H200 (benchmarks/results/2026-11-28-gpu-x4-messages/, run 5): weak 256^3 1.35 -> 1.35 ms a
# step, strong 512^3 10.45 -> 5.25 ms (5.225 if nothing were lost): about 8 us a substep unhidden
C = 8e-6  # seconds a substep
# the same results' phases (tree W): packing and unpacking 3.3 MB of faces each way took 13.7 + 13.3 us, and a
# shell slab of 3 planes of 256^2 took 16.4 us, 2.9 times its points' share of the inner part's time
PACK = 245e9  # bytes/s packed and unpacked
SLAB = 2.9
GPUS_PER_NODE = 4
NVLINK = 150e9  # bytes/s a GPU sends to one neighbour over NVLink through CUDA IPC (assumed, H100/H200 SXM)
NETWORK = 45e9  # bytes/s a GPU sends across nodes (one 400 Gb/s NIC per GPU at 90 %, assumed)
LATENCY = 10e-6  # seconds a round of messages costs besides its bytes (MPI, GPU synchronisation; assumed)


def step_time(global_shape, gpus):
    """Seconds per RK3 step of `global_shape` on `gpus` GPUs, by the model above."""
    dims = split_dims(gpus, global_shape)
    local = [n // d for n, d in zip(global_shape, dims)]
    points = math.prod(local)
    split = [a for a in range(3) if dims[a] > 1]
    if not split:
        return 3 * points * TAU
    inner = math.prod(n - 2 * GHOST if a in split else n for a, n in enumerate(local))
    shell = points - inner
    # ranks numbered x fastest: neighbours along x are 1 apart, along y dims[0], along z dims[0] dims[1]
    stride = {0: 1, 1: dims[0], 2: dims[0] * dims[1]}
    on_node = off_node = 0.0  # bytes sent each way
    for a in split:
        faces = 2 * GHOST * points // local[a] * FIELDS * BYTES  # both faces of this axis
        across_nodes = stride[a] >= GPUS_PER_NODE or gpus > GPUS_PER_NODE and stride[a] * dims[a] > GPUS_PER_NODE
        if across_nodes:
            off_node += faces
        else:
            on_node += faces
    exchange = LATENCY + max(on_node / NVLINK, off_node / NETWORK)
    # within a node the shell shares the GPU with the inner part's end; between nodes it runs after it
    exposed = C + (off_node / PACK + SLAB * shell * TAU if off_node else shell * TAU)
    return 3 * (max(inner * TAU, exchange) + exposed)


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
        # benchmarks/results/2026-11-28-gpu-x4-messages (run 5) and 2026-11-28-gpu-x4-final (run 1)
        ax.plot([2, 2, 2, 4, 4, 4], [1.00, 0.995, 1.02, 1.00, 0.95, 1.00], "k*", ms=10,
                label="measured, 2 and 4 × H200 (weak; strong 512³, 1024³)")
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
