"""Analysis of a Simulation: spectra, symmetry errors, norms, divergence, vorticity,
and with physics="mhd" the magnetic field and current density.

Every function takes a Simulation.  On the CUDA backend with CuPy installed
the fields are read through zero-copy device views and the work (FFTs
included) stays on the GPU; only the small results come back.  Otherwise the
fields are copied to NumPy.  Derivatives are the solver's sixth-order
central differences (seed eq. 6) on the periodic grid.
"""
import math

import numpy as np

from . import ops, thermo
from .numpy_reference import d2dx2


def _array_module(sim):
    if sim.backend == "cuda" and sim.decomposition is None:  # split grids: whole fields, gathered
        try:
            import cupy
            return cupy
        except ImportError:
            pass
    return np


def _field(sim, name, xp):
    """Field `name` as an xp array: a device view under CuPy, else a NumPy copy."""
    if xp is np:
        return sim[name]
    return xp.asarray(sim.view(name))


def _host(x):
    return float(host_array(x))


def host_array(x):
    """x as a NumPy array: a device (CuPy) array copied to the host."""
    return x.get() if hasattr(x, "get") else np.asarray(x)


def velocity(sim):
    """(ux, uy, uz) as arrays of the array module the analysis uses."""
    xp = _array_module(sim)
    return [_field(sim, c, xp) for c in ("ux", "uy", "uz")]


def walls_of(sim):
    """The indices of the axes of sim with walls (astaroth.boundaries)."""
    return tuple("xyz".index(a) for a in getattr(sim, "boundaries", {}) or {})


def _refuse_walls(sim, what):
    axes = walls_of(sim)
    if axes:
        names = ", ".join(repr("xyz"[a]) for a in axes)
        raise ValueError(f"{what} takes Fourier series of periodic axes, and {names} "
                         f"{'has' if len(axes) == 1 else 'have'} walls")


def spectrum(sim, fields=("ux", "uy", "uz"), field="kinetic"):
    """Shell-integrated energy spectrum E(k) of the velocity, or of B.

    Returns (k, E): k the shell centres in physical units (multiples of
    dk = 2 pi / max(L)), E[n] = 1/2 sum of |u_hat|^2 over wave vectors with
    |k| in [k_n - dk/2, k_n + dk/2), u_hat = FFT(u) / N.  The shells stop at
    the Nyquist shell, k = min(pi n_i / L_i) over the axes with n_i > 1: the
    shells past it lie in the corners of the cube of wave vectors, only
    partly filled, and would show a spurious drop of many decades.
    Parseval: E.sum() equals half the mean of |u|^2 over the grid when no
    energy lies in those corners (a resolved flow keeps almost none there).
    field="magnetic"
    (physics="mhd"): the same for B = curl A + b_ext, over mu0, so that
    E.sum() is the magnetic energy <|B|^2> / (2 mu0) (b_ext at k = 0).
    `fields` picks velocity components (or any fields) for the kinetic one.
    """
    if field not in ("kinetic", "magnetic"):
        raise ValueError(f"field must be 'kinetic' or 'magnetic', got {field!r}")
    _refuse_walls(sim, "spectrum")
    xp = _array_module(sim)
    if field == "magnetic":
        arrays, scale = magnetic_field(sim), 1.0 / sim.mu0
    else:
        arrays, scale = [_field(sim, name, xp) for name in fields], 1.0
    return _spectrum(sim, arrays, scale, xp)


def _spectrum(sim, arrays, scale, xp):
    """spectrum() of the given component arrays, E times scale."""
    shape, box = sim.shape, sim.box
    axes = [xp.fft.fftfreq(n, d=L / n) * 2 * math.pi for n, L in zip(shape, box)]
    kx, ky, kz = xp.meshgrid(*axes, indexing="ij")
    kmag = xp.sqrt(kx ** 2 + ky ** 2 + kz ** 2)
    dk = 2 * math.pi / max(box)
    shell = xp.floor(kmag / dk + 0.5).astype(xp.int64).ravel()
    nshell = _nyquist_shell(shape, box, dk) + 1
    power = xp.zeros(int(_host(shell.max())) + 1, dtype=xp.float64)
    npoints = float(np.prod(shape))
    for f in arrays:
        u_hat = xp.fft.fftn(f.astype(xp.float64)) / npoints
        power += xp.bincount(shell, weights=(xp.abs(u_hat) ** 2).ravel(), minlength=power.size)
    E = 0.5 * scale * power[:nshell]
    return np.arange(nshell) * dk, host_array(E)


def _nyquist_shell(shape, box, dk):
    """Index of the shell of the grid's Nyquist wave number min(pi n_i / L_i)
    over the resolved axes (0 on a grid of one point)."""
    nyquist = [math.pi * n / L for n, L in zip(shape, box) if n > 1]
    return int(math.floor(min(nyquist) / dk + 0.5)) if nyquist else 0


def density(sim):
    """rho = exp(lnrho), in float64, as an array of the array module the analysis uses."""
    xp = _array_module(sim)
    return xp.exp(_field(sim, "lnrho", xp).astype(xp.float64))


def kinetic_energy(sim, u=None, rho=None):
    """Mean kinetic energy per unit volume <rho |u|^2 / 2> (the Pencil Code's `ekin`).
    u, rho: velocity(sim) and density(sim), if already at hand."""
    xp = _array_module(sim)
    u = [c.astype(xp.float64) for c in (u or velocity(sim))]
    rho = density(sim) if rho is None else rho
    return _host(xp.mean(0.5 * rho * sum(c ** 2 for c in u)))


def volume_mean(sim, f):
    """The volume average of array f over the grid (a float): the plain mean
    on periodic axes; on a wall axis the trapezoid rule, the wall points at
    half weight (the Pencil Code's dVol in src/grid.f90), the average over
    the layer that a flux-conserving budget conserves (a plain mean would
    drift as the wall values change)."""
    xp = np if isinstance(f, np.ndarray) else _array_module(sim)  # a host array (e.g. thermal energy's) stays there
    axes = walls_of(sim)
    if not axes:
        return _host(xp.mean(f))
    weight = 1.0
    for a in axes:
        w = xp.ones(f.shape[a], dtype=xp.float64)
        w[0] = w[-1] = 0.5
        weight = weight * w.reshape([-1 if b == a else 1 for b in range(3)])
    return _host(xp.sum(f * weight) / xp.sum(xp.broadcast_to(weight, f.shape)))


def potential_energy(sim, rho=None):
    """<rho Phi>, Phi = -g . x (x the grid's coordinates): the potential energy
    per unit volume of the uniform gravity (terms/gravity.h), 0 without
    gravity, a volume_mean (the walls at half weight).  Its change balances
    gravity's work on the flow, so total_energy counts it beside the kinetic,
    thermal and magnetic energy; rho as density(sim), if already at hand."""
    g = [float(c) for c in np.ravel(getattr(sim, "gravity", (0.0, 0.0, 0.0)))]
    if not any(g):
        return 0.0
    xp = _array_module(sim)
    rho = density(sim) if rho is None else rho
    phi = sum(-gi * xp.asarray(c, dtype=xp.float64).reshape([-1 if a == i else 1 for a in range(3)])
              for i, (gi, c) in enumerate(zip(g, (sim.x, sim.y, sim.z))) if gi)
    return volume_mean(sim, rho * phi)


def kinetic_helicity(sim, u=None, omega=None):
    """Mean kinetic helicity <omega . u>, omega = curl u (the Pencil Code's `oum`).

    Helical forcing of relative helicity sigma (astaroth.Forcing relhel)
    drives it towards sigma kf urms^2 at the forcing scale kf (less where
    the energy sits at other scales).
    u, omega: velocity(sim) and vorticity(sim, u), if already at hand."""
    xp = _array_module(sim)
    u = [c.astype(xp.float64) for c in (u or velocity(sim))]
    omega = omega if omega is not None else vorticity(sim, u)
    return _host(xp.mean(sum(o.astype(xp.float64) * c for o, c in zip(omega, u))))


def forcing_wavenumber(sim):
    """kf: the mean |k| of the forcing's wave vectors in physical units (2 pi n / L),
    or None without forcing."""
    if sim.forcing is None:
        return None
    return float(np.linalg.norm(sim.forcing.wavevectors(sim.box), axis=1).mean())


def forcing_power(sim):
    """The mean power per unit volume the forcing puts in, f0^2 cs^3 <|k|> <rho> / 4
    (None without forcing).  Each step adds dt N Re{f_k exp(i k.x + i phi)} to u,
    N = f0 cs sqrt(|k| cs / dt), with a fresh random phase: its mean square,
    f0^2 cs^3 |k| dt / 2, adds to rho |u|^2 / 2 while the work against the
    flow averages to zero, so the rate holds on average, not step by step.
    In a steady state viscosity (and resistivity) take out as much."""
    kf = forcing_wavenumber(sim)
    if kf is None:
        return None
    return 0.25 * sim.forcing.f0 ** 2 * sim.cs ** 3 * kf * _host(_array_module(sim).mean(density(sim)))


def reynolds_numbers(sim, kf=None):
    """{"Re": urms / (nu kf)} and, with physics="mhd", "Rm": urms / (eta kf)
    (Brandenburg 2001); kf: the forcing wave number (forcing_wavenumber),
    else the smallest wave number of the box, 2 pi / max(L).  A diffusivity
    of 0 gives inf."""
    kf = kf or forcing_wavenumber(sim) or 2 * math.pi / max(sim.box)
    urms = rms(sim, "u")
    out = {"Re": urms / (sim.nu * kf) if sim.nu > 0 else math.inf}
    if getattr(sim, "physics", "hydro") == "mhd":
        out["Rm"] = urms / (sim.eta * kf) if sim.eta > 0 else math.inf
    return out


def rms(sim, name):
    """Root mean square of a field, or of |u| for name "u"."""
    xp = _array_module(sim)
    if name == "u":
        return math.sqrt(sum(_host(xp.mean(c.astype(xp.float64) ** 2)) for c in velocity(sim)))
    return math.sqrt(_host(xp.mean(_field(sim, name, xp).astype(xp.float64) ** 2)))


def max_abs(sim, name):
    """Maximum of |field|, or of |u| for name "u"."""
    xp = _array_module(sim)
    if name == "u":
        ux, uy, uz = (c.astype(xp.float64) for c in velocity(sim))
        return math.sqrt(_host(xp.max(ux ** 2 + uy ** 2 + uz ** 2)))
    return _host(xp.max(xp.abs(_field(sim, name, xp))))


def norms(sim):
    """{"lnrho", "ux", "uy", "uz", "u"}: {"rms": ..., "max": ...} each."""
    return {n: {"rms": rms(sim, n), "max": max_abs(sim, n)} for n in ("lnrho", "ux", "uy", "uz", "u")}


def shearing_images(sim, f, width=3):
    """f (a whole field: a NumPy array, or a device array under CuPy, the result of the same kind) with
    `width` planes of x images on each side, shearing-periodic as the solver's x ghost zones
    (csrc/terms/shear.h, the Pencil Code's bcx = 'she'): f(x + Lx, y) = f(x, y + deltay) and f(x - Lx, y) =
    f(x, y - deltay), with deltay = sim.deltay.  The shift along y is taken by the Fourier series in y
    (exact for the grid's band-limited field), not by the solver's six-point Lagrange interpolation; the
    two differ by that interpolation's error."""
    xp = ops._cupy() if ops._is_device_array(f) else np
    f = xp.asarray(f)
    if f.ndim != 3 or f.shape[0] < width:
        raise ValueError(f"shearing_images takes a whole field of at least {width} points along x, got shape {f.shape}")
    ky = 2 * math.pi * xp.fft.rfftfreq(f.shape[1], d=sim.spacing[1])[None, :, None]

    def shifted(planes, dy):  # planes(y + dy), each line along y by its own Fourier series
        return xp.fft.irfft(xp.fft.rfft(f[planes], axis=1) * xp.exp(1j * ky * dy), n=f.shape[1], axis=1)

    n = f.shape[0]
    upper = shifted(slice(0, width), sim.deltay)  # the images beyond x = Lx: the first planes, shifted
    lower = shifted(slice(n - width, n), -sim.deltay)
    return xp.concatenate([lower, f, upper], axis=0)


def _sheared(sim):
    """Whether sim is a shearing box (shear != 0): its x faces are shearing-periodic (shearing_images)."""
    return getattr(sim, "shear", 0.0) != 0.0


def _first_derivative(sim):
    """d/dx_a as f(array, axis, h): astaroth.ops, in C on the host and in CUDA on the device; on a wall
    axis (astaroth.boundaries) one-sided stencils next to the walls; along x in a shearing box
    (sim.shear != 0) from the shearing-periodic images (shearing_images), as the solver's own
    derivatives take them from its x ghost zones."""
    walls = walls_of(sim)
    if _sheared(sim):
        def first(f, axis, h):
            if axis % 3 != 0:
                return ops.derivative(f, axis, 1, 6, h, walls=axis in walls)
            return ops.derivative(shearing_images(sim, f), 0, 1, 6, h)[3:-3]  # where f is, host or device
        return first
    return lambda f, axis, h: ops.derivative(f, axis, 1, 6, h, walls=axis in walls)


def _second_derivative(f, axis, h):
    """d^2/dx_a^2 on the periodic grid: NumPy on the host (numpy_reference's statement, whose
    values the stored diagnostics hold), astaroth.ops' CUDA kernel on the device."""
    return d2dx2(f, axis, h) if isinstance(f, np.ndarray) else ops.derivative(f, axis, 2, 6, h)


def _mixed_derivative(f, a, b, ha, hb):
    """d^2 f / dx_a dx_b by the bidiagonal scheme of eq. (8), as numpy_reference.d2dxdy states it
    (the same terms in the same order, so the same values), but from one periodic padding of f:
    its 48 rolls would be 48 copies, each a kernel launch on the device."""
    xp = np if isinstance(f, np.ndarray) else ops._cupy()
    p = xp.pad(f, [(3, 3) if axis in (a, b) else (0, 0) for axis in range(f.ndim)], mode="wrap")

    def at(i, j):  # f at (index_a + i, index_b + j)
        index = [slice(None)] * f.ndim
        index[a], index[b] = slice(3 + i, 3 + i + f.shape[a]), slice(3 + j, 3 + j + f.shape[b])
        return p[tuple(index)]
    total = 0
    for s, w in ((1, 270), (2, -27), (3, 2)):
        total = total + w * (at(s, s) - at(-s, s) + at(-s, -s) - at(s, -s))
    return total / (720 * ha * hb)


def divergence(sim, u=None):
    """div u by sixth-order central differences (an array on the analysis' device);
    u: the velocity as returned by velocity(sim), if already at hand."""
    return ops.vector_divergence(u or velocity(sim), sim.spacing, _first_derivative(sim))


def vorticity(sim, u=None):
    """curl u = (d_y u_z - d_z u_y, d_z u_x - d_x u_z, d_x u_y - d_y u_x)."""
    return ops.vector_curl(u or velocity(sim), sim.spacing, _first_derivative(sim))


def _require_mhd(sim, what):
    if getattr(sim, "physics", "hydro") != "mhd":
        raise ValueError(f"{what} needs a simulation with physics='mhd'")


def vector_potential(sim):
    """(A_x, A_y, A_z) as arrays of the array module the analysis uses (physics="mhd")."""
    _require_mhd(sim, "vector_potential")
    xp = _array_module(sim)
    return [_field(sim, c, xp).astype(xp.float64) for c in ("ax", "ay", "az")]


def curl_of_potential(sim, a=None):
    """curl A (B without b_ext) by the solver's sixth-order first derivatives (physics="mhd");
    a: vector_potential(sim), if already at hand."""
    _require_mhd(sim, "curl_of_potential")
    return ops.vector_curl(a or vector_potential(sim), sim.spacing, _first_derivative(sim))


def magnetic_field(sim, curl_a=None):
    """B = curl A + b_ext by the solver's sixth-order first derivatives (physics="mhd");
    curl_a: curl_of_potential(sim), if already at hand."""
    _require_mhd(sim, "magnetic_field")
    curl = curl_of_potential(sim) if curl_a is None else curl_a
    return [c + b for c, b in zip(curl, sim.b_ext)]


def current_density(sim, a=None):
    """J = curl B / mu0 = (grad div A - lap A) / mu0 with the solver's stencils, eqs. (6)-(8) (physics="mhd").
    With walls (astaroth.boundaries), J = curl B / mu0 by sixth-order first derivatives applied twice,
    one-sided next to the walls on the wall axes (astaroth.ops.derivative(walls=True)) and central on
    the periodic ones: the mixed second derivatives of grad div A have no one-sided stencils.  In a
    shearing box (sim.shear != 0) the same, its x derivatives from the shearing-periodic images
    (_first_derivative): the second and mixed derivatives would wrap x periodically, unshifted.
    a: vector_potential(sim), if already at hand."""
    if walls_of(sim) or _sheared(sim):
        first = _first_derivative(sim)
        return [c / sim.mu0 for c in ops.vector_curl(magnetic_field(sim, curl_of_potential(sim, a)), sim.spacing,
                                                     first)]
    a, h = a or vector_potential(sim), sim.spacing
    lap = [sum(_second_derivative(a[i], j, h[j]) for j in range(3)) for i in range(3)]
    grad_div = [sum(_second_derivative(a[i], i, h[i]) if i == j else _mixed_derivative(a[j], i, j, h[i], h[j])
                    for j in range(3)) for i in range(3)]
    return [(g - l) / sim.mu0 for g, l in zip(grad_div, lap)]


def magnetic_helicity(sim, a=None, curl_a=None):
    """<A . curl A> over the box (without b_ext; physics="mhd");
    a, curl_a: vector_potential(sim) and curl_of_potential(sim), if already at hand."""
    xp = _array_module(sim)
    a = a or vector_potential(sim)
    curl = curl_of_potential(sim, a) if curl_a is None else curl_a
    return _host(xp.mean(sum(ai * ci for ai, ci in zip(a, curl))))


def symmetry_error(sim):
    """Spherical-symmetry error of seed Sect. 6 on a cubic grid.

    Integrals of rho and of |u| along the 3 axes and the 4 body diagonals
    through the centre of the box (index n/2), over the ball of radius L/2
    about it: each sample weighs the length of line it stands for (dx along
    an axis, sqrt(3) dx along a diagonal, less at the ends), so a uniform
    field gives 7 equal integrals.  Returns {"rho": ..., "u": ...}, each the
    standard deviation of the 7 integrals divided by their mean.
    """
    n = sim.shape[0]
    if sim.shape != (n, n, n) or len(set(sim.spacing)) != 1:
        raise ValueError(f"symmetry_error needs a cubic grid and box, got shape {sim.shape}, box {sim.box}")
    rho = np.exp(sim["lnrho"].astype(np.float64))
    speed = np.sqrt(sum(sim[c].astype(np.float64) ** 2 for c in ("ux", "uy", "uz")))
    dx = sim.spacing[0]
    radius = n * dx / 2
    c = n // 2
    directions = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1)]
    out = {}
    for name, f in (("rho", rho), ("u", speed)):
        integrals = []
        for d in directions:
            step = dx * math.sqrt(sum(a * a for a in d))
            t = np.arange(-int(radius / step + 0.5), int(radius / step + 0.5) + 1)
            s = t * step
            weight = np.minimum(s + step / 2, radius) - np.maximum(s - step / 2, -radius)
            idx = tuple((c + a * t) % n for a in d)
            integrals.append(float((f[idx] * np.clip(weight, 0, None)).sum()))
        integrals = np.array(integrals)
        out[name] = float(integrals.std() / integrals.mean())
    return out


def temperature(sim):
    """T of the ideal gas (energy="entropy"): exp(lnTT), lnTT = lnTT0 + (gamma / cp) ss +
    (gamma - 1)(lnrho - ln rho0) (astaroth.thermo; csrc/terms/entropy.h), a NumPy array in
    float64.  ValueError with energy="isothermal", which has no temperature."""
    return thermo.temperature(sim)


def pressure(sim):
    """p = (cp - cv) rho T with energy="entropy", rho cs^2 with energy="isothermal" (astaroth.thermo),
    a NumPy array in float64."""
    return thermo.pressure(sim)


def thermal_energy(sim, rho=None, T=None):
    """Mean thermal energy per unit volume <rho cv T>, cv = cp / gamma (energy="entropy").
    rho, T: density(sim) and temperature(sim) on the host, if already at hand."""
    rho = np.exp(np.asarray(sim["lnrho"], dtype=np.float64)) if rho is None else np.asarray(rho)
    T = temperature(sim) if T is None else T
    return float(np.mean(rho * (float(sim.cp) / float(sim.gamma)) * T))


def energy_budget(sim, u=None, rho=None, T=None, b2=None):
    """The energy per unit volume by kind, each a volume_mean (the plain
    mean in a periodic box; on wall axes the walls at half weight):
    {"kinetic": <rho |u|^2 / 2>, "thermal": <rho cv T> (energy="entropy",
    else 0), "magnetic": <|B|^2> / (2 mu0) (physics="mhd", else 0),
    "potential": <rho Phi> (potential_energy), "total": their sum}.  With
    entropy the total is conserved in a closed box: periodic, or between
    walls that do no work and pass no heat (stress-free 's'/'a' velocity,
    chi = 0).  u, rho: velocity(sim) and density(sim); T: temperature(sim);
    b2: |B|^2, if already at hand."""
    xp = _array_module(sim)
    u = [c.astype(xp.float64) for c in (u or velocity(sim))]
    rho = density(sim) if rho is None else rho
    out = {"kinetic": volume_mean(sim, 0.5 * rho * sum(c ** 2 for c in u)), "thermal": 0.0, "magnetic": 0.0}
    if getattr(sim, "energy", "isothermal") == "entropy":
        T = temperature(sim) if T is None else T
        rho_host = np.exp(np.asarray(sim["lnrho"], dtype=np.float64))
        out["thermal"] = volume_mean(sim, rho_host * (float(sim.cp) / float(sim.gamma)) * np.asarray(T))
    if getattr(sim, "physics", "hydro") == "mhd":
        b2 = sum(c.astype(xp.float64) ** 2 for c in magnetic_field(sim)) if b2 is None else b2
        out["magnetic"] = volume_mean(sim, b2) / (2 * float(sim.mu0))
    out["potential"] = potential_energy(sim, rho)
    out["total"] = out["kinetic"] + out["thermal"] + out["magnetic"] + out["potential"]
    return out


def total_energy(sim):
    """Mean total energy per unit volume <rho |u|^2 / 2 + rho cv T + |B|^2 / (2 mu0) + rho Phi>
    (energy="entropy"; B with b_ext, with physics="mhd"; Phi = -g . x with gravity): conserved in a
    closed box, periodic or between walls that do no work and pass no heat (energy_budget)."""
    return energy_budget(sim)["total"]
