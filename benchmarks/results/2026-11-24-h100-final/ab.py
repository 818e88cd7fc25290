"""Interleaved timing of several astaroth builds on one GPU.

  python ab.py ROUNDS TREE_A TREE_B [TREE_C ...]

Each tree gets a worker process (its own build first on sys.path) that makes
the steppers of one group of rows at a time with that tree's
astaroth.bench.backend_stepper -- the rows of `astaroth bench --terms
--physics all` at 256^3 (hydro and MHD, float32 and float64; no terms,
hyper3, shock; the 'none' rows are the plain hydro and MHD 55p benches) and
the plain hydro 19p rows -- and times batches of steps as
astaroth.bench._Timing does.  Per group, the driver runs ROUNDS rounds; in
each, one batch of every row in every tree, the trees' order rotating from
round to round.  Reported: each row's fastest batch (M/s) per tree and its
ratio to tree A.
"""
import gc
import json
import os
import subprocess
import sys

TERMS = (("none", {}), ("hyper3", dict(nu_hyper3=1e-10, diff_hyper3=1e-10)), ("shock", dict(nu_shock=1.0)))
GROUPS = [[dict(phys=p, dtype=d, terms=n, method="55p", params=q) for n, q in TERMS]
          for p in ("hydro", "mhd") for d in ("float32", "float64")]
GROUPS.append([dict(phys="hydro", dtype=d, terms="none", method="19p", params={}) for d in ("float32", "float64")])
N = int(os.environ.get("AB_N", "256"))
BACKEND = os.environ.get("AB_BACKEND", "cuda")


def worker():
    import astaroth
    from astaroth.bench import _Timing, backend_stepper

    print(json.dumps({"ready": astaroth.__file__}), flush=True)
    steppers, timings = [], []
    for line in sys.stdin:
        cmd = line.split()
        if cmd[0] == "group":
            steppers, timings = [], []
            gc.collect()
            for r in GROUPS[int(cmd[1])]:
                st = backend_stepper(BACKEND, r["method"], r["dtype"], N, physics=r["phys"], **r["params"])
                steppers.append(st)
                timings.append(_Timing(st.step, 1.0, st.synchronize))
            print("ok", flush=True)
        elif cmd[0] == "batch":
            timings[int(cmd[1])].batch()
            print("ok", flush=True)
        elif cmd[0] == "report":
            for st in steppers:
                st.finish()
            print(json.dumps([st.mps(t.best) for st, t in zip(steppers, timings)]), flush=True)
        elif cmd[0] == "quit":
            return


def expect(p, prefix):
    """The worker's next line starting with prefix (others, e.g. warnings, passed on)."""
    while True:
        line = p.stdout.readline()
        if not line:
            raise RuntimeError("worker ended")
        if line.startswith(prefix):
            return line.strip()
        print("# worker:", line.rstrip(), flush=True)


def send(p, text):
    p.stdin.write(text + "\n")
    p.stdin.flush()


def main():
    rounds, trees = int(sys.argv[1]), sys.argv[2:]
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker"], cwd=t,
                              env=dict(os.environ, PYTHONPATH=t), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True) for t in trees]
    names = "ABCDEFGH"
    for n, t, p in zip(names, trees, procs):
        print(f"# {n} = {t}: {expect(p, '{')}", flush=True)
    print(f"# per group of rows, {rounds} rounds of one batch per row and tree (order of trees rotating); "
          "M/s = million points per full RK3 step, the fastest batch", flush=True)
    print(f"{'physics':>8}{'method':>7}{'dtype':>9}{'size':>7}{'terms':>8}"
          + "".join(f"{n + ' M/s':>10}" for n in names[:len(trees)])
          + "".join(f"{n + '/A':>8}" for n in names[1:len(trees)]), flush=True)
    for g, rows in enumerate(GROUPS):
        for p in procs:  # the trees make their steppers at the same time
            send(p, f"group {g}")
        for p in procs:
            expect(p, "ok")
        for rnd in range(rounds):
            order = [(w + rnd) % len(procs) for w in range(len(procs))]
            for i in range(len(rows)):
                for w in order:
                    send(procs[w], f"batch {i}")
                    expect(procs[w], "ok")
        res = []
        for p in procs:
            send(p, "report")
            res.append(json.loads(expect(p, "[")))
        for i, r in enumerate(rows):
            v = [x[i] for x in res]
            print(f"{r['phys']:>8}{r['method']:>7}{r['dtype']:>9}{str(N) + '^3':>7}{r['terms']:>8}"
                  + "".join(f"{x:>10.1f}" for x in v) + "".join(f"{x / v[0]:>8.3f}" for x in v[1:]), flush=True)
    for p in procs:
        send(p, "quit")
        p.wait()


if __name__ == "__main__":
    worker() if sys.argv[1:2] == ["worker"] else main()
