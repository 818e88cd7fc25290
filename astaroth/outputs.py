"""Averages, slices and spectra written while a run goes on, each at its own
cadence (Simulation.run(outputs=[...]); `astaroth run`'s [diagnostics]).

    outputs = [ac.outputs.Averages("run", xy=["uz", "uz*ss"], z=["lnrho"], every=10),
               ac.outputs.Slices("run", ["uz", "lnrho"], point=(0, 0, 16), every=20),
               ac.outputs.Spectra("run", ["kinetic", "lnrho"], every=50)]
    sim.run(until=10, outputs=outputs)

The Pencil Code's counterparts: xyaver.in, xzaver.in, yzaver.in and
zaver.in (averages), video.in (slices) and power_spectrum with dspec
(spectra).  Here each kind is one HDF5 file that grows along time, with
datasets `t` and `it` (time and step of each row) and one dataset per
quantity, its first axis the row:

    xyaverages.h5   over x and y: (rows, nz), coordinates `z`
    xzaverages.h5   over x and z: (rows, ny), coordinates `y`
    yzaverages.h5   over y and z: (rows, nx), coordinates `x`
    zaverages.h5    over z: (rows, nx, ny), coordinates `x`, `y`
    slices.h5       a group per quantity, datasets xy (rows, nx, ny) at z
                    index point[2], xz (rows, nx, nz) at point[1], yz
                    (rows, ny, nz) at point[0]
    spectra.h5      `k` (shell centres) and one (rows, shells) dataset per
                    spectrum, E(k) as astaroth.analysis.spectrum; besides,
                    power_kin.dat, power_mag.dat, power_<field>.dat in the
                    Pencil Code's format (read_power)

A file is written in HDF5's single-writer/multiple-reader mode and flushed
after every row: while the run goes on, read it with

    f = h5py.File("run/xyaverages.h5", "r", libver="latest", swmr=True)
    f["uz*ss"].refresh(); f["uz*ss"][:]

A quantity is a product of point quantities, e.g. "uz*ss", "bx*by",
"rho*uz*uz": the fields (lnrho, ux, uy, uz, ax, ay, az, ss, cc, cc2) and rho =
exp(lnrho), ox, oy, oz (curl u), bx, by, bz (B = curl A + b_ext), jx, jy,
jz (J = curl B / mu0), TT (the temperature, energy="entropy"), u2 = |u|^2,
b2 = |B|^2, divu; derivatives are the solver's sixth-order differences
(astaroth.analysis).  Averages are plain means over the points of the
averaged axes, as the Pencil Code's (the wall points of a wall axis count
as any other).

On the CUDA backend with CuPy the quantities and their means are computed
on the device (astaroth.analysis's array module): only the averages, slices
and spectra come to the host.  Without CuPy, or with a grid split over MPI
ranks, each write copies the whole fields it needs to the host and computes
there (astaroth.during.host_copies: the run warns).
"""
import difflib
import math
import os
import warnings

import numpy as np

from . import analysis

# The point quantities a product may take: name -> (meaning, what it needs: None, a field, "mhd", "entropy").
POINT_QUANTITIES = {
    "lnrho": ("log density", None), "rho": ("density exp(lnrho)", None),
    "ux": ("x velocity", None), "uy": ("y velocity", None), "uz": ("z velocity", None),
    "u2": ("|u|^2", None), "divu": ("div u", None),
    "ox": ("x vorticity", None), "oy": ("y vorticity", None), "oz": ("z vorticity", None),
    "ax": ("x vector potential", "mhd"), "ay": ("y vector potential", "mhd"), "az": ("z vector potential", "mhd"),
    "bx": ("x magnetic field", "mhd"), "by": ("y magnetic field", "mhd"), "bz": ("z magnetic field", "mhd"),
    "b2": ("|B|^2", "mhd"), "jx": ("x current density", "mhd"), "jy": ("y current density", "mhd"),
    "jz": ("z current density", "mhd"),
    "ss": ("specific entropy", "entropy"), "TT": ("temperature", "entropy"),
    "cc": ("passive scalar", "cc"), "cc2": ("second passive scalar", "cc2"),
}
AVERAGE_KINDS = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2), "z": (2,)}  # kind -> the axes averaged over
SPECTRA = ("kinetic", "magnetic")  # and any field's name


def _has(sim, needs):
    if needs is None:
        return True
    if needs == "mhd":
        return getattr(sim, "physics", "hydro") == "mhd"
    if needs == "entropy":
        return getattr(sim, "energy", "isothermal") == "entropy"
    return needs in sim.field_names


def _names(value, what):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a list of names, e.g. ['uz', 'uz*ss'], not {value!r}")
    value = list(value)
    for v in value:
        if not isinstance(v, str) or not v:
            raise TypeError(f"{what}: names are non-empty strings, got {v!r}")
    if len(set(value)) != len(value):
        raise ValueError(f"{what}: a name appears twice in {value}")
    return value


def check_quantity(sim, quantity, what):
    """The factors of a product such as "uz*ss", each a point quantity that
    `sim` has; a ValueError names the unknown one (with close matches) or
    what it needs.  sim None: the names only."""
    factors = [f.strip() for f in quantity.split("*")]
    for f in factors:
        if f not in POINT_QUANTITIES:
            close = difflib.get_close_matches(f, POINT_QUANTITIES, n=3)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise ValueError(f"{what}: unknown quantity {f!r} in {quantity!r}{hint}; a quantity is a product "
                             f"such as 'uz*ss' of {', '.join(POINT_QUANTITIES)}")
        needs = POINT_QUANTITIES[f][1]
        if sim is not None and not _has(sim, needs):
            why = {"mhd": 'physics="mhd"', "entropy": 'energy="entropy"'}.get(needs, f"the field {needs!r}")
            raise ValueError(f"{what}: {f!r} ({POINT_QUANTITIES[f][0]}) in {quantity!r} needs {why}")
    return factors


class _Evaluator:
    """The point quantities of sim now, as arrays of the analysis' array
    module (float64), each computed once per write."""

    def __init__(self, sim):
        self.sim, self.xp, self.cache = sim, analysis._array_module(sim), {}

    def vector(self, name):
        if name not in self.cache:
            sim, xp = self.sim, self.xp
            if name == "u":
                value = [c.astype(xp.float64) for c in analysis.velocity(sim)]
            elif name == "o":
                value = analysis.vorticity(sim, self.vector("u"))
            elif name == "b":
                value = analysis.magnetic_field(sim)
            else:
                value = analysis.current_density(sim)
            self.cache[name] = [xp.asarray(c, dtype=xp.float64) for c in value]
        return self.cache[name]

    def point(self, name):
        if name in self.cache:
            return self.cache[name]
        sim, xp = self.sim, self.xp
        if name in ("ux", "uy", "uz", "ox", "oy", "oz", "bx", "by", "bz", "jx", "jy", "jz"):
            value = self.vector(name[0])["xyz".index(name[1])]
        elif name in ("u2", "b2"):
            value = sum(c ** 2 for c in self.vector(name[0]))
        elif name == "rho":
            value = xp.exp(self.point("lnrho"))
        elif name == "divu":
            value = analysis.divergence(sim, self.vector("u"))
        elif name == "TT":  # lnTT = lnTT0 + (gamma / cp) ss + (gamma - 1)(lnrho - ln rho0), astaroth.thermo
            gamma, cp, rho0, cs = (float(getattr(sim, n)) for n in ("gamma", "cp", "rho0", "cs"))
            lnTT0 = math.log(cs ** 2 / (cp * (gamma - 1.0)))
            value = xp.exp(lnTT0 + gamma / cp * self.point("ss") + (gamma - 1.0) * (self.point("lnrho")
                                                                                   - math.log(rho0)))
        else:  # a field
            value = analysis._field(sim, name, xp)
        self.cache[name] = value = xp.asarray(value, dtype=xp.float64)
        return value

    def product(self, quantity):
        out = None
        for f in (f.strip() for f in quantity.split("*")):
            out = self.point(f) if out is None else out * self.point(f)
        return out


FILES = ("xyaverages.h5", "xzaverages.h5", "yzaverages.h5", "zaverages.h5", "slices.h5", "spectra.h5")


def _drop_rows(f, steps):
    """Drop the rows of the open file f past step `steps`; returns how many went."""
    later = int(np.count_nonzero(f["it"][:] > steps))
    if later:
        keep = f["it"].shape[0] - later
        f.visititems(lambda k, v: v.resize(keep, axis=0) if hasattr(v, "maxshape") and v.maxshape[:1] == (None,)
                     else None)
    return later


def truncate_files(directory, steps):
    """Drop the rows past step `steps` of the averages, slices and spectra in
    `directory` (and of the Pencil Code's power_*.dat beside spectra.h5), as
    a restart from a checkpoint at that step does; {file name: rows dropped}."""
    import h5py

    out = {}
    for name in FILES:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            continue
        with h5py.File(path, "a", libver="latest") as f:
            dropped = _drop_rows(f, steps)
            rows, shells = f["t"].shape[0], (f["k"].shape[0] - 1 if "k" in f else 0)
            spectra = [k for k in f if k not in ("t", "it", "k")] if name == "spectra.h5" else []
        if dropped:
            out[name] = dropped
        for s in spectra:
            _truncate_power(os.path.join(directory, pencil_name(s)), rows, shells)
    return out


class _Rows:
    """One HDF5 file of rows along time (single writer, multiple readers):
    `t`, `it` and one dataset per name of the given row shape.  An existing
    file of the same names goes on (its rows past the simulation's step
    dropped, with a warning: an earlier run's); other names are refused."""

    def __init__(self, path, shapes, coordinates, attributes):
        self.path, self.shapes, self.coordinates, self.attributes = path, shapes, coordinates, attributes
        self.file = None

    def open(self, sim, write):
        self.write = write
        if not write:
            return
        import h5py

        if os.path.exists(self.path):
            f = h5py.File(self.path, "a", libver="latest")
            held = []
            f.visititems(lambda k, v: held.append(k) if hasattr(v, "shape") else None)
            held = sorted(k for k in held if k not in ("t", "it") and k not in self.coordinates)
            if held != sorted(self.shapes) or any(f[k].shape[1:] != s for k, s in self.shapes.items()):
                f.close()
                raise ValueError(f"{self.path} holds {', '.join(held) or 'nothing'} (of another shape or set than "
                                 f"{', '.join(self.shapes)}): move it away, or ask for the same quantities")
            later = _drop_rows(f, sim.steps)
            if later:
                warnings.warn(f"{self.path}: dropped {later} rows past step {sim.steps} (an earlier run's)",
                              RuntimeWarning, stacklevel=4)
        else:
            f = h5py.File(self.path, "w", libver="latest")
            for k, v in self.coordinates.items():
                f[k] = v
            f.attrs.update(self.attributes)
            f.create_dataset("t", shape=(0,), maxshape=(None,), dtype="f8", chunks=(256,))
            f.create_dataset("it", shape=(0,), maxshape=(None,), dtype="i8", chunks=(256,))
            for k, s in self.shapes.items():
                f.create_dataset(k, shape=(0,) + s, maxshape=(None,) + s, dtype="f8", chunks=(1,) + s)
        f.swmr_mode = True  # readers see each row once flushed
        self.file = f

    def append(self, sim, values):
        if not self.write:
            return
        f = self.file
        n = f["t"].shape[0]
        for k, v in [("t", sim.t), ("it", sim.steps)] + list(values.items()):
            f[k].resize(n + 1, axis=0)
            f[k][n] = v
            f[k].flush()

    def close(self):
        if self.file is not None:
            self.file.close()
            self.file = None


def _every(every):
    if isinstance(every, bool) or not (isinstance(every, int) and every >= 1):
        raise ValueError(f"every must be a positive integer (steps between rows), got {every!r}")
    return every


class Averages:
    """Horizontal and vertical averages of quantities, written every `every`
    steps: xy (over x and y, a profile along z: the Pencil Code's
    xyaverages), xz, yz, and z (over z, a plane in x and y: its zaverages),
    each a list of quantities ("uz", "uz*ss", "bx*by"), one HDF5 file per
    kind in `directory` (the module docstring)."""

    def __init__(self, directory, xy=(), xz=(), yz=(), z=(), every=10):
        self.directory = os.fspath(directory)
        self.every = _every(every)
        self.kinds = {kind: _names(q, f"{kind}averages") for kind, q in
                      (("xy", xy), ("xz", xz), ("yz", yz), ("z", z)) if q}
        for kind, quantities in self.kinds.items():
            for q in quantities:
                check_quantity(None, q, f"{kind}averages")
        self.files = {}

    def check(self, sim):
        """Refuse, before any work, quantities that `sim` does not have."""
        for kind, quantities in self.kinds.items():
            for q in quantities:
                check_quantity(sim, q, f"{kind}averages")

    def open(self, sim):
        self.check(sim)
        coordinates = {"x": sim.x, "y": sim.y, "z": sim.z}
        for kind, quantities in self.kinds.items():
            kept = [a for a in range(3) if a not in AVERAGE_KINDS[kind]]
            shape = tuple(sim.shape[a] for a in kept)
            rows = _Rows(os.path.join(self.directory, f"{kind}averages.h5"), {q: shape for q in quantities},
                         {"xyz"[a]: coordinates["xyz"[a]] for a in kept},
                         {"kind": f"{kind}averages", "averaged_over": "".join("xyz"[a] for a in AVERAGE_KINDS[kind])})
            self.files[kind] = rows
        os.makedirs(self.directory, exist_ok=True) if sim.is_root and self.files else None
        for rows in self.files.values():
            rows.open(sim, sim.is_root)

    def write(self, sim):
        evaluate = _Evaluator(sim)
        for kind, quantities in self.kinds.items():
            axes = AVERAGE_KINDS[kind]
            self.files[kind].append(sim, {q: analysis.host_array(evaluate.xp.mean(evaluate.product(q), axis=axes))
                                          for q in quantities})

    def close(self):
        for rows in self.files.values():
            rows.close()


PLANES = {"xy": 2, "xz": 1, "yz": 0}  # plane -> the axis its point index cuts


class Slices:
    """Planes through the point `point` = (ix, iy, iz) (grid indices; default
    the middle of the grid) of each quantity, written every `every` steps to
    slices.h5 in `directory`: the xy plane at iz, xz at iy and yz at ix
    (the Pencil Code's video slices, its ix, iy, iz of run.in), for videos."""

    def __init__(self, directory, quantities, point=None, every=10):
        self.directory = os.fspath(directory)
        self.every = _every(every)
        self.quantities = _names(quantities, "slices")
        for q in self.quantities:
            check_quantity(None, q, "slices")
        if point is not None:
            if isinstance(point, (str, bytes)) or len(point) != 3 or not all(
                    isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in point):
                raise ValueError(f"slices: point must be three grid indices (ix, iy, iz), got {point!r}")
        self.point = None if point is None else tuple(int(i) for i in point)
        self.rows = None

    def check(self, sim):
        """Refuse, before any work, quantities that `sim` does not have and a point outside its grid."""
        for q in self.quantities:
            check_quantity(sim, q, "slices")
        point = self.point if self.point is not None else tuple(n // 2 for n in sim.shape)
        for i, n, axis in zip(point, sim.shape, "xyz"):
            if not 0 <= i < n:
                raise ValueError(f"slices: point index {i} along {axis} lies outside the grid's 0 to {n - 1}")
        return point

    def open(self, sim):
        self.at = point = self.check(sim)
        shapes = {}
        for q in self.quantities:
            for plane, cut in PLANES.items():
                shapes[f"{q}/{plane}"] = tuple(n for a, n in enumerate(sim.shape) if a != cut)
        self.rows = _Rows(os.path.join(self.directory, "slices.h5"), shapes, {},
                          {"point": np.array(point), "x": sim.x, "y": sim.y, "z": sim.z})
        if sim.is_root:
            os.makedirs(self.directory, exist_ok=True)
        self.rows.open(sim, sim.is_root)

    def write(self, sim):
        evaluate = _Evaluator(sim)
        values = {}
        for q in self.quantities:
            f = evaluate.product(q)
            for plane, cut in PLANES.items():
                index = [slice(None)] * 3
                index[cut] = self.at[cut]
                values[f"{q}/{plane}"] = analysis.host_array(f[tuple(index)])
        self.rows.append(sim, values)

    def close(self):
        if self.rows is not None:
            self.rows.close()


def pencil_name(spectrum):
    """The Pencil Code's file of a spectrum: power_kin.dat, power_mag.dat, power_<field>.dat."""
    return {"kinetic": "power_kin.dat", "magnetic": "power_mag.dat"}.get(spectrum, f"power_{spectrum}.dat")


class Spectra:
    """Shell-integrated spectra written every `every` steps: "kinetic" (of
    u), "magnetic" (of B, physics="mhd") or any field's name, each E(k) as
    astaroth.analysis.spectrum (E.sum() = half the mean square; periodic
    axes only), into spectra.h5 in `directory` and, in the Pencil Code's
    format, power_kin.dat, power_mag.dat or power_<field>.dat (its
    src/power_spectrum.f90: per row a line holding t, then the spectrum,
    eight numbers a line, of the shells k = 0 .. n/2 - 1 in units of
    2 pi / L)."""

    def __init__(self, directory, spectra, every=10, pencil=True):
        self.directory = os.fspath(directory)
        self.every = _every(every)
        self.spectra = _names(spectra, "spectra")
        self.pencil = bool(pencil)
        self.rows = None

    def check(self, sim):
        """Refuse, before any work, spectra that `sim` cannot give (walls, a field it lacks)."""
        analysis._refuse_walls(sim, "spectra")
        for s in self.spectra:
            if s == "magnetic" and getattr(sim, "physics", "hydro") != "mhd":
                raise ValueError("spectra: 'magnetic' needs physics='mhd'")
            if s not in SPECTRA and s not in sim.field_names:
                close = difflib.get_close_matches(s, SPECTRA + sim.field_names, n=3)
                hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
                raise ValueError(f"spectra: unknown spectrum {s!r}{hint}; spectra are 'kinetic', 'magnetic' "
                                 f"(physics='mhd') and the fields {', '.join(sim.field_names)}")

    def open(self, sim):
        self.check(sim)
        k, _ = self._spectrum(sim, self.spectra[0])
        self.rows = _Rows(os.path.join(self.directory, "spectra.h5"), {s: k.shape for s in self.spectra},
                          {"k": k}, {"kind": "spectra"})
        self.is_root = sim.is_root
        if sim.is_root:
            os.makedirs(self.directory, exist_ok=True)
        self.rows.open(sim, sim.is_root)
        if self.pencil and sim.is_root:  # rows past this step, an earlier run's, go as in spectra.h5
            for s in self.spectra:
                _truncate_power(os.path.join(self.directory, pencil_name(s)), self.rows.file["t"].shape[0], k.size - 1)

    @staticmethod
    def _spectrum(sim, name):
        if name in SPECTRA:
            return analysis.spectrum(sim, field=name)
        return analysis.spectrum(sim, fields=(name,))

    def write(self, sim):
        values = {s: self._spectrum(sim, s)[1] for s in self.spectra}
        self.rows.append(sim, values)
        if self.pencil and self.is_root:
            for s, E in values.items():
                with open(os.path.join(self.directory, pencil_name(s)), "a") as f:
                    f.write(_power_block(sim.t, E[:-1]))

    def close(self):
        if self.rows is not None:
            self.rows.close()


def _power_block(t, E):
    """One time of a Pencil Code power_*.dat: t, then E eight to a line."""
    lines = [f" {t:.8E}"]
    lines += ["".join(f"{v:15.6E}" for v in E[i:i + 8]) for i in range(0, len(E), 8)]
    return "\n".join(lines) + "\n"


def read_power(path, shells):
    """A Pencil Code power_*.dat of `shells` shells as (t, E): t (rows,),
    E (rows, shells).  A partial last block is dropped."""
    with open(path) as f:
        numbers = f.read().split()
    block = 1 + shells
    rows = len(numbers) // block
    data = np.array(numbers[:rows * block], dtype=np.float64).reshape(rows, block)
    return data[:, 0], data[:, 1:]


def _truncate_power(path, rows, shells):
    """Keep the first `rows` times of a power_*.dat (those spectra.h5 keeps), and no partial block."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        count = len(f.read().split())
    if count == rows * (1 + shells):
        return
    from .io import atomic_path

    t, E = read_power(path, shells)
    with atomic_path(path, "spectrum") as tmp, open(tmp, "w") as f:
        f.write("".join(_power_block(t[i], E[i]) for i in range(min(rows, len(t)))))
