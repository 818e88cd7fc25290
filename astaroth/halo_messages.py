"""Ghost zones of a split grid filled in one round of messages.

Every axis the grid is not split along is filled locally first (the
backend's periodic or wall ghosts), so that each subdomain's layers carry
their own ghosts along those axes.  Then each subdomain sends every
neighbour across a face, an edge or a corner of the split axes (2 messages
for one split axis, 8 for two, 26 for three) the interior layers that
are that neighbour's ghosts, over the whole padded extent of the unsplit
axes; a wall along a split axis refills its ghosts last, axis by axis, as
one process fills them after its periodic images.  No message waits for
another, so on the GPU every message of a substep is packed in one launch
before the inner part starts, travels while it runs, and is unpacked in
one launch after it (astaroth/parallel.py's ParallelStepper); between GPUs
of one node with x not split, the copy engine moves each message from
field to field instead, with nothing packed (FaceMessages.enable_direct).

An exchange axis by axis (parallel.HaloExchange) needs a round of messages
per split axis, the later ones carrying what the earlier brought; the
shearing box's shifted x faces and the shock profile's passes still go
that way.
"""
import itertools

import numpy as np

GHOST = 3  # ghost-zone width, the stencil radius (csrc/grid.h AC_GHOST)
LEGACY_STREAM = 1  # cudaStreamLegacy: the default stream as a handle (0 tells the backend its own stream)
TRANSPORTS = ("cpu", "host", "device", "peer")

def device_array(cupy, address, shape, dtype, owner):
    """A CuPy array over device memory that `owner` keeps alive."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    memory = cupy.cuda.UnownedMemory(address, nbytes, owner)
    return cupy.ndarray(shape, dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, 0))


def directions(dims):
    """The neighbours' offsets in the grid of subdomains: -1, 0 or 1 along
    each split axis, 0 along the others, not all 0."""
    ranges = [(-1, 0, 1) if d > 1 else (0,) for d in dims]
    return [d for d in itertools.product(*ranges) if any(d)]


def _box(d, lo, n, m, split, ghost):
    """The box (slices in [k, j, i] order) of message direction d: the
    interior layers sent towards d (ghost False) or the ghost layers that
    the message from the neighbour at -d fills (ghost True); the whole
    padded extent along an unsplit axis, the interior along a split one."""
    out = []
    for a in range(3):
        if d[a] == 0:
            out.append(slice(lo[a], lo[a] + n[a]) if split[a] else slice(0, m[a]))
        elif not ghost:
            out.append(slice(lo[a] + n[a] - GHOST, lo[a] + n[a]) if d[a] > 0 else slice(lo[a], lo[a] + GHOST))
        else:
            out.append(slice(lo[a] - GHOST, lo[a]) if d[a] > 0 else slice(lo[a] + n[a], lo[a] + n[a] + GHOST))
    return tuple(reversed(out))


def plane_pieces(box, shape):
    """A box (slices in [k, j, i] order) that spans the whole padded x of a
    C-ordered array of `shape` as equal pieces of its z planes: (first
    element, elements a piece, pieces, elements from one piece's start to
    the next), one piece where the box takes whole planes (what a 2-D copy
    or a plain one moves)."""
    k, j, i = box
    m2, m1, m0 = shape
    if (i.start, i.stop) != (0, m0):
        raise ValueError("a box copied in pieces of z planes must span the whole padded x")
    width, count = (j.stop - j.start) * m0, k.stop - k.start
    if width == m1 * m0:
        width, count = width * count, 1
    return k.start * m1 * m0 + j.start * m0, width, count, m1 * m0


class DeviceOwner:
    """Raw device allocations this rank shares through CUDA IPC (_owned, on
    self.xp), freed by the subclass's close(), at the latest when it is
    collected."""

    def _peer_allocation(self, shape, dtype):
        """A device array of its own allocation (as CUDA IPC shares them),
        freed with this object."""
        address = self.xp.cuda.runtime.malloc(max(int(np.prod(shape)), 1) * np.dtype(dtype).itemsize)
        self._owned.append(address)
        return device_array(self.xp, address, shape, dtype, self)

    def _free_owned(self, runtime):
        for address in self._owned:
            runtime.free(address)
        self._owned = []

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit CUDA may already be gone
            pass


class FaceMessages(DeviceOwner):
    """Ghost zones of the grid's field sets from the neighbours, in one
    round of messages (this module's docstring).

    fields[s][q]: the padded arrays ([k, j, i]) of set s; lo: where the
    interior starts in them; xp: numpy or cupy; transport: "cpu" (host
    arrays through MPI), "host" (device buffers staged through pinned host
    memory), "device" (device buffers handed to a CUDA-aware MPI) or "peer"
    (GPUs of one node: the copy engine carries each rank's packed messages
    into its neighbours' receive buffers through CUDA IPC, or with
    enable_direct straight into their fields, and MPI carries only "it is
    there").
    """

    on_default_stream = True  # on the GPU its launches and copies queue on the default stream

    def __init__(self, decomposition, grid, fields, lo, xp, transport="cpu"):
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
        d = decomposition
        self.d, self.grid, self.fields, self.xp, self.transport = d, grid, fields, xp, transport
        self.prefilled = tuple(a for a in range(3) if d.dims[a] == 1)  # the unsplit axes, the caller's to fill first
        self.wall_faces = ()  # split axes where this subdomain has a wall face, refilled after the messages
        self.count = 0  # exchanges so far: the parity picks the peer buffers
        self.pending = None
        self.direct = None  # the substeps' copies straight into the neighbours' fields (enable_direct)
        self._opened = {}  # the neighbours' IPC handles opened, each once
        shape = fields[0][0].shape  # (m2, m1, m0)
        m = tuple(reversed(shape))
        n = d.local_shape
        dtype = fields[0][0].dtype
        nfields = len(fields[0])
        self.directions = directions(d.dims)
        split = [dims > 1 for dims in d.dims]
        self.send_boxes = [_box(v, lo, n, m, split, False) for v in self.directions]
        self.recv_boxes = [_box(v, lo, n, m, split, True) for v in self.directions]
        cart = d.cart
        self.dest = [cart.Get_cart_rank([(c + v[a]) % d.dims[a] for a, c in enumerate(d.coords)])
                     for v in self.directions]
        self.source = [cart.Get_cart_rank([(c - v[a]) % d.dims[a] for a, c in enumerate(d.coords)])
                       for v in self.directions]

        def sizes(boxes):
            return [int(np.prod([s.stop - s.start for s in b])) for b in boxes]

        self.send_sizes, self.recv_sizes = sizes(self.send_boxes), sizes(self.recv_boxes)
        send_total, recv_total = nfields * sum(self.send_sizes), nfields * sum(self.recv_sizes)
        self.send = xp.empty(send_total, dtype)  # every message packed here first
        self._owned = []
        if transport == "peer":  # two receive buffers (consecutive exchanges alternate), shared through IPC
            self.recv = [self._peer_allocation((recv_total,), dtype) for _ in range(2)]
        else:
            self.recv = [xp.empty(recv_total, dtype)]
        self.send_views = self._views(self.send, self.send_boxes, self.send_sizes, nfields)
        self.recv_views = [self._views(buffer, self.recv_boxes, self.recv_sizes, nfields) for buffer in self.recv]
        self.host = None
        self.on_gpu = transport != "cpu"
        if self.on_gpu:
            import cupyx

            if transport == "host":
                self.host = (cupyx.empty_pinned(send_total, dtype), cupyx.empty_pinned(recv_total, dtype))
                self.host_views = (self._views(self.host[0], self.send_boxes, self.send_sizes, nfields),
                                   self._views(self.host[1], self.recv_boxes, self.recv_sizes, nfields))
            self.copies = xp.cuda.Stream(non_blocking=True)  # the copy engine's: while the inner part runs
        self._tables(m, nfields)

    # --- buffers ------------------------------------------------------------
    @staticmethod
    def _views(buffer, boxes, sizes, nfields):
        """Each message's piece of a flat buffer, shaped (fields, nk, nj, ni)."""
        views, at = [], 0
        for box, size in zip(boxes, sizes):
            views.append(buffer[at:at + nfields * size].reshape((nfields,) + tuple(s.stop - s.start for s in box)))
            at += nfields * size
        return views

    def _address(self, array):
        """Where an array's data lie: in the GPU's memory or the host's."""
        return array.data.ptr if self.on_gpu else array.ctypes.data

    def _tables(self, m, nfields):
        """The backend's box copies' tables (Grid.copy_boxes: the fields'
        addresses of each set; the boxes and their pieces of the send and
        receive buffers) in its memory and, on peer transport, where each
        message goes in its destination's buffers."""
        xp = self.xp
        self.plane, self.row = m[0] * m[1], m[0]
        self.field_tables = [xp.asarray(np.array([self._address(f) for f in fields], dtype=np.uint64))
                             for fields in self.fields]

        def boxes(slices_list):
            rows = []
            for k, j, i in slices_list:
                rows.append((i.stop - i.start, j.stop - j.start, k.stop - k.start,
                             k.start * self.plane + j.start * self.row + i.start))
            return xp.asarray(np.array(rows, dtype=np.int64).ravel())

        def pieces(views):
            return xp.asarray(np.array([self._address(v) for v in views], dtype=np.uint64))

        self.send_table, self.recv_table = boxes(self.send_boxes), boxes(self.recv_boxes)
        self.send_pieces = pieces(self.send_views)
        self.recv_pieces = [pieces(views) for views in self.recv_views]
        self.largest = nfields * max(self.send_sizes + self.recv_sizes)
        if self.transport == "peer":
            self.targets = self._peer_targets()

    def _peer_targets(self):
        """For each parity, the address in each destination's receive buffer
        where this rank's message to it goes: each rank tells the sender of
        each of its messages the handles of its buffers and the piece's
        offset, and opens each handle once."""
        runtime = self.xp.cuda.runtime
        handles = [runtime.ipcGetMemHandle(r.data.ptr) for r in self.recv]
        base = self.recv[0].data.ptr
        offsets = [v.data.ptr - base for v in self.recv_views[0]]
        cart = self.d.cart
        targets = [[], []]
        for index in range(len(self.directions)):
            # this rank receives direction `index` from source; its own message of that direction goes to dest
            theirs, offset = cart.sendrecv((handles, offsets[index]), dest=self.source[index],
                                           source=self.dest[index], sendtag=400 + index, recvtag=400 + index)
            for parity in range(2):
                if theirs[parity] not in self._opened:
                    self._opened[theirs[parity]] = runtime.ipcOpenMemHandle(theirs[parity])
                targets[parity].append(self._opened[theirs[parity]] + offset)
        return targets

    def enable_direct(self):
        """On peer transport with x not split, let the substeps' messages
        (substep_pack) travel straight from this rank's fields into the ghost
        zones of its neighbours' fields, by the copy engine, with nothing
        packed or unpacked: a message spans the whole padded x, so that its
        box is one contiguous piece of each z plane it crosses (each field's
        message one 2-D copy; one plain copy of whole padded planes where
        only z is split).  Collective: every rank calls it or none.  The
        caller must leave those ghost zones to the messages during its
        substeps (no ghost fill of an unsplit axis there: astaroth/parallel.py
        reads them from periodic images), which makes their writers one at a
        time: a neighbour's copies land between its tokens and this rank's
        shell."""
        if self.transport != "peer" or self.d.dims[0] != 1:
            raise ValueError("direct messages need the peer transport and x not split")
        runtime = self.xp.cuda.runtime
        itemsize = self.fields[0][0].itemsize
        shape = self.fields[0][0].shape
        mine = [[runtime.ipcGetMemHandle(f.data.ptr) for f in fields] for fields in self.fields]
        self.direct = []  # per message: (piece bytes, pieces, per set: [(destination, source) per field])
        for index in range(len(self.directions)):
            there = plane_pieces(self.recv_boxes[index], shape)[0] * itemsize
            theirs, at = self.d.cart.sendrecv((mine, there), dest=self.source[index], source=self.dest[index],
                                              sendtag=500 + index, recvtag=500 + index)
            first, width, planes, _ = plane_pieces(self.send_boxes[index], shape)
            width *= itemsize
            per_set = []
            for s, fields in enumerate(self.fields):
                pairs = []
                for q, f in enumerate(fields):
                    if theirs[s][q] not in self._opened:
                        self._opened[theirs[s][q]] = runtime.ipcOpenMemHandle(theirs[s][q])
                    pairs.append((self._opened[theirs[s][q]] + at, f.data.ptr + first * itemsize))
                per_set.append(pairs)
            self.direct.append((width, planes, per_set))

    def substep_pack(self, s):
        """pack(s) for a substep, or where enable_direct was called only the
        point after which the copies straight into the neighbours' fields
        may start (post queues them, once the inner part is queued)."""
        if not self.direct:
            return self.pack(s)
        self.pending = (s, None)
        ready = self.xp.cuda.Event(block=False, disable_timing=True)
        ready.record(self.xp.cuda.Stream.null)  # the previous substep's kernels, which wrote set s
        self.copies.wait_event(ready)

    def _copy_direct(self, s):
        runtime, stream = self.xp.cuda.runtime, self.copies.ptr
        pitch = self.plane * self.fields[0][0].itemsize
        for width, planes, per_set in self.direct:
            for destination, source in per_set[s]:
                if planes == 1:
                    runtime.memcpyAsync(destination, source, width, runtime.memcpyDefault, stream)
                else:
                    runtime.memcpy2DAsync(destination, pitch, source, pitch, width, planes, runtime.memcpyDefault,
                                          stream)
        self.sent = self.xp.cuda.Event(block=False, disable_timing=True)
        self.sent.record(self.copies)

    def close(self):
        """Release the IPC mappings and buffers (peer transport)."""
        if self.transport != "peer":
            return
        runtime = self.xp.cuda.runtime
        for address in getattr(self, "_opened", {}).values():
            runtime.ipcCloseMemHandle(address)
        self._opened = {}
        self._free_owned(runtime)

    # --- one exchange: pack, post, finish -----------------------------------
    def pack(self, s):
        """Pack set s's messages through the backend's box copies.  On the
        GPU that is one launch on the default stream; on a stream of its own
        the copies then carry the messages to the neighbours' buffers (peer)
        or to the host (host staging), beside the inner part queued next."""
        self.pending = (s, self.count % 2)
        self.count += 1
        self._launch(self.field_tables[s], self.send_table, self.send_pieces, 0)
        if not self.on_gpu:
            return
        packed = self.xp.cuda.Event(block=False, disable_timing=True)
        packed.record(self.xp.cuda.Stream.null)
        self.copies.wait_event(packed)
        runtime, stream = self.xp.cuda.runtime, self.copies.ptr
        if self.transport == "peer":
            for target, view in zip(self.targets[self.pending[1]], self.send_views):
                runtime.memcpyAsync(target, view.data.ptr, view.nbytes, runtime.memcpyDefault, stream)
        elif self.transport == "host":
            runtime.memcpyAsync(self.host[0].ctypes.data, self.send.data.ptr, self.send.nbytes,
                                runtime.memcpyDeviceToHost, stream)
        self.sent = self.xp.cuda.Event(block=False, disable_timing=True)
        self.sent.record(self.copies)

    def _launch(self, field_table, box_table, pieces, unpack):
        """Every box of every field between the fields and the message buffers by the backend
        (Grid.copy_boxes): on the GPU one launch on the default stream, with which its kernels are ordered."""
        self.grid.copy_boxes(self._address(field_table), len(self.fields[0]), self._address(box_table),
                             self._address(pieces), len(self.directions), self.largest, unpack, LEGACY_STREAM)

    def post(self):
        """Send the packed messages (their data, or on peer transport a token
        once they are in place) and post the receives; returns at once."""
        if self.on_gpu:
            if self.pending[1] is None:
                self._copy_direct(self.pending[0])
            self.sent.synchronize()  # packed and carried, beside the inner part
        cart, requests = self.d.cart, []
        if self.transport == "peer":
            self.tokens = [np.zeros(1, np.int8) for _ in self.directions]
            sends, recvs = [np.zeros(1, np.int8)] * len(self.directions), self.tokens
        elif self.host is not None:
            sends, recvs = self.host_views
        else:
            sends, recvs = self.send_views, self.recv_views[0]
        for index in range(len(self.directions)):
            requests.append(cart.Irecv(recvs[index], source=self.source[index], tag=300 + index))
            requests.append(cart.Isend(sends[index], dest=self.dest[index], tag=300 + index))
        self.requests = requests

    def finish(self):
        """Wait for the messages and unpack them into the ghost zones (on the
        GPU queued on the default stream), then the walls' ghosts."""
        s, parity = self.pending
        self.d.MPI.Request.Waitall(self.requests)
        self.requests = None
        if not self.on_gpu:
            self._launch(self.field_tables[s], self.recv_table, self.recv_pieces[0], 1)
        elif parity is not None:  # None: the copies wrote the ghost planes themselves (substep_pack)
            if self.host is not None:
                runtime = self.xp.cuda.runtime
                runtime.memcpyAsync(self.recv[0].data.ptr, self.host[1].ctypes.data, self.host[1].nbytes,
                                    runtime.memcpyHostToDevice, self.copies.ptr)
                arrived = self.xp.cuda.Event(block=False, disable_timing=True)
                arrived.record(self.copies)
                self.xp.cuda.Stream.null.wait_event(arrived)
            pieces = self.recv_pieces[parity if self.transport == "peer" else 0]
            self._launch(self.field_tables[s], self.recv_table, pieces, 1)
        for axis in self.wall_faces:  # the wall's ghosts replace what came from across the periodic seam
            self.grid.fill_ghost_axis(s, axis, 0)
        self.pending = None

    def fill(self, s):
        """Fill the ghost zones of set s (the unsplit axes' first, as the
        caller's prefill does); on the GPU queued on the default stream."""
        self.pack(s)
        self.post()
        self.finish()
