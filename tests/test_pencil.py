"""Pencil Code files in and out (astaroth.pencil), against data directories the Pencil Code wrote.

The fixtures under tests/data/pencil/ were made with the Pencil Code itself (see the README there):
8^3 (and one 8 x 6 x 1) periodic isothermal runs and one entropy run (gamma = 5/3, chi = 0.02),
and two 8 x 4 x 12 runs with walls in z and uniform gravity (isothermal, and entropy), nu = 0.05,
cs0 = 1, dt = 0.02 fixed, VAR0 at t = 0 and VAR1 after 6 steps.
No Pencil Code is needed to run these tests.
"""
import math
import re
import os
import shutil
import struct

import numpy as np
import pytest

import astaroth as ac
from astaroth import pencil

DATA = os.path.join(os.path.dirname(__file__), "data", "pencil")
HYDRO, MHD, SINGLE, FLAT, ENTROPY, WALLS, WALLS_ENTROPY, ROTATING, ROTATING_MHD, HYDRO_4_PROCESSES = (
    os.path.join(DATA, name) for name in ("hydro8", "mhd8", "hydro8s", "hydro2d", "entropy8", "walls8", "walls8e",
                                          "rot8", "rotmhd8", "hydro8p4"))
SHEARING, SHEARING_MHD = (os.path.join(DATA, name) for name in ("shear8", "shearmhd8"))


def coordinates(sim):
    return np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")


def initial_velocity_and_density(sim):
    """The initial condition of start.in: inituu='sinwave-ux-ky','sinwave-uy-kz','sinwave-uz-kx' with
    ampluu = 0.1, 0.05, 0.02 (kz_uu(2) = 2), initlnrho='sinwave-x' with ampllnrho = 0.01."""
    x, y, z = coordinates(sim)
    return {"ux": 0.1 * np.sin(y), "uy": 0.05 * np.sin(2 * z), "uz": 0.02 * np.sin(x), "lnrho": 0.01 * np.sin(x)}


def test_hydro_grid_parameters_and_fields():
    sim = pencil.read_var(HYDRO, "VAR0", backend="cpu")
    dx = 2 * math.pi / 8
    assert sim.shape == (8, 8, 8) and sim.physics == "hydro" and sim.dtype == np.float64
    assert sim.box == pytest.approx((2 * math.pi,) * 3, rel=1e-15)
    # xyz0 = -pi on periodic axes: the Pencil Code's points sit at x0 + (i + 1/2) dx
    np.testing.assert_allclose(sim.x, -math.pi + (np.arange(8) + 0.5) * dx, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sim.z, sim.x, rtol=0, atol=0)
    assert sim.nu == 0.05 and sim.cs == 1.0 and sim.t == 0.0
    assert sim.nu_hyper3 == 0 and sim.diff_hyper3 == 0 and sim.nu_shock == 0
    for name, expected in initial_velocity_and_density(sim).items():
        np.testing.assert_allclose(sim[name], expected, rtol=0, atol=1e-16, err_msg=name)


def test_mhd_parameters_and_vector_potential():
    sim = pencil.read_var(MHD, "VAR0", backend="cpu")
    assert sim.physics == "mhd" and sim.field_names == ("lnrho", "ux", "uy", "uz", "ax", "ay", "az")
    assert sim.eta == 0.03 and sim.b_ext == (0.0, 0.0, 0.1)
    assert sim.mu0 == pytest.approx(1.0, rel=1e-15)  # the Pencil Code's mu0 from its cgs units
    x, y, z = coordinates(sim)
    # initaa='coswave-Ax-ky','coswave-Ay-kz','coswave-Az-kx', amplaa = 0.05, 0.03, 0.02
    for name, expected in {"ax": 0.05 * np.cos(y), "ay": 0.03 * np.cos(z), "az": 0.02 * np.cos(x),
                           **initial_velocity_and_density(sim)}.items():
        np.testing.assert_allclose(sim[name], expected, rtol=0, atol=1e-16, err_msg=name)


def test_entropy_run_parameters_and_fields():
    """ENTROPY = entropy with eos_idealgas: ss gives energy='entropy'; cs0, gamma, cp, rho0 of
    eos_init_pars and chi of iheatcond='chi-const' are ours."""
    sim = pencil.read_var(ENTROPY, "VAR0", backend="cpu")
    assert sim.energy == "entropy" and sim.physics == "hydro"
    assert sim.field_names == ("lnrho", "ux", "uy", "uz", "ss")
    assert sim.gamma == 5 / 3 and sim.cp == 1.0 and sim.rho0 == 1.0 and sim.cs == 1.0
    assert sim.chi == 0.02 and sim.chi_hyper3 == 0.0 and sim.nu == 0.05
    x, y, z = coordinates(sim)
    # initss='cosx_cosy_cosz', ampl_ss = 0.01, kx_ss = ky_ss = kz_ss = 1
    for name, expected in {"ss": 0.01 * np.cos(x) * np.cos(y) * np.cos(z),
                           **initial_velocity_and_density(sim)}.items():
        np.testing.assert_allclose(sim[name], expected, rtol=0, atol=1e-16, err_msg=name)


def test_entropy_heat_conductions(tmp_path):
    data = copy_run(tmp_path, ENTROPY)
    edit(data / "param2.nml", "IHEATCOND='chi-const ", "IHEATCOND='chi-const', 'hyper3_ss ")
    edit(data / "param2.nml", "CHI_HYPER3=  0.0000000000000000", "CHI_HYPER3=  1.0000000000000000E-003")
    sim = pencil.read_var(data, "VAR0", backend="cpu")
    assert sim.chi == 0.02 and sim.chi_hyper3 == 1e-3
    edit(data / "param2.nml", "IHEATCOND='chi-const'", "IHEATCOND='K-const'")
    with pytest.raises(ValueError, match="iheatcond='k-const'"):
        pencil.read_var(data, "VAR0", backend="cpu")


@pytest.mark.parametrize("file,old,new,match", [
    ("param2.nml", "GAMMA=  1.6666666666666667", "GAMMA=  1.0000000000000000", "gamma=1 with an entropy field"),
    ("param2.nml", "LVISCOSITY_HEAT=T", "LVISCOSITY_HEAT=F", "lviscosity_heat=F"),
])
def test_entropy_refusals(tmp_path, file, old, new, match):
    data = copy_run(tmp_path, ENTROPY)
    edit(data / file, old, new)
    with pytest.raises(ValueError, match=match):
        pencil.read_var(data, "VAR0", backend="cpu")


def test_single_precision_var_dat():
    sim = pencil.read_var(SINGLE, backend="cpu")  # varfile="var.dat": the run's last state
    assert sim.dtype == np.float32 and sim.shape == (8, 8, 8)
    assert sim.t == pytest.approx(0.2, rel=1e-6)
    assert sim.nu == pytest.approx(0.05, rel=1e-7)
    as64 = pencil.read_var(SINGLE, backend="cpu", dtype="float64")
    assert as64.dtype == np.float64
    np.testing.assert_array_equal(as64["ux"], sim["ux"].astype(np.float64))


def test_flat_axis():
    """nzgrid = 1: the Pencil Code keeps 3 ghost points on the flat axis too (mz = 7) and puts z at
    xyz0 + dz/2 = 0."""
    sim = pencil.read_var(FLAT, "VAR0", backend="cpu")
    assert sim.shape == (8, 6, 1) and sim.spacing[1] == pytest.approx(2 * math.pi / 6, rel=1e-15)
    np.testing.assert_allclose(sim.y, -math.pi + (np.arange(6) + 0.5) * 2 * math.pi / 6, rtol=0, atol=1e-15)
    assert sim.z[0] == 0.0
    x, y, z = coordinates(sim)
    # inituu='sinwave-ux-ky','sinwave-uy-kx','sinwave-uz-kx', ampluu = 0.1, 0.05, 0.02
    for name, expected in {"ux": 0.1 * np.sin(y), "uy": 0.05 * np.sin(x), "uz": 0.02 * np.sin(x)}.items():
        np.testing.assert_allclose(sim[name], expected, rtol=0, atol=1e-16, err_msg=name)


@pytest.mark.parametrize("run,gamma", [(WALLS, 1.0), (WALLS_ENTROPY, 5 / 3)])
def test_wall_run_grid_walls_gravity_and_fields(run, gamma):
    """lperi = T,T,F with bcz = 's','s','a','a2' (and 'set:a2' for ss, fbcz1 = 0.1): walls in z, whose first
    and last points the Pencil Code puts on the walls (dz = Lz / (nz - 1)); gravity_simple's
    gravz_profile = 'const', gravz = -1 is gravity = (0, 0, -1)."""
    sim = pencil.read_var(run, "VAR0", backend="cpu")
    assert sim.shape == (8, 4, 12) and sim.box == pytest.approx((2 * math.pi, 2 * math.pi, math.pi), rel=1e-15)
    assert sim.spacing[2] == pytest.approx(math.pi / 11, rel=1e-15)
    np.testing.assert_allclose(sim.z, np.arange(12) * math.pi / 11, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sim.x, -math.pi + (np.arange(8) + 0.5) * math.pi / 4, rtol=0, atol=1e-15)
    assert sim.gravity == (0.0, 0.0, -1.0)
    walls = {"ux": ("s", "s"), "uy": ("s", "s"), "uz": ("a", "a"), "lnrho": ("a2", "a2")}
    if gamma != 1:
        walls["ss"] = ("set:0.1", "a2")
    assert sim.boundaries == {"z": walls}
    x, y, z = coordinates(sim)
    # inituu = 'sinwave-ux-kz','sinwave-uy-kx','sinwave-uz-kz' (kx_uu(2) = 2); initlnrho = 'isothermal' (the
    # hydrostatic lnrho = gamma gravz z / cs0^2 of gravity_simple's potential) plus 0.01 sin x
    expected = {"ux": 0.1 * np.sin(z), "uy": 0.05 * np.sin(2 * x), "uz": 0.02 * np.sin(z),
                "lnrho": -gamma * z + 0.01 * np.sin(x)}
    if gamma != 1:  # isothermal_density's entropy, (1 - 1/gamma) cp times -(lnrho - lnrho0); 'set' on the wall
        expected["ss"] = np.where(z == 0, 0.1, (1 - 1 / gamma) * gamma * z)
    for name, field in expected.items():
        np.testing.assert_allclose(sim[name], field, rtol=0, atol=5e-16, err_msg=name)


@pytest.mark.parametrize("old,new,match", [
    ("BCZ= 2*'s      ','a      ','a2     '", "BCZ= 's','s','a','a2:sds'", "bcz='sds' for lnrho .* upper z wall"),
    ("BCZ= 2*'s      ','a      ','a2     '", "BCZ= 's','cop','a','a2'", "bcz='cop' for uy .* lower z wall"),
    ("GRAVZ_PROFILE='const", "GRAVZ_PROFILE='linear", "gravz_profile='linear'"),
    ("LBOUSSINESQ_GRAV=F", "LBOUSSINESQ_GRAV=T", "lboussinesq_grav=T"),
])
def test_wall_run_refusals(tmp_path, old, new, match):
    data = copy_run(tmp_path, WALLS)
    edit(data / "param2.nml", old, new)
    with pytest.raises(ValueError, match=match):
        pencil.read_var(data, "VAR0", backend="cpu")


def test_wall_set_values_and_gravity_written_read_back(tmp_path):
    """Walls on two axes, 'set' values and gravity in x and z written where no param.nml is come back."""
    walls = {"x": {"lnrho": "a2", "ux": "a", "uy": "s", "uz": ("s", "set:0.25")},
             "z": {"lnrho": ("set:-1.5", "a2"), "ux": "s", "uy": "s", "uz": "a"}}
    sim = ac.Simulation(shape=(6, 8, 5), box=(1.0, 2.0, 3.0), origin=(0.5, 0.0, -1.0), backend="cpu",
                        nu=0.01, gravity=(0.5, 0.0, -2.0), boundaries=walls)
    sim.save_pencil(tmp_path)
    back = pencil.read_var(tmp_path, backend="cpu")
    assert back.boundaries == sim.boundaries and back.gravity == sim.gravity
    np.testing.assert_array_equal(back.x, sim.x)
    np.testing.assert_array_equal(back.z, sim.z)
    assert pencil.read_namelist(tmp_path / "param.nml")["init_pars"]["lperi"] == [False, True, False]
    shutil.copytree(os.path.join(WALLS, "data"), tmp_path / "walls")
    edit(tmp_path / "walls" / "param.nml", " LPERI= 2*T,F,", " LPERI= 3*T,")  # as a periodic run's
    with pytest.raises(ValueError, match="lperi"):
        pencil.read_var(WALLS, "VAR0", backend="cpu").save_pencil(tmp_path / "walls")


def test_run_dir_or_data_dir():
    a = pencil.read_var(HYDRO, "VAR1", backend="cpu")
    b = pencil.read_var(os.path.join(HYDRO, "data"), "VAR1", backend="cpu")
    assert a.t == b.t == pytest.approx(0.12, abs=1e-15)
    np.testing.assert_array_equal(a["uy"], b["uy"])


def test_a_pencil_run_on_four_processes_reads_as_its_serial_run_bit_for_bit():
    """hydro8p4 is hydro8 run by the Pencil Code on 1 x 2 x 2 processes (proc0/ .. proc3/, each with its
    subdomain and ghost zones): read_var assembles each snapshot into the serial run's fields, bit for bit."""
    for varfile in ("VAR0", "VAR1"):
        split, serial = (pencil.read_var(run, varfile, backend="cpu") for run in (HYDRO_4_PROCESSES, HYDRO))
        assert split.t == serial.t and split.shape == serial.shape
        for name in serial.field_names:
            np.testing.assert_array_equal(split[name], serial[name], err_msg=f"{varfile} {name}")


def _first_record(path):
    """The first record of a Fortran unformatted file, as bytes (pencil._records finds it)."""
    (((offset, length),),), _ = pencil._records(path, 1)
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length)


def test_procn_folders_as_the_pencil_code_writes_them(tmp_path):
    """save_pencil(procs=(1, 2, 2)) of hydro8p4's VAR1: each procN/ holds the subdomain the Pencil Code's
    own process N wrote (the field record byte for byte, dim.dat too), and read_var reads it back bit for bit.
    (That the Pencil Code's run.x on four processes continues from them: tests/data/pencil/README.md.)"""
    sim = pencil.read_var(HYDRO_4_PROCESSES, "VAR1", backend="cpu")
    sim.save_pencil(tmp_path / "data", varfile="VAR1", procs=(1, 2, 2))
    for n in range(4):
        ours, theirs = (os.path.join(root, f"proc{n}") for root in (tmp_path / "data",
                                                                     os.path.join(HYDRO_4_PROCESSES, "data")))
        assert _first_record(os.path.join(ours, "VAR1")) == _first_record(os.path.join(theirs, "VAR1")), n
        assert open(os.path.join(ours, "dim.dat")).read() == open(os.path.join(theirs, "dim.dat")).read(), n
    assert (tmp_path / "data" / "dim.dat").read_text() == open(os.path.join(HYDRO_4_PROCESSES, "data",
                                                                             "dim.dat")).read()
    back = pencil.read_var(tmp_path / "data", "VAR1", backend="cpu")
    for name in sim.field_names:
        np.testing.assert_array_equal(back[name], sim[name], err_msg=name)


@pytest.mark.parametrize("procs", [(1, 3, 1), (0, 1, 1), (1, 2), "x", (1.5, 1, 1)])
def test_procs_that_do_not_divide_the_grid_are_refused_naming_them(tmp_path, procs):
    sim = pencil.read_var(HYDRO, "VAR1", backend="cpu")
    with pytest.raises(ValueError, match="procs"):
        sim.save_pencil(tmp_path / "data", procs=procs)
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("run", [HYDRO, MHD, FLAT, ENTROPY, WALLS, WALLS_ENTROPY, ROTATING, ROTATING_MHD,
                                 HYDRO_4_PROCESSES, SHEARING, SHEARING_MHD])
def test_our_steps_agree_with_the_pencil_code(run):
    """Same numerics: six steps of dt = 0.02 from Pencil's VAR0 land on Pencil's VAR1 to round-off
    (measured 4e-16 of each field's maximum, entropy run included; 1e-13 allowed).  With walls in z
    ('s', 'a', 'a2', 'set') and gravity (walls8, walls8e) the same: 1.4e-16 (lnrho), 2.8e-16 (ux),
    2.0e-16 (uy), 3.6e-15 (uz) isothermal; 8.5e-17, 4.2e-16, 2.0e-16, 4.7e-15 and 2.1e-16 (ss) with
    entropy.  uz is the small difference of gravity and the pressure gradient (each of order 1, uz
    about 0.02): its error is 1e-16 of gravity's.  In a rotating frame (rot8: Omega = 0.7, theta = 30;
    rotmhd8: MHD with Omega = 0.5) at most 5.3e-16; without the rotation rot8 would differ by 0.06-0.3.
    In a shearing box (shear8: Sshear = -0.4, deltay = 1.7 at the start; shearmhd8: MHD with Omega = 0.5,
    qshear = 1.5, deltay = 0.9) at most 5.2e-16, and deltay lands on theirs bit for bit."""
    sim = pencil.read_var(run, "VAR0", backend="cpu")
    ref = pencil.read_var(run, "VAR1", backend="cpu")
    start = {name: sim[name] for name in sim.field_names}
    for _ in range(6):
        sim.step(0.02)
    assert sim.t == pytest.approx(ref.t, abs=1e-14)
    assert sim.deltay == ref.deltay
    for name in sim.field_names:
        scale = np.abs(ref[name]).max()
        assert np.abs(sim[name] - ref[name]).max() <= 1e-13 * scale, name
        assert np.abs(ref[name] - start[name]).max() > 1e-6 * scale, name  # the fields did change


def test_a_shearing_box_reads_its_shear_rotation_and_deltay():
    """shear8 gives Sshear; shearmhd8 qshear = 1.5 with Omega = 0.5 (Sshear = -0.75, as its param.nml
    records); deltay comes from the snapshot's second record (the Pencil Code's wsnap appends it).
    Without the shifted x faces our steps would miss theirs by 1e-3 of the fields."""
    sim = pencil.read_var(SHEARING, "VAR0", backend="cpu")
    assert sim.shear == -0.4 and sim.x0_shear == 0.0 and sim.omega == (0.0, 0.0, 0.0) and sim.deltay == 1.7
    sim = pencil.read_var(SHEARING_MHD, "VAR0", backend="cpu")
    assert sim.shear == -0.75 and sim.omega == (0.0, 0.0, 0.5) and sim.deltay == 0.9 and sim.physics == "mhd"
    ref = pencil.read_var(SHEARING_MHD, "VAR1", backend="cpu")
    unshifted = pencil.read_var(SHEARING_MHD, "VAR0", backend="cpu")
    unshifted.deltay = 0.0
    for _ in range(6):
        sim.step(0.02)
        unshifted.step(0.02)
    assert max(np.abs(unshifted[n] - ref[n]).max() for n in ref.field_names) > 1e-4
    assert max(np.abs(sim[n] - ref[n]).max() for n in ref.field_names) < 1e-15


@pytest.mark.parametrize("change, named", [("lshearadvection_as_shift=T", "lshearadvection_as_shift"),
                                           ("sshear1=-0.5", "Sshear1"), ("lhyper3x_mesh=T", "lhyper3x_mesh")])
def test_shearing_box_variants_we_do_not_run_are_refused_naming_them(tmp_path, change, named):
    shutil.copytree(os.path.join(SHEARING, "data"), tmp_path / "data")
    path = tmp_path / "data" / "param2.nml"
    key = change.split("=")[0]
    text = "".join(f" {change},\n" if line.strip().lower().startswith(key.lower() + "=") else line
                   for line in open(path).readlines())
    open(path, "w").write(text)
    with pytest.raises(ValueError, match=named):
        pencil.read_var(tmp_path / "data", "VAR0", backend="cpu")


def test_a_shearing_box_written_for_run_x_keeps_sshear_bcx_and_deltay(tmp_path):
    """save_pencil of a shearing box: the snapshot's second record ends in deltay, param.nml and
    param2.nml have Sshear, x0_shear, bcx = 'she' and lshear; checked by hand with run.x
    (tests/data/pencil/README.md)."""
    sim = pencil.read_var(SHEARING_MHD, "VAR1", backend="cpu")
    sim.save_pencil(tmp_path / "data")
    ((_, record),) = pencil._records(str(tmp_path / "data" / "proc0" / "var.dat"), 2)[0][1]
    assert record == 8 * (1 + 3 * 14 + 3 + 1)
    for name in ("param.nml", "param2.nml"):
        groups = pencil.read_namelist(tmp_path / "data" / name)
        shear = groups["shear_init_pars" if name == "param.nml" else "shear_run_pars"]
        assert shear["sshear"] == -0.75 and shear["x0_shear"] == 0.0
        assert groups["init_pars" if name == "param.nml" else "run_pars"]["bcx"] == ["she"] * 7
    assert pencil.read_namelist(tmp_path / "data" / "param.nml")["lphysics"]["lshear"] is True


@pytest.mark.parametrize("run,varfile", [(HYDRO, "VAR1"), (MHD, "VAR1"), (SINGLE, "var.dat"), (FLAT, "VAR1"),
                                         (ENTROPY, "VAR1"), (WALLS, "VAR1"), (WALLS_ENTROPY, "VAR1"),
                                         (ROTATING, "VAR1"), (ROTATING_MHD, "VAR1"), (SHEARING, "VAR1"),
                                         (SHEARING_MHD, "VAR1")])
def test_write_read_round_trip_bit_for_bit(tmp_path, run, varfile):
    sim = pencil.read_var(run, varfile, backend="cpu")
    path = sim.save_pencil(tmp_path / "data")
    assert os.path.basename(path) == "var.dat"
    back = pencil.read_var(tmp_path / "data", backend="cpu")
    assert back.t == sim.t and back.shape == sim.shape and back.dtype == sim.dtype
    a, b = sim.parameters(), back.parameters()
    assert a.keys() == b.keys()
    for key in a:
        if key == "omega":  # through Omega = |omega| and theta (degrees) and back: to the last bit or so
            np.testing.assert_allclose(b[key], a[key], rtol=0, atol=4e-16 * max(np.abs(a[key])), err_msg=key)
        else:
            np.testing.assert_array_equal(b[key], a[key], err_msg=key)
    np.testing.assert_array_equal(back.x, sim.x)
    np.testing.assert_array_equal(back.z, sim.z)
    assert back.deltay == sim.deltay
    for name in sim.field_names:
        np.testing.assert_array_equal(back[name], sim[name])


@pytest.mark.parametrize("run", [HYDRO, MHD, ENTROPY, WALLS, WALLS_ENTROPY])
def test_written_fields_are_the_pencil_codes_bytes(tmp_path, run):
    """The first record (fields with ghost zones, in the Pencil Code's field order) is byte for byte what
    start.x wrote: periodic images, and at walls the ghosts of src/boundcond.f90 with its arithmetic
    (2 w - f at the lower wall, w + (w - f) at the upper); dim.dat is character for character."""
    pencil.read_var(run, "VAR0", backend="cpu").save_pencil(tmp_path, varfile="VAR0")
    ours, theirs = (open(os.path.join(d, "proc0", "VAR0"), "rb").read() for d in (tmp_path, os.path.join(run, "data")))
    n = struct.unpack("<i", theirs[:4])[0]
    assert ours[:n + 8] == theirs[:n + 8]
    for name in ("dim.dat", os.path.join("proc0", "dim.dat")):
        assert open(tmp_path / name).read() == open(os.path.join(run, "data", name)).read()
    assert pencil.read_index(tmp_path / "index.pro") == {k: v for k, v in pencil.read_index(
        os.path.join(run, "data", "index.pro")).items() if k[:2] in ("iu", "il", "ia") + ("is",) * (k == "iss") and v > 0}


def test_written_into_an_existing_pencil_data_dir(tmp_path):
    shutil.copytree(os.path.join(HYDRO, "data"), tmp_path / "data")
    sim = pencil.read_var(tmp_path / "data", "VAR1", backend="cpu")
    sim.step(0.02)
    sim.save_pencil(tmp_path / "data")
    back = pencil.read_var(tmp_path / "data", backend="cpu")
    assert back.t == sim.t
    np.testing.assert_array_equal(back["lnrho"], sim["lnrho"])
    # the run's own param.nml is kept
    assert open(tmp_path / "data" / "param.nml").read() == open(os.path.join(HYDRO, "data", "param.nml")).read()


@pytest.mark.parametrize("name", [("proc0", "var.dat"), ("proc0", "grid.dat"), ("allprocs", "grid.dat"),
                                  ("dim.dat",), ("index.pro",)])
def test_a_read_only_pencil_file_is_not_replaced(tmp_path, name):
    """save_pencil and read-only files: a read-only file it would write is refused before any is written
    (as root too, where open() and os.replace would succeed), and nothing in the directory changes."""
    sim = pencil.read_var(HYDRO, "VAR0", backend="cpu")
    sim.save_pencil(tmp_path / "data")
    target = tmp_path.joinpath("data", *name)
    before = {p: p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file()}
    os.chmod(target, 0o444)
    try:
        sim.step(0.02)
        with pytest.raises(PermissionError, match=rf"{name[-1]}: it exists and is read-only \(mode 0444\)"):
            sim.save_pencil(tmp_path / "data")
        assert {p: p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file()} == before
        assert os.stat(target).st_mode & 0o777 == 0o444
    finally:
        os.chmod(target, 0o644)
    sim.save_pencil(tmp_path / "data")  # writable again: written as before
    assert pencil.read_var(tmp_path / "data", backend="cpu").t == sim.t


def test_rewritten_var_dat_keeps_its_mode(tmp_path):
    sim = pencil.read_var(HYDRO, "VAR0", backend="cpu")
    path = sim.save_pencil(tmp_path / "data")
    os.chmod(path, 0o640)
    sim.save_pencil(tmp_path / "data")
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert not [p for p in os.listdir(tmp_path / "data" / "proc0") if p.startswith(".tmp-") or p.endswith(".tmp")]


def test_write_refuses_another_grid_or_box(tmp_path):
    shutil.copytree(os.path.join(HYDRO, "data"), tmp_path / "data")
    with pytest.raises(ValueError, match="cparam.local"):
        ac.Simulation(shape=(16, 8, 8), box=2 * math.pi, backend="cpu").save_pencil(tmp_path / "data")
    with pytest.raises(ValueError, match="xyz0"):
        ac.Simulation(shape=8, box=2 * math.pi, backend="cpu").save_pencil(tmp_path / "data")  # origin 0
    with pytest.raises(TypeError, match="sim"):
        pencil.write_var("not a simulation", tmp_path)


def test_multiprocess_snapshot_is_assembled(tmp_path):
    """proc* folders (here 2 x 1 x 2 processes cut from the one-process VAR1, as the Pencil Code lays
    them out: each its own ghost zones and coordinates) give the same Simulation."""
    one = pencil.read_var(HYDRO, "VAR1", backend="cpu")
    src = os.path.join(HYDRO, "data", "proc0", "VAR1")
    raw = open(src, "rb").read()
    n1 = struct.unpack("<i", raw[:4])[0]
    f = np.frombuffer(raw[4:4 + n1], "<f8").reshape(4, 14, 14, 14)
    n2 = struct.unpack("<i", raw[n1 + 8:n1 + 12])[0]
    rec2 = np.frombuffer(raw[n1 + 12:n1 + 12 + n2], "<f8")
    t, x, y, z = rec2[0], rec2[1:15], rec2[15:29], rec2[29:43]
    dirs = tmp_path / "data"
    for name in ("param.nml", "param2.nml", "index.pro"):
        os.makedirs(dirs, exist_ok=True)
        shutil.copy(os.path.join(HYDRO, "data", name), dirs / name)
    (dirs / "dim.dat").write_text("     14     14     14      4      0      0\nD\n"
                                  "    3    3    3\n    2    1    2    1\n")
    for ipz in range(2):
        for ipx in range(2):
            folder = dirs / f"proc{ipx + 2 * ipz}"
            os.makedirs(folder)
            (folder / "dim.dat").write_text(f"     10     14     10      4      0      0\nD\n    3    3    3\n"
                                            f"{ipx:5d}    0{ipz:5d}\n")
            part = np.ascontiguousarray(f[:, 4 * ipz:4 * ipz + 10, :, 4 * ipx:4 * ipx + 10])
            coords = np.concatenate([[t], x[4 * ipx:4 * ipx + 10], y, z[4 * ipz:4 * ipz + 10], rec2[43:46]])
            with open(folder / "VAR1", "wb") as out:
                for record in (part.tobytes(), coords.tobytes()):
                    out.write(struct.pack("<i", len(record)) + record + struct.pack("<i", len(record)))
    many = pencil.read_var(dirs, "VAR1", backend="cpu")
    assert many.t == one.t
    np.testing.assert_array_equal(many.x, one.x)
    for name in one.field_names:
        np.testing.assert_array_equal(many[name], one[name])


def test_read_ts_columns():
    ts = pencil.read_ts(HYDRO)
    assert ts.dtype.names == ("t", "dt", "urms", "umax", "rhom")
    assert len(ts) == 10
    np.testing.assert_allclose(ts["t"], 0.02 * np.arange(10), atol=5e-4)
    assert ts["urms"][0] == 8.031189e-02 and ts["dt"][3] == 2e-2
    # urms at t = 0 is that of the initial condition, |u|^2 averaged over the grid
    sim = pencil.read_var(HYDRO, "VAR0", backend="cpu")
    urms = math.sqrt(np.mean(sim["ux"] ** 2 + sim["uy"] ** 2 + sim["uz"] ** 2))
    assert ts["urms"][0] == pytest.approx(urms, rel=1e-6)
    mhd = pencil.read_ts(os.path.join(MHD, "data", "time_series.dat"))
    assert mhd.dtype.names[-2:] == ("brms", "bmax") and mhd["brms"][0] == 1.090612e-01


def test_read_ts_integer_it_overflow_and_header_change(tmp_path):
    path = tmp_path / "time_series.dat"
    path.write_text("#--it-----t--------urms----\n"
                    "     0  0.000  1.000E-01\n"
                    "    10  0.100  **********\n"
                    "#--it-----t--------urms--------brms----\n"
                    "    20  0.200  1.2-100  3.0E-02\n"
                    "    30  0.300-1.0E-01-2.0E-02\n")
    ts = pencil.read_ts(path)
    assert ts.dtype.names == ("it", "t", "urms", "brms") and ts["it"].dtype == np.int64
    assert list(ts["it"]) == [0, 10, 20, 30]
    assert math.isnan(ts["urms"][1]) and math.isnan(ts["brms"][0])
    assert ts["urms"][2] == 1.2e-100 and ts["urms"][3] == -0.1 and ts["brms"][3] == -0.02


def test_read_ts_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="time_series.dat"):
        pencil.read_ts(tmp_path)
    (tmp_path / "time_series.dat").write_text("#--t----urms--\n 0.0 1.0 2.0\n")
    with pytest.raises(ValueError, match="columns"):
        pencil.read_ts(tmp_path)


def test_namelist_parser():
    nml = pencil.read_namelist(os.path.join(MHD, "data", "param2.nml"))
    assert nml["magnetic_run_pars"]["b_ext"] == [0.0, 0.0, 0.1]
    assert nml["run_pars"]["lperi"] == [True] * 3 and nml["run_pars"]["dt"] == 0.02
    assert nml["viscosity_run_pars"]["ivisc"][0] == "nu-const"
    assert nml["magnetic_run_pars"]["iresistivity"] == ["eta-const", "", "", ""]
    hand = pencil.read_namelist(os.path.join(MHD, "start.in"))  # comments, quotes, lists
    assert hand["magnetic_init_pars"]["initaa"] == ["coswave-Ax-ky", "coswave-Ay-kz", "coswave-Az-kx"]
    assert hand["init_pars"]["lperi"] == [True] * 3


def copy_run(tmp_path, run=HYDRO):
    shutil.copytree(os.path.join(run, "data"), tmp_path / "data")
    return tmp_path / "data"


def edit(path, old, new):
    text = open(path).read()
    assert old in text
    open(path, "w").write(text.replace(old, new))


@pytest.mark.parametrize("file,old,new,match", [
    ("param2.nml", " LPERI= 3*T,", " LPERI= T,F,T,", "bcy='p' for ux .* lower y wall"),
    ("param2.nml", "GAMMA=  1.0000000000000000", "GAMMA=  1.6666666666666667", "gamma=1.66"),
    ("param2.nml", "IVISC='nu-const", "IVISC='smagorinsky", "ivisc='smagorinsky'"),
    ("param2.nml", "COORD_SYSTEM='cartesian'", "COORD_SYSTEM='spherical'", "coord_system='spherical'"),
    ("param2.nml", "LUPW_UU=F", "LUPW_UU=T", "lupw_uu"),
    ("index.pro", " ilnrho=4", " ilnrho=4\n iss=5", "iss=5 in index.pro, but dim.dat has mvar = 4"),
    ("index.pro", " ilnrho=4", " ilnrho=4\n ilnTT=5", "ilntt=5 in index.pro: temperature"),
    ("index.pro", " iuz=3\n", "", "iuz"),
])
def test_refuses_what_it_cannot_run(tmp_path, file, old, new, match):
    data = copy_run(tmp_path)
    edit(data / file, old, new)
    with pytest.raises(ValueError, match=match):
        pencil.read_var(data, "VAR0", backend="cpu")


def test_entropy_written_parameters_read_back(tmp_path):
    """A new entropy simulation written where no param.nml is: gamma, cp, rho0 and chi come back."""
    sim = ac.Simulation(shape=8, box=2 * math.pi, backend="cpu", energy="entropy", gamma=1.4, cp=2.5,
                        rho0=0.7, chi=3e-3, chi_hyper3=1e-5, nu=0.01)
    sim.save_pencil(tmp_path)
    nml = pencil.read_namelist(tmp_path / "param2.nml")["entropy_run_pars"]
    assert nml["iheatcond"] == ["chi-const", "hyper3_ss"]
    back = pencil.read_var(tmp_path, backend="cpu")
    assert back.energy == "entropy"
    for key in ("gamma", "cp", "rho0", "chi", "chi_hyper3", "nu", "cs"):
        assert getattr(back, key) == getattr(sim, key), key
    with pytest.raises(ValueError, match="gamma = 1.4"):
        ac.Simulation(shape=8, box=2 * math.pi, backend="cpu", energy="entropy").save_pencil(tmp_path)


def test_entropy_units_as_start_x_writes_them(tmp_path):
    """run.x checks cp against its units (units_eos: Rgas = mu (1 - 1/gamma) cp, error_cp = 1e-6): the
    param.nml we write for entropy8 has start.x's unit_temperature, so run.x continues from it."""
    pencil.read_var(ENTROPY, "VAR0", backend="cpu").save_pencil(tmp_path)
    ours, theirs = (pencil.read_namelist(os.path.join(d, "param.nml"))["init_pars"]["unit_temperature"]
                    for d in (tmp_path, os.path.join(ENTROPY, "data")))
    assert ours == pytest.approx(theirs, rel=1e-14)
    eos = pencil.read_namelist(tmp_path / "param.nml")["eos_init_pars"]
    assert eos["gamma"] == 5 / 3 and eos["cp"] == 1.0 and eos["rho0"] == 1.0


def test_missing_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a directory"):
        pencil.read_var(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="dim.dat"):
        pencil.read_var(tmp_path)
    with pytest.raises(FileNotFoundError, match="VAR7"):
        pencil.read_var(HYDRO, "VAR7", backend="cpu")


def test_collective_snapshot_is_named(tmp_path):
    data = copy_run(tmp_path)
    os.makedirs(data / "allprocs", exist_ok=True)
    (data / "allprocs" / "var.h5").write_bytes(b"")
    with pytest.raises(ValueError, match="allprocs"):
        pencil.read_var(data, backend="cpu")


def test_truncated_snapshot_is_refused(tmp_path):
    data = copy_run(tmp_path)
    raw = open(data / "proc0" / "VAR0", "rb").read()
    open(data / "proc0" / "VAR0", "wb").write(raw[:-100])
    with pytest.raises(ValueError, match="not a Fortran unformatted file"):
        pencil.read_var(data, "VAR0", backend="cpu")


def test_forced_run_warns_that_forcing_is_not_carried_over(tmp_path):
    data = copy_run(tmp_path)
    with open(data / "param2.nml", "a") as f:
        f.write("&FORCING_RUN_PARS\n IFORCE='helical',\n FORCE= 0.07,\n/\n")
    with pytest.warns(UserWarning, match="sim.forcing"):
        pencil.read_var(data, "VAR0", backend="cpu")


def rewrite_snapshot(path, endian=">"):
    """The snapshot at `path` again, in the given byte order."""
    raw = open(path, "rb").read()
    n1 = struct.unpack("<i", raw[:4])[0]
    n2 = struct.unpack("<i", raw[n1 + 8:n1 + 12])[0]
    fields = np.frombuffer(raw[4:4 + n1], "<f8").astype(endian + "f8").tobytes()
    coords = np.frombuffer(raw[n1 + 12:n1 + 12 + n2], "<f8").astype(endian + "f8").tobytes()
    lead = struct.pack(endian + "i", n1)
    with open(path, "wb") as out:
        out.write(lead + fields + struct.pack(endian + "i", n1) + struct.pack(endian + "i", n2) + coords
                  + struct.pack(endian + "i", n2))


def test_big_endian_snapshot(tmp_path):
    data = copy_run(tmp_path)
    rewrite_snapshot(data / "proc0" / "VAR0", ">")
    a, b = pencil.read_var(data, "VAR0", backend="cpu"), pencil.read_var(HYDRO, "VAR0", backend="cpu")
    for name in a.field_names:
        np.testing.assert_array_equal(a[name], b[name])


# gfortran's own test of its subrecords (gfortran.dg/unformatted_subrecord_1.f90): n = i**2, i = 1..20, written
# with -fmax-subrecord-length=16, as the file's 4-byte integers
GFORTRAN_SUBRECORDS = [-16, 1, 4, 9, 16, 16, -16, 25, 36, 49, 64, -16, -16, 81, 100, 121, 144, -16, -16, 169, 196,
                       225, 256, -16, 16, 289, 324, 361, 400, -16]


def test_a_record_past_the_subrecord_length_is_split_as_gfortran_splits_it(tmp_path, monkeypatch):
    """A record longer than a subrecord holds (2 GiB in gfortran, 16 bytes here) is written as gfortran
    writes it: leading markers negative where another subrecord follows, trailing ones negative where one
    precedes; byte for byte gfortran's file where gfortran is installed; and read back whole."""
    monkeypatch.setattr(pencil, "_MAX_SUBRECORD", 16)
    path = tmp_path / "ours.dat"
    squares = np.arange(1, 21, dtype="<i4") ** 2
    with open(path, "wb") as f:
        pencil._write_record(f, squares)
        pencil._write_record(f, np.array([3.25], "<f8"))  # one subrecord: plain markers
    raw = np.frombuffer(path.read_bytes(), "<i4")
    assert raw[:30].tolist() == GFORTRAN_SUBRECORDS
    assert raw[30:].tolist() == [8, *np.array([3.25], "<f8").view("<i4"), 8]
    records, endian = pencil._records(str(path), 2)
    assert endian == "<" and [len(r) for r in records] == [5, 1]
    with open(path, "rb") as f:
        np.testing.assert_array_equal(pencil._read_pieces(f, records[0], "<i4", 20), squares)
    if shutil.which("gfortran"):
        (tmp_path / "w.f90").write_text("program w\n integer :: n(20), i\n n = (/ (i**2, i=1, 20) /)\n"
                                        " open (10, file='theirs.dat', form='unformatted', access='sequential')\n"
                                        " write (10) n\n close (10)\nend program w\n")
        import subprocess

        subprocess.run(["gfortran", "-fmax-subrecord-length=16", "w.f90", "-o", "w"], cwd=tmp_path, check=True)
        subprocess.run(["./w"], cwd=tmp_path, check=True)
        assert (tmp_path / "theirs.dat").read_bytes() == path.read_bytes()[:30 * 4]


def test_a_snapshot_past_2_gib_a_record_is_written_in_subrecords_and_read_back(tmp_path, monkeypatch):
    """save_pencil of a process box larger than a subrecord (gfortran's 2 GiB, here 1000 bytes) writes its
    fields' record in subrecords, streamed field by field across their boundaries, and read_var reads it
    back bit for bit; a subrecord marker that lies is refused, naming the file."""
    sim = pencil.read_var(HYDRO, "VAR0", backend="cpu")
    monkeypatch.setattr(pencil, "_MAX_SUBRECORD", 1000)
    sim.save_pencil(tmp_path / "data")
    path = tmp_path / "data" / "proc0" / "var.dat"
    records, _ = pencil._records(str(path), 2)
    assert len(records[0]) > 2 and len(records[1]) == 1  # the coordinates' record fits in one
    back = pencil.read_var(tmp_path / "data", "var.dat", backend="cpu")
    for name in sim.field_names:
        np.testing.assert_array_equal(back[name], sim[name], err_msg=name)
    raw = bytearray(path.read_bytes())
    raw[4 + 1000:4 + 1000 + 4] = struct.pack("<i", 1000)  # the first trailing marker says no subrecord follows it
    raw[0:4] = struct.pack("<i", 1000)
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="var.dat"):
        pencil.read_var(tmp_path / "data", "var.dat", backend="cpu")


def test_write_var_killed_at_any_moment_leaves_whole_files_and_the_next_read_a_whole_set(tmp_path):
    """A write_var killed at any moment (before a random one of its
    file-system calls, and before each from the naming of its finished files
    on) leaves each file whole, the earlier one or the new one (never empty
    or cut short), and nothing but `.tmp-*` temporaries besides; the next
    read_var sets right what it left (astaroth.io.cleanup_folder): the set is
    then the earlier one whole or the new one whole, and no temporary is
    left."""
    from helpers import KILLED_WRITER, WRITE_VAR_SET, kill_at_random_moments

    def written(folder):
        return {name: (folder / name).read_bytes() for name in WRITE_VAR_SET}

    def others(folder):
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                      if p.is_file() and str(p.relative_to(folder)) not in WRITE_VAR_SET)

    old_sim = ac.Simulation(shape=(12, 10, 8), backend="cpu", physics="mhd", energy="entropy", nu=1e-2)
    old_sim.save_pencil(tmp_path / "old")
    old = written(tmp_path / "old")
    run = tmp_path / "run"

    def reset():
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(tmp_path / "old", run / "data")

    kills = kill_at_random_moments(KILLED_WRITER, run, 12, reset, every_from="link")
    assert next(kills) == 0  # the first run, not killed, writes the new set
    new = written(run / "data")
    assert all(new[n] != old[n] for n in ("proc0/var.dat", "proc0/grid.dat"))
    outcomes, statuses, left_by_kill, finished = [], [], 0, 0
    for status in kills:
        statuses.append(status)
        now = written(run / "data")
        assert all(now[n] in (old[n], new[n]) for n in WRITE_VAR_SET), \
            [n for n in WRITE_VAR_SET if now[n] not in (old[n], new[n])]
        left = others(run / "data")
        assert all(os.path.basename(name).startswith(".tmp-") for name in left), left
        left_by_kill += bool(left)
        t = ac.pencil.read_var(run / "data", backend="cpu").t
        after = written(run / "data")
        assert after in (old, new) and others(run / "data") == [], others(run / "data")
        assert t == (1.0 if after == new else 0.0)
        finished += after != now  # killed among the renames: read_var made those left
        outcomes.append("new" if after == new else "old")
    assert statuses.count(-9) >= 25 and left_by_kill >= 1 and finished >= 1, (statuses, left_by_kill, finished)
    assert "old" in outcomes and "new" in outcomes, outcomes


def replace_line(path, pattern, new):
    """Replace the first line of `path` matching the regular expression `pattern` by `new`."""
    text = open(path).read()
    assert re.search(pattern, text, re.M), pattern
    open(path, "w").write(re.sub(pattern, new, text, count=1, flags=re.M))


def written_run(tmp_path):
    sim = ac.Simulation(shape=(8, 6, 4), backend="cpu")
    sim.save_pencil(tmp_path / "data")
    return tmp_path / "data"


BINARY = bytes(range(256)) * 4


@pytest.mark.parametrize("file, damage, words", [
    ("dim.dat", lambda p: p.write_bytes(BINARY), "is not a Pencil Code dim.dat: it holds binary data"),
    ("proc0/dim.dat", lambda p: p.write_bytes(BINARY), "is not a Pencil Code dim.dat: it holds binary data"),
    ("index.pro", lambda p: p.write_bytes(BINARY), "is not a Pencil Code index.pro: it holds binary data"),
    ("param.nml", lambda p: p.write_bytes(BINARY), "is not a Pencil Code namelist file: it holds binary data"),
    ("param2.nml", lambda p: p.write_bytes(BINARY), "is not a Pencil Code namelist file: it holds binary data"),
    ("dim.dat", lambda p: replace_line(p, r"^ +14 ", "    -10 "), "is damaged: mx = -10, which leaves -16 interior"),
    ("dim.dat", lambda p: replace_line(p, r"^ +3 +3 +3$", "    9    9    9"), "is damaged: nghost = 9 along x"),
    ("dim.dat", lambda p: replace_line(p, r"^ +14 ", " 2147483647 "), "is damaged: mx = 2147483647, more than"),
    ("dim.dat", lambda p: (replace_line(p, r"^ +14 ", " 100000000 "),
                           replace_line(p.parent / "proc0" / "dim.dat", r"^ +14 ", " 100000000 ")),
     "points a process and mvar = 4 fields, at least"),
    ("param.nml", lambda p: (replace_line(p, r"^ LXYZ=.*\n", ""), replace_line(p.parent / "param2.nml", r"^ LXYZ=.*\n", "")),
     "give no lxyz (in &run_pars or &init_pars)"),
    ("param2.nml", lambda p: replace_line(p, r"^ LXYZ=.*$", " LXYZ= 'a', 2.0, 3.0,"), "lxyz = ['a', 2.0, 3.0] is not 3 numbers"),
    ("param.nml", lambda p: p.write_text(""), "has no &init_pars namelist"),
])
def test_damaged_files_are_named_with_what_is_wrong(tmp_path, file, damage, words):
    """Damaged Pencil Code files give a ValueError naming the file and what is
    wrong, never a raw decoding, type, shape or memory error."""
    data = written_run(tmp_path)
    damage(data / file)
    with pytest.raises(ValueError, match=re.escape(words)) as info:
        pencil.read_var(data, backend="cpu")
    assert str(data) in str(info.value)
