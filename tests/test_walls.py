"""Walls (astaroth.boundaries) and gravity: the ghost fills of every kind
against NumPy, a hydrostatic atmosphere at rest, a sound pulse reflected by
a wall as linear theory has it, the mass between walls conserved to
truncation error, errors that name what is wrong, snapshots."""
import ctypes
import math

import numpy as np
import pytest

import astaroth as ac
from astaroth.boundaries import KINDS

HYDRO_WALL = {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2"}
GHOST = 3


BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def padded(sim, field, s=0):
    """The padded array of set s of one field, indexed [k, j, i]: a view of
    the CPU's memory, or a host copy of the GPU's."""
    m0, m1, m2 = sim._grid.padded_shape
    address = sim._grid.padded_address(s, sim.field_names.index(field))
    nbytes = m0 * m1 * m2 * sim.dtype.itemsize
    if sim.backend == "cuda":
        import cupy
        memory = cupy.cuda.UnownedMemory(address, nbytes, sim)
        return cupy.ndarray((m2, m1, m0), dtype=sim.dtype, memptr=cupy.cuda.MemoryPointer(memory, 0)).get()
    buffer = (ctypes.c_char * nbytes).from_address(address)
    return np.frombuffer(buffer, dtype=sim.dtype).reshape(m2, m1, m0)


def numpy_fill(a, lo, n, kinds):
    """The statement of csrc/boundaries.h in NumPy on a padded [k, j, i]
    array: wall values, then axes x, y, z, each over the whole padded
    extent of the others.  kinds[axis] = ((kind, value) lower, upper) or None
    (periodic)."""
    a = a.copy()
    dims = {0: 2, 1: 1, 2: 0}  # grid axis -> array dimension

    def take(axis, i):
        index = [slice(None)] * 3
        index[dims[axis]] = i
        return tuple(index)

    for axis in range(3):
        if kinds[axis] is None:
            continue
        for face, (kind, value) in enumerate(kinds[axis]):
            w = lo[axis] if face == 0 else lo[axis] + n[axis] - 1
            inner = [slice(lo[b], lo[b] + n[b]) for b in range(3)]
            index = [None] * 3
            for b in range(3):
                index[dims[b]] = w if b == axis else inner[b]
            if kind == "a":
                a[tuple(index)] = 0
            elif kind == "set":
                a[tuple(index)] = value
    for axis in range(3):
        if kinds[axis] is None:
            for q in range(GHOST):
                a[take(axis, lo[axis] - GHOST + q)] = a[take(axis, lo[axis] + n[axis] - GHOST + q)]
                a[take(axis, lo[axis] + n[axis] + q)] = a[take(axis, lo[axis] + q)]
            continue
        for face, (kind, value) in enumerate(kinds[axis]):
            w = lo[axis] if face == 0 else lo[axis] + n[axis] - 1
            out = -1 if face == 0 else 1
            for i in range(1, GHOST + 1):
                mirror = a[take(axis, w - out * i)]
                wall = a[take(axis, w)]
                a[take(axis, w + out * i)] = (mirror if kind == "s" else -mirror if kind == "a"
                                              else 2 * wall - mirror)
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("walls", ["x", "y", "z", "xz", "xyz"])
def test_ghost_fills_against_numpy(dtype, walls, backend):
    """Every kind at both faces of each wall axis (pairs: a different kind
    on each face), against the NumPy statement, on each backend."""
    faces = {"lnrho": ("a2", "set:0.25"), "ux": ("s", "a"), "uy": ("a", "a2"), "uz": ("set:-1.5", "s")}
    bc = {axis: faces for axis in walls}
    sim = ac.Simulation(shape=(7, 6, 8), box=(1.0, 2.0, 3.0), dtype=dtype, backend=backend, boundaries=bc)
    assert_fills_as_numpy(sim, faces, walls, seed=3)


def assert_fills_as_numpy(sim, faces, walls, seed):
    """Random fields, then the backend's wall values and ghost fills (axes x,
    y, z) against numpy_fill; faces[field]: a kind or (lower, upper)."""
    rng = np.random.default_rng(seed)
    for name in sim.field_names:
        sim[name] = rng.standard_normal(sim.shape)
    before = {name: padded(sim, name).copy() for name in sim.field_names}
    sim._grid.set_walls(0)
    for axis in range(3):
        sim._grid.fill_ghost_axis(0, axis)
    lo, n = sim._grid.interior_start, sim.shape
    window = tuple(slice(lo[d] - GHOST, lo[d] + n[d] + GHOST) for d in (2, 1, 0))

    def parsed(spec):
        kind, _, value = spec.partition(":")
        return kind, float(value or 0.0)

    for name in sim.field_names:
        pair = faces[name] if isinstance(faces[name], tuple) else (faces[name],) * 2
        kinds = [tuple(parsed(s) for s in pair) if "xyz"[a] in walls else None for a in range(3)]
        np.testing.assert_array_equal(padded(sim, name)[window], numpy_fill(before[name], lo, n, kinds)[window],
                                      err_msg=f"{name}, walls {walls}")


def hydrostatic(n, axis=2, g=1.3, cs=0.8):
    shape = [4, 4, 4]
    shape[axis] = n
    bc = {"xyz"[axis]: {**{c: "s" for c in ("ux", "uy", "uz")}, "u" + "xyz"[axis]: "a", "lnrho": "a2"}}
    gravity = [0.0, 0.0, 0.0]
    gravity[axis] = -g
    sim = ac.Simulation(shape=tuple(shape), box=(1.0, 1.0, 2.0), backend="cpu", boundaries=bc, gravity=gravity,
                        nu=1e-2, cs=cs)
    coordinate = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")[axis]
    sim["lnrho"] = -g * coordinate / cs ** 2
    return sim


@pytest.mark.parametrize("axis", [0, 2])
def test_hydrostatic_atmosphere_stays_at_rest(axis):
    """lnrho = -g z / cs^2 between walls: the sixth-order stencils and the
    'a2' ghosts are exact on it, so the flow it develops is round-off at
    every resolution (a truncation error, where there is one, would be 0)."""
    for n in (16, 32):
        sim = hydrostatic(n, axis)
        sim.run(until=1.0)
        umax = max(np.abs(sim[c]).max() for c in ("ux", "uy", "uz"))
        assert umax < 1e-12, (n, umax)
        assert np.all(sim["u" + "xyz"[axis]].take([0, -1], axis=axis) == 0)  # 'a': 0 on the walls


def test_gravity_accelerates_uniformly():
    """Without pressure gradients, du/dt = g exactly (a term with no derivatives)."""
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu", gravity=(0.5, -0.25, 2.0))
    sim.step(0.01)
    for c, g in zip(("ux", "uy", "uz"), (0.5, -0.25, 2.0)):
        np.testing.assert_allclose(sim[c], g * 0.01, rtol=1e-12)
    np.testing.assert_allclose(sim.rhs()["uz"], 2.0, rtol=1e-12)


def pulse_run(n, until, amplitude=1e-3, width=0.1, L=2.0, dt=None, backend="cpu"):
    bc = {"z": {"ux": "s", "uy": "s", "uz": "a", "lnrho": "s"}}
    sim = ac.Simulation(shape=(1, 1, n), box=(1.0, 1.0, L), backend=backend, boundaries=bc, nu=1e-4, cs=1.0)
    z = sim.z
    sim["lnrho"] = np.broadcast_to(amplitude * np.exp(-((z - 0.5 * L) / width) ** 2), sim.shape).copy()
    start = sim["lnrho"][0, 0].copy()
    if dt is None:
        sim.run(until=until)
    else:
        steps = int(round(until / dt))
        for _ in range(steps):
            sim.step(until / steps)
    return sim, start


@pytest.mark.parametrize("backend", BACKENDS)
def test_sound_pulse_reflects_and_returns(backend):
    """A pulse in the middle splits into two, each reflected by an 'a' wall
    (normal velocity) and back at its start after L / cs, with the amplitude
    and shape of linear theory: the method of images (the wall adds the
    mirror image of each half), and the viscous damping of sound, whose
    amplitude decays as exp(-(2/3) nu k^2 t): a Gaussian of width w spreads
    as under diffusion with D = 2 nu / 3."""
    L, amplitude, width, nu = 2.0, 1e-3, 0.1, 1e-4

    def linear(z, t, centres):
        s2 = width ** 2 + 4 * (2 * nu / 3) * t
        return amplitude * width / math.sqrt(s2) * sum(np.exp(-(z - c) ** 2 / s2) for c in centres) / 2

    sim, start = pulse_run(257, until=L, amplitude=amplitude, width=width, L=L, backend=backend)
    back = sim["lnrho"][0, 0]
    expected = linear(sim.z, L, (L / 2, L / 2))  # both halves back in the middle
    assert np.argmax(back) == np.argmax(start)
    assert np.abs(back - expected).max() < 1e-3 * amplitude, np.abs(back - expected).max() / amplitude
    assert abs(back.max() / expected.max() - 1) < 1e-3
    # halfway, each half sits on its wall with its image: the amplitude is back to the whole pulse's there
    half, _ = pulse_run(257, until=L / 2, amplitude=amplitude, width=width, L=L, backend=backend)
    at = half["lnrho"][0, 0]
    expected = linear(half.z, L / 2, (0.0, 0.0, L, L))
    assert np.abs(at - expected).max() < 1e-3 * amplitude, np.abs(at - expected).max() / amplitude
    assert abs(at[len(at) // 2]) < 1e-3 * amplitude


def total_mass(sim):
    rho = np.exp(sim["lnrho"][0, 0])
    weights = np.ones_like(rho)
    weights[[0, -1]] = 0.5  # the walls: half cells (trapezoid rule, exact for the even extension)
    return float((rho * weights).sum() * sim.spacing[2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_mass_between_walls_drifts_at_truncation_level(backend):
    """The scheme evolves lnrho, so it does not conserve mass by construction;
    between walls the drift is truncation error, falling at order >= 5 (a
    small fixed dt keeps the time error below it)."""
    drifts = []
    sizes = (33, 49, 65)
    for n in sizes:
        bc = {"z": {"ux": "s", "uy": "s", "uz": "a", "lnrho": "s"}}
        sim = ac.Simulation(shape=(1, 1, n), box=(1.0, 1.0, 2.0), backend=backend, boundaries=bc, nu=1e-3)
        sim["lnrho"] = np.broadcast_to(1e-2 * np.exp(-((sim.z - 0.7) / 0.3) ** 2), sim.shape).copy()
        m0 = total_mass(sim)
        for _ in range(2000):
            sim.step(2.5e-4)
        drifts.append(abs(total_mass(sim) - m0) / m0)
    orders = [math.log(drifts[i] / drifts[i + 1]) / math.log((sizes[i + 1] - 1) / (sizes[i] - 1))
              for i in range(len(sizes) - 1)]
    print("relative mass drift", drifts, "orders", orders)
    assert drifts[0] < 1e-11
    assert min(orders) >= 5, (drifts, orders)


def test_wall_grid_and_errors():
    sim = ac.Simulation(shape=(8, 8, 11), box=(1.0, 1.0, 2.0), origin=(0, 0, -1.0), backend="cpu",
                        boundaries={"z": HYDRO_WALL})
    assert sim.spacing == (1 / 8, 1 / 8, 0.2)
    assert sim.z[0] == -1.0 and abs(sim.z[-1] - 1.0) < 1e-15
    assert sim.boundaries == {"z": {"lnrho": ("a2", "a2"), "ux": ("s", "s"), "uy": ("s", "s"), "uz": ("a", "a")}}

    def make(bc, **kw):
        return ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries=bc, **kw)

    with pytest.raises(ValueError, match=r"boundaries\['z'\].*'lnrho'"):
        make({"z": {"ux": "s", "uy": "s", "uz": "a"}})
    with pytest.raises(ValueError, match=r"boundaries\['y'\]\['uz'\].*unknown kind 'b'"):
        make({"y": {**HYDRO_WALL, "uz": "b"}})
    with pytest.raises(ValueError, match=r"boundaries\['x'\]\['ux'\].*'set' needs a finite value"):
        make({"x": {**HYDRO_WALL, "ux": "set:"}})
    with pytest.raises(ValueError, match="unknown axis 'w'"):
        make({"w": HYDRO_WALL})
    with pytest.raises(ValueError, match="'cc' is not a field"):
        make({"z": {**HYDRO_WALL, "cc": "s"}})
    with pytest.raises(ValueError, match=r"boundaries\['z'\]\['ux'\]: a kind or a pair"):
        make({"z": {**HYDRO_WALL, "ux": ("s", "a", "s")}})
    with pytest.raises(ValueError, match="at least 4 points"):
        ac.Simulation(shape=(8, 8, 3), backend="cpu", boundaries={"z": HYDRO_WALL})
    with pytest.raises(ValueError, match="55p"):
        make({"z": HYDRO_WALL}, method="19p")
    with pytest.raises(ValueError, match="nu_shock"):
        make({"z": HYDRO_WALL}, nu_shock=1.0)
    sim = make({"z": HYDRO_WALL})
    with pytest.raises(ValueError, match="forcing assumes periodic axes and 'z' has walls"):
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1)
    with pytest.raises(ValueError, match="gravity"):
        ac.Simulation(shape=(8, 8, 8), backend="cpu", gravity=(0, 0, math.inf))


def test_mhd_walls_and_set_values_hold():
    """MHD with walls on two axes; 'a' walls are 0 and 'set' walls hold their
    value in every snapshot."""
    faces = {**HYDRO_WALL, "ax": "a", "ay": "a", "az": ("s", "set:0.01")}
    sim = ac.Simulation(shape=(8, 8, 12), box=(1.0, 1.0, 1.5), backend="cpu", physics="mhd", eta=1e-2,
                        boundaries={"x": faces, "z": faces}, gravity=(0, 0, -0.5))
    ac.init.random_velocity(sim, urms=0.05, seed=2)
    sim.run(until=0.05)
    assert sim.steps > 0 and np.all(np.isfinite(sim["ax"]))
    assert np.all(sim["ax"][[0, -1]] == 0) and np.all(sim["ax"][:, :, [0, -1]] == 0)
    assert np.all(sim["az"][:, :, -1] == 0.01)


def continues_bit_for_bit(make, tmp_path, half, end):
    """A run of make() saved at t = half and loaded goes on to t = end as the
    run that was not stopped (the walls, spacing and gravity restored);
    returns the run."""
    a = make()
    a.run(until=half)
    a.save(tmp_path / "half.h5", xdmf=False)
    a.run(until=end)
    b = ac.load(tmp_path / "half.h5", backend="cpu")
    assert b.boundaries == a.boundaries and b.spacing == a.spacing and tuple(b.gravity) == tuple(a.gravity)
    b.run(until=end)
    for name in a.field_names:
        assert a[name].tobytes() == b[name].tobytes(), name
    return a


def test_snapshot_round_trip_continues_bit_for_bit(tmp_path):
    bc = {"z": {**HYDRO_WALL, "lnrho": ("a2", "set:-0.5")}}

    def make():
        sim = ac.Simulation(shape=(8, 6, 10), box=(1.0, 1.0, 1.0), backend="cpu", boundaries=bc,
                            gravity=(0.0, 0.0, -0.5), nu=2e-2)
        ac.init.random_velocity(sim, urms=0.05, seed=4)
        return sim

    assert tuple(continues_bit_for_bit(make, tmp_path, 0.1, 0.2).gravity) == (0.0, 0.0, -0.5)


WALL_TOML = """
[grid]
shape = [8, 6, 12]
box = [1.0, 1.0, 1.5]
[physics]
nu = 0.02
gravity = [0.0, 0.0, -0.4]
[boundaries]
z = { ux = "s", uy = "s", uz = "a", lnrho = ["a2", "set:0.0"] }
[numerics]
backend = "cpu"
[initial]
kind = "random_velocity"
urms = 0.05
[output]
dir = "OUT"
until = 0.2
snapshot_every = 0.1
progress = false
"""


def run_from_file(tmp_path, text, *args):
    """`astaroth run` of TOML `text` (OUT: its output folder) with extra
    arguments; returns the exit status and the output folder."""
    from astaroth.cli import main

    out = tmp_path / "out"
    path = tmp_path / "walls.toml"
    path.write_text(text.replace("OUT", str(out)))
    return main(["run", str(path), *args, "--quiet", "--no-plot"]), out


def test_a_wall_run_from_a_file_and_its_restart(tmp_path):
    pytest.importorskip("h5py")
    status, out = run_from_file(tmp_path, WALL_TOML)
    assert status == 0
    sim = ac.load(out / "checkpoint.h5", backend="cpu")
    assert sim.boundaries["z"]["lnrho"] == ("a2", "set:0.0") and tuple(sim.gravity) == (0.0, 0.0, -0.4)
    assert sim.spacing[2] == 1.5 / 11 and np.all(sim["lnrho"][:, :, -1] == 0.0)
    assert run_from_file(tmp_path, WALL_TOML.replace("until = 0.2", "until = 0.3"), "--restart")[0] == 0
    assert ac.load(out / "checkpoint.h5", backend="cpu").t == pytest.approx(0.3)
    # the walls cannot change on a restart
    assert run_from_file(tmp_path, WALL_TOML.replace('uz = "a"', 'uz = "s"').replace("0.2", "0.4"), "--restart")[0] != 0
    (tmp_path / "bad").mkdir()
    assert run_from_file(tmp_path / "bad", WALL_TOML.replace('uz = "a"', 'uz = "q"'))[0] != 0


@pytest.mark.parametrize("n", [1, 2])
def test_ops_derivative_with_walls_is_sixth_order_to_the_ends(n):
    """ops.derivative(walls=True): biased stencils next to the walls, exact on
    polynomials of degree 6 and sixth order on a smooth function."""
    x = np.linspace(0.0, 1.0, 21)
    h = x[1] - x[0]
    p = 3 * x ** 6 - x ** 5 + 2 * x ** 2 - x
    dp = 18 * x ** 5 - 5 * x ** 4 + 4 * x - 1 if n == 1 else 90 * x ** 4 - 20 * x ** 3 + 4
    np.testing.assert_allclose(ac.ops.derivative(p, 0, n, 6, h, walls=True), dp, atol=1e-8 * abs(dp).max())
    errors = []
    for m in (33, 65):
        y = np.linspace(0.0, 1.0, m)
        f = np.broadcast_to(np.exp(np.sin(2 * y)), (3, m)).copy()
        exact = (2 * np.cos(2 * y) * np.exp(np.sin(2 * y)) if n == 1 else
                 ((2 * np.cos(2 * y)) ** 2 - 4 * np.sin(2 * y)) * np.exp(np.sin(2 * y)))
        errors.append(abs(ac.ops.derivative(f, 1, n, 6, y[1] - y[0], walls=True)[1] - exact).max())
    assert math.log2(errors[0] / errors[1]) > (5.5 if n == 1 else 4.5), errors


def test_analysis_at_walls():
    """Divergence and vorticity take one-sided stencils on wall axes; spectra
    refuse them, naming the axes."""
    sim = ac.Simulation(shape=(8, 8, 16), box=(1.0, 1.0, 1.0), backend="cpu", boundaries={"z": HYDRO_WALL})
    z = sim.z[None, None, :] + 0 * sim.x[:, None, None]
    sim["uz"] = np.sin(np.pi * z) ** 2 * np.ones(sim.shape)
    div = ac.analysis.divergence(sim)
    np.testing.assert_allclose(div, np.pi * np.sin(2 * np.pi * z) * np.ones(sim.shape), atol=5e-3)
    with pytest.raises(ValueError, match="spectrum takes Fourier series of periodic axes, and 'z' has walls"):
        ac.analysis.spectrum(sim)
    mhd = ac.Simulation(shape=(8, 8, 8), backend="cpu", physics="mhd",
                        boundaries={"x": {**HYDRO_WALL, "ax": "a", "ay": "s", "az": "s"}})
    assert np.allclose(ac.analysis.magnetic_field(mhd)[0], 0.0)


MHD_WALL = {**HYDRO_WALL, "ax": "a", "ay": "a", "az": "s"}


def current_density_error(n):
    """Largest error of analysis.current_density against J = curl curl A / mu0 for
    A = (sin(2 pi y) e^z, 0, cos(2 pi x) z^2) with walls at z = 0 and 1 (n points
    per axis): J = ((4 pi^2 - 1) sin(2 pi y) e^z - 4 pi z sin(2 pi x), 0,
    4 pi^2 cos(2 pi x) z^2) / mu0, the uniform b_ext adding nothing."""
    sim = ac.Simulation(shape=(n, n, n), box=1.0, backend="cpu", physics="mhd", mu0=2.0, b_ext=(0.1, 0.0, 0.2),
                        boundaries={"z": MHD_WALL})
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    sim["ax"], sim["az"] = np.sin(2 * np.pi * y) * np.exp(z), np.cos(2 * np.pi * x) * z ** 2
    exact = [((4 * np.pi ** 2 - 1) * np.sin(2 * np.pi * y) * np.exp(z) - 4 * np.pi * z * np.sin(2 * np.pi * x)) / 2.0,
             0 * x, 4 * np.pi ** 2 * np.cos(2 * np.pi * x) * z ** 2 / 2.0]
    return max(np.abs(j - e).max() for j, e in zip(ac.analysis.current_density(sim), exact))


def test_current_density_with_walls_against_an_analytic_field():
    """Next to walls J = curl B / mu0 takes one-sided first derivatives twice: it
    matches the exact J to the ends of the wall axis and converges at high order."""
    coarse, fine = current_density_error(16), current_density_error(32)
    assert fine < 2e-3 * 4 * np.pi ** 2, (coarse, fine)
    assert math.log2(coarse / fine) > 4.5, (coarse, fine)


def test_mhd_with_walls_runs_with_its_diagnostics(tmp_path):
    """MHD between walls runs with the magnetic diagnostics (jrms, jmax) in
    Python and from a TOML file, which writes its checkpoint."""
    sim = ac.Simulation(shape=(8, 8, 12), box=(1.0, 1.0, 1.5), backend="cpu", physics="mhd", nu=1e-2, eta=1e-2,
                        boundaries={"z": MHD_WALL})
    z = sim.z[None, None, :]
    sim["ay"] = 1e-2 * np.sin(2 * np.pi * sim.x)[:, None, None] * np.sin(np.pi * z / 1.5)
    sim.run(until=0.05, timeseries=tmp_path / "ts.csv", diagnostics_every=1)
    rows = np.atleast_1d(ac.diagnostics.read_timeseries(tmp_path / "ts.csv"))
    assert rows.size == sim.steps and np.all(np.isfinite(rows["jrms"])) and rows["jrms"][-1] > 0
    pytest.importorskip("h5py")
    toml = WALL_TOML.replace("[physics]", '[physics]\nphysics = "mhd"\neta = 1e-2\nb_ext = [0.0, 0.0, 0.1]')
    toml = toml.replace("z = { ux", 'z = { ax = "a", ay = "a", az = "s", ux')
    status, out = run_from_file(tmp_path, toml)
    assert status == 0
    assert ac.load(out / "checkpoint.h5", backend="cpu").physics == "mhd"
    assert "jrms" in (out / "timeseries.csv").read_text().splitlines()[0].split(",")


def make_wall_case(comm=None):
    """Walls in x and z (z split over MPI ranks), gravity, a random flow
    (tests/test_walls_mpi.py runs it on 1, 2 and 4 ranks)."""
    faces = {**HYDRO_WALL, "lnrho": ("a2", "set:0.1")}
    sim = ac.Simulation(shape=(8, 6, 16), box=(1.0, 0.75, 2.0), nu=2e-2, backend="cpu", comm=comm,
                        boundaries={"x": {**faces, "ux": "a", "uz": "s"}, "z": faces}, gravity=(0.1, 0.0, -0.5))
    ac.init.random_velocity(sim, urms=0.05, seed=7)
    sim["lnrho"] = 0.01 * sim["ux"]
    return sim


def test_ensemble_members_with_walls_run_as_alone():
    alone = make_wall_case()
    alone.run(until=0.05)
    members = [make_wall_case()]  # and one with the same walls under another gravity
    other = ac.Simulation(shape=(8, 6, 16), box=(1.0, 0.75, 2.0), nu=2e-2, backend="cpu",
                          boundaries=members[0].boundaries, gravity=(0.0, 0.0, -1.0))
    ens = ac.Ensemble([members[0], other])
    ens.run(until=0.05)
    for name in alone.field_names:
        assert members[0][name].tobytes() == alone[name].tobytes(), name
    assert other["uz"].min() < -0.04  # it fell under its own gravity


# --- CUDA: the same runs on the GPU (marker gpu; skipped without one) ------------------------------
def assert_close_to_cpu(cpu, gpu, tolerance):
    """Every field of the GPU's run within tolerance of the CPU's, relative to its largest value (at least 1e-3)."""
    for name in cpu.field_names:
        scale = max(np.abs(cpu[name]).max(), 1e-3)
        assert np.abs(gpu[name] - cpu[name]).max() < tolerance * scale, (cpu.physics, name)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, tolerance", [("float64", 1e-11), ("float32", 2e-4)])
def test_gpu_walls_and_gravity_agree_with_the_cpu(dtype, tolerance):
    """Walls on two axes, gravity, hydro and MHD: the GPU's fills and kernels
    against the CPU's (the same arithmetic, contracted differently)."""
    for physics in ("hydro", "mhd"):
        runs = []
        for backend in ("cpu", "cuda"):
            faces = {**HYDRO_WALL, "lnrho": ("a2", "set:0.1")}
            extra = {"ax": "a", "ay": "a", "az": ("s", "set:0.01")} if physics == "mhd" else {}
            sim = ac.Simulation(shape=(12, 10, 16), box=(1.0, 0.75, 2.0), nu=2e-2, backend=backend, dtype=dtype,
                                physics=physics, boundaries={"x": {**faces, **extra, "ux": "a", "uz": "s"},
                                                             "z": {**faces, **extra}}, gravity=(0.1, 0.0, -0.5))
            rng = np.random.default_rng(7)
            for name in sim.field_names:
                sim[name] = 0.01 * rng.standard_normal(sim.shape)
            for _ in range(10):
                sim.step(2e-3)
            runs.append(sim)
        cpu, gpu = runs
        assert_close_to_cpu(cpu, gpu, tolerance)
        assert np.all(gpu["uz"][:, :, [0, -1]] == 0)
        assert np.all(gpu["lnrho"][:, :, -1] == gpu.dtype.type(0.1))


@pytest.mark.gpu
def test_gpu_hydrostatic_atmosphere_stays_at_rest():
    sim = ac.Simulation(shape=(16, 16, 32), box=(1.0, 1.0, 2.0), backend="cuda", gravity=(0, 0, -1.3), cs=0.8,
                        boundaries={"z": HYDRO_WALL}, nu=1e-2)
    sim["lnrho"] = np.broadcast_to(1.3 * -sim.z / 0.8 ** 2, sim.shape).copy()
    sim.run(until=1.0)
    assert max(np.abs(sim[c]).max() for c in ("ux", "uy", "uz")) < 1e-12


def test_potential_energy():
    """<rho Phi> with Phi = -g . x: uniform rho between walls at z = 0 and L
    under g = (0, 0, -g) gives g L / 2 (the wall points included)."""
    sim = ac.Simulation(shape=(4, 4, 11), box=(1.0, 1.0, 2.0), backend="cpu", boundaries={"z": HYDRO_WALL},
                        gravity=(0.0, 0.0, -3.0))
    assert ac.analysis.potential_energy(sim) == pytest.approx(3.0 * 2.0 / 2, rel=1e-14)
    assert ac.analysis.potential_energy(ac.Simulation(shape=4, backend="cpu")) == 0.0
