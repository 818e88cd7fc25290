"""Linear stability of a stratified layer of ideal gas between two walls:
the growth rates of convection, for comparing with runs of astaroth with
energy="entropy", gravity and walls in z.

The equations are astaroth's (the Pencil Code's `entropy` module with
`eos_idealgas`, constant kinematic viscosity nu and constant thermal
diffusivity chi, iheatcond='chi-const', uniform gravity gz along z),
linearised about a state at rest, lnrho0(z), ss0(z), for perturbations
exp(i k x + lambda t) f(z) (a horizontal wave vector k along x; by
isotropy the growth rate depends on |k| only and uy decouples):

    lnT'  = (gamma - 1) r + cv1 s                       (cv1 = gamma / cp)
    r_t   = -uz Dlnrho0 - i k ux - D uz
    ux_t  = -(cs2_0 / gamma) i k (r + lnT')
            + nu [(D^2 - k^2) ux + i k (i k ux + D uz) / 3 + Dlnrho0 (D ux + i k uz)]
    uz_t  = -gz lnT' - (cs2_0 / gamma) D(r + lnT')
            + nu [(D^2 - k^2) uz + D(i k ux + D uz) / 3 + 2 Dlnrho0 (2 D uz / 3 - i k ux / 3)]
    s_t   = -uz Dss0 + cp chi [(D^2 - k^2) lnT' + (Dr + DlnT') DlnTT0 + (Dlnrho0 + DlnTT0) DlnT']

(r = lnrho', s = ss', cs2_0 = cp (gamma - 1) T0; the background is in
hydrostatic equilibrium, (cs2_0 / gamma)(Dlnrho0 + DlnTT0) = gz, which
turns the perturbed cs2 into -gz lnT').  Walls: uz = 0 (kind 'a'),
D ux = 0 (stress-free, kind 's'), s = 0 (entropy set on the walls); lnrho
takes no condition (kind 'a2' only sets its ghosts).  The background is
held fixed: with constant chi a polytrope is not in thermal equilibrium
(the heat flux rho cp chi dT/dz varies with rho) and slowly heats; use
`conductive_layer` for a background that is (a constant flux), or compare
the growth rate with `thermal_drift_rate` of the background.

Discretisation: Chebyshev collocation in z (Trefethen, "Spectral Methods in
MATLAB", SIAM 2000, ch. 6), the wall conditions imposed by eliminating the
wall values (boundary bordering), then a standard eigenvalue problem, NumPy
only.

conv_slab() sets up the layer of notebooks/convection.ipynb and
scripts/convection_gpu.py as a Simulation, seeded with the most unstable
mode, and growth_rate() measures the rate of a run's kinetic energy.

Check: `python -m astaroth.stability --check` finds the critical
Rayleigh number of a thin, weakly stratified layer (the Boussinesq limit),
which must approach 27 pi^4 / 4 = 657.51 at k d = pi / sqrt(2) for
stress-free walls at fixed temperature (Rayleigh 1916; Chandrasekhar,
"Hydrodynamic and Hydromagnetic Stability", 1961, sec. 15).
"""
import argparse
import math

import numpy as np

from .diagnostics import ProgressLine
from .simulation import Simulation


# ---------------------------------------------------------------- Chebyshev

def chebyshev(n, a, b):
    """n + 1 Chebyshev-Gauss-Lobatto points on [a, b], ascending, and the
    differentiation matrix D there."""
    j = np.arange(n + 1)
    x = np.cos(np.pi * j / n)  # descending on [-1, 1]
    c = np.where((j == 0) | (j == n), 2.0, 1.0) * (-1.0) ** j
    dx = x[:, None] - x[None, :]
    D = np.outer(c, 1 / c) / (dx + np.eye(n + 1))
    D = D - np.diag(D.sum(axis=1))
    # ascending z on [a, b]
    x, D = x[::-1], D[::-1, ::-1]
    z = a + (x + 1) * (b - a) / 2
    return z, D * 2 / (b - a)


# ---------------------------------------------------------------- backgrounds

class Gas:
    """The ideal gas of astaroth's energy="entropy": gamma, cp, and cs, rho0
    (cs the sound speed at rho = rho0, ss = 0)."""

    def __init__(self, gamma=5 / 3, cp=1.0, cs=1.0, rho0=1.0):
        if not gamma > 1:
            raise ValueError(f"gamma must be > 1, got {gamma!r}")
        for name, v in (("cp", cp), ("cs", cs), ("rho0", rho0)):
            if not v > 0:
                raise ValueError(f"{name} must be positive, got {v!r}")
        self.gamma, self.cp, self.cs, self.rho0 = gamma, cp, cs, rho0
        self.cv1 = gamma / cp
        self.R = cp - cp / gamma  # cp - cv
        self.lnTT0 = math.log(cs ** 2 / (cp * (gamma - 1)))

    def entropy(self, lnrho, lnTT):
        """ss for given lnrho and ln T (the EOS inverted)."""
        return (lnTT - self.lnTT0 - (self.gamma - 1) * (lnrho - math.log(self.rho0))) / self.cv1


def polytrope(z, gas, gz, m, z_top, T_top, rho_top):
    """A polytropic layer in hydrostatic equilibrium, rho ~ T^m, T falling
    linearly with height: T = T_top + beta (z_top - z), beta = -gz / (R (m + 1)).
    Returns lnrho, lnTT at z.  Superadiabatic (convectively unstable) for
    m < 1 / (gamma - 1)."""
    beta = -gz / (gas.R * (m + 1))
    T = T_top + beta * (z_top - np.asarray(z, dtype=float))
    if np.any(T <= 0):
        raise ValueError("the temperature of the polytrope reaches zero inside the layer: raise T_top")
    return math.log(rho_top) + m * np.log(T / T_top), np.log(T)


def conductive_layer(z, gas, gz, chi, flux, z_bot, T_bot, rho_bot, substeps=64):
    """A layer in hydrostatic and thermal equilibrium with constant chi: the
    heat flux F = -rho cp chi dT/dz is the same at every height, so
        dT/dz = -F / (rho cp chi),  dlnrho/dz = gz / (R T) - dlnT/dz
    Integrated upward from z_bot by RK4 (`substeps` between consecutive z).
    Returns lnrho, lnTT at z (z ascending, z[0] >= z_bot)."""
    z = np.asarray(z, dtype=float)

    def rates(y):
        lnrho, T = y
        dT = -flux / (math.exp(lnrho) * gas.cp * chi)
        return np.array([gz / (gas.R * T) - dT / T, dT])

    y, zc = np.array([math.log(rho_bot), T_bot]), z_bot
    out = np.empty((len(z), 2))
    for i, zi in enumerate(z):
        h = (zi - zc) / substeps
        for _ in range(substeps if zi > zc else 0):
            k1 = rates(y)
            k2 = rates(y + h / 2 * k1)
            k3 = rates(y + h / 2 * k2)
            k4 = rates(y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        zc = zi
        if y[1] <= 0:
            raise ValueError("the temperature reaches zero inside the layer: lower the flux")
        out[i] = y
    return out[:, 0], np.log(out[:, 1])


# ---------------------------------------------------------------- the eigenvalue problem

class Layer:
    """The linearised equations on n + 1 Chebyshev points between walls at
    z_bot and z_top, for a background given as a function
    background(z) -> (lnrho0, lnTT0)."""

    def __init__(self, gas, gz, nu, chi, z_bot, z_top, background, n=48):
        self.gas, self.gz, self.nu, self.chi = gas, gz, nu, chi
        self.z, self.D = chebyshev(n, z_bot, z_top)
        lnrho, lnTT = background(self.z)
        D = self.D
        self.lnrho0, self.lnTT0 = lnrho, lnTT
        self.L, self.T = D @ lnrho, D @ lnTT
        self.ss0 = gas.entropy(lnrho, lnTT)
        self.S = D @ self.ss0
        self.cs2 = gas.cp * (gas.gamma - 1) * np.exp(lnTT)
        # hydrostatic equilibrium, the residual relative to gz (should be ~0)
        self.hydrostatic_residual = np.max(np.abs(self.cs2 / gas.gamma * (self.L + self.T) - gz)) / abs(gz)

    def matrices(self, k):
        """The linear operator A of q_t = A q, q = (r, ux, uz, s) at the
        points, before the walls' conditions."""
        g, nu, chi, gz = self.gas, self.nu, self.chi, self.gz
        N = len(self.z)
        I, D = np.eye(N), self.D.astype(complex)
        D2 = D @ D
        dg = lambda v: np.diag(v).astype(complex)
        ik = 1j * k
        L, T, cs2 = dg(self.L), dg(self.T), dg(self.cs2 / g.gamma)
        Z = np.zeros((N, N), complex)
        # lnT' = (gamma - 1) r + cv1 s
        th_r, th_s = (g.gamma - 1) * I, g.cv1 * I
        Ar = [Z, -ik * I, -(L + D), Z]
        Aux = [-ik * cs2 @ (I + th_r),
               nu * (D2 - k ** 2 * I + ik * ik * I / 3 + L @ D),
               nu * (ik * D / 3 + ik * L),
               -ik * cs2 @ th_s]
        Auz = [-gz * th_r - cs2 @ D @ (I + th_r),
               nu * (ik * D / 3 - 2 * ik * L / 3),
               nu * (D2 - k ** 2 * I + D2 / 3 + 4 * L @ D / 3),
               -gz * th_s - cs2 @ D @ th_s]
        cond = g.cp * chi
        lap = D2 - k ** 2 * I
        As = [cond * (lap @ th_r + T @ D @ (I + th_r) + (L + T) @ D @ th_r),
              Z,
              -dg(self.S),
              cond * (lap @ th_s + T @ D @ th_s + (L + T) @ D @ th_s)]
        return np.block([Ar, Aux, Auz, As])

    def reduced(self, k):
        """The standard eigenvalue problem lambda q = M q on the unknowns
        left free by the walls: r everywhere, ux, uz, s inside; the walls'
        uz = s = 0, and ux there from D ux = 0 (a 2 x 2 solve).  Returns M
        and P, which maps q to the full (r, ux, uz, s)."""
        N = len(self.z)
        inner = np.arange(1, N - 1)
        D = self.D
        wall = np.array([[D[0, 0], D[0, -1]], [D[-1, 0], D[-1, -1]]])
        E = np.zeros((N, N - 2))  # ux at all points from ux inside
        E[inner, np.arange(N - 2)] = 1.0
        E[[0, -1], :] = -np.linalg.solve(wall, D[[0, -1]][:, inner])
        Zero = np.zeros((N, N - 2))
        Inner = np.zeros((N, N - 2))
        Inner[inner, np.arange(N - 2)] = 1.0
        P = np.block([[np.eye(N), np.zeros((N, 3 * (N - 2)))],
                      [np.zeros((N, N)), E, Zero, Zero],
                      [np.zeros((N, N)), Zero, Inner, Zero],
                      [np.zeros((N, N)), Zero, Zero, Inner]])
        rows = np.concatenate([np.arange(N), N + inner, 2 * N + inner, 3 * N + inner])
        return self.matrices(k)[rows] @ P, P

    def modes(self, k):
        """Eigenvalues (growth rates lambda), most unstable first, and the
        eigenvectors as columns of (r, ux, uz, s) at the points."""
        M, P = self.reduced(k)
        lam, vec = np.linalg.eig(M)
        order = np.argsort(-lam.real)
        return lam[order], P @ vec[:, order]

    def growth_rate(self, k):
        """The largest real part of the eigenvalues at horizontal wave number k."""
        return float(self.modes(k)[0][0].real)

    def thermal_drift_rate(self):
        """max |d lnT0/dt| of the fixed background under conduction alone,
        cv1 cp chi (D^2 lnTT0 + (Dlnrho0 + DlnTT0) DlnTT0) (0 for
        `conductive_layer`): compare with the growth rate."""
        g = self.gas
        dss = g.cp * self.chi * (self.D @ self.T + (self.L + self.T) * self.T)
        return float(np.max(np.abs(g.cv1 * dss)))

    def rayleigh_number(self):
        """Ra = -gz d^4 (-Dss0 / cp) / (nu chi) at mid-layer (the Boussinesq
        limit's g alpha dT d^3 / (nu kappa) there)."""
        d = self.z[-1] - self.z[0]
        mid = np.interp(0.5 * (self.z[0] + self.z[-1]), self.z, -self.S / self.gas.cp)
        return -self.gz * d ** 4 * mid / (self.nu * self.chi)



# ---------------------------------------------------------------- the layer as a Simulation

def interpolate(z_cheb, values, z):
    """The Chebyshev interpolant of `values` at the Chebyshev-Gauss-Lobatto
    points z_cheb (ascending, as chebyshev() gives them), evaluated at z:
    the barycentric formula (Trefethen 2000, ch. 6), exact for the modes'
    polynomials."""
    n = len(z_cheb) - 1
    w = (-1.0) ** np.arange(n + 1)
    w[[0, -1]] *= 0.5
    z = np.asarray(z, dtype=float)
    diff = z[:, None] - z_cheb[None, :]
    exact = np.isclose(diff, 0.0, rtol=0.0, atol=1e-14 * (z_cheb[-1] - z_cheb[0]))
    diff[exact] = 1.0
    terms = w / diff
    out = (terms @ np.asarray(values)) / terms.sum(axis=1)
    hit = exact.any(axis=1)
    out[hit] = np.asarray(values)[exact[hit].argmax(axis=1)]
    return out


GOLDEN_STEPS = 60


def most_unstable(layer, k_lo=0.5, k_hi=20.0, samples=40, progress=None):
    """(k, rate): the horizontal wave number of the largest growth rate and
    that rate, from a scan over [k_lo, k_hi] refined by golden-section search
    (samples + 2 GOLDEN_STEPS + 1 eigenvalue problems; progress, if given,
    is called after each with the number done)."""
    done = 0

    def rate(k):
        nonlocal done
        value = layer.growth_rate(k)
        done += 1
        if progress is not None:
            progress(done)
        return value

    ks = np.linspace(k_lo, k_hi, samples)
    i = int(np.argmax([rate(k) for k in ks]))
    a, b = ks[max(i - 1, 0)], ks[min(i + 1, samples - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(GOLDEN_STEPS):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if rate(c) > rate(d):
            b = d
        else:
            a = c
    k = (a + b) / 2
    return k, rate(k)


class _SetupProgress(ProgressLine):
    """conv_slab's setup: the eigenvalue problems solved of those to solve."""

    def __init__(self, total, stream=None):
        super().__init__(stream=stream)
        self.total, self.done = total, 0

    def __call__(self, done):
        self.done = done
        self.update()

    def text(self, elapsed):
        left = elapsed * (self.total - self.done) / self.done if self.done else math.inf
        return (f"conv_slab: the most unstable mode, {self.done} of {self.total} eigenvalue problems "
                f"({elapsed:.0f} s, about {left:.0f} s left)")


def conv_slab(shape=(32, 1, 32), backend="cpu", dtype="float64", nu=0.005, chi=0.005, gz=-1.0, flux=1.3,
              T_bot=4.0, depth=1.0, amplitude=1e-4, n=40, progress=True):
    """A convectively unstable layer between walls at z = 0 and depth, after
    the Pencil Code's conv-slab sample: energy="entropy", gravity (0, 0, gz),
    the conductive_layer of heat flux flux * chi (hydrostatic and in thermal
    equilibrium; superadiabatic for these defaults), walls in z with
    stress-free velocity (ux, uy 's', uz 'a'), lnrho 'a2' and ss 'set' to the
    layer's own values on both walls; periodic in x and y, the box 2 pi / k
    wide for the most unstable k, so that its mode fits once.  The flow
    starts as that mode (uniform in y) at largest speed `amplitude`.

    The search for the mode solves some 160 eigenvalue problems of 4 (n + 1)
    unknowns: progress=True shows how far it is on a line on stderr (as
    Simulation.run's progress line), a stream shows it there, False is
    silent.

    Returns (sim, layer, k, rate): the Simulation, the Layer of the linear
    problem (n + 1 Chebyshev points), the mode's k and its growth rate."""
    samples = 40
    line = _SetupProgress(samples + 2 * GOLDEN_STEPS + 1, stream=None if progress is True else progress) \
        if progress else None
    gas = Gas()  # the Simulation's defaults: gamma 5/3, cp 1, cs 1, rho0 1
    background = lambda z: conductive_layer(z, gas, gz, chi, flux * chi, 0.0, T_bot, 1.0)
    layer = Layer(gas, gz, nu, chi, 0.0, depth, background, n=n)
    k, rate = most_unstable(layer, samples=samples, progress=line)
    if line is not None:
        line.close()
    width = 2 * math.pi / k
    z = np.linspace(0.0, depth, shape[2])  # a wall axis: the walls are its first and last points
    lnrho0, lnTT0 = background(z)
    ss0 = gas.entropy(lnrho0, lnTT0)
    walls = {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2", "ss": (f"set:{float(ss0[0])!r}", f"set:{float(ss0[-1])!r}")}
    sim = Simulation(shape=shape, box=(width, width, depth), backend=backend, dtype=dtype, energy="entropy", nu=nu,
                     chi=chi, gravity=(0.0, 0.0, gz), boundaries={"z": walls})
    lam, vectors = layer.modes(k)
    N = len(layer.z)
    mode = {name: interpolate(layer.z, vectors[i * N:(i + 1) * N, 0], z)
            for i, name in enumerate(("lnrho", "ux", "uz", "ss"))}
    scale = amplitude / max(np.abs(mode["ux"]).max(), np.abs(mode["uz"]).max())
    phase = np.exp(1j * k * sim.x)[:, None, None]
    for name, base in (("lnrho", lnrho0), ("ux", 0.0 * z), ("uz", 0.0 * z), ("ss", ss0)):
        field = base[None, None, :] + scale * (phase * mode[name][None, None, :]).real
        sim[name] = np.broadcast_to(field, sim.shape).copy()
    return sim, layer, k, rate


def growth_rate(t, ekin, t_max=None):
    """The growth rate of a mode from its kinetic energy: half the slope of
    ln ekin fitted over t <= t_max (None: a run that saturates, its largest
    ekin before the end, up to where ekin first reaches 1e-3 of that; one
    still growing, all of it)."""
    t, ekin = np.asarray(t, dtype=float), np.asarray(ekin, dtype=float)
    if t_max is None:
        saturated = int(np.argmax(ekin)) < len(ekin) - 1
        t_max = t[int(np.argmax(ekin >= 1e-3 * ekin.max()))] if saturated else t[-1]
    linear = t <= t_max
    if linear.sum() < 2:
        raise ValueError(f"growth_rate: fewer than 2 samples with t <= {t_max}")
    return float(np.polyfit(t[linear], np.log(ekin[linear]), 1)[0] / 2)


# ---------------------------------------------------------------- the Boussinesq check

def boussinesq_critical_rayleigh(n=32, d=1.0, scale_height=200.0):
    """The critical Rayleigh number of a thin polytropic layer (d / H_p small,
    nearly adiabatic) at k d = pi / sqrt(2), Prandtl number 1: nu = chi
    varied until the growth rate crosses zero (secant in ln nu)."""
    gas = Gas(gamma=5 / 3, cp=1.0, cs=1.0, rho0=1.0)
    gz = -1.0
    T_mid = -gz * scale_height / gas.R  # H_p = R T / g
    m = 1 / (gas.gamma - 1) - 0.05  # slightly superadiabatic
    background = lambda z: polytrope(z, gas, gz, m, d, T_mid - gz / (gas.R * (m + 1)) * d / 2, 1.0)
    k = math.pi / (math.sqrt(2) * d)

    def rate(lnnu):
        layer = Layer(gas, gz, math.exp(lnnu), math.exp(lnnu), 0.0, d, background, n=n)
        return layer.growth_rate(k), layer

    a, b = math.log(1e-3), math.log(2e-3)
    fa, fb = rate(a)[0], rate(b)[0]
    for _ in range(40):
        c = b - fb * (b - a) / (fb - fa)
        a, fa = b, fb
        b = c
        fb, layer = rate(b)
        if abs(fb) < 1e-12:
            break
    return layer.rayleigh_number(), layer


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="the Boussinesq limit: critical Ra against 27 pi^4 / 4")
    ap.add_argument("--n", type=int, default=40, help="Chebyshev points - 1 (default 40)")
    ap.add_argument("--nu", type=float, default=0.005)
    ap.add_argument("--chi", type=float, default=0.005)
    ap.add_argument("--gz", type=float, default=-1.0)
    ap.add_argument("--gamma", type=float, default=5 / 3)
    ap.add_argument("--polytrope", type=float, metavar="M", default=None,
                    help="a polytrope of index M (T_top = 0.5, rho_top = 1) in place of the conductive layer "
                         "(T_bot = 4, rho_bot = 1, flux 1.3 chi: superadiabatic, in thermal equilibrium)")
    args = ap.parse_args(argv)
    if args.check:
        for n in (24, 32):
            ra, layer = boussinesq_critical_rayleigh(n=n)
            print(f"n = {n}: critical Ra = {ra:.4f} (Boussinesq, stress-free: {27 * math.pi ** 4 / 4:.4f}), "
                  f"hydrostatic residual {layer.hydrostatic_residual:.1e}")
        return
    gas = Gas(gamma=args.gamma)
    if args.polytrope is not None:
        background = lambda z: polytrope(z, gas, args.gz, args.polytrope, 1.0, 0.5, 1.0)
        name = f"polytrope m = {args.polytrope}"
    else:
        background = lambda z: conductive_layer(z, gas, args.gz, args.chi, 1.3 * args.chi, 0.0, 4.0, 1.0)
        name = "conductive layer"
    layer = Layer(gas, args.gz, args.nu, args.chi, 0.0, 1.0, background, n=args.n)
    print(f"{name}, 0 <= z <= 1, gamma = {args.gamma:.4g}, gz = {args.gz}, nu = {args.nu}, chi = {args.chi}: "
          f"Ra(mid) = {layer.rayleigh_number():.4g}, background thermal drift {layer.thermal_drift_rate():.3g}")
    for k in np.linspace(1, 10, 10):
        print(f"k = {k:6.3f}  growth rate {layer.growth_rate(k): .6f}")



if __name__ == "__main__":
    main()
