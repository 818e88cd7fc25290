"""Domain decomposition over MPI processes (mpi4py).

``Simulation(..., comm=MPI.COMM_WORLD)`` splits the periodic grid into a
Cartesian grid of subdomains, one per rank (and one GPU per rank on the
CUDA backend, chosen by the rank within its node).  Every substep:

1. the ghost zones of the unsplit axes are filled locally (on the GPU the
   streaming kernel reads those periodic images in place instead), and the
   messages to every neighbour across a face, edge or corner of the split
   axes are packed (astaroth/halo_messages.py);
2. the inner part of the subdomain (points at least 3 from every split
   face, so that their stencils read no ghost value still to come) is
   started, and meanwhile the messages travel, in one round;
3. then the shell of the subdomain (slabs along the split faces) is
   computed, on the GPU beside the inner part's end where the messages
   were copied field to field.

The arithmetic per point is that of a single process, so a run gives the
same bits on any number of ranks.  On the GPU the messages go between GPUs
of one node straight into the neighbour's memory through CUDA IPC, MPI
carrying only the "it is there"; else as device buffers when the MPI
library is CUDA-aware, or staged through pinned host memory
(``exchange="auto" | "device" | "host" | "peer"``).  A shearing box split
along x or y and the shock profile's passes exchange axis by axis
(HaloExchange), their x faces shifted between the exchanges.
Simulation.run's batches take the same steps in C (ParallelStepper.c_steps:
astaroth._split, csrc/split/split_steps.c) where the install built it.
"""
import math
import threading

import numpy as np

from . import _core
from .analysis import host_array
from .halo_messages import GHOST, DeviceOwner, FaceMessages, device_array

EXCHANGES = ("auto", "device", "peer", "host")


def _prime_factors(n):
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return sorted(factors, reverse=True)


def split_dims(size, shape):
    """Processes per axis for `size` ranks on a grid of `shape`.

    Each prime factor of `size` goes to the axis whose subdomains are then
    longest (z first on ties: whole x-y planes are the cheapest to exchange
    and keep the rows long), as long as every subdomain keeps at least 3
    points (the stencil radius) along that axis.
    """
    dims = [1, 1, 1]
    for p in _prime_factors(size):
        candidates = [a for a in (2, 1, 0) if shape[a] // (dims[a] * p) >= GHOST]
        if not candidates:
            raise ValueError(f"cannot split a grid of shape {tuple(shape)} over {size} processes: every subdomain "
                             f"needs at least {GHOST} points along each split axis")
        dims[max(candidates, key=lambda a: shape[a] / dims[a])] *= p
    return tuple(dims)


def given_dims(procs, size, shape):
    """procs, the ranks per axis a user gives, checked: three positive integers whose product is `size`,
    leaving every subdomain at least 3 points (the stencil radius) along a split axis."""
    try:
        dims = tuple(procs)
        ok = len(dims) == 3 and all(isinstance(q, (int, np.integer)) and not isinstance(q, bool) and q >= 1
                                    for q in dims)
    except TypeError:
        ok = False
    if not ok or math.prod(dims) != size:
        raise ValueError(f"procs must be three positive integers (ranks along x, y, z) whose product is the "
                         f"{size} ranks, got {procs!r}")
    thin = [a for a in range(3) if dims[a] > 1 and shape[a] // dims[a] < GHOST]
    if thin:
        raise ValueError(f"procs={tuple(dims)} leaves a subdomain {shape[thin[0]] // dims[thin[0]]} points along "
                         f"{'xyz'[thin[0]]} (of {shape[thin[0]]}): a split axis needs at least {GHOST} points a rank")
    return tuple(int(q) for q in dims)


def _block(n, parts, index):
    """(start, length) of block `index` when n points are split into `parts`."""
    base, extra = divmod(n, parts)
    return index * base + min(index, extra), base + (1 if index < extra else 0)


def cuda_aware_mpi():
    """True when the MPI library says it can pass device memory: mpi4py's
    Query_cuda_support where the library offers it, else Open MPI's
    `ompi_info` build flag; False when it says no or cannot be asked."""
    from mpi4py import MPI

    query = getattr(MPI, "Query_cuda_support", None)
    if query is not None:
        try:
            return bool(query())
        except Exception:  # not provided by this MPI library
            pass
    if "Open MPI" in MPI.Get_library_version():
        import shutil
        import subprocess

        ompi_info = shutil.which("ompi_info")
        if ompi_info:
            try:
                listing = subprocess.run([ompi_info, "--parsable", "--all"], capture_output=True, text=True,
                                         timeout=60).stdout
            except (OSError, subprocess.SubprocessError):
                return False
            return "mpi_built_with_cuda_support:value:true" in listing
    return False


def _pack(fields, edge, buffer):
    """The slab `edge` of every field into buffer[q]."""
    for q, f in enumerate(fields):
        buffer[q] = f[edge]


def _unpack(buffer, fields, ghost):
    """buffer[q] into the slab `ghost` of every field."""
    for q, f in enumerate(fields):
        f[ghost] = buffer[q]


class Decomposition:
    """The subdomain of this rank and the halo exchange between subdomains."""

    def __init__(self, comm, shape, exchange="auto", procs=None):
        from mpi4py import MPI

        if exchange not in EXCHANGES:
            raise ValueError(f"exchange must be one of {EXCHANGES}, got {exchange!r}")
        self.MPI = MPI
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.global_shape = tuple(shape)
        self.dims = split_dims(self.size, shape) if procs is None else given_dims(procs, self.size, shape)
        self.cart = comm.Create_cart(self.dims, periods=[True, True, True], reorder=False)
        self.coords = tuple(self.cart.Get_coords(self.rank))
        blocks = [_block(n, d, c) for n, d, c in zip(shape, self.dims, self.coords)]
        self.offset = tuple(start for start, _ in blocks)
        self.local_shape = tuple(length for _, length in blocks)
        self.slices = tuple(slice(o, o + n) for o, n in zip(self.offset, self.local_shape))
        self.neighbours = [self.cart.Shift(a, 1) for a in range(3)]  # (lower, upper) rank along each axis
        self.exchange_mode = exchange
        # every rank's block, for gathering whole fields
        self.all_slices = comm.allgather(self.slices)
        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        self.node_rank, self.node_size = node.Get_rank(), node.Get_size()

    # --- regions: the inner part, started before the exchange, and the shell
    def prefilled_axes(self):
        """Unsplit axes before the first split one (x, y, z order): their
        ghost zones can be filled before the exchange, because no exchanged
        slab has to carry them yet, so the inner part reaches their faces."""
        axes = []
        for a in range(3):
            if self.dims[a] > 1:
                break
            axes.append(a)
        return tuple(axes)

    def regions(self, prefilled=None):
        """(inner, shell): interior boxes (lo, hi) of the subdomain.  The
        inner part stays 3 points from every face whose ghost zone the
        exchange fills (every face but those of the `prefilled` axes, by
        default prefilled_axes()); the shell is the rest, in slabs.  inner
        is None when the subdomain is too thin to have one."""
        n, g = self.local_shape, GHOST
        full = self.prefilled_axes() if prefilled is None else tuple(prefilled)
        exchanged = [a for a in range(3) if a not in full]
        if any(n[a] < 2 * g + 1 for a in exchanged):
            return None, [((0, 0, 0), tuple(n))]
        lo = [0 if a in full else g for a in range(3)]
        hi = [n[a] if a in full else n[a] - g for a in range(3)]
        inner = (tuple(lo), tuple(hi))
        shell, box_lo, box_hi = [], [0, 0, 0], list(n)
        for a in reversed(exchanged):  # peel z, then y, then x faces off the box
            for first, last in ((0, g), (n[a] - g, n[a])):
                slab_lo, slab_hi = list(box_lo), list(box_hi)
                slab_lo[a], slab_hi[a] = first, last
                shell.append((tuple(slab_lo), tuple(slab_hi)))
            box_lo[a], box_hi[a] = g, n[a] - g
        return inner, shell

    # --- whole fields -------------------------------------------------------
    def gather(self, local):
        """The global array (x fastest, like the local ones) on every rank."""
        blocks = self.comm.allgather(np.asfortranarray(local))
        out = np.empty(self.global_shape, dtype=local.dtype, order="F")
        for sl, block in zip(self.all_slices, blocks):
            out[sl] = block
        return out

    def allreduce(self, value, op):
        """`value` (a number, a bool, or a tuple of floats reduced element by
        element) reduced by `op` over the ranks.  Floats and bools go through
        a buffer, not as a pickled object: every CFL step of a run reduces
        its signal speed."""
        many = isinstance(value, tuple)
        values = value if many else (value,)
        if not (all(isinstance(v, float) for v in values) or isinstance(value, bool)):
            return self.comm.allreduce(value, op=op)
        kind = np.int32 if isinstance(value, bool) else np.float64  # MPI's logical ops take integers
        out = np.empty(len(values), kind)
        self.comm.Allreduce(np.array(values, kind), out, op=op)
        return tuple(float(v) for v in out) if many else type(value)(out[0])


class ShearingFaces:
    """The x ghost zones of a shearing box (csrc/terms/shear.h) on a grid split along x or y: each global x
    face's ghosts are the other face's three interior x planes, shifted along y by deltay and interpolated
    over the whole y extent, which other ranks hold.  The ranks on the global x faces with the same z
    range share their planes (allgather), and each shifts them into its ghosts in C (Grid.shear_ghosts,
    the arithmetic of one process).  Before the y and z exchanges, which carry the x ghosts on.  On the
    GPU (xp CuPy) the planes come to the host to travel, and Grid.shear_ghosts copies the whole y's back
    to the device (cuda_backend.cu's gpu_shear_ghosts)."""

    def __init__(self, decomposition, grid, lo, xp=np):
        d = decomposition
        self.d, self.grid, self.lo, self.xp = d, grid, lo, xp
        self.lower, self.upper = d.coords[0] == 0, d.coords[0] == d.dims[0] - 1
        on_a_face = self.lower or self.upper
        self.comm = d.comm.Split(d.coords[2] if on_a_face else d.MPI.UNDEFINED, d.rank)

    def fill(self, s, fields):
        """The shifted x ghosts of the grid's set s (Grid.shear_ghosts: 3 and 4 are the shock profile's
        arrays), whose padded arrays are `fields` ([k, j, i]), on this rank's x faces."""
        if not (self.lower or self.upper):
            return
        (i, j, k), (nx, ny, nz) = self.lo, self.d.local_shape
        interior = (slice(k, k + nz), slice(j, j + ny))
        planes = {}  # the top planes feed the lower face's ghosts, the bottom ones the upper face's
        if self.upper:
            planes["top"] = self._host([f[interior + (slice(i + nx - GHOST, i + nx),)] for f in fields])
        if self.lower:
            planes["bottom"] = self._host([f[interior + (slice(i, i + GHOST),)] for f in fields])
        pieces = self.comm.allgather((self.d.offset[1], planes))
        whole_y = self.d.global_shape[1]
        for face, which in ((0, "top"), (1, "bottom")):
            if not (self.lower if face == 0 else self.upper):
                continue
            source = np.empty((len(fields), nz, whole_y, GHOST), dtype=fields[0].dtype)
            for y0, theirs in pieces:
                if which in theirs:
                    source[:, :, y0:y0 + theirs[which].shape[2], :] = theirs[which]
            self.grid.shear_ghosts(s, face, source)

    def _host(self, pieces):
        """The pieces stacked, as a host array: a device array's copy waits for the current stream, on
        which the exchange stream or the default one wrote these planes."""
        return host_array(self.xp.stack(pieces))


class HaloExchange(DeviceOwner):
    """Ghost zones of one field set filled from the neighbouring subdomains.

    Axis by axis (x, y, z): an axis the grid is not split along is filled
    locally by the backend; along a split axis the three interior layers
    next to each face (over the whole padded extent of the other two axes,
    so edges and corners follow) are packed into one buffer per direction,
    sent to both neighbours at once, and unpacked into the ghost zones.
    Buffers are allocated once.  `transport` says how the buffers travel:
    "cpu" (host arrays through MPI), "host" (GPU buffers staged through
    pinned host memory), "device" (GPU buffers handed to a CUDA-aware MPI) or
    "peer" (GPUs of one node: the sender writes straight into the
    receiver's buffer through CUDA IPC, and MPI only says it is there).
    """

    on_default_stream = False  # on the GPU it runs on the stream it is given

    def __init__(self, decomposition, grid, fields, lo, xp, stream=None, transport="cpu", sets=(0, 1, 2)):
        self.d, self.grid, self.fields, self.xp = decomposition, grid, fields, xp
        self.sets = sets  # the grid's set of each of `fields` (Grid.fill_ghost_axis: 3, 4 the shock profile's)
        self.stream, self.transport = stream, transport
        self.stream_handle = stream.ptr if stream is not None else 0
        self.count = 0  # exchanges so far: the parity picks the peer buffer
        self.prefilled = decomposition.prefilled_axes()
        self.wall_faces = ()  # split axes where this subdomain has a wall face, filled after their exchange
        self.shearing = None  # a shearing box's x faces split over ranks (ShearingFaces), filled after x (split
        # or not: the fields' exchange has it only where x is split, their set's x faces shifted before)
        self._owned = []  # raw device allocations shared through IPC
        self.axes = []
        for axis in range(3):
            if decomposition.dims[axis] == 1:
                self.axes.append(None)
                continue
            dim = 2 - axis  # array dimension of this grid axis: arrays are indexed [k, j, i]
            n, start = decomposition.local_shape[axis], lo[axis]

            def slab(first):
                index = [slice(None)] * 3
                index[dim] = slice(first, first + GHOST)
                return tuple(index)

            shape = (len(fields[0]),) + fields[0][0][slab(start)].shape
            dtype = fields[0][0].dtype
            lower, upper = decomposition.neighbours[axis]
            plan = {
                # the top layers go up and arrive in the upper neighbour's lower ghost zone, and back
                "up": (slab(start + n - GHOST), slab(start - GHOST), upper, lower),
                "down": (slab(start), slab(start + n), lower, upper),
            }
            if transport == "peer":
                plan["recv"], plan["remote"] = self._peer_buffers(axis, shape, dtype, lower, upper)
            else:
                plan["buffers"] = {key: xp.empty(shape, dtype) for key in ("send_up", "send_down", "recv_up",
                                                                           "recv_down")}
                plan["host"] = ({key: self._pinned(shape, dtype) for key in plan["buffers"]}
                                if transport == "host" else None)
            self.axes.append(plan)

    def _pinned(self, shape, dtype):
        import cupyx

        return cupyx.empty_pinned(shape, dtype)

    def _peer_buffers(self, axis, shape, dtype, lower, upper):
        """Receive buffers of this rank (two per direction: consecutive
        exchanges alternate) and the neighbours' ones this rank writes to."""
        runtime = self.xp.cuda.runtime
        recv, handles = {}, {}
        for direction in ("up", "down"):
            recv[direction] = [self._peer_allocation(shape, dtype) for _ in range(2)]
            handles[direction] = [runtime.ipcGetMemHandle(array.data.ptr) for array in recv[direction]]
        cart = self.d.cart
        # my "up" receive buffers are filled by my lower neighbour, my "down" ones by my upper
        theirs_up = cart.sendrecv(handles["up"], dest=lower, source=upper, sendtag=50 + axis, recvtag=50 + axis)
        theirs_down = cart.sendrecv(handles["down"], dest=upper, source=lower, sendtag=60 + axis,
                                    recvtag=60 + axis)
        remote = {}
        for direction, handles_there in (("up", theirs_up), ("down", theirs_down)):
            remote[direction] = []
            for handle in handles_there:
                address = runtime.ipcOpenMemHandle(handle)
                remote[direction].append(device_array(self.xp, address, shape, dtype, self))
        return recv, remote

    def close(self):
        """Release the IPC mappings and buffers (peer transport)."""
        runtime = self.xp.cuda.runtime if self.transport == "peer" else None
        for plan in self.axes:
            if plan is not None and "remote" in plan:
                for arrays in plan["remote"].values():
                    for a in arrays:
                        runtime.ipcCloseMemHandle(a.data.ptr)
                plan.pop("remote")
        self._free_owned(runtime)

    def fill(self, s, axes=7):
        """Fill the ghost zones of set s (returns when they are in place):
        along the split axes among the bits of `axes` (a shock profile's pass
        reads along one; a shearing box's takes them all)."""
        fields = self.fields[s]
        parity = self.count % 2
        self.count += 1
        if self.shearing is not None:
            axes = 7
        for axis, plan in enumerate(self.axes):
            if plan is not None and not axes >> axis & 1:
                continue
            if plan is None:
                if axis not in self.prefilled:  # those were filled before the inner part started
                    self.grid.fill_ghost_axis(self.sets[s], axis, self.stream_handle)
                if axis == 0 and self.shearing is not None:  # over the whole y, which other ranks hold
                    self.shearing.fill(self.sets[s], fields)
                continue
            if self.transport == "peer":
                self._fill_peer(axis, plan, fields, parity)
            else:
                self._fill_buffers(axis, plan, fields)
            if axis in self.wall_faces:  # the wall's ghosts replace what came from across the periodic seam
                self.grid.fill_ghost_axis(self.sets[s], axis, self.stream_handle)
            if axis == 0 and self.shearing is not None:  # ... and the shearing box's shifted images
                self.shearing.fill(self.sets[s], fields)
        if self.stream is not None:
            self.stream.synchronize()

    def _fill_buffers(self, axis, plan, fields):
        # the buffers through MPI: host arrays, device buffers, or device buffers staged through the host
        buffers, host = plan["buffers"], plan["host"]
        for direction in ("up", "down"):
            send = buffers["send_" + direction]
            _pack(fields, plan[direction][0], send)
            if host is not None:
                send.get(out=host["send_" + direction], stream=self.stream)
        if self.stream is not None:
            self.stream.synchronize()
        space = host if host is not None else buffers
        requests = []
        for direction in ("up", "down"):
            _, _, dest, source = plan[direction]
            tag = 2 * axis + (direction == "up")
            requests.append(self.d.cart.Irecv(space["recv_" + direction], source=source, tag=tag))
            requests.append(self.d.cart.Isend(space["send_" + direction], dest=dest, tag=tag))
        self.d.MPI.Request.Waitall(requests)
        for direction in ("up", "down"):
            recv = buffers["recv_" + direction]
            if host is not None:
                recv.set(host["recv_" + direction], stream=self.stream)
            _unpack(recv, fields, plan[direction][1])

    def _fill_peer(self, axis, plan, fields, parity):
        # write into the neighbours' buffers over NVLink/PCIe, then tell them
        for direction in ("up", "down"):
            _pack(fields, plan[direction][0], plan["remote"][direction][parity])
        self.stream.synchronize()
        tokens = [np.zeros(1, np.int8) for _ in range(2)]
        requests = []
        for i, direction in enumerate(("up", "down")):
            _, _, dest, source = plan[direction]
            tag = 100 + 2 * axis + (direction == "up")
            requests.append(self.d.cart.Irecv(tokens[i], source=source, tag=tag))
            requests.append(self.d.cart.Isend(np.zeros(1, np.int8), dest=dest, tag=tag))
        self.d.MPI.Request.Waitall(requests)
        for direction in ("up", "down"):
            _unpack(plan["recv"][direction][parity], fields, plan[direction][1])


class ParallelStepper:
    """Drives the substeps of a decomposed Simulation (sim._grid is the
    rank's subdomain)."""

    def __init__(self, sim, decomposition):
        self.sim = sim
        self.d = decomposition
        grid = sim._grid
        self.lo = grid.interior_start
        self.padded_shape = grid.padded_shape
        self.on_gpu = sim.backend == "cuda"
        d = decomposition
        if self.on_gpu:
            import cupy

            self.xp = cupy
            self.stream = cupy.cuda.Stream(non_blocking=True)
            self.transport = self._gpu_transport(decomposition)
        else:
            self.xp = np
            self.stream = None
            self.transport = "cpu"
        self.sets = [[self._padded(s, f) for f in range(len(sim.field_names))] for s in range(3)]
        # a shearing box split along x or y: its x ghosts shifted over ranks, between the exchanges of x and of
        # y and z (HaloExchange); every other grid in one round of messages (halo_messages)
        self.sheared = sim.shear != 0
        sheared_across = self.sheared and (d.dims[0] > 1 or d.dims[1] > 1)
        self.one_round = not sheared_across  # the fields' exchange: FaceMessages, else HaloExchange
        if self.one_round:
            self.halo = FaceMessages(decomposition, grid, self.sets, self.lo, self.xp, self.transport)
        else:
            self.halo = HaloExchange(decomposition, grid, self.sets, self.lo, self.xp, self.stream, self.transport)
        self.prefilled = self.halo.prefilled
        self.inner, self.shell = decomposition.regions(self.prefilled)
        # the unsplit axes whose ghost values a substep reads from periodic images in place (on the GPU), so
        # that its prefill leaves them; every other reader of ghost zones has them all filled
        self.periodic = grid.region_wraps(sum(1 << a for a in self.prefilled)) if self.one_round else 0
        self.substep_prefilled = tuple(a for a in self.prefilled if not self.periodic >> a & 1)
        self.shell_streams = None  # the shell's slabs beside the inner part (_shell_beside)
        if self.transport == "peer" and decomposition.dims[0] == 1 and not self.substep_prefilled and self.one_round:
            self.halo.enable_direct()  # field to field by the copy engine, a piece of each z plane
        self.halo.wall_faces = tuple(a for a in range(3) if "xyz"[a] in sim._walls and d.dims[a] > 1 and (
            d.offset[a] == 0 or d.offset[a] + d.local_shape[a] == d.global_shape[a]))
        self.walls = bool(sim._walls)
        # a shearing box split along x or y: its x ghosts shifted over ranks (one along z shifts them in C)
        self.shearing = None
        if sheared_across:
            self.shearing = ShearingFaces(d, grid, self.lo, self.xp)
            if d.dims[0] > 1:
                self.halo.shearing = self.shearing
        self.shock_halo = None  # shock viscosity: the exchange of its profile's passes, [zeta], [scratch]
        self.profile_fresh = False  # the profile is that of the fields now (shock_profile; a step may take it)
        self.ghosts_fresh = False  # the fields' ghost zones are those of the fields now (exchange_fields)
        if grid.shock_address(0) is not None:
            arrays = [[self._array(grid.shock_address(which))] for which in (0, 1)]
            self.shock_halo = HaloExchange(decomposition, grid, arrays, self.lo, self.xp, self.stream, self.transport,
                                           sets=(3, 4))
            self.shock_halo.prefilled = (0, 1, 2)  # each pass fills what it wrote as periodic images first
            if self.shearing is not None:
                # a shearing box split along x or y: the shifted x images of what each pass wrote, before the
                # exchanges and local fills of y and z carry them into the edges, as the fields' are
                self.shock_halo.shearing = ShearingFaces(d, grid, self.lo, self.xp)
                self.shock_halo.prefilled = d.prefilled_axes()
        self.c_steps = self._c_steps()

    def _c_steps(self):
        """The steps of this rank in C (astaroth._split, csrc/split/), which
        Simulation.run's batches of steps take: the same messages, regions
        and order as substep() and shock_profile(), so the same bits; on the
        GPU the messages as FaceMessages sends them (_gpu_plan), the shock
        profile's passes' packed, one array each.  None where the steps stay
        with this class: a shearing box split along x or y, or a build
        without an MPI compiler (or, for a GPU rank, without CUDA)."""
        if not self.one_round:
            return None
        try:
            from . import _split
        except ImportError:
            return None
        if _split.library_version() != self.d.MPI.Get_library_version():
            return None  # built against another MPI library than mpi4py's: stepping from Python is safe
        halo = self.halo
        gpu = None
        if self.on_gpu:
            if not _split.cuda or (halo.direct and self.sheared):
                return None
            gpu = self._gpu_plan()

        def start(box):  # padded (i, j, k) of a box's first point
            return tuple(part.start for part in reversed(box))

        messages = []
        for index, (send, recv) in enumerate(zip(halo.send_boxes, halo.recv_boxes)):
            extent = tuple(part.stop - part.start for part in reversed(send))
            messages.append((halo.dest[index], halo.source[index], 300 + index, start(send), start(recv), extent))
        return _split.SplitSteps(self.sim._grid, self.d.cart.py2f(), self.sim.dtype.itemsize, messages, self.inner,
                                 self.shell, self.substep_prefilled, self.prefilled, halo.wall_faces, self.sheared,
                                 self.periodic, gpu)

    def _gpu_plan(self):
        """What astaroth._split needs of FaceMessages on the GPU: the
        addresses of the packed messages' tables and buffers (every exchange
        outside a substep, the shock profile's passes', and the substeps'
        where they are packed), the direct copies or None, and the bytes
        from one padded z plane to the next."""
        halo = self.halo
        plan = dict(transport=self.transport, fields=[t.data.ptr for t in halo.field_tables],
                    send_table=halo.send_table.data.ptr, recv_table=halo.recv_table.data.ptr,
                    send_pieces=halo.send_pieces.data.ptr, recv_pieces=[p.data.ptr for p in halo.recv_pieces],
                    largest=halo.largest,
                    send=[v.data.ptr for v in halo.send_views], recv=[v.data.ptr for v in halo.recv_views[0]],
                    send_base=halo.send.data.ptr, recv_base=halo.recv[0].data.ptr)
        if self.transport == "peer":
            plan["targets"] = halo.targets
        if self.transport == "host":
            plan["host_send"] = [v.ctypes.data for v in halo.host_views[0]]
            plan["host_recv"] = [v.ctypes.data for v in halo.host_views[1]]
        if self.shock_halo is not None:  # the tables of one array each, for the packed launches of its passes
            self._shock_tables = [self.xp.asarray(np.array([self.sim._grid.shock_address(which)], np.uint64))
                                  for which in (0, 1)]
            plan["shock_tables"] = [table.data.ptr for table in self._shock_tables]
        return plan, halo.direct or None, halo.plane * self.sim.dtype.itemsize

    def _gpu_transport(self, d):
        """How GPU ghost zones travel (HaloExchange), from exchange= and what
        the MPI library and the node offer; every rank decides the same."""
        mode = d.exchange_mode
        aware = cuda_aware_mpi()
        if mode == "device" and not aware:
            raise ValueError("exchange='device' needs a CUDA-aware MPI, and this MPI library reports that it is not "
                             "(ompi_info: mpi_built_with_cuda_support); use exchange='peer', 'host' or 'auto'")
        same_node = d.comm.allreduce(d.node_size == d.size, op=d.MPI.LAND)
        peer = same_node and d.comm.allreduce(self._peers_reachable(d), op=d.MPI.LAND)
        if mode == "peer" and not peer:
            raise ValueError("exchange='peer' needs every rank on one node, each on a GPU that can reach the "
                             "others' memory; use exchange='host' or 'auto'")
        if mode in ("host", "device", "peer"):
            return mode
        return "peer" if peer else "device" if aware else "host"

    def _peers_reachable(self, d):
        runtime = self.xp.cuda.runtime
        mine = runtime.getDevice()
        devices = d.comm.allgather(mine)
        return all(other == mine or runtime.deviceCanAccessPeer(mine, other) for other in devices)

    def _padded(self, s, field):
        """Padded array of set s, field `field`, indexed [k, j, i]."""
        return self._array(self.sim._grid.padded_address(s, field))

    def _array(self, address):
        """The padded array at `address`, indexed [k, j, i]."""
        m0, m1, m2 = self.padded_shape
        dtype = self.sim.dtype
        if self.on_gpu:
            return device_array(self.xp, address, (m2, m1, m0), dtype, self.sim._grid)
        import ctypes

        buffer = (ctypes.c_char * (m0 * m1 * m2 * dtype.itemsize)).from_address(address)
        return np.frombuffer(buffer, dtype=dtype).reshape(m2, m1, m0)

    def _exchange(self, s, halo=None, **along):
        """Fill the ghost zones of set s by `halo` (the fields' exchange, or
        the shock profile's, which takes `axes`), on this stepper's stream
        where it takes one."""
        halo = halo or self.halo
        if self.on_gpu and not halo.on_default_stream:
            with self.stream:
                halo.fill(s, **along)
        else:
            halo.fill(s, **along)

    def shock_profile(self):
        """The shock viscosity's profile of the fields (set 0), its ghost zones
        exchanged first and what each of its passes wrote exchanged before the
        next, along the axes the next reads of it (csrc/terms/shock.h), so
        that it equals one process's (csrc/cpu/point_impl.h)."""
        grid = self.sim._grid
        self._prefill(0)
        self._exchange(0)
        p = 0
        while (written := grid.shock_profile_pass(p)) is not None:  # along what the next pass reads of it
            self._exchange(written, self.shock_halo, axes=grid.shock_pass_reads(p + 1))
            p += 1
        self.profile_fresh = True

    def shock_max(self):
        """The largest zeta of this rank's subdomain, of the profile of the fields now (NaN if not finite):
        by the backend's reduction where it has one (on the GPU a reduction of the strided view through the
        array library costs several steps)."""
        self.shock_profile()
        largest = self.sim._grid.shock_max(True)
        if largest is not None:
            return largest
        (i, j, k), (n0, n1, n2) = self.lo, self.d.local_shape
        zeta = self.shock_halo.fields[0][0][k:k + n2, j:j + n1, i:i + n0]
        return float(np.max(zeta)) if np.all(np.isfinite(zeta)) else math.nan

    def substep(self, s, dt, profile_current=False):
        """Substep s of length dt; profile_current: the caller has changed no
        field since the last shock_profile or exchange_fields (cfl_dt's), so
        the first substep may take that profile and the fields' ghost zones
        that were exchanged for it, over the whole subdomain at once.

        The inner part runs while set s's ghost zones travel, then the shell.
        On the GPU the work is queued on the default stream, with which the
        backend's stream is ordered: one round of messages (halo_messages) is
        packed before the inner part and unpacked after it (or copied field
        to field beside it, and then the shell's slabs run beside its end
        too), and the host passes them on while the inner part runs.  On the
        CPU the inner part runs in a thread while this one exchanges."""
        grid = self.sim._grid
        if s == 0:
            fresh = profile_current and (self.profile_fresh if self.shock_halo is not None else self.ghosts_fresh)
            if self.shock_halo is not None and not fresh:  # the profile of the step's start, held for its substeps
                self.shock_profile()
                fresh = True
            self.profile_fresh = self.ghosts_fresh = False
            if fresh:  # every ghost zone in: nothing to hide an exchange behind
                grid.substep_region(s, dt, (0, 0, 0), self.d.local_shape)
                if self.sheared:
                    grid.shear_advance(s, dt)
                return
        self._prefill(s, self.substep_prefilled)
        halo = self.halo
        if self.one_round:  # the messages packed (or, copied field to field, their start marked) first
            halo.substep_pack(s)

            def exchange():
                halo.post()
                halo.finish()
        else:
            def exchange():
                self._exchange(s)
        beside = False  # the shell's slabs beside the inner part's end (_shell_beside)
        if self.inner is None:
            exchange()
        elif self.on_gpu:
            grid.substep_region(s, dt, *self.inner, self.periodic)  # queued; runs while the exchange goes on
            exchange()
            beside = self.one_round and bool(halo.direct) and not halo.wall_faces  # nothing queued since the inner
        else:
            self._inner_beside(s, dt, exchange)
        if beside:
            self._shell_beside(s, dt)
        else:
            for lo, hi in self.shell:
                grid.substep_region(s, dt, lo, hi, self.periodic)
        if self.sheared:  # the shearing box's deltay, as one process advances it after each substep
            grid.shear_advance(s, dt)

    def _inner_beside(self, s, dt, exchange):
        """On the CPU: the inner part in a thread (the C loop releases the GIL)
        while `exchange` runs in this one; an error of either is raised here."""
        failure = []

        def inner_part():
            try:
                self.sim._grid.substep_region(s, dt, *self.inner, self.periodic)
            except BaseException as error:  # re-raised below, in the caller's thread
                failure.append(error)

        worker = threading.Thread(target=inner_part)
        worker.start()
        try:
            exchange()
        finally:
            worker.join()
        if failure:
            raise failure[0]

    def _shell_beside(self, s, dt):
        """The shell's slabs each on a stream of its own, beside each other and
        the inner part's last blocks: their ghost zones are in (finish), and
        they write other points than the inner part does.  The default stream,
        and so whatever is queued after them, waits for them."""
        null = self.xp.cuda.Stream.null
        if self.shell_streams is None:
            self.shell_streams = [self.xp.cuda.Stream(non_blocking=True) for _ in self.shell]
        for (lo, hi), stream in zip(self.shell, self.shell_streams):
            self.sim._grid.substep_region(s, dt, lo, hi, self.periodic, stream.ptr)
            done = self.xp.cuda.Event(block=False, disable_timing=True)
            done.record(stream)
            null.wait_event(done)

    def step(self, dt, profile_current=False):
        for s in range(3):
            self.substep(s, dt, profile_current)
        if self.walls:
            self.sim._grid.set_walls(0)  # and in every snapshot
        self.sim._grid.add_forcing(dt)
        if self.on_gpu:
            self.xp.cuda.Stream.null.synchronize()

    def _prefill(self, s, axes=None):
        """Ghost zones of the prefilled axes of set s (or of `axes` of them),
        queued on the default stream; on the GPU an exchange axis by axis
        (HaloExchange) then has its stream wait for them and for the previous
        substep's kernels that wrote set s."""
        if self.walls:  # 'a' and 'set' wall values first: every ghost fill and exchange sees them
            self.sim._grid.set_walls(s)
        for axis in self.prefilled if axes is None else axes:
            self.sim._grid.fill_ghost_axis(s, axis, 0)
        if self.shearing is not None and 0 in self.prefilled:  # x not split: its shifted images before the inner part
            self.shearing.fill(s, self.sets[s])
        if self.on_gpu and not self.halo.on_default_stream:
            done = self.xp.cuda.Event()
            done.record(self.xp.cuda.Stream.null)
            self.stream.wait_event(done)

    def exchange_fields(self):
        """Fill the ghost zones of the fields (set 0) from the neighbours,
        as a first substep would (MHD's CFL step needs B at the edges)."""
        self._prefill(0)
        self._exchange(0)
        self.ghosts_fresh = True
        if self.on_gpu:
            self.xp.cuda.Stream.null.synchronize()

    def rhs(self):
        """The right-hand side into w: a first substep with dt = 1."""
        if self.shock_halo is not None:
            self.shock_profile()  # exchanges the fields' ghost zones first
        else:
            self._prefill(0)
            self._exchange(0)
        n = self.d.local_shape
        self.sim._grid.substep_region(0, 1.0, (0, 0, 0), n)
        if self.on_gpu:
            self.xp.cuda.Stream.null.synchronize()
