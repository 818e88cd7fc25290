"""Walls and gravity with the entropy equation (energy="entropy", field ss)
and the passive scalar (cc): their ghost fills against NumPy, hydrostatic
layers at rest (isothermal: round-off; polytropic: truncation error falling
with resolution), the energy budget with the potential energy, snapshots,
the TOML file, ensembles (tests/test_walls_mpi.py runs make_entropy_wall_case
over MPI ranks)."""
import math

import numpy as np
import pytest

import astaroth as ac
from test_walls import BACKENDS, HYDRO_WALL, WALL_TOML, assert_close_to_cpu, assert_fills_as_numpy, continues_bit_for_bit, run_from_file

GAMMA, CP = 5.0 / 3.0, 1.0
LAYER_WALL = {**HYDRO_WALL, "ss": "a2"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("walls", ["z", "xz"])
def test_ghost_fills_of_ss_and_cc_against_numpy(walls, backend):
    """Every kind on ss and cc (and A) at both faces, MHD + entropy + passive scalar, on each backend."""
    faces = {**HYDRO_WALL, "ax": "a", "ay": ("s", "a2"), "az": "set:0.5", "ss": ("set:-0.25", "a2"),
             "cc": ("a", "s")}
    sim = ac.Simulation(shape=(7, 6, 8), box=(1.0, 2.0, 3.0), backend=backend, physics="mhd", energy="entropy",
                        passive_scalar=True, boundaries={axis: faces for axis in walls})
    assert sim.field_names[-2:] == ("ss", "cc")
    assert_fills_as_numpy(sim, faces, walls, seed=5)


def isothermal_layer(n, g=1.0, cs=1.0, chi=1e-2):
    """T uniform: lnrho = -gamma g z / cs^2 and ss = -(gamma - 1) lnrho cp / gamma
    (lnTT = lnTT0), both linear, 'set' ss on the walls at their exact values."""
    z = np.linspace(0.0, 2.0, n)
    lnrho = -GAMMA * g * z / cs ** 2
    ss = -(GAMMA - 1) * lnrho * CP / GAMMA
    bc = {"z": {**HYDRO_WALL, "ss": (f"set:{float(ss[0])!r}", f"set:{float(ss[-1])!r}")}}
    sim = ac.Simulation(shape=(4, 4, n), box=(1.0, 1.0, 2.0), backend="cpu", boundaries=bc, gravity=(0, 0, -g),
                        nu=1e-2, cs=cs, energy="entropy", gamma=GAMMA, cp=CP, chi=chi)
    sim["lnrho"] = np.broadcast_to(lnrho, sim.shape).copy()
    sim["ss"] = np.broadcast_to(ss, sim.shape).copy()
    return sim


def test_isothermal_layer_with_entropy_stays_at_rest():
    """Linear lnrho and ss: the stencils, the 'a2' and 'set' ghosts and the
    conduction term are exact on them, so the flow is round-off."""
    for n in (16, 32):
        sim = isothermal_layer(n)
        sim.run(until=1.0)
        umax = max(np.abs(sim[c]).max() for c in ("ux", "uy", "uz"))
        assert umax < 1e-12, (n, umax)
        assert np.all(sim["uz"][:, :, [0, -1]] == 0)


def polytropic_layer(n, m=1.5, ratio=0.5, g=1.0, chi=0.0, nu=1e-2, shape_xy=(4, 4), boundaries=None, **kw):
    """A polytrope of index m in hydrostatic equilibrium under g = (0, 0, -g):
    T = T0 + beta z, beta = -g / (R (m + 1)), R = cp (gamma - 1) / gamma,
    rho = (T / T0)^m, T falling to ratio T0 at the top; cs = 1 at the bottom
    (T0 = cs^2 / (cp (gamma - 1)), rho0 = 1).  Returns the simulation."""
    R = CP * (GAMMA - 1) / GAMMA
    T0 = 1.0 / (CP * (GAMMA - 1))
    beta = -g / (R * (m + 1))
    L = (ratio - 1) * T0 / beta
    bc = boundaries or {"z": LAYER_WALL}
    sim = ac.Simulation(shape=(*shape_xy, n), box=(1.0, 1.0, L), backend="cpu", boundaries=bc, gravity=(0, 0, -g),
                        nu=nu, cs=1.0, energy="entropy", gamma=GAMMA, cp=CP, chi=chi, **kw)
    T = T0 + beta * sim.z
    lnrho = m * np.log(T / T0)
    sim["lnrho"] = np.broadcast_to(lnrho, sim.shape).copy()
    sim["ss"] = np.broadcast_to((np.log(T / T0) - (GAMMA - 1) * lnrho) * CP / GAMMA, sim.shape).copy()
    return sim


def test_polytropic_layer_stays_at_rest_to_truncation_error():
    """An adiabatic (chi = 0) polytrope between walls: its lnrho and ss are
    not polynomials, so it accelerates by truncation error.  Inside, the
    sixth-order stencils give a right-hand side of order >= 5 (5.1, 5.5
    measured); next to the walls the 'a2' ghosts (odd about the wall value,
    as the Pencil Code's) miss the curvature of lnrho and ss, an O(dz) force
    on the first points; the velocity that develops by t = 0.5 falls at order
    3 (3.15, 3.01 measured)."""
    sizes, interior, umax = (17, 33, 65), [], []
    for n in sizes:
        sim = polytropic_layer(n)
        interior.append(np.abs(sim.rhs()["uz"][:, :, 4:-4]).max())
        sim.run(until=0.5)
        umax.append(np.abs(sim["uz"]).max())
    order = [math.log2(a[i] / a[i + 1]) for a in (interior, umax) for i in range(len(sizes) - 1)]
    print("interior rhs", interior, "umax", umax, "orders", order)
    assert min(order[:2]) >= 5, order
    assert min(order[2:]) >= 2.8 and umax[-1] < 1e-6, order


def test_energy_budget_with_gravity_is_conserved_between_walls():
    """A convection roll (s/a walls) in an adiabatic polytropic layer between
    stress-free walls trades kinetic, thermal and potential energy; their
    volume mean (analysis.energy_budget, the walls at half weight) stays
    constant to truncation error: 4.7e-4 of the exchange at 33 points in z
    (6.7e-3 at 17, 4.1e-4 at 65, where the time error takes over)."""
    sim = polytropic_layer(33, nu=5e-3, shape_xy=(8, 1))
    kx, L = 2 * np.pi, sim.z[-1]
    x, z = sim.x[:, None, None], sim.z[None, None, :]
    sim["uz"] = np.broadcast_to(0.05 * np.sin(kx * x) * np.sin(np.pi * z / L), sim.shape).copy()
    sim["ux"] = np.broadcast_to(-0.05 * (np.pi / L) / kx * np.cos(kx * x) * np.cos(np.pi * z / L), sim.shape).copy()
    start = ac.analysis.energy_budget(sim)
    sim.run(until=0.5)
    end = ac.analysis.energy_budget(sim)
    exchange = max(abs(end[k] - start[k]) for k in ("kinetic", "thermal", "potential"))
    drift = abs(end["total"] - start["total"])
    assert abs(end["potential"] - start["potential"]) > 0.1 * exchange and exchange > 5e-5
    assert drift < 1e-3 * exchange, (drift, exchange)
    assert ac.analysis.total_energy(sim) == end["total"]


def test_timeseries_has_epot_and_etotm_counts_it(tmp_path):
    sim = polytropic_layer(17)
    ac.init.random_velocity(sim, urms=0.01, seed=2)
    sim.run(until=0.02, timeseries=tmp_path / "ts.csv", diagnostics_every=1)
    ts = np.genfromtxt(tmp_path / "ts.csv", delimiter=",", names=True)
    assert "epot" in ts.dtype.names and "etotm" in ts.dtype.names
    assert ts["epot"][-1] == pytest.approx(ac.analysis.potential_energy(sim), rel=1e-12)
    assert ts["etotm"][-1] == pytest.approx(ac.analysis.total_energy(sim), rel=1e-12)
    no_gravity = ac.Simulation(shape=8, backend="cpu", energy="entropy")
    assert "epot" not in ac.diagnostics.columns(no_gravity)


def make_entropy_wall_case(comm=None, gravity=(0.1, 0.0, -0.5), backend="cpu", exchange="auto", x_walls=True):
    """Entropy, a passive scalar and MHD between walls in x and z (z split over
    MPI ranks), gravity, conduction, 'set' entropy on the z walls, a random
    flow (tests/test_walls_mpi.py runs it on 1, 2 and 4 ranks; `exchange`:
    how GPU ranks exchange their ghost zones; x_walls=False: periodic in x)."""
    faces = {**HYDRO_WALL, "ss": ("set:0.05", "set:-0.05"), "cc": "s", "ax": "a", "ay": "a", "az": "s"}
    walls = {"x": {**faces, "ux": "a", "uz": "s", "ss": "s"}, "z": faces} if x_walls else {"z": faces}
    sim = ac.Simulation(shape=(8, 6, 16), box=(1.0, 0.75, 2.0), nu=2e-2, backend=backend, comm=comm,
                        exchange=exchange, energy="entropy", chi=2e-2, passive_scalar=True, pscalar_diff=1e-2,
                        physics="mhd", eta=2e-2, boundaries=walls, gravity=gravity)
    ac.init.random_velocity(sim, urms=0.05, seed=7)
    rng = np.random.default_rng(8)
    for name in ("ss", "cc", "ax", "ay", "az"):
        sim[name] = 0.01 * rng.standard_normal(sim.shape)  # every rank draws the same
    return sim


def test_entropy_walls_hold_their_values_and_snapshots_continue_bit_for_bit(tmp_path):
    a = continues_bit_for_bit(make_entropy_wall_case, tmp_path, 0.05, 0.1)
    assert np.all(a["ss"][:, :, 0] == 0.05) and np.all(a["ss"][:, :, -1] == -0.05)
    assert np.all(a["ax"][[0, -1]] == 0) and np.all(a["uz"][:, :, [0, -1]] == 0) and a.energy == "entropy"


def test_ensemble_members_with_entropy_walls_run_as_alone():
    alone = make_entropy_wall_case()
    alone.run(until=0.03)
    member, other = make_entropy_wall_case(), make_entropy_wall_case(gravity=(0.0, 0.0, -2.0))
    ac.Ensemble([member, other]).run(until=0.03)
    for name in alone.field_names:
        assert member[name].tobytes() == alone[name].tobytes(), name
    assert other["uz"].mean() < alone["uz"].mean() - 0.01  # it fell under its own gravity


def test_errors_name_axis_and_field():
    with pytest.raises(ValueError, match=r"boundaries\['z'\].*no kind for field 'ss'"):
        ac.Simulation(shape=8, backend="cpu", energy="entropy", boundaries={"z": HYDRO_WALL})
    with pytest.raises(ValueError, match=r"boundaries\['x'\]\['cc'\].*unknown kind 'sym'"):
        ac.Simulation(shape=8, backend="cpu", passive_scalar=True, boundaries={"x": {**HYDRO_WALL, "cc": "sym"}})
    with pytest.raises(ValueError, match=r"boundaries\['y'\]\['ss'\].*'set' needs a finite value"):
        ac.Simulation(shape=8, backend="cpu", energy="entropy", boundaries={"y": {**HYDRO_WALL, "ss": "set:nan"}})


# test_walls.WALL_TOML with entropy, conduction, a passive scalar and their walls
ENTROPY_WALL_TOML = WALL_TOML.replace("nu = 0.02\n", 'nu = 0.02\nenergy = "entropy"\nchi = 0.02\npassive_scalar = true\n').replace(
    'lnrho = ["a2", "set:0.0"] }', 'lnrho = "a2", ss = ["set:0.1", "set:-0.1"], cc = "s" }')


def test_an_entropy_wall_run_from_a_file_and_its_restart(tmp_path):
    pytest.importorskip("h5py")
    status, out = run_from_file(tmp_path, ENTROPY_WALL_TOML)
    assert status == 0
    sim = ac.load(out / "checkpoint.h5", backend="cpu")
    assert sim.boundaries["z"]["ss"] == ("set:0.1", "set:-0.1") and np.all(sim["ss"][:, :, -1] == -0.1)
    ts = np.genfromtxt(out / "timeseries.csv", delimiter=",", names=True)
    assert "epot" in ts.dtype.names and np.all(np.isfinite(ts["etotm"]))
    assert run_from_file(tmp_path, ENTROPY_WALL_TOML.replace("until = 0.2", "until = 0.3"), "--restart")[0] == 0
    assert ac.load(out / "checkpoint.h5", backend="cpu").t == pytest.approx(0.3)


def test_analysis_and_ops_with_entropy_walls():
    """Derivatives on the wall axis are one-sided there (ops.derivative(walls=True));
    the temperature gradient of the polytrope is its constant beta to truncation error."""
    sim = polytropic_layer(33)
    T = ac.analysis.temperature(sim)
    dT = ac.ops.derivative(T, 2, 1, 6, sim.spacing[2], walls=True)
    beta = -1.0 / (CP * (GAMMA - 1) / GAMMA * 2.5)
    np.testing.assert_allclose(dT, beta, rtol=1e-10)
    div = ac.analysis.divergence(sim)
    assert np.all(div == 0)


def test_the_convection_notebooks_layer_grows_at_the_linear_rate():
    """astaroth.stability.conv_slab (notebooks/convection.ipynb) grows at the
    most unstable mode's rate of the Chebyshev eigenvalue problem
    (tests/test_entropy_reference.py checks that against Rayleigh's onset)."""
    from astaroth import stability

    sim, layer, k, rate = stability.conv_slab(shape=(32, 1, 32), progress=False)
    assert sim.boundaries["z"]["uz"] == ("a", "a") and sim.box[0] == pytest.approx(2 * math.pi / k)
    t, ekin = [sim.t], [ac.analysis.energy_budget(sim)["kinetic"]]
    while sim.t < 20:
        sim.run(until=sim.t + 2.0)
        t.append(sim.t)
        ekin.append(ac.analysis.energy_budget(sim)["kinetic"])
    assert stability.growth_rate(t[1:], ekin[1:]) == pytest.approx(rate, rel=5e-3)


# --- CUDA: the same runs on the GPU (marker gpu; skipped without one) ------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("dtype, tolerance", [("float64", 1e-11), ("float32", 2e-4)])
def test_gpu_entropy_walls_and_gravity_agree_with_the_cpu(dtype, tolerance):
    """make_entropy_wall_case (MHD, entropy, passive scalar, walls in x and z,
    gravity) stepped on the GPU against the CPU."""
    runs = []
    for backend in ("cpu", "cuda"):
        cpu = make_entropy_wall_case()
        sim = ac.Simulation(shape=cpu.shape, box=cpu.box, nu=cpu.nu, backend=backend, dtype=dtype, energy="entropy",
                            chi=cpu.chi, passive_scalar=True, pscalar_diff=cpu.pscalar_diff, physics="mhd",
                            eta=cpu.eta, boundaries=cpu.boundaries, gravity=cpu.gravity)
        for name in sim.field_names:
            sim[name] = cpu[name]
        for _ in range(10):
            sim.step(2e-3)
        runs.append(sim)
    cpu, gpu = runs
    assert_close_to_cpu(cpu, gpu, tolerance)
    assert np.all(gpu["ss"][:, :, 0] == gpu.dtype.type(0.05)) and np.all(gpu["uz"][:, :, [0, -1]] == 0)
