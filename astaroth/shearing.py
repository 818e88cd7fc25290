"""Linear theory of the shearing box for comparing with runs (csrc/terms/shear.h):
the axisymmetric magnetorotational instability of a box rotating at Omega
about z with shear S = -q Omega, threaded by a vertical field B0 (Balbus &
Hawley 1991, ApJ 376, 214; Balbus & Hawley 1998, Rev. Mod. Phys. 70, 1,
sect. IV.B).

A mode with wave vector kz along z and no x or y dependence has
ux, uy ~ sin(kz z) and bx, by ~ cos(kz z) (rho = rho0, no pressure: it is
incompressible), and obeys

    d/dt (ux, uy, bx, by) = M (ux, uy, bx, by)  with  vA^2 = B0^2 / (mu0 rho0),

    M = [[-nu k^2,    2 Omega,      -B0 k / (mu0 rho0), 0                 ],
         [-(2 Omega + S), -nu k^2,  0,                 -B0 k / (mu0 rho0)],
         [B0 k,        0,           -eta k^2,           0                 ],
         [0,           B0 k,        S,                  -eta k^2          ]]

whose growing root is the instability.  Without dissipation its rate s
solves s^4 + s^2 (kappa^2 + 2 k^2 vA^2) + k^2 vA^2 (k^2 vA^2 - 2 q Omega^2)
= 0 (kappa^2 = 2 Omega (2 Omega + S), the epicyclic frequency): unstable for
k vA < sqrt(2 q) Omega, fastest at k vA = Omega sqrt(1 - (2 - q)^2 / 4)
(sqrt(15) / 4 for q = 3/2) with s = q Omega / 2 (3/4 Omega, Keplerian).
With nu = eta the dissipation shifts every root by -nu k^2.

In the Pencil Code's gauge (the fields are the deviations from u0 = S x e_y,
dA/dt = u x B - S Ay e_x - u0 dA/dy + ...), B = curl A gives the mode's
A = (by, -bx, 0) sin(kz z) / kz for b = (bx, by) cos(kz z).

Used by tests/test_shear.py, scripts/mri_fastest_mode.py and
notebooks/mri.ipynb.
"""
import math

import numpy as np

from .analysis import host_array


def mri_matrix(k, b0, omega=1.0, qshear=1.5, nu=0.0, eta=0.0, rho0=1.0, mu0=1.0):
    """The matrix M of d/dt (ux, uy, bx, by) = M (ux, uy, bx, by) for the axisymmetric mode kz = k
    (module docstring)."""
    if not (math.isfinite(k) and math.isfinite(b0) and rho0 > 0 and mu0 > 0):
        raise ValueError(f"k and b0 must be finite and rho0, mu0 positive, got k={k}, b0={b0}, rho0={rho0}, mu0={mu0}")
    shear = -qshear * omega
    lorentz = b0 * k / (mu0 * rho0)
    return np.array([[-nu * k * k, 2 * omega, -lorentz, 0.0],
                     [-(2 * omega + shear), -nu * k * k, 0.0, -lorentz],
                     [b0 * k, 0.0, -eta * k * k, 0.0],
                     [0.0, b0 * k, shear, -eta * k * k]])


def mri_eigenmode(k, b0, omega=1.0, qshear=1.5, nu=0.0, eta=0.0, rho0=1.0, mu0=1.0):
    """The fastest-growing root of mri_matrix and its eigenvector: (rate, (ux, uy, bx, by)), the vector
    real (the growing root of the unstable range is real) and of unit norm."""
    values, vectors = np.linalg.eig(mri_matrix(k, b0, omega, qshear, nu, eta, rho0, mu0))
    i = int(np.argmax(values.real))
    vector = vectors[:, i].real
    return float(values[i].real), vector / np.linalg.norm(vector)


def mri_growth_rate(k_va, omega=1.0, qshear=1.5):
    """The ideal growth rate at k vA = k_va (vA = B0 / sqrt(mu0 rho0)): the positive root s of s^4 +
    s^2 (kappa^2 + 2 k^2 vA^2) + k^2 vA^2 (k^2 vA^2 - 2 q Omega^2) = 0 (Balbus & Hawley 1991), 0
    where it is stable."""
    kv2 = float(k_va) ** 2
    kappa2 = 2 * omega * (2 * omega - qshear * omega)
    b = kappa2 + 2 * kv2
    s2 = 0.5 * (-b + math.sqrt(b * b - 4 * kv2 * (kv2 - 2 * qshear * omega ** 2)))
    return math.sqrt(s2) if s2 > 0 else 0.0


def fastest_k_va(omega=1.0, qshear=1.5):
    """k vA of the fastest mode, Omega sqrt(1 - (2 - q)^2 / 4) (sqrt(15)/4 Omega for q = 3/2); its rate
    is q Omega / 2."""
    return omega * math.sqrt(1.0 - (2.0 - qshear) ** 2 / 4.0)


def seed_mri_mode(sim, n, amplitude, omega=1.0, qshear=1.5):
    """Sets ux, uy, ax, ay of `sim` (physics="mhd", b_ext = (0, 0, B0)) to the growing axisymmetric
    eigenmode kz = 2 pi n / Lz of its nu and eta, of velocity amplitude `amplitude`; the other fields
    are left.  Returns the mode's growth rate."""
    b0 = sim.b_ext[2]
    k = 2 * math.pi * n / sim.box[2]
    rate, (ux, uy, bx, by) = mri_eigenmode(k, b0, omega, qshear, sim.nu, sim.eta, sim.rho0, sim.mu0)
    scale = amplitude / math.hypot(ux, uy)
    s = np.sin(k * sim.z)[None, None, :] * np.ones(sim.shape)
    sim["ux"], sim["uy"] = scale * ux * s, scale * uy * s
    sim["ax"], sim["ay"] = scale * by / k * s, -scale * bx / k * s  # B = curl A = (bx, by) cos(kz z)
    return rate


def mode_amplitude(sim, n):
    """The amplitude of the axisymmetric mode kz = 2 pi n / Lz in the horizontally averaged velocity
    and field: sqrt(|ux_n|^2 + |uy_n|^2 + (|bx_n|^2 + |by_n|^2) / (mu0 rho0)), with f_n the n-th
    Fourier coefficient along z of <f>_xy (<bx>_xy = -d<Ay>_xy/dz and <by>_xy = d<Ax>_xy/dz: the
    horizontal means of x and y derivatives vanish, also across the shearing-periodic x faces)."""
    return float(mode_amplitudes(sim, [n])[0])


def mode_amplitudes(sim, ns):
    """mode_amplitude of each n of `ns`, a NumPy array: each field's horizontal mean taken once (where
    the fields are) for every mode."""
    ns = np.asarray(ns, dtype=int)
    k = 2 * math.pi * ns / sim.box[2]
    nz = sim.shape[2]

    def coefficient(name):
        return np.abs(np.fft.rfft(host_array(sim[name].mean(axis=(0, 1))))[ns]) * 2 / nz

    b2 = (k * coefficient("ay")) ** 2 + (k * coefficient("ax")) ** 2
    return np.sqrt(coefficient("ux") ** 2 + coefficient("uy") ** 2 + b2 / (sim.mu0 * sim.rho0))
