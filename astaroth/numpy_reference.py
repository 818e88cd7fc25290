"""An independent NumPy statement of eqs. (1)-(3) and (10) of seed 001.

Written from the seed's equations, not from csrc/: derivatives by np.roll on
the periodic grid with the sixth-order weights typed in here (deliberately
not taken from csrc/physics.h, so that a wrong coefficient there is caught),
the rate of strain as a full tensor.  The tests compare the backends against
it, and `astaroth bench` times it as the baseline: with NumPy on the CPU,
with JAX (jit) or CuPy on the GPU (the array module is taken from the input).
"""
import numpy as np


def _xp(a):
    """The array module (numpy, cupy or jax.numpy) that `a` belongs to."""
    top = type(a).__module__.split(".")[0]
    if top == "cupy":
        import cupy
        return cupy
    if top in ("jax", "jaxlib"):
        import jax.numpy
        return jax.numpy
    return np


def ddx(f, axis, h):
    """First derivative, eq. (6)."""
    r = lambda s: _xp(f).roll(f, -s, axis=axis)  # f at i + s
    return (-r(-3) + 9 * r(-2) - 45 * r(-1) + 45 * r(1) - 9 * r(2) + r(3)) / (60 * h)


def d2dx2(f, axis, h):
    """Second derivative, eq. (7)."""
    r = lambda s: _xp(f).roll(f, -s, axis=axis)
    return (2 * r(-3) - 27 * r(-2) + 270 * r(-1) - 490 * f + 270 * r(1) - 27 * r(2) + 2 * r(3)) / (180 * h * h)


def d2dxdy(f, a, b, ha, hb):
    """Mixed derivative by the bidiagonal scheme, eq. (8)."""
    def at(i, j):  # f at (index_a + i, index_b + j)
        xp = _xp(f)
        return xp.roll(xp.roll(f, -i, axis=a), -j, axis=b)
    total = 0
    for s, w in ((1, 270), (2, -27), (3, 2)):
        total = total + w * (at(s, s) - at(-s, s) + at(-s, -s) - at(s, -s))
    return total / (720 * ha * hb)


def time_derivatives(lnrho, u, h, nu, cs):
    """d lnrho/dt and du/dt of eqs. (1)-(2); u is a list of three arrays."""
    xp = _xp(lnrho)
    grad_lnrho = xp.stack([ddx(lnrho, j, h[j]) for j in range(3)])
    J = xp.stack([xp.stack([ddx(u[i], j, h[j]) for j in range(3)]) for i in range(3)])  # J[i, j] = d_j u_i
    U = xp.stack(u)
    div = J[0, 0] + J[1, 1] + J[2, 2]
    S = 0.5 * (J + J.transpose(1, 0, 2, 3, 4)) - xp.eye(3, dtype=div.dtype)[:, :, None, None, None] * div / 3
    lap = xp.stack([sum(d2dx2(u[i], j, h[j]) for j in range(3)) for i in range(3)])
    grad_div = xp.stack([sum(d2dx2(u[i], i, h[i]) if i == j else d2dxdy(u[j], i, j, h[i], h[j])
                             for j in range(3)) for i in range(3)])
    dlnrho = -xp.einsum("j...,j...->...", U, grad_lnrho) - div
    du = (-xp.einsum("j...,ij...->i...", U, J) - cs ** 2 * grad_lnrho
          + nu * (lap + grad_div / 3 + 2 * xp.einsum("ij...,j...->i...", S, grad_lnrho)))
    return dlnrho, du


def rk3_step(lnrho, u, h, nu, cs, dt):
    """One full 2N-storage RK3 step, eq. (10), Williamson coefficients."""
    alpha = (0.0, -5 / 9, -153 / 128)
    beta = (1 / 3, 15 / 16, 8 / 15)
    xp = _xp(lnrho)
    q = xp.stack([lnrho, *u])
    w = xp.zeros_like(q)
    for s in range(3):
        dl, du = time_derivatives(q[0], list(q[1:]), h, nu, cs)
        w = alpha[s] * w + dt * xp.concatenate([dl[None], du])
        q = q + beta[s] * w
    return q[0], list(q[1:])

