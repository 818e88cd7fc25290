"""An independent NumPy statement of eqs. (1)-(3) and (10) of seed 001.

Written from the equations, not from csrc/: derivatives by np.roll on the
periodic grid with the sixth-order weights typed in here, the rate of strain
as a full tensor.  The tests compare the C/CUDA backends against it.
"""
import numpy as np


def ddx(f, axis, h):
    """First derivative, eq. (6)."""
    r = lambda s: np.roll(f, -s, axis=axis)  # f at i + s
    return (-r(-3) + 9 * r(-2) - 45 * r(-1) + 45 * r(1) - 9 * r(2) + r(3)) / (60 * h)


def d2dx2(f, axis, h):
    """Second derivative, eq. (7)."""
    r = lambda s: np.roll(f, -s, axis=axis)
    return (2 * r(-3) - 27 * r(-2) + 270 * r(-1) - 490 * f + 270 * r(1) - 27 * r(2) + 2 * r(3)) / (180 * h * h)


def d2dxdy(f, a, b, ha, hb):
    """Mixed derivative by the bidiagonal scheme, eq. (8)."""
    def at(i, j):  # f at (index_a + i, index_b + j)
        return np.roll(np.roll(f, -i, axis=a), -j, axis=b)
    total = 0
    for s, w in ((1, 270), (2, -27), (3, 2)):
        total = total + w * (at(s, s) - at(-s, s) + at(-s, -s) - at(s, -s))
    return total / (720 * ha * hb)


def time_derivatives(lnrho, u, h, nu, cs):
    """d lnrho/dt and du/dt of eqs. (1)-(2); u is a list of three arrays."""
    grad_lnrho = np.array([ddx(lnrho, j, h[j]) for j in range(3)])
    J = np.array([[ddx(u[i], j, h[j]) for j in range(3)] for i in range(3)])  # J[i, j] = d_j u_i
    U = np.array(u)
    div = np.trace(J)
    S = 0.5 * (J + J.transpose(1, 0, 2, 3, 4)) - np.eye(3)[:, :, None, None, None] * div / 3
    lap = np.array([sum(d2dx2(u[i], j, h[j]) for j in range(3)) for i in range(3)])
    grad_div = np.array([sum(d2dx2(u[i], i, h[i]) if i == j else d2dxdy(u[j], i, j, h[i], h[j])
                             for j in range(3)) for i in range(3)])
    dlnrho = -np.einsum("j...,j...->...", U, grad_lnrho) - div
    du = (-np.einsum("j...,ij...->i...", U, J) - cs ** 2 * grad_lnrho
          + nu * (lap + grad_div / 3 + 2 * np.einsum("ij...,j...->i...", S, grad_lnrho)))
    return dlnrho, du


def rk3_step(lnrho, u, h, nu, cs, dt):
    """One full 2N-storage RK3 step, eq. (10), Williamson coefficients."""
    alpha = (0.0, -5 / 9, -153 / 128)
    beta = (1 / 3, 15 / 16, 8 / 15)
    q = np.array([lnrho, *u])
    w = np.zeros_like(q)
    for s in range(3):
        dl, du = time_derivatives(q[0], list(q[1:]), h, nu, cs)
        w = alpha[s] * w + dt * np.array([dl, *du])
        q = q + beta[s] * w
    return q[0], list(q[1:])


def smooth_random_fields(shape, box, rng, modes=4, amplitude=0.2):
    """lnrho, ux, uy, uz as sums of random low Fourier modes of the box."""
    coords = np.meshgrid(*[np.arange(n) * L / n for n, L in zip(shape, box)], indexing="ij")
    out = []
    for _ in range(4):
        f = np.zeros(shape)
        for _ in range(modes):
            k = [rng.integers(-2, 3) * 2 * np.pi / L if n > 1 else 0.0 for n, L in zip(shape, box)]
            phase = rng.uniform(0, 2 * np.pi)
            f += rng.uniform(-1, 1) * amplitude * np.cos(sum(ki * c for ki, c in zip(k, coords)) + phase)
        out.append(f)
    return out
