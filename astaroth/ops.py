"""Finite-difference operators for analysis, on periodic arrays.

    ac.ops.derivative(f, axis, n=1, accuracy=6, spacing=h)
    ac.ops.gradient(f, spacing), ac.ops.divergence(u, spacing),
    ac.ops.curl(u, spacing), ac.ops.laplacian(f, spacing)

Central differences of accuracy 2, 4, 6 or 8 (error O(h^accuracy)), with
index arithmetic modulo the number of points along the axis (periodic):

    first derivative:  f'_i  = sum_{r=1}^{R} c_r (f_{i+r} - f_{i-r}) / h
    second derivative: f''_i = (c_0 f_i + sum_{r=1}^{R} c_r (f_{i+r} + f_{i-r})) / h^2

with R = accuracy / 2 and the weights

    accuracy   first derivative c_1 .. c_R    second derivative c_0 .. c_R
       2       1/2                            -2, 1
       4       2/3, -1/12                     -5/2, 4/3, -1/12
       6       3/4, -3/20, 1/60               -49/18, 3/2, -3/20, 1/90
       8       4/5, -1/5, 4/105, -1/280       -205/72, 8/5, -1/5, 8/315, -1/560

They come from one table, central_coefficient() in csrc/physics.h, whose
sixth-order row is the solver's own stencil (seed eqs. 6-7), on the host
and on the GPU alike.  The vector operators are

    gradient:   (d f/dx, d f/dy, d f/dz)
    divergence: d u_x/dx + d u_y/dy + d u_z/dz
    curl:       (d u_z/dy - d u_y/dz, d u_x/dz - d u_z/dx, d u_y/dx - d u_x/dy)
    laplacian:  d^2 f/dx^2 + d^2 f/dy^2 + d^2 f/dz^2

each from `derivative` along every axis, `spacing` one h or one per axis.

Where the work runs follows the array:
 - NumPy arrays (and anything NumPy converts) are differentiated in C with
   OpenMP; float32 and float64 keep their precision, other types become
   float64; the result is a NumPy array.
 - Device arrays, i.e. anything with ``__cuda_array_interface__`` that is
   not a NumPy array (CuPy arrays, ``sim.view(name)`` of a CUDA simulation,
   PyTorch CUDA tensors), are differentiated on the GPU by the CUDA kernels
   of csrc/cuda/ops_impl.cuh, read in place (strided views included, no
   copy); the result is a CuPy array on the same device, in the memory
   order of the input (x fastest for ``sim.view``), queued on CuPy's
   current stream.  Needs CuPy and a build with the CUDA backend; 1-, 2- or
   3-D arrays.
"""
import math
import numbers

import numpy as np

from . import _core

ACCURACIES = (2, 4, 6, 8)


def _is_device_array(f):
    return hasattr(f, "__cuda_array_interface__") and not isinstance(f, np.ndarray)


def _cupy():
    """CuPy, or an error saying what the device path needs."""
    if not hasattr(_core, "derivative_device"):
        raise RuntimeError("astaroth.ops got a GPU array, but this astaroth build has no CUDA backend (nvcc was not "
                           "found when it was installed); reinstall where nvcc is available, or copy the array to "
                           "the host with numpy.asarray(...)")
    try:
        import cupy
    except ImportError as e:
        raise ImportError("astaroth.ops on GPU arrays returns CuPy arrays and needs CuPy "
                          "(pip install cupy-cuda12x, or the wheel for your CUDA); or copy the array to the host "
                          "with numpy.asarray(...)") from e
    return cupy


def _array(f):
    """f as the operators take it: a CuPy array (zero copy) for a device
    array, else a NumPy array; float32 and float64 kept, others to float64."""
    if _is_device_array(f):
        cp = _cupy()
        a = cp.asarray(f)  # reads __cuda_array_interface__: a view, no copy
        if a.dtype.kind not in "biuf":
            raise TypeError(f"astaroth.ops takes real arrays, got dtype {a.dtype}")
        if a.dtype not in (cp.float32, cp.float64):
            a = a.astype(cp.float64)
        if not 1 <= a.ndim <= 3:
            raise ValueError(f"astaroth.ops on the GPU takes 1-, 2- or 3-D arrays, got {a.ndim}-D")
        if any(s % a.itemsize for s in a.strides):  # strides the kernels cannot count in elements
            a = cp.ascontiguousarray(a)
        return a
    a = np.asarray(f)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"astaroth.ops takes real arrays, got dtype {a.dtype}"
                        + (": differentiate .real and .imag separately" if a.dtype.kind == "c" else ""))
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    return a


def _ndim(f):
    # .shape first: np.ndim would copy a device view to the host to count
    return len(f.shape) if hasattr(f, "shape") else np.ndim(f)


def _spacings(spacing, ndim):
    if np.ndim(spacing) == 0:
        return (float(spacing),) * ndim
    if len(spacing) != ndim:
        raise ValueError(f"spacing needs one value per axis ({ndim}), got {spacing!r}")
    return tuple(float(s) for s in spacing)


def _device_derivative(a, axis, n, accuracy, h):
    """derivative() of a CuPy array on its GPU, into a new CuPy array."""
    import cupy as cp

    sizes = [(abs(s), ax) for ax, s in enumerate(a.strides) if a.shape[ax] > 1]
    x_fastest = a.ndim > 1 and bool(sizes) and min(sizes)[1] == 0
    out = cp.empty(a.shape, a.dtype, order="F" if x_fastest else "C")  # same memory order: coalesced writes
    if a.size == 0:
        return out
    with a.device:
        _core.derivative_device(a.data.ptr, out.data.ptr, a.shape, tuple(s // a.itemsize for s in a.strides),
                                tuple(s // out.itemsize for s in out.strides), a.dtype == cp.float64, axis, n,
                                accuracy, h, cp.cuda.get_current_stream().ptr)
    return out


def derivative(f, axis, n=1, accuracy=6, spacing=1.0, walls=False):
    """d^n f / dx_axis^n by periodic central differences (module docstring):
    f'_i = sum_r c_r (f_{i+r} - f_{i-r}) / h, f''_i = (c_0 f_i + sum_r c_r
    (f_{i+r} + f_{i-r})) / h^2, r = 1 .. accuracy/2, indices modulo the
    length of the axis.  NumPy in, NumPy out (C, OpenMP); device array in,
    CuPy array out (CUDA).

    walls=True: the axis has walls at its first and last points
    (astaroth.boundaries), and the accuracy/2 points next to each end take
    one-sided (biased) stencils on the accuracy + 1 points nearest them, of
    the same order, in place of the periodic wrap (device arrays: those
    points by CuPy's arithmetic on the device, the rest by the CUDA
    kernels)."""
    a = _array(f)
    if n not in (1, 2):
        raise ValueError(f"n must be 1 or 2, got {n!r}")
    if accuracy not in ACCURACIES:
        raise ValueError(f"accuracy must be one of {ACCURACIES}, got {accuracy!r}")
    if isinstance(axis, bool) or not isinstance(axis, (numbers.Integral, np.integer)):
        raise TypeError(f"axis must be an integer, got {axis!r}")
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"axis {axis} out of range for an array of {a.ndim} dimensions")
    h = float(spacing)
    if not h > 0:
        raise ValueError(f"spacing must be positive, got {spacing!r}")
    if not isinstance(a, np.ndarray):
        d = _device_derivative(a, axis % a.ndim, n, accuracy, h)
        if walls:
            import cupy

            _one_sided_ends(a, d, axis % a.ndim, n, accuracy, h, cupy)
        return d
    d = _core.derivative(a, axis % a.ndim, n, accuracy, h)
    if walls:
        _one_sided_ends(a, d, axis % a.ndim, n, accuracy, h)
    return d


def _stencil_weights(offsets, n):
    """Weights w of sum_j w_j f(x + o_j h) = h^n f^(n)(x) + O(h^len(offsets)):
    the Taylor conditions sum_j w_j o_j^m = n! [m == n], m < len(offsets)."""
    o = np.asarray(offsets, dtype=np.float64)
    powers = np.vander(o, increasing=True).T  # powers[m, j] = o_j^m
    rhs = np.zeros(len(o))
    rhs[n] = math.factorial(n)
    return np.linalg.solve(powers, rhs)


def _one_sided_ends(a, d, axis, n, accuracy, h, xp=np):
    """Overwrite the accuracy/2 points at each end of `axis` of d with the
    biased stencils of derivative(walls=True); xp: the array module of a
    and d (NumPy, or CuPy for device arrays, the work then on the device)."""
    size = a.shape[axis]
    points = accuracy + 1
    if size < points:
        raise ValueError(f"derivative: walls=True needs at least {points} points along the axis, got {size}")
    fa, fd = xp.moveaxis(a, axis, -1), xp.moveaxis(d, axis, -1)
    for i in range(accuracy // 2):
        w = _stencil_weights(np.arange(points) - i, n) / h ** n
        w = w if xp is np else [float(c) for c in w]  # Python numbers: CuPy scales on the device
        fd[..., i] = sum(w[j] * fa[..., j] for j in range(points))
        # the upper end mirrors the lower: offsets -(j - i), so odd derivatives change sign
        fd[..., size - 1 - i] = (-1) ** n * sum(w[j] * fa[..., size - 1 - j] for j in range(points))


def gradient(f, spacing=1.0, accuracy=6):
    """(df/dx_0, df/dx_1, ...) of an array."""
    a = _array(f)
    return tuple(derivative(a, ax, 1, accuracy, h) for ax, h in enumerate(_spacings(spacing, a.ndim)))


def vector_divergence(u, hs, first_derivative):
    """sum_a d u_a / dx_a, with first_derivative(f, axis, h) supplying d/dx_a."""
    return sum(first_derivative(c, ax, hs[ax]) for ax, c in enumerate(u))


def vector_curl(u, hs, first_derivative):
    """curl of (ux, uy, uz), with first_derivative(f, axis, h) supplying d/dx_a."""
    d = lambda c, ax: first_derivative(u[c], ax, hs[ax])
    return (d(2, 1) - d(1, 2), d(0, 2) - d(2, 0), d(1, 0) - d(0, 1))


def _components(u, what):
    """The number of components in u, each an array of as many dimensions;
    a ValueError saying what `what` needs otherwise."""
    try:
        n = len(u)
    except TypeError:
        raise TypeError(f"{what} takes u as a sequence of arrays, one per component, not {type(u).__name__}") from None
    ndim = _ndim(u[0]) if n else 0
    if n == 0 or n != ndim:
        raise ValueError(f"{what} needs one component of u per axis: got {n} components of {ndim}-D arrays")
    return n


def divergence(u, spacing=1.0, accuracy=6):
    """sum_a d u_a / dx_a of a vector field given as a sequence of arrays."""
    _components(u, "divergence")
    return vector_divergence(u, _spacings(spacing, _ndim(u[0])),
                             lambda f, ax, h: derivative(f, ax, 1, accuracy, h))


def curl(u, spacing=1.0, accuracy=6):
    """curl of a 3-D vector field (ux, uy, uz):
    (d_y u_z - d_z u_y, d_z u_x - d_x u_z, d_x u_y - d_y u_x)."""
    if _components(u, "curl") != 3:
        raise ValueError(f"curl needs the three components (ux, uy, uz) of a 3-D field, got {len(u)}")
    return vector_curl(u, _spacings(spacing, 3), lambda f, ax, h: derivative(f, ax, 1, accuracy, h))


def laplacian(f, spacing=1.0, accuracy=6):
    """sum_a d^2 f / dx_a^2."""
    a = _array(f)
    return sum(derivative(a, ax, 2, accuracy, h) for ax, h in enumerate(_spacings(spacing, a.ndim)))
