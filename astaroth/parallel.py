"""Domain decomposition over MPI processes (mpi4py).

``Simulation(..., comm=MPI.COMM_WORLD)`` splits the periodic grid into a
Cartesian grid of subdomains, one per rank (and one GPU per rank on the
CUDA backend, chosen by the rank within its node).  Every substep:

1. the inner part of the subdomain (points at least 3 from every face, so
   their stencils reach no ghost zone) is started;
2. meanwhile the ghost zones are exchanged with the neighbours, axis by axis
   (x, then y including the x ghosts, then z including both), which fills
   edges and corners too; along an axis that is not split the copy is local;
3. then the shell of the subdomain (the six face slabs) is computed.

The arithmetic per point is that of a single process, so a run gives the
same bits on any number of ranks.  On the GPU the exchange passes device
buffers to MPI when the MPI library is CUDA-aware and stages them through
host memory otherwise (``exchange="auto" | "device" | "host"``).
"""
import threading

import numpy as np

from . import _core

GHOST = 3  # ghost-zone width, the stencil radius (csrc/grid.h AC_GHOST)
EXCHANGES = ("auto", "device", "host")


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


class Decomposition:
    """The subdomain of this rank and the halo exchange between subdomains."""

    def __init__(self, comm, shape, exchange="auto"):
        from mpi4py import MPI

        if exchange not in EXCHANGES:
            raise ValueError(f"exchange must be one of {EXCHANGES}, got {exchange!r}")
        self.MPI = MPI
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.global_shape = tuple(shape)
        self.dims = split_dims(self.size, shape)
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
        self.node_rank = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()

    # --- regions: the inner part, started before the exchange, and the shell
    def regions(self):
        """(inner, shell): interior boxes (lo, hi) of the subdomain; inner is
        None when the subdomain is too thin to have one."""
        n = self.local_shape
        if any(m < 2 * GHOST + 1 for m in n):
            return None, [((0, 0, 0), n)]
        g = GHOST
        inner = ((g, g, g), (n[0] - g, n[1] - g, n[2] - g))
        shell = [
            ((0, 0, 0), (n[0], n[1], g)), ((0, 0, n[2] - g), (n[0], n[1], n[2])),          # z faces
            ((0, 0, g), (n[0], g, n[2] - g)), ((0, n[1] - g, g), (n[0], n[1], n[2] - g)),  # y faces
            ((0, g, g), (g, n[1] - g, n[2] - g)), ((n[0] - g, g, g), (n[0], n[1] - g, n[2] - g)),  # x faces
        ]
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
        return self.comm.allreduce(value, op=op)


class HaloExchange:
    """Ghost zones of one field set filled from the neighbouring subdomains.

    Axis by axis (x, y, z): an axis the grid is not split along is filled
    locally by the backend; along a split axis the three interior layers
    next to each face (over the whole padded extent of the other two axes,
    so edges and corners follow) are packed into one buffer per direction,
    sent to both neighbours at once, and unpacked into the ghost zones.
    Buffers are allocated once; on the GPU they are staged through pinned
    host memory unless the MPI library takes device memory.
    """

    def __init__(self, decomposition, grid, fields, lo, xp, stream=None, through_host=False):
        self.d, self.grid, self.fields, self.xp = decomposition, grid, fields, xp
        self.stream, self.through_host = stream, through_host
        self.stream_handle = stream.ptr if stream is not None else 0
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
            buffers = {key: xp.empty(shape, fields[0][0].dtype) for key in ("send_up", "send_down", "recv_up",
                                                                           "recv_down")}
            host = {key: self._pinned(shape, fields[0][0].dtype) for key in buffers} if through_host else None
            lower, upper = decomposition.neighbours[axis]
            self.axes.append({
                # the top layers go up and arrive in the upper neighbour's lower ghost zone, and back
                "up": (slab(start + n - GHOST), slab(start - GHOST), upper, lower),
                "down": (slab(start), slab(start + n), lower, upper),
                "buffers": buffers, "host": host,
            })

    def _pinned(self, shape, dtype):
        import cupyx

        return cupyx.empty_pinned(shape, dtype)

    def fill(self, s):
        """Fill the ghost zones of set s (returns when they are in place)."""
        fields = self.fields[s]
        for axis, plan in enumerate(self.axes):
            if plan is None:
                self.grid.fill_ghost_axis(s, axis, self.stream_handle)
                continue
            buffers, host = plan["buffers"], plan["host"]
            for direction in ("up", "down"):
                edge = plan[direction][0]
                send = buffers["send_" + direction]
                for q, f in enumerate(fields):
                    send[q] = f[edge]
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
                ghost = plan[direction][1]
                for q, f in enumerate(fields):
                    f[ghost] = recv[q]
        if self.stream is not None:
            self.stream.synchronize()


class ParallelStepper:
    """Drives the substeps of a decomposed Simulation (sim._grid is the
    rank's subdomain)."""

    def __init__(self, sim, decomposition):
        self.sim = sim
        self.d = decomposition
        grid = sim._grid
        self.lo = grid.interior_start
        self.padded_shape = grid.padded_shape
        self.inner, self.shell = decomposition.regions()
        self.on_gpu = sim.backend == "cuda"
        if self.on_gpu:
            import cupy

            self.xp = cupy
            self.stream = cupy.cuda.Stream(non_blocking=True)
            mode = decomposition.exchange_mode
            aware = cuda_aware_mpi()
            if mode == "device" and not aware:
                raise ValueError("exchange='device' needs a CUDA-aware MPI, and this MPI library reports that it "
                                 "is not (ompi_info: mpi_built_with_cuda_support); use exchange='host' or 'auto'")
            self.through_host = mode == "host" or (mode == "auto" and not aware)
        else:
            self.xp = np
            self.stream = None
            self.through_host = False
        self.sets = [[self._padded(s, f) for f in range(4)] for s in range(3)]
        self.halo = HaloExchange(decomposition, grid, self.sets, self.lo, self.xp, self.stream, self.through_host)

    def _padded(self, s, field):
        """Padded array of set s, field `field`, indexed [k, j, i]."""
        m0, m1, m2 = self.padded_shape
        dtype = self.sim.dtype
        nbytes = m0 * m1 * m2 * dtype.itemsize
        address = self.sim._grid.padded_address(s, field)
        if self.on_gpu:
            cupy = self.xp
            memory = cupy.cuda.UnownedMemory(address, nbytes, self.sim._grid)
            return cupy.ndarray((m2, m1, m0), dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, 0))
        import ctypes

        buffer = (ctypes.c_char * nbytes).from_address(address)
        return np.frombuffer(buffer, dtype=dtype).reshape(m2, m1, m0)

    def _exchange(self, s):
        if self.on_gpu:
            with self.stream:
                self.halo.fill(s)
        else:
            self.halo.fill(s)

    def substep(self, s, dt):
        grid = self.sim._grid
        if self.inner is None:
            self._exchange(s)
        elif self.on_gpu:
            # the previous substep's kernels (default stream) finish before the exchange reads set s
            done = self.xp.cuda.Event()
            done.record(self.xp.cuda.Stream.null)
            self.stream.wait_event(done)
            grid.substep_region(s, dt, *self.inner)  # queued; runs while the exchange goes on
            self._exchange(s)
        else:
            failure = []

            def inner_part():
                try:
                    grid.substep_region(s, dt, *self.inner)
                except BaseException as error:  # re-raised below, in the caller's thread
                    failure.append(error)

            worker = threading.Thread(target=inner_part)
            worker.start()  # the C loop releases the GIL
            try:
                self._exchange(s)
            finally:
                worker.join()
            if failure:
                raise failure[0]
        for lo, hi in self.shell:
            grid.substep_region(s, dt, lo, hi)

    def step(self, dt):
        for s in range(3):
            self.substep(s, dt)
        self.sim._grid.add_forcing(dt)
        if self.on_gpu:
            self.xp.cuda.Stream.null.synchronize()

    def rhs(self):
        """The right-hand side into w: a first substep with dt = 1."""
        self._exchange(0)
        n = self.d.local_shape
        self.sim._grid.substep_region(0, 1.0, (0, 0, 0), n)
        if self.on_gpu:
            self.xp.cuda.Stream.null.synchronize()
