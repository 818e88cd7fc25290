"""Run under mpirun by tests/test_mpi.py: one forced run on a grid split over
the ranks, written by rank 0 for comparison with a single process.

    mpirun -np N python mpi_script.py OUT_DIR MODE [SNAPSHOT]

MODE "run": forced run to T_END, fields + time series + snapshot at T_HALF.
MODE "restart" SNAPSHOT [PxQxR]: load SNAPSHOT (written by any number of ranks; laid out as procs=(P, Q, R)),
run to T_END.
MODE "nonfinite": a NaN put in one subdomain stops every rank.
MODE "nonfinite_run": a NaN put in one subdomain's passive scalar stops every rank's sim.run after the same step.
MODE "mhd", "entropy", "terms", "shock", "scalars", "shear_shock [AXIS]": mpi_case's make_MODE to T_HALF.
MODE "shear" AXIS [BACKEND [SCALAR [EXCHANGE]]]: the shearing box of mpi_case.make_shear to T_SHEAR (on
BACKEND, default cpu; SCALAR 0: without its passive scalar; EXCHANGE: Simulation's exchange=).
MODE "c_steps" CASE [BACKEND]: the run of CASE stepped in C where the rank's steps are (astaroth._split), and again
through Python. CASE: "forced", "mhd", "terms", "shear" and "shear_shock" (split along z) on the CPU; "entropy",
"entropy-yz", "entropy-host" ("entropy" through host buffers), "walls", "z_walls" ("walls" periodic in x),
"shock", "decaying", "decaying_entropy", "forced_fluid" and "forced_entropy" (mpi_case.make_fluid: hydro, with
entropy or not, decaying or forced) on BACKEND (default cpu).
MODE "pencil" CASE PROCS: the run of CASE ("forced": make; "walls": make_entropy_wall_case) to T_HALF, written by
save_pencil(procs=PROCS, as 1x2x2).
MODE "procs" PxQxR: the forced run to T_HALF on the ranks laid out as Simulation(procs=(P, Q, R)).
MODE "pencil_fail": save_pencil once, then again with rank 1 unable to read a field: each rank's error.
MODE "read_pencil" DATADIR VARFILE: ac.pencil.read_var(DATADIR, VARFILE, comm=...) on the ranks, the fields written by rank 0.
MODE "gpu" CASE EXCHANGE: on the GPU to T_HALF, CASE "entropy" (mpi_case.make_entropy), "entropy-yz" (its
grid of YZ_SHAPE), "walls" (test_walls_entropy.make_entropy_wall_case: walls along the split axis), "shock"
(make_shock) or "shear_shock-AXIS" (make_shear_shock split first along AXIS, without its scalar).
"""
import os
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(__file__))
from mpi_case import (FIELDS, T_END, T_HALF, T_SHEAR, YZ_SHAPE, make, make_fluid, make_entropy,  # noqa: E402
                      make_mhd, _forced_mhd, make_scalars, make_shear, make_shear_shock, make_shock, make_terms)

import astaroth as ac  # noqa: E402

comm = MPI.COMM_WORLD
out, mode = sys.argv[1], sys.argv[2]
tag = f"np{comm.Get_size()}"

if mode == "run":
    sim = make(comm)
    d = sim.decomposition
    if d is not None:  # the view is this rank's own subdomain
        assert sim.view("ux").shape == d.local_shape, (sim.view("ux").shape, d.local_shape)
    sim.run(until=T_HALF, timeseries=os.path.join(out, f"ts-{tag}.csv"), diagnostics_every=2)
    sim.save(os.path.join(out, f"half-{tag}.h5"))
    sim.run(until=T_END, timeseries=os.path.join(out, f"ts-{tag}.csv"), diagnostics_every=2)
    fields = {name: sim[name] for name in FIELDS}  # collective
    spectrum = ac.analysis.spectrum(sim)
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"fields-{tag}.npz"), steps=sim.steps, spectrum_k=spectrum[0],
                 spectrum_e=spectrum[1], dims=np.array(d.dims if d else (1, 1, 1)), **fields)
elif mode in ("mhd", "entropy", "terms", "shock", "scalars", "shear_shock"):
    extra = sys.argv[3:4]  # shear_shock: the axis its grid's shape splits first (mpi_case.SHEAR_SHAPES)
    sim = {"mhd": make_mhd, "entropy": make_entropy, "terms": make_terms, "shock": make_shock,
           "scalars": make_scalars, "shear_shock": make_shear_shock}[mode](comm, *extra)
    sim.run(until=T_HALF, timeseries=os.path.join(out, f"{mode}-ts-{tag}.csv"), diagnostics_every=2)
    fields = {name: sim[name] for name in sim.field_names}
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"{mode}{''.join('-' + e for e in extra)}-{tag}.npz"), steps=sim.steps,
                 dims=np.array(sim.decomposition.dims), **fields)
elif mode == "c_steps":  # CASE [BACKEND]: the run of CASE stepped in C (ParallelStepper.c_steps) and through Python
    from test_walls_entropy import make_entropy_wall_case

    case = sys.argv[3]
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    maker = {"forced": make, "mhd": make_mhd, "terms": make_terms,
             "shear": lambda c: make_shear(c, "z"), "shear_shock": lambda c: make_shear_shock(c, "z"),
             "entropy": lambda c: make_entropy(c, backend=backend),
             "entropy-yz": lambda c: make_entropy(c, backend=backend, shape=YZ_SHAPE),
             "entropy-host": lambda c: make_entropy(c, backend=backend, exchange="host"),
             "walls": lambda c: make_entropy_wall_case(c, backend=backend),
             "z_walls": lambda c: make_entropy_wall_case(c, backend=backend, x_walls=False),
             "shock": lambda c: make_shock(c, backend=backend),
             "decaying": lambda c: make_fluid(c, backend=backend),
             "decaying_entropy": lambda c: make_fluid(c, backend=backend, energy="entropy"),
             "forced_fluid": lambda c: make_fluid(c, backend=backend, forced=True),
             "forced_entropy": lambda c: make_fluid(c, backend=backend, energy="entropy", forced=True)}[case]
    until = T_SHEAR if case.startswith("shear") else T_HALF
    runs = {}
    for path in ("c", "python"):
        sim = maker(comm)
        in_c = sim._stepper.c_steps is not None
        direct = bool(getattr(sim._stepper.halo, "direct", False))
        if path == "python":
            sim._stepper.c_steps = None
        sim.run(until=until, timeseries=os.path.join(out, f"c_steps-{case}-{path}-{tag}.csv"), diagnostics_every=3)
        runs[path] = (sim.steps, {name: sim[name] for name in sim.field_names})
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"c_steps-{case}-{tag}.npz"), in_c=in_c, direct=direct,
                 dims=np.array(sim.decomposition.dims), steps_c=runs["c"][0], steps_python=runs["python"][0],
                 **{f"c_{k}": v for k, v in runs["c"][1].items()},
                 **{f"python_{k}": v for k, v in runs["python"][1].items()})
elif mode == "shear":  # argument: the axis its grid's shape splits first (mpi_case.SHEAR_SHAPES)
    split = sys.argv[3]
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    scalar = sys.argv[5] != "0" if len(sys.argv) > 5 else True
    exchange = sys.argv[6] if len(sys.argv) > 6 else "auto"
    sim = make_shear(comm, split, backend, scalar, exchange)
    sim.run(until=T_SHEAR)
    fields = {name: sim[name] for name in sim.field_names}
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"shear-{split}-{backend}-{int(scalar)}-{exchange}-{tag}.npz"), steps=sim.steps,
                 deltay=sim.deltay, dims=np.array(sim.decomposition.dims), transport=sim._stepper.transport,
                 **fields)
elif mode == "gpu":
    from test_walls_entropy import make_entropy_wall_case

    case, exchange = sys.argv[3], sys.argv[4]
    sim = {"entropy": make_entropy, "walls": make_entropy_wall_case, "shock": make_shock,
           "entropy-yz": lambda *a, **k: make_entropy(*a, shape=YZ_SHAPE, **k),
           **{f"shear_shock-{axis}": lambda *a, axis=axis, **k: make_shear_shock(*a, axis, scalar=False, **k)
              for axis in "xyz"}}[case](comm, backend="cuda", exchange=exchange)
    sim.run(until=T_HALF)
    fields = {name: sim[name] for name in sim.field_names}
    import cupy  # each rank's device view is its subdomain of the gathered field

    views = all(np.array_equal(cupy.asarray(sim.view(name)).get(), fields[name][sim.decomposition.slices])
                for name in sim.field_names)
    views = comm.allreduce(views, op=MPI.LAND)
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"gpu-{case}-{exchange}-{tag}.npz"), steps=sim.steps, views=views,
                 dims=np.array(sim.decomposition.dims), transport=sim._stepper.transport,
                 exchange_kind=type(sim._stepper.halo).__name__,
                 direct=bool(getattr(sim._stepper.halo, "direct", False)), **fields)
elif mode == "pencil":  # CASE PROCS: the run to T_HALF written as Pencil Code procN/ folders
    from test_walls_entropy import make_entropy_wall_case

    case, procs = sys.argv[3], tuple(int(q) for q in sys.argv[4].split("x"))
    sim = {"forced": make, "walls": make_entropy_wall_case}[case](comm)
    sim.run(until=T_HALF)
    sim.save_pencil(os.path.join(out, f"pencil-{case}-{tag}"), procs=procs)
elif mode == "pencil_fail":  # the forced run written as 1x2x2 procN/ folders, then again with rank 1 unable to
    # read its part of uy: every rank's error, and whether the first set is still there, byte for byte
    import hashlib

    sim = make(comm)
    sim.run(until=T_HALF)
    datadir = os.path.join(out, "pencil-fail")
    sim.save_pencil(datadir, procs=(1, 2, 2))
    files = [os.path.join(datadir, f"proc{n}", "var.dat") for n in range(4)]
    digest = [hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files] if comm.Get_rank() == 0 else None
    if comm.Get_rank() == 1:
        read = sim._local_field

        def failing(name):
            if name == "uy":
                raise OSError("the device is gone")
            return read(name)
        sim._local_field = failing
    sim.run(until=T_END)
    try:
        sim.save_pencil(datadir, procs=(1, 2, 2))
        said = None
    except Exception as error:
        said = f"{type(error).__name__}: {error}"
    said = comm.gather(said, root=0)
    if comm.Get_rank() == 0:
        kept = digest == [hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files]
        np.savez(os.path.join(out, f"pencil-fail-{tag}.npz"), said=np.array(said, dtype=object), kept=kept)
elif mode == "procs":  # PxQxR: the forced run to T_HALF on the ranks laid out so
    sim = make(comm, procs=tuple(int(q) for q in sys.argv[3].split("x")))
    sim.run(until=T_HALF)
    fields = {name: sim[name] for name in FIELDS}
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"procs-{sys.argv[3]}-{tag}.npz"), steps=sim.steps,
                 dims=np.array(sim.decomposition.dims), **fields)
elif mode == "read_pencil":  # DATADIR VARFILE: read_var split over the ranks, the fields gathered
    sim = ac.pencil.read_var(sys.argv[3], sys.argv[4], backend="cpu", comm=comm)
    fields = {name: sim[name] for name in sim.field_names}
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"read-pencil-{tag}.npz"), t=sim.t, dims=np.array(sim.decomposition.dims),
                 **fields)
elif mode == "restart":
    procs = tuple(int(q) for q in sys.argv[4].split("x")) if len(sys.argv) > 4 else None
    sim = ac.load(sys.argv[3], backend="cpu", comm=comm, procs=procs)
    sim.run(until=T_END)
    fields = {name: sim[name] for name in FIELDS}
    if comm.Get_rank() == 0:
        np.savez(os.path.join(out, f"restart-{tag}.npz"), steps=sim.steps,
                 dims=np.array(sim.decomposition.dims if sim.decomposition else (1, 1, 1)), **fields)
elif mode == "nonfinite_run":  # a NaN in the last rank's scalar: sim.run's steps in C stop every rank after step 1
    sim = _forced_mhd(comm, ("ax", "ay", "az", "cc"), shape=(40, 12, 40), passive_scalar=True, pscalar_diff=1e-2)
    cc = sim["cc"]
    cc[30, 6, 30] = np.nan  # no other field, and so no signal speed, takes it up; a step (3 substeps) spreads
    # it 9 points, within the last of 2 x 1 x 2 ranks
    sim._grid.write(sim.field_names.index("cc"), np.asfortranarray(cc[sim.decomposition.slices]))
    try:
        sim.run(until=T_HALF, check_every=1)
        raise SystemExit("no NonFiniteError")
    except ac.NonFiniteError as error:
        with open(os.path.join(out, f"nonfinite_run-{tag}-rank{comm.Get_rank()}.txt"), "w") as f:
            f.write(f"{sim.steps} {sim._stepper.c_steps is not None}\n{error}")
elif mode == "nonfinite":
    sim = make(comm)
    ux = sim["ux"]
    ux[-1, -1, -1] = np.nan  # lies in the last rank's subdomain
    sim._grid.write(1, np.asfortranarray(ux[sim.decomposition.slices]))  # bypass the finite check of sim[...] =
    try:
        sim.step(1e-3)
        raise SystemExit("no NonFiniteError")
    except ac.NonFiniteError as error:
        if comm.Get_rank() == 0:
            with open(os.path.join(out, f"nonfinite-{tag}.txt"), "w") as f:
                f.write(str(error))
