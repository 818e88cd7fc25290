"""The exact solution of the Riemann problem of the 1-D Euler equations for an
ideal gas (p = (gamma - 1) rho e), after Toro, "Riemann Solvers and Numerical
Methods for Fluid Dynamics", 3rd ed., Springer 2009, chapter 4: the star
pressure p* by Newton's iteration on f(p) = f_L(p) + f_R(p) + u_R - u_L = 0,
then the wave pattern sampled at x / t.

Default states: Sod's shock tube (Sod 1978, J. Comput. Phys. 27, 1),
gamma = 1.4, left (rho, u, p) = (1, 0, 1), right (0.125, 0, 0.1):
p* = 0.30313, u* = 0.92745, rho*L = 0.42632, rho*R = 0.26557, shock speed
1.75216 (Toro's Table 4.2 and 4.3, test 1).
"""
import math

import numpy as np

SOD_LEFT = (1.0, 0.0, 1.0)
SOD_RIGHT = (0.125, 0.0, 0.1)


def _f_and_df(p, rho_k, p_k, c_k, gamma):
    """Toro's f_K(p) (the velocity change across the left or right wave) and its derivative."""
    if p > p_k:  # shock
        a = 2 / ((gamma + 1) * rho_k)
        b = (gamma - 1) / (gamma + 1) * p_k
        q = math.sqrt(a / (p + b))
        return (p - p_k) * q, q * (1 - (p - p_k) / (2 * (b + p)))
    # rarefaction
    ratio = p / p_k
    f = 2 * c_k / (gamma - 1) * (ratio ** ((gamma - 1) / (2 * gamma)) - 1)
    df = ratio ** (-(gamma + 1) / (2 * gamma)) / (rho_k * c_k)
    return f, df


def star_state(left=SOD_LEFT, right=SOD_RIGHT, gamma=1.4, tol=1e-14, max_iter=100):
    """p* and u* between the two nonlinear waves."""
    rho_l, u_l, p_l = left
    rho_r, u_r, p_r = right
    c_l, c_r = math.sqrt(gamma * p_l / rho_l), math.sqrt(gamma * p_r / rho_r)
    if 2 * (c_l + c_r) / (gamma - 1) <= u_r - u_l:
        raise ValueError("the states generate vacuum")
    # start: the two-rarefaction approximation (Toro eq. 4.46), positive
    z = (gamma - 1) / (2 * gamma)
    p = ((c_l + c_r - 0.5 * (gamma - 1) * (u_r - u_l)) / (c_l / p_l ** z + c_r / p_r ** z)) ** (1 / z)
    for _ in range(max_iter):
        fl, dfl = _f_and_df(p, rho_l, p_l, c_l, gamma)
        fr, dfr = _f_and_df(p, rho_r, p_r, c_r, gamma)
        p_new = max(p - (fl + fr + u_r - u_l) / (dfl + dfr), 1e-300)
        if abs(p_new - p) <= tol * 0.5 * (p_new + p):
            p = p_new
            break
        p = p_new
    else:
        raise RuntimeError("Newton iteration for p* did not converge")
    fl, _ = _f_and_df(p, rho_l, p_l, c_l, gamma)
    fr, _ = _f_and_df(p, rho_r, p_r, c_r, gamma)
    return p, 0.5 * (u_l + u_r) + 0.5 * (fr - fl)


def sample(xi, left=SOD_LEFT, right=SOD_RIGHT, gamma=1.4):
    """(rho, u, p) at the similarity coordinate xi = (x - x0) / t (arrays)."""
    xi = np.asarray(xi, dtype=float)
    rho_l, u_l, p_l = left
    rho_r, u_r, p_r = right
    c_l, c_r = math.sqrt(gamma * p_l / rho_l), math.sqrt(gamma * p_r / rho_r)
    ps, us = star_state(left, right, gamma)
    g1, g2 = (gamma - 1) / (gamma + 1), (gamma - 1) / (2 * gamma)
    rho, u, p = np.empty_like(xi), np.empty_like(xi), np.empty_like(xi)

    def side(mask, rho_k, u_k, p_k, c_k, sign):
        """Fill `mask` (points on the K side of the contact); sign = -1 left, +1 right."""
        if ps > p_k:  # shock
            rho_star = rho_k * (ps / p_k + g1) / (g1 * ps / p_k + 1)
            speed = u_k + sign * c_k * math.sqrt((gamma + 1) / (2 * gamma) * ps / p_k + g2)
            outside = mask & (sign * xi >= sign * speed)
            inside = mask & ~outside
            rho[outside], u[outside], p[outside] = rho_k, u_k, p_k
            rho[inside], u[inside], p[inside] = rho_star, us, ps
        else:  # rarefaction: head, tail, fan
            rho_star = rho_k * (ps / p_k) ** (1 / gamma)
            c_star = c_k * (ps / p_k) ** g2
            head, tail = u_k + sign * c_k, us + sign * c_star
            outside = mask & (sign * xi >= sign * head)
            inside = mask & (sign * xi <= sign * tail)
            fan = mask & ~outside & ~inside
            rho[outside], u[outside], p[outside] = rho_k, u_k, p_k
            rho[inside], u[inside], p[inside] = rho_star, us, ps
            x = xi[fan]
            c = 2 / (gamma + 1) * (c_k - sign * (gamma - 1) / 2 * (u_k - x))
            u[fan] = 2 / (gamma + 1) * (-sign * c_k + (gamma - 1) / 2 * u_k + x)
            rho[fan] = rho_k * (c / c_k) ** (2 / (gamma - 1))
            p[fan] = p_k * (c / c_k) ** (2 * gamma / (gamma - 1))

    left_of_contact = xi < us
    side(left_of_contact, rho_l, u_l, p_l, c_l, -1)
    side(~left_of_contact, rho_r, u_r, p_r, c_r, +1)
    return rho, u, p


def solution(x, t, x0=0.0, left=SOD_LEFT, right=SOD_RIGHT, gamma=1.4):
    """(rho, u, p) at positions x and time t > 0 of the jump at x0."""
    return sample((np.asarray(x, dtype=float) - x0) / t, left, right, gamma)
