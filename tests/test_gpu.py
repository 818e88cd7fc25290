"""The CUDA backend against the CPU reference backend (marker `gpu`).

Run on the device machine; skipped where no CUDA GPU is usable.
"""
import math

import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

pytestmark = pytest.mark.gpu

TOLERANCE = {"float64": 1e-12, "float32": 1e-5}
NU, CS = 0.03, 0.8


def pair(shape, box, method, dtype, seed=0):
    """The same initial state on the CPU and on the GPU."""
    sims = [ac.Simulation(shape=shape, box=box, nu=NU, cs=CS, dtype=dtype, backend=b, method=method)
            for b in ("cpu", "cuda")]
    for name, f in zip(ac.FIELDS, smooth_random_fields(shape, box, np.random.default_rng(seed))):
        for s in sims:
            s[name] = f
    return sims


def rel(a, b):
    return np.max(np.abs(a.astype(np.float64) - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("method", ["55p", "19p"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(37, 50, 23), (64, 32, 16), (40, 1, 1), (24, 20, 1), (1, 1, 33)])
def test_rhs_and_step_match_cpu(method, dtype, shape):
    box = (2 * np.pi, 3.0, 1.7)
    cpu, gpu = pair(shape, box, method, dtype)
    rc, rg = cpu.rhs(), gpu.rhs()
    for name in ac.FIELDS:
        if np.max(np.abs(rc[name])) > 0:
            assert rel(rg[name], rc[name]) < TOLERANCE[dtype], ("rhs", name)
    gpu._grid.poison_scratch()  # every interior point of every substep must be written
    dt = cpu.cfl_dt()
    cpu.step(dt)
    gpu.step(dt)
    for name in ac.FIELDS:
        c, g = cpu[name], gpu[name]
        assert np.all(np.isfinite(g)), name
        assert rel(g, c) < TOLERANCE[dtype] or np.max(np.abs(c)) == 0, ("step", name)


def decay_error(n, method, dtype="float64"):
    sim = ac.Simulation(shape=(n, n, n), box=(2 * math.pi,) * 3, nu=5e-3, cs=1.0, dtype=dtype,
                        backend="cuda", method=method)
    ac.init.sine_wave(sim, field="uy", amplitude=1e-3, k=13)
    sim.run(until=1.5, cdt=0.1)
    exact = 1e-3 * math.exp(-5e-3 * 169 * 1.5) * np.sin(13 * sim.x)[:, None, None]
    return math.sqrt(np.mean((sim["uy"] - exact) ** 2))


@pytest.mark.parametrize("method", ["55p", "19p"])
def test_sine_decay_converges_at_sixth_order_on_gpu(method):
    """The seed's sizes: k = 13, t = 1.5, cubes up to 256^3."""
    errors = [decay_error(n, method) for n in (64, 128, 256)]
    orders = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
    print(method, errors, orders)
    assert all(o >= 5.5 for o in orders), (errors, orders)


def test_forced_run_matches_cpu():
    """Same seed, same forcing sequence: CPU and GPU agree to round-off."""
    runs = []
    for backend in ("cpu", "cuda"):
        sim = ac.Simulation(shape=(24, 20, 16), nu=1e-3, backend=backend)
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=11)
        for _ in range(20):
            sim.step(0.02)
        runs.append(sim)
    for name in ("ux", "uy", "uz", "lnrho"):
        assert rel(runs[1][name], runs[0][name]) < 1e-11, name


@pytest.mark.parametrize("n", [64, 128, 256])
def test_explosion_stays_symmetric(n):
    """The seed's sizes, Re = 5 to 40 at t = 0.3: the symmetry errors of rho and
    |u| stay below 1e-2 (they do not fall monotonically with Re at 128^3 and
    256^3 in this measure: see notebooks/radial_explosion.ipynb)."""
    for nu in (0.04, 0.02, 0.01, 0.005):
        sim = ac.Simulation(shape=(n, n, n), nu=nu, backend="cuda", method="19p")
        ac.init.radial_explosion(sim, amplitude=1.0, r0=0.8, width=0.2)
        sim.run(until=0.3)
        e = ac.analysis.symmetry_error(sim)
        print(n, 0.2 / nu, e)
        assert e["u"] < 1e-2 and e["rho"] < 1e-2, (n, nu, e)


@pytest.mark.parametrize("kmin, kmax", [(1.0, 2.0), (3.5, 4.5), (9.5, 10.5)])
def test_forced_turbulence_spectrum_peaks_at_kf(kmin, kmax):
    """256^3, the seed's kf = 1.53, 4.12 and 10.0: the spectrum peaks in the
    forcing shell and the three velocity components carry similar energy."""
    sim = ac.Simulation(shape=(256, 256, 256), nu=2e-4, dtype="float32", backend="cuda")
    forcing = ac.Forcing(kmin=kmin, kmax=kmax, f0=0.02, seed=1)
    sim.forcing = forcing
    sim.run(until=10.0)
    k, E = ac.analysis.spectrum(sim)
    peak = k[1:][np.argmax(E[1:])]
    parts = [ac.analysis.rms(sim, c) for c in ("ux", "uy", "uz")]
    print(forcing.mean_k, peak, parts)
    assert math.floor(kmin) <= peak <= math.ceil(kmax)
    assert max(parts) / min(parts) < 1.5


def test_methods_agree_within_truncation_error():
    shape, box = (48, 40, 32), (2 * np.pi,) * 3
    _, a = pair(shape, box, "55p", "float64")
    _, b = pair(shape, box, "19p", "float64")
    for _ in range(5):
        dt = a.cfl_dt()
        a.step(dt)
        b.step(dt)
    for name in ac.FIELDS:
        d = rel(b[name], a[name])
        # they differ by the truncation error of grad div u (eq. 8 against eq. 6 applied twice):
        # small, yet far above round-off
        assert 1e-13 < d < 1e-4, (name, d)


def test_view_is_live_device_memory():
    cupy = pytest.importorskip("cupy")
    sim = ac.Simulation(shape=(16, 12, 8), backend="cuda", nu=0.1)
    v = cupy.asarray(sim.view("ux"))
    assert v.shape == sim.shape and v.dtype == np.float64
    v[...] = 0.25  # writing through CuPy changes the simulation
    cupy.cuda.runtime.deviceSynchronize()
    assert np.all(sim["ux"] == 0.25)
    sim["uy"] = np.arange(16 * 12 * 8, dtype=float).reshape(16, 12, 8)
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(sim.view("uy"))), sim["uy"])


def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    sim = ac.Simulation(shape=(10, 6, 4), backend="cuda", dtype="float32")
    sim["uz"] = np.full(sim.shape, 3.0)
    t = torch.from_dlpack(sim.view("uz"))
    assert t.is_cuda and tuple(t.shape) == (10, 6, 4) and t.dtype == torch.float32
    assert float(t.sum()) == pytest.approx(3.0 * 240)
    t.mul_(2.0)  # and writes reach the simulation
    torch.cuda.synchronize()
    assert np.all(sim["uz"] == 6.0)


def test_too_large_grid_is_a_memory_error_naming_the_size():
    with pytest.raises(MemoryError, match="4000 x 4000 x 4000"):
        ac.Simulation(shape=(4000, 4000, 4000), backend="cuda")


def test_create_and_free_leaves_device_memory_where_it_was():
    from astaroth.device import memory_info
    import gc
    gc.collect()
    before = memory_info()[0]
    for _ in range(100):
        sim = ac.Simulation(shape=(64, 64, 64), backend="cuda")
        sim.step(1e-3)
        del sim
    gc.collect()
    after = memory_info()[0]
    assert abs(after - before) < 8 << 20, (before, after)


def test_auto_picks_cuda():
    assert ac.Simulation(shape=(8, 8, 8), backend="auto").backend == "cuda"


def test_restart_continues_bit_for_bit_on_gpu(tmp_path):
    """2N steps straight equal N steps, checkpoint, load, N steps (forcing included)."""
    pytest.importorskip("h5py")

    def forced():
        sim = ac.Simulation(shape=(48, 40, 32), nu=2e-3, dtype="float32", backend="cuda")
        ac.init.random_velocity(sim, urms=0.05, seed=3)
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=9)
        return sim

    straight, half = forced(), forced()
    for _ in range(16):
        straight.step()
    for _ in range(8):
        half.step()
    half.save(tmp_path / "half.h5")
    restarted = ac.load(tmp_path / "half.h5", backend="cuda")
    for _ in range(8):
        restarted.step()
    for name in ac.FIELDS:
        np.testing.assert_array_equal(restarted[name], straight[name])


def test_timeseries_on_the_device(tmp_path):
    sim = ac.Simulation(shape=(32, 32, 32), nu=5e-3, backend="cuda")
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    sim.run(until=0.3, timeseries=tmp_path / "ts.csv", diagnostics_every=2)
    data = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    assert data["urms"][-1] == pytest.approx(ac.analysis.rms(sim, "u"), rel=1e-12)
