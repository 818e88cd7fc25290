"""Initial conditions.  Each writes the simulation's fields on its backend.

    ac.init.sine_wave(sim, field="uy", amplitude=1e-3, k=13)
    ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
    ac.init.random_velocity(sim, urms=0.1, spectrum=lambda k: k**-2, seed=1)
    ac.init.beltrami_field(sim, k=1, amplitude=0.1, axis="z")      # physics="mhd"
    ac.init.alfven_wave(sim, k=1, amplitude=0.01)                   # physics="mhd", along b_ext
"""
import math
import numbers

import numpy as np

from .parameters import finite_real as _real_number


def _grid(sim):
    return np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")


def sine_wave(sim, field="uy", amplitude=1e-3, k=13.0, phase=0.0):
    """field = amplitude sin(k.x + phase), with k a physical wave number along
    x (a number) or a wave vector (three numbers); each component must fit
    the periodic box (k_a L_a / 2 pi an integer) and, where it is not zero,
    lie below the grid's Nyquist wave number along an axis of more than one
    point (as for beltrami_field)."""
    amplitude, phase = _real_number(amplitude, "amplitude"), _real_number(phase, "phase")
    if isinstance(k, (str, bytes)) or np.ndim(k) not in (0, 1):
        raise TypeError(f"k must be a number or three numbers, got {k!r}")
    components = [k, 0.0, 0.0] if np.ndim(k) == 0 else list(k)
    if len(components) != 3:
        raise ValueError(f"k must be a number or three numbers, got {k!r}")
    kvec = np.array([_real_number(ka, f"k along {axis}" if np.ndim(k) else "k")
                     for ka, axis in zip(components, "xyz")], dtype=np.float64)
    for ka, L, n, axis in zip(kvec, sim.box, sim.shape, "xyz"):
        m = ka * L / (2 * math.pi)
        if abs(m - round(m)) > 1e-9 * max(1.0, abs(m)):
            raise ValueError(f"k along {axis} = {ka} is not periodic in a box of length {L} "
                             f"(k L / 2 pi = {m:.6g} is not an integer)")
        if ka != 0:
            _periodic_wavenumber(sim, ka, "xyz".index(axis))
    x, y, z = _grid(sim)
    sim[field] = amplitude * np.sin(kvec[0] * x + kvec[1] * y + kvec[2] * z + phase)


def radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2, center=None):
    """u = amplitude exp(-(r - r0)^2 / (2 width^2)) e_r about the box centre
    (seed Sect. 6, eq. 23; docs/numerics.md); density uniform (lnrho = 0)."""
    if width <= 0:
        raise ValueError(f"width must be positive, got {width}")
    center = [o + L / 2 for o, L in zip((sim.x[0], sim.y[0], sim.z[0]), sim.box)] if center is None else center
    x, y, z = _grid(sim)
    d = [x - center[0], y - center[1], z - center[2]]
    r = np.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
    profile = amplitude * np.exp(-((r - r0) ** 2) / (2 * width ** 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, di in zip(("ux", "uy", "uz"), d):
            sim[name] = np.where(r > 0, profile * di / r, 0.0)
    sim["lnrho"] = 0.0


def random_velocity(sim, urms=0.1, spectrum=lambda k: k ** -2.0, seed=0, kmax=None):
    """Gaussian random velocity with energy spectrum E(k) proportional to
    spectrum(k) (k in physical units, E(0) = 0), scaled to the rms speed urms.
    Modes above kmax (default: 2/3 of the Nyquist wave number) are zero."""
    if isinstance(urms, bool) or not isinstance(urms, numbers.Real) or not math.isfinite(urms):
        raise TypeError(f"urms must be a finite real number, got {urms!r}")
    if urms < 0:
        raise ValueError(f"urms (the rms speed) must be >= 0, got {urms}")
    rng = np.random.default_rng(seed)
    axes = [np.fft.fftfreq(n, d=L / n) * 2 * math.pi for n, L in zip(sim.shape, sim.box)]
    kx, ky, kz = np.meshgrid(*axes, indexing="ij")
    k = np.sqrt(kx ** 2 + ky ** 2 + kz ** 2)
    if kmax is None:
        kmax = 2.0 / 3.0 * min(math.pi * n / L for n, L in zip(sim.shape, sim.box) if n > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # |u_hat|^2 per mode ~ E(k) / (shell area), so that the shell sum follows E(k)
        weight = np.where((k > 0) & (k <= kmax), np.asarray(spectrum(np.where(k > 0, k, 1.0))) / np.maximum(k, 1e-300) ** 2, 0.0)
    amplitude = np.sqrt(weight)
    fields = []
    for _ in range(3):
        noise = np.fft.fftn(rng.standard_normal(sim.shape))
        fields.append(np.real(np.fft.ifftn(noise * amplitude)))
    norm = math.sqrt(sum(np.mean(f ** 2) for f in fields))
    if norm == 0:
        raise ValueError("the spectrum leaves no mode on this grid")
    for name, f in zip(("ux", "uy", "uz"), fields):
        sim[name] = f * (urms / norm)




def _periodic_wavenumber(sim, k, axis):
    """k as a wave number along `axis` (0, 1, 2) that fits the periodic box
    and that the grid resolves: the axis has more than one point and
    |k| L / 2 pi lies below the Nyquist wave number n / 2 (at n / 2 sin(k x)
    vanishes on every point, beyond it the wave aliases)."""
    k = _real_number(k, "k")
    name, n, L = "xyz"[axis], sim.shape[axis], sim.box[axis]
    m = k * L / (2 * math.pi)
    if k == 0 or abs(m - round(m)) > 1e-9 * max(1.0, abs(m)):
        raise ValueError(f"k = {k!r} along {name} is not a nonzero wave number of the periodic box "
                         f"(k L / 2 pi must be a nonzero integer; L = {L})")
    if n == 1:
        raise ValueError(f"the wave runs along {name}, but the grid has one point along {name} (shape {sim.shape}): "
                         f"a flat axis carries no wave; use more points along {name}")
    if abs(round(m)) >= n / 2:
        raise ValueError(f"k = {k:g} along {name} is {abs(round(m))} wave lengths in the box, at or past the Nyquist "
                         f"wave number n{name} / 2 = {n / 2:g} of {n} points: the grid cannot carry it; use a smaller "
                         f"k or more points along {name}")
    return k


def _helical_potential(sim, k, amplitude, axis):
    """A = amplitude (sin k x_a, cos k x_a) in the two components after axis a
    (cyclically), zero along a: curl A = k A, a Beltrami field."""
    if getattr(sim, "physics", "hydro") != "mhd":
        raise ValueError("magnetic initial conditions need a simulation with physics='mhd'")
    amplitude = _real_number(amplitude, "amplitude")
    x = _grid(sim)[axis]
    b, c = (axis + 1) % 3, (axis + 2) % 3
    names = ("ax", "ay", "az")
    sim[names[axis]] = 0.0
    sim[names[b]] = amplitude * np.sin(k * x)
    sim[names[c]] = amplitude * np.cos(k * x)
    return [names[b], names[c]]


def beltrami_field(sim, k=1.0, amplitude=0.1, axis="z"):
    """A = amplitude (sin k z, cos k z, 0) for axis "z" (and its cyclic
    permutations for "x", "y"): B = curl A = k A, a force-free (Beltrami)
    field of positive helicity that with u = 0 decays as exp(-eta k^2 t).
    physics="mhd"; k a wave number of the box along the axis, below the
    grid's Nyquist wave number there (the axis must have more than one
    point)."""
    if axis not in ("x", "y", "z"):
        raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
    a = "xyz".index(axis)
    _helical_potential(sim, _periodic_wavenumber(sim, k, a), amplitude, a)


def alfven_wave(sim, k=1.0, amplitude=0.01):
    """A circularly polarised Alfven wave travelling along b_ext: A as
    beltrami_field along the axis of b_ext, so that dB = k A, and
    u = -sign(b_ext) dB / sqrt(mu0 rho), rho from the (uniform) density.
    With nu = eta it is an exact nonlinear solution (|B| is uniform),
    travelling at vA = |b_ext| / sqrt(mu0 rho) and decaying as
    exp(-nu k^2 t).  b_ext must lie along x, y or z; k as for
    beltrami_field along that axis."""
    if getattr(sim, "physics", "hydro") != "mhd":
        raise ValueError("alfven_wave needs a simulation with physics='mhd'")
    along = [a for a in range(3) if sim.b_ext[a] != 0]
    if len(along) != 1:
        raise ValueError(f"alfven_wave needs b_ext along one of x, y, z, got b_ext = {sim.b_ext}")
    a = along[0]
    k = _periodic_wavenumber(sim, k, a)
    names = _helical_potential(sim, k, amplitude, a)
    rho = float(np.exp(sim["lnrho"].astype(np.float64)).mean())
    factor = -math.copysign(1.0, sim.b_ext[a]) * k / math.sqrt(sim.mu0 * rho)
    velocity = ("ux", "uy", "uz")
    sim[velocity[a]] = 0.0
    for name in names:
        sim[velocity[("ax", "ay", "az").index(name)]] = factor * sim[name]
