"""Physics validation on the CPU (seed Sect. 6): forcing, explosion symmetry,
spectra, and the analysis and initial-condition modules."""
import math

import numpy as np
import pytest

import astaroth as ac


# --- forcing -----------------------------------------------------------------
def test_forcing_shell_matches_the_seed_kf():
    f = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1)
    norms = np.sqrt((f.wavenumbers ** 2).sum(axis=1))
    assert norms.min() >= 1 and norms.max() <= 2
    assert len(f.wavenumbers) == len({tuple(k) for k in f.wavenumbers})
    # isotropic: the set is closed under sign flips and axis permutations
    assert {tuple(-k) for k in f.wavenumbers} == {tuple(k) for k in f.wavenumbers}
    assert f.mean_k == pytest.approx(1.53, abs=0.005)            # the seed's kf for [1, 2]
    assert ac.Forcing(kmin=1.5, kmax=2.5).mean_k == pytest.approx(2.23, abs=0.01)


def test_forcing_draws_unit_transverse_vectors_with_eq25_amplitude():
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    sim.forcing = ac.Forcing(kmin=1, kmax=3, f0=0.05, seed=7)
    dt = 0.01
    for _ in range(50):
        k, a, phase = sim._grid.draw_forcing(dt)
        k, a = np.array(k), np.array(a)
        kmag = np.linalg.norm(k)
        n = 0.05 * 1.0 * math.sqrt(kmag * 1.0 / dt)
        assert np.linalg.norm(a) == pytest.approx(n, rel=1e-12)   # N |f_k| with |f_k| = 1
        assert abs(a @ k) < 1e-12 * n * kmag                      # f_k is perpendicular to k: div f = 0
        assert 0 <= phase < 2 * math.pi


def forced_run(seed, backend="cpu", dtype="float64", n=16, until=1.0):
    sim = ac.Simulation(shape=(n, n, n), nu=1e-3, backend=backend, dtype=dtype)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=seed)
    sim.run(until=until)
    return sim


def test_same_seed_same_fields_other_seed_other_fields():
    a, b, c = forced_run(3), forced_run(3), forced_run(4)
    for name in ac.FIELDS:
        np.testing.assert_array_equal(a[name], b[name])
    assert not np.array_equal(a["ux"], c["ux"])
    assert ac.analysis.rms(a, "u") > 0


def test_forcing_none_switches_it_off():
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    sim.forcing = ac.Forcing(seed=2)
    sim.forcing = None
    sim.run(until=0.5)
    assert ac.analysis.max_abs(sim, "u") == 0.0


def test_energy_injection_rate_from_rest():
    """From rest, E = <u^2>/2 grows at 1/4 f0^2 cs^3 <|k|> (random phases)."""
    ratios = []
    for seed in range(1, 9):
        sim = ac.Simulation(shape=(32, 32, 32), nu=1e-3, cs=1.0, backend="cpu")
        forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=seed)
        sim.forcing = forcing
        sim.run(until=5.0)
        energy = 0.5 * ac.analysis.rms(sim, "u") ** 2
        expected = 0.25 * forcing.f0 ** 2 * sim.cs ** 3 * forcing.mean_k * sim.t
        ratios.append(energy / expected)
    print("injected / expected per seed:", np.round(ratios, 3))
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.3)


def _brute_force_shell(kmin, kmax):
    """Every integer vector of the cube, then the shell: the set and order the forcing had from the start."""
    r = int(math.floor(kmax))
    k = np.stack(np.meshgrid(*[np.arange(-r, r + 1)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    norm = np.sqrt((k ** 2).sum(axis=1))
    return k[(norm >= kmin - 1e-12) & (norm <= kmax + 1e-12)].astype(np.float64)


@pytest.mark.parametrize("kmin, kmax", [(1, 2), (1.5, 2.5), (0.5, 1), (1, 1), (3, 3), (2.5, 3.5), (9.5, 10.5),
                                        (0.3, 7.2), (math.sqrt(2), math.sqrt(3)), (20, 25), (0.01, 30)])
def test_forcing_shell_is_the_same_set_in_the_same_order(kmin, kmax):
    """The generator draws by index: the order of the set is part of every forced run."""
    np.testing.assert_array_equal(ac.Forcing(kmin=kmin, kmax=kmax).wavenumbers, _brute_force_shell(kmin, kmax))


def test_thin_shell_of_large_radius_costs_its_own_size():
    import time

    t0 = time.perf_counter()
    f = ac.Forcing(kmin=299, kmax=300)  # 27 s and 4 GB when the whole cube of 601^3 vectors was made
    assert time.perf_counter() - t0 < 10
    norms = np.sqrt((f.wavenumbers ** 2).sum(axis=1))
    assert len(f.wavenumbers) == 1127024 and norms.min() >= 299 and norms.max() <= 300


def test_forcing_set_too_large_for_memory_is_refused_before_any_work():
    with pytest.raises(MemoryError, match="kmax = 10000"):
        ac.Forcing(kmax=1e4)  # the whole cube would be 58 TiB


def test_forcing_beyond_the_grids_nyquist_wave_number_is_refused():
    sim = ac.Simulation(shape=(16, 16, 8), backend="cpu")
    with pytest.raises(ValueError, match=r"kmax = 5 .*\|k_z\| = 5.*nz / 2 = 4"):
        sim.forcing = ac.Forcing(kmin=4, kmax=5)
    assert sim.forcing is None
    sim.forcing = ac.Forcing(kmin=3, kmax=4)  # at the Nyquist wave number: allowed
    flat = ac.Simulation(shape=(16, 16, 1), backend="cpu")
    flat.forcing = ac.Forcing(kmin=1, kmax=2)  # a trivial axis is not checked


@pytest.mark.parametrize("urms, exc", [(-0.1, ValueError), (float("nan"), TypeError), ("fast", TypeError)])
def test_random_velocity_refuses_a_bad_urms(urms, exc):
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    with pytest.raises(exc, match="urms"):
        ac.init.random_velocity(sim, urms=urms)


@pytest.mark.parametrize("kwargs", [dict(kmin=0), dict(kmin=3, kmax=2), dict(f0=-1.0), dict(seed=-1),
                                    dict(seed=1.5), dict(kmin=0.1, kmax=0.5)])
def test_bad_forcing_is_refused(kwargs):
    with pytest.raises((ValueError, TypeError)):
        ac.Forcing(**kwargs)


def test_forcing_must_be_a_forcing():
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    with pytest.raises(TypeError, match="forcing"):
        sim.forcing = {"f0": 0.1}


# --- radial explosion ------------------------------------------------------------
def test_explosion_symmetry_error_falls_as_reynolds_number_grows():
    """64^3, u = exp(-(r - 0.8)^2 / 0.08) e_r, t = 0.3: the |u| error falls with Re
    over the range this grid resolves (Re = u d / nu = 5, 10, 20)."""
    errors = []
    for nu in (0.04, 0.02, 0.01):
        sim = ac.Simulation(shape=(64, 64, 64), nu=nu, backend="cpu")
        ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
        assert ac.analysis.symmetry_error(sim)["rho"] < 1e-12      # uniform density: exact
        sim.run(until=0.3)
        errors.append(ac.analysis.symmetry_error(sim))
    u_errors = [e["u"] for e in errors]
    print("symmetry errors:", errors)
    assert u_errors[0] > u_errors[1] > u_errors[2]
    assert max(u_errors) < 2.5e-3 and max(e["rho"] for e in errors) < 1e-3


# --- analysis --------------------------------------------------------------------
def test_spectrum_of_a_single_mode_and_parseval():
    sim = ac.Simulation(shape=(32, 32, 32), backend="cpu")
    a = 0.3
    ac.init.sine_wave(sim, field="uy", amplitude=a, k=(3, 4, 0))   # |k| = 5
    k, E = ac.analysis.spectrum(sim)
    assert np.argmax(E) == 5 and k[5] == pytest.approx(5.0)
    assert E[5] == pytest.approx(a * a / 4, rel=1e-12)             # 1/2 <u^2> = a^2 / 4
    assert E.sum() - E[5] < 1e-20


def test_parseval_on_a_random_field():
    sim = ac.Simulation(shape=(24, 20, 16), box=(2 * np.pi, 5.0, 3.0), backend="cpu")
    ac.init.random_velocity(sim, urms=0.2, spectrum=lambda k: k ** -1.5, seed=4)
    k, E = ac.analysis.spectrum(sim)
    u2 = np.mean(sim["ux"] ** 2 + sim["uy"] ** 2 + sim["uz"] ** 2)
    assert E.sum() == pytest.approx(0.5 * u2, rel=1e-12)
    assert ac.analysis.rms(sim, "u") == pytest.approx(0.2, rel=1e-12)


def test_random_velocity_follows_the_requested_spectrum():
    sim = ac.Simulation(shape=(64, 64, 64), backend="cpu")
    ac.init.random_velocity(sim, urms=0.1, spectrum=lambda k: k ** -2.0, seed=1)
    k, E = ac.analysis.spectrum(sim)
    shells = np.arange(2, 16)
    slope = np.polyfit(np.log(k[shells]), np.log(E[shells]), 1)[0]
    assert slope == pytest.approx(-2.0, abs=0.15)


def test_divergence_and_vorticity_of_known_fields():
    sim = ac.Simulation(shape=(32, 32, 32), backend="cpu")
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    sim["ux"] = np.sin(x)            # div u = cos x
    sim["uy"] = np.sin(x) * 0.5      # curl_z = d_x u_y = 0.5 cos x
    sim["uz"] = np.cos(y)            # curl_x = d_y u_z = -sin y
    div = ac.analysis.divergence(sim)
    wx, wy, wz = ac.analysis.vorticity(sim)
    assert np.max(np.abs(div - np.cos(x))) < 1e-6                   # sixth order at dx = 0.2
    assert np.max(np.abs(wx + np.sin(y))) < 1e-6
    assert np.max(np.abs(wy)) < 1e-12
    assert np.max(np.abs(wz - 0.5 * np.cos(x))) < 1e-6


def test_norms():
    sim = ac.Simulation(shape=(16, 16, 16), backend="cpu")
    sim["ux"] = 3.0
    sim["uy"] = -4.0
    n = ac.analysis.norms(sim)
    assert n["u"]["rms"] == pytest.approx(5.0) and n["u"]["max"] == pytest.approx(5.0)
    assert n["uy"]["max"] == 4.0 and n["lnrho"]["rms"] == 0.0


# --- initial conditions ------------------------------------------------------------
def test_sine_wave_any_direction_and_component():
    sim = ac.Simulation(shape=(16, 12, 8), box=(2 * np.pi, 3.0, 1.0), backend="cpu")
    ac.init.sine_wave(sim, field="uz", amplitude=2.0, k=(1.0, 2 * np.pi / 3.0, 0.0), phase=0.1)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    np.testing.assert_allclose(sim["uz"], 2.0 * np.sin(x + 2 * np.pi / 3 * y + 0.1), atol=1e-14)
    with pytest.raises(ValueError, match="not periodic"):
        ac.init.sine_wave(sim, k=(1.5, 0, 0))


def test_radial_explosion_profile():
    sim = ac.Simulation(shape=(32, 32, 32), backend="cpu")
    ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
    c = np.pi
    x = sim.x - c
    ux = sim["ux"][:, 16, 16]
    expected = np.sign(x) * np.exp(-((np.abs(x) - 0.8) ** 2) / (2 * 0.2 ** 2))
    np.testing.assert_allclose(ux, expected, atol=1e-14)
    assert np.all(sim["lnrho"] == 0)
