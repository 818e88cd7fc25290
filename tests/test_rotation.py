"""The Coriolis force of a rotating frame, du/dt -= 2 omega x u
(csrc/terms/coriolis.h; the Pencil Code's Omega and theta): the
epicycles of a uniform flow, the term against a NumPy statement of it,
the Pencil Code's names in its files, and where it runs."""
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth import pencil
from helpers import smooth_random_fields

SHAPE, BOX = (8, 6, 5), (2 * np.pi, 1.7 * np.pi, 1.3 * np.pi)


def uniform_flow(omega, u0, dtype="float64", backend="cpu"):
    shape = SHAPE if backend == "cpu" else (12, 10, 8)  # the GPU tests' smallest grids
    sim = ac.Simulation(shape=shape, box=BOX, nu=0.0, cs=1.0, omega=omega, dtype=dtype, backend=backend)
    for name, value in zip(("ux", "uy", "uz"), u0):
        sim[name] = np.full(sim.shape, value)
    return sim


def velocity(sim):
    return np.array([sim[name].mean() for name in ("ux", "uy", "uz")])


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("theta", [0.0, 30.0, 125.0])
def test_a_uniform_flow_turns_at_twice_the_rotation_rate(theta, backend):
    """Without pressure or viscosity a uniform u obeys du/dt = -2 omega x u: its
    part across omega turns about omega at 2 |omega| (epicycles, kappa = 2
    Omega without shear), its part along omega stays.  After a quarter and a
    whole period, against that solution to 1e-10 relative."""
    big_omega = 0.7
    angle = math.radians(theta)
    omega = np.array([-math.sin(angle), 0.0, math.cos(angle)]) * big_omega  # the Pencil Code's Omega, theta
    u0 = np.array([3e-3, -1e-3, 2e-3])
    period = 2 * np.pi / (2 * big_omega)
    steps = 16000  # RK3 (third order): about 1e-11 of |u| after a period
    if backend not in ac.backends():
        pytest.skip(f"no {backend} backend here")
    sim = uniform_flow(tuple(omega), tuple(u0), backend=backend)
    along = omega / big_omega * (u0 @ omega / big_omega)
    across = u0 - along
    for quarter in (1, 2, 3, 4):
        for _ in range(steps // 4):
            sim.step(period / steps)
        phase = 2 * big_omega * sim.t
        # rotation of `across` about omega by -phase (the frame turns by +Omega t: u turns the other way)
        expected = along + across * math.cos(phase) - np.cross(omega / big_omega, across) * math.sin(phase)
        assert np.max(np.abs(velocity(sim) - expected)) <= 1e-10 * np.linalg.norm(u0), quarter
    assert np.ptp(sim["ux"]) == 0.0  # it stays uniform


def test_the_term_equals_a_numpy_statement_of_minus_two_omega_cross_u():
    omega = (0.3, -0.4, 1.1)
    sims = []
    for w in ((0.0, 0.0, 0.0), omega):
        sim = ac.Simulation(shape=SHAPE, box=BOX, nu=0.01, cs=1.0, omega=w, dtype="float64", backend="cpu",
                            physics="mhd", energy="entropy", eta=0.01)
        for i, (name, values) in enumerate(zip(sim.field_names, 3 * smooth_random_fields(
                SHAPE, BOX, np.random.default_rng(5), amplitude=0.2))):
            sim[name] = values * (0.3 if name == "ss" else 1.0)
        sims.append(sim)
    without, with_ = (sim.rhs() for sim in sims)
    u = np.array([sims[1][name] for name in ("ux", "uy", "uz")])
    coriolis = -2 * np.cross(np.array(omega)[:, None, None, None], u, axis=0)
    scale = np.max(np.abs(coriolis))
    for i, name in enumerate(("ux", "uy", "uz")):
        assert np.max(np.abs(with_[name] - without[name] - coriolis[i])) <= 1e-14 * max(scale, 1.0), name
    for name in ("lnrho", "ax", "ay", "az", "ss"):
        assert np.array_equal(with_[name], without[name]), name


def test_a_rotating_run_continues_bit_for_bit_from_its_snapshot(tmp_path):
    make = lambda: uniform_flow((0.0, 0.2, 0.9), (1e-3, 2e-3, 0.0))  # noqa: E731
    straight = make()
    for _ in range(6):
        straight.step(0.01)
    first = make()
    for _ in range(3):
        first.step(0.01)
    first.save(tmp_path / "rot.h5")
    again = ac.load(tmp_path / "rot.h5", backend="cpu")
    assert tuple(again.omega) == (0.0, 0.2, 0.9)
    for _ in range(3):
        again.step(0.01)
    for name in straight.field_names:
        assert np.array_equal(straight[name], again[name]), name


@pytest.mark.parametrize("omega", [(0.0, 0.0, 0.8), (-0.4, 0.0, 0.5)])
def test_pencil_files_carry_omega_and_theta(tmp_path, omega):
    sim = uniform_flow(omega, (1e-3, 0.0, 0.0))
    sim.save_pencil(tmp_path / "data")
    text = (tmp_path / "data" / "param.nml").read_text() + (tmp_path / "data" / "param2.nml").read_text()
    assert "OMEGA=" in text and "THETA=" in text
    back = pencil.read_var(tmp_path / "data", backend="cpu")
    assert np.allclose(back.omega, omega, rtol=0, atol=1e-15)
    if omega[0] == 0:
        assert tuple(back.omega) == omega  # theta = 0: exactly


def test_an_omega_the_pencil_code_cannot_express_is_refused_naming_it(tmp_path):
    sim = uniform_flow((0.0, 0.3, 1.0), (1e-3, 0.0, 0.0))
    with pytest.raises(ValueError, match="omega"):
        sim.save_pencil(tmp_path / "data")
    assert not (tmp_path / "data" / "var.dat").exists()


def test_the_19_point_method_refuses_rotation_naming_omega():
    with pytest.raises(ValueError, match="coriolis.*omega.*55p"):
        ac.Simulation(shape=SHAPE, omega=(0, 0, 1.0), method="19p", backend="cpu")


def test_auto_picks_the_cpu_for_a_term_the_gpu_lacks(monkeypatch):
    """backend="auto" on a GPU machine takes the CPU, with a warning naming the term and its parameter, for a
    term the CUDA backend does not run (none today: shown with a stand-in list of missing terms)."""
    from astaroth import _core, simulation

    for backend in _core.compiled_backends():
        assert _core.terms_missing(backend) == []
    monkeypatch.setattr(simulation, "default_backend", lambda: "cuda")
    monkeypatch.setattr(simulation._core, "terms_missing", lambda backend: ["coriolis"])
    with pytest.warns(RuntimeWarning, match="coriolis.*omega"):
        assert simulation._auto_backend({"omega": (0.0, 0.0, 1.0)}) == "cpu"
    assert simulation._auto_backend({"nu": 0.1}) == "cuda"


@pytest.mark.gpu
@pytest.mark.parametrize("physics, energy", [("hydro", "isothermal"), ("mhd", "entropy")])
def test_the_gpu_rotating_run_equals_the_cpu_run(physics, energy):
    """A tilted rotation with MHD and entropy: 20 CFL steps on the GPU against the CPU in float64, to
    1e-11 of each field's largest value, through sim.run (the device's CFL loop) and an ensemble member."""
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    runs = {}
    for backend in ("cpu", "cuda", "cuda-ensemble"):
        extra = (dict(eta=1e-2) if physics == "mhd" else {}) | (dict(chi=1e-2) if energy == "entropy" else {})
        sim = ac.Simulation(shape=(16, 12, 10), box=BOX, nu=1e-2, omega=(-0.2, 0.1, 0.8), physics=physics,
                            energy=energy, backend=backend.split("-")[0], **extra)
        values = smooth_random_fields(sim.shape, sim.box, np.random.default_rng(4), amplitude=0.1)
        for i, name in enumerate(sim.field_names):
            sim[name] = values[i % 4]
        until = 20 * sim.cfl_dt()
        if backend.endswith("ensemble"):
            ac.Ensemble([sim]).run(until=until)
        else:
            sim.run(until=until)
        runs[backend] = sim
    cpu = runs["cpu"]
    for backend in ("cuda", "cuda-ensemble"):
        assert runs[backend].steps == cpu.steps
        for name in cpu.field_names:
            scale = np.max(np.abs(cpu[name]))
            assert np.max(np.abs(runs[backend][name] - cpu[name])) <= 1e-11 * scale, (backend, name)


@pytest.mark.gpu
def test_the_gpu_refuses_rotation_with_a_passive_scalar_naming_omega():
    """The build holds the Coriolis force's instances for the fluids without scalars (instances.def)."""
    if "cuda" not in ac.backends():
        pytest.skip("no CUDA backend here")
    with pytest.raises(ValueError, match="coriolis.*omega.*instances.def"):
        ac.Simulation(shape=SHAPE, omega=(0, 0, 1.0), passive_scalar=True, backend="cuda")
