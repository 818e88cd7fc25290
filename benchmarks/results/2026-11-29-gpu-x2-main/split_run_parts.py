"""Where sim.run's CFL steps of a split grid spend time beyond steps of a
fixed dt (rank 0 prints, ms a step): steps of a fixed dt sequenced from
Python (scripts/scaling.py's "step"); sim.run over about 10, 40 and 160 CFL
steps (the split steps in C, csrc/split/split_steps.c; scaling.py's "run"
takes 10); and the pieces of a CFL step's dt, each on its own: the
fields' exchange (MHD's signal speed reads A's neighbours), the signal
speed's reduction on the GPU, an allreduce over the ranks.  Weak
scaling's grid, n^3 a rank split along z.

    mpirun -np N python3 split_run_parts.py [n=256] [dtype=float32] [physics=hydro|entropy|mhd+entropy] [forced]

(entropy: hydro with the entropy equation; forced: with ac.Forcing.)
"""
import sys
import time

import cupy
import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
physics = sys.argv[3] if len(sys.argv) > 3 else "hydro"
modules = {"hydro": {}, "entropy": dict(energy="entropy", chi=5e-3),
           "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3)}[physics]
sim = ac.Simulation(shape=(n, n, n * comm.size), nu=5e-3, dtype=dtype, backend="cuda",
                    comm=comm if comm.size > 1 else None, **modules)
sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.cos(sim.z)[None, None, :]
forced = len(sys.argv) > 4 and sys.argv[4] == "forced"
if forced:
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1)
dt = sim.cfl_dt()
for _ in range(3):
    sim._advance(dt)


def barrier():
    cupy.cuda.runtime.deviceSynchronize()
    comm.Barrier()


def timed(fn, count):
    barrier()
    start = time.perf_counter()
    for _ in range(count):
        fn()
    barrier()
    return (time.perf_counter() - start) / count * 1e3


def run_about(steps):
    barrier()
    start, before = time.perf_counter(), sim.steps
    sim.run(until=sim.t + steps * dt)
    barrier()
    return (time.perf_counter() - start) / (sim.steps - before) * 1e3


rows = {"fixed-dt step (Python)": min(timed(lambda: sim._advance(dt), 10) for _ in range(3))}
for steps in (10, 40, 160):
    rows[f"sim.run, {steps} steps"] = min(run_about(steps) for _ in range(3))
if sim._parallel is not None:
    rows["exchange_fields"] = min(timed(sim._stepper.exchange_fields, 20) for _ in range(3))
rows["signal speed"] = min(timed(lambda: sim._grid.signal_speed(False), 20) for _ in range(3))
rows["allreduce"] = min(timed(lambda: comm.allreduce(1.0, MPI.MAX), 50) for _ in range(3))
if comm.rank == 0:
    print(f"split run parts, {comm.size} GPU(s), {physics}{' forced' if forced else ''} {dtype}, {n}^3 a GPU, ms: "
          + ", ".join(f"{k} {v:.3f}" for k, v in rows.items()), flush=True)
