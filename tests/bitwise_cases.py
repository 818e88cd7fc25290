"""Short runs whose fields are stored bit for bit (tests/data/bitwise_*.npz).

The fixture was made with the code before the physics-as-modules redesign
(scripts/make_bitwise_fixture.py); tests/test_bitwise.py reruns every case
and asserts that each field is identical, bit for bit.  A case is a function
of the backend returning a list of Simulations after a few steps; the
initial state, the steps and the forcing are deterministic.
"""
import re
import shutil
import subprocess

import numpy as np

import astaroth as ac

SHAPE = (16, 12, 10)
BOX = (2 * np.pi, 1.7 * np.pi, 1.3 * np.pi)


def _initial(sim, seed, amplitude=0.05):
    """A smooth random state: a few Fourier modes per field, fixed by `seed`."""
    rng = np.random.default_rng(seed)
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    kx, ky, kz = (2 * np.pi / L for L in sim.box)
    for name in sim.field_names:
        field = np.zeros(sim.shape)
        for _ in range(3):
            a, b, c = rng.integers(-2, 3, size=3)
            phase = rng.uniform(0, 2 * np.pi)
            field += rng.uniform(-1, 1) * np.sin(a * kx * x + b * ky * y + c * kz * z + phase)
        sim[name] = amplitude * field


def _run(backend, dtype="float64", method="55p", forcing=None, steps=3, run_until=None, seed=1, **kw):
    sim = ac.Simulation(shape=SHAPE, box=BOX, nu=0.02, cs=1.0, dtype=dtype, backend=backend, method=method, **kw)
    _initial(sim, seed)
    if forcing is not None:
        sim.forcing = forcing
    for _ in range(steps):
        sim.step(0.01)
    if run_until is not None:
        sim.run(until=sim.t + run_until, timeseries=None)
    return [sim]


def _ensemble(backend):
    sims = []
    for i, nu in enumerate((0.01, 0.02, 0.04)):
        sim = ac.Simulation(shape=SHAPE, box=BOX, nu=nu, cs=1.0, dtype="float64", backend=backend)
        _initial(sim, 10 + i)
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=7 + i)
        sims.append(sim)
    ens = ac.Ensemble(sims)
    ens.run(until=0.05)
    ens.step(0.01)
    return sims


def _mhd(dtype, **kw):
    return dict(dtype=dtype, physics="mhd", eta=0.03, b_ext=(0.1, -0.05, 0.2), mu0=1.3, **kw)


ALL_TERMS = dict(physics="mhd", eta=0.03, b_ext=(0.1, 0.0, 0.05), nu_hyper3=2e-5, diff_hyper3=1e-5, nu_shock=0.5)

CASES = {
    "hydro_55p_f64": lambda b: _run(b, run_until=0.05),
    "hydro_55p_f32": lambda b: _run(b, dtype="float32", run_until=0.05),
    "hydro_19p_f64": lambda b: _run(b, method="19p", run_until=0.05),
    "hydro_19p_f32": lambda b: _run(b, dtype="float32", method="19p"),
    "forced_f64": lambda b: _run(b, forcing=ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3), run_until=0.05),
    "forced_f32": lambda b: _run(b, dtype="float32", forcing=ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=3)),
    "helical_f64": lambda b: _run(b, forcing=ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=4, relhel=1.0)),
    "mhd_bext_f64": lambda b: _run(b, run_until=0.05, **_mhd("float64")),
    "mhd_bext_f32": lambda b: _run(b, **_mhd("float32")),
    "hyper3_f64": lambda b: _run(b, nu_hyper3=2e-5, diff_hyper3=1e-5, run_until=0.05),
    "hyper3_f32": lambda b: _run(b, dtype="float32", nu_hyper3=2e-5, diff_hyper3=1e-5),
    "mhd_hyper3_f64": lambda b: _run(b, **_mhd("float64", nu_hyper3=2e-5, diff_hyper3=1e-5)),
    "shock_f64": lambda b: _run(b, nu_shock=0.5, run_until=0.05),
    "shock_f32": lambda b: _run(b, dtype="float32", nu_shock=0.5),
    "all_terms_f64": lambda b: _run(b, forcing=ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=5, relhel=-1.0),
                                    run_until=0.05, **ALL_TERMS),
    "all_terms_f32": lambda b: _run(b, dtype="float32", forcing=ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=5,
                                                                              relhel=-1.0), **ALL_TERMS),
    "ensemble_f64": _ensemble,
}


def toolchain(backend):
    """What the CPU bits depend on: the C compiler and the vector instructions
    it may use (-march=native); for CUDA, nvcc is fixed by the device machine."""
    if backend != "cpu":
        return "cuda"
    try:
        cc = subprocess.run([shutil.which("cc") or "gcc", "--version"], capture_output=True, text=True).stdout
        cc = cc.splitlines()[0]
    except (OSError, IndexError):
        cc = "unknown compiler"
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(re.findall(r"\b(avx2|fma|avx512f|avx512vl|avx512dq|avx512bw)\b", f.read()))
    except OSError:
        flags = set()
    return f"{cc}; {' '.join(sorted(flags))}"


def record(backend):
    """{case/member/field: array, case/member/t: time} for every case."""
    out = {"meta/toolchain": np.array(toolchain(backend))}
    for name, case in CASES.items():
        for m, sim in enumerate(case(backend)):
            for field in sim.field_names:
                out[f"{name}/{m}/{field}"] = sim[field]
            out[f"{name}/{m}/t"] = np.array(sim.t)
            out[f"{name}/{m}/steps"] = np.array(sim.steps)
    return out
