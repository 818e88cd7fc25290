"""astaroth.ops on device arrays (marker `gpu`): the CUDA kernels against
the host C operators, on CuPy arrays of both memory orders, strided and
reversed views, and live fields of a CUDA simulation.

Run on the device machine; skipped where no CUDA GPU is usable.
"""
import math

import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

TOLERANCE = {"float64": 1e-12, "float32": 1e-5}  # max |device - host| / max |host|


def rel(device, host):
    d = cupy.asnumpy(device).astype(np.float64)
    h = np.asarray(host, dtype=np.float64)
    return np.max(np.abs(d - h)) / np.max(np.abs(h))


def check(device_in, axis, n, accuracy, h, dtype):
    """Device result of `device_in` against the host operators on a copy of it."""
    host_in = cupy.asnumpy(device_in)
    got = ac.ops.derivative(device_in, axis, n=n, accuracy=accuracy, spacing=h)
    assert isinstance(got, cupy.ndarray) and got.dtype == np.dtype(dtype) and got.shape == host_in.shape
    want = ac.ops.derivative(host_in, axis, n=n, accuracy=accuracy, spacing=h)
    assert rel(got, want) < TOLERANCE[dtype], (axis, n, accuracy)
    return got


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(37, 20, 13), (6, 41, 3)])  # 3 points: fewer than the stencil radius 4
def test_device_matches_host_every_accuracy_order_axis(shape, order, dtype):
    rng = np.random.default_rng(1)
    a = cupy.asarray(np.asarray(rng.standard_normal(shape), dtype=dtype, order=order))
    assert a.flags.f_contiguous == (order == "F")
    for accuracy in (2, 4, 6, 8):
        for n in (1, 2):
            for axis in range(3):
                got = check(a, axis, n, accuracy, 0.37, dtype)
                assert got.flags.f_contiguous == (order == "F")  # the output keeps the input's memory order


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,order", [((50,), "C"), ((1,), "C"), ((17, 40), "C"), ((17, 40), "F"), ((1, 9), "F")])
def test_device_one_and_two_dimensional(shape, order, dtype):
    rng = np.random.default_rng(2)
    a = cupy.asarray(np.asarray(rng.standard_normal(shape), dtype=dtype, order=order))
    for axis in range(len(shape)):
        for n in (1, 2):
            for accuracy in (2, 8):
                if shape[axis] == 1:  # a single point: every neighbour is itself, the weights sum to 0
                    scale = float(cupy.max(cupy.abs(a))) / 0.1 ** n  # size of one term: zero to round-off of it
                    got = ac.ops.derivative(a, axis, n, accuracy, 0.1)
                    assert float(cupy.max(cupy.abs(got))) <= TOLERANCE[dtype] * scale
                else:
                    check(a, axis, n, accuracy, 0.1, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_device_strided_and_reversed_views(dtype):
    """Views that are neither C- nor F-contiguous, with negative strides, read in place."""
    rng = np.random.default_rng(3)
    big = cupy.asarray(rng.standard_normal((30, 44, 26)).astype(dtype))
    views = (big[::2, 3:-5, ::3], big[::-1, :, 1:20], big.transpose(1, 2, 0)[:, ::-2], big[5, ::-1])
    for view in views:
        assert not (view.flags.c_contiguous or view.flags.f_contiguous)
        for axis in range(view.ndim):
            for accuracy in (4, 6):
                check(view, axis, 1, accuracy, 0.2, dtype)
                check(view, axis, 2, accuracy, 0.2, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_device_contiguous_axis_vector_and_tile_kernels(dtype):
    """Along the contiguous axis, rows of whole aligned 16-byte vectors take the vector kernel, others the
    shared-memory tile kernel (csrc/cuda/ops_impl.cuh): both against the host, including rows of fewer
    vectors than a warp has threads and views starting one element off the alignment."""
    rng = np.random.default_rng(5)
    parent = cupy.asarray(np.asfortranarray(rng.standard_normal((68, 12, 10)).astype(dtype)))  # rows of 68 points
    cases = {
        "aligned, F order": cupy.asfortranarray(parent[:64]),
        "aligned, C order": cupy.ascontiguousarray(parent[:64].transpose(2, 1, 0)),
        "aligned strided view": parent[:64],
        "rows of two vectors": cupy.asfortranarray(parent[:8, :5, :3]),
        "one element off the alignment": parent[1:65],
        "rows not whole vectors": parent[:65],
    }
    for name, a in cases.items():
        axis = 0 if a.strides[0] == a.itemsize else 2
        for n in (1, 2):
            for accuracy in (2, 4, 6, 8):
                got = ac.ops.derivative(a, axis, n, accuracy, 0.3)
                want = ac.ops.derivative(cupy.asnumpy(a), axis, n, accuracy, 0.3)
                assert rel(got, want) < TOLERANCE[dtype], (name, n, accuracy)


def test_device_other_dtypes_become_float64():
    a = cupy.arange(24, dtype=cupy.int32).reshape(4, 6) % 5
    got = check(a, 1, 1, 6, 1.0, "float64")
    assert got.dtype == cupy.float64


def sim_with_smooth_fields(dtype, shape=(24, 20, 16), box=(2 * np.pi, 3.0, 1.7)):
    sim = ac.Simulation(shape=shape, box=box, nu=0.01, dtype=dtype, backend="cuda")
    for name, f in zip(ac.FIELDS, smooth_random_fields(shape, box, np.random.default_rng(4))):
        sim[name] = f
    return sim


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_device_on_a_live_cuda_simulation_view(dtype):
    """sim.view(name): a strided x-fastest view into the padded field, read in place."""
    sim = sim_with_smooth_fields(dtype)
    view = sim.view("ux")
    assert view.strides[1] != view.shape[0] * view.dtype.itemsize  # rows padded by the ghost zones
    for axis in range(3):
        for n in (1, 2):
            for accuracy in (2, 4, 6, 8):
                got = ac.ops.derivative(view, axis, n, accuracy, sim.spacing[axis])
                assert isinstance(got, cupy.ndarray) and got.flags.f_contiguous
                want = ac.ops.derivative(sim["ux"], axis, n, accuracy, sim.spacing[axis])
                assert rel(got, want) < TOLERANCE[dtype], (axis, n, accuracy)


def test_results_stay_on_the_device_and_are_usable_by_cupy():
    sim = sim_with_smooth_fields("float64")
    velocity = [sim.view(c) for c in ("ux", "uy", "uz")]
    results = {"gradient": ac.ops.gradient(sim.view("lnrho"), sim.spacing),
               "laplacian": (ac.ops.laplacian(sim.view("lnrho"), sim.spacing),),
               "divergence": (ac.ops.divergence(velocity, sim.spacing),)}
    host_velocity = [sim[c] for c in ("ux", "uy", "uz")]
    expected = {"gradient": ac.ops.gradient(sim["lnrho"], sim.spacing),
                "laplacian": (ac.ops.laplacian(sim["lnrho"], sim.spacing),),
                "divergence": (ac.ops.divergence(host_velocity, sim.spacing),)}
    for name, arrays in results.items():
        for got, want in zip(arrays, expected[name]):
            assert isinstance(got, cupy.ndarray) and got.device.id == cupy.cuda.Device().id, name
            assert rel(got, want) < TOLERANCE["float64"], name
    # CuPy reductions of the results, on the device, agree with NumPy's of the host results
    assert float(cupy.sum(results["gradient"][0] ** 2)) == pytest.approx(float(np.sum(expected["gradient"][0] ** 2)),
                                                                         rel=1e-12)


@pytest.mark.parametrize("axis", [0, 1])
def test_device_measured_convergence_order(axis):
    """Eighth-order second derivative along a strided (1) and the contiguous (0) axis of an F-ordered array."""
    def error(points):
        h = 2 * math.pi / points
        x = np.arange(points) * h
        shape = [5, 5, 5]
        shape[axis] = points
        profile = np.sin(3 * x).reshape([-1 if a == axis else 1 for a in range(3)])
        f = cupy.asarray(np.asfortranarray(np.broadcast_to(profile, shape)))
        d = ac.ops.derivative(f, axis, n=2, accuracy=8, spacing=h)
        return float(cupy.sqrt(cupy.mean((d - cupy.asarray(-9 * np.broadcast_to(profile, shape))) ** 2)))

    e1, e2 = error(32), error(64)
    measured = math.log2(e1 / e2)
    print(axis, e1, e2, measured)
    assert measured == pytest.approx(8, abs=0.25)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_curl_of_live_simulation_equals_analysis_vorticity(dtype):
    sim = ac.Simulation(shape=(32, 24, 20), box=(2 * np.pi, 4.0, 3.0), nu=0.01, dtype=dtype, backend="cuda")
    ac.init.random_velocity(sim, urms=0.2, seed=5)
    sim.run(until=0.05)  # a live, evolved field
    w = ac.ops.curl([sim.view(c) for c in ("ux", "uy", "uz")], sim.spacing)
    reference = ac.analysis.vorticity(sim)
    for component, ref in zip(w, reference):
        assert isinstance(component, cupy.ndarray)
        assert rel(component, cupy.asnumpy(ref) if isinstance(ref, cupy.ndarray) else ref) < TOLERANCE[dtype]


def test_device_bad_arguments_raise_before_any_work():
    a = cupy.zeros((4, 4, 4))
    for kwargs in (dict(n=3), dict(accuracy=5), dict(spacing=0.0), dict(axis=3)):
        args = dict(axis=0, n=1, accuracy=6, spacing=0.1)
        args.update(kwargs)
        with pytest.raises(ValueError):
            ac.ops.derivative(a, **args)
    with pytest.raises(ValueError, match="1-, 2- or 3-D"):
        ac.ops.derivative(cupy.zeros((2, 2, 2, 2)), 0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_device_walls_one_sided_ends_match_the_host(order, dtype):
    """derivative(walls=True) of a device array: the periodic kernels, then the one-sided points next to
    each wall by CuPy on the device, as the host computes them."""
    rng = np.random.default_rng(4)
    a = cupy.asarray(np.asarray(rng.standard_normal((12, 10, 16)), dtype=dtype, order=order))
    for axis in range(3):
        for n in (1, 2):
            got = ac.ops.derivative(a, axis, n=n, accuracy=6, spacing=0.3, walls=True)
            assert isinstance(got, cupy.ndarray) and got.dtype == np.dtype(dtype)
            want = ac.ops.derivative(cupy.asnumpy(a), axis, n=n, accuracy=6, spacing=0.3, walls=True)
            assert rel(got, want) < TOLERANCE[dtype], (axis, n)


@pytest.mark.parametrize("walled", [True, False], ids=["walls", "periodic"])
def test_mhd_diagnostics_and_averages_on_the_device_agree_with_the_cpu(tmp_path, walled):
    """A CUDA MHD run writes its time series (orms, jrms: with walls one-sided derivatives next to them;
    periodic, J from the second and mixed derivatives) and xy averages of derived quantities, computed on
    the device, as the CPU run does."""
    pytest.importorskip("h5py")
    import h5py

    walls = {"z": {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2", "ax": "a", "ay": "a", "az": "s"}} if walled else None
    rows = {}
    for backend in ("cpu", "cuda"):
        sim = ac.Simulation(shape=(16, 16, 24), box=(1.0, 1.0, 1.5), backend=backend, physics="mhd", eta=5e-3,
                            nu=5e-3, boundaries=walls)
        ac.init.random_velocity(sim, urms=0.05, seed=2)
        sim["ax"] = 0.01 * np.sin(2 * np.pi * sim.y)[None, :, None] * np.sin(np.pi * sim.z / 1.5)[None, None, :]
        out = tmp_path / backend
        sim.run(until=0.1, timeseries=str(out / "ts.csv"), diagnostics_every=1,
                outputs=[ac.outputs.Averages(out, xy=["uz*lnrho", "bx*by", "jz", "ox"], every=2)])
        with h5py.File(out / "xyaverages.h5", "r") as f:
            rows[backend] = {k: f[k][:] for k in ("bx*by", "jz", "ox")}
        rows[backend]["ts"] = np.genfromtxt(out / "ts.csv", delimiter=",", names=True)
    for k in ("bx*by", "jz", "ox"):
        np.testing.assert_allclose(rows["cuda"][k], rows["cpu"][k], rtol=1e-8, atol=1e-12)
    for column in ("urms", "orms", "brms", "jrms"):
        np.testing.assert_allclose(rows["cuda"]["ts"][column], rows["cpu"]["ts"][column], rtol=1e-8)
