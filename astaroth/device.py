"""Zero-copy views of fields that live in GPU memory.

`Simulation.view(name)` on the CUDA backend returns a DeviceView: it owns no
memory, keeps the simulation's buffers alive, and exposes the live interior
of the field through ``__cuda_array_interface__`` (version 3) and DLPack, so
``cupy.asarray(view)`` and ``torch.from_dlpack(view)`` see (and may write)
the running simulation without a copy.  The interior is strided: rows are
padded by the ghost zones.  On a grid split over MPI ranks each rank sees
its own subdomain, `sim.decomposition.local_shape` at `offset`.

A DeviceView follows its simulation when a changed parameter (``sim.nu =
...``) makes the simulation's memory afresh: it looks up the simulation's
memory each time it is exported.  An array made from it before (CuPy,
torch) keeps the memory it was made from (kept alive as long as the view
or the array lives) and no longer follows the run: make it again.
"""

from . import _core


class DeviceView:
    """The live interior of one device field, shape (nx, ny, nz), x fastest
    (this rank's subdomain where the grid is split over MPI ranks)."""

    def __init__(self, sim, buffer, field):
        self._sim = sim
        self._exported = [sim._grid]  # every grid whose memory this view has handed out, kept alive for
        # the arrays made from it (CuPy keeps a reference to this view, not to the grid)
        self._buffer, self._field = buffer, field
        split = sim.decomposition
        self.shape = sim.shape if split is None else split.local_shape  # the grid's own points
        self.dtype = sim.dtype
        mx, my, _ = sim._grid.padded_shape
        item = self.dtype.itemsize
        self.strides = (item, item * mx, item * mx * my)  # bytes, as NumPy and CuPy count them

    @property
    def _grid(self):
        """The simulation's grid now (a new one after sim.nu = ...), kept alive with the earlier ones."""
        grid = self._sim._grid
        if grid is not self._exported[-1]:
            self._exported.append(grid)
        return grid

    @property
    def ptr(self):
        """Device address of the first interior point."""
        return self._grid.interior_address(self._buffer, self._field)

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, False),
            "strides": self.strides,
            "version": 3,
            # the legacy default stream: the simulation's own stream is a blocking one, so
            # work queued on either waits for the other's (and step/run return once the GPU is done)
            "stream": 1,
        }

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("DeviceView exports the live field; copy=True is not supported")
        return self._grid.dlpack(self._buffer, self._field)

    def __dlpack_device__(self):
        return self._grid.dlpack_device()

    def get(self):
        """A NumPy copy on the host (as ``sim[name]``)."""
        return self._grid.read(self._buffer, self._field)

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        return f"DeviceView(shape={self.shape}, dtype={self.dtype.name}, ptr=0x{self.ptr:x})"


def copy_bandwidth(nbytes=1 << 30, repeats=10):
    """Device-to-device copy bandwidth in bytes/s (bytes read plus written)."""
    return _core.cuda_copy_bandwidth(int(nbytes), int(repeats))


def memory_info():
    """(free, total) device memory in bytes."""
    return _core.cuda_memory_info()


__all__ = ["DeviceView", "copy_bandwidth", "memory_info"]
