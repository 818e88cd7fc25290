"""HDF5 snapshots and checkpoints (h5py), with an XDMF index for ParaView/VisIt.

    sim.save("snap.h5")          # fields, coordinates, time, step, parameters, forcing state
    sim2 = ac.load("snap.h5")    # a Simulation to analyse or to continue, bit for bit

Files are written to a temporary name in the same folder, flushed to disk
and then renamed over the target, so a writer killed mid-write never spoils
an earlier file of that name.  Needs h5py (``pip install ".[io]"``).
"""
import os
import tempfile

import numpy as np

from .simulation import FIELDS, Simulation

FORMAT = "astaroth-snapshot-1"


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("HDF5 snapshots need h5py: pip install h5py (or the package's [io] extra)") from None
    return h5py


def save(sim, path, xdmf=True):
    """Write `sim` to the HDF5 file `path` atomically; also `path`.xdmf unless xdmf=False."""
    h5py = _h5py()
    path = os.fspath(path)
    fields = {name: sim[name] for name in FIELDS}  # on every MPI rank: gathering is collective
    if not sim.is_root:
        sim.comm.Barrier()  # returns once the file is complete
        return path
    try:
        _write(sim, path, fields, h5py)
    finally:
        if sim.comm is not None:
            sim.comm.Barrier()
    if xdmf:
        write_xdmf(path, sim)
    return path


def _write(sim, path, fields, h5py):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".h5", dir=folder)
    os.close(fd)
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["format"] = FORMAT
            for key, value in sim.parameters().items():
                f.attrs[key] = value
            f.attrs["t"] = sim.t
            f.attrs["steps"] = sim.steps
            for axis, coords in zip("xyz", (sim.x, sim.y, sim.z)):
                f.create_dataset(f"coordinates/{axis}", data=coords)
            for name in FIELDS:
                # stored (z, y, x) in C order: the same bytes as the solver's x-fastest layout
                f.create_dataset(f"fields/{name}", data=np.ascontiguousarray(fields[name].T))
            if sim.forcing is not None:
                g = f.create_group("forcing")
                for key in ("kmin", "kmax", "f0", "seed"):
                    g.attrs[key] = getattr(sim.forcing, key)
                g.attrs["generator_state"] = np.uint64(sim._grid.forcing_state)
            f.flush()
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load(path, backend="auto", comm=None, exchange="auto"):
    """A Simulation from a snapshot written by `save`, ready to analyse or continue.

    With `comm` every rank reads the file and keeps its own subdomain, on any
    number of ranks (not necessarily the number that wrote it).
    """
    h5py = _h5py()
    from .forcing import Forcing

    with h5py.File(os.fspath(path), "r") as f:
        if f.attrs.get("format") != FORMAT:
            raise ValueError(f"{path} is not an astaroth snapshot (format {f.attrs.get('format')!r})")
        a = f.attrs
        sim = Simulation(shape=tuple(int(n) for n in a["shape"]), box=tuple(float(L) for L in a["box"]),
                         nu=float(a["nu"]), cs=float(a["cs"]), dtype=str(a["dtype"]), backend=backend,
                         method=str(a["method"]), origin=tuple(float(o) for o in a["origin"]), comm=comm,
                         exchange=exchange)
        for name in FIELDS:
            sim[name] = f[f"fields/{name}"][...].T
        sim.t = float(a["t"])
        sim.steps = int(a["steps"])
        if "forcing" in f:
            g = f["forcing"].attrs
            sim.forcing = Forcing(kmin=float(g["kmin"]), kmax=float(g["kmax"]), f0=float(g["f0"]), seed=int(g["seed"]))
            sim._grid.forcing_state = int(np.uint64(g["generator_state"]))
    return sim


def write_xdmf(h5_path, sim):
    """An XDMF file beside `h5_path` describing its fields on a 3-D CoRectMesh."""
    nx, ny, nz = sim.shape
    dx, dy, dz = sim.spacing
    name = os.path.basename(h5_path)
    precision = sim.dtype.itemsize
    attributes = "".join(
        f'''
      <Attribute Name="{field}" AttributeType="Scalar" Center="Node">
        <DataItem Dimensions="{nz} {ny} {nx}" NumberType="Float" Precision="{precision}" Format="HDF">{name}:/fields/{field}</DataItem>
      </Attribute>''' for field in FIELDS)
    text = f'''<?xml version="1.0" ?>
<Xdmf Version="3.0">
  <Domain>
    <Grid Name="astaroth" GridType="Uniform">
      <Time Value="{sim.t!r}"/>
      <Topology TopologyType="3DCoRectMesh" Dimensions="{nz} {ny} {nx}"/>
      <Geometry GeometryType="ORIGIN_DXDYDZ">
        <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">{sim.z[0]!r} {sim.y[0]!r} {sim.x[0]!r}</DataItem>
        <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">{dz!r} {dy!r} {dx!r}</DataItem>
      </Geometry>{attributes}
    </Grid>
  </Domain>
</Xdmf>
'''
    out = os.path.splitext(h5_path)[0] + ".xdmf"
    with open(out, "w") as f:
        f.write(text)
    return out
