"""Per-step cost of each physics on the CPU relative to plain hydro, old
against new build, one thread (OMP_NUM_THREADS=1), interleaved rounds.

    python bench_rows.py --trees OLD_TREE NEW_TREE [--rounds 3] [--size 40]

Each tree is a source checkout with its extension built in place.  A round
runs every tree, every dtype, in a fresh process (the trees' modules cannot
share one); in a process the configurations are timed interleaved, each the
fastest of BATCHES batches of whole RK3 steps (sim._grid.step, as `astaroth
bench` times them: no stability check or NaN scan between steps).  Reported: the median
over rounds of the seconds per step, per point, and the ratio to plain
hydro of the same tree and dtype.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CONFIGS = {
    "hydro": {},
    "mhd": dict(physics="mhd", eta=0.01, b_ext=(0.0, 0.0, 0.1)),
    "hyper3": dict(nu_hyper3=1e-6, diff_hyper3=1e-6),
    "shock": dict(nu_shock=1.0),
    "hydro+entropy": dict(energy="entropy", chi=0.01),
    "mhd+entropy": dict(physics="mhd", eta=0.01, b_ext=(0.0, 0.0, 0.1), energy="entropy", chi=0.01),
}
BATCHES = 5


def worker(size, dtype, seconds):
    import numpy as np
    import astaroth as ac

    sims = {}
    for name, kw in CONFIGS.items():
        sim = ac.Simulation(shape=(size,) * 3, nu=0.01, cs=1.0, dtype=dtype, backend="cpu", **kw)
        x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
        sim["lnrho"] = 0.01 * np.sin(x + 2 * y) * np.cos(z)
        sim["ux"] = 0.1 * np.sin(y) * np.cos(2 * z)
        sim["uy"] = 0.1 * np.sin(z + x)
        sim["uz"] = 0.1 * np.cos(x) * np.sin(3 * y)
        if "ax" in sim.field_names:
            sim["ax"] = 0.05 * np.sin(2 * z)
            sim["ay"] = 0.05 * np.cos(x + z)
        sims[name] = sim
    dt = 0.2 * min(s.cfl_dt() for s in sims.values())
    counts, best = {}, {}
    for name, sim in sims.items():
        sim._grid.step(dt, 1)  # warm-up
        t0 = time.perf_counter()
        sim._grid.step(dt, 1)
        once = time.perf_counter() - t0
        counts[name] = max(1, int(seconds / BATCHES / once))
        best[name] = float("inf")
    for _ in range(BATCHES):
        for name, sim in sims.items():
            t0 = time.perf_counter()
            for _ in range(counts[name]):
                sim._grid.step(dt, 1)
            best[name] = min(best[name], (time.perf_counter() - t0) / counts[name])
    print(json.dumps(best))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=40)
    ap.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    ap.add_argument("--seconds", type=float, default=3.0, help="per configuration and process")
    ap.add_argument("--worker", nargs=2, metavar=("DTYPE", "SIZE"))
    args = ap.parse_args()
    if args.worker:
        worker(int(args.worker[1]), args.worker[0], args.seconds)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = {}
    for r in range(args.rounds):
        for tree in args.trees:
            for dtype in args.dtypes:
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--trees", tree, "--seconds",
                                      str(args.seconds), "--worker", dtype, str(args.size)],
                                     env=dict(env, PYTHONPATH=tree), capture_output=True, text=True, check=True, cwd="/")
                runs.setdefault((tree, dtype), []).append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(f"round {r + 1} {tree} {dtype}: {runs[(tree, dtype)][-1]}", file=sys.stderr, flush=True)
    points = args.size ** 3
    print(f"{args.size}^3, one thread, median of {args.rounds} interleaved rounds (each the fastest of {BATCHES} batches)")
    print(f"{'tree':<24} {'dtype':<8} {'physics':<14} {'ms/step':>9} {'us/point':>9} {'/ hydro':>8}")
    for (tree, dtype), rows in runs.items():
        med = {name: statistics.median(row[name] for row in rows) for name in CONFIGS}
        for name in CONFIGS:
            print(f"{os.path.basename(tree.rstrip('/')):<24} {dtype:<8} {name:<14} {1e3 * med[name]:9.2f} "
                  f"{1e6 * med[name] / points:9.3f} {med[name] / med['hydro']:8.2f}")


if __name__ == "__main__":
    main()
