"""Writes the validation notebooks (sources only; run them to fill outputs).
usage: python3 scripts/make_notebooks.py [--keep-outputs] [--out DIR] [name ...]   (default: every notebook, into
notebooks/; tests/test_notebooks.py checks that the stored notebooks' sources are what this writes)"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "notebooks")

COMMON = """import math, os, time
import numpy as np
import matplotlib.pyplot as plt
import astaroth as ac

GPU = "cuda" in ac.backends()
BACKEND = "cuda" if GPU else "cpu"
FIGURES = os.environ.get("ASTAROTH_FIGURES")  # where to save the figure as PNG, if set
print("backends:", ac.backends(), "-> running on", BACKEND)"""

NOTEBOOKS = {
    "sine_decay": [
        ("markdown", "# Sine-wave decay (seed Sect. 6, Fig. 5)\n\n$u = u_0 \\sin(kx)\\,\\hat e_y$ decays as $u_0 e^{-\\nu k^2 t} \\sin kx$ (eq. 22). With $k = 13$ and $t = 1.5$ the rms deviation from the exact solution should fall as $\\delta x^6$ (the seed measured $2^{5.7}$ per halving), for both integration methods and both precisions. On the GPU the grids are cubes up to $256^3$; on the CPU one-dimensional $(n, 1, 1)$ grids give the same numbers quickly."),
        ("code", COMMON),
        ("code", """K, U0, NU, T_END = 13, 1e-3, 5e-3, 1.5
sizes = [32, 64, 128, 256]

def decay_error(n, method, dtype):
    shape = (n, n, n) if GPU else (n, 1, 1)
    sim = ac.Simulation(shape=shape, box=(2 * math.pi,) * 3, nu=NU, cs=1.0, dtype=dtype, backend=BACKEND, method=method)
    ac.init.sine_wave(sim, field="uy", amplitude=U0, k=K)
    sim.run(until=T_END, cdt=0.1)  # small steps: the spatial error dominates
    exact = U0 * math.exp(-NU * K**2 * T_END) * np.sin(K * sim.x)[:, None, None]
    return math.sqrt(np.mean((sim["uy"] - exact) ** 2))

errors = {}
for method in ("55p", "19p"):
    for dtype in ("float64", "float32"):
        t0 = time.time()
        errors[method, dtype] = [decay_error(n, method, dtype) for n in sizes]
        orders = [math.log2(a / b) for a, b in zip(errors[method, dtype], errors[method, dtype][1:])]
        print(f"{method} {dtype}: errors {np.array(errors[method, dtype])}, orders {np.round(orders, 2)} ({time.time() - t0:.1f} s)")"""),
        ("code", """dx = 2 * math.pi / np.array(sizes)
fig, ax = plt.subplots(figsize=(6, 4.5))
for (method, dtype), e in errors.items():
    ax.loglog(dx, e, "o-" if dtype == "float64" else "s--", label=f"{method}, {dtype}")
ref = errors["55p", "float64"][1] * (dx / dx[1]) ** 6
ax.loglog(dx, ref, "k:", label=r"$\\propto \\delta x^6$")
ax.set_xlabel(r"$\\delta x$"); ax.set_ylabel("rms error at t = 1.5")
ax.set_title(f"Sine-wave decay, k = 13 ({BACKEND})"); ax.legend()
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "sine_decay.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
    ],
    "radial_explosion": [
        ("markdown", "# Radial explosion (seed Sect. 6, Fig. 6)\n\n$u = A \\exp(-(r - r_0)^2 / 2d^2)\\,\\hat e_r$ with $A = 1$, "
         "$r_0 = 0.8$, $d = 0.2$ in the centre of a $2\\pi$ box. The symmetry error is the relative spread of the "
         "integrals of $\\rho$ and $|u|$ along the 3 axes and 4 body diagonals through the centre "
         "(`ac.analysis.symmetry_error`). We vary $\\mathrm{Re} = A d / \\nu$ at several resolutions ($64^3$–$256^3$ "
         "on the GPU, small grids on the CPU) and look at $t = 0.3$ and $t = 1$. The blast is at Mach 1: at high "
         "Re it steepens into shocks, and without shock viscosity a run that a grid cannot hold stops with "
         "`NonFiniteError` (plotted as missing points). With shock viscosity (`nu_shock`, "
         "docs/guide/hyperdiffusion.md, the 55-point method) every run holds: the same runs with `nu_shock = 2` "
         "are added to the figure at $t = 1$ (triangles)."),
        ("code", COMMON),
        ("code", """sizes = [64, 128, 256] if GPU else [32, 48]
viscosities = [4e-2, 2e-2, 1e-2, 5e-3, 2.5e-3, 1.25e-3] if GPU else [4e-2, 2e-2, 1e-2]
times = [0.3, 1.0]
results = {}
for n in sizes:
    for nu in viscosities:
        sim = ac.Simulation(shape=(n, n, n), nu=nu, dtype="float64", backend=BACKEND, method="19p")
        ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
        for t in times:
            try:
                sim.run(until=t)
                results[n, nu, t] = ac.analysis.symmetry_error(sim)
            except ac.NonFiniteError as e:  # a Mach-1 blast steepens into shocks this grid cannot hold
                print(f"{n}^3 Re = {0.2 / nu:6.1f}: unstable before t = {t} ({e})")
                results.update({(n, nu, later): {"rho": np.nan, "u": np.nan} for later in times if later >= t})
                break
        print(f"{n}^3 Re = {0.2 / nu:6.1f}: " + ", ".join(
            f"t={t}: rho {results[n, nu, t]['rho']:.2e} |u| {results[n, nu, t]['u']:.2e}" for t in times))

# the same runs with shock viscosity (55-point method): every Re holds to t = 1
NU_SHOCK = 2.0
shocked = {}
for n in sizes:
    for nu in viscosities:
        sim = ac.Simulation(shape=(n, n, n), nu=nu, dtype="float64", backend=BACKEND, method="55p", nu_shock=NU_SHOCK)
        ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
        t0 = time.time()
        try:
            sim.run(until=1.0)
            shocked[n, nu] = ac.analysis.symmetry_error(sim)
        except ac.NonFiniteError as e:
            print(f"{n}^3 Re = {0.2 / nu:6.1f} with shock viscosity: unstable ({e})")
            shocked[n, nu] = {"rho": np.nan, "u": np.nan}
        print(f"{n}^3 Re = {0.2 / nu:6.1f}, nu_shock = {NU_SHOCK}: t=1: rho {shocked[n, nu]['rho']:.2e} "
              f"|u| {shocked[n, nu]['u']:.2e} ({sim.steps} steps, {time.time() - t0:.1f} s)")"""),
        ("code", """fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
re = 0.2 / np.array(viscosities)
for ax, quantity in zip(axes, ("u", "rho")):
    for n in sizes:
        for t, style in zip(times, ("o-", "s--")):
            ax.loglog(re, [results[n, nu, t][quantity] for nu in viscosities], style, label=f"{n}$^3$, t = {t}")
        ax.loglog(re, [shocked[n, nu][quantity] for nu in viscosities], "v:", label=f"{n}$^3$, t = 1, nu_shock")
    ax.set_xlabel("Re = A d / nu")
    ax.set_ylabel(r"$\\Delta(\\sum |u|)$" if quantity == "u" else r"$\\Delta(\\sum \\rho)$")
axes[0].legend(fontsize=8)
fig.suptitle(f"Radial explosion: symmetry error against Re (19-point method; with shock viscosity 55-point, {BACKEND})")
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "radial_explosion.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
    ],
    "forced_turbulence": [
        ("markdown", "# Forced non-helical turbulence (seed Sect. 6, Fig. 7)\n\nForcing at a shell of wave numbers $[k_f - 1/2, k_f + 1/2]$ (eqs. 24–25). The shell-integrated kinetic-energy spectrum should peak at $k_f$, be isotropic, and show a short range near $k^{-5/3}$. On the GPU: $256^3$ with the seed's $k_f$ = 1.53, 2.23, 3.13, 4.12 and 10.0; on the CPU a $32^3$ sketch, which has no inertial range: at $32^3$ the viscosity has to be large ($\\nu = 5 \\times 10^{-3}$) for the grid to resolve the dissipation scale, so the Reynolds number $u_\\mathrm{rms}/(\\nu k_f)$ is a few (the figure prints it) and the viscous range starts at the forcing scale; its figure says so and draws no $k^{-5/3}$ line."),
        ("code", COMMON),
        ("code", """N = 256 if GPU else 32
NU = 2e-4 if GPU else 5e-3
T_END = 40.0 if GPU else 4.0
shells = [(1.0, 2.0), (1.5, 2.5), (2.5, 3.5), (3.5, 4.5), (9.5, 10.5)] if GPU else [(1.0, 2.0), (2.5, 3.5)]
spectra, reynolds = {}, {}
for kmin, kmax in shells:
    sim = ac.Simulation(shape=(N, N, N), nu=NU, cs=1.0, dtype="float32", backend=BACKEND, method="55p")
    forcing = ac.Forcing(kmin=kmin, kmax=kmax, f0=0.02, seed=1)
    sim.forcing = forcing
    t0 = time.time()
    sim.run(until=T_END)
    k, E = ac.analysis.spectrum(sim)
    spectra[forcing.mean_k] = (k, E)
    reynolds[forcing.mean_k] = ac.analysis.reynolds_numbers(sim)["Re"]
    parts = [ac.analysis.rms(sim, c) for c in ("ux", "uy", "uz")]
    print(f"kf = {forcing.mean_k:5.2f}: {sim.steps} steps in {time.time() - t0:.0f} s, urms = {ac.analysis.rms(sim, 'u'):.3f},"
          f" components {np.round(parts, 3)}, spectrum peak at k = {k[1:][np.argmax(E[1:])]:.0f}")"""),
        ("code", """fig, ax = plt.subplots(figsize=(6.5, 4.5))
for kf, (k, E) in spectra.items():
    ax.loglog(k[1:], E[1:], label=f"$k_f$ = {kf:.2f}")
if GPU:
    kk = np.array([3.0, 30.0])
    anchor = spectra[min(spectra)][1][int(kk[0])]
    ax.loglog(kk, anchor * (kk / kk[0]) ** (-5 / 3), "k--", label=r"$k^{-5/3}$")
else:  # at this size no inertial range: say why rather than draw a -5/3 line
    re_text = ", ".join(f"{r:.0f}" for r in reynolds.values())
    ax.text(0.03, 0.04, r"Re = $u_\\mathrm{rms}/(\\nu k_f)$ = " + re_text + r": the viscous range starts at $k_f$," + "\\n"
            + f"no inertial range at {N}$^3$ (256$^3$ on a GPU has one)", transform=ax.transAxes, fontsize=8)
ax.set_xlabel("k"); ax.set_ylabel("E(k)"); ax.set_ylim(bottom=1e-12)
ax.set_title(f"Forced turbulence, {N}$^3$, t = {T_END:g} ({BACKEND})"); ax.legend(fontsize=8)
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "forced_turbulence.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
    ],
    "convection": [
        ("markdown", "# Convection between walls: linear growth and saturation\n\nA layer of ideal gas (`energy=\"entropy\"`) between walls at $z = 0$ and $z = 1$ under gravity $g = (0, 0, -1)$, after the Pencil Code's `conv-slab` sample (docs/guide/walls.md): heat flows up through it by conduction ($\\chi$ constant) at a rate that makes it superadiabatic, its entropy falling with height. The walls are stress-free (`ux`, `uy` kind `s`, `uz` kind `a`), `lnrho` takes `a2` and the entropy is `set` to the layer's own values on both walls. The layer is hydrostatic and in thermal equilibrium, and convectively unstable: a small flow grows at the rate that a linear stability analysis of the same layer (same $\\nu$, $\\chi$, walls) gives, then saturates.\n\nThe linear analysis (`astaroth.stability`, NumPy only) writes the linearised equations of astaroth's terms on Chebyshev points in $z$ for perturbations $\\propto e^{ikx + \\lambda t}$, imposes the walls' conditions ($u_z = 0$, $\\partial_z u_x = 0$, $s' = 0$) and solves the eigenvalue problem with `numpy.linalg.eig`; its check reproduces Rayleigh's critical number $27\\pi^4/4$ for stress-free walls in the Boussinesq limit. The run starts from the most unstable mode at a speed of $10^{-5}$ in a box whose width is that mode's wavelength; its kinetic energy should grow as $e^{2\\lambda t}$. On the GPU the layer is $128 \\times 128 \\times 64$ (`scripts/convection_gpu.py` runs the same and writes a log); on the CPU a two-dimensional $32 \\times 1 \\times 32$ slice."),
        ("code", COMMON + """
from astaroth import stability  # the linear stability of the layer and its setup
QUICK = os.environ.get("ASTAROTH_NOTEBOOK_QUICK") == "1\""""),
        ("code", """SHAPE = (128, 128, 64) if GPU and not QUICK else (16, 1, 16) if QUICK else (32, 1, 32)
T_END = 40.0 if QUICK else 80.0
NU = CHI = 0.005
gas = stability.Gas()  # gamma 5/3, cp 1, cs 1, rho0 1: the Simulation's defaults
background = lambda z: stability.conductive_layer(z, gas, -1.0, CHI, 1.3 * CHI, 0.0, 4.0, 1.0)  # T = 4 at the bottom
layer = stability.Layer(gas, -1.0, NU, CHI, 0.0, 1.0, background, n=40)
ks = np.linspace(0.5, 10, 60)
rates = [layer.growth_rate(k) for k in ks]  # numpy.linalg.eig of the Chebyshev operator, one k at a time
k_max, rate = stability.most_unstable(layer)
print(f"Ra at mid-layer {layer.rayleigh_number():.0f}; most unstable k = {k_max:.4f}, growth rate {rate:.5f}; "
      f"hydrostatic residual of the layer {layer.hydrostatic_residual:.1e}, thermal drift {layer.thermal_drift_rate():.1e}")
lam, vectors = layer.modes(k_max)
print("the next eigenvalues:", np.round(lam[1:4], 4))"""),
        ("code", """sim, layer, k, rate = stability.conv_slab(shape=SHAPE, backend=BACKEND, nu=NU, chi=CHI, amplitude=1e-5)
print(sim)
print("walls:", sim.boundaries)
t, ekin = [sim.t], [ac.analysis.energy_budget(sim)["kinetic"]]
t0 = time.time()
while sim.t < T_END:
    sim.run(until=min(T_END, sim.t + 0.5))
    t.append(sim.t)
    ekin.append(ac.analysis.energy_budget(sim)["kinetic"])
t, ekin = np.array(t), np.array(ekin)
measured = stability.growth_rate(t, ekin)
print(f"{sim.steps} steps in {time.time() - t0:.1f} s: growth rate {measured:.5f} measured, {rate:.5f} linear theory "
      f"({100 * (measured / rate - 1):+.2f} %); kinetic energy {ekin[0]:.2e} -> largest {ekin.max():.2e} at t = {t[ekin.argmax()]:.0f}")"""),
        ("code", """fig, axes = plt.subplots(1, 3, figsize=(16, 4.3))
axes[0].plot(ks, rates, "k-")
axes[0].axhline(0, color="gray", lw=0.5)
axes[0].plot([k_max], [rate], "ro")
axes[0].set_xlabel("horizontal wave number k"); axes[0].set_ylabel("growth rate"); axes[0].set_title("linear theory")
axes[1].semilogy(t, ekin, "k-", label=f"astaroth {SHAPE[0]}x{SHAPE[1]}x{SHAPE[2]}")
axes[1].semilogy(t, ekin[0] * np.exp(2 * rate * t), "r--", label=f"linear theory, $e^{{2 \\\\lambda t}}$, $\\\\lambda$ = {rate:.4f}")
axes[1].set_ylim(ekin.min() / 3, ekin.max() * 3)
axes[1].set_xlabel("t"); axes[1].set_ylabel(r"$\\langle \\rho u^2 / 2 \\rangle$"); axes[1].legend(); axes[1].set_title("kinetic energy")
uz = sim["uz"][:, SHAPE[1] // 2, :]
image = axes[2].imshow(uz.T, origin="lower", extent=(0, sim.box[0], 0, sim.box[2]), cmap="RdBu_r")
fig.colorbar(image, ax=axes[2], label="$u_z$")
axes[2].set_xlabel("x"); axes[2].set_ylabel("z"); axes[2].set_title(f"$u_z$ at t = {sim.t:g}")
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "convection.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
        ("markdown", "The kinetic energy follows $e^{2\\lambda t}$ over the linear phase (at $32 \\times 32$ the measured rate is within a fraction of a percent of the eigenvalue; $16 \\times 16$, CI's size, a few percent) until the rolls reach speeds of order $0.1$ and saturate. With $\\chi \\ne 0$ and `set` entropy, heat enters and leaves through the walls, so the total energy of `ac.analysis.energy_budget` is not constant here; with $\\chi = 0$ and stress-free walls it is (tests/test_walls_entropy.py)."),
    ],
    "sod_and_heating": [
        ("markdown", "# The energy equation: Sod's shock tube and turbulent heating\n\nWith `energy=\"entropy\"` astaroth evolves "
         "the specific entropy $s$ of an ideal gas (the Pencil Code's `entropy` module with `eos_idealgas`; "
         "`csrc/terms/entropy.h`). Two checks: (1) Sod's shock tube ($\\gamma = 1.4$, shock viscosity `nu_shock = "
         "2` with its heating) at three resolutions against the exact Riemann solution (`astaroth/riemann.py`, "
         "Toro ch. 4): the L1 errors fall at about first order; (2) forced turbulence heats up: in a closed "
         "periodic box the total energy $\\langle \\rho u^2/2 + \\rho c_v T\\rangle$ grows at the power the forcing "
         "puts in (`ac.analysis.forcing_power`, a mean over the random phases: the forcing's work against the flow "
         "is random, so one run scatters about it by tens of per cent; at 256³ on an H100 one run gave 1.29 of it, "
         "and six seeds at 16³ on the CPU gave 0.79–1.12, `benchmarks/results/2026-11-24-h100-instances/`), and "
         "the thermal energy takes up what viscosity dissipates."),
        ("code", COMMON + """
import sys, pathlib
from astaroth import riemann  # the exact Riemann solution (astaroth/riemann.py)
QUICK = os.environ.get("ASTAROTH_NOTEBOOK_QUICK") == "1\""""),
        ("code", """GAMMA, L, T_END = 1.4, 2.0, 0.25

def sod(n, nu_shock=2.0):
    # the tube twice on a periodic line: left state inside |x - 1| < 1/2, right state outside, jumps 2 dx wide
    sim = ac.Simulation(shape=(n, 1, 1), box=(L, 1.0, 1.0), dtype="float64", backend="cpu", energy="entropy",
                        gamma=GAMMA, cp=1.0, rho0=1.0, cs=math.sqrt(GAMMA), nu=0.0, nu_shock=nu_shock)
    x, dx = sim.x, L / n
    inside = 0.5 * (np.tanh((x - L / 4) / (2 * dx)) - np.tanh((x - 3 * L / 4) / (2 * dx)))
    rho = riemann.SOD_RIGHT[0] + (riemann.SOD_LEFT[0] - riemann.SOD_RIGHT[0]) * inside
    p = riemann.SOD_RIGHT[2] + (riemann.SOD_LEFT[2] - riemann.SOD_RIGHT[2]) * inside
    sim["lnrho"] = np.log(rho)[:, None, None]
    # ss of (rho, p): the ideal gas's cs2 = gamma p / rho = cs^2 exp(gamma ss / cp + (gamma - 1) ln(rho / rho0))
    sim["ss"] = ((np.log(GAMMA * p / rho / sim.cs ** 2) - (GAMMA - 1) * np.log(rho / sim.rho0)) / GAMMA)[:, None, None]
    sim.run(until=T_END, dt=T_END / math.ceil(T_END / (0.2 * dx / 2.2)))
    right, left = riemann.solution(x - 3 * L / 4, T_END), riemann.solution(L / 4 - x, T_END)
    upper = x >= L / 2
    exact = [np.where(upper, right[0], left[0]), np.where(upper, right[1], -left[1]), np.where(upper, right[2], left[2])]
    got = [np.exp(sim["lnrho"][:, 0, 0]), sim["ux"][:, 0, 0], ac.analysis.pressure(sim)[:, 0, 0]]
    return x, got, exact, [np.sum(np.abs(g - e)) * dx for g, e in zip(got, exact)]

sizes = [100, 200, 400]
runs = {n: sod(n) for n in sizes}
for n in sizes:
    print(f"N = {n}: L1 errors of rho, u, p = {np.round(runs[n][3], 4)}")
for q, name in enumerate(("rho", "u", "p")):
    e = [runs[n][3][q] for n in sizes]
    print(f"{name}: orders {np.round([math.log2(a / b) for a, b in zip(e, e[1:])], 2)}")"""),
        ("code", """fig, axes = plt.subplots(1, 3, figsize=(14, 4))
for q, (ax, name) in enumerate(zip(axes, ("density", "velocity", "pressure"))):
    x, got, exact, _ = runs[sizes[-1]]
    ax.plot(x, exact[q], "k-", lw=1, label="exact")
    for n in sizes:
        ax.plot(runs[n][0], runs[n][1][q], ".", ms=3, label=f"N = {n}")
    ax.set_xlim(1.0, 2.0); ax.set_xlabel("x"); ax.set_title(f"{name}, t = {T_END:g}")
axes[0].legend()
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "sod.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
        ("code", """N = 256 if GPU and not QUICK else 24
T_RUN = 20.0 if GPU and not QUICK else 2.0
sim = ac.Simulation(shape=(N, N, N), dtype="float64", backend=BACKEND, energy="entropy", nu=5e-3 if N > 64 else 2e-2,
                    chi=5e-3 if N > 64 else 2e-2)
sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=1)
power = ac.analysis.forcing_power(sim)
rows = []
t0 = time.time()
for i in range(21):
    if i:
        sim.run(until=T_RUN * i / 20)
    rows.append((sim.t, ac.analysis.kinetic_energy(sim), ac.analysis.thermal_energy(sim), ac.analysis.total_energy(sim)))
t, ekin, eth, etot = np.array(rows).T
rate = np.polyfit(t, etot - etot[0], 1)[0]
print(f"{N}^3, {sim.steps} steps in {time.time() - t0:.0f} s: d<E_total>/dt = {rate:.3g}, forcing power {power:.3g} "
      f"(ratio {rate / power:.2f}); thermal energy up by {eth[-1] - eth[0]:.3g}, kinetic energy {ekin[-1]:.3g}")"""),
        ("code", """fig, ax = plt.subplots(figsize=(6.5, 4.5))
ax.plot(t, etot - etot[0], "k-", label=r"$\\langle E_{total} \\rangle - E_0$")
ax.plot(t, eth - eth[0], "r-", label=r"$\\langle \\rho c_v T \\rangle$ - its start")
ax.plot(t, ekin, "b-", label=r"$\\langle \\rho u^2 / 2 \\rangle$")
ax.plot(t, power * t, "k:", label="forcing power x t")
ax.set_xlabel("t"); ax.set_ylabel("energy per unit volume"); ax.legend()
ax.set_title(f"Forced turbulence with entropy, {N}$^3$ ({BACKEND})")
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "turbulent_heating.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
    ],
    "dynamo_onset": [
        ("markdown", "# The onset of the helical dynamo: the critical magnetic Reynolds number\n\n"
         "At which magnetic Reynolds number does helically forced turbulence start to amplify a weak magnetic field? "
         "We take the Pencil Code's `helical-MHDturb` sample (Brandenburg 2001; the [helical dynamo](helical_dynamo.ipynb) "
         "notebook runs it): a $2\\pi$ box, isothermal with $c_s = 1$, $\\nu = 5\\times10^{-3}$, forcing of amplitude "
         "`f0` = 0.07 with relative helicity `relhel` = 1 on the sample's `k.dat` (60 wave vectors, mean $|k| = k_f = 2.44$), "
         "a seed field of random $A$ with rms $10^{-4}$ per component. We raise the magnetic diffusivity $\\eta$ until the field "
         "decays: one `ac.sweep` over $\\eta$ and the forcing's seed, every member an MHD run to the same end time.\n\n"
         "- $\\mathrm{Rm} = u_\\mathrm{rms} / (\\eta k_f)$ with $u_\\mathrm{rms}$ averaged over the fit window "
         "(`ac.analysis.reynolds_numbers` defines it so); the velocity does not feel the weak field, so $u_\\mathrm{rms} "
         "\\approx 0.27$ in every member and $\\mathrm{Rm}$ goes as $1/\\eta$ ($\\mathrm{Pm} = \\nu/\\eta$ changes with it).\n"
         "- The growth rate $\\lambda$ of the magnetic energy $E_M = \\langle B^2 \\rangle / 2\\mu_0$ is the slope of "
         "$\\ln E_M$ over the last two thirds of the run (the first third lets the seed's small scales decay).\n"
         "- $\\mathrm{Rm}_c$ is where a straight line through $\\lambda$ against $\\ln \\mathrm{Rm}$ (all members) crosses "
         "zero; its uncertainty comes from a bootstrap over the seeds (each $\\eta$'s seeds drawn with replacement, 2000 times).\n\n"
         "Sizes: the sample's $32^3$, on a CPU 6 values of $\\eta$ and 3 seeds to $t = 300$, on a GPU 8 values and 4 seeds "
         "to $t = 400$ (`ASTAROTH_ONSET_N` sets another size); `ASTAROTH_NOTEBOOK_QUICK=1` (what CI runs) a few members at "
         "$8^3$ to $t = 12$, too short for a growth rate. The stored outputs are from the run their first lines name "
         "(backend, grid, wall-clock time): a CPU run, or after `scripts/dynamo_onset_gpu.sh` (the notebook run on a GPU "
         "and stored) a GPU run. `ASTAROTH_ONSET_DIR` keeps "
         "the sweep's run directory: a second run reads the finished members instead of running them again."),
        ("code", COMMON + """
import tempfile
import pandas as pd
QUICK = os.environ.get("ASTAROTH_NOTEBOOK_QUICK") == "1\""""),
        ("code", """if QUICK:
    N, ETAS, SEEDS, T_END = 8, [0.03, 0.05, 0.08], [1, 2], 12.0
elif GPU:
    N = int(os.environ.get("ASTAROTH_ONSET_N", "32"))
    ETAS, SEEDS, T_END = [0.018, 0.021, 0.024, 0.028, 0.032, 0.037, 0.043, 0.05], [1, 2, 3, 4], 400.0
else:
    N, ETAS, SEEDS, T_END = 32, [0.02, 0.025, 0.03, 0.035, 0.04, 0.045], [1, 2, 3], 300.0


def make(eta, seed):
    \"\"\"One member: the helical-MHDturb sample with magnetic diffusivity eta, forcing and seed field from `seed`.\"\"\"
    sim = ac.Simulation(shape=(N, N, N), box=(2 * math.pi,) * 3, nu=5e-3, eta=eta, cs=1.0, dtype="float64",
                        physics="mhd", backend=BACKEND)
    sim.forcing = ac.Forcing(kmin=2.1, kmax=2.9, f0=0.07, seed=seed, relhel=1.0)  # the sample's k.dat
    rng = np.random.default_rng(seed)
    for name in ("ax", "ay", "az"):
        sim[name] = 1e-4 * rng.standard_normal(sim.shape)  # the sample's gaussian-noise seed, amplaa = 1e-4
    return sim


rundir = os.environ.get("ASTAROTH_ONSET_DIR") or os.path.join(tempfile.mkdtemp(prefix="dynamo_onset-"), "sweep")
start = time.perf_counter()
table = ac.sweep(make, {"eta": ETAS, "seed": SEEDS}, until=T_END, rundir=rundir, every=T_END / 150, progress=False)
wall = time.perf_counter() - start
members = len(ETAS) * len(SEEDS)
print(f"the sweep: {members} members at {N}^3 to t = {T_END:g} on {BACKEND}, {wall:.0f} s of wall-clock time "
      f"({wall / members:.1f} s a member, {table[table.final].it.sum()} steps in all)")
print(table[table.final][["eta", "seed", "status", "it", "t", "urms", "brms"]].to_string(index=False))"""),
        ("code", """kf = ac.Forcing(kmin=2.1, kmax=2.9).mean_k  # the k_f of Rm = urms / (eta kf): 2.44
fit_from = T_END / 3
rows = []
for (eta, seed), run in table.groupby(["eta", "seed"]):
    late = run[run.t >= fit_from]
    rate = np.polyfit(late.t, np.log(late.b2m), 1)[0] if run.status.iloc[-1] == "done" else np.nan
    rows.append((eta, seed, late.urms.mean() / (eta * kf), rate))
rates = pd.DataFrame(rows, columns=["eta", "seed", "Rm", "rate"]).dropna()  # a member that blew up has no rate
by_eta = rates.groupby("eta").agg(Rm=("Rm", "mean"), rate=("rate", "mean"), err=("rate", "sem"), seeds=("rate", "size"))
print(by_eta.to_string(float_format=lambda v: f"{v:.4f}"))


def crossing(x, y):
    \"\"\"Where the least-squares line through (x, y), x = ln Rm, crosses zero, as Rm (nan where it falls), and
    its slope; along the last axis.\"\"\"
    xm, ym = x.mean(-1, keepdims=True), y.mean(-1, keepdims=True)
    slope = ((x - xm) * (y - ym)).sum(-1) / ((x - xm) ** 2).sum(-1)
    with np.errstate(all="ignore"):
        return np.where(slope > 0, np.exp(xm[..., 0] - ym[..., 0] / slope), np.nan), slope


rm_c, slope = (float(v) for v in crossing(np.log(rates.Rm.to_numpy()), rates.rate.to_numpy()))
# the bootstrap: each eta's seeds drawn with replacement, 2000 times, and the line fitted again
rng = np.random.default_rng(0)
groups = [group for _, group in rates.groupby("eta")]
picks = [rng.integers(0, len(group), size=(2000, len(group))) for group in groups]
boot = crossing(np.concatenate([np.log(g.Rm.to_numpy())[p] for g, p in zip(groups, picks)], axis=-1),
                np.concatenate([g.rate.to_numpy()[p] for g, p in zip(groups, picks)], axis=-1))[0]
found = np.isfinite(boot) & (boot > rates.Rm.min() / 2) & (boot < 2 * rates.Rm.max())
low, mid, high = np.percentile(boot[found], [16, 50, 84]) if found.any() else (np.nan,) * 3
inside = rates.Rm.min() <= rm_c <= rates.Rm.max()
print(f"d rate / d ln Rm = {slope:.4f}; Rm_c = {rm_c:.3g} (bootstrap over the seeds: median {mid:.3g}, 68 % between "
      f"{low:.3g} and {high:.3g}; {found.mean():.0%} of the resamples cross within a factor 2 of the swept Rm)"
      + ("" if inside else "; the crossing lies outside the swept Rm: too few or too short runs to tell"))
print(f"mean-field estimate (second-order correlation approximation, below): Rm_c = {math.sqrt(3 / (kf - 1)):.2f} "
      f"for kf = {kf:.2f}, {math.sqrt(3 / 4):.2f} for the kf = 5 of Brandenburg (2001)")"""),
        ("code", """fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
ax = axes[0]
ax.plot(rates.Rm, rates.rate, ".", color="gray", alpha=0.6, label="each member")
ax.errorbar(by_eta.Rm, by_eta.rate, yerr=by_eta.err, fmt="o", color="k", capsize=3, label="mean over seeds, standard error")
if np.isfinite(rm_c):
    r = np.geomspace(min(rates.Rm.min(), rm_c), max(rates.Rm.max(), rm_c), 50)
    ax.plot(r, slope * np.log(r / rm_c), "r-", label=f"fit: Rm$_c$ = {rm_c:.2f}")
    if np.isfinite(low):
        ax.axvspan(low, high, color="r", alpha=0.15, label=f"68 % bootstrap: {low:.2f}-{high:.2f}")
ax.axhline(0, color="gray", lw=0.8)
ax.set_xscale("log")
for axis in (ax.xaxis.set_major_formatter, ax.xaxis.set_minor_formatter):
    axis(plt.FormatStrFormatter("%g"))  # 2, 3, 4, 5: the swept Rm spans less than a decade
ax.set_xlabel(r"Rm = $u_\\mathrm{rms} / (\\eta k_f)$"); ax.set_ylabel(r"growth rate of $E_M$")
ax.set_title(f"{N}$^3$, {len(SEEDS)} seeds per $\\\\eta$ ({BACKEND})"); ax.legend(fontsize=8)
ax = axes[1]
colors = plt.cm.viridis(np.linspace(0, 0.9, len(ETAS)))
for (eta, seed), run in table.groupby(["eta", "seed"]):
    ax.semilogy(run.t, run.b2m / 2, color=colors[ETAS.index(eta)], lw=1, label=f"$\\\\eta$ = {eta:g}" if seed == SEEDS[0] else None)
ax.axvspan(fit_from, T_END, color="gray", alpha=0.1, label="fit window")
ax.set_xlabel("t"); ax.set_ylabel(r"$E_M = \\langle B^2 \\rangle / 2\\mu_0$"); ax.legend(fontsize=7, ncol=2)
ax.set_title("magnetic energy of every member")
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "dynamo_onset.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
        ("markdown", "## What the published runs say, and what differs\n\n"
         "Brandenburg (2001, ApJ 550, 824) studies this dynamo's growth and saturation with forcing at $k_f = 5$ (twice our "
         "scale separation), $\\nu = \\eta$ ($\\mathrm{Pm} = 1$) in most runs, with the same "
         "definition $\\mathrm{Rm} = u_\\mathrm{rms}/(\\eta k_f)$; the Pencil Code's `samples/helical-MHDturb` runs at "
         "$\\nu = \\eta = 5\\times10^{-3}$ on $32^3$ with $k_f = 2.44$, i.e. $\\mathrm{Rm} \\approx 23$, several times "
         "the threshold found here. For the threshold itself we compare with mean-field theory, which "
         "describes this $\\alpha^2$ dynamo of the box-scale field ($k_1 = 1$): it grows at $\\lambda = \\alpha k_1 - (\\eta + "
         "\\eta_t) k_1^2$. In the second-order correlation approximation (Moffatt 1978; Krause & Rädler 1980), with "
         "correlation time $1/(\\eta k_f^2)$ at low Rm and a fully helical flow ($\\langle \\omega \\cdot u \\rangle = k_f "
         "u_\\mathrm{rms}^2$), $\\alpha = u_\\mathrm{rms} \\mathrm{Rm}/3$ and $\\eta_t = \\eta \\mathrm{Rm}^2/3$, so "
         "$\\lambda = 0$ at $\\mathrm{Rm}_c = \\sqrt{3/(k_f/k_1 - 1)}$: 1.44 for our $k_f = 2.44$, 0.87 for $k_f = 5$ "
         "(printed above). That approximation holds only for $\\mathrm{Rm} \\ll 1$ and leaves out the turbulence's "
         "spread of scales and times; a threshold of a few, as found here, says that it overestimates $\\alpha$ near onset.\n\n"
         "What differs from the published setups, and why it matters:\n\n"
         "- **Forcing wave number.** $k_f = 2.44$ (the sample's `k.dat`), not 5: less scale separation, so the box-scale "
         "mode is harder to excite and $\\mathrm{Rm}_c$ is larger (mean-field theory: $\\propto (k_f/k_1 - 1)^{-1/2}$).\n"
         "- **Rm's definition.** $\\mathrm{Rm} = u_\\mathrm{rms}/(\\eta k_f)$ with the forcing set's mean $|k|$, as in "
         "Brandenburg (2001); definitions with $k_1$ or $2\\pi/k_f$ give values 2.44 or $2\\pi$ times larger.\n"
         "- **Magnetic Prandtl number.** $\\nu$ is held at the sample's $5\\times10^{-3}$ so that the flow is the same in every "
         "member; near onset $\\mathrm{Pm} = \\nu/\\eta \\approx 0.1$–$0.25$, not 1.\n"
         "- **Resolution and time.** $32^3$, the sample's resolution; at these low Rm the "
         "magnetic field is smooth, but the flow ($\\mathrm{Re} \\approx 23$) is only just resolved "
         "(`ASTAROTH_ONSET_N=64` on a GPU checks it). Near onset the growth rates are small and fluctuate with the forcing's "
         "realisation (the seeds' $u_\\mathrm{rms}$ differ by 20 %), so the run length and the number of seeds set the "
         "error bar.\n"
         "- **Time step and forcing normalisation.** As in the helical dynamo notebook: the CFL step instead of the sample's "
         "fixed `dt`, each forcing step normalised by the drawn $|k|$ rather than the set's mean."),
    ],
    "mri": [
        ("markdown", "# The magnetorotational instability: from linear growth to the nonlinear shearing box\n\nA Keplerian "
         "shearing box (`omega=(0, 0, 1)`, `qshear=1.5`: shear $S = -\\tfrac32\\Omega$, "
         "[docs/guide/rotation.md](../docs/guide/rotation.md)), isothermal with $c_s = \\Omega = \\rho_0 = \\mu_0 = "
         "1$, threaded by a uniform vertical field $B_0$ (`b_ext`). Ideal linear theory (Balbus & Hawley 1991, ApJ "
         "376, 214; `astaroth/shearing.py`): axisymmetric modes $k_z$ grow for $k v_A < \\sqrt{2q}\\,\\Omega$, "
         "fastest at $k v_A = \\tfrac{\\sqrt{15}}{4}\\Omega$ with rate $\\tfrac34\\Omega$; $\\nu = \\eta$ lowers every "
         "rate by $\\nu k^2$.\n\n1. **The dispersion relation.** The growing eigenmode of one $k_z$ "
         "(`shearing.seed_mri_mode`) in a thin column ($4\\times4\\times64$ points, as `scripts/mri_fastest_mode.py` "
         "does), its rate the slope of `shearing.mode_amplitude`, against the theory's root for several $k "
         "v_A$.\n2. **The box.** $L = (1, 4, 1)$, $32\\times128\\times32$ points on a CPU to $t = 60$ (about 10 "
         "orbits; 420 s of wall-clock time at most), $128\\times512\\times128$ to $t = 150$ on a GPU (in single "
         "precision, `ASTAROTH_MRI_WALL` seconds of wall-clock time at most, 3000 unless set; `scripts/mri_gpu.sh` "
         "runs the notebook there and stores it), through `sim.run` half a time unit at a time; a run whose time "
         "step collapses (half a time unit taking more than 20 times the steps it took at the start) is stopped "
         "and says so, $B_0$ such that the fastest wavelength is $L_z/6$ (plasma $\\beta = 2 c_s^2/v_A^2 \\approx "
         "3000$: a weak field, so that the box-scale channel is not the only unstable mode), $\\nu = \\eta = "
         "3\\times10^{-4}$ and hyperdiffusion of $u$ and $\\ln\\rho$ (`nu_hyper3 = diff_hyper3` $= 10^{-10}$: a "
         "damping rate of 1 at $k \\approx 46$, half the Nyquist wave number $\\pi/\\delta x$ of the CPU grid, scaled "
         "as $\\delta x^6$ on others; without it a trial run stalled at $t \\approx 23$, its time step collapsing), "
         "shock viscosity (`nu_shock = 1`, the Pencil Code's `nu_shock`: the box's channel flows turn supersonic and "
         "steepen into shocks that central differences alone cannot hold, `benchmarks/results/2026-11-28-cpu-mri-blowup`), "
         "seeded with non-axisymmetric random velocity of rms $0.05\\,c_s$. We follow the magnetic energy's linear "
         "growth, then the Maxwell stress $\\langle -B_x B_y\\rangle/\\mu_0$ and the Reynolds stress $\\langle \\rho "
         "u_x u_y \\rangle$ (box averages), and $\\alpha = $ (their sum)$/(\\rho_0 "
         "c_s^2)$.\n\n`ASTAROTH_NOTEBOOK_QUICK=1` (what CI runs) takes $8\\times32\\times8$ points to $t = 3$: no "
         "physics, only the code path. The stored outputs are from the run their lines name (backend, grid, "
         "wall-clock time)."),
        ("code", """import math, os, time
import numpy as np
import matplotlib.pyplot as plt
import astaroth as ac

GPU = "cuda" in ac.backends() and "cuda" in next(
    t for t in ac.terms() if t["name"] == "shear")["backends"]  # a GPU that runs the shearing box
BACKEND = "cuda" if GPU else "cpu"
FIGURES = os.environ.get("ASTAROTH_FIGURES")  # where to save the figure as PNG, if set
print("backends:", ac.backends(), "-> running on", BACKEND)
from astaroth import shearing
QUICK = os.environ.get("ASTAROTH_NOTEBOOK_QUICK") == "1\""""),
        ("code", """OMEGA, Q = 1.0, 1.5
# 1. the dispersion relation in a thin column: seeded eigenmodes of kz = 2 pi n / Lz, n = 1, ideal
NZ_COL, T_COL = (16, 2.0) if QUICK else (64, 8.0)
K_VA = [0.4, 0.8, shearing.fastest_k_va(OMEGA, Q), 1.3, 1.6]
column = []
start = time.perf_counter()
for k_va in K_VA:
    sim = ac.Simulation(shape=(4, 4, NZ_COL), box=(4 / NZ_COL, 4 / NZ_COL, 1.0), nu=0.0, eta=0.0, cs=1.0, physics="mhd",
                        b_ext=(0, 0, k_va / (2 * math.pi)), omega=(0, 0, OMEGA), qshear=Q, backend=BACKEND)
    expected = shearing.seed_mri_mode(sim, 1, 1e-6, OMEGA, Q)
    times = np.arange(1.0, T_COL + 1e-9, 0.25)
    amplitude = []
    for t in times:
        sim.run(until=t)
        amplitude.append(shearing.mode_amplitude(sim, 1))
    column.append((k_va, expected, np.polyfit(times, np.log(amplitude), 1)[0]))
    print(f"k vA = {k_va:.3f}: rate {column[-1][2]:.4f}, theory {expected:.4f} ({column[-1][2] / expected - 1:+.1e})")
print(f"columns: {time.perf_counter() - start:.0f} s")"""),
        ("code", """# 2. the box: 32 x 128 x 32 points on a CPU, 128 x 512 x 128 on a GPU
if QUICK:
    SHAPE, T_END, WALL = (8, 32, 8), 3.0, 60.0
elif GPU:  # single precision: twice the double's speed, round-off far below the turbulence's own scatter
    SHAPE, T_END, WALL = (128, 512, 128), 150.0, float(os.environ.get("ASTAROTH_MRI_WALL", 3000))
else:
    SHAPE, T_END, WALL = (32, 128, 32), 60.0, 420.0  # WALL: seconds of wall-clock time the run may take
DTYPE = "float32" if GPU and not QUICK else "float64"
BOX, N_FASTEST, NU, U0, NU_SHOCK = (1.0, 4.0, 1.0), 6, 3e-4, 0.05, 1.0
HYPER = 1e-10 * (32 / SHAPE[2]) ** 6  # the same damping at the same fraction of the Nyquist wave number
B0 = shearing.fastest_k_va(OMEGA, Q) / (2 * math.pi * N_FASTEST)  # fastest wavelength Lz / 6
sim = ac.Simulation(shape=SHAPE, box=BOX, origin=tuple(-b / 2 for b in BOX), nu=NU, eta=NU, cs=1.0, physics="mhd",
                    b_ext=(0, 0, B0), omega=(0, 0, OMEGA), qshear=Q, nu_hyper3=HYPER, diff_hyper3=HYPER, nu_shock=NU_SHOCK,
                    backend=BACKEND, dtype=DTYPE)
ac.init.random_velocity(sim, urms=U0, seed=1)
print(f"B0 = {B0:.4f}, beta = {2 / B0**2:.0f}: the ideal fastest mode is n = {N_FASTEST} "
      f"({SHAPE[2] / N_FASTEST:.1f} points a wavelength); Elsasser number vA^2 / (eta Omega) = {B0**2 / NU:.1f}")
MODES = np.arange(1, SHAPE[2] // 4 + 1)  # the axisymmetric modes kz = 2 pi n / Lz followed in the linear phase
rows, modes = [], []
start = time.perf_counter()
dt0, stopped = sim.cfl_dt(), None
most = int(0.5 / (dt0 / 20)) + 1  # steps half a time unit takes at 1/20 of the initial time step
for t in np.arange(0.5, T_END + 1e-9, 0.5):
    sim.run(until=t, nt=most)  # CFL steps in the backend's loop; stops a run whose time step collapses
    if sim.t < t - 1e-12:
        stopped = (f"half a time unit took more than {most} steps (a mean time step below 1/20 of the initial one) "
                   f"at t = {sim.t:.2f}")
        break
    bx, by, bz = ac.analysis.magnetic_field(sim)  # on the GPU under CuPy, device arrays: float() of their means
    rho = np.exp(sim["lnrho"])
    rows.append((t, float(np.mean(-bx * by)) / sim.mu0, float(np.mean(rho * sim["ux"] * sim["uy"])),
                 float(np.mean(bx**2 + by**2 + (bz - B0)**2)) / (2 * sim.mu0), ac.analysis.rms(sim, "u"), sim.cfl_dt()))
    modes.append(shearing.mode_amplitudes(sim, MODES))
    if time.perf_counter() - start > WALL:
        stopped = f"its {WALL:g} s of wall-clock time ran out at t = {sim.t:.2f}"
        break
ts, modes = np.array(rows), np.array(modes)
wall = time.perf_counter() - start
T_END = ts[-1, 0]
print((f"the run stopped: {stopped}; " if stopped else "") +
      f"{SHAPE[0]} x {SHAPE[1]} x {SHAPE[2]} to t = {T_END:g} ({T_END / (2 * math.pi):.1f} orbits) on {BACKEND}: "
      f"{sim.steps} steps, {wall:.0f} s of wall-clock time; time step from {ts[0, 5]:.2e} to {ts[-1, 5]:.2e}")"""),
        ("code", """t, maxwell, reynolds, em, urms = ts[:, 0], ts[:, 1], ts[:, 2], ts[:, 3], ts[:, 4]
# the linear phase: from t = 2 (the seed's decaying part gone) until urms has doubled
t_nl = t[np.argmax(urms > 2 * urms[0])] if (urms > 2 * urms[0]).any() else T_END
window = (t >= 2.0) & (t <= t_nl)
theory = np.array([shearing.mri_eigenmode(2 * math.pi * n / BOX[2], B0, OMEGA, Q, NU, NU)[0] for n in MODES])
measured = np.array([np.polyfit(t[window], np.log(modes[window, i]), 1)[0] if window.sum() >= 4 else np.nan
                     for i in range(len(MODES))])
n_fast = MODES[np.argmax(theory)]
print(f"linear phase t in [2, {t_nl:g}]; the axisymmetric modes' rates (slope of ln shearing.mode_amplitude) against "
      f"the viscous theory (shearing.mri_eigenmode, nu = eta = {NU:g}):")
for n, k_va, s_th, s_me in zip(MODES, 2 * math.pi * MODES / BOX[2] * B0, theory, measured):
    print(f"  n = {n:2d}, k vA = {k_va:.3f}: measured {s_me:+.3f}, theory {s_th:+.3f}" + ("  <- fastest" if n == n_fast else ""))
# the nonlinear phase: from the first time the Maxwell stress reaches half its mean over the last half of the run
late = t >= T_END / 2
onset = t[np.argmax(maxwell >= 0.5 * maxwell[late].mean())]
saturated = (t >= onset + 2 * math.pi).sum() >= 4  # an orbit after the onset, at least 2 time units long
sat = t >= onset + 2 * math.pi if saturated else t >= onset  # else: the whole nonlinear phase, not saturated
alpha_m, alpha_r = maxwell[sat].mean() / (1.0 * 1.0**2), reynolds[sat].mean() / (1.0 * 1.0**2)  # rho0 cs^2 = 1
halves = np.array_split(maxwell[sat] + reynolds[sat], 2)
drift = halves[1].mean() / halves[0].mean() - 1
print(f"nonlinear from t = {onset:.1f}; " + ("" if saturated else "NOT SATURATED: the run ended before an orbit had passed; ")
      + f"averaged over t in [{t[sat][0]:.1f}, {T_END:g}] ({(T_END - t[sat][0]) / (2 * math.pi):.1f} orbits): "
      f"alpha_Maxwell = {alpha_m:.4f}, alpha_Reynolds = {alpha_r:.4f}, alpha = {alpha_m + alpha_r:.4f}, "
      f"Maxwell / Reynolds = {alpha_m / alpha_r:.2f}; the second half of that window differs from the first by "
      f"{drift:+.0%}; urms = {urms[sat].mean():.3f} cs")
print(f"at the end (t = {T_END:g}): Maxwell {maxwell[-1]:.4f}, Reynolds {reynolds[-1]:.4f}, alpha {maxwell[-1] + reynolds[-1]:.4f}, "
      f"Maxwell / Reynolds {maxwell[-1] / reynolds[-1]:.2f}, magnetic energy of the fluctuations {em[-1]:.4f} "
      f"(thermal pressure 1), urms {urms[-1]:.3f} cs")"""),
        ("code", """orbits = t / (2 * math.pi)
fig, axes = plt.subplots(1, 3, figsize=(16, 4.5), gridspec_kw={"width_ratios": [1, 1.3, 1.3]})
ax = axes[0]
kv = np.linspace(0.01, math.sqrt(2 * Q) * 1.05, 200)
ax.plot(kv, [shearing.mri_growth_rate(k, OMEGA, Q) for k in kv], "k-", label="Balbus & Hawley (1991)")
kz = kv / B0
ax.plot(kv, [shearing.mri_growth_rate(k, OMEGA, Q) - NU * q**2 for k, q in zip(kv, kz)], "k--", lw=1,
        label=f"with $\\\\nu = \\\\eta$ = {NU:g} (the box)")
ax.plot([c[0] for c in column], [c[2] for c in column], "o", color="C0", mfc="none", ms=9, label="eigenmode in a column (ideal)")
ax.plot(2 * math.pi * MODES / BOX[2] * B0, measured, "s", color="C3", label=f"the box's modes $n$ = 1-{MODES[-1]}, t in [2, {t_nl:g}]")
ax.set_xlabel(r"$k v_A / \\Omega$"); ax.set_ylabel(r"growth rate $/ \\Omega$"); ax.set_ylim(-0.1, 0.8)
ax.set_title("linear growth"); ax.legend(fontsize=8)
ax = axes[1]
ax.semilogy(orbits, np.abs(maxwell), "C3", label=r"Maxwell $\\langle -B_x B_y \\rangle / \\mu_0$")
ax.semilogy(orbits, np.abs(reynolds), "C0", label=r"Reynolds $\\langle \\rho u_x u_y \\rangle$")
ax.semilogy(orbits, em, "k:", label=r"$\\langle b^2 \\rangle / 2\\mu_0$")
ax.semilogy(orbits, modes[:, n_fast - 1], "C2", lw=1, label=f"mode n = {n_fast} (the fastest)")
if window.any():
    tw = t[window]
    ax.semilogy(tw / (2 * math.pi), modes[window, n_fast - 1][0] * np.exp(theory.max() * (tw - tw[0])), "g--", lw=2,
                label=f"$e^{{st}}$, s = {theory.max():.3f} (theory)")
ax.set_xlabel("t (orbits)"); ax.set_ylabel(r"stress, energy $/ \\rho_0 c_s^2$; mode amplitude $/ c_s$"); ax.legend(fontsize=8)
ax.set_title(f"{SHAPE[0]}x{SHAPE[1]}x{SHAPE[2]}, $\\\\beta$ = {2 / B0**2:.0f}, $\\\\nu = \\\\eta$ = {NU:g} ({BACKEND})")
ax = axes[2]
ax.plot(orbits, maxwell, "C3", label="Maxwell")
ax.plot(orbits, reynolds, "C0", label="Reynolds")
ax.plot(orbits, maxwell + reynolds, "k", lw=1.5, label=r"total: $\\alpha\\,\\rho_0 c_s^2$")
ax.axvspan(t[sat][0] / (2 * math.pi), orbits[-1], color="gray", alpha=0.12,
           label=("average" if saturated else "nonlinear phase, not saturated")
           + f": $\\\\alpha$ = {alpha_m + alpha_r:.3f}, M/R = {alpha_m / alpha_r:.1f}")
ax.axhline(alpha_m + alpha_r, color="k", ls="--", lw=0.8)
ax.set_xlabel("t (orbits)"); ax.set_ylabel(r"stress $/ \\rho_0 c_s^2$"); ax.legend(fontsize=8)
ax.set_title("the nonlinear phase")
fig.tight_layout()
if FIGURES:
    fig.savefig(os.path.join(FIGURES, "mri.png"), dpi=110, bbox_inches="tight")
plt.show()"""),
        ("markdown", "## What this run shows, what the published runs say, and what differs\n\nThe stored outputs are from a GPU "
         "(an H200; `benchmarks/results/2026-11-28-gpu-shear-shock/mri-h200-681ad8d.log`), given 500 s of wall-clock "
         "time: the run reached $t = 131.5$ (20.9 orbits, 117,202 steps in 501 s, 4.3 ms a step with the rows; "
         "`step_cost.py` there: 3.4 ms a step of `sim.run` alone, 1.95 ms without shock viscosity), its time step "
         "between $1.7\\times10^{-3}$ and $10^{-3}$ throughout.\n\n- **Linear phase.** The eigenmodes in the column "
         "grow at the Balbus & Hawley (1991) root to $5\\times10^{-9}$. In the box, from random noise, the "
         "axisymmetric modes $n = 1$-$3$ grow at 0.9-1.1 of the viscous theory's rates, $n = 4$-$5$ (the theory's "
         "fastest: $\\nu k^2$ moves it from the ideal $n = 6$ to $n = 4$) at 0.72 (the fit starts at $t = 2$, while "
         "the seed's non-growing parts still weigh in). Modes with $k v_A \\gtrsim 1$ ($n \\ge 7$) grow although "
         "their own rate is negative: they are driven by products of the growing modes ($n + m$), not by the "
         "instability.\n- **Nonlinear phase.** The stresses rise from $t \\approx 17.5$ (2.8 orbits) and from 3.8 "
         "orbits on fluctuate about a steady level: averaged over orbits 3.8-20.9, $\\alpha = 0.051$ "
         "(Maxwell 0.041, Reynolds 0.0095), the Maxwell stress 4.4 times the Reynolds stress, $u_{rms} = 0.27\\,c_s$; "
         "the stress swings between 0.025 and 0.09 over a few orbits (the channel flows forming and breaking up), "
         "so the two halves of the window differ by 20 %. Without shock viscosity the same box collapsed at "
         "8.7 orbits (`benchmarks/results/2026-11-28-h100-shock-schedule/mri-h200-sim-run-49cc253.log`): its channel "
         "flow turned supersonic and steepened into shocks that the central differences cannot hold "
         "(`benchmarks/results/2026-11-28-cpu-mri-blowup`); with `nu_shock = 1` (the profile takes the shifted x "
         "images on the GPU as on the CPU, `tests/test_shear_gpu.py`) it runs on.\n- **Published values.** Hawley, "
         "Gammie & Balbus (1995, ApJ 440, 742), ideal MHD shearing boxes with the ZEUS code (which carries an "
         "artificial viscosity at shocks, as `nu_shock` does here), find for a net vertical field a total $\\alpha$ "
         "of order 0.1-0.5, growing with the field strength, and the Maxwell stress several times the Reynolds "
         "stress. Our ratio (4.4) lies in that range; our $\\alpha = 0.05$ lies below theirs, for a field weaker "
         "than theirs ($\\beta \\approx 3000$) and with explicit dissipation.\n\nWhat differs from their runs: an "
         "isothermal gas, explicit $\\nu = \\eta = 3\\times10^{-4}$ (magnetic Prandtl number 1, $c_s L_z/\\eta "
         "\\approx 3300$) with hyperdiffusion of $u$ and $\\ln\\rho$ (none of $A$: the package has no magnetic "
         "hyperdiffusion) and shock viscosity, where theirs are ideal with numerical dissipation alone (in such boxes "
         "$\\alpha$ grows with the magnetic Prandtl and Reynolds numbers: Lesur & Longaretti 2007, MNRAS 378, 1471); "
         "a box of $(1, 4, 1)$ at 128 points per $L_z = H = c_s/\\Omega$ against their $(1, 2\\pi, 1)$ at 32 or 64 "
         "per $H$; and 21 orbits against their tens to a hundred, so our mean carries the channels' swings (20 % "
         "between the halves)."),
    ],
}

# --keep-outputs: carry each code cell's stored outputs over from the notebook there now (for a change
# that leaves them valid, e.g. to a branch the stored run did not take); otherwise they start empty
KEEP = "--keep-outputs" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--keep-outputs"]
if "--out" in ARGS:  # another folder, e.g. to compare with the stored notebooks
    at = ARGS.index("--out")
    OUT = ARGS[at + 1]
    del ARGS[at:at + 2]
NAMES = ARGS
for name, cells in NOTEBOOKS.items():
    if NAMES and name not in NAMES:
        continue
    path = os.path.join(OUT, f"{name}.ipynb")
    stored = {c["id"]: c for c in json.load(open(path))["cells"]} if KEEP and os.path.exists(path) else {}
    nb = {"cells": [], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                    "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    for i, (kind, src) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"{name}-{i}", "metadata": {}, "source": src.splitlines(keepends=True)}
        if kind == "code":
            old = stored.get(cell["id"], {})
            cell.update(execution_count=old.get("execution_count"), outputs=old.get("outputs", []))
        nb["cells"].append(cell)
    with open(path, "w") as f:
        json.dump(nb, f, indent=1)
        f.write("\n")
    print("wrote", name)
