"""The shearing box (csrc/terms/shear.h; the Pencil Code's src/shear.f90):
epicycles at the epicyclic frequency, a shearing wave against its analytic
solution and the order of its error, the linear growth of the
magnetorotational instability, the time step, snapshots and ensembles, and
where it runs.  The Pencil Code's own runs are in tests/test_pencil.py,
grids split over MPI ranks in tests/test_mpi.py, the GPU's runs against these
in tests/test_shear_gpu.py."""
import math
import warnings

import numpy as np
import pytest

import astaroth as ac
from astaroth import _core, shearing, simulation

OMEGA, Q = 1.0, 1.5  # a Keplerian box: shear = -q Omega


def mean_velocity(sim):
    return np.array([sim[name].mean() for name in ("ux", "uy")])


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_a_uniform_flow_makes_epicycles_at_kappa(backend):
    """Without pressure or viscosity a uniform u in a rotating shearing box obeys dux/dt = 2 Omega uy,
    duy/dt = -(2 Omega + S) ux: epicycles at kappa = sqrt(2 Omega (2 Omega + S)) (Omega for a Keplerian
    box).  After a quarter and a whole period against that solution to 1e-10 of |u| (measured 1.4e-11
    after a period, RK3's error at 16000 steps), at a shear that is not Keplerian too (kappa = 1.67 Omega);
    on the GPU too (its shear term and shifted x ghosts, tests/test_shear_gpu.py)."""
    for q in (Q, 0.6):
        shear = -q * OMEGA
        kappa = math.sqrt(2 * OMEGA * (2 * OMEGA + shear))
        sim = ac.Simulation(shape=(8, 6, 1), box=(1.0, 2.0, 1.0), nu=0.0, cs=1.0, omega=(0, 0, OMEGA),
                            qshear=q, backend=backend)
        assert sim.shear == shear
        u0 = np.array([3e-3, -1e-3])
        sim["ux"], sim["uy"] = u0
        period, steps = 2 * math.pi / kappa, 16000
        for quarter in (1, 4):
            sim.run(until=period * quarter / 4, dt=period / steps)
            phase = kappa * sim.t
            ux = u0[0] * math.cos(phase) + 2 * OMEGA * u0[1] / kappa * math.sin(phase)
            uy = (-u0[0] * kappa * math.sin(phase) + 2 * OMEGA * u0[1] * math.cos(phase)) / (2 * OMEGA)
            assert np.max(np.abs(mean_velocity(sim) - (ux, uy))) <= 1e-10 * np.linalg.norm(u0), (q, quarter)
        assert np.ptp(sim["ux"]) < 1e-15  # it stays uniform across the shifted x faces


def shearing_wave_error(n, shear=-1.0, diffusivity=2e-3, until=1.0, backend="cpu"):
    """A passive scalar wave cos(kx x + ky y) sheared by u0 = S x e_y: kx(t) = kx0 - S ky t, its amplitude
    exp(-D int (kx^2 + ky^2) dt); the largest error against it at `until`, relative to the amplitude, on n x n
    points (one point in z), with steps short enough for the time error to stay below the grid's (the GPU's
    in tests/test_shear_gpu.py)."""
    kx0, ky = 2 * math.pi, 2 * math.pi  # one wave across the unit box: shearing-periodic at every t
    sim = ac.Simulation(shape=(n, n, 1), box=(1.0, 1.0, 1.0), nu=0.0, cs=1.0, shear=shear, passive_scalar=True,
                        pscalar_diff=diffusivity, backend=backend)
    x, y = np.meshgrid(sim.x, sim.y, indexing="ij")
    sim["cc"] = np.cos(kx0 * x + ky * y)[:, :, None]
    sim.run(until=until, dt=1 / 2000)
    t = sim.t
    kx = kx0 - shear * ky * t
    amplitude = math.exp(-diffusivity * (ky ** 2 * t + kx0 ** 2 * t - kx0 * shear * ky * t ** 2
                                         + shear ** 2 * ky ** 2 * t ** 3 / 3))
    exact = amplitude * np.cos(kx * x + ky * y)
    assert abs(math.remainder(sim.deltay + shear * 1.0 * t, 1.0)) < 1e-12  # -S Lx t, modulo Ly
    return np.max(np.abs(sim["cc"][:, :, 0] - exact)) / amplitude


def test_a_shearing_wave_matches_its_solution_at_sixth_order():
    """kx grows from 2 pi to 4 pi while the wave crosses the shifted x faces; the error falls as dx^6 (the
    derivatives' order and the six-point interpolation's): measured 1.4e-4, 1.27e-5, 2.3e-6 on 16^2, 24^2,
    32^2 points, orders 5.9 and 5.9 (halving dt changes the last by 1e-4 of itself)."""
    errors = [shearing_wave_error(n) for n in (16, 24, 32)]
    orders = [math.log(errors[i] / errors[i + 1]) / math.log(m / n) for i, (n, m) in enumerate(((16, 24), (24, 32)))]
    assert errors[-1] < 1e-4
    assert min(orders) >= 5.0, (errors, orders)


def test_the_magnetorotational_instability_grows_at_the_rate_of_its_dispersion_relation():
    """A Keplerian box (q = 3/2) threaded by b_ext = (0, 0, 0.15): the mode kz = 2 pi / Lz (k vA = 0.94,
    near the fastest, whose rate is q Omega / 2 at k vA = 0.97) grows at the root of s^4 + s^2 (kappa^2 + 2 k^2 vA^2) +
    k^2 vA^2 (k^2 vA^2 - 2 q Omega^2) = 0 (Balbus & Hawley 1991), 0.74959; within 2 % (measured 2.6e-8
    relative) over e^2.2, the growing eigenmode seeded."""
    b0, nz = 0.15, 32
    k = 2 * math.pi
    rate = shearing.mri_eigenmode(k, b0, OMEGA, Q)[0]
    assert rate == pytest.approx(shearing.mri_growth_rate(k * b0, OMEGA, Q), rel=1e-12)
    sim = ac.Simulation(shape=(4, 1, nz), box=(4 / nz, 1.0, 1.0), nu=0.0, eta=0.0, cs=1.0, physics="mhd",
                        b_ext=(0.0, 0.0, b0), omega=(0, 0, OMEGA), qshear=Q, backend="cpu")
    assert shearing.seed_mri_mode(sim, 1, 1e-5, OMEGA, Q) == rate
    rms = []
    for t in (1.0, 4.0):
        sim.run(until=t)
        rms.append(float(np.sqrt(np.mean(sim["ux"] ** 2 + sim["uy"] ** 2))))
    measured = math.log(rms[1] / rms[0]) / 3.0
    assert measured == pytest.approx(rate, rel=0.02)
    assert 0.74 < rate < Q * OMEGA / 2  # near the fastest mode's q Omega / 2


def test_the_fastest_mode_and_its_stresses_follow_the_linear_theory():
    """astaroth.shearing's fastest mode: k vA = sqrt(15)/4 Omega, rate 3/4 Omega (Balbus & Hawley 1991),
    its Maxwell stress -bx by 5/3 of its Reynolds stress ux uy ((4 - q)/q, Pessah, Chan & Psaltis 2006,
    MNRAS 372, 183); nu = eta shifts the rate by -nu k^2; the closed form equals the matrix's root."""
    k_va = shearing.fastest_k_va(OMEGA, Q)
    assert k_va == pytest.approx(math.sqrt(15) / 4)
    rate, (ux, uy, bx, by) = shearing.mri_eigenmode(2 * math.pi, k_va / (2 * math.pi), OMEGA, Q)
    assert rate == pytest.approx(0.75 * OMEGA, rel=1e-12) and shearing.mri_growth_rate(k_va) == pytest.approx(0.75)
    assert -bx * by / (ux * uy) == pytest.approx((4 - Q) / Q, rel=1e-12)
    damped = shearing.mri_eigenmode(2 * math.pi, k_va / (2 * math.pi), OMEGA, Q, nu=1e-3, eta=1e-3)[0]
    assert damped == pytest.approx(0.75 - 1e-3 * (2 * math.pi) ** 2, rel=1e-12)
    for k_va in (0.3, 0.97, 1.5):
        assert shearing.mri_eigenmode(1.0, k_va, OMEGA, Q)[0] == pytest.approx(shearing.mri_growth_rate(k_va), rel=1e-10)
    assert shearing.mri_growth_rate(math.sqrt(3) * 1.01) == 0.0  # stable beyond k vA = sqrt(2 q) Omega


def test_x_derivatives_of_the_analysis_take_the_shearing_periodic_images():
    """ac.analysis's x derivatives in a shearing box take f(x + Lx, y) = f(x, y + deltay) across the x
    faces (analysis.shearing_images), as the solver does: B = curl A of a wave that is shearing-periodic
    at the box's deltay matches the analytic curl to the sixth-order error, also on the x faces (a
    periodic wrap there would be off by O(1))."""
    sim = ac.Simulation(shape=(32, 32, 4), box=(1.0, 1.0, 1.0), nu=0.0, cs=1.0, physics="mhd", shear=-1.0,
                        backend="cpu")
    sim.deltay = 0.3
    ky = 2 * math.pi
    kx = ky * sim.deltay + 2 * math.pi  # kx Lx = ky deltay + 2 pi: cos(kx x + ky y) is shearing-periodic
    x, y = np.meshgrid(sim.x, sim.y, indexing="ij")
    sim["az"] = np.cos(kx * x + ky * y)[:, :, None] * np.ones(sim.shape)
    bx, by, bz = ac.analysis.magnetic_field(sim)
    phase = np.sin(kx * x + ky * y)[:, :, None]
    assert np.max(np.abs(by - kx * phase)) < 2e-3 * kx  # by = -d az/dx
    assert np.max(np.abs(bx + ky * phase)) < 2e-3 * ky
    jz = ac.analysis.current_density(sim)[2]  # curl curl (0, 0, az) = (kx^2 + ky^2) az
    k2 = kx ** 2 + ky ** 2
    assert np.max(np.abs(jz - k2 * sim["az"])) < 1e-4 * k2  # 3e-6 measured: sixth order applied twice
    periodic = ac.Simulation(shape=sim.shape, box=sim.box, nu=0.0, cs=1.0, physics="mhd", backend="cpu")
    periodic["az"] = sim["az"]
    assert np.max(np.abs(ac.analysis.magnetic_field(periodic)[1] - kx * phase)) > 0.3 * kx
    assert np.max(np.abs(ac.analysis.current_density(periodic)[2] - k2 * sim["az"])) > 0.3 * k2


def test_the_time_step_counts_the_shear_flow_point_by_point():
    """The CFL signal speed adds |S (x - x0)| to each point's own (the Pencil Code's advec_shear in
    maxadvec), in the C reduction: dt = cdt dxmin / max(|u| + cs + |S (x - x0)|)."""
    sim = ac.Simulation(shape=(12, 8, 4), box=(3.0, 2.0, 1.0), nu=0.0, cs=0.5, shear=-2.0, x0_shear=1.0,
                        backend="cpu")
    x = sim.x[:, None, None] * np.ones(sim.shape)
    sim["ux"] = 0.3 * np.exp(-(x - 0.5) ** 2)
    speed = np.abs(sim["ux"]) + 0.5 + 2.0 * np.abs(x - 1.0)
    assert sim.cfl_dt(cdt=0.4) == pytest.approx(0.4 * min(sim.spacing) / speed.max(), rel=1e-14)
    plain = ac.Simulation(shape=(12, 8, 4), box=(3.0, 2.0, 1.0), nu=0.0, cs=0.5, backend="cpu")
    plain["ux"] = sim["ux"]
    assert plain.cfl_dt() > 2 * sim.cfl_dt()


def sheared_run(dtype="float64", backend="cpu"):
    """MHD with entropy and a passive scalar in a rotating Keplerian box."""
    sim = ac.Simulation(shape=(8, 10, 6), box=(1.0, 1.5, 1.0), nu=1e-2, cs=1.0, physics="mhd", eta=1e-2,
                        energy="entropy", chi=1e-2, passive_scalar=True, omega=(0, 0, OMEGA), qshear=Q,
                        x0_shear=0.2, dtype=dtype, backend=backend)
    ac.init.random_velocity(sim, urms=0.05, seed=3)
    rng = np.random.default_rng(4)
    for name in ("lnrho", "ax", "ay", "az", "ss", "cc"):
        sim[name] = 0.01 * rng.standard_normal(sim.shape)
    sim.deltay = 1.1
    return sim


BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shearing_box_continues_bit_for_bit_from_its_snapshot(tmp_path, backend):
    """Twenty steps straight against ten, a snapshot, a load and ten more: the fields and deltay bit for
    bit (the snapshot keeps deltay), on the GPU too (its steps are deterministic)."""
    straight = sheared_run(backend=backend)
    for _ in range(20):
        straight.step(0.01)
    first = sheared_run(backend=backend)
    for _ in range(10):
        first.step(0.01)
    first.save(tmp_path / "box.h5")
    again = ac.load(tmp_path / "box.h5", backend=backend)
    assert again.backend == backend
    assert again.deltay == first.deltay != 1.1 and again.shear == -Q * OMEGA and again.x0_shear == 0.2
    for _ in range(10):
        again.step(0.01)
    assert again.steps == straight.steps and again.deltay == straight.deltay
    for name in straight.field_names:
        assert np.array_equal(straight[name], again[name]), name


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_ensemble_member_equals_its_solo_run(backend):
    """A member equals its solo run bit for bit, deltay too; on the GPU both step from the host (the
    device's CFL loops refuse the shear: its deltay advances on the host)."""
    solo = sheared_run(backend=backend)
    solo.run(until=0.1)
    members = [sheared_run(backend=backend), sheared_run(backend=backend)]
    members[1].shear = -0.5
    ac.Ensemble(members).run(until=0.1)
    assert members[0].steps == solo.steps
    assert members[0].deltay == solo.deltay and members[1].deltay != solo.deltay
    for name in solo.field_names:
        assert np.array_equal(members[0][name], solo[name]), name


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_live_change_of_the_shear_keeps_deltay(backend):
    sim = sheared_run(backend=backend)
    sim.step(0.01)
    deltay, fields = sim.deltay, {name: sim[name] for name in sim.field_names}
    sim.shear = -0.9
    assert sim.deltay == deltay and sim.shear == -0.9
    for name in sim.field_names:
        assert np.array_equal(sim[name], fields[name]), name


def test_the_terms_follow_their_statement():
    """rhs with shear minus rhs without: -u0 df/dy for every field (u0 = S (x - x0), df/dy the sixth-order
    first derivative, eq. 6), -S ux in uy and -S Ay in ax, to round-off of the right-hand sides, at points
    away from the x faces (whose ghosts the shift changes)."""
    with_ = sheared_run()
    without = ac.Simulation(shape=with_.shape, box=with_.box, nu=1e-2, cs=1.0, physics="mhd", eta=1e-2,
                            energy="entropy", chi=1e-2, passive_scalar=True, omega=(0, 0, OMEGA), backend="cpu")
    for name in with_.field_names:
        without[name] = with_[name]
    a, b = with_.rhs(), without.rhs()
    u0 = -Q * OMEGA * (with_.x - 0.2)[:, None, None]
    inner = slice(3, -3)
    for name in with_.field_names:
        f = with_[name]
        dfdy = sum(c * (np.roll(f, -i, axis=1) - np.roll(f, i, axis=1)) for i, c in ((1, 45), (2, -9), (3, 1)))
        expected = -u0 * dfdy / (60 * with_.spacing[1])
        if name == "uy":
            expected = expected + Q * OMEGA * with_["ux"]
        if name == "ax":
            expected = expected + Q * OMEGA * with_["ay"]
        difference = (a[name] - b[name])[inner] - expected[inner]
        assert np.max(np.abs(difference)) <= 1e-13 * np.max(np.abs(a[name])), name
        assert not np.array_equal(a[name], b[name]), name


@pytest.mark.parametrize("kw, named", [(dict(qshear=1.5), "qshear.*omega"),
                                       (dict(shear=-1.0, qshear=1.5, omega=(0, 0, 1.0)), "shear or qshear"),
                                       (dict(shear=-1.0, boundaries={"x": {n: "s" for n in ac.FIELDS}}), "walls"),
                                       (dict(shear=-1.0, method="19p"), "shear.*55p"),
                                       (dict(shear=float("nan")), "shear")])
def test_what_the_shearing_box_does_not_take_is_refused_naming_it(kw, named):
    with pytest.raises((ValueError, TypeError), match=named):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", **kw)


def test_every_backend_runs_the_shear_and_auto_would_take_the_cpu_for_one_that_did_not(monkeypatch):
    """The shearing box runs on every compiled backend (the GPU's in tests/test_shear_gpu.py); backend="auto"
    would take the CPU, naming the term and its parameter, for a backend without it (a stand-in list)."""
    for backend in _core.compiled_backends():
        assert "shear" not in _core.terms_missing(backend)
    monkeypatch.setattr(simulation, "default_backend", lambda: "cuda")
    monkeypatch.setattr(simulation._core, "terms_missing", lambda backend: ["coriolis", "shear"])
    with pytest.warns(RuntimeWarning, match="shear.*shear = -1"):
        assert simulation._auto_backend({"shear": -1.0}) == "cpu"


class _DeviceArrays:
    """A stand-in for CuPy (ShearingFaces' xp): arrays that reach the host through get() alone."""

    class ndarray:
        def __init__(self, values):
            self.values, self.dtype = values, values.dtype

        def __getitem__(self, index):
            return type(self)(self.values[index])

        def get(self):
            return self.values.copy()

    @classmethod
    def stack(cls, pieces):
        return cls.ndarray(np.stack([p.values for p in pieces]))


class _OneRank:
    """A stand-in for the decomposition and communicator of a grid split along y whose one rank here holds
    both x faces and the whole y (allgather hands back its own planes)."""

    def __init__(self, shape):
        self.local_shape = self.global_shape = shape
        self.offset, self.coords, self.dims = (0, 0, 0), (0, 0, 0), (1, 2, 1)

    def allgather(self, value):
        return [value]


class _Ghosts:
    """A stand-in for the Grid: the sources that shear_ghosts is handed, by face."""

    def __init__(self):
        self.sources = {}

    def shear_ghosts(self, s, face, source):
        assert isinstance(source, np.ndarray) and source.flags.c_contiguous
        self.sources[face] = source.copy()


@pytest.mark.parametrize("device", [False, True], ids=["host", "device"])
def test_the_split_x_faces_hand_the_planes_of_host_or_device_arrays_to_the_grid_on_the_host(device):
    """ShearingFaces (a grid split along x or y, parallel.py) takes the three interior planes next to each x
    face from the fields on the host (NumPy) or on the GPU (CuPy: brought to the host to travel over MPI),
    and hands each face the other face's planes over the whole y, as one host array, to Grid.shear_ghosts
    (which on the GPU copies them to the device): the same arrays either way."""
    from astaroth.parallel import ShearingFaces

    shape, lo = (7, 5, 4), (3, 3, 3)
    rng = np.random.default_rng(8)
    padded = [rng.standard_normal((shape[2] + 6, shape[1] + 6, shape[0] + 6)) for _ in range(2)]
    faces = object.__new__(ShearingFaces)
    faces.d, faces.comm, faces.grid, faces.lo = _OneRank(shape), _OneRank(shape), _Ghosts(), lo
    faces.lower = faces.upper = True
    faces.xp = _DeviceArrays if device else np
    faces.fill(0, [_DeviceArrays.ndarray(f) for f in padded] if device else padded)
    interior = (slice(3, 3 + shape[2]), slice(3, 3 + shape[1]))
    want = {0: np.stack([f[interior + (slice(shape[0], shape[0] + 3),)] for f in padded]),
            1: np.stack([f[interior + (slice(3, 6),)] for f in padded])}
    assert faces.grid.sources.keys() == want.keys()
    for face in want:
        np.testing.assert_array_equal(faces.grid.sources[face], want[face])


def _sheared_pad(f, shift):
    """f (whole, [x, y, z]) with 3 planes of images on every side: along x the opposite face's planes shifted
    along y by `shift` grid points (f(x + Lx, y) = f(x, y + deltay), astaroth.analysis.shearing_images with
    deltay a whole number of dy, where the six-point interpolation is exact), along y and z periodic."""
    upper, lower = np.roll(f[:3], -shift, axis=1), np.roll(f[-3:], shift, axis=1)
    return np.pad(np.concatenate([lower, f, upper], axis=0), ((0, 0), (3, 3), (3, 3)), mode="wrap")


def _shock_profile_reference(u, spacing, nu_shock, shift):
    """zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]] (tests/entropy_reference.py's shock_profile), every
    pass reading the images of what the pass before wrote through _sheared_pad."""
    n = u[0].shape
    inner = lambda a, d: tuple(slice(3 + (d if b == a else 0), 3 + (d if b == a else 0) + n[b]) for b in range(3))
    div = 0.0
    for a in range(3):
        p = _sheared_pad(u[a], shift)
        r = lambda d: p[inner(a, d)]
        div = div + (45 * (r(1) - r(-1)) - 9 * (r(2) - r(-2)) + (r(3) - r(-3))) / (60 * spacing[a])
    z = np.maximum(-div, 0.0)
    p = _sheared_pad(z, shift)
    z = np.max([p[3 + i:3 + i + n[0], 3 + j:3 + j + n[1], 3 + k:3 + k + n[2]]
                for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)], axis=0)
    for a in range(3):
        p = _sheared_pad(z, shift)
        z = (p[inner(a, -1)] + 2 * p[inner(a, 0)] + p[inner(a, 1)]) / 4
    return nu_shock * min(spacing) ** 2 * z


def sheared_shock_profile(backend, **terms):
    """The shock profile of random velocity waves in a shearing box at deltay = 5 dy (sim.shock_viscosity()),
    of the NumPy statement with the shifted images, and of it with periodic ones."""
    shape, box, nu_shock = (14, 20, 10), (1.0, 1.6, 0.9), 1.3
    sim = ac.Simulation(shape=shape, box=box, cs=1.0, nu=0.01, shear=-1.5, nu_shock=nu_shock, backend=backend,
                        **terms)
    x, y, z = np.meshgrid(*[np.arange(n) * h for n, h in zip(shape, sim.spacing)], indexing="ij")
    rng = np.random.default_rng(3)
    u = []
    for name in ("ux", "uy", "uz"):
        f = sum(rng.normal() * np.sin(2 * np.pi * (kx * x / box[0] + ky * y / box[1] + kz * z / box[2]) + rng.uniform(0, 6))
                for kx, ky, kz in [(1, 1, 0), (1, 2, 1), (2, 1, 1), (0, 3, 1)])
        sim[name] = f
        u.append(sim[name])
    sim.deltay = 5 * sim.spacing[1]
    return (ac.analysis.host_array(sim.shock_viscosity()), _shock_profile_reference(u, sim.spacing, nu_shock, 5),
            _shock_profile_reference(u, sim.spacing, nu_shock, 0))


def test_the_shock_profile_of_a_shearing_box_takes_its_shifted_x_images():
    """With shock viscosity every pass of the profile fills its x ghost zones with the shearing box's
    shifted images, as the fields' are: at deltay = 5 dy against a NumPy statement to round-off, and away
    from the periodic images' profile near the x faces (the GPU's: tests/test_shear_gpu.py)."""
    zeta, expected, periodic = sheared_shock_profile("cpu")
    assert np.max(np.abs(zeta - expected)) <= 1e-13 * np.max(expected)
    assert np.max(np.abs(zeta - periodic)) > 1e-2 * np.max(expected)


def test_auto_keeps_the_gpu_for_shear_with_shock_viscosity(monkeypatch):
    """Both backends shift the profile's x images (csrc/cuda/shock.cuh's passes on the GPU), so auto takes
    the GPU for the shearing box with shock viscosity, without a warning."""
    monkeypatch.setattr(simulation, "default_backend", lambda: "cuda")
    monkeypatch.setattr(simulation._core, "terms_missing", lambda backend: [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert simulation._auto_backend({"shear": -1.0, "nu_shock": 1.0}) == "cuda"
        assert simulation._auto_backend({"qshear": 1.5, "omega": (0, 0, 1), "nu_shock": 1.0}) == "cuda"
