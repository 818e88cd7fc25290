"""Multi-GPU checks and scaling of astaroth.parallel; run under mpirun, one rank per GPU.

    mpirun -np N python3 scripts/scaling.py check [host|device|auto]
        a forced float64 run on N GPUs against the same run on one GPU (rank 0),
        bit for bit, with the given ghost-zone exchange
    mpirun -np N python3 scripts/scaling.py weak|strong [n=256|512] [dtype=float32] [physics=hydro] [how=step] [procs]
        M updates/s per full RK3 step (55p): weak scaling with n^3 points per GPU
        (the grid grows along z), strong scaling with one n^3 grid; physics
        hydro, mhd+entropy (eight fields) or hydro+shock (shock viscosity, its
        profile pass by pass on a split grid); how "step": steps of a fixed dt,
        "run": sim.run's CFL steps (dt found and reduced over the ranks each
        step), as a user's run takes them; procs: the ranks along x, y, z
        as PxQxR (Simulation's procs=; weak scaling's grid grows as they
        do), else as split_dims lays them out

Rank 0 prints one line per run; efficiencies are computed from the lines of
runs with different N (README: Running on many GPUs).
"""
import os
import sys
import time

import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
mode = sys.argv[1]
BACKEND = os.environ.get("ASTAROTH_BACKEND", "cuda")  # "cpu" to try the script without GPUs


def say(text):
    if rank == 0:
        print(text, flush=True)


def forced(comm, backend=BACKEND, exchange="auto", shape=(64, 48, 40)):
    sim = ac.Simulation(shape=shape, box=(6.0, 4.5, 3.75), nu=5e-3, dtype="float64", backend=backend, comm=comm,
                        exchange=exchange)
    ac.init.random_velocity(sim, urms=0.1, seed=5)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=11)
    return sim


if mode == "check":
    exchange = sys.argv[2] if len(sys.argv) > 2 else "auto"
    split = forced(comm, exchange=exchange)
    split.run(until=0.5)
    got = {name: split[name] for name in ac.FIELDS}
    if rank == 0:
        from astaroth.parallel import cuda_aware_mpi

        alone = forced(None)
        alone.run(until=0.5)
        same = all(np.array_equal(got[name], alone[name]) for name in ac.FIELDS)
        worst = max(float(np.max(np.abs(got[name] - alone[name]))) for name in ac.FIELDS)
        through = split._stepper.transport
        print(f"check: {size} ranks, dims {split.decomposition.dims}, exchange={exchange} (through {through}; "
              f"CUDA-aware MPI: {cuda_aware_mpi()}), {split.steps} forced steps at 64x48x40 float64: "
              f"{'bit for bit equal' if same else 'DIFFERENT'} to one GPU (max |diff| {worst:.3g})", flush=True)
        if not same:
            sys.exit(1)
else:
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    dtype = sys.argv[3] if len(sys.argv) > 3 else "float32"
    physics = sys.argv[4] if len(sys.argv) > 4 else "hydro"
    how = sys.argv[5] if len(sys.argv) > 5 else "step"
    if how not in ("step", "run"):
        raise SystemExit(f"how must be step or run, got {how!r}")
    procs = tuple(int(q) for q in sys.argv[6].split("x")) if len(sys.argv) > 6 else None
    physics_of = {"hydro": {}, "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3),
                  "hydro+shock": dict(nu_shock=1.0)}
    if physics not in physics_of:
        raise SystemExit(f"physics must be one of {', '.join(physics_of)}, got {physics!r}")
    modules = physics_of[physics]
    if mode == "weak":
        shape = tuple(n * q for q in procs) if procs else (n, n, n * size)
    else:
        shape = (n, n, n)
    sim = ac.Simulation(shape=shape, nu=5e-3, dtype=dtype, backend=BACKEND, comm=comm, procs=procs, **modules)
    sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.cos(sim.z)[None, None, :]
    dt = sim.cfl_dt()
    for _ in range(3):  # warm-up
        sim._advance(dt)
    best = float("inf")
    for _ in range(3):
        comm.Barrier()
        start, steps = time.perf_counter(), sim.steps
        if how == "run":
            sim.run(until=sim.t + 10 * dt)  # about 10 CFL steps
        else:
            for _ in range(10):
                sim._advance(dt)  # steps that sim.steps does not count
        comm.Barrier()
        best = min(best, (time.perf_counter() - start) / (sim.steps - steps if how == "run" else 10))
    through = sim._stepper.transport if sim.decomposition else "-"
    runs = " (sim.run)" if how == "run" else ""
    say(f"{mode}: {size} GPU(s), {physics}{runs}, grid {shape[0]}x{shape[1]}x{shape[2]} {dtype}, dims "
        f"{sim.decomposition.dims if sim.decomposition else (1, 1, 1)}, exchange "
        f"{through}: {best * 1e3:.2f} ms/step, "
        f"{np.prod(shape) / best / 1e6:.0f} M updates/s")
