"""A 1024^3 float64 MHD + entropy snapshot (eight fields, 64 GiB) written by
the ranks of a split GPU run: each rank its subdomain into PATH.parts/, rank 0
the index with HDF5 virtual datasets (astaroth.io.save); the time of save()
and each rank's peak host memory (ru_maxrss).  Each field is filled on the
device through its view, so that no rank holds a whole field.

    mpirun -np 4 python3 snapshot1024.py PATH [n=1024]
"""
import os
import resource
import sys
import time

import cupy
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
sim = ac.Simulation(shape=(n, n, n), dtype="float64", backend="cuda", comm=comm, physics="mhd", energy="entropy",
                    nu=5e-3, eta=5e-3, chi=5e-3)
for q, name in enumerate(sim.field_names):
    view = cupy.asarray(sim.view(name))
    view[...] = cupy.arange(view.size, dtype=view.dtype).reshape(view.shape) * 1e-9 + q
cupy.cuda.Device().synchronize()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
comm.Barrier()
start = time.perf_counter()
sim.save(path)
comm.Barrier()
seconds = time.perf_counter() - start
peaks = comm.gather((before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), root=0)
if comm.Get_rank() == 0:
    parts = os.path.join(os.path.dirname(path) or ".", os.path.basename(path) + ".parts")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(parts) for f in files)
    print(f"snapshot: {comm.Get_size()} ranks, dims {sim.decomposition.dims}, {n}^3 float64, "
          f"{len(sim.field_names)} fields, {size / 2**30:.1f} GiB in {parts}: save() {seconds:.1f} s "
          f"({size / seconds / 1e9:.2f} GB/s); peak host memory a rank (MiB, before save -> after): "
          + ", ".join(f"{b / 1024:.0f} -> {a / 1024:.0f}" for b, a in peaks), flush=True)
