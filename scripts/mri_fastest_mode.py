"""The linear growth of the magnetorotational instability in a Keplerian shearing box (q = 3/2,
Omega = 1, cs = 1, rho0 = mu0 = 1, no viscosity or resistivity) threaded by a vertical field B0,
against the linear theory of astaroth/shearing.py (Balbus & Hawley 1991, ApJ 376, 214).

The modes are axisymmetric (kz along z only), so the grid needs few points across: 4 x 4 x 64
points in a box (4/64, 4/64, 1) (dx = dy = dz; the shear code needs 3 or more points along x).
64 points span Lz = 1.  For each case the growing eigenmode kz = 2 pi n / Lz is seeded at a
velocity amplitude of 1e-6 (astaroth.shearing.seed_mri_mode) and its amplitude in the horizontal
means (astaroth.shearing.mode_amplitude) is sampled every 0.25 to t = 8 (e^6 of growth at 3/4 Omega,
still linear); the rate is the least-squares slope of its log over t >= 1.

  - the fastest mode: B0 chosen so that k vA = sqrt(15)/4 (n = 1; and n = 2 with B0 halved, 32
    points a wavelength): rate 3/4 Omega, required within 1 %;
  - modes of given k vA = 0.5 and 1.5 (n = 1): the root of the dispersion relation, within 2 %;
  - a random axisymmetric seed (white noise in ux(z), uy(z), every kz) with B0 making n = 1 the
    fastest mode (n >= 2 are then stable, k vA > sqrt(3) Omega): the rate over t in
    [4, 12] in the n = 1 mode's amplitude (its projection starts at 1/20 of the noise's rms), against
    3/4 Omega (no requirement: the decaying root's part still adds a little early on).

usage: python scripts/mri_fastest_mode.py   (exits 1 if a required tolerance fails)
"""
import math
import platform
import subprocess
import sys
import time

import numpy as np

import astaroth as ac
from astaroth import shearing

OMEGA, Q, NZ, T_END = 1.0, 1.5, 64, 8.0


def box_run(b0):
    return ac.Simulation(shape=(4, 4, NZ), box=(4 / NZ, 4 / NZ, 1.0), nu=0.0, eta=0.0, cs=1.0, physics="mhd",
                         b_ext=(0.0, 0.0, b0), omega=(0, 0, OMEGA), qshear=Q, backend="cpu")


def slope(t, values):
    return float(np.polyfit(t, np.log(values), 1)[0])


def eigenmode_rate(n, k_va):
    """(measured, expected) rate of the seeded eigenmode kz = 2 pi n with k vA = k_va."""
    k = 2 * math.pi * n
    sim = box_run(k_va / k)
    expected = shearing.seed_mri_mode(sim, n, 1e-6, OMEGA, Q)
    times = np.arange(0.25, T_END + 1e-9, 0.25)
    amplitudes = []
    for t in times:
        sim.run(until=t)
        amplitudes.append(shearing.mode_amplitude(sim, n))
    late = times >= 1.0
    return slope(times[late], np.array(amplitudes)[late]), expected, sim.steps


def noise_rate():
    """The n = 1 mode's rate from axisymmetric white noise, B0 making it the fastest mode."""
    sim = box_run(shearing.fastest_k_va(OMEGA, Q) / (2 * math.pi))
    rng = np.random.default_rng(1)
    for name in ("ux", "uy"):  # axisymmetric: a function of z only
        sim[name] = 1e-6 * rng.standard_normal(NZ)[None, None, :] * np.ones(sim.shape)
    times = np.arange(4.0, 12.0 + 1e-9, 0.25)
    amplitudes = []
    for t in times:
        sim.run(until=t)
        amplitudes.append(shearing.mode_amplitude(sim, 1))
    return slope(times, np.array(amplitudes)), sim.steps


def main():
    """Runs the cases, prints the table; 0 if the required tolerances hold."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')}, {platform.node()}, {platform.processor() or platform.machine()}, "
          f"commit {commit}, astaroth {ac.__file__}")
    print(f"# grid 4 x 4 x {NZ}, box ({4 / NZ:g}, {4 / NZ:g}, 1), Omega = {OMEGA}, q = {Q}, cs = 1, nu = eta = 0, "
          f"the CFL step (cdt = 0.4), t to {T_END:g}")
    print(f"{'case':<34} {'n':>2} {'k vA':>8} {'expected':>10} {'measured':>10} {'rel. error':>11} {'tol':>5} "
          f"{'steps':>6} {'wall s':>7}")
    ok = True
    fastest = shearing.fastest_k_va(OMEGA, Q)
    for label, n, k_va, tolerance in (("fastest mode (3/4 Omega)", 1, fastest, 0.01),
                                      ("fastest mode (3/4 Omega)", 2, fastest, 0.01),
                                      ("dispersion relation", 1, 0.5, 0.02),
                                      ("dispersion relation", 1, 1.5, 0.02)):
        start = time.perf_counter()
        measured, expected, steps = eigenmode_rate(n, k_va)
        reference = 0.75 * OMEGA if tolerance == 0.01 else shearing.mri_growth_rate(k_va, OMEGA, Q)
        assert abs(expected - reference) < 1e-12 * reference  # the matrix's root is the closed form's
        error = measured / reference - 1
        ok &= abs(error) <= tolerance
        print(f"{label:<34} {n:>2} {k_va:>8.4f} {reference:>10.6f} {measured:>10.6f} {error:>+11.2e} {tolerance:>5.2f} "
              f"{steps:>6} {time.perf_counter() - start:>7.2f}", flush=True)
    start = time.perf_counter()
    measured, steps = noise_rate()
    print(f"{'white noise in z, t in [4, 12]':<34} {'':>2} {fastest:>8.4f} {0.75:>10.6f} {measured:>10.6f} "
          f"{measured / 0.75 - 1:>+11.2e} {'-':>5} {steps:>6} {time.perf_counter() - start:>7.2f}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
