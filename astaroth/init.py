"""Initial conditions.  Each writes the simulation's fields on its backend.

    ac.init.sine_wave(sim, field="uy", amplitude=1e-3, k=13)
    ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
    ac.init.random_velocity(sim, urms=0.1, spectrum=lambda k: k**-2, seed=1)
    ac.init.beltrami_field(sim, k=1, amplitude=0.1, axis="z")      # physics="mhd"
    ac.init.alfven_wave(sim, k=1, amplitude=0.01)                   # physics="mhd", along b_ext
    ac.init.hydrostatic(sim, kind="isothermal")                      # gravity, walls along it
    ac.init.hydrostatic(sim, kind="polytropic", mpoly=1.5)           # and energy="entropy"
"""
import math
import numbers
import warnings

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


# ---------------------------------------------------------------- stratified layers at rest

HYDROSTATIC_KINDS = ("isothermal", "polytropic")


def hydrostatic(sim, kind="isothermal", mpoly=1.5, zref=None, zinfty=None):
    """A layer at rest in hydrostatic equilibrium under the simulation's
    gravity, balanced to round-off on the grid: the Pencil Code's
    ``initlnrho='isothermal'`` and ``initlnrho='polytropic_simple'`` (its
    src/density.f90, isothermal_density and polytropic_simple, with
    gravity_simple's constant profile, potential -g (z - zinfty)).

    Writes lnrho (and ss with energy="entropy"); the velocities and the
    other fields are left as they are (zero in a new Simulation), so a
    perturbation can be added before or after.  z below is the coordinate
    along gravity, which must act along one axis that has walls.

    kind="isothermal"
        T uniform: lnrho = ln rho0 + gamma g (z - zref) / cs^2 and, with
        energy="entropy", ss = -cp (gamma - 1) / gamma (lnrho - ln rho0)
        (gamma = 1 with energy="isothermal", where p = rho cs^2).
    kind="polytropic"
        needs energy="entropy": cs2 = cs^2 + gamma g (z - zref) / (mpoly + 1)
        falling linearly to 0 at zinfty, lnrho = ln rho0 + mpoly ln(cs2 / cs^2),
        ss = cp ((mpoly + 1) / gamma - mpoly) ln(cs2 / cs^2).  mpoly
        = 1 / (gamma - 1) is adiabatic (ss uniform), a smaller one
        superadiabatic (convectively unstable).

    g is the signed gravity along its axis (gravity=(0, 0, -1): g = -1),
    rho0, cs, gamma, cp the simulation's; rho = rho0 and the sound speed is
    cs at zref.  zref defaults to the wall gravity points to (the bottom);
    for the polytrope zinfty, where its temperature would reach zero, may
    be given in its place (zref = zinfty + (mpoly + 1) cs^2 / (gamma g);
    the Pencil Code's gravity takes either, and its zinfty defaults to 0).

    In equilibrium on the grid: the analytic profile's lnrho is then
    corrected by Newton's method on the solver's own discrete balance (the
    velocity along gravity of ``rhs()`` of a one-column Simulation with the
    same parameters and walls: sixth-order stencils, ghost fills of the
    wall kinds), a least-change correction at truncation level (none
    where the stencils are exact, as on the isothermal layer's linear
    lnrho with 'a2' walls; on a polytrope between 'a2' walls, whose
    ghosts miss the curvature of lnrho and ss, it alternates in sign from
    point to point next to the walls and falls at order about 2, largest
    at the top wall: tests/test_stratified.py).  The velocity along gravity needs kind 'a' on
    both walls (impenetrable); lnrho and ss need 's' or 'a2' (their wall
    values evolve), or for ss on the walls along gravity 'set' at the
    layer's own value there.  A warning says when a diffusion (chi,
    diff_hyper3, chi_hyper3) still changes lnrho or ss: with constant chi
    a polytrope conducts a heat flux rho cp chi dT/dz that varies with
    height, so it is in hydrostatic, not thermal, equilibrium
    (astaroth.stability.conductive_layer is in both).

    Returns a dict of the profiles along z (1-D float64 arrays "z",
    "lnrho" and, with energy="entropy", "ss")."""
    if kind not in HYDROSTATIC_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, HYDROSTATIC_KINDS))}, got {kind!r}")
    entropy = getattr(sim, "energy", "isothermal") == "entropy"
    if kind == "polytropic" and not entropy:
        raise ValueError(f"kind='polytropic' needs energy='entropy' (the polytrope's temperature falls with "
                         f"height), this simulation has energy={getattr(sim, 'energy', 'isothermal')!r}")
    axis, g = _gravity_axis(sim)
    name = "xyz"[axis]
    coordinate = np.asarray((sim.x, sim.y, sim.z)[axis], dtype=np.float64)
    if zref is not None and zinfty is not None:
        raise ValueError("give zref or zinfty, not both")
    if zinfty is not None and kind != "polytropic":
        raise ValueError("zinfty (where the temperature reaches zero) belongs to kind='polytropic'; "
                         "the isothermal layer takes zref")
    cs2_0 = float(sim.cs) ** 2
    gamma = float(sim.gamma) if entropy else 1.0
    if kind == "polytropic":
        mpoly = _real_number(mpoly, "mpoly")
        if not mpoly > -1:
            raise ValueError(f"mpoly must be > -1, got {mpoly}")
    if zinfty is not None:
        zref = _real_number(zinfty, "zinfty") + (mpoly + 1) * cs2_0 / (gamma * g)
    elif zref is None:
        zref = coordinate[0] if g < 0 else coordinate[-1]
    else:
        zref = _real_number(zref, "zref")
    lnrho0 = math.log(float(sim.rho0))
    if kind == "isothermal":
        lnrho = lnrho0 + gamma * g * (coordinate - zref) / cs2_0
        lncs2 = np.zeros_like(coordinate)
    else:
        cs2 = cs2_0 + gamma * g * (coordinate - zref) / (mpoly + 1)
        if np.any(cs2 <= 0):
            top = zref - (mpoly + 1) * cs2_0 / (gamma * g)
            raise ValueError(f"the polytrope's temperature reaches zero at {name} = {top:.6g}, inside the box "
                             f"({coordinate[0]:.6g} to {coordinate[-1]:.6g}): move zref or zinfty, or change mpoly")
        lncs2 = np.log(cs2 / cs2_0)
        lnrho = lnrho0 + mpoly * lncs2
    profiles = {"z": coordinate, "lnrho": lnrho}
    if entropy:  # the ideal gas inverted (astaroth/thermo.py): lncs2 - ln cs^2 = gamma ss / cp + (gamma - 1)(lnrho - ln rho0)
        cp = float(sim.cp)
        profiles["ss"] = cp * (lncs2 - (gamma - 1) * (lnrho - lnrho0)) / gamma
    profiles = _balanced(sim, axis, profiles)
    for field in ("lnrho", "ss"):
        if field in profiles:
            shape = [1, 1, 1]
            shape[axis] = -1
            sim[field] = np.broadcast_to(profiles[field].reshape(shape), sim.shape).copy()
    return profiles


def _gravity_axis(sim):
    """(axis, g): the one axis gravity acts along, which must have walls."""
    gravity = [float(v) for v in getattr(sim, "gravity", (0.0, 0.0, 0.0))]
    along = [a for a in range(3) if gravity[a] != 0]
    if not along:
        raise ValueError("gravity is zero: a hydrostatic layer needs gravity, e.g. Simulation(..., "
                         "gravity=(0, 0, -1))")
    if len(along) > 1:
        raise ValueError(f"gravity = {tuple(gravity)} acts along {len(along)} axes: a hydrostatic layer needs it "
                         f"along one axis")
    axis = along[0]
    name = "xyz"[axis]
    if name not in sim.boundaries:
        raise ValueError(f"boundaries: gravity acts along {name!r}, which is periodic: a layer at rest needs walls "
                         f"there, e.g. boundaries={{{name!r}: {{'u{name}': 'a', 'lnrho': 'a2', ...}}}}")
    return axis, gravity[axis]


def _check_walls(sim, axis, profiles):
    """The wall kinds that keep the layer: ValueError naming the axis and
    field otherwise.  Returns the profiles with 'set' values on the walls."""
    name = "xyz"[axis]
    for wall_axis, kinds in sim.boundaries.items():
        for field, faces in kinds.items():
            for face, kind in zip(("lower", "upper"), faces):
                where = f"boundaries[{wall_axis!r}][{field!r}] ({face} wall, {kind!r})"
                value = float(kind[4:]) if kind.startswith("set:") else 0.0
                if field == "u" + name and wall_axis == name and kind != "a":
                    raise ValueError(f"{where}: the velocity along gravity needs 'a' on its walls (impenetrable), "
                                     f"for a layer at rest")
                if field in ("ux", "uy", "uz") and value != 0.0:
                    raise ValueError(f"{where}: a moving wall drives a flow; a layer at rest needs 's', 'a' or "
                                     f"'set:0' for the velocity")
                if field not in profiles or kind in ("s", "a2"):
                    continue
                if field == "ss" and wall_axis == name:
                    wall = float(profiles["ss"][0 if face == "lower" else -1])
                    if abs(value - wall) <= 1e-9 * max(1.0, abs(wall)):
                        profiles["ss"][0 if face == "lower" else -1] = value  # the value the solver holds
                        continue
                    raise ValueError(f"{where}: holds ss = {value!r} on the wall, the layer has ss = {wall!r} "
                                     f"there: use 'a2', or 'set:{wall!r}'")
                raise ValueError(f"{where}: fixes {field} on the wall; the layer needs 's' or 'a2' there "
                                 f"(the wall value evolves with the layer)")
    return profiles


def _column(sim, axis):
    """A float64 CPU Simulation of one column along `axis`: the same physics
    and walls along the axis, nothing else."""
    from .simulation import Simulation

    parameters = dict(sim.parameters())
    for key in ("shape", "box", "origin", "dtype", "boundaries"):
        parameters.pop(key, None)
    parameters = {k: tuple(float(x) for x in v) if isinstance(v, np.ndarray) else v for k, v in parameters.items()}
    shape, box, origin = [1, 1, 1], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]
    shape[axis], box[axis], origin[axis] = sim.shape[axis], sim.box[axis], float((sim.x, sim.y, sim.z)[axis][0])
    name = "xyz"[axis]
    return Simulation(shape=tuple(shape), box=tuple(box), origin=tuple(origin), dtype="float64", backend="cpu",
                      boundaries={name: sim.boundaries[name]}, **parameters)


def _balanced(sim, axis, profiles, iterations=12):
    """The profiles with lnrho corrected so that the momentum equation along
    gravity balances on the grid: Newton's method on the inner points'
    right-hand side of a one-column Simulation (central-difference
    Jacobian, least-change steps by numpy.linalg.lstsq), until the residual
    stops falling."""
    profiles = _check_walls(sim, axis, {k: np.array(v) for k, v in profiles.items()})
    column = _column(sim, axis)
    shape = column.shape
    velocity = "u" + "xyz"[axis]
    if "ss" in profiles:
        column["ss"] = profiles["ss"].reshape(shape)

    def residual(lnrho):
        column["lnrho"] = lnrho.reshape(shape)
        return column.rhs()[velocity].reshape(-1)[1:-1]

    g = abs(float(sim.gravity[axis]))
    lnrho = profiles["lnrho"]
    r = residual(lnrho)
    n, h = len(lnrho), 1e-5 * max(1.0, float(np.abs(lnrho).max()))
    for _ in range(iterations):
        if np.abs(r).max() <= 1e-14 * g:
            break
        jacobian = np.empty((n - 2, n))
        for j in range(n):
            step = np.zeros(n)
            step[j] = h
            jacobian[:, j] = (residual(lnrho + step) - residual(lnrho - step)) / (2 * h)
        trial = lnrho + np.linalg.lstsq(jacobian, -r, rcond=None)[0]  # the least change
        r_trial = residual(trial)
        if not np.abs(r_trial).max() < 0.5 * np.abs(r).max():
            break
        lnrho, r = trial, r_trial
    if not np.abs(r).max() <= 1e-10 * g:
        raise RuntimeError(f"hydrostatic: the discrete balance did not converge (residual "
                           f"{np.abs(r).max():.3g} of gravity {g:.3g})")
    profiles["lnrho"] = lnrho
    column["lnrho"] = lnrho.reshape(shape)
    rates = column.rhs()
    rates = {f: np.abs(rates[f].reshape(-1)[1:-1]).max() for f in ("lnrho", "ss") if f in profiles}
    drifting = [f for f in rates if rates[f] > 1e-12 * g]
    if drifting:
        on = [p for p in ("chi", "diff_hyper3", "chi_hyper3") if float(getattr(sim, p, 0.0)) != 0.0]
        warnings.warn(f"hydrostatic: the layer is in hydrostatic balance, but {' and '.join(drifting)} change at "
                      f"up to {max(rates[f] for f in drifting):.3g} per unit time "
                      f"(diffusion: {', '.join(f'{p} = {getattr(sim, p)}' for p in on) or 'none on'})",
                      RuntimeWarning, stacklevel=3)
    return profiles
