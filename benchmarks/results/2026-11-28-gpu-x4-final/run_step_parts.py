"""Where a split run's CFL step spends its time on the host (rank 0): the
wait for the step before, the signal speed's reduction on the GPU, its
allreduce over the ranks, the rest of cfl_dt, and queueing the step's
three substeps; against the step of a fixed dt.  Weak scaling's grid (n^3
a rank, split along z), hydro.

    mpirun -np N python3 run_step_parts.py [n=256] [dtype=float32]
"""
import math
import sys
import time

import cupy
import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
sim = ac.Simulation(shape=(n, n, n * comm.Get_size()), nu=5e-3, dtype=dtype, backend="cuda", comm=comm)
sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.cos(sim.z)[None, None, :]
grid, d = sim._grid, sim._parallel
parts = {k: 0.0 for k in ("wait", "reduce", "allreduce", "cfl rest", "queue step")}
steps = 30
for k in range(steps + 5):
    if k == 5:
        parts = dict.fromkeys(parts, 0.0)
    t0 = time.perf_counter()
    cupy.cuda.runtime.deviceSynchronize()
    t1 = time.perf_counter()
    speed = grid.signal_speed(False)
    t2 = time.perf_counter()
    speed = d.allreduce(speed if math.isfinite(speed) else math.inf, d.MPI.MAX)
    t3 = time.perf_counter()
    dt, _ = grid.cfl_dt(speed, sim._max_shock_viscosity(), 0.4, 0.3)
    t4 = time.perf_counter()
    sim._advance(dt, profile_current=True)
    t5 = time.perf_counter()
    for key, a, b in (("wait", t0, t1), ("reduce", t1, t2), ("allreduce", t2, t3), ("cfl rest", t3, t4),
                      ("queue step", t4, t5)):
        parts[key] += b - a
cupy.cuda.runtime.deviceSynchronize()


def timed(fn, count):
    comm.Barrier()
    cupy.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    for _ in range(count):
        fn()
    cupy.cuda.runtime.deviceSynchronize()
    comm.Barrier()
    return (time.perf_counter() - start) / count


fixed = timed(lambda: sim._advance(dt), steps)
through_cfl = timed(lambda: sim._advance(sim.cfl_dt(), profile_current=True), steps)
if comm.Get_rank() == 0:
    print(f"run step parts, {comm.Get_size()} ranks, {n}^3 a rank {dtype}, dims {d.dims}, us a step: "
          + ", ".join(f"{k} {v / steps * 1e6:.1f}" for k, v in parts.items())
          + f"; fixed-dt step {fixed * 1e6:.0f}, cfl_dt + step {through_cfl * 1e6:.0f}", flush=True)
