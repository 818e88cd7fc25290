"""astaroth.ops: periodic derivatives of accuracy 2 to 8 (seed 002)."""
import math

import numpy as np
import pytest

import astaroth as ac


def error(n_points, accuracy, order, dtype=np.float64):
    L = 2 * math.pi
    x = np.arange(n_points) * L / n_points
    f = np.sin(3 * x).astype(dtype)
    exact = 3 * np.cos(3 * x) if order == 1 else -9 * np.sin(3 * x)
    d = ac.ops.derivative(f, 0, n=order, accuracy=accuracy, spacing=L / n_points)
    return np.sqrt(np.mean((d - exact) ** 2))


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("accuracy", [2, 4, 6, 8])
def test_measured_convergence_order(accuracy, order):
    e1, e2 = error(32, accuracy, order), error(64, accuracy, order)
    measured = math.log2(e1 / e2)
    print(accuracy, order, e1, e2, measured)
    assert measured == pytest.approx(accuracy, abs=0.25)


def test_sixth_order_weights_are_the_solvers():
    """ops' sixth-order first derivative equals the solver's continuity term for u = (f, 0, 0)."""
    sim = ac.Simulation(shape=(24, 1, 1), box=(2 * math.pi, 1, 1), backend="cpu")
    f = np.sin(sim.x) + 0.3 * np.cos(4 * sim.x)
    sim["ux"] = f[:, None, None]
    d = ac.ops.derivative(f, 0, 1, 6, sim.spacing[0])
    np.testing.assert_allclose(-sim.rhs()["lnrho"][:, 0, 0], d, rtol=0, atol=1e-14)


def test_seed_case_eighth_order_x_derivative_64_cubed_float32():
    """Seed 002: 64^3 periodic grid, eighth-order x-derivative of a sine, float32
    (it reports RMS 5.77e-6 and maximum 2.34e-5)."""
    n = 64
    x = np.arange(n) * 2 * math.pi / n
    f = np.broadcast_to(np.cos(x)[:, None, None], (n, n, n)).astype(np.float32)
    d = ac.ops.derivative(f, 0, 1, 8, 2 * math.pi / n)
    err = d.astype(np.float64) - (-np.sin(x))[:, None, None]
    rms, mx = float(np.sqrt(np.mean(err ** 2))), float(np.max(np.abs(err)))
    print(f"RMS error {rms:.3e} (seed 5.77e-06), maximum {mx:.3e} (seed 2.34e-05)")
    assert d.dtype == np.float32
    assert rms < 1e-5 and mx < 5e-5


def test_vector_operators():
    n = 32
    h = 2 * math.pi / n
    x, y, z = np.meshgrid(*[np.arange(n) * h] * 3, indexing="ij")
    u = (np.sin(y), np.sin(z), np.sin(x))
    cx, cy, cz = ac.ops.curl(u, h)
    np.testing.assert_allclose(cx, -np.cos(z), atol=1e-6)
    np.testing.assert_allclose(cy, -np.cos(x), atol=1e-6)
    np.testing.assert_allclose(cz, -np.cos(y), atol=1e-6)
    assert np.max(np.abs(ac.ops.divergence(u, h))) < 1e-12
    np.testing.assert_allclose(ac.ops.laplacian(np.sin(x + y), h), -2 * np.sin(x + y), atol=1e-5)
    gx, gy, gz = ac.ops.gradient(np.sin(x + 2 * z), h)
    np.testing.assert_allclose(gz, 2 * np.cos(x + 2 * z), atol=1e-4)  # (k dx)^6 / 140 at k = 2


@pytest.mark.parametrize("kwargs", [dict(n=3), dict(accuracy=5), dict(spacing=0.0), dict(axis=3)])
def test_bad_arguments(kwargs):
    args = dict(axis=0, n=1, accuracy=6, spacing=0.1)
    args.update(kwargs)
    with pytest.raises(ValueError):
        ac.ops.derivative(np.zeros((4, 4, 4)), **args)


class _DeviceArrayStandIn:
    """Says it lives on a GPU (__cuda_array_interface__) and refuses a host copy."""
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (1 << 40, False), "strides": None,
                                "version": 3}

    def __array__(self, dtype=None, copy=None):
        raise AssertionError("a device array was copied to the host")


def _device_path_available():
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False
    return hasattr(ac._core, "derivative_device")


@pytest.mark.skipif(_device_path_available(), reason="CuPy and CUDA build present: tests/test_ops_gpu.py covers it")
def test_device_arrays_take_the_device_path_or_say_what_is_missing():
    with pytest.raises((ImportError, RuntimeError), match="CuPy|CUDA backend"):
        ac.ops.derivative(_DeviceArrayStandIn(), 0)


@pytest.mark.skipif("cuda" in ac.backends(), reason="a GPU is here: the benchmark would run")
def test_bench_ops_without_a_gpu_exits_with_a_message(capsys):
    from astaroth.cli import main

    assert main(["bench", "ops"]) == 1
    assert "needs a CUDA GPU" in capsys.readouterr().err


@pytest.mark.parametrize("call, exc, word", [
    (lambda: ac.ops.derivative(np.zeros(8, dtype=complex), 0), TypeError, "complex"),
    (lambda: ac.ops.laplacian(np.zeros((4, 4), dtype=np.complex64)), TypeError, "complex"),
    (lambda: ac.ops.derivative(np.zeros(8), 0.5), TypeError, "axis"),
    (lambda: ac.ops.derivative(np.zeros(8), "x"), TypeError, "axis"),
    (lambda: ac.ops.curl([np.zeros((4, 4, 4))] * 2), ValueError, "curl"),
    (lambda: ac.ops.curl([np.zeros((4, 4))] * 2), ValueError, "curl needs the three"),
    (lambda: ac.ops.divergence([np.zeros((4, 4, 4))] * 2), ValueError, "divergence"),
    (lambda: ac.ops.divergence(np.zeros((4, 4, 4))), ValueError, "divergence"),
])
def test_complex_input_bad_axes_and_component_counts_are_refused(call, exc, word):
    with pytest.raises(exc, match=word):
        call()
