"""GPU time of each part of a split substep, on rank 0: the prefill of the
unsplit axes, the packing, the inner part, the unpacking and each slab of
the shell (or the slabs beside the inner part, from its end), from CUDA
events on the default stream (with which the backend's stream is ordered),
in the order astaroth/parallel.py's ParallelStepper._substep_messages
queues them.  Weak scaling's grid
(n^3 a rank, split along z).

    mpirun -np N python3 phases.py [n=256] [dtype=float32] [physics=hydro]
"""
import sys

import cupy
import numpy as np
from mpi4py import MPI

import astaroth as ac

comm = MPI.COMM_WORLD
n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
physics = sys.argv[3] if len(sys.argv) > 3 else "hydro"
modules = {"hydro": {}, "mhd+entropy": dict(physics="mhd", energy="entropy", eta=5e-3, chi=5e-3)}[physics]
sim = ac.Simulation(shape=(n, n, n * comm.Get_size()), nu=5e-3, dtype=dtype, backend="cuda", comm=comm, **modules)
sim["ux"] = 0.1 * np.sin(sim.x)[:, None, None] * np.cos(sim.z)[None, None, :]
dt = sim.cfl_dt()
st, grid = sim._stepper, sim._grid
null = cupy.cuda.Stream.null
totals = {}


def substep(s, marks):
    def mark(name):
        ev = cupy.cuda.Event()
        ev.record(null)
        marks.append((name, ev))

    mark("start")
    st._prefill(s, st.substep_prefilled)
    mark("prefill")
    st.halo.substep_pack(s)
    mark("pack")
    grid.substep_region(s, dt, *st.inner, st.periodic)
    mark("inner")
    st.halo.post()
    st.halo.finish()
    mark("unpack")
    if st.halo.direct and not st.halo.wall_faces:  # the slabs beside each other and the inner part's end
        st._shell_beside(s, dt)
        mark("shell beside")
        return
    for number, (lo, hi) in enumerate(st.shell):
        grid.substep_region(s, dt, lo, hi, st.periodic)
        mark(f"shell {number}")


for step in range(13):
    marks = []
    for s in range(3):
        substep(s, marks)
    null.synchronize()
    if step >= 3:  # after the warm-up
        for (_, a), (name, b) in zip(marks, marks[1:]):
            if name != "start":
                totals[name] = totals.get(name, 0.0) + cupy.cuda.get_elapsed_time(a, b) / 30
if comm.Get_rank() == 0:
    parts = ", ".join(f"{name} {ms * 1e3:.1f}" for name, ms in totals.items())
    print(f"phases, {comm.Get_size()} ranks, {physics} {n}^3 a rank {dtype}, dims {sim.decomposition.dims}, "
          f"exchange {st.transport}, GPU us a substep: {parts}; sum {sum(totals.values()) * 1e3:.1f}", flush=True)
