"""Forcing: an independent NumPy statement of the draw (splitmix64, seed
eqs. 24-25, the helical factor of docs/guide/mhd.md) against a step from rest, the
helicity of the forcing function itself, and the sign of the kinetic
helicity a helically forced run builds up."""
import math

import numpy as np
import pytest

import astaroth as ac

MASK = (1 << 64) - 1


class SplitMix64:
    """Steele, Lea & Flood (2014), as the C generator is specified."""

    def __init__(self, state):
        self.state = state

    def u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.u64() >> 11) * (1.0 / 9007199254740992.0)


def forcing_increment(sim, forcing, dt, gen):
    """du of one step (seed eqs. 24-25; docs/guide/mhd.md for relhel), drawn from `gen`."""
    ks = forcing.wavevectors(sim.box)
    which = min(int(gen.uniform() * len(ks)), len(ks) - 1)
    k = ks[which]
    phase = 2 * math.pi * gen.uniform()
    while True:
        cos_t = 2 * gen.uniform() - 1
        phi = 2 * math.pi * gen.uniform()
        sin_t = math.sqrt(1 - cos_t * cos_t)
        e = np.array([sin_t * math.cos(phi), sin_t * math.sin(phi), cos_t])
        cross = np.cross(k, e)
        if cross @ cross >= 1e-6 * (k @ k):
            break
    n = forcing.f0 * sim.cs * math.sqrt(math.sqrt(k @ k) * sim.cs / dt)
    f = n * cross / math.sqrt(cross @ cross)
    sigma = forcing.relhel
    cos_part = f / math.sqrt(1 + sigma ** 2)
    sin_part = sigma * np.cross(k / math.sqrt(k @ k), f) / math.sqrt(1 + sigma ** 2)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    angle = k[0] * x + k[1] * y + k[2] * z + phase
    return [dt * (cos_part[a] * np.cos(angle) - sin_part[a] * np.sin(angle)) for a in range(3)]


def at_rest(shape=(16, 12, 10), box=(2 * math.pi, 4.0, 3.0), nu=0.0, backend="cpu"):
    return ac.Simulation(shape=shape, box=box, nu=nu, cs=1.0, dtype="float64", backend=backend)


@pytest.mark.parametrize("relhel", [0.0, 1.0, -1.0, 0.5])
def test_steps_from_rest_match_a_numpy_statement_of_the_forcing(relhel):
    sim = at_rest()
    forcing = ac.Forcing(kmin=1, kmax=3, f0=0.05, seed=7, relhel=relhel)
    sim.forcing = forcing
    gen = SplitMix64(7)
    dt = 1e-3
    sim.step(dt)  # from rest the equations give nothing: u = the increment
    du = forcing_increment(sim, forcing, dt, gen)
    scale = max(np.abs(d).max() for d in du)
    for name, d in zip(("ux", "uy", "uz"), du):
        assert np.max(np.abs(sim[name] - d)) <= 1e-13 * scale, name
    assert sim._grid.forcing_state == gen.state


def spectral_curl(sim, u):
    k = [2 * np.pi * np.fft.fftfreq(n, d=L / n) for n, L in zip(sim.shape, sim.box)]
    kx, ky, kz = np.meshgrid(*k, indexing="ij")
    uh = [np.fft.fftn(c) for c in u]
    curl = [1j * (ky * uh[2] - kz * uh[1]), 1j * (kz * uh[0] - kx * uh[2]), 1j * (kx * uh[1] - ky * uh[0])]
    return [np.fft.ifftn(c).real for c in curl], np.sqrt(kx ** 2 + ky ** 2 + kz ** 2), uh


@pytest.mark.parametrize("relhel", [1.0, -1.0])
def test_helical_forcing_is_an_eigenfunction_of_curl(relhel):
    """curl f = relhel |k| f for relhel = +-1, step after step (each draws a new k)."""
    for seed in range(1, 6):
        sim = at_rest(shape=(16, 16, 16), box=(2 * math.pi,) * 3)
        sim.forcing = ac.Forcing(kmin=1, kmax=3, f0=0.05, seed=seed, relhel=relhel)
        sim.step(1e-3)
        u = [sim[c] for c in ("ux", "uy", "uz")]
        curl, kabs, uh = spectral_curl(sim, u)
        kf = kabs.ravel()[np.argmax(np.abs(uh[0]).ravel() + np.abs(uh[1]).ravel() + np.abs(uh[2]).ravel())]
        scale = max(np.abs(c).max() for c in u)
        for c, a in zip(curl, u):
            assert np.max(np.abs(c - relhel * kf * a)) < 1e-10 * kf * scale
        assert relhel * np.mean(sum(c * a for c, a in zip(curl, u))) > 0


def test_non_helical_forcing_has_no_helicity():
    sim = at_rest(shape=(16, 16, 16), box=(2 * math.pi,) * 3)
    sim.forcing = ac.Forcing(kmin=1, kmax=3, f0=0.05, seed=3)
    sim.step(1e-3)
    u = [sim[c] for c in ("ux", "uy", "uz")]
    curl, _, _ = spectral_curl(sim, u)
    helicity = np.mean(sum(c * a for c, a in zip(curl, u)))
    enstrophy_scale = math.sqrt(np.mean(sum(c * c for c in curl)) * np.mean(sum(a * a for a in u)))
    assert abs(helicity) < 1e-12 * enstrophy_scale  # a single cos mode: omega . u averages to zero


@pytest.mark.parametrize("relhel", [1.0, -1.0, 0.0])
def test_helically_forced_run_builds_kinetic_helicity_of_that_sign(relhel):
    sim = ac.Simulation(shape=(24, 24, 24), nu=0.02, cs=1.0, dtype="float64", backend="cpu")
    sim.forcing = ac.Forcing(kmin=2.5, kmax=3.5, f0=0.05, seed=11, relhel=relhel)
    sim.run(until=4.0)
    omega = ac.analysis.vorticity(sim)
    u = [sim[c] for c in ("ux", "uy", "uz")]
    helicity = float(np.mean(sum(np.asarray(w) * a for w, a in zip(omega, u))))
    urms = math.sqrt(float(np.mean(sum(a * a for a in u))))
    wrms = math.sqrt(float(np.mean(sum(np.asarray(w) ** 2 for w in omega))))
    assert urms > 0.01
    # maximally helical forcing at kf ~ 3: a relative helicity of order one, of the forcing's sign
    # (measured 0.998 and -0.997 at t = 4; 0.02 without helicity)
    if relhel:
        assert relhel * helicity / (urms * wrms) > 0.5
    else:
        assert abs(helicity) / (urms * wrms) < 0.2


def test_relhel_zero_is_the_default_and_is_checked():
    a, b = at_rest(), at_rest()
    a.forcing = ac.Forcing(kmin=1, kmax=2, seed=5)
    b.forcing = ac.Forcing(kmin=1, kmax=2, seed=5, relhel=0.0)
    for s in (a, b):
        s.step(1e-3)
        s.step(1e-3)
    for name in ac.FIELDS:
        assert np.array_equal(a[name], b[name])
    with pytest.raises(TypeError, match="relhel"):
        ac.Forcing(relhel=float("nan"))
    assert "relhel=1.0" in repr(ac.Forcing(relhel=1.0)) and "relhel" not in repr(ac.Forcing())


def test_relhel_survives_save_and_load(tmp_path):
    pytest.importorskip("h5py")
    sim = at_rest()
    sim.forcing = ac.Forcing(kmin=1, kmax=2, seed=5, relhel=-1.0)
    sim.step(1e-3)
    sim.save(tmp_path / "h.h5")
    back = ac.load(tmp_path / "h.h5", backend="cpu")  # the backend it was saved from: bit for bit
    assert back.forcing.relhel == -1.0
    sim.step(1e-3)
    back.step(1e-3)
    for name in ac.FIELDS:
        assert np.array_equal(sim[name], back[name])
