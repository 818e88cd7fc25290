"""A split CPU run's steps through Simulation.run: in C (astaroth._split, ParallelStepper.c_steps) against
ParallelStepper's substeps sequenced from Python (c_steps set to None), three alternating rounds, the median
time a step.  Run from the repository root with the extension built in place:

    OMP_NUM_THREADS=1 mpirun -np 2 python3 benchmarks/results/2026-11-29-cpu-split-steps/bench.py N PHYSICS STEPS

PHYSICS: hydro, mhd or shock (hydro with nu_shock = 1); every run forced, float64, the 55-point method.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
n, physics, steps_wanted = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])


def make():
    extra = {"mhd": dict(physics="mhd", eta=3e-2), "shock": dict(nu_shock=1.0)}.get(physics, {})
    sim = ac.Simulation(shape=(n, n, n), dtype="float64", backend="cpu", nu=2e-2, comm=comm, **extra)
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
            raise SystemExit("this build has no astaroth._split (no mpicc when it was built)")
        dt = sim.cfl_dt()
        comm.Barrier()
        start = time.perf_counter()
        sim.run(until=dt * steps_wanted * 0.999)
        comm.Barrier()
        seconds[path].append((time.perf_counter() - start) / sim.steps)
if comm.rank == 0:
    c, p = np.median(seconds["c"]), np.median(seconds["python"])
    print(f"{comm.size} ranks, {n}^3 {physics} forced float64: "
          f"C {c * 1e3:.2f} ms/step ({n ** 3 / c / 1e6:.2f} M/s), Python {p * 1e3:.2f} ms/step "
          f"({n ** 3 / p / 1e6:.2f} M/s); C/Python rate {p / c:.3f}", flush=True)
