"""Finite-difference operators for analysis, on periodic arrays.

    ac.ops.derivative(f, axis, n=1, accuracy=6, spacing=dx)
    ac.ops.gradient(f, spacing), ac.ops.divergence(u, spacing),
    ac.ops.curl(u, spacing), ac.ops.laplacian(f, spacing)

Central differences of accuracy 2, 4, 6 or 8 (the sixth-order weights are
the solver's own, csrc/physics.h), computed in C with OpenMP:

    first derivative:  f'_i  = sum_r c_r (f_{i+r} - f_{i-r}) / h
    second derivative: f''_i = (c_0 f_i + sum_r c_r (f_{i+r} + f_{i-r})) / h^2

e.g. sixth order: c = (3/4, -3/20, 1/60) and (-49/18, 3/2, -3/20, 1/90);
eighth order: c = (4/5, -1/5, 4/105, -1/280).  Arrays are float32 or
float64 NumPy arrays (others are converted to float64), periodic along
every axis.  Device arrays (CUDA) are not supported yet.
"""
import numpy as np

from . import _core

ACCURACIES = (2, 4, 6, 8)


def _array(f):
    if hasattr(f, "__cuda_array_interface__") and not isinstance(f, np.ndarray):
        raise NotImplementedError("astaroth.ops on device arrays is not implemented yet; copy to the host first")
    a = np.asarray(f)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    return a


def _spacings(spacing, ndim):
    if np.ndim(spacing) == 0:
        return (float(spacing),) * ndim
    if len(spacing) != ndim:
        raise ValueError(f"spacing needs one value per axis ({ndim}), got {spacing!r}")
    return tuple(float(s) for s in spacing)


def derivative(f, axis, n=1, accuracy=6, spacing=1.0):
    """d^n f / dx_axis^n by periodic central differences of the given accuracy."""
    a = _array(f)
    if n not in (1, 2):
        raise ValueError(f"n must be 1 or 2, got {n!r}")
    if accuracy not in ACCURACIES:
        raise ValueError(f"accuracy must be one of {ACCURACIES}, got {accuracy!r}")
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"axis {axis} out of range for an array of {a.ndim} dimensions")
    h = float(spacing)
    if not h > 0:
        raise ValueError(f"spacing must be positive, got {spacing!r}")
    return _core.derivative(a, axis % a.ndim, n, accuracy, h)


def gradient(f, spacing=1.0, accuracy=6):
    """(df/dx, df/dy, ...) of an array."""
    a = _array(f)
    return tuple(derivative(a, ax, 1, accuracy, h) for ax, h in enumerate(_spacings(spacing, a.ndim)))


def vector_divergence(u, hs, first_derivative):
    """sum_a d u_a / dx_a, with first_derivative(f, axis, h) supplying d/dx_a."""
    return sum(first_derivative(c, ax, hs[ax]) for ax, c in enumerate(u))


def vector_curl(u, hs, first_derivative):
    """curl of (ux, uy, uz), with first_derivative(f, axis, h) supplying d/dx_a."""
    d = lambda c, ax: first_derivative(u[c], ax, hs[ax])
    return (d(2, 1) - d(1, 2), d(0, 2) - d(2, 0), d(1, 0) - d(0, 1))


def divergence(u, spacing=1.0, accuracy=6):
    """sum_a d u_a / dx_a of a vector field given as a sequence of arrays."""
    return vector_divergence(u, _spacings(spacing, np.ndim(u[0])),
                             lambda f, ax, h: derivative(f, ax, 1, accuracy, h))


def curl(u, spacing=1.0, accuracy=6):
    """curl of a 3-D vector field (ux, uy, uz)."""
    return vector_curl(u, _spacings(spacing, 3), lambda f, ax, h: derivative(f, ax, 1, accuracy, h))


def laplacian(f, spacing=1.0, accuracy=6):
    """sum_a d^2 f / dx_a^2."""
    a = _array(f)
    return sum(derivative(a, ax, 2, accuracy, h) for ax, h in enumerate(_spacings(spacing, a.ndim)))
