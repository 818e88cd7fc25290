"""A split run's steps through Simulation.run: in C (astaroth._split, ParallelStepper.c_steps) against
ParallelStepper's substeps sequenced from Python (c_steps set to None), three alternating rounds, the median
time a step.  From the repository root, with the extension built:

    OMP_NUM_THREADS=1 mpirun -np 2 python3 scripts/split_steps.py N PHYSICS STEPS [BACKEND [DTYPE [AXIS]]]

N^3 points a rank, the grid split along AXIS (z, the default; along x a GPU's messages are packed);
PHYSICS: hydro, mhd, entropy (MHD with the entropy equation) or shock (hydro with nu_shock = 1); every run
forced; BACKEND cpu (default) or cuda; DTYPE float64 (default) or float32.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
n, physics, steps_wanted = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
dtype = sys.argv[5] if len(sys.argv) > 5 else "float64"
axis = "xyz".index(sys.argv[6] if len(sys.argv) > 6 else "z")
shape, procs = [n, n, n], [1, 1, 1]
shape[axis] *= comm.size
procs[axis] = comm.size


def make():
    extra = {"mhd": dict(physics="mhd", eta=3e-2), "shock": dict(nu_shock=1.0),
             "entropy": dict(physics="mhd", eta=3e-2, energy="entropy", chi=2e-2)}.get(physics, {})
    sim = ac.Simulation(shape=tuple(shape), dtype=dtype, backend=backend, nu=2e-2, comm=comm, procs=tuple(procs),
                        **extra)
    ac.init.random_velocity(sim, urms=0.1, seed=5)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1, seed=11)
    return sim


seconds = {"c": [], "python": []}
for _ in range(3):
    for path in ("c", "python"):
        sim = make()
        if path == "python":
            sim._stepper.c_steps = None
        elif sim._stepper.c_steps is None:
            raise SystemExit("this run's steps cannot be taken in C here (no astaroth._split, or not on this backend)")
        dt = sim.cfl_dt()
        comm.Barrier()
        start = time.perf_counter()
        sim.run(until=dt * steps_wanted * 0.999)
        comm.Barrier()
        seconds[path].append((time.perf_counter() - start) / sim.steps)
if comm.rank == 0:
    c, p = np.median(seconds["c"]), np.median(seconds["python"])
    points = n ** 3 * comm.size
    print(f"{comm.size} ranks along {'xyz'[axis]}, {n}^3 a rank, {physics} forced {dtype} on {backend}: "
          f"C {c * 1e3:.2f} ms/step ({points / c / 1e6:.2f} M/s), Python {p * 1e3:.2f} ms/step "
          f"({points / p / 1e6:.2f} M/s); C/Python rate {p / c:.3f}", flush=True)
