"""An independent NumPy statement of the right-hand side with the energy
equation (the Pencil Code's `entropy` module with `eos_idealgas`), hydro and
MHD, periodic, for the tests of tests/test_entropy.py.

Written from the Pencil Code's sources (github.com/pencil-code/pencil-code,
commit 0b184bce0) and from Pekkila et al. 2017 (Comput. Phys. Commun. 217, 11,
eqs. 6-8: the sixth-order first, second and bidiagonal mixed derivatives),
not from astaroth's csrc/ or astaroth/numpy_reference.py: the stencil weights
are typed in again here so that a wrong coefficient anywhere else is caught.

Conventions (Pencil file, routine: formula)
-------------------------------------------
Equation of state, src/eos_idealgas.f90, `initialize_eos` and
`calc_pencils_eos_pencpar` (ilnrho_ss):
    cs20 = cs^2 (Pencil `cs0` = our `cs`: the sound speed at rho0, ss = 0)
    cv1 = gamma / cp,  lnTT0 = ln(cs20 / (cp (gamma - 1)))
    lnTT = lnTT0 + cv1 ss + (gamma - 1)(lnrho - ln rho0),  TT1 = exp(-lnTT)
    cs2 = cs20 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0))
    glnTT = (gamma - 1) glnrho + cv1 gss
    del2lnTT = (gamma - 1) del2lnrho + cv1 del2ss
    pp = (cp - cv) exp(lnTT + lnrho) = rho cs2 / gamma,  ee = cv T
src/entropy.f90, `calc_pencils_energy` (fpres, leos_idealgas):
    fpres = -cs2 (glnrho + glnTT) / gamma        (= -grad p / rho)
src/viscosity.f90, `calc_pencils_viscosity`:
    'nu-const':  fvisc += nu (del2u + 2 S.glnrho + graddivu / 3),
                 visc_heat += 2 nu S:S  (sij2, S traceless)
    'nu-shock':  fvisc += nu_shock shock (divu glnrho + graddivu)
                          + nu_shock divu gshock,
                 visc_heat += nu_shock shock divu^2  (lshock_heat, default true)
    'hyper3-simplified': fvisc += nu_hyper3 del6u; no heating (Pencil warns
                 "viscous heating not implemented for lvisc_hyper3_simplified")
    The blocks come in this order in the routine (nu-const, nu-shock,
    hyper3-simplified), so fvisc and visc_heat are summed in it.
    Here zeta = nu_shock shock is astaroth's shock profile (as
    tests/test_shock.py states it: nu_shock dxmin^2 S[M3[max(-div u, 0)]]).
src/viscosity.f90, `calc_viscous_heat`: df(iss) += TT1 visc_heat.
src/entropy.f90, `calc_heatcond_constchi_arr` (iheatcond='chi-const'):
    thdiff = chi cp (del2lnTT + (glnrho + glnTT).glnTT)
    `calc_heatcond_hyper3` (iheatcond='hyper3_ss' or 'hyper3'):
    thdiff = chi_hyper3 del6ss
src/magnetic.f90, `daa_dt` (lohmic_heat, default true):
    df(iss) += eta mu0 j2 rho1 TT1  (eta_heat = eta_total for eta-const)
    Lorentz: df(iux:iuz) += jxbr = rho1 (J x B);  J = (grad div A - del2 A)/mu0
    Induction (resistive gauge): dA/dt = u x B + eta del2 A
src/density.f90, `dlnrho_dt`: density_rhs = -divu - u.glnrho (in floating
    point the same as -u.glnrho - divu)  [+ diff_hyper3 del6 lnrho,
    idiff='hyper3-lnrho']

Order of accumulation (src/equ.f90, `pde` -> duu_dt, dlnrho_dt, denergy_dt,
daa_dt; src/hydro.f90 `duu_dt` calls advec_uu then calc_viscous_force;
src/entropy.f90 `denergy_dt` adds fpres to df(iux:iuz), then -u.gss, then
calc_viscous_heat, then calc_heatcond_constchi, then calc_heatcond_hyper3;
src/magnetic.f90 `daa_dt` adds jxbr and the Ohmic heat):
    u:  -u.grad u, + fvisc, + fpres, + J x B / rho, + g (src/gravity_simple.f90
        `addgravity`, called by `pde` after daa_dt)
    ss: -u.gss, + TT1 visc_heat, + chi term, + chi_hyper3 del6 ss,
        + eta mu0 J^2 / (rho T)
astaroth's energy="entropy" is to follow this order (u: advection, viscous
force, pressure, Lorentz, gravity; ss: advection, viscous heating,
conduction, Ohmic), with two details that Pencil fixes:
  * shock heating is summed into visc_heat before the single TT1 product:
    ss += TT1 (2 nu S:S + zeta divu^2), not two separate terms;
  * hyper3-simplified viscosity heats nothing; chi_hyper3 comes after the
    chi-const term (both "conduction").
The isothermal variant (energy="isothermal") has fpres = -cs^2 glnrho and
no ss: it is today's astaroth (checked in tests/test_entropy_reference.py).

Stencils (Pekkila et al. 2017, eqs. 6-8, and the 7-point del6):
    d1:  (45 (f1 - f-1) - 9 (f2 - f-2) + (f3 - f-3)) / (60 h)
    d2:  (-490 f0 + 270 (f1 + f-1) - 27 (f2 + f-2) + 2 (f3 + f-3)) / (180 h^2)
    dxy: sum_s w_s (f(+s,+s) - f(-s,+s) + f(-s,-s) - f(+s,-s)) / (720 hx hy),
         w = (270, -27, 2)
    d6:  (f3 - 6 f2 + 15 f1 - 20 f0 + 15 f-1 - 6 f-2 + f-3) / h^6
Axes with one point carry no derivative (zero).

Time: `integrate` is the Williamson 2N-storage RK3 (alpha = (0, -5/9,
-153/128), beta = (1/3, 15/16, 8/15)), the shock profile computed at the start
of each step and held for its three substeps, as astaroth does.
"""
import math

import numpy as np

DEFAULTS = dict(nu=0.0, cs=1.0, gamma=5 / 3, cp=1.0, rho0=1.0, chi=0.0, chi_hyper3=0.0, eta=0.0, mu0=1.0,
                b_ext=(0.0, 0.0, 0.0), nu_hyper3=0.0, diff_hyper3=0.0, nu_shock=0.0, gravity=(0.0, 0.0, 0.0))

HYDRO = ("lnrho", "ux", "uy", "uz")
MAGNETIC = ("ax", "ay", "az")


def field_names(mhd=False, entropy=True):
    """The field order: lnrho, ux, uy, uz, [ax, ay, az,] [ss]."""
    return HYDRO + (MAGNETIC if mhd else ()) + (("ss",) if entropy else ())


# ---------------------------------------------------------------- stencils

def _shift(f, axis, s):
    """f at index i + s along axis (periodic)."""
    return np.roll(f, -s, axis=axis)


def d1(f, axis, h):
    if f.shape[axis] == 1:
        return np.zeros_like(f)
    r = lambda s: _shift(f, axis, s)
    return (45 * (r(1) - r(-1)) - 9 * (r(2) - r(-2)) + (r(3) - r(-3))) / (60 * h[axis])


def d2(f, axis, h):
    if f.shape[axis] == 1:
        return np.zeros_like(f)
    r = lambda s: _shift(f, axis, s)
    return (-490 * f + 270 * (r(1) + r(-1)) - 27 * (r(2) + r(-2)) + 2 * (r(3) + r(-3))) / (180 * h[axis] ** 2)


def dxy(f, a, b, h):
    if f.shape[a] == 1 or f.shape[b] == 1:
        return np.zeros_like(f)
    at = lambda i, j: _shift(_shift(f, a, i), b, j)
    total = 0.0
    for s, w in ((1, 270), (2, -27), (3, 2)):
        total = total + w * (at(s, s) - at(-s, s) + at(-s, -s) - at(s, -s))
    return total / (720 * h[a] * h[b])


def d6(f, axis, h):
    if f.shape[axis] == 1:
        return np.zeros_like(f)
    r = lambda s: _shift(f, axis, s)
    return (r(3) + r(-3) - 6 * (r(2) + r(-2)) + 15 * (r(1) + r(-1)) - 20 * f) / h[axis] ** 6


def grad(f, h):
    return [d1(f, j, h) for j in range(3)]


def lap(f, h):
    return d2(f, 0, h) + d2(f, 1, h) + d2(f, 2, h)


def del6(f, h):
    return d6(f, 0, h) + d6(f, 1, h) + d6(f, 2, h)


def grad_div(v, h):
    """grad (div v) with the second and mixed stencils."""
    return [sum(d2(v[i], i, h) if i == j else dxy(v[j], i, j, h) for j in range(3)) for i in range(3)]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dxmin(shape, h):
    return min(h[j] for j in range(3) if shape[j] > 1)


def shock_profile(u, h, nu_shock):
    """zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]] (astaroth's 'nu-shock')."""
    div = d1(u[0], 0, h) + d1(u[1], 1, h) + d1(u[2], 2, h)
    z = np.maximum(-div, 0.0)
    for axis in range(3):
        if z.shape[axis] > 1:
            z = np.maximum(np.maximum(np.roll(z, 1, axis), z), np.roll(z, -1, axis))
    for axis in range(3):
        if z.shape[axis] > 1:
            z = (np.roll(z, 1, axis) + 2 * z + np.roll(z, -1, axis)) / 4
    return nu_shock * dxmin(z.shape, h) ** 2 * z


# ---------------------------------------------------------------- thermodynamics

def eos(lnrho, ss, p):
    """lnTT, cs2 of eos_idealgas (see the module docstring)."""
    gamma, cp, cs, rho0 = p["gamma"], p["cp"], p["cs"], p["rho0"]
    cv1 = gamma / cp
    lnTT0 = math.log(cs ** 2 / (cp * (gamma - 1)))
    lnTT = lnTT0 + cv1 * ss + (gamma - 1) * (lnrho - math.log(rho0))
    cs2 = cs ** 2 * np.exp(cv1 * ss + (gamma - 1) * (lnrho - math.log(rho0)))
    return lnTT, cs2


def temperature(lnrho, ss, p):
    return np.exp(eos(lnrho, ss, params(p))[0])


def pressure(lnrho, ss, p):
    """p = rho cs2 / gamma."""
    p = params(p)
    return np.exp(lnrho) * eos(lnrho, ss, p)[1] / p["gamma"]


def entropy_of(rho, pp, p):
    """ss for given density and pressure (inverse of the EOS)."""
    p = params(p)
    gamma, cp, cs, rho0 = p["gamma"], p["cp"], p["cs"], p["rho0"]
    cs2 = gamma * pp / rho
    return (np.log(cs2 / cs ** 2) - (gamma - 1) * np.log(rho / rho0)) * cp / gamma


def params(p):
    """DEFAULTS updated by p; `spacing` (dx, dy, dz) is required for rhs."""
    out = dict(DEFAULTS)
    out.update(p)
    return out


# ---------------------------------------------------------------- right-hand side

def rhs(fields, p, zeta=None):
    """Time derivatives of every field in `fields` (a dict by name: lnrho,
    ux, uy, uz, [ax, ay, az,] [ss]), with p["spacing"] = (dx, dy, dz).
    Entropy when "ss" is a field, isothermal otherwise; MHD when "ax" is.
    zeta: the shock profile (computed from u when None and nu_shock > 0)."""
    p = params(p)
    h = p["spacing"]
    mhd, entropy = "ax" in fields, "ss" in fields
    lnrho = fields["lnrho"]
    u = [fields["ux"], fields["uy"], fields["uz"]]
    nu, cs = p["nu"], p["cs"]

    glnrho = grad(lnrho, h)
    gu = [grad(u[i], h) for i in range(3)]  # gu[i][j] = d_j u_i
    divu = gu[0][0] + gu[1][1] + gu[2][2]
    rho1 = np.exp(-lnrho)

    # continuity (density.f90)
    dlnrho = -dot(u, glnrho) - divu
    if p["diff_hyper3"] != 0:
        dlnrho = dlnrho + p["diff_hyper3"] * del6(lnrho, h)

    # viscous force and heating (viscosity.f90, in its order)
    S = [[0.5 * (gu[i][j] + gu[j][i]) - (divu / 3 if i == j else 0.0) for j in range(3)] for i in range(3)]
    del2u = [lap(u[i], h) for i in range(3)]
    graddivu = grad_div(u, h)
    sglnrho = [dot(S[i], glnrho) for i in range(3)]
    fvisc = [nu * (del2u[i] + 2 * sglnrho[i] + graddivu[i] / 3) for i in range(3)]
    visc_heat = 2 * nu * sum(S[i][j] * S[i][j] for i in range(3) for j in range(3))
    if p["nu_shock"] != 0:
        if zeta is None:
            zeta = shock_profile(u, h, p["nu_shock"])
        gzeta = grad(zeta, h)
        fvisc = [fvisc[i] + zeta * (divu * glnrho[i] + graddivu[i]) + divu * gzeta[i] for i in range(3)]
        visc_heat = visc_heat + zeta * divu ** 2
    if p["nu_hyper3"] != 0:
        fvisc = [fvisc[i] + p["nu_hyper3"] * del6(u[i], h) for i in range(3)]

    # pressure (entropy.f90 fpres, or isothermal)
    if entropy:
        ss = fields["ss"]
        gss = grad(ss, h)
        gamma, cp = p["gamma"], p["cp"]
        cv1 = gamma / cp
        lnTT, cs2 = eos(lnrho, ss, p)
        TT1 = np.exp(-lnTT)
        glnTT = [(gamma - 1) * glnrho[j] + cv1 * gss[j] for j in range(3)]
        fpres = [-cs2 * (glnrho[j] + glnTT[j]) / gamma for j in range(3)]
    else:
        fpres = [-cs ** 2 * glnrho[j] for j in range(3)]

    # momentum: advection, viscous force, pressure, (Lorentz), gravity
    du = [-dot(u, gu[i]) for i in range(3)]
    du = [du[i] + fvisc[i] for i in range(3)]
    du = [du[i] + fpres[i] for i in range(3)]

    out = {"lnrho": dlnrho}
    if mhd:
        a = [fields["ax"], fields["ay"], fields["az"]]
        ga = [grad(a[i], h) for i in range(3)]  # ga[i][j] = d_j a_i
        b_ext, mu0, eta = p["b_ext"], p["mu0"], p["eta"]
        B = [ga[2][1] - ga[1][2] + b_ext[0], ga[0][2] - ga[2][0] + b_ext[1], ga[1][0] - ga[0][1] + b_ext[2]]
        del2a = [lap(a[i], h) for i in range(3)]
        graddiva = grad_div(a, h)
        J = [(graddiva[i] - del2a[i]) / mu0 for i in range(3)]
        jxb = cross(J, B)
        du = [du[i] + rho1 * jxb[i] for i in range(3)]
        uxb = cross(u, B)
        da = [uxb[i] + eta * del2a[i] for i in range(3)]
    g = p["gravity"]
    du = [du[i] + g[i] if g[i] != 0 else du[i] for i in range(3)]
    out.update(ux=du[0], uy=du[1], uz=du[2])
    if mhd:
        out.update(ax=da[0], ay=da[1], az=da[2])

    if entropy:
        # entropy: advection, viscous heating, conduction, hyper3, Ohmic
        dss = -dot(u, gss)
        dss = dss + TT1 * visc_heat
        if p["chi"] != 0:
            del2lnTT = (gamma - 1) * lap(lnrho, h) + cv1 * lap(ss, h)
            g2 = dot([glnrho[j] + glnTT[j] for j in range(3)], glnTT)
            dss = dss + p["chi"] * cp * (del2lnTT + g2)
        if p["chi_hyper3"] != 0:
            dss = dss + p["chi_hyper3"] * del6(ss, h)
        if mhd:
            j2 = dot(J, J)
            dss = dss + eta * mu0 * j2 * rho1 * TT1
        out["ss"] = dss
    return out


# ---------------------------------------------------------------- time stepping

ALPHA = (0.0, -5 / 9, -153 / 128)
BETA = (1 / 3, 15 / 16, 8 / 15)


def integrate(fields, p, dt, steps):
    """`steps` steps of the Williamson 2N-storage RK3 with time step dt:
    w = alpha_s w + dt RHS(f); f = f + beta_s w, three substeps a step; the
    shock profile is computed at each step's start and held.  Returns a new
    dict of fields."""
    p = params(p)
    f = {k: np.array(v, dtype=float) for k, v in fields.items()}
    for _ in range(steps):
        zeta = None
        if p["nu_shock"] != 0:
            zeta = shock_profile([f["ux"], f["uy"], f["uz"]], p["spacing"], p["nu_shock"])
        w = {k: np.zeros_like(v) for k, v in f.items()}
        for s in range(3):
            r = rhs(f, p, zeta)
            for k in f:
                w[k] = ALPHA[s] * w[k] + dt * r[k]
                f[k] = f[k] + BETA[s] * w[k]
        for v in f.values():
            if not np.all(np.isfinite(v)):
                raise FloatingPointError("non-finite values")
    return f


def run_until(fields, p, t_end, dt_max):
    """integrate to t_end with equal steps no longer than dt_max."""
    steps = max(1, math.ceil(t_end / dt_max - 1e-9))
    return integrate(fields, p, t_end / steps, steps)
