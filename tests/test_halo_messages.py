"""The geometry of a split grid's ghost-zone messages (astaroth/halo_messages.py), in one process: the
neighbours a subdomain sends to, the boxes its messages take and fill, and the pieces of z planes the GPU's
copy engine moves them in.  The runs under mpirun (tests/test_mpi.py, tests/test_mpi_gpu.py) hold the same
messages to one process's bits."""
import itertools

import numpy as np
import pytest

from astaroth.halo_messages import GHOST, _box, directions, plane_pieces
from astaroth.parallel import _block


@pytest.mark.parametrize("dims, count", [((1, 1, 2), 2), ((1, 2, 2), 8), ((2, 2, 2), 26), ((3, 1, 1), 2),
                                         ((2, 1, 4), 8)])
def test_a_subdomain_sends_to_each_neighbour_across_a_face_an_edge_or_a_corner_of_the_split_axes(dims, count):
    found = directions(dims)
    assert len(found) == len(set(found)) == count
    assert all(v[a] == 0 for v in found for a in range(3) if dims[a] == 1)
    assert all(tuple(-c for c in v) in found for v in found)  # each message has one coming back


def _subdomains(shape, dims):
    """Each subdomain's coordinates, interior start (its global offset) and length per axis."""
    for coords in itertools.product(*(range(d) for d in dims)):
        blocks = [_block(n, d, c) for n, d, c in zip(shape, dims, coords)]
        yield coords, tuple(b[0] for b in blocks), tuple(b[1] for b in blocks)


@pytest.mark.parametrize("shape, dims", [((10, 12, 14), (1, 1, 2)), ((10, 12, 14), (1, 2, 2)),
                                         ((9, 12, 14), (2, 2, 2)), ((10, 7, 20), (2, 1, 3))])
def test_one_round_of_messages_fills_every_ghost_value_from_the_periodic_grid(shape, dims):
    """Every subdomain's unsplit axes filled from its own interior first, then every message copied from the
    sender's box into the receiver's ghost box (uneven blocks included): each padded array, edges and corners
    too, is then the periodic grid around its subdomain."""
    rng = np.random.default_rng(3)
    grid = rng.standard_normal(shape[::-1])  # [k, j, i]
    padded, where = {}, {}
    for coords, offset, n in _subdomains(shape, dims):
        m = tuple(x + 2 * GHOST for x in n)
        index = np.ix_(*[(np.arange(-GHOST, n[a] + GHOST) + offset[a]) % shape[a] for a in (2, 1, 0)])
        want = grid[index]
        got = np.full(m[::-1], np.nan)
        got[GHOST:GHOST + n[2], GHOST:GHOST + n[1], GHOST:GHOST + n[0]] = want[GHOST:-GHOST, GHOST:-GHOST,
                                                                               GHOST:-GHOST]
        for a in (0, 1, 2):  # the unsplit axes' periodic images, as the backend's fill_ghost_axis
            if dims[a] == 1:
                axis = 2 - a
                for g in range(GHOST):
                    low, high = [slice(None)] * 3, [slice(None)] * 3
                    low[axis], high[axis] = g, GHOST + n[a] + g
                    src_low, src_high = [slice(None)] * 3, [slice(None)] * 3
                    src_low[axis], src_high[axis] = n[a] + g, GHOST + g
                    got[tuple(low)] = got[tuple(src_low)]
                    got[tuple(high)] = got[tuple(src_high)]
        padded[coords], where[coords] = (got, want), (n, m)
    split = [d > 1 for d in dims]
    lo = (GHOST,) * 3
    for coords in padded:
        n, m = where[coords]
        for v in directions(dims):
            to = tuple((c + v[a]) % dims[a] for a, c in enumerate(coords))
            send = _box(v, lo, n, m, split, False)
            receive = _box(v, lo, *where[to], split, True)
            padded[to][0][receive] = padded[coords][0][send]
    for coords, (got, want) in padded.items():
        np.testing.assert_array_equal(got, want, err_msg=str(coords))


@pytest.mark.parametrize("dims", [(1, 1, 2), (1, 2, 2), (1, 2, 3)])
def test_a_message_across_y_z_or_an_edge_is_equal_pieces_of_z_planes(dims):
    """Where x is not split, each box as plane_pieces describes it (first element, piece, count, pitch) is the
    box itself: what a 2-D copy (or a plain one of whole planes) of the copy engine moves."""
    n = (10, 9, 8)
    m = tuple(x + 2 * GHOST for x in n)
    array = np.arange(np.prod(m)).reshape(m[::-1])
    flat = array.ravel()
    for v in directions(dims):
        for ghost in (False, True):
            box = _box(v, (GHOST,) * 3, n, m, [d > 1 for d in dims], ghost)
            first, width, count, pitch = plane_pieces(box, array.shape)
            pieces = np.concatenate([flat[first + p * pitch:first + p * pitch + width] for p in range(count)])
            np.testing.assert_array_equal(pieces, array[box].ravel())
            assert (count == 1) == (v[1] == 0 and dims[1] == 1)  # whole planes where y is not split


def test_a_box_not_spanning_the_padded_x_is_refused():
    with pytest.raises(ValueError, match="whole padded x"):
        plane_pieces((slice(0, 3), slice(0, 4), slice(3, 7)), (10, 10, 10))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_cpu_backend_copies_message_boxes_as_numpy_slices_do(dtype):
    """Grid.copy_boxes on the CPU (csrc/cpu/cpu_backend.c): each box of each array into its buffer, array by
    array and x fastest, and back into other boxes, as a split CPU run's messages take them."""
    import ctypes

    import astaroth as ac

    sim = ac.Simulation(shape=(10, 12, 14), physics="mhd", dtype=dtype, backend="cpu")
    grid, names = sim._grid, sim.field_names
    m0, m1, m2 = grid.padded_shape
    itemsize = np.dtype(dtype).itemsize

    def padded(field):
        buffer = (ctypes.c_char * (m0 * m1 * m2 * itemsize)).from_address(grid.padded_address(0, field))
        return np.frombuffer(buffer, dtype=dtype).reshape(m2, m1, m0)

    arrays = [padded(f) for f in range(len(names))]
    rng = np.random.default_rng(4)
    for a in arrays:
        a[...] = rng.standard_normal(a.shape)
    boxes = [(slice(0, 3), slice(2, 9), slice(1, 11)), (slice(5, 17), slice(0, 4), slice(13, 16)),
             (slice(17, 20), slice(15, 18), slice(0, 16))]  # [k, j, i]

    def table(slices):
        return np.array([(i.stop - i.start, j.stop - j.start, k.stop - k.start, (k.start * m1 + j.start) * m0 + i.start)
                         for k, j, i in slices], dtype=np.int64).ravel()

    sizes = [int(np.prod([s.stop - s.start for s in b])) for b in boxes]
    held = [np.full(len(arrays) * n, np.nan, dtype) for n in sizes]
    addresses = np.array([a.ctypes.data for a in arrays], dtype=np.uint64)
    pieces = np.array([h.ctypes.data for h in held], dtype=np.uint64)
    sent = table(boxes)
    grid.copy_boxes(addresses.ctypes.data, len(arrays), sent.ctypes.data, pieces.ctypes.data, len(boxes),
                    max(sizes), False)
    for h, box in zip(held, boxes):
        assert np.array_equal(h, np.concatenate([a[box].ravel() for a in arrays]))
    before = [a.copy() for a in arrays]
    into = [(slice(3, 6), slice(9, 16), slice(5, 15)), (slice(8, 20), slice(14, 18), slice(0, 3)),
            (slice(0, 3), slice(0, 3), slice(0, 16))]
    grid.copy_boxes(addresses.ctypes.data, len(arrays), table(into).ctypes.data, pieces.ctypes.data, len(into),
                    max(sizes), True)
    for q, (a, old) in enumerate(zip(arrays, before)):
        expected = old.copy()
        for h, box, n in zip(held, into, sizes):
            expected[box] = h[q * n:(q + 1) * n].reshape(expected[box].shape)
        assert np.array_equal(a, expected), names[q]
