"""Pencil Code files in and out.

The Pencil Code (https://github.com/pencil-code/pencil-code; Pencil Code
Collaboration, JOSS 6, 2807, 2021) keeps a run in a data directory::

    data/dim.dat              grid size, number of fields, precision, processors
    data/index.pro            which field sits in which slot (iux=1, ilnrho=4, ...)
    data/param.nml            start.x's parameters (Fortran namelists)
    data/param2.nml           run.x's parameters
    data/procN/var.dat        one process's fields with ghost zones (also VAR0, VAR1, ...)
    data/procN/grid.dat       that process's coordinates
    data/time_series.dat      the diagnostics printed while it ran

``read_var`` turns such a directory into a :class:`astaroth.Simulation`,
``read_ts`` reads the time series, and ``write_var`` (``sim.save_pencil``)
writes ``var.dat``, ``grid.dat``, ``dim.dat`` and ``index.pro`` that the
Pencil Code's ``run.x`` continues from.  Only what this package can run is
read: an isothermal (``noentropy``, ``gamma = 1``) or entropy (``entropy``
with ``eos_idealgas``, field ``ss``: ``energy="entropy"``) hydro or MHD run
on a Cartesian equidistant grid, periodic or with walls (``lperi = F``
with the boundary kinds ``s``, ``a``, ``a2``, ``set``: astaroth.boundaries)
and uniform gravity (``gravity_simple`` with constant profiles), in a
rotating frame (``Omega``, ``theta``: the Coriolis force) and a shearing box
(``Sshear``, ``x0_shear``, ``deltay``, ``bcx = 'she'``), with up to two
passive scalars (``pscalar_nolog`` with ``npscalar`` = 1 or 2 and
``lpscalar_diff_simple = T``: fields ``cc`` and ``cc2``); anything else is
refused with a ``ValueError`` naming what is not supported.

Snapshots (``var.dat``, ``VARn``) are Fortran unformatted sequential files:
the first record holds ``f(mx, my, mz, nvar)`` (x fastest, ghost zones
included), the second ``t, x(mx), y(my), z(mz), dx, dy, dz``; later records
(persistent variables) are not read.  Single and double precision are told
apart by the second record's length.
"""
import math
import os
import re
import struct
import warnings

import numpy as np

from . import boundaries as _wall_kinds

__all__ = ["read_var", "read_ts", "write_var", "read_dim", "read_index", "read_namelist", "PENCIL_NAMES"]

#: Pencil Code index name (index.pro) -> this package's field name.
PENCIL_NAMES = {"iux": "ux", "iuy": "uy", "iuz": "uz", "ilnrho": "lnrho", "iss": "ss",
                "iax": "ax", "iay": "ay", "iaz": "az", "icc": "cc", "icc2": "cc2"}
# The passive scalars of pscalar_nolog: with npscalar = 1 index.pro names the slot icc, with npscalar = 2
# icc (= icc1) and icc2, its varnames cc1 and cc2 (src/farray.f90: farray_index_append and
# save_analysis_info); this package names them cc and cc2.

# Fields the Pencil Code has that this package does not evolve (yet), with what to tell the user.
_UNSUPPORTED_FIELDS = {
    "ilntt": "temperature 'lnTT' (temperature_idealgas): this package evolves the entropy 'ss' (ENTROPY = entropy)",
    "itt": "temperature 'TT': this package evolves the entropy 'ss' (ENTROPY = entropy)",
    "icc3": "a third passive scalar (npscalar > 2): this package evolves at most two (cc, cc2)",
    "ilncc": "passive scalar 'lncc': not supported in this version",
    "irho": "density 'rho' (ldensity_nolog): this package evolves lnrho",
}

# The order run.x registers our fields in (hydro, density, entropy, magnetic): index.pro of its runs.
_PENCIL_ORDER = ("ux", "uy", "uz", "lnrho", "ss", "ax", "ay", "az", "cc", "cc2")  # pscalar after magnetic
_INDEX_OF = {v: k for k, v in PENCIL_NAMES.items()}
MAX_NGHOST = 4  # the Pencil Code's widest stencils (eighth order, deriv_8th) need 4 ghost points
MAX_POINTS_PER_AXIS = 2 ** 31 - 128  # as astaroth.simulation.MAX_AXIS: indices within 32 bits


# --- Fortran namelists ----------------------------------------------------------------------------
_TOKEN = re.compile(r"""
      (?P<string>'(?:[^']|'')*'|"(?:[^"]|"")*")
    | (?P<complex>\([^()]*\))
    | (?P<group>[&$][A-Za-z_]\w*)
    | (?P<end>/|[&$]end\b)
    | (?P<key>[A-Za-z_][\w%]*(?:\([\d:, ]*\))?\s*=)
    | (?P<sep>,)
    | (?P<value>[^\s,=/'"()!]+)
    | (?P<comment>![^\n]*)
    | (?P<space>\s+)
""", re.VERBOSE | re.IGNORECASE)


def _nml_value(text):
    """One namelist value: a number, a logical, a string or a complex number."""
    if text[0] in "'\"":
        return text[1:-1].replace(text[0] * 2, text[0]).rstrip()
    if text[0] == "(":
        re_, im = (float(p.replace("d", "e").replace("D", "E")) for p in text[1:-1].split(","))
        return complex(re_, im)
    low = text.lower()
    if low in ("t", ".true.", "true", ".t."):
        return True
    if low in ("f", ".false.", "false", ".f."):
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(low.replace("d", "e"))
    except ValueError:
        return text


def _read_text(path, what):
    """The text of the file `path`, a `what` (e.g. "dim.dat"); ValueError
    naming the file where it holds binary data (a NUL or other control
    byte, or bytes that are not ASCII), as a damaged or misplaced file does."""
    data = open(path, "rb").read()
    bad = re.search(rb"[^\t\n\r\f\x20-\x7e]", data)
    if bad:
        raise ValueError(f"{path} is not a Pencil Code {what}: it holds binary data (byte 0x{bad.group()[0]:02x} "
                         f"at offset {bad.start()}); the file is damaged or not the one start.x writes")
    return data.decode("ascii")


def read_namelist(path):
    """Read a file of Fortran namelists (e.g. ``data/param2.nml``).

    Returns ``{group: {key: value}}`` with group and key names in lower case;
    a value is a Python scalar (int, float, bool, str, complex), or a list for
    an array (repeat counts such as ``3*T`` are expanded).  Only what the
    Pencil Code and hand-written ``start.in`` files use is understood.  A
    file holding binary data is refused with a ValueError naming it.
    """
    text = _read_text(path, "namelist file")
    groups, group, key = {}, None, None
    pending_repeat = None
    for m in _TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind in ("space", "comment", "sep"):
            continue
        if kind == "group":
            group = groups.setdefault(tok[1:].lower(), {})
            key = None
        elif kind == "end":
            group, key = None, None
        elif group is None:
            continue
        elif kind == "key":
            key = re.sub(r"\(.*\)", "", tok[:-1]).strip().lower()
            group[key] = []
        elif key is not None:
            if kind == "value" and re.fullmatch(r"\d+\*", tok):
                pending_repeat = int(tok[:-1])  # "3*" followed by a string or complex token
                continue
            repeat = 1
            if pending_repeat is not None:
                repeat, pending_repeat = pending_repeat, None
            elif kind == "value" and re.fullmatch(r"\d+\*.+", tok):
                count, tok = tok.split("*", 1)
                repeat = int(count)
            group[key].extend([_nml_value(tok)] * repeat)
    for values in groups.values():
        for k, v in values.items():
            values[k] = v[0] if len(v) == 1 else v
    return groups


# --- small files ----------------------------------------------------------------------------------
def read_dim(path):
    """Read a Pencil Code ``dim.dat``.

    Returns a dict: ``mx, my, mz`` (points with ghost zones), ``mvar, maux``,
    ``precision`` ('S' or 'D'), ``nghost`` (three numbers) and ``procs``
    (``nprocx, nprocy, nprocz`` in data/dim.dat; ``ipx, ipy, ipz`` in a
    procN/dim.dat).
    """
    lines = [line.split() for line in _read_text(path, "dim.dat").splitlines() if line.strip()]
    try:
        mx, my, mz, mvar, maux = (int(v) for v in lines[0][:5])
        precision = lines[1][0].upper()
        nghost = tuple(int(v) for v in lines[2][:3])
        procs = tuple(int(v) for v in lines[3][:3]) if len(lines) > 3 else (1, 1, 1)
    except (IndexError, ValueError) as e:
        raise ValueError(f"{path} is not a Pencil Code dim.dat ({e})") from None
    # what cparam.f90 allows: nghost ghost points on each side (3 for the sixth-order stencils, at most
    # 4 for the eighth-order ones), at least one interior point, whole field counts
    problems = [f"nghost = {g} along {axis} (0 to {MAX_NGHOST})" for axis, g in zip("xyz", nghost)
                if not 0 <= g <= MAX_NGHOST]
    problems += [f"{name} = {m}, which leaves {m - 2 * g} interior points beside nghost = {g} ghosts on each side"
                 for name, m, g in zip(("mx", "my", "mz"), (mx, my, mz), nghost) if 0 <= g <= MAX_NGHOST
                 and m - 2 * g < 1]
    problems += [f"{name} = {v}, more than {MAX_POINTS_PER_AXIS} points" for name, v in (("mx", mx), ("my", my), ("mz", mz))
                 if v > MAX_POINTS_PER_AXIS]
    problems += [f"{name} = {v}" for name, v in (("mvar", mvar), ("maux", maux)) if not 0 <= v <= 1000]
    problems += [f"precision {precision!r} ('S' or 'D')"] if precision not in ("S", "D") else []
    problems += [f"a process count or index of {p}" for p in procs if not 0 <= p <= 10 ** 6]
    if problems:
        raise ValueError(f"{path} is damaged: {'; '.join(problems)}")
    return dict(mx=mx, my=my, mz=mz, mvar=mvar, maux=maux, precision=precision, nghost=nghost, procs=procs)


def read_index(path):
    """Read a Pencil Code ``index.pro``: ``{name: slot}`` for every ``name=integer`` line."""
    index = {}
    for line in _read_text(path, "index.pro").splitlines():
        m = re.match(r"\s*(\w+)\s*=\s*(-?\d+)\s*$", line)
        if m:
            index[m.group(1).lower()] = int(m.group(2))
    return index


# --- Fortran unformatted records ------------------------------------------------------------------
# gfortran's sequential unformatted records: 4-byte markers before and after each subrecord, at most
# _MAX_SUBRECORD bytes of data a subrecord; a record longer than that is split into subrecords whose
# leading marker is negative where another follows and whose trailing marker is negative where one
# precedes (the gfortran manual, "File format of unformatted sequential files").
_MAX_SUBRECORD = 2147483639


def _records(path, count):
    """The first `count` records of a Fortran sequential unformatted file, each as a list of its subrecords'
    (offset, length) pairs (one pair unless the record passes 2 GiB), and the byte order: gfortran's 4-byte
    record markers, little- or big-endian."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        for endian in "<>":
            out, pos = [], 0
            try:
                while len(out) < count:
                    pieces, more = [], True
                    while more:
                        f.seek(pos)
                        head = f.read(4)
                        if len(head) < 4:
                            raise ValueError
                        n = struct.unpack(endian + "i", head)[0]
                        length, start = abs(n), pos + 4
                        if start + length + 4 > size:
                            raise ValueError
                        f.seek(start + length)
                        tail = struct.unpack(endian + "i", f.read(4))[0]
                        if abs(tail) != length or (tail < 0) != bool(pieces):
                            raise ValueError
                        pieces.append((start, length))
                        pos, more = start + length + 4, n < 0
                    out.append(pieces)
                return out, endian
            except (ValueError, struct.error):
                continue
    raise ValueError(f"{path} is not a Fortran unformatted file with {count} records "
                     "(a Pencil Code snapshot written by io_dist, the default)")


def _read_pieces(f, pieces, dtype, count):
    """`count` values of `dtype` from a record's subrecords (_records), in order."""
    out = np.empty(count, dtype=dtype)
    view, at = memoryview(out).cast("B"), 0
    for offset, length in pieces:
        length = min(length, view.nbytes - at)
        f.seek(offset)
        if f.readinto(view[at:at + length]) != length:
            raise ValueError(f"{f.name}: the file ends inside a record")
        at += length
        if at == view.nbytes:
            break
    return out


def _read_snapshot(path, dims):
    """Fields (nvar, mz, my, mx)-ordered array, t, x, y, z of one process's snapshot."""
    mx, my, mz = dims
    records, endian = _records(path, 2)
    len1, len2 = (sum(length for _, length in pieces) for pieces in records)
    ncoord = 1 + mx + my + mz + 3
    for nbytes in (8, 4):
        if len2 in (ncoord * nbytes, (ncoord + 1) * nbytes):  # +1: deltay of a sheared run
            break
    else:
        raise ValueError(f"{path}: its second record has {len2} bytes, which is neither single nor double "
                         f"precision t, x, y, z, dx, dy, dz for a {mx} x {my} x {mz} grid (see dim.dat)")
    sheared = len2 == (ncoord + 1) * nbytes  # the Pencil Code's wsnap appends deltay with shear (io_dist.f90)
    dtype = np.dtype(f"{endian}f{nbytes}")
    npoint = mx * my * mz * nbytes
    if len1 % npoint:
        raise ValueError(f"{path}: its first record ({len1} bytes) is not a whole number of "
                         f"{mx} x {my} x {mz} fields")
    nvar = len1 // npoint
    with open(path, "rb") as f:
        fields = _read_pieces(f, records[0], dtype, nvar * mx * my * mz).reshape(nvar, mz, my, mx)
        coords = _read_pieces(f, records[1], dtype, ncoord + sheared)
    t = float(coords[0])
    x, y, z = coords[1:1 + mx], coords[1 + mx:1 + mx + my], coords[1 + mx + my:1 + mx + my + mz]
    deltay = float(coords[ncoord]) if sheared else None
    return fields, t, x.astype(np.float64), y.astype(np.float64), z.astype(np.float64), dtype, deltay


# --- parameters -----------------------------------------------------------------------------------
def _as_list(value, n=3):
    return list(value) if isinstance(value, list) else [value] * n


def _modes(value):
    """A Pencil 'ivisc'/'iresistivity'/'idiff' entry as a list of non-empty lower-case names."""
    return [v.strip().lower() for v in _as_list(value, 1) if isinstance(v, str) and v.strip()]


class _Namelists:
    """The values of param2.nml over those of param.nml, by key and groups (get(key, *groups, default));
    number() checks that a value is a number (or `count` of them), a ValueError naming the files and the
    key where it is missing or something else (a damaged param.nml, or one start.x did not write)."""

    def __init__(self, start_path, run_path):
        self.start = read_namelist(start_path)
        if "init_pars" not in self.start:
            raise ValueError(f"{start_path} has no &init_pars namelist: it is damaged or not the one start.x "
                             "writes")
        self.run = read_namelist(run_path) if os.path.exists(run_path) else {}
        self.where = start_path + (f" and {run_path}" if os.path.exists(run_path) else "")

    def __call__(self, key, *groups, default=None):
        for source in (self.run, self.start):
            for g in groups:
                if key in source.get(g, {}):
                    return source[g][key]
        return default

    def number(self, key, *groups, default=None, count=None):
        value = self(key, *groups, default=default)
        if value is None:
            raise ValueError(f"{self.where} give no {key} (in {' or '.join('&' + g for g in groups)}): "
                             "damaged, or not written by start.x")
        values = _as_list(value, count) if count else [value]
        if (count and len(values) != count) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ValueError(f"{self.where}: {key} = {value!r} is not {f'{count} numbers' if count else 'a number'}")
        return [float(v) for v in values] if count else float(values[0])


def _parameters(datadir, shape, slots, entropy=False):
    """Our Simulation keywords from param.nml and param2.nml (run parameters take precedence).

    `slots`: our field name -> the Pencil Code's slot (index.pro); `entropy`: the snapshot holds 'ss'
    (the Pencil Code's entropy module with eos_idealgas)."""
    start_path, run_path = os.path.join(datadir, "param.nml"), os.path.join(datadir, "param2.nml")
    if not os.path.exists(start_path):
        raise FileNotFoundError(f"{start_path} not found: a Pencil Code data directory has it once start.x has run")
    get = _Namelists(start_path, run_path)

    coords = str(get("coord_system", "run_pars", "init_pars", default="cartesian")).lower()
    if coords != "cartesian":
        raise ValueError(f"coord_system={coords!r}: this package runs Cartesian grids only")
    walls = {}
    for axis, periodic, equidistant, n in zip("xyz", _as_list(get("lperi", "run_pars", "init_pars", default=True)),
                                           _as_list(get("lequidist", "run_pars", "init_pars", default=True)), shape):
        if n > 1 and periodic is not True:
            walls[axis] = _walls_of_axis(get, axis, slots)
        if n > 1 and equidistant is not True:
            raise ValueError(f"lequidist: the {axis} grid is not equidistant; this package needs a uniform grid")
    shear = _shear(get, slots) if get("lshear", "lphysics", "run_pars", "init_pars", default=False) is True else {}
    gamma = get.number("gamma", "eos_run_pars", "eos_init_pars", default=5.0 / 3.0 if entropy else 1.0)
    if gamma != 1 and not entropy:
        raise ValueError(f"gamma={gamma}: without an entropy field this is a polytropic run; this package runs "
                         "isothermal flows (gamma = 1) or entropy runs (ENTROPY = entropy, field ss) only")
    omega = _rotation(get)

    box = tuple(get.number("lxyz", "run_pars", "init_pars", count=3))
    params = dict(box=box, cs=get.number("cs0", "eos_run_pars", "eos_init_pars", default=1.0))
    if walls:
        params["boundaries"] = walls
    gravity = _gravity(get)
    if any(gravity):
        params["gravity"] = gravity
    if any(omega):
        params["omega"] = omega
    params.update(shear)

    nu = get.number("nu", "viscosity_run_pars", default=0.0)
    ivisc = _modes(get("ivisc", "viscosity_run_pars", default=""))
    if nu and not ivisc:
        ivisc = ["nu-const"]  # as the Pencil Code's viscosity module does
    known = {"nu-const": "nu", "hyper3-simplified": "nu_hyper3", "hyper3_simplified": "nu_hyper3",
             "nu-shock": "nu_shock", "shock": "nu_shock"}
    for mode in ivisc:
        if mode not in known:
            raise ValueError(f"ivisc={mode!r}: this package has the viscosities 'nu-const', 'hyper3-simplified' "
                             "and 'nu-shock' only")
    params["nu"] = nu if "nu-const" in ivisc else 0.0
    params["nu_hyper3"] = (get.number("nu_hyper3", "viscosity_run_pars", default=0.0)
                           if {"hyper3-simplified", "hyper3_simplified"} & set(ivisc) else 0.0)
    params["nu_shock"] = (get.number("nu_shock", "viscosity_run_pars", default=0.0)
                          if {"nu-shock", "shock"} & set(ivisc) else 0.0)

    if entropy:
        params.update(_entropy_parameters(get, gamma))
    scalars = len([n for n in ("cc", "cc2") if n in slots])
    if scalars:
        params.update(_scalar_parameters(get, scalars))

    idiff = _modes(get("idiff", "density_run_pars", default=""))
    for mode in idiff:
        if mode not in ("hyper3-lnrho", "hyper3lnrho"):
            raise ValueError(f"idiff={mode!r}: this package has the density diffusion 'hyper3-lnrho' only")
    params["diff_hyper3"] = get.number("diff_hyper3", "density_run_pars", default=0.0) if idiff else 0.0

    for flag in ("lupw_uu", "lupw_lnrho", "lupw_aa"):
        if get(flag, "hydro_run_pars", "density_run_pars", "magnetic_run_pars", default=False) is True:
            raise ValueError(f"{flag}=T: upwinding is not supported in this version")

    magnetic = {"eta": get.number("eta", "magnetic_run_pars", default=0.0),
                "b_ext": tuple(get.number("b_ext", "magnetic_run_pars", default=0.0, count=3)),
                "mu0": get.number("mu0", "init_pars", "run_pars", default=1.0)}
    iresistivity = _modes(get("iresistivity", "magnetic_run_pars", default=""))
    for mode in iresistivity:
        if mode != "eta-const":
            raise ValueError(f"iresistivity={mode!r}: this package has the resistivity 'eta-const' only")
    force = get("force", "forcing_run_pars", default=0.0)
    if force:
        warnings.warn(f"the Pencil run is forced (iforce={get('iforce', 'forcing_run_pars', default='?')!r}, "
                      f"force={force}); its forcing is not carried over: set sim.forcing = astaroth.Forcing(...)",
                      stacklevel=3)
    return params, magnetic


# The Pencil Code's boundary kinds (src/boundcond.f90, boundconds_x/y/z) that are ours (astaroth.boundaries):
# 's', 'a', 'a2' by name; 'set' and 'a2v' (the same call, bc_sym_z(..., -1, REL=.true., VAL=fbcz)) with the
# value fbcz1 (lower wall) or fbcz2 (upper wall) of their slot.
_WALL_KINDS = {"s": "s", "a": "a", "a2": "a2", "set": "set", "a2v": "set"}


def _walls_of_axis(get, axis, slots):
    """{field: (lower, upper)} of a non-periodic axis from the run's bcx/bcy/bcz ('a2' or 'bot:top', by
    slot, as the Pencil Code's parse_bc splits them) and, for 'set', fbcx1/fbcx2 ... ."""
    bc = _as_list(get(f"bc{axis}", "run_pars", "init_pars", default="p"), max(slots.values()))
    faces = {}
    for name, slot in slots.items():
        text = bc[slot - 1].strip() if slot <= len(bc) and isinstance(bc[slot - 1], str) else ""
        lower, _, upper = text.partition(":") if ":" in text else (text, "", text)
        pair = []
        for face, kind in enumerate((lower.strip(), upper.strip())):
            if kind not in _WALL_KINDS:
                raise ValueError(f"bc{axis}={kind!r} for {name} ({_INDEX_OF[name]}={slot}) at the "
                                 f"{('lower', 'upper')[face]} {axis} wall: this package has the wall kinds "
                                 "'s', 'a', 'a2' and 'set' (astaroth.boundaries) only")
            if _WALL_KINDS[kind] == "set":
                values = _as_list(get(f"fbc{axis}{face + 1}", "run_pars", "init_pars", default=0.0),
                                  max(slots.values()))
                value = values[slot - 1] if slot <= len(values) else None
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise ValueError(f"fbc{axis}{face + 1} gives {value!r} for {name} ({_INDEX_OF[name]}={slot}) "
                                     f"at the {('lower', 'upper')[face]} {axis} wall, where 'set' needs a number")
                pair.append(f"set:{float(value)!r}")
            else:
                pair.append(_WALL_KINDS[kind])
        faces[name] = tuple(pair)
    return faces


def _rotation(get):
    """omega of the Pencil Code's Omega and theta (src/hydro.f90, coriolis_cartesian: the frame's
    angular velocity Omega (-sin theta, 0, cos theta), theta in degrees); (0, 0, 0) without rotation."""
    omega = get.number("omega", "hydro_run_pars", "hydro_init_pars", default=0.0)
    theta = get.number("theta", "hydro_run_pars", "hydro_init_pars", default=0.0)
    if omega == 0 or get("lcoriolis_force", "hydro_run_pars", "hydro_init_pars", default=True) is False:
        return (0.0, 0.0, 0.0)
    if get("lcentrifugal_force", "hydro_run_pars", "hydro_init_pars", default=False) is True:
        raise ValueError("lcentrifugal_force=T: this package has the Coriolis force of a rotating frame, not the "
                         "centrifugal force")
    angle = math.radians(theta)
    return (-omega * math.sin(angle), 0.0, omega * math.cos(angle)) if theta else (0.0, 0.0, omega)


def _rotation_values(sim, theta=True):
    """OMEGA and THETA (theta: &hydro_run_pars has it, &hydro_init_pars not) for the hydro namelist
    groups, or "" without rotation; an omega with a y component has no Pencil Code equivalent and is
    refused, naming it."""
    ox, oy, oz = (float(v) for v in sim.omega)
    if ox == oy == oz == 0:
        return ""
    if oy != 0:
        raise ValueError(f"omega={tuple(sim.omega)}: the Pencil Code's Omega and theta give omega = Omega (-sin "
                         "theta, 0, cos theta), with no y component")
    omega = math.hypot(ox, oz)
    angle = 0.0 if ox == 0 and oz > 0 else math.degrees(math.atan2(-ox, oz))
    return f" OMEGA= {omega!r},\n" + (f" THETA= {angle!r},\n" if theta else "")


def _shear(get, slots):
    """shear and x0_shear of a shearing box (the Pencil Code's src/shear.f90: its Sshear, which start.x and
    run.x record computed from qshear, and x0_shear), refusing, naming them, the variants this package does not
    run: a Lagrangian shear of its own (qshear0, Sshear1), the shear advection as a shift, hyperdiffusion in
    x on the mesh, a tilt, no stretching or acceleration, and x faces that are not shearing-periodic."""
    groups = ("shear_run_pars", "shear_init_pars")
    shear = get.number("sshear", *groups, default=0.0)
    if get.number("sshear1", *groups, default=shear) != shear:
        raise ValueError(f"Sshear1 = {get('sshear1', *groups)} differs from Sshear = {shear} (qshear0 != 0): "
                         "this package's shear has one rate")
    for flag, wanted in (("lshearadvection_as_shift", False), ("lhyper3x_mesh", False),
                         ("lshear_acceleration", True), ("lmagnetic_stretching", True), ("lmagnetic_tilt", False),
                         ("lrandomx0", False)):
        if get(flag, *groups, default=wanted) is not wanted:
            raise ValueError(f"{flag}={'T' if not wanted else 'F'}: this package's shear has "
                             f"{flag}={'T' if wanted else 'F'} only (src/shear.f90's defaults)")
    if get.number("sini", *groups, default=0.0) != 0:
        raise ValueError("sini != 0: the tilted shear of src/shear.f90 is not supported")
    bcx = _as_list(get("bcx", "run_pars", "init_pars", default="p"), max(slots.values()))
    other = sorted({str(b).strip() for b in bcx[:max(slots.values())]} - {"she"})
    if other:
        raise ValueError(f"lshear with bcx = {other}: this package's shearing box has shearing-periodic x faces "
                         "(bcx = 'she') for every field")
    return dict(shear=shear, x0_shear=get.number("x0_shear", *groups, default=0.0))


def _gravity(get):
    """(gx, gy, gz) of the Pencil Code's gravity_simple with constant profiles ('zero' or 'const'); (0, 0, 0)
    for a run without gravity (GRAVITY = nogravity: no grav_*_pars)."""
    out = []
    for axis in "xyz":
        profile = get(f"grav{axis}_profile", "grav_run_pars", "grav_init_pars", default="zero")
        profile = str(profile).strip().lower()
        if profile not in ("zero", "const"):
            raise ValueError(f"grav{axis}_profile={profile!r}: this package has uniform gravity only "
                             "(gravity_simple with the profiles 'zero' and 'const')")
        on = profile == "const" and get(f"lgrav{axis}_gas", "grav_run_pars", "grav_init_pars", default=True)
        out.append(get.number(f"grav{axis}", "grav_run_pars", "grav_init_pars", default=0.0) if on else 0.0)
    for flag in ("lboussinesq_grav", "lxyzdependence"):
        if get(flag, "grav_run_pars", "grav_init_pars", default=False) is True:
            raise ValueError(f"{flag}=T: this package has uniform gravity only")
    grav_type = str(get("grav_type", "grav_run_pars", "grav_init_pars", default="default")).strip().lower()
    if grav_type != "default":
        raise ValueError(f"grav_type={grav_type!r}: this package has uniform gravity only")
    return tuple(out)


# pscalar_nolog's switches and coefficients that add terms this package does not have (0 or F: off).
_SCALAR_OFF = ("tensor_pscalar_diff", "soret_diff", "diffcc_shock", "pscalar_diff_hyper3", "lpscalar_sink",
               "lreactions", "lpscalar_per_unitvolume", "lnotpassive", "lupw_cc", "lmean_friction_cc", "nopscalar",
               "gradc0")


def _scalar_parameters(get, scalars):
    """passive_scalar and the diffusivities of the Pencil Code's pscalar_nolog: one pscalar_diff for all
    its npscalar scalars, without the density term (lpscalar_diff_simple = T: dc/dt = ... + D lap c)."""
    for key in _SCALAR_OFF:
        value = get(key, "pscalar_run_pars", "pscalar_init_pars", default=0.0)
        if any(v not in (0, 0.0, False) for v in _as_list(value, 1)):
            raise ValueError(f"{key}={value!r}: this package's passive scalar has advection and diffusion only")
    diff = get.number("pscalar_diff", "pscalar_run_pars", default=0.0)
    if diff and get("lpscalar_diff_simple", "pscalar_run_pars", default=False) is not True:
        raise ValueError(f"pscalar_diff={diff} with lpscalar_diff_simple=F: the Pencil Code diffuses with "
                         "pscalar_diff (lap cc + grad lnrho . grad cc); this package's passive scalar has the "
                         "Laplacian alone (lpscalar_diff_simple=T)")
    return dict(passive_scalar=scalars, pscalar_diff=diff, **({"pscalar_diff2": diff} if scalars > 1 else {}))


def _entropy_parameters(get, gamma):
    """energy="entropy" and its parameters: the Pencil Code's eos_idealgas (gamma, cp, rho0; its cs0 is
    our cs) and entropy module (iheatcond 'chi-const' gives chi, 'hyper3_ss' chi_hyper3)."""
    if gamma == 1:
        raise ValueError("gamma=1 with an entropy field: this package's energy='entropy' needs gamma > 1")
    for flag in ("ladvection_entropy", "lviscosity_heat"):
        if get(flag, "entropy_run_pars", "entropy_init_pars", default=True) is not True:
            raise ValueError(f"{flag}=F: this package always has the entropy advection and viscous heating")
    if get("lupw_ss", "entropy_run_pars", default=False) is True:
        raise ValueError("lupw_ss=T: upwinding is not supported in this version")
    iheatcond = [m for m in _modes(get("iheatcond", "entropy_run_pars", default="")) if m != "nothing"]
    for mode in iheatcond:
        if mode not in ("chi-const", "hyper3_ss", "hyper3"):
            raise ValueError(f"iheatcond={mode!r}: this package has the heat conductions 'chi-const' and "
                             "'hyper3_ss' only")
    return dict(energy="entropy", gamma=float(gamma),
                cp=get.number("cp", "eos_run_pars", "eos_init_pars", default=1.0),
                rho0=get.number("rho0", "eos_run_pars", "eos_init_pars", default=1.0),
                chi=get.number("chi", "entropy_run_pars", default=0.0) if "chi-const" in iheatcond else 0.0,
                chi_hyper3=(get.number("chi_hyper3", "entropy_run_pars", default=0.0)
                            if {"hyper3_ss", "hyper3"} & set(iheatcond) else 0.0))


# --- reading --------------------------------------------------------------------------------------
def _proc_dirs(datadir, procs):
    nprocx, nprocy, nprocz = procs
    return [(os.path.join(datadir, f"proc{ipx + nprocx * (ipy + nprocy * ipz)}"), (ipx, ipy, ipz))
            for ipz in range(nprocz) for ipy in range(nprocy) for ipx in range(nprocx)]


def _cleanup(datadir):
    """What a write_var killed in `datadir` left, set right (astaroth.io.cleanup_folder): a set it had
    committed renamed into place, the temporaries of one killed before removed."""
    from .io import cleanup_folder

    for folder in (datadir, os.path.join(datadir, "proc0"), os.path.join(datadir, "allprocs")):
        cleanup_folder(folder)


def read_var(datadir, varfile="var.dat", backend="auto", dtype=None, comm=None):
    """Read a Pencil Code snapshot into a new :class:`astaroth.Simulation`.

    Parameters
    ----------
    datadir : str or path
        The run's data directory (holding ``dim.dat``, ``index.pro``,
        ``param.nml``, ``param2.nml`` and ``proc0/``, ``proc1/``, ...); the run
        directory above it is accepted too.
    varfile : str
        The snapshot in each ``procN`` folder: ``"var.dat"`` (the latest) or
        ``"VAR0"``, ``"VAR1"``, ...
    backend : "auto", "cpu" or "cuda"
        As for ``Simulation``.
    dtype : None, "float32" or "float64"
        Precision of the new simulation; None takes the file's.
    comm : None or an MPI communicator
        As for ``Simulation``: the grid split over its ranks, whatever the
        Pencil run's process layout; every rank calls read_var and reads only
        the ``procN`` files that hold its points.

    Returns
    -------
    Simulation
        Shape, box and origin of the Pencil grid (the Pencil Code puts the
        points of a periodic axis at ``x0 + (i + 1/2) dx``, so ``sim.x`` is
        exactly its ``x``), the parameters of ``param.nml``/``param2.nml``
        (``nu``, ``cs0`` as ``cs``, ``eta``, ``b_ext``, ``mu0``, ``nu_hyper3``,
        ``diff_hyper3``, ``nu_shock``, by the run's ``ivisc``,
        ``iresistivity`` and ``idiff``), its fields (``uu`` as ``ux uy uz``,
        ``lnrho``, ``aa`` as ``ax ay az``: an MHD run gives
        ``physics="mhd"``; ``ss`` gives ``energy="entropy"`` with ``gamma``,
        ``cp``, ``rho0``, and ``chi`` for ``iheatcond='chi-const'``,
        ``chi_hyper3`` for ``'hyper3_ss'``; ``cc``, and with ``npscalar =
        2`` ``cc2``, give ``passive_scalar`` = 1 or 2 with ``pscalar_diff``,
        and ``pscalar_diff2`` its value) and ``sim.t`` the snapshot's
        time.  A non-periodic axis (``lperi = F``) has walls: its first and
        last points on the walls (``dz = Lz / (nz - 1)``), and
        ``boundaries`` from the run's ``bcx``/``bcy``/``bcz`` (``'s'``,
        ``'a'``, ``'a2'``; ``'set'`` and ``'a2v'`` as ``'set:VALUE'`` with
        ``fbcz1``/``fbcz2``; ``'bot:top'`` pairs as ``(lower, upper)``).
        ``gravity_simple``'s ``grav?_profile = 'const'`` gives
        ``gravity=(gravx, gravy, gravz)``; ``Omega``, ``theta`` give ``omega``; a shearing box
        (``lshear``) gives ``shear`` (its ``Sshear``), ``x0_shear`` and ``sim.deltay``.  Forcing is not
        carried over (a warning says so when the run was forced).

    Raises
    ------
    ValueError
        For what this package cannot run, named: a field other than
        ``uu``, ``lnrho``, ``ss``, ``aa``, ``cc`` (two at most), pscalar_nolog's
        terms beyond advection and diffusion (its density term with
        ``lpscalar_diff_simple = F`` among them), non-Cartesian grids, a wall's
        boundary kind other than ``s``, ``a``, ``a2``, ``set`` (named with its
        field and face), gravity profiles other than ``'zero'`` and
        ``'const'``, the shear variants not run here (shift advection, ``Sshear1 != Sshear``,
        ``lhyper3x_mesh``, ``sini``), ``gamma != 1`` without ``ss``, other
        viscosities, resistivities or heat conductions, upwinding.
    FileNotFoundError
        When the data directory or a file in it is missing.
    """
    datadir = os.fspath(datadir)
    if not os.path.isdir(datadir):
        raise FileNotFoundError(f"datadir {datadir!r} is not a directory")
    if not os.path.exists(os.path.join(datadir, "dim.dat")) and \
            os.path.exists(os.path.join(datadir, "data", "dim.dat")):
        datadir = os.path.join(datadir, "data")  # the run directory was given
    _cleanup(datadir)
    for name in ("dim.dat", "index.pro"):
        if not os.path.exists(os.path.join(datadir, name)):
            raise FileNotFoundError(f"{os.path.join(datadir, name)} not found: is {datadir!r} a Pencil Code data "
                                    "directory (after start.x)?")
    dim = read_dim(os.path.join(datadir, "dim.dat"))
    nghost = dim["nghost"]
    shape = tuple(m - 2 * g for m, g in zip((dim["mx"], dim["my"], dim["mz"]), nghost))
    index = read_index(os.path.join(datadir, "index.pro"))
    if index.get("icc1", 0) > 0:  # npscalar = 2: icc1 is icc
        index.setdefault("icc", index["icc1"])
    slots = {ours: index[pencil] for pencil, ours in PENCIL_NAMES.items() if index.get(pencil, 0) > 0}
    for ours, slot in slots.items():
        if slot > dim["mvar"]:
            raise ValueError(f"{_INDEX_OF[ours]}={slot} in index.pro, but dim.dat has mvar = {dim['mvar']} "
                             "fields: index.pro and dim.dat are from different runs")
    for pencil, why in _UNSUPPORTED_FIELDS.items():
        if index.get(pencil, 0) > 0 and not (pencil == "irho" and index[pencil] == index.get("ilnrho")):
            raise ValueError(f"{pencil}={index[pencil]} in index.pro: {why}")
    missing = [n for n in ("ux", "uy", "uz", "lnrho") if n not in slots]
    if missing:
        raise ValueError(f"{os.path.join(datadir, 'index.pro')} has no {', '.join(_INDEX_OF[n] for n in missing)}: "
                         "this package needs "
                         "the Pencil Code's hydro and density modules (uu and lnrho)")
    mhd = all(n in slots for n in ("ax", "ay", "az"))
    covered = set(slots.values())
    for slot in range(1, dim["mvar"] + 1):
        if slot not in covered:
            names = [k for k, v in index.items() if v == slot and k.startswith("i")]
            raise ValueError(f"slot {slot} of the snapshot ({'/'.join(names) or 'unnamed'} in index.pro) is a "
                             "field this package does not evolve")
    params, magnetic = _parameters(datadir, shape, slots, entropy="ss" in slots)
    if mhd:
        params.update(physics="mhd", **magnetic)

    # Assemble the processes' interiors: those that hold this rank's points where the grid is split over ranks.
    split = comm is not None and comm.Get_size() > 1
    if split:
        from .parallel import Decomposition

        part = Decomposition(comm, shape)
        mine = tuple(slice(o, o + n) for o, n in zip(part.offset, part.local_shape))
    else:
        mine = tuple(slice(0, n) for n in shape)
    try:
        interiors, t, coords, file_dtype, deltay = _read_processes(datadir, varfile, dim, shape, slots, mine)
        failure = None
    except (OSError, ValueError) as error:
        if not split:
            raise
        failure = error
    if split:  # every rank's error or its coordinates and time, so that all raise or all go on alike
        said = comm.allgather(f"{type(failure).__name__}: {failure}" if failure else (coords, t, deltay))
        if failure is not None:
            raise failure
        errors = [s for s in said if isinstance(s, str)]
        if errors:
            raise ValueError(f"another rank could not read the snapshot: {errors[0]}")
        for theirs, _, _ in said:
            for a, c in enumerate(theirs):
                known = ~np.isnan(c)
                coords[a][known] = c[known]
        times = {s[1] for s in said}
        if len(times) > 1:
            raise ValueError(f"the processes' {varfile} files in {datadir} are at the times {sorted(times)}: the "
                             "snapshot is inconsistent")
    origin = tuple(float(c[0]) for c in coords)
    box = params.pop("box")
    spacing = _wall_kinds.spacing(box, shape, params.get("boundaries", {}))
    for a, (c, d) in enumerate(zip(coords, spacing)):
        if len(c) > 1 and not np.allclose(np.diff(c), d, rtol=1e-5 if file_dtype.itemsize == 4 else 1e-10):
            raise ValueError(f"the {'xyz'[a]} coordinates in {varfile} are not spaced "
                             f"{'Lxyz / (n - 1)' if 'xyz'[a] in params.get('boundaries', {}) else 'Lxyz / n'} = {d}: "
                             "a non-uniform or inconsistent grid")

    from .simulation import Simulation
    sim = Simulation(shape=shape, box=box, origin=origin, backend=backend,
                     dtype=dtype if dtype is not None else np.dtype(file_dtype.kind + str(file_dtype.itemsize)).name,
                     comm=comm, **params)
    for k, name in enumerate(slots):
        sim._write_local_field(name, interiors[k].transpose(2, 1, 0))
    sim.t = t
    if deltay is not None:
        sim.deltay = deltay
    return sim


def _read_processes(datadir, varfile, dim, shape, slots, mine):
    """The fields `slots` on the box `mine` of the interior ((fields, z, y, x)), t, the coordinates (NaN
    where no file read holds them), the files' dtype and deltay, from the processes' files that hold points
    of `mine` (each file checked that exists)."""
    nghost, nprocs = dim["nghost"], dim["procs"]
    interiors = None
    t = file_dtype = deltay = None
    coords = [np.full(n, np.nan) for n in shape]
    for folder, (ipx, ipy, ipz) in _proc_dirs(datadir, nprocs):
        path = os.path.join(folder, varfile)
        if not os.path.exists(path):
            collected = [os.path.join(datadir, "allprocs", name)
                         for name in (varfile, varfile.replace(".dat", "") + ".h5")]
            if any(os.path.exists(c) for c in collected):
                raise ValueError(f"{datadir} holds its snapshot in allprocs/ (the io_mpi2 or HDF5 I/O modules): "
                                 "this version reads the default io_dist layout (procN/var.dat) only")
            raise FileNotFoundError(f"{path} not found (varfile={varfile!r})")
        pdim = read_dim(os.path.join(folder, "dim.dat")) if os.path.exists(os.path.join(folder, "dim.dat")) else None
        local = tuple(n // p for n, p in zip(shape, nprocs))
        mloc = tuple(n + 2 * g for n, g in zip(local, nghost))
        if pdim is not None and (pdim["mx"], pdim["my"], pdim["mz"]) != mloc:
            raise ValueError(f"{folder}/dim.dat gives {pdim['mx']} x {pdim['my']} x {pdim['mz']} points, "
                             f"{mloc} expected from data/dim.dat")
        least = math.prod(mloc) * dim["mvar"] * 4  # bytes of the fields in single precision
        if least > os.path.getsize(path):  # before anything that size is read or allocated
            raise ValueError(f"{os.path.join(datadir, 'dim.dat')} gives {' x '.join(map(str, mloc))} points a process "
                             f"and mvar = {dim['mvar']} fields, at least {least} bytes, but {path} has "
                             f"{os.path.getsize(path)}: dim.dat is damaged or from another run")
        lo = [ip * n for ip, n in zip((ipx, ipy, ipz), local)]
        overlap = [slice(max(lo[a], mine[a].start), min(lo[a] + local[a], mine[a].stop)) for a in range(3)]
        if any(o.start >= o.stop for o in overlap):
            continue  # a process that holds none of this rank's points
        fields, tp, x, y, z, fdt, deltay = _read_snapshot(path, mloc)
        if fields.shape[0] < dim["mvar"]:
            raise ValueError(f"{path} holds {fields.shape[0]} fields, dim.dat says mvar = {dim['mvar']}")
        if t is None:
            t, file_dtype = tp, fdt
            interiors = np.empty((len(slots),) + tuple(s.stop - s.start for s in mine)[::-1], dtype=fdt)
        elif tp != t:
            raise ValueError(f"{path} is at t = {tp}, the first process read at t = {t}: the snapshot is inconsistent")
        into = tuple(slice(o.start - m.start, o.stop - m.start) for o, m in zip(overlap, mine))[::-1]
        frm = tuple(slice(o.start - lo[a] + g, o.stop - lo[a] + g)
                    for a, (o, g) in enumerate(zip(overlap, nghost)))[::-1]
        for k, slot in enumerate(slots.values()):
            interiors[(k,) + into] = fields[(slot - 1,) + frm]
        for a, (c, g) in enumerate(zip((x, y, z), nghost)):
            coords[a][lo[a]:lo[a] + local[a]] = c[g:g + local[a]]
    return interiors, t, coords, file_dtype, deltay


def read_ts(datadir):
    """Read a Pencil Code ``time_series.dat`` as a NumPy structured array.

    Parameters
    ----------
    datadir : str or path
        The data directory, the run directory above it, or the file itself.

    The column names come from the header line (``#--it-----t-----urms--``);
    ``it`` is an integer column, all others float64.  When the header
    changes part way (a restart with another ``print.in``), the columns are
    the union of all headers and missing entries are NaN; Fortran overflow
    fields (``****``) are NaN as well.
    """
    path = os.fspath(datadir)
    if os.path.isdir(path):
        path = os.path.join(path, "time_series.dat")
        if not os.path.exists(path) and os.path.exists(os.path.join(os.path.dirname(path), "data", "time_series.dat")):
            path = os.path.join(os.path.dirname(path), "data", "time_series.dat")  # the run directory was given
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} not found")
    number = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[EeDd][-+]?\d+|[-+]\d{3})?|[-+]?(?:nan|inf(?:inity)?)|\*+",
                        re.IGNORECASE)
    names, rows, columns = [], [], None
    with open(path) as f:
        for line in f:
            stripped = line.strip()
            if not stripped:
                continue
            if stripped[0] in "#%":
                columns = [c for c in re.split(r"-+", stripped.lstrip("#%").strip()) if c.strip()]
                columns = [c.strip() for c in columns]
                names.extend(c for c in columns if c not in names)
                continue
            if columns is None:
                raise ValueError(f"{path}: a data line comes before the header line (#--it----t--...)")
            values = []
            for tok in number.findall(stripped):
                if tok.startswith("*"):
                    values.append(math.nan)
                else:
                    tok = re.sub(r"(\d)([-+]\d{3})$", r"\1E\2", tok.replace("D", "E").replace("d", "e"))
                    values.append(float(tok))
            if len(values) != len(columns):
                raise ValueError(f"{path}: the line {stripped!r} has {len(values)} numbers for the "
                                 f"{len(columns)} columns {columns}")
            rows.append(dict(zip(columns, values)))
    dtype = np.dtype([(n, np.int64 if n == "it" else np.float64) for n in names])
    out = np.zeros(len(rows), dtype=dtype)
    for n in names:
        col = np.array([r.get(n, math.nan) for r in rows], dtype=np.float64)
        out[n] = col if n != "it" else np.where(np.isnan(col), -1, col)
    return out


# --- writing --------------------------------------------------------------------------------------
class _RecordWriter:
    """One Fortran unformatted record of `total` bytes written to f piece by piece, split into gfortran's
    subrecords where it passes _MAX_SUBRECORD bytes (little-endian markers)."""

    def __init__(self, f, total):
        self.f, self.left, self.first = f, total, True
        self._open()

    def _open(self):
        self.length = self.room = min(self.left, _MAX_SUBRECORD)
        self.f.write(struct.pack("<i", -self.length if self.left > self.length else self.length))
        if self.room == 0:  # an empty record
            self._close()

    def _close(self):
        self.f.write(struct.pack("<i", self.length if self.first else -self.length))
        self.first = False
        if self.left:
            self._open()

    def write(self, data):
        data = memoryview(data).cast("B")
        while data.nbytes:
            if self.left == 0:
                raise ValueError("more data than the record holds")
            part = data[:self.room]
            self.f.write(part)
            self.room -= part.nbytes
            self.left -= part.nbytes
            data = data[part.nbytes:]
            if self.room == 0:
                self._close()

    def close(self):
        if self.left:
            raise ValueError(f"the record is {self.left} bytes short")


def _write_record(f, array):
    data = np.ascontiguousarray(array)
    writer = _RecordWriter(f, data.nbytes)
    writer.write(data)
    writer.close()


def write_var(sim, datadir, varfile="var.dat", procs=(1, 1, 1)):
    """Write a simulation as a Pencil Code snapshot that ``run.x`` continues from.

    procs: the Pencil run's processes along x, y and z (its ``nprocx``,
    ``nprocy``, ``nprocz`` in ``src/cparam.local``; each must divide the
    grid's points along its axis): ``procN/`` holds process N's subdomain
    with its ghost zones, N = ipx + nprocx (ipy + nprocy ipz), as its
    ``run.x`` under MPI reads them.  The default is one process, below.

    Writes, under `datadir` (created if missing): ``proc0/<varfile>``,
    ``proc0/grid.dat``, ``proc0/dim.dat``, ``allprocs/grid.dat``,
    ``dim.dat``, ``index.pro``, and where none exists a minimal
    ``param.nml`` (``xyz0``, ``Lxyz``, ``lperi``, ``cs0``, ``gamma = 1``
    or, with ``energy="entropy"``, ``gamma``, ``cp``, ``rho0``; units) and
    ``param2.nml`` (``nu``, ``ivisc``, ``eta``, ``B_ext``, ``iheatcond``,
    ``chi``, ...; with walls ``lperi``, ``bcx``/``bcy``/``bcz`` and
    ``fbc?1``/``fbc?2``, with gravity ``grav_init_pars`` and
    ``grav_run_pars``).  One process, the simulation's precision, the fields
    in the Pencil Code's order (``uu``, ``lnrho``, ``ss``, then ``aa``) with
    ghost zones as the Pencil Code fills them: periodic images, and at walls
    those of its ``src/boundcond.f90``.

    The Pencil run that continues must be compiled for the same grid
    (``src/cparam.local``), precision (``REAL_PRECISION``), processes
    (one: ``nompicomm``; else ``mpicomm`` and `procs`) and modules (``noentropy`` or, for ``energy="entropy"``,
    ``entropy``; ``eos_idealgas``; ``magnetic`` for MHD; ``gravity_simple``
    with gravity; ``pscalar_nolog`` with passive scalars, and ``npscalar =
    2`` in ``cparam.local`` for two, which the Pencil Code diffuses with its
    one ``pscalar_diff``: two different diffusivities are refused); its
    ``run.in`` gives ``nu``, ``eta``, ``B_ext``, ``pscalar_diff`` with
    ``lpscalar_diff_simple = T``, the
    walls, ... as always.  A ``dim.dat`` or ``param.nml`` already in
    `datadir` for another grid, box, walls (``lperi``) or ``gamma`` is
    refused with a ``ValueError``, and one of the files above that exists
    read-only (e.g. mode 0444) with a ``PermissionError``, before any is
    written (even as root).  The points are written where ``sim.x``
    has them; the Pencil Code puts a periodic axis's at
    ``x0 + (i + 1/2) dx`` and a wall axis's at ``x0 + i dx``, as
    ``read_var`` gives.  Every file is written to a temporary (without a
    name on Linux) and flushed to disk; then a commit record lists them and
    all are renamed over their targets, ``var.dat`` last
    (astaroth.io.atomic_files).  A writer killed at any moment leaves each
    file whole, never empty, and the next ``read_var`` or ``write_var`` of
    that directory first sets right what it left: killed before the commit
    record, the earlier set stands as it was and its temporaries go; after
    it, the remaining renames are made and the new set stands whole.

    On a grid split over MPI ranks (``comm=``), every rank calls it; rank 0
    writes every file, taking each process's box one field at a time from
    the ranks that hold its points, so that no rank holds the whole grid;
    the files are those one process writes, byte for byte.

    Returns the path of the snapshot written.
    """
    from . import io as _io
    from .simulation import Simulation
    if not isinstance(sim, Simulation):
        raise TypeError(f"sim must be an astaroth.Simulation, got {type(sim).__name__}")
    if not isinstance(varfile, str) or not varfile or os.sep in varfile:
        raise ValueError(f"varfile must be a file name such as 'var.dat' or 'VAR1', got {varfile!r}")
    procs = _check_procs(procs, sim.shape)
    datadir = os.fspath(datadir)
    names = [n for n in _PENCIL_ORDER if n in sim.field_names]
    extra = [n for n in sim.field_names if n not in names]
    if extra:
        raise ValueError(f"the fields {extra} have no Pencil Code counterpart in this version")
    if "cc2" in names and sim.pscalar_diff2 != sim.pscalar_diff:
        raise ValueError(f"pscalar_diff2 = {sim.pscalar_diff2} differs from pscalar_diff = {sim.pscalar_diff}: the "
                         "Pencil Code's pscalar_nolog diffuses all its npscalar scalars with one pscalar_diff")
    _rotation_values(sim)  # refuses a rotation the Pencil Code cannot express, before any work
    shape, dtype = sim.shape, sim.dtype
    nghost = (3, 3, 3)  # the Pencil Code keeps 3 ghost points on every axis, flat ones too (cparam.f90)
    m = tuple(n + 2 * g for n, g in zip(shape, nghost))
    split = sim._parallel is not None
    if split and any(a in sim.boundaries and n // q < g for a, (n, q, g) in zip("xyz", zip(shape, procs, nghost))):
        raise ValueError(f"procs={procs} leaves a process fewer than 3 points along a wall axis of the grid "
                         f"{tuple(shape)}: its wall ghosts would mirror another process's points")
    if sim.is_root:
        _cleanup(datadir)  # a write killed here before: its set whole (the new or the earlier) for the checks below
    if split:
        sim._parallel.comm.Barrier()  # the checks below see the set the cleanup left
    _check_target(sim, datadir, m, procs)
    if not split:
        whole = [_with_ghosts(sim, name, nghost) for name in names]  # [x, y, z] each
    coords = [sim.x, sim.y, sim.z]
    ghosted = [np.asarray(c[0] + d * (np.arange(mm) - g) if n > 1 else np.full(mm, c[0]), dtype=dtype)
               for c, d, mm, g, n in zip(coords, sim.spacing, m, nghost, shape)]
    spacing = np.asarray(sim.spacing, dtype=dtype)
    t = np.asarray([sim.t], dtype=dtype)

    # each process's subdomain with its ghost zones: a box of the whole grid's ghosted arrays
    local = [n // q for n, q in zip(shape, procs)]
    processes = [((ipx, ipy, ipz), os.path.join(datadir, f"proc{ipx + procs[0] * (ipy + procs[1] * ipz)}"))
                 for ipz in range(procs[2]) for ipy in range(procs[1]) for ipx in range(procs[0])]
    boxes = [tuple(slice(i * nl, i * nl + nl + 2 * g) for i, nl, g in zip(ip, local, nghost)) for ip, _ in processes]
    path = os.path.join(processes[0][1], varfile)

    def blocks():
        """Each process's fields on its box, in the order var.dat holds them, and whether each is its last (None
        on the ranks but 0): on a split grid each a collective in which rank 0 gets one field's box
        (_ghosted_box), so that no rank holds the whole grid."""
        for box in boxes:
            for k, name in enumerate(names):
                yield (_ghosted_box(sim, name, nghost, box) if split else whole[k][box]), k == len(names) - 1

    if not sim.is_root:  # a grid split over MPI ranks: rank 0 writes, the others send it their part of each box
        for _ in blocks():
            pass
        return _split_outcome(sim, None, path)
    grids = [os.path.join(folder, "grid.dat") for _, folder in processes] + [os.path.join(datadir, "allprocs",
                                                                                          "grid.dat")]
    dim, index = os.path.join(datadir, "dim.dat"), os.path.join(datadir, "index.pro")
    for folder in [folder for _, folder in processes] + [os.path.join(datadir, "allprocs")]:
        os.makedirs(folder, exist_ok=True)
    inverse = [np.full(mm, 1 / d if n > 1 else 0.0, dtype=dtype) for mm, d, n in zip(m, sim.spacing, shape)]

    def grid_records(box):
        """grid.dat's records for the box (of every axis's ghosted points) of one process, or the whole grid."""
        coords = [c[b] for c, b in zip(ghosted, box)]
        return (np.concatenate([t, *coords, spacing]), spacing, np.asarray(sim.box, dtype=dtype),
                np.concatenate([v[b] for v, b in zip(inverse, box)]),
                np.zeros(sum(c.size for c in coords), dtype=dtype))  # the last: dx_tilde, 0 on an equidistant grid

    whole_box = tuple(slice(0, mm) for mm in m)
    precision = "D" if dtype == np.float64 else "S"

    def head(mm):
        return "".join(f"{v:7d}" for v in (*mm, len(names), 0, 0)) + f"\n{precision}\n" + \
            "".join(f"{g:5d}" for g in nghost) + "\n"
    lines = []
    for k, name in enumerate(names, start=1):
        if name == "ux":
            lines.append(f" iuu={k}")
        if name == "ax":
            lines.append(f" iaa={k}")
        lines.append(f" {_INDEX_OF[name]}={k}")
        if name == "cc" and "cc2" in names:  # npscalar = 2: icc, icc1, icc2
            lines.append(f" icc1={k}")
    texts = {dim: head(m) + "".join(f"{v:5d}" for v in (*procs, 1)) + "\n", index: "\n".join(lines) + "\n"}
    for ip, folder in processes:
        texts[os.path.join(folder, "dim.dat")] = (head(tuple(nl + 2 * g for nl, g in zip(local, nghost))) +
                                                  "".join(f"{v:5d}" for v in ip) + "\n")
    for name, write in (("param.nml", _start_parameters), ("param2.nml", _run_parameters)):
        if not os.path.exists(os.path.join(datadir, name)):  # where none exists (the Pencil run's own stays)
            texts[os.path.join(datadir, name)] = write(sim, names)
    # every file written to a temporary (unnamed where the system allows) and flushed, then committed and all
    # renamed, the snapshot last: after a kill the next read_var or write_var finds the earlier set whole or
    # the new one (astaroth.io.atomic_files; a read-only file is refused before any work)
    targets = [(g, "Pencil Code file") for g in grids] + [(p, "Pencil Code file") for p in texts]
    snapshots = [(os.path.join(folder, varfile), "Pencil Code snapshot") for _, folder in processes]
    fields = blocks()
    failure = None  # on a split grid rank 0 goes on taking its part of every box after an error, then raises it
    try:
        with _io.atomic_files(targets + snapshots) as files:
            for out, box in zip(files[:len(grids)], boxes + [whole_box]):
                for record in grid_records(box):
                    _write_record(out, record)
            for out, text in zip(files[len(grids):len(targets)], texts.values()):
                out.write(text.encode())
            sheared = [np.asarray([sim.deltay], dtype=dtype)] if sim.shear != 0 else []  # wsnap's deltay (io_dist)
            # var.dat: a record of every field on the process's box, (nvar, mz, my, mx) with x fastest, written
            # field by field; then one of t, the coordinates and the spacings
            size = len(names) * math.prod(nl + 2 * g for nl, g in zip(local, nghost)) * np.dtype(dtype).itemsize
            for out, box in zip(files[len(targets):], boxes):
                record = _RecordWriter(out, size)  # past 2 GiB in subrecords, as gfortran writes them
                for block, last in fields:
                    if isinstance(block, _PartFailed):  # raised here: the boxes left are still taken below
                        raise RuntimeError(block.message)
                    record.write(np.ascontiguousarray(block.transpose(2, 1, 0)))
                    if last:
                        break
                record.close()
                _write_record(out, np.concatenate([grid_records(box)[0]] + sheared))
    except BaseException as error:
        if not split:
            raise
        failure = error
        for _ in fields:  # the boxes not yet taken, as the other ranks send them
            pass
    return _split_outcome(sim, failure, path)


class _PartFailed:
    """A rank's part of a box that it could not read (_ghosted_box): its message, for rank 0 to raise."""

    def __init__(self, message):
        self.message = message


def _ghosted_box(sim, name, nghost, box):
    """Field `name` of a grid split over MPI ranks on `box` (slices of the whole grid's ghosted array, [x, y,
    z]) with the ghost values _with_ghosts gives, on rank 0 (None on the others): a collective in which each
    rank sends rank 0 only what it holds of the box, periodic images included.  A rank that cannot read its
    part sends why, and rank 0 gets a _PartFailed in place of the box."""
    d = sim._parallel
    parts = []
    for a, b in enumerate(box):
        at = np.arange(b.start, b.stop)
        point = (at - nghost[a]) % sim.shape[a]  # the interior point each ghosted index is, or is the image of
        mine = (point >= d.offset[a]) & (point < d.offset[a] + d.local_shape[a])
        parts.append((at[mine] - b.start, point[mine] - d.offset[a]))
    piece = None
    try:
        if all(where.size for where, _ in parts):
            piece = ([where for where, _ in parts], sim._local_field(name)[np.ix_(*[of for _, of in parts])])
    except Exception as error:  # said in the gather, so that rank 0 does not wait for this rank's part
        piece = _PartFailed(f"rank {d.rank} could not read its part of {name!r}: {type(error).__name__}: {error}")
    pieces = d.comm.gather(piece, root=0)
    if not sim.is_root:
        return None
    failed = [got for got in pieces if isinstance(got, _PartFailed)]
    if failed:
        return failed[0]
    out = np.empty(tuple(b.stop - b.start for b in box), dtype=sim.dtype)
    for got in pieces:
        if got is not None:
            out[np.ix_(*got[0])] = got[1]
    _wall_ghosts(out, sim, name, nghost, tuple(b.start for b in box))
    return out


def _split_outcome(sim, failure, path):
    """path, or on a split grid where rank 0 failed to write, its error raised there and named on every other
    rank (after every rank took part in every box)."""
    if sim._parallel is None:
        return path
    said = sim._parallel.comm.bcast(None if failure is None else f"{type(failure).__name__}: {failure}", root=0)
    if failure is not None:
        raise failure
    if said is not None:
        raise RuntimeError(f"rank 0 could not write the Pencil Code snapshot: {said}")
    return path


def _check_procs(procs, shape):
    """procs as three positive integers that divide the grid's points along their axes, or a ValueError."""
    try:
        given = tuple(procs)
        ok = len(given) == 3 and all(isinstance(q, (int, np.integer)) and not isinstance(q, bool) for q in given)
        ok = ok and all(q >= 1 and n % q == 0 for q, n in zip(given, shape))
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"procs must be three positive integers (nprocx, nprocy, nprocz) that divide the grid's "
                         f"points {tuple(shape)} along their axes, got {procs!r}")
    return tuple(int(q) for q in given)


def _with_ghosts(sim, name, nghost):
    """A field with the ghost zones the Pencil Code writes: periodic images, then the walls' ghosts axis by
    axis (_wall_ghosts)."""
    f = np.pad(sim[name], [(g, g) for g in nghost], mode="wrap")
    _wall_ghosts(f, sim, name, nghost, (0, 0, 0))
    return f


def _wall_ghosts(f, sim, name, nghost, origin):
    """The walls' ghosts of field `name` written into f, the box of the whole grid's ghosted array ([x, y,
    z]) that starts at `origin`, for each wall face whose ghosts and mirror points the box holds, axis by
    axis with the Pencil Code's arithmetic (src/boundcond.f90, bc_sym_x/y/z: 2 w - f at the lower wall,
    w + (w - f) at the upper; the wall value of 'a' is 0 and that of 'set' the value)."""
    for axis, kinds in sim.boundaries.items():
        a = "xyz".index(axis)
        g, n = nghost[a], sim.shape[a]
        v = np.moveaxis(f, a, 0)  # a view: writing v writes f
        for face, spec in enumerate(kinds[name]):
            kind, _, value = spec.partition(":")
            w = (g if face == 0 else g + n - 1) - origin[a]
            step = -1 if face == 0 else 1
            if not (0 <= w - step * g < v.shape[0] and 0 <= w + step * g < v.shape[0]):
                continue  # a box of a process away from this wall
            if kind == "set":
                v[w] = float(value)
            for i in range(1, g + 1):
                mirror, wall = v[w - step * i], v[w]
                v[w + step * i] = (mirror if kind == "s" else -mirror if kind == "a"
                                   else 2 * wall - mirror if face == 0 else wall + (wall - mirror))
            if kind == "a":
                v[w] = 0


def _pencil_xyz0(sim):
    """The Pencil Code's xyz0: a periodic axis's points sit at x0 + (i + 1/2) dx, a wall axis's first point
    on x0."""
    walls = sim.boundaries
    return tuple(o if a in walls else o - d / 2 for a, o, d in zip("xyz", (sim.x[0], sim.y[0], sim.z[0]),
                                                                   sim.spacing))


def _wall_values(sim, names):
    """The namelist lines of run_pars/init_pars for the walls: lperi, and bcx/bcy/bcz with fbc?1/fbc?2 (the
    'set' values) of a wall axis, for the fields in the order written."""
    walls = sim.boundaries
    lines = [" LPERI= " + ",".join("F" if a in walls else "T" for a in "xyz") + ",\n"]
    if sim.shear != 0:  # the shearing box's x faces (src/shear.f90, boundcond_shear)
        lines.append(" BCX= " + ", ".join(["'she'"] * len(names)) + ",\n")
    for axis, kinds in walls.items():
        pairs = [tuple(k.partition(":")[0] for k in kinds[n]) for n in names]
        bc = [lo if lo == hi else f"{lo}:{hi}" for lo, hi in pairs]
        lines.append(f" BC{axis.upper()}= " + ", ".join(repr(b) for b in bc) + ",\n")
        for face in (0, 1):
            values = [float(kinds[n][face].partition(":")[2] or 0.0) for n in names]
            lines.append(f" FBC{axis.upper()}{face + 1}= " + ", ".join(repr(v) for v in values) + ",\n")
    return "".join(lines)


def _gravity_group(sim, group):
    """gravity_simple's namelist group with constant profiles for sim.gravity, or "" without gravity."""
    if not any(sim.gravity):
        return ""
    return (f"&{group}\n" + "".join(f" GRAV{a}_PROFILE={'const' if g else 'zero'!r},\n GRAV{a}= {float(g)!r},\n"
                                    for a, g in zip("XYZ", sim.gravity)) + "/\n")


def _check_target(sim, datadir, m, procs=(1, 1, 1)):
    """Refuse to write over a Pencil data directory made for another grid, box or process layout."""
    dim_path = os.path.join(datadir, "dim.dat")
    if os.path.exists(dim_path):
        dim = read_dim(dim_path)
        if (dim["mx"], dim["my"], dim["mz"]) != m or dim["procs"] != procs:
            raise ValueError(f"{dim_path} is for {dim['mx']} x {dim['my']} x {dim['mz']} points (ghost zones "
                             f"included) on {dim['procs']} processes; this simulation needs {m} on {procs} (procs=): "
                             "the Pencil run must be compiled for the same grid and processes (src/cparam.local)")
    param_path = os.path.join(datadir, "param.nml")
    if os.path.exists(param_path):
        init = read_namelist(param_path).get("init_pars", {})
        for key, ours in (("lxyz", sim.box), ("xyz0", _pencil_xyz0(sim))):
            if key in init and not np.allclose(_as_list(init[key]), ours, rtol=1e-6, atol=1e-6 * max(sim.box)):
                raise ValueError(f"{param_path} has {key} = {init[key]}, this simulation {tuple(ours)}: "
                                 "the Pencil run would put the points elsewhere")
        theirs = _as_list(init.get("lperi", True))
        if any(n > 1 and (p is True) != (a not in sim.boundaries) for a, n, p in zip("xyz", sim.shape, theirs)):
            raise ValueError(f"{param_path} has lperi = {theirs}, this simulation walls on "
                             f"{', '.join(sim.boundaries) or 'no axis'}: the Pencil run would have other walls")
        entropy = sim.energy == "entropy"
        ours = float(sim.gamma) if entropy else 1.0
        gamma = read_namelist(param_path).get("eos_init_pars", {}).get("gamma", 5.0 / 3.0 if entropy else 1.0)
        if not math.isclose(gamma, ours, rel_tol=1e-6):
            raise ValueError(f"{param_path} has gamma = {gamma}, this simulation {ours}"
                             + ("" if entropy else ": an isothermal run needs gamma = 1"))


def _eos_values(sim):
    """The eos_idealgas namelist lines after CS0: gamma = 1 for an isothermal run; gamma, cp, rho0 with entropy."""
    if sim.energy != "entropy":
        return " RHO0= 1.0,\n GAMMA= 1.0,\n"
    return f" RHO0= {float(sim.rho0)!r},\n GAMMA= {float(sim.gamma)!r},\n CP= {float(sim.cp)!r},\n"


# The Pencil Code's temperature unit in cgs with unit_velocity = 1 and mu = 1 for cp = 1, gamma = 1: m_u / k_B
# (src/eos_idealgas.f90, units_eos), as its start.x writes it.
_UNIT_TEMPERATURE_CP1 = 1.2027220936797545E-008


def _unit_temperature(sim):
    """unit_temperature that makes the Pencil Code's cp (units_eos: Rgas = mu (1 - 1/gamma) cp) ours."""
    if sim.energy != "entropy":
        return _UNIT_TEMPERATURE_CP1
    return _UNIT_TEMPERATURE_CP1 * float(sim.cp) * (1 - 1 / float(sim.gamma))


def _start_parameters(sim, names):
    """A minimal param.nml (what start.x would record) where none exists: grid, box and equation of state.

    run.x reads it before run.in; namelist entries left out keep the Pencil Code's defaults.  In its
    cgs units mu0 = 4 pi (unit_velocity / unit_magnetic)^2, hence unit_magnetic = sqrt(4 pi / mu0)."""
    def values(v):
        return ", ".join(repr(float(x)) for x in v)
    text = (f"&INIT_PARS\n XYZ0= {values(_pencil_xyz0(sim))},\n LXYZ= {values(sim.box)},\n"
            f"{_wall_values(sim, names)} LEQUIDIST= 3*T,\n COORD_SYSTEM='cartesian',\n UNIT_SYSTEM='cgs',\n UNIT_LENGTH= 1.0,\n"
            " UNIT_VELOCITY= 1.0,\n UNIT_DENSITY= 1.0,\n"
            f" UNIT_TEMPERATURE= {_unit_temperature(sim)!r},\n"
            f" UNIT_MAGNETIC= {math.sqrt(4 * math.pi / sim.mu0)!r},\n MU0= {float(sim.mu0)!r},\n"
            " LWRITE_AUX=F,\n LWRITE_2D=F,\n/\n"
            f"&EOS_INIT_PARS\n CS0= {float(sim.cs)!r},\n{_eos_values(sim)}/\n"
            f"&HYDRO_INIT_PARS\n{_rotation_values(sim, theta=False)}/\n&DENSITY_INIT_PARS\n/\n" + _gravity_group(sim, "GRAV_INIT_PARS"))
    if sim.energy == "entropy":
        text += "&ENTROPY_INIT_PARS\n/\n"
    if sim.physics == "mhd":
        text += "&MAGNETIC_INIT_PARS\n/\n"
    if "cc" in names:
        text += "&PSCALAR_INIT_PARS\n/\n"
    text += _shear_group(sim, "SHEAR_INIT_PARS")
    return text + (f"&lphysics\n lshear={'T' if sim.shear != 0 else 'F'},\n/\n"
                   "&IO_PARS\n LCOLLECTIVE_IO=F,\n IO_STRATEGY='dist',\n/\n")


def _run_parameters(sim, names):
    """A param2.nml (what run.x records from run.in) with this simulation's run-time parameters.

    run.x writes its own from run.in; this one lets read_var (and pencil.read.param) give the
    parameters back.  The same values belong in the run.in of a Pencil run that continues."""
    def values(v):
        return ", ".join(repr(float(x)) for x in v)
    ivisc = [mode for mode, on in (("nu-const", sim.nu), ("hyper3-simplified", sim.nu_hyper3),
                                   ("nu-shock", sim.nu_shock)) if on]
    text = (f"&RUN_PARS\n XYZ0= {values(_pencil_xyz0(sim))},\n LXYZ= {values(sim.box)},\n"
            f"{_wall_values(sim, names)} COORD_SYSTEM='cartesian',\n/\n"
            f"&EOS_RUN_PARS\n CS0= {float(sim.cs)!r},\n{_eos_values(sim) if sim.energy == 'entropy' else ''}/\n"
            f"&VISCOSITY_RUN_PARS\n NU= {float(sim.nu)!r},\n NU_HYPER3= {float(sim.nu_hyper3)!r},\n"
            f" NU_SHOCK= {float(sim.nu_shock)!r},\n IVISC= {', '.join(repr(m) for m in ivisc) or repr('')},\n/\n"
            f"&DENSITY_RUN_PARS\n DIFF_HYPER3= {float(sim.diff_hyper3)!r},\n"
            f" IDIFF= {repr('hyper3-lnrho') if sim.diff_hyper3 else repr('')},\n/\n"
            + _gravity_group(sim, "GRAV_RUN_PARS"))
    if any(sim.omega):
        text += f"&HYDRO_RUN_PARS\n{_rotation_values(sim)}/\n"
    if sim.energy == "entropy":
        iheatcond = [mode for mode, on in (("chi-const", sim.chi), ("hyper3_ss", sim.chi_hyper3)) if on]
        text += (f"&ENTROPY_RUN_PARS\n IHEATCOND= {', '.join(repr(m) for m in iheatcond) or repr('nothing')},\n"
                 f" CHI= {float(sim.chi)!r},\n CHI_HYPER3= {float(sim.chi_hyper3)!r},\n/\n")
    if sim.physics == "mhd":
        text += (f"&MAGNETIC_RUN_PARS\n ETA= {float(sim.eta)!r},\n B_EXT= {values(sim.b_ext)},\n"
                 " IRESISTIVITY='eta-const',\n/\n")
    if "cc" in names:
        text += f"&PSCALAR_RUN_PARS\n PSCALAR_DIFF= {float(sim.pscalar_diff)!r},\n LPSCALAR_DIFF_SIMPLE=T,\n/\n"
    return text + _shear_group(sim, "SHEAR_RUN_PARS")


def _shear_group(sim, group):
    """src/shear.f90's namelist group with Sshear and x0_shear (qshear 0: Sshear as given), or "" without
    shear; deltay travels in the snapshot."""
    if sim.shear == 0:
        return ""
    return f"&{group}\n SSHEAR= {float(sim.shear)!r},\n X0_SHEAR= {float(sim.x0_shear)!r},\n/\n"
