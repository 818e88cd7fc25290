"""HDF5 snapshots and checkpoints (h5py), with an XDMF index for ParaView/VisIt.

    sim.save("snap.h5")          # fields, coordinates, time, step, parameters, forcing state
    sim2 = ac.load("snap.h5")    # a Simulation to analyse or to continue, bit for bit

Files are written to a temporary in the same folder (without a name where
Linux's O_TMPFILE allows), flushed to disk and then renamed over the target,
so a writer killed mid-write never spoils an earlier file of that name; a
snapshot's XDMF index goes with it (a kill never leaves the old index
beside a new snapshot).  What a writer killed in the instant of naming and
renaming left (a whole `.tmp-*` file, renames of a committed pair still to
make) the next writer or reader of that folder sets right (cleanup_folder).
Needs h5py (``pip install ".[io]"``).
"""
import contextlib
import errno
import json
import os
import re
import socket
import stat

import numpy as np

from . import parameters as registry
from .simulation import _FIELD_BUFFER, FIELDS, Simulation

FORMAT = "astaroth-snapshot-1"
# What every snapshot of a module has recorded since the module existed, besides REQUIRED: such a
# snapshot without them is damaged or forged.  Parameters added to a module later are not listed: a
# snapshot that lacks one was written before it existed and takes its default (astaroth.parameters()).
MODULE_ATTRIBUTES = {"magnetic": ("eta", "mu0", "b_ext")}


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("HDF5 snapshots need h5py: pip install h5py (or the package's [io] extra)") from None
    return h5py


# Temporary files of an atomic write: .tmp-<host>.<pid>.<random><suffix>, so that a later writer or reader in
# that folder can tell that the process which made one is gone (cleanup_folder); a commit record, which lists
# the renames of a set of files, ends in COMMIT.
TMP_PREFIX = ".tmp-"
COMMIT = ".commit"
_TEMPORARY = re.compile(r"^\.tmp-(?P<host>[A-Za-z0-9_-]+)\.(?P<pid>\d+)\.[0-9a-f]{12}")


def _host():
    """This machine's name as a temporary's name holds it (a pid tells a live writer only on its own host)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname())[:40] or "host"


def _temporary_name(suffix):
    return f"{TMP_PREFIX}{_host()}.{os.getpid()}.{os.urandom(6).hex()}{suffix}"


def _writer_gone(name):
    """Whether the temporary `name` is one whose writer, on this host, has ended (killed while writing)."""
    m = _TEMPORARY.match(name)
    if m is None or m["host"] != _host() or int(m["pid"]) == os.getpid():
        return False
    try:
        os.kill(int(m["pid"]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _umask():
    mask = os.umask(0)  # the only portable way to read it
    os.umask(mask)
    return mask


def _sync_folder(folder):
    """Flush a folder's entries (new names, renames) to disk; a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def cleanup_folder(folder, everything=False):
    """What writers killed in `folder` left, set right; returns the names removed.

    A commit record (a set of files that were all written and flushed,
    killed while being renamed over their targets) is finished: its
    remaining renames are made, so the set is the new one whole.  Then the
    temporaries of writers that have ended are removed, so the earlier
    files stand as they were.  Temporaries of a writer still running (this
    process, or a live process of this host) are left alone; everything=True
    removes every `.tmp-*` name that is not a live writer's (`astaroth run`
    at its start; also those of older versions and other hosts).  Every
    astaroth writer does this in the folders it writes (atomic_files,
    atomic_path), and ac.load and astaroth.pencil.read_var in the folders
    they read; errors (a read-only folder) are ignored."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if name.startswith(TMP_PREFIX) and name.endswith(COMMIT) and _writer_gone(name):
            _finish(folder, name)
    removed = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        m = _TEMPORARY.match(name)
        live = m is not None and not _writer_gone(name) and (m["host"] == _host() or not everything)
        if name.startswith(TMP_PREFIX) and not live and (everything or m is not None):
            try:
                os.unlink(os.path.join(folder, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def _finish(folder, name):
    """Make the renames that the commit record `name` in `folder` lists and that are still to be made."""
    record = os.path.join(folder, name)
    try:
        with open(record) as f:
            renames = json.load(f)
        for tmp, target in renames:
            tmp, target = os.path.join(folder, tmp), os.path.join(folder, target)
            if os.path.exists(tmp):
                os.replace(tmp, target)
                _sync_folder(os.path.dirname(target))
        os.unlink(record)
    except (OSError, ValueError, TypeError):
        pass  # unreadable: its temporaries go as any dead writer's


def refuse_read_only(path, what):
    """PermissionError naming `path` (a `what`, e.g. "snapshot") where it
    exists and no one may write it (e.g. mode 0444), even as root: replacing
    it would undo its protection.  Returns the mode of an existing `path`,
    None where there is none."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if not mode & 0o222:
        raise PermissionError(errno.EACCES, f"cannot write the {what} {path}: it exists and is read-only (mode "
                                            f"{mode & 0o777:04o}); make it writable (chmod u+w) to replace it, "
                                            f"or write elsewhere")
    return mode


def _naming(error, path, what, temporaries):
    """An OSError like `error` naming `path` and what it is, never its temporary files."""
    reason = error.strerror or str(error)
    for tmp in temporaries:
        if tmp:
            reason = reason.replace(tmp, path)
    text = f"cannot write the {what} {path}: {reason}"
    return OSError(error.errno, text) if error.errno else OSError(text)


def _named_file(folder, suffix):
    """A new file in `folder` under a temporary name, opened for writing: (fd, path)."""
    for _ in range(100):
        path = os.path.join(folder, _temporary_name(suffix))
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name in {folder}")


@contextlib.contextmanager
def atomic_path(path, what):
    """A temporary path beside `path`: what the block writes there replaces
    `path` at once when the block succeeds (flushed to disk first, with the
    mode of the file it replaces, or where there is none the mode a new
    file would get under the umask), and is removed when it fails; a writer
    killed meanwhile leaves it, which the next writer or reader of that
    folder removes (cleanup_folder).  An existing `path` that no one may
    write (e.g. mode 0444) is refused with PermissionError before any work
    (refuse_read_only).  An OSError names `path` and `what` it is, never
    the temporary file."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    mode = refuse_read_only(path, what)
    try:
        cleanup_folder(folder)
        fd, tmp = _named_file(folder, os.path.splitext(path)[1])
        os.close(fd)
        yield tmp
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        raise _naming(e, path, what, [tmp]) from e
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _unnamed_file(folder):
    """A file opened for writing in `folder` that has no name yet (Linux's
    O_TMPFILE), so that a writer killed before it is named leaves nothing
    behind; None where the system or the file system has none."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_RDWR, 0o600)
    except OSError:
        return None


def _link_unnamed(fd, path):
    """Give the unnamed file fd the name `path` (linkat through /proc/self/fd
    with AT_SYMLINK_FOLLOW, which os.link calls when given directory
    descriptors; plain link() would not follow /proc's link): at once,
    whole, and only where no file has that name (FileExistsError
    otherwise)."""
    folder, name = os.path.split(os.path.abspath(path))
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _name_unnamed(fd, folder, suffix):
    """Give the unnamed file fd a temporary name in `folder`; returns it."""
    for _ in range(100):
        path = os.path.join(folder, _temporary_name(suffix))
        try:
            _link_unnamed(fd, path)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name in {folder}")


def _commit(folder, renames):
    """Write the commit record of `renames` ((temporary, target) paths) in
    `folder` at once, flushed to disk: from then on the set is the new one,
    whatever stops the renames (cleanup_folder makes those left); returns
    its path."""
    text = json.dumps([[os.path.relpath(t, folder), os.path.relpath(p, folder)] for t, p in renames]).encode()
    fd = _unnamed_file(folder)
    if fd is None:
        fd, tmp = _named_file(folder, ".part")
    else:
        tmp = None
    try:
        os.write(fd, text)
        os.fsync(fd)
        for _ in range(100):
            record = os.path.join(folder, _temporary_name(COMMIT))
            try:
                if tmp is None:
                    _link_unnamed(fd, record)
                elif not os.path.exists(record):
                    os.rename(tmp, record)  # a new name: never over another record
                    tmp = None
                else:
                    continue
                _sync_folder(folder)
                return record
            except FileExistsError:
                continue
        raise FileExistsError(errno.EEXIST, f"no free temporary name in {folder}")
    finally:
        os.close(fd)
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_files(targets, drop_later=False):
    """Binary files, opened for writing and reading, whose contents replace
    the files `targets` (a list of (path, what) pairs, e.g. ("snap.h5",
    "snapshot")) together when the block succeeds, and are dropped when it
    fails.

    Each is written without a name where the system allows (Linux's
    O_TMPFILE), else under a temporary `.tmp-*` name beside its target.
    When the block has written them, all are flushed to disk and named (a
    new single file straight under its own name); a set of several then gets
    a commit record, and only then are they renamed over their targets.  A
    writer killed at any moment therefore leaves, once the next astaroth
    writer or reader of that folder has set right what it left
    (cleanup_folder, which every writer and ac.load and pencil.read_var
    call): killed before the commit record, the earlier files as they were
    and no temporary; after it, the new set whole.  Until then a kill
    leaves at most the temporaries (whole files) and, killed among the
    renames, some targets new and others old.  The files get the modes of
    the files they replace (where there are none, the mode a new file gets
    under the umask).  drop_later: the later targets are deleted before the
    first is replaced, so that a kill between two renames leaves one missing
    rather than an old one beside the new first (a stale index), even before
    any cleanup.  A read-only target is refused with PermissionError before
    any work (refuse_read_only); an OSError names the target and what it
    is."""
    paths = [os.fspath(p) for p, _ in targets]
    modes = [refuse_read_only(p, what) for p, (_, what) in zip(paths, targets)]
    folders = [os.path.dirname(os.path.abspath(p)) for p in paths]
    common = os.path.commonpath(folders)
    opened, named = [], []  # file objects; the temporary name of each, or None while unnamed
    record, current = None, 0
    try:
        for folder in dict.fromkeys([common] + folders):
            cleanup_folder(folder)
        for current, (path, folder) in enumerate(zip(paths, folders)):
            fd = _unnamed_file(folder)
            if fd is None:
                fd, tmp = _named_file(folder, os.path.splitext(path)[1])
                named.append(tmp)
            else:
                named.append(None)
            opened.append(os.fdopen(fd, "w+b"))
        yield opened
        for current, (f, mode) in enumerate(zip(opened, modes)):
            f.flush()
            os.chmod(f.fileno(), stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
            os.fsync(f.fileno())
        if len(paths) == 1 and named[0] is None and not os.path.lexists(paths[0]):
            try:  # a new file: named at once under its own name, no temporary ever named
                _link_unnamed(opened[0].fileno(), paths[0])
                _sync_folder(folders[0])
                return
            except FileExistsError:
                pass  # made meanwhile: replaced as any other
        for current, (f, path) in enumerate(zip(opened, paths)):
            if named[current] is None:
                named[current] = _name_unnamed(f.fileno(), folders[current], os.path.splitext(path)[1])
        if len(paths) > 1:
            for folder in dict.fromkeys(folders):
                _sync_folder(folder)
            current = 0
            record = _commit(common, list(zip(named, paths)))
        if drop_later:
            for current, path in enumerate(paths[1:], start=1):
                if os.path.lexists(path):
                    os.unlink(path)
        for current, path in enumerate(paths):
            os.replace(named[current], path)
            named[current] = None
        for folder in dict.fromkeys(folders):
            _sync_folder(folder)
        if record is not None:
            os.unlink(record)
            record = None
    except OSError as e:
        raise _naming(e, paths[current], targets[current][1], named) from e
    finally:
        for f in opened:
            f.close()
        for tmp in named + [record]:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)


def save(sim, path, xdmf=True, attributes=None):
    """Write `sim` to the HDF5 file `path` atomically; also `path`.xdmf unless xdmf=False.

    `attributes` (a dict of strings or numbers) are stored as file attributes
    beside the parameters (the command line records its run there).
    The file gets the mode a new file gets under the umask.  Errors name `path`.
    """
    h5py = _h5py()
    path = os.fspath(path)
    if sim.decomposition is not None:
        return _save_split(sim, path, xdmf, attributes or {}, h5py)
    _write_snapshot(sim, path, xdmf, attributes or {}, h5py, fields={name: sim[name] for name in sim.field_names})
    _remove_parts(path)  # a split run's parts written here before
    return path


def _write_snapshot(sim, path, xdmf, attributes, h5py, fields=None, parts=None):
    """`path` (_write: the fields, or the virtual datasets of `parts`) and
    its XDMF index, atomically together: a kill leaves both old, both new,
    or the new snapshot alone."""
    targets = [(path, "snapshot")] + ([(_xdmf_path(path), "XDMF index")] if xdmf else [])
    with atomic_files(targets, drop_later=True) as files:
        _write(sim, files[0], fields, h5py, attributes, parts=parts)
        if xdmf:
            files[1].write(_xdmf_text(path, sim).encode())


PARTS = ".parts"  # beside a split run's snapshot `path`: the folder `path`.parts/ of its ranks' parts


def _check_parts(path, data, name):
    """A virtual dataset's parts (_save_split) must all be there: HDF5 would
    read a missing one as zeros."""
    if not data.is_virtual:
        return
    folder = os.path.dirname(os.path.abspath(path))
    for source in data.virtual_sources():
        part = os.path.join(folder, source.file_name)
        if not os.path.exists(part):
            raise ValueError(f"{path}: dataset 'fields/{name}' is made of the parts a split run wrote beside it, "
                             f"and the part {source.file_name} is missing there (keep that folder beside the "
                             f"snapshot, under that name)")


def _remove_parts(path, keep=None):
    """The parts of earlier split snapshots of `path` deleted (but the set `keep`)."""
    import shutil

    folder = path + PARTS
    if not os.path.isdir(folder):
        return
    for name in os.listdir(folder):
        if name != keep:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    if keep is None:
        shutil.rmtree(folder, ignore_errors=True)


def _part_name(rank):
    return f"rank{rank:05d}.h5"


def _save_split(sim, path, xdmf, attributes, h5py):
    """save() of a grid split over MPI ranks, without gathering it: every
    rank writes its subdomain (`path`.parts/SET/rankNNNNN.h5, each written
    atomically), then rank 0 writes `path` with the parameters and, for each
    field, an HDF5 virtual dataset of the whole grid made of the parts, so
    that `ac.load` (and any HDF5 reader) reads it as one array on any number
    of ranks.  A set of parts has a name of its own and the earlier sets are
    deleted only after `path` names the new one: a kill leaves the earlier
    snapshot whole."""
    comm, d = sim.comm, sim.decomposition
    token = comm.bcast(f"step{sim.steps:010d}-{os.urandom(4).hex()}" if sim.is_root else None, root=0)
    folder = os.path.join(path + PARTS, token)
    error = None
    if sim.is_root:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            error = OSError(f"{path}: cannot make the folder of its parts {folder}: {e.strerror or e}")
    error = comm.bcast(error if sim.is_root else None, root=0)
    if error is not None:
        raise error
    part = os.path.join(folder, _part_name(comm.Get_rank()))
    try:
        with atomic_path(part, "snapshot part") as tmp, h5py.File(tmp, "w") as f:
            for i, name in enumerate(sim.field_names):  # (z, y, x) in C order, as _write stores a whole field
                f.create_dataset(f"fields/{name}", data=np.ascontiguousarray(sim._grid.read(_FIELD_BUFFER, i).T))
    except OSError as e:
        error = e
    if d.allreduce(error is not None, d.MPI.LOR):
        raise error or OSError(f"{path}: another rank could not write its part of the snapshot")
    if not sim.is_root:
        comm.Barrier()  # returns once the snapshot is complete
        return path
    try:
        relative = os.path.relpath(folder, os.path.dirname(os.path.abspath(path)))
        parts = [(os.path.join(relative, _part_name(r)), slices) for r, slices in enumerate(d.all_slices)]
        _write_snapshot(sim, path, xdmf, attributes, h5py, parts=parts)
        _remove_parts(path, keep=token)
    finally:
        comm.Barrier()
    return path


def _write(sim, path, fields, h5py, attributes, parts=None):
    """The snapshot file: parameters, coordinates, forcing, and each field
    from `fields`, or with `parts` ([(file relative to path, slices of the
    whole grid)], _save_split) a virtual dataset made of the parts' fields."""
    with h5py.File(path, "w") as f:
        f.attrs["format"] = FORMAT
        for key, value in sim.parameters().items():
            f.attrs[key] = value
        for key in registry.SWITCHES + registry.NAMES:  # every switch and parameter of csrc/parameters.def
            value = getattr(sim, key)
            f.attrs[key] = np.array(value) if isinstance(value, tuple) else value
        f.attrs["t"] = sim.t
        f.attrs["steps"] = sim.steps
        if sim.shear != 0:  # the shearing box's shift goes on from where it is, as the Pencil Code's snapshots keep it
            f.attrs["deltay"] = sim.deltay
        for key, value in attributes.items():
            f.attrs[key] = value
        for axis, coords in zip("xyz", (sim.x, sim.y, sim.z)):
            f.create_dataset(f"coordinates/{axis}", data=coords)
        for name in sim.field_names:
            # stored (z, y, x) in C order: the same bytes as the solver's x-fastest layout
            if parts is None:
                f.create_dataset(f"fields/{name}", data=np.ascontiguousarray(fields[name].T))
                continue
            layout = h5py.VirtualLayout(shape=sim.shape[::-1], dtype=sim.dtype)
            for file, (sx, sy, sz) in parts:
                shape = (sz.stop - sz.start, sy.stop - sy.start, sx.stop - sx.start)
                layout[sz, sy, sx] = h5py.VirtualSource(file, f"fields/{name}", shape=shape)
            f.create_virtual_dataset(f"fields/{name}", layout)
        if sim.forcing is not None:
            g = f.create_group("forcing")
            for key in ("kmin", "kmax", "f0", "seed", "relhel", "normalize"):
                g.attrs[key] = getattr(sim.forcing, key)
            if sim.forcing.explicit:  # an explicit set (a k.dat file's): the vectors themselves, and its kav
                g.create_dataset("wavevectors", data=sim.forcing.wavenumbers)
                g.attrs["kav"] = sim.forcing.kav
                g.attrs["kdat"] = sim.forcing.kdat or ""
            g.attrs["generator_state"] = np.uint64(sim._grid.forcing_state)
        f.flush()


REQUIRED = {"attributes": ("shape", "box", "origin", "nu", "cs", "dtype", "method", "t", "steps"),
            "fields": tuple(f"fields/{name}" for name in FIELDS),
            "forcing": ("kmin", "kmax", "f0", "seed", "generator_state")}


def _open(path, h5py):
    """The HDF5 file `path` for reading, or an error naming it."""
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, f"no snapshot {path}: the file does not exist")
    if not h5py.is_hdf5(path):
        raise ValueError(f"{path} is not an HDF5 file, so not an astaroth snapshot")
    return h5py.File(path, "r")


def _missing(f):
    """What a complete snapshot has and `f` lacks, as a list of names."""
    missing = [f"attribute {a!r}" for a in REQUIRED["attributes"] if a not in f.attrs]
    missing += [f"dataset {d!r}" for d in REQUIRED["fields"] if d not in f]
    if "forcing" in f:
        missing += [f"forcing attribute {a!r}" for a in REQUIRED["forcing"] if a not in f["forcing"].attrs]
    return missing


def _recorded_parameters(attrs):
    """The switches and physics parameters a snapshot records, {name: value}; those it lacks (snapshots
    written before a parameter existed, or of a module that was off) are left out, to take their defaults."""
    out = {}
    for key in registry.SWITCHES:
        if key in attrs:
            value = attrs[key]
            value = value.decode() if isinstance(value, bytes) else value
            out[key] = bool(value) if isinstance(value, np.bool_) else (str(value) if isinstance(value, str) else value)
    for name in registry.NAMES:
        if name in attrs:
            try:
                value = np.asarray(attrs[name], dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"attribute {name!r} is {attrs[name]!r}, not a number") from None
            out[name] = tuple(float(v) for v in value.ravel()) if registry.row(name)["kind"] == "vector" else float(value)
    return out


def _recorded_boundaries(attrs, path):
    """The walls a snapshot records (astaroth.boundaries' JSON form) as a dict, or None: periodic;
    ValueError naming the file where the attribute is not such a form (damaged or forged)."""
    value = attrs.get("boundaries")
    if value is None:
        return None
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    try:
        walls = json.loads(text)
    except ValueError as e:
        walls, why = None, f"not JSON ({e})"
    else:
        why = "not a table {axis: {field: [lower, upper]}}"
    if not isinstance(walls, dict) or not all(isinstance(t, dict) for t in walls.values()):
        raise ValueError(f"{path}: attribute 'boundaries' is {_short(text)}, {why}: the snapshot is damaged")
    return walls


def _short(text, n=80):
    return repr(text if len(text) <= n else text[:n] + "...")


def load(path, backend="auto", comm=None, exchange="auto", parameters=None, procs=None):
    """A Simulation from a snapshot written by `save`, ready to analyse or continue.

    parameters: {name: value} of physics parameters to take in place of those
    recorded (what `astaroth run --restart` changes); every other parameter
    is read from the file, and one the file lacks gets its default
    (astaroth.parameters()).

    With `comm` every rank reads the file and keeps its own subdomain, on any
    number of ranks (not necessarily the number that wrote it), laid out as
    `procs` says where given (Simulation's procs=).  A file that
    is missing, not HDF5, or not a complete astaroth snapshot is an error
    naming the file and what it lacks.
    """
    h5py = _h5py()
    path = os.fspath(path)
    if comm is None or comm.Get_rank() == 0:  # what a writer killed there left, set right (cleanup_folder)
        cleanup_folder(os.path.dirname(os.path.abspath(path)))
    if comm is not None:
        comm.Barrier()
    try:
        return _load(path, h5py, backend, comm, exchange, parameters, procs)
    except (OSError, KeyError, RuntimeError) as e:  # h5py's errors reading a truncated or damaged file
        if isinstance(e, OSError) and path in str(e):
            raise
        message = f"cannot read the snapshot {path} (truncated or damaged?): {e}"
        if isinstance(e, OSError):
            raise (OSError(e.errno, message) if e.errno else OSError(message)) from e
        raise ValueError(message) from e


def _load(path, h5py, backend, comm, exchange, parameters, procs):
    from .forcing import Forcing

    with _open(path, h5py) as f:
        if f.attrs.get("format") != FORMAT:
            raise ValueError(f"{path} is not an astaroth snapshot (format {f.attrs.get('format')!r})")
        missing = _missing(f)
        if missing:
            raise ValueError(f"{path} is not a complete astaroth snapshot: it lacks {', '.join(missing)}")
        a = f.attrs
        for key in registry.SWITCHES:
            value = a.get(key, registry.default(key))
            value = value.decode() if isinstance(value, bytes) else value
            known = dict((sw["keyword"], sw["values"]) for sw in registry.switches())[key]
            if value not in known:
                value = value.item() if isinstance(value, np.generic) else value  # 3, not np.int64(3)
                raise ValueError(f"{path}: attribute {key!r} is {value!r}, which this version does not know "
                                 f"(one of {', '.join(map(str, known))}); it was written by another program or a "
                                 f"newer version")
        try:
            extra = _recorded_parameters(a)  # absent: the default, as before the parameter existed
            registry.resolve({k: v for k, v in extra.items() if k in registry.NAMES},
                             {k: v for k, v in extra.items() if k in registry.SWITCHES}, str(a["method"]))
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: the recorded parameters are not valid: {e}") from None
        for module in registry.modules_of(extra):
            switch = registry.module_switch(module)
            missing = [f"attribute {key!r}" for key in MODULE_ATTRIBUTES.get(module, ()) if key not in a]
            missing += [f"dataset 'fields/{name}'" for name in registry.field_names((module,))
                        if f"fields/{name}" not in f]
            if missing:
                where = f" ({switch.replace('=', ' ')})" if switch else ""
                raise ValueError(f"{path} is not a complete astaroth snapshot{where}: it lacks {', '.join(missing)}")
        if parameters:
            extra.update(parameters)
        walls = _recorded_boundaries(a, path)
        try:
            sim = Simulation(shape=tuple(int(n) for n in a["shape"]), box=tuple(float(L) for L in a["box"]),
                             dtype=str(a["dtype"]), backend=backend,
                             method=str(a["method"]), origin=tuple(float(o) for o in a["origin"]), comm=comm,
                             exchange=exchange, procs=procs, boundaries=walls, **extra)
        except (TypeError, ValueError) as e:
            if not str(e).startswith("boundaries"):
                raise
            raise ValueError(f"{path}: attribute 'boundaries' is not valid: {e}") from None
        d = sim.decomposition  # split over ranks: each reads its own subdomain only
        for i, name in enumerate(sim.field_names):
            data = f[f"fields/{name}"]
            _check_parts(path, data, name)
            if data.shape != sim.shape[::-1]:
                raise ValueError(f"{path}: dataset 'fields/{name}' has shape {data.shape}, not the grid's "
                                 f"{sim.shape[::-1]} (z, y, x)")
            values = data[...] if d is None else data[d.slices[2], d.slices[1], d.slices[0]]
            finite = bool(np.all(np.isfinite(values)))
            if d is not None:
                finite = not sim._parallel.allreduce(not finite, sim._parallel.MPI.LOR)
            if not finite:
                raise ValueError(f"{path}: dataset 'fields/{name}' holds NaN or Inf (written after a blow-up, or "
                                 f"damaged): it cannot be continued; use an earlier snapshot")
            if d is None:
                sim[name] = values.T
            else:
                sim._grid.write(i, np.asfortranarray(values.T, dtype=sim.dtype))
                sim._fields_as_given = True  # as sim[name] = ... leaves it
        sim.t = float(a["t"])
        sim.steps = int(a["steps"])
        if "deltay" in a:
            sim.deltay = float(a["deltay"])
        if "forcing" in f:
            g = f["forcing"].attrs
            common = dict(f0=float(g["f0"]), seed=int(g["seed"]),
                          relhel=float(g.get("relhel", 0.0)),  # snapshots before helical forcing: 0
                          normalize=str(g.get("normalize", "per_k")))  # ... before normalize: per_k
            if "wavevectors" in f["forcing"]:
                forcing = Forcing(wavevectors=f["forcing/wavevectors"][...], kav=float(g["kav"]), **common)
                forcing.kdat = str(g.get("kdat", "")) or None
            else:
                forcing = Forcing(kmin=float(g["kmin"]), kmax=float(g["kmax"]), **common)
            sim.forcing = forcing
            sim._grid.forcing_state = int(np.uint64(g["generator_state"]))
    return sim


def attributes(path):
    """The file attributes of the snapshot `path`, as a dict (the `attributes` given to save among them)."""
    h5py = _h5py()
    path = os.fspath(path)
    with _open(path, h5py) as f:
        return {key: value.decode() if isinstance(value, bytes) else value for key, value in f.attrs.items()}


def _xml_number(x):
    """x as XML text: the shortest decimal that reads back exactly ('0.0',
    never NumPy 2's 'np.float64(0.0)', which ParaView cannot parse)."""
    return repr(float(x))


def _xdmf_path(h5_path):
    return os.path.splitext(os.fspath(h5_path))[0] + ".xdmf"


def write_xdmf(h5_path, sim):
    """An XDMF file beside `h5_path` describing its fields on a 3-D CoRectMesh
    (XDMF 3: origin and spacing listed z, y, x, as the datasets are stored)."""
    out = _xdmf_path(h5_path)
    with atomic_path(out, "XDMF index") as tmp, open(tmp, "w") as f:
        f.write(_xdmf_text(h5_path, sim))
    return out


def _xdmf_text(h5_path, sim):
    """The text of write_xdmf's file."""
    nx, ny, nz = sim.shape
    dx, dy, dz = (_xml_number(h) for h in sim.spacing)
    origin = " ".join(_xml_number(c[0]) for c in (sim.z, sim.y, sim.x))
    name = os.path.basename(h5_path)
    precision = sim.dtype.itemsize
    attributes = "".join(
        f'''
      <Attribute Name="{field}" AttributeType="Scalar" Center="Node">
        <DataItem Dimensions="{nz} {ny} {nx}" NumberType="Float" Precision="{precision}" Format="HDF">{name}:/fields/{field}</DataItem>
      </Attribute>''' for field in sim.field_names)
    text = f'''<?xml version="1.0" ?>
<Xdmf Version="3.0">
  <Domain>
    <Grid Name="astaroth" GridType="Uniform">
      <Time Value="{_xml_number(sim.t)}"/>
      <Topology TopologyType="3DCoRectMesh" Dimensions="{nz} {ny} {nx}"/>
      <Geometry GeometryType="ORIGIN_DXDYDZ">
        <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">{origin}</DataItem>
        <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">{dz} {dy} {dx}</DataItem>
      </Geometry>{attributes}
    </Grid>
  </Domain>
</Xdmf>
'''
    return text
