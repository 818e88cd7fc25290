"""The shearing box on the GPU (csrc/terms/shear.h summed in the streaming
kernel, the shifted x ghosts of csrc/cuda/kernels_impl.cuh, deltay advanced
on the host after each substep, |S (x - x0)| in the signal-speed reduction,
the shock profile's passes with shifted x images of csrc/cuda/shock.cuh):
against the CPU's runs, every fluid with and without a passive scalar, and
against the solutions tests/test_shear.py holds the CPU to (its epicycles,
restarts, ensemble members and live changes run on the GPU there; those
with a scalar here for every fluid).  Grids split over MPI ranks on the GPU
are in tests/test_mpi_gpu.py.  All marked gpu: they skip where no CUDA GPU
is usable."""
import ctypes
import math

import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

pytestmark = pytest.mark.gpu

OMEGA, Q = 1.0, 1.5  # a Keplerian box: shear = -q Omega
FLUIDS = [("hydro", "isothermal"), ("mhd", "isothermal"), ("hydro", "entropy"), ("mhd", "entropy")]
# Of each field's largest value, GPU against CPU in float64 after 20 steps: the two differ in rounding only (where
# nvcc and GCC contract products into FMAs), about 1e-16 a step, amplified a few times over the steps; the
# tolerance of the rotating runs (tests/test_rotation.py) and of the configuration sweep
# (tests/test_configurations_gpu.py) for the same reason.
TOLERANCE = 1e-11


def sheared(backend, physics="mhd", energy="entropy", rotation=True, dtype="float64", scalar=False, hyper3=False,
            shock=False):
    """A sheared box of every fluid, with a passive scalar if `scalar`, hyperdiffusion if `hyper3`, shock
    viscosity if `shock`: smooth
    random fields (not shearing-periodic, so that the shifted x ghosts differ from periodic ones), deltay =
    0.37 (between grid points: every weight counts)."""
    extra = dict(eta=1e-2, b_ext=(0.0, 0.0, 0.1)) if physics == "mhd" else {}
    if energy == "entropy":
        extra["chi"] = 1e-2
    if scalar:
        extra.update(passive_scalar=True, pscalar_diff=1e-2)
    if hyper3:
        extra.update(nu_hyper3=1e-6, diff_hyper3=1e-6)
    if shock:
        extra.update(nu_shock=2.0)
    extra.update(dict(omega=(0.0, 0.0, OMEGA), qshear=Q) if rotation else dict(shear=-0.8))
    sim = ac.Simulation(shape=(16, 12, 10), box=(1.0, 1.5, 1.2), nu=1e-2, cs=1.0, physics=physics, energy=energy,
                        x0_shear=0.2, dtype=dtype, backend=backend, **extra)
    values = smooth_random_fields(sim.shape, sim.box, np.random.default_rng(5), amplitude=0.05)
    for i, name in enumerate(sim.field_names):
        sim[name] = values[i % 4] * (0.3 if name == "ss" else 1.0)
    sim.deltay = 0.37
    return sim


def assert_close(cpu, gpu, tolerance=TOLERANCE):
    for name in cpu.field_names:
        scale = np.max(np.abs(cpu[name]))
        assert np.max(np.abs(gpu[name] - cpu[name])) <= tolerance * scale, name


def _id(fluid):
    return "-".join(part for part in fluid if part != "isothermal")


@pytest.mark.parametrize("rotation", [True, False], ids=["rotation-shear", "shear"])
@pytest.mark.parametrize("physics, energy", FLUIDS, ids=[_id(f) for f in FLUIDS])
def test_the_gpu_sheared_run_equals_the_cpu_run(physics, energy, rotation):
    """Ten steps of a fixed dt, then ten CFL steps through sim.run (which steps from the host: the device's
    CFL loop refuses the shear), in float64: each field to TOLERANCE of its largest value; deltay bit for
    bit after the fixed steps (the host's arithmetic on the same dt) and to round-off after the CFL steps;
    cfl_dt (its signal speed adds |S (x - x0)| point by point) to round-off before and after."""
    runs_alike(*(sheared(b, physics, energy, rotation) for b in ("cpu", "cuda")))


SCALAR_TERMS = {"shear": dict(rotation=False), "rotation-shear": dict(rotation=True),
                "hyper3-rotation-shear": dict(rotation=True, hyper3=True)}


@pytest.mark.parametrize("terms", list(SCALAR_TERMS))
@pytest.mark.parametrize("physics, energy", FLUIDS, ids=[_id(f) for f in FLUIDS])
def test_the_gpu_sheared_run_with_a_passive_scalar_equals_the_cpu_run(physics, energy, terms):
    """The scalar advected by the background flow and shifted across the x faces as every field (the
    instances of csrc/cuda/instances.def's fluids with a scalar): the runs of the test above, the scalar's
    field too, with the shear alone, the rotation, and both with hyperdiffusion."""
    runs_alike(*(sheared(b, physics, energy, scalar=True, **SCALAR_TERMS[terms]) for b in ("cpu", "cuda")))


@pytest.mark.parametrize("hyper3", [False, True], ids=["", "hyper3"])
@pytest.mark.parametrize("physics, energy", FLUIDS, ids=[_id(f) for f in FLUIDS])
def test_the_gpu_sheared_run_with_shock_viscosity_equals_the_cpu_run(physics, energy, hyper3):
    """The rotating shearing box with shock viscosity (the magnetorotational instability's box once its
    channel flows steepen): the profile's passes take the shifted x images on the GPU as on the CPU
    (csrc/cuda/shock.cuh), so the runs of the test above agree to the same tolerance; its largest value
    (cfl_dt counts it) too."""
    cpu, gpu = (sheared(b, physics, energy, shock=True, hyper3=hyper3) for b in ("cpu", "cuda"))
    assert np.max(cpu.shock_viscosity()) > 0
    runs_alike(cpu, gpu)


def test_the_gpus_shock_profile_of_a_shearing_box_takes_its_shifted_x_images():
    """tests/test_shear.py's profile at deltay = 5 dy on the GPU: against the NumPy statement with the shifted
    images to round-off, away from the periodic images' profile."""
    from test_shear import sheared_shock_profile

    zeta, expected, periodic = sheared_shock_profile("cuda", omega=(0.0, 0.0, 1.0))
    assert np.max(np.abs(zeta - expected)) <= 1e-13 * np.max(expected)
    assert np.max(np.abs(zeta - periodic)) > 1e-2 * np.max(expected)


def runs_alike(cpu, gpu):
    """The runs of test_the_gpu_sheared_run_equals_the_cpu_run from the CPU's and the GPU's box."""
    assert gpu.cfl_dt() == pytest.approx(cpu.cfl_dt(), rel=1e-12)
    dt = 0.5 * cpu.cfl_dt()
    for sim in (cpu, gpu):
        for _ in range(10):
            sim.step(dt)
    assert gpu.deltay == cpu.deltay != 0.37
    assert_close(cpu, gpu)
    assert gpu.cfl_dt() == pytest.approx(cpu.cfl_dt(), rel=1e-12)
    until = cpu.t + 10 * cpu.cfl_dt()
    for sim in (cpu, gpu):
        sim.run(until=until)
    assert gpu.steps == cpu.steps >= 20 and gpu.t == cpu.t
    assert gpu.deltay == pytest.approx(cpu.deltay, rel=1e-12)
    assert_close(cpu, gpu)


def test_the_gpu_sheared_run_in_single_precision_follows_the_cpu():
    """MHD with entropy, rotation and shear in float32, five steps: to 1e-4 of each field's largest value
    (the configuration sweep's float32 tolerance)."""
    cpu, gpu = (sheared(b, dtype="float32") for b in ("cpu", "cuda"))
    dt = 0.5 * cpu.cfl_dt()
    for sim in (cpu, gpu):
        for _ in range(5):
            sim.step(dt)
    assert gpu.deltay == cpu.deltay
    assert_close(cpu, gpu, 1e-4)


def advected_wave_error(n, backend, shear=-1.0, until=1.0):
    """A wave cos(kx x + ky y) of lnrho carried by u0 = S x e_y alone (cs = nu = 0: u stays 0, lnrho is
    advected as the passive scalar of tests/test_shear.py without its diffusion, in hydro's instance):
    kx(t) = kx0 - S ky t; the largest error against it at `until`."""
    kx0, ky = 2 * math.pi, 2 * math.pi
    sim = ac.Simulation(shape=(n, n, 1), box=(1.0, 1.0, 1.0), nu=0.0, cs=0.0, shear=shear, backend=backend)
    x, y = np.meshgrid(sim.x, sim.y, indexing="ij")
    sim["lnrho"] = np.cos(kx0 * x + ky * y)[:, :, None]
    sim.run(until=until, dt=1 / 2000)
    kx = kx0 - shear * ky * sim.t
    assert abs(math.remainder(sim.deltay + shear * 1.0 * sim.t, 1.0)) < 1e-12  # -S Lx t, modulo Ly
    assert not np.any(sim["ux"]) and not np.any(sim["uy"])
    return np.max(np.abs(sim["lnrho"][:, :, 0] - np.cos(kx * x + ky * y)))


def test_a_sheared_wave_converges_at_sixth_order_on_the_gpu():
    """kx grows from 2 pi to 4 pi while the wave crosses the shifted x faces: measured on the CPU 1.5e-4,
    1.37e-5, 2.47e-6 on 16^2, 24^2, 32^2 points, orders 5.90 and 5.94; the GPU's errors are the CPU's to
    1e-9 of themselves (round-off of the fields, which are of order 1) and fall at order >= 5."""
    errors = [advected_wave_error(n, "cuda") for n in (16, 24, 32)]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(m / n) for i, (n, m) in enumerate(((16, 24), (24, 32)))]
    assert errors[-1] < 1e-5
    assert min(orders) >= 5.0, (errors, orders)
    assert errors[0] == pytest.approx(advected_wave_error(16, "cpu"), rel=1e-9)


def test_the_scalars_shearing_wave_converges_at_sixth_order_on_the_gpu():
    """tests/test_shear.py's diffusing scalar wave on the GPU (hydro with a scalar under the shear): its
    errors the CPU's to 1e-9 of themselves, falling at order >= 5 (the CPU's 5.9)."""
    from test_shear import shearing_wave_error

    errors = [shearing_wave_error(n, backend="cuda") for n in (16, 24, 32)]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(m / n) for i, (n, m) in enumerate(((16, 24), (24, 32)))]
    assert errors[-1] < 1e-5
    assert min(orders) >= 5.0, (errors, orders)
    assert errors[0] == pytest.approx(shearing_wave_error(16, backend="cpu"), rel=1e-9)


@pytest.mark.parametrize("physics, energy", FLUIDS, ids=[_id(f) for f in FLUIDS])
def test_a_gpu_ensemble_member_with_a_scalar_equals_its_solo_run(physics, energy):
    """Each fluid with a scalar, rotation and shear: a member of an ensemble (beside one of another shear)
    equals its solo run bit for bit, deltay too (both step from the host)."""
    solo = sheared("cuda", physics, energy, scalar=True)
    solo.run(until=0.05)
    members = [sheared("cuda", physics, energy, scalar=True) for _ in range(2)]
    members[1].shear = -0.5
    ac.Ensemble(members).run(until=0.05)
    assert members[0].steps == solo.steps > 2
    assert members[0].deltay == solo.deltay and members[1].deltay != solo.deltay
    for name in solo.field_names:
        assert np.array_equal(members[0][name], solo[name]), name


@pytest.mark.parametrize("physics, energy", FLUIDS, ids=[_id(f) for f in FLUIDS])
def test_a_gpu_sheared_box_with_a_scalar_continues_bit_for_bit_from_its_snapshot(tmp_path, physics, energy):
    """Each fluid with a scalar, rotation and shear: ten steps straight against five, a snapshot, a load
    and five more: the fields and deltay bit for bit."""
    straight = sheared("cuda", physics, energy, scalar=True)
    first = sheared("cuda", physics, energy, scalar=True)
    dt = 0.5 * straight.cfl_dt()
    for _ in range(10):
        straight.step(dt)
    for _ in range(5):
        first.step(dt)
    first.save(tmp_path / "box.h5")
    again = ac.load(tmp_path / "box.h5", backend="cuda")
    assert again.deltay == first.deltay and "cc" in again.field_names
    for _ in range(5):
        again.step(dt)
    assert again.steps == straight.steps and again.deltay == straight.deltay
    for name in straight.field_names:
        assert np.array_equal(straight[name], again[name]), name


def test_the_gpu_refuses_the_shear_with_two_passive_scalars_naming_it():
    """The build holds the shear's instances for the fluids with one scalar at most (csrc/cuda/instances.def);
    the CPU runs two."""
    with pytest.raises(ValueError, match=r"hydro\+pscalar\+pscalar2 with the term 'shear' \(parameters shear, "
                                         r"x0_shear\).*instances\.def"):
        ac.Simulation(shape=(8, 8, 8), shear=-1.0, passive_scalar=2, backend="cuda")


def padded(sim, field):
    """The padded array of set 0 of a field, [k, j, i], on the host (a copy on the GPU: CuPy)."""
    grid = sim._grid
    m0, m1, m2 = grid.padded_shape
    address = grid.padded_address(0, field)
    if sim.backend == "cuda":
        cupy = pytest.importorskip("cupy")
        from astaroth.halo_messages import device_array

        return cupy.asnumpy(device_array(cupy, address, (m2, m1, m0), sim.dtype, grid))
    buffer = (ctypes.c_char * (m0 * m1 * m2 * sim.dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype=sim.dtype).reshape(m2, m1, m0).copy()


@pytest.mark.parametrize("scalar", [False, True], ids=["", "scalar"])
@pytest.mark.parametrize("face", [0, 1])
def test_the_gpu_shifts_a_split_grids_x_ghosts_as_the_cpu(face, scalar):
    """The backend's shear_ghosts op (a grid split over MPI ranks hands it the other face's planes of every
    y): from the same planes and deltay the GPU's x ghosts equal the CPU's to round-off (each a sum of six
    weighted values of order 1, in double), the scalar's too."""
    sims = [sheared(b, scalar=scalar) for b in ("cpu", "cuda")]
    nx, ny, nz = sims[0].shape
    source = np.random.default_rng(6).standard_normal((len(sims[0].field_names), nz, ny, 3))
    ghosts = []
    for sim in sims:
        sim._grid.shear_ghosts(0, face, source)
        i, j, k = sim._grid.interior_start
        x = slice(i - 3, i) if face == 0 else slice(i + nx, i + nx + 3)
        ghosts.append(np.stack([padded(sim, f)[k:k + nz, j:j + ny, x] for f in range(len(sim.field_names))]))
    assert np.max(np.abs(ghosts[1] - ghosts[0])) <= 1e-14 * np.max(np.abs(ghosts[0]))
    assert np.max(np.abs(ghosts[0])) > 0.5
