"""Where a split shock-viscosity run's CFL step spends its time on the host
(rank 0): the signal speed's reduction, the shock profile's passes and its
maximum (shock_max), the allreduce, and the step taking that profile;
against a fixed-dt step that makes its own profile.  Weak scaling's grid
(n^3 a rank, split along z), hydro with nu_shock = 1.

    mpirun -np N python3 shock_step_parts.py [n=256] [dtype=float32]
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
sim = ac.Simulation(shape=(n, n, n * comm.Get_size()), nu=5e-3, dtype=dtype, backend="cuda", comm=comm,
                    nu_shock=1.0)
sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.cos(sim.z)[None, None, :]
grid, d, stepper = sim._grid, sim._parallel, sim._stepper
keys = ("speed", "profile", "zeta max", "allreduce", "step")
parts = dict.fromkeys(keys, 0.0)
steps = 20


def now():
    cupy.cuda.runtime.deviceSynchronize()
    return time.perf_counter()


for k in range(steps + 3):
    if k == 3:
        parts = dict.fromkeys(keys, 0.0)
    t0 = now()
    speed = grid.signal_speed(False)
    t1 = now()
    stepper.shock_profile()
    t2 = now()
    (i, j, kk), (n0, n1, n2) = stepper.lo, d.local_shape
    zeta = stepper.shock_halo.fields[0][0][kk:kk + n2, j:j + n1, i:i + n0]
    largest = float(np.max(zeta)) if np.all(np.isfinite(zeta)) else math.nan
    t3 = now()
    speed, largest = d.allreduce((float(speed), float(largest)), d.MPI.MAX)
    dt, _ = grid.cfl_dt(speed, largest, 0.4, 0.3)
    t4 = now()
    sim._advance(dt, profile_current=True)
    t5 = now()
    for key, a, b in zip(keys, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
        parts[key] += b - a


def timed(fn, count):
    comm.Barrier()
    start = now()
    for _ in range(count):
        fn()
    end = now()
    comm.Barrier()
    return (end - start) / count


fixed = timed(lambda: sim._advance(dt), steps)
through_cfl = timed(lambda: sim._advance(sim.cfl_dt(), profile_current=True), steps)
if comm.Get_rank() == 0:
    print(f"shock step parts, {comm.Get_size()} ranks, {n}^3 a rank {dtype}, dims {d.dims}, "
          f"zeta {type(zeta).__module__}.{type(zeta).__name__}, us a step: "
          + ", ".join(f"{k} {v / steps * 1e6:.1f}" for k, v in parts.items())
          + f"; fixed-dt step {fixed * 1e6:.0f}, cfl_dt + step {through_cfl * 1e6:.0f}", flush=True)
