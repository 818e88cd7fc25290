"""Per-step cost of each physics on the CPU relative to plain hydro, old
against new build, interleaved rounds, at several sizes; one thread
(OMP_NUM_THREADS=1) or, with --threads default, the default OpenMP team.

    python bench_fused.py --trees OLD_TREE NEW_TREE [--rounds 3] [--sizes 40 64] [--threads 1|default]

The timing itself (a worker process per tree, dtype and size) is
../2026-11-24-cpu-rows/bench_rows.py's, with the passive scalar added to
its configurations.  Reported: the median over rounds of the seconds per
step, per point, and the ratio to plain hydro of the same tree, size and
dtype.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("bench_rows", os.path.join(HERE, "..", "2026-11-24-cpu-rows",
                                                                          "bench_rows.py"))
rows = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rows)
rows.CONFIGS["scalar"] = dict(passive_scalar=True, pscalar_diff=0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[40, 64])
    ap.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    ap.add_argument("--threads", default="1", help="OMP_NUM_THREADS, or 'default' for the default team")
    ap.add_argument("--seconds", type=float, default=1.5, help="per configuration and process")
    ap.add_argument("--worker", nargs=2, metavar=("DTYPE", "SIZE"))
    args = ap.parse_args()
    if args.worker:
        rows.worker(int(args.worker[1]), args.worker[0], args.seconds)
        return
    env = dict(os.environ)
    if args.threads == "default":
        env.pop("OMP_NUM_THREADS", None)
    else:
        env["OMP_NUM_THREADS"] = args.threads
    runs = {}
    for r in range(args.rounds):
        for size in args.sizes:
            for tree in args.trees:
                for dtype in args.dtypes:
                    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--trees", tree, "--seconds",
                                          str(args.seconds), "--worker", dtype, str(size)],
                                         env=dict(env, PYTHONPATH=tree), capture_output=True, text=True, check=True,
                                         cwd="/")
                    runs.setdefault((size, tree, dtype), []).append(json.loads(out.stdout.strip().splitlines()[-1]))
                    print(f"round {r + 1} {size}^3 {tree} {dtype}: {runs[(size, tree, dtype)][-1]}", file=sys.stderr,
                          flush=True)
    threads = "one thread" if args.threads == "1" else f"OMP_NUM_THREADS={args.threads}"
    print(f"{threads}, median of {args.rounds} interleaved rounds (each the fastest of {rows.BATCHES} batches)")
    print(f"{'size':<5} {'tree':<24} {'dtype':<8} {'physics':<14} {'ms/step':>9} {'us/point':>9} {'/ hydro':>8}")
    for (size, tree, dtype), got in runs.items():
        med = {name: statistics.median(row[name] for row in got) for name in rows.CONFIGS}
        for name in rows.CONFIGS:
            print(f"{size:<5} {os.path.basename(tree.rstrip('/')):<24} {dtype:<8} {name:<14} {1e3 * med[name]:9.2f} "
                  f"{1e6 * med[name] / size ** 3:9.3f} {med[name] / med['hydro']:8.2f}")


if __name__ == "__main__":
    main()
