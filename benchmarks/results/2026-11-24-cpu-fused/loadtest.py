"""sim.step at 64^3 float64 on the CPU, M/s over four 1.5-s batches, with the
default thread count or one thread (issue 25 item 6: a loaded 2-core machine
must keep at least half the one-thread rate).
usage: python loadtest.py PHYSICS THREADS   (THREADS 0: the default team)"""
import sys
import time

import numpy as np

import astaroth as ac

physics, threads = sys.argv[1], int(sys.argv[2])
if threads:
    ac._core.set_openmp_threads(threads)
kw = dict(physics="mhd", eta=5e-3, b_ext=(0.0, 0.0, 0.1)) if physics == "mhd" else {}
sim = ac.Simulation(shape=(64,) * 3, backend="cpu", nu=5e-3, **kw)
sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.ones(sim.shape)
sim.step(1e-3)
rates = []
for _ in range(4):
    t0, n = time.perf_counter(), 0
    while time.perf_counter() - t0 < 1.5:
        sim.step(1e-3)
        n += 1
    rates.append(64 ** 3 * n / (time.perf_counter() - t0) / 1e6)
print(physics, threads or "default", " ".join(f"{r:.1f}" for r in rates))
