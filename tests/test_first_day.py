"""What a Pencil Code user meets on the first day in the outputs and on the
command line: the default run's Reynolds number, the time series' names
and formulas, MHD in the start line, summary and picture, the progress
line over a whole run, valid XDMF, spectra to the Nyquist shell, and the
helical-dynamo notebook's values."""
import io
import json
import math
import pathlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import astaroth as ac
from astaroth import analysis, cli, config, diagnostics

ROOT = pathlib.Path(__file__).parent.parent

SMALL = """
[grid]
shape = [16, 16, 8]
[physics]
nu = 0.01
{physics}
[initial]
kind = "random_velocity"
urms = 0.05
{initial}
[forcing]
f0 = 0.05
{forcing}
[output]
dir = "{dir}"
until = 0.6
snapshot_every = 0.3
timeseries_every = 2
progress = false
"""


def write(tmp_path, physics="", initial="", forcing=""):
    path = tmp_path / "run.toml"
    path.write_text(SMALL.format(physics=physics, initial=initial, forcing=forcing, dir=tmp_path / "out"))
    return str(path)


# --- the README as a front page, every notebook in the site with its figures ---------
def test_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) <= 150
    commands = ['pip install ".[io,plot]" && astaroth run', 'pip install ".[test]" && pytest']
    first_block = readme.split("```sh\n")[1].split("```")[0]
    assert first_block.split("\n")[:2] == commands  # the first code block holds the two commands
    assert readme.index("```sh") < readme.index("```python") < readme.index("![")  # commands, example, figure
    assert readme.count("![") + readme.count("<img") == 1  # one figure
    for gone in ("DESIGN", "the seed", "ncu", "../shared"):
        assert gone not in readme, gone


def test_every_notebook_is_in_the_site_with_its_figures():
    nav = (ROOT / "mkdocs.yml").read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        link = ROOT / "docs" / "notebooks" / path.name
        assert link.is_file() and link.resolve() == path.resolve(), path.name
        assert f": notebooks/{path.name}\n" in nav, path.name
        nb = json.loads(path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(c.get("outputs") for c in code), f"{path.name}: a code cell without stored output"
        plots = any("plt." in "".join(c["source"]) for c in code)
        images = sum("image/png" in o.get("data", {}) for c in code for o in c["outputs"])
        assert images >= plots, f"{path.name} plots, but stores no figure"


# --- the default run is turbulent, and says how much -----------------------
def test_the_default_run_has_a_reynolds_number_of_tens():
    default = config.default()
    assert default["grid"]["shape"] == [64, 64, 64] and default["forcing"]["enabled"]
    default["grid"]["shape"] = [32, 32, 32]  # Re hardly depends on the grid here (64^3: 42); 1/16 of the work
    sim = cli.build_simulation(default)
    sim.run(until=default["output"]["until"])
    re = analysis.reynolds_numbers(sim)["Re"]
    kf = analysis.forcing_wavenumber(sim)
    assert re == pytest.approx(analysis.rms(sim, "u") / (sim.nu * kf), rel=1e-12)
    assert 20 < re < 100  # 40 at 32^3 (it was about 7 with nu = 5e-3, f0 = 0.02)


def test_the_end_summary_says_what_re_is(tmp_path, capsys):
    pytest.importorskip("h5py")
    assert cli.main(["run", write(tmp_path), "--no-plot"]) == 0
    out = capsys.readouterr().out
    sim = ac.load(tmp_path / "out" / "checkpoint.h5")
    re = analysis.reynolds_numbers(sim)["Re"]
    assert f"Re = urms / (nu kf) = {re:.3g}" in out
    assert "at most" not in out and "on average" in out  # the forcing's power, not a bound it does not keep


# --- Pencil Code names, kinetic helicity, one ekin -------------------------------
def test_columns_take_the_pencil_codes_names():
    for name in ("it", "t", "dt", "urms", "umax", "ekin", "rhom", "orms", "omax", "oum", "divu2m"):
        assert name in diagnostics.COLUMNS
    for name in ("brms", "bmax", "jrms", "jmax", "b2m", "abm"):
        assert name in diagnostics.MAGNETIC_COLUMNS
    documented = (ROOT / "docs" / "timeseries.md").read_text() + diagnostics.__doc__
    for name in diagnostics.COLUMNS + diagnostics.MAGNETIC_COLUMNS:
        assert f"`{name}`" in documented and f"\n    {name} " in diagnostics.__doc__, name


def test_kinetic_helicity_of_a_beltrami_flow():
    sim = ac.Simulation(shape=(8, 8, 32), backend="cpu")
    a, k = 0.1, 2
    z = sim.z[None, None, :] * np.ones(sim.shape)
    sim["ux"], sim["uy"] = a * np.sin(k * z), a * np.cos(k * z)  # curl u = k u
    assert analysis.kinetic_helicity(sim) == pytest.approx(k * a * a, rel=1e-4)
    sim["uy"] = -sim["uy"]  # the other handedness
    assert analysis.kinetic_helicity(sim) == pytest.approx(-k * a * a, rel=1e-4)
    row = diagnostics.row(sim, 0.0)
    # the row is the backend's one-pass reduction (csrc/timeseries.h): the same sums in another order
    assert row["oum"] == pytest.approx(analysis.kinetic_helicity(sim), rel=1e-12)
    assert row["ekin"] == pytest.approx(analysis.kinetic_energy(sim), rel=1e-12)
    assert row["ekin"] == pytest.approx(0.5 * a * a, rel=1e-12)  # rho = 1: <rho u^2 / 2>
    assert row["orms"] == pytest.approx(k * a, rel=1e-4) and row["divu2m"] < 1e-25


def test_helical_forcing_gives_kinetic_helicity_of_its_sign():
    signs = []
    for relhel in (1.0, -1.0):
        sim = ac.Simulation(shape=(16, 16, 16), nu=5e-3, backend="cpu")
        sim.forcing = ac.Forcing(kmin=2.1, kmax=2.9, f0=0.07, seed=1, relhel=relhel)
        sim.run(until=2.0)
        signs.append(np.sign(analysis.kinetic_helicity(sim)))
    assert signs == [1.0, -1.0]


def test_printed_kinetic_energy_is_the_ekin_column(tmp_path, capsys):
    pytest.importorskip("h5py")
    assert cli.main(["run", write(tmp_path), "--no-plot"]) == 0
    out = capsys.readouterr().out
    last = diagnostics.read_timeseries(tmp_path / "out" / "timeseries.csv")[-1]
    assert f"ekin = <rho u^2 / 2> = {last['ekin']:.4g}" in out


OLD = """step,t,dt,urms,umax,lnrho_min,lnrho_max,lnrho_mean,rho_mean,ekin,divu_rms,vorticity_rms
2,0.1,0.05,0.5,0.7,-0.1,0.1,0.0,1.0,0.125,0.2,1.5
4,0.2,0.05,0.6,0.8,-0.1,0.1,0.0,1.0,0.18,0.3,1.6
"""


def test_old_time_series_are_read_under_the_new_names(tmp_path):
    path = tmp_path / "ts.csv"
    path.write_text(OLD)
    data = diagnostics.read_timeseries(path)
    assert list(data["it"]) == [2, 4] and list(data["rhom"]) == [1.0, 1.0] and list(data["orms"]) == [1.5, 1.6]
    assert data["divu2m"] == pytest.approx([0.04, 0.09])  # rms, squared
    with pytest.raises(ValueError, match="ts.png is not a time series"):
        (tmp_path / "ts.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        diagnostics.read_timeseries(tmp_path / "ts.png")


def test_a_run_appending_to_an_old_time_series_rewrites_its_header(tmp_path):
    path = tmp_path / "ts.csv"
    path.write_text(OLD)
    sim = ac.Simulation(shape=(8, 8, 8), nu=5e-2, backend="cpu")
    sim.t, sim.steps = 0.2, 4
    ac.init.random_velocity(sim, urms=0.05, seed=1)
    sim.run(until=0.3, timeseries=path, diagnostics_every=2)
    data = np.genfromtxt(path, delimiter=",", names=True)
    assert data.dtype.names == diagnostics.COLUMNS
    assert list(data["it"][:2]) == [2, 4] and np.isnan(data["oum"][0]) and np.isfinite(data["oum"][-1])
    assert data["t"][-1] == pytest.approx(0.3)


# --- MHD on the command line -----------------------------------------------------
MHD = dict(physics='physics = "mhd"\neta = 0.02\nb_ext = [0.0, 0.0, 0.1]', initial="seed_field = 1e-3",
           forcing="relhel = 1.0")


def test_mhd_start_line_and_summary(tmp_path, capsys):
    pytest.importorskip("h5py")
    assert cli.main(["run", write(tmp_path, **MHD), "--no-plot"]) == 0
    out = capsys.readouterr().out
    start, changed = out.splitlines()[:2]
    assert "isothermal MHD" in start and "eta = 0.02" in start and "relhel = 1" in start
    for key in ('physics = "mhd"', "eta = 0.02", "b_ext = [0.0, 0.0, 0.1]", "seed_field = 0.001",
                "[grid] shape = [16, 16, 8]", "f0 = 0.05", "relhel = 1.0"):
        assert key in changed, key
    assert ", cs = " not in changed and "mu0" not in changed  # defaults are not listed
    sim = ac.load(tmp_path / "out" / "checkpoint.h5")
    row = diagnostics.row(sim, 0.0)
    assert f"brms = {row['brms']:.4g}" in out and f"<A . B> = {row['abm']:.4g}" in out
    assert f"Rm = urms / (eta kf) = {analysis.reynolds_numbers(sim)['Rm']:.3g}" in out
    assert "magnetic spectrum peak" in out and "viscosity and resistivity" in out


def test_the_default_run_says_it_is_the_default(capsys):
    lines = cli._start_lines(config.default(), cli.build_simulation(config.default()), "the default configuration",
                             "rest start")
    assert "isothermal hydrodynamics" in lines[0] and "forced at kf = 1.53" in lines[0]
    assert "every parameter at its default" in lines[1]


def test_plot_shows_the_magnetic_field_spectrum_and_brms(tmp_path):
    pytest.importorskip("h5py")
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from astaroth.plot import figure

    assert cli.main(["run", write(tmp_path, **MHD), "--no-plot", "--quiet"]) == 0
    out = tmp_path / "out"
    sim = ac.load(out / "checkpoint.h5")
    fig = figure(sim, str(out / "timeseries.csv"))
    titles = [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("|B|") for t in titles)
    spectra = fig.axes[5]
    assert [line.get_label() for line in spectra.get_lines()] == ["kinetic", "magnetic"]
    history = fig.axes[6]
    labels = [line.get_label() for line in history.get_lines()]
    assert "brms" in labels and "urms" in labels
    plt.close(fig)
    png = tmp_path / "pic.png"
    assert cli.main(["plot", str(out / "checkpoint.h5"), "--timeseries", str(out / "timeseries.csv"),
                     "-o", str(png)]) == 0


def test_plot_takes_a_log_axis_where_a_quantity_spans_decades(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from astaroth.plot import figure

    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu", physics="mhd")
    path = tmp_path / "ts.csv"
    series = diagnostics.TimeSeries(path, columns=diagnostics.columns(sim))
    for i in range(10):  # a dynamo: brms grows from 1e-6 to 1e-1, urms stays near 0.2
        series.append(dict({c: 0.2 for c in diagnostics.columns(sim)}, it=i, t=float(i), brms=10.0 ** (i / 2 - 6),
                           bmax=10.0 ** (i / 2 - 5.5), b2m=10.0 ** (i - 12), divu2m=1e-4))
    fig = figure(sim, str(path))
    assert fig.axes[6].get_yscale() == "log" and fig.axes[7].get_yscale() == "log"
    plt.close(fig)
    hydro = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    path = tmp_path / "hydro.csv"
    series = diagnostics.TimeSeries(path)
    for i in range(10):  # urms, umax and rms div u within a decade of each other
        series.append(dict({c: 0.2 for c in diagnostics.COLUMNS}, it=i, t=float(i), urms=0.1 + 0.01 * i, divu2m=1e-3))
    fig = figure(hydro, str(path))
    assert fig.axes[5].get_yscale() == "linear"
    plt.close(fig)


def test_plot_names_the_option_and_the_file_of_a_bad_time_series(tmp_path, capsys):
    pytest.importorskip("h5py")
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    sim.save(tmp_path / "snap.h5")
    bad = tmp_path / "notes.txt"
    bad.write_text("not a table\n")
    assert cli.main(["plot", str(tmp_path / "snap.h5"), "--timeseries", str(bad)]) == cli.EXIT_INPUT
    err = capsys.readouterr().err
    assert "--timeseries" in err and "notes.txt is not a time series" in err
    assert cli.main(["plot", str(tmp_path / "snap.h5"), "--timeseries", str(tmp_path / "none.csv")]) == cli.EXIT_INPUT
    assert "--timeseries" in capsys.readouterr().err


def test_plot_reads_an_old_time_series(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from astaroth.plot import figure

    path = tmp_path / "ts.csv"
    path.write_text(OLD)
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    fig = figure(sim, str(path))
    labels = [line.get_label() for line in fig.axes[5].get_lines()]
    assert labels[:3] == ["urms", "umax", "rms div u"]
    plt.close(fig)


# --- the progress line of the whole run ----------------------------------------------
def test_progress_line_spans_the_whole_run():
    sim = ac.Simulation(shape=(8, 8, 8), nu=5e-2, backend="cpu")
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    stream = io.StringIO()
    bar = diagnostics.Progress(sim, until=1.0, every=0.0, stream=stream)
    sim.run(until=0.25, progress=bar)
    sim.run(until=0.5, progress=bar)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines and all(" of 1  " in line for line in lines)  # the whole run's end, not a segment's
    assert "t = 0.5 of 1" in lines[-1]
    last = lines[-1]
    steps = float(last.split("steps/s")[0].split()[-1])
    assert steps > 1  # an 8^3 grid: a rate in steps per second that reads as one
    assert last.endswith(" left") and "?" not in last


def test_cli_progress_goes_to_the_end_time(tmp_path, capsys):
    pytest.importorskip("h5py")
    path = write(tmp_path)
    text = pathlib.Path(path).read_text().replace("progress = false", "progress = true")
    pathlib.Path(path).write_text(text)
    assert cli.main(["run", path, "--no-plot"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("step")]
    assert lines and all(" of 0.6 " in line for line in lines) and "t = 0.6 of 0.6" in lines[-1]


def test_duration_reads_as_minutes_and_hours():
    assert diagnostics._duration(42.4) == "42 s" and diagnostics._duration(185) == "3 min 5 s"
    assert diagnostics._duration(7800) == "2 h 10 min" and diagnostics._duration(math.inf) == "?"


# --- XDMF that ParaView reads -------------------------------------------------------
def _numbers(item):
    return [float(x) for x in item.text.split()]  # a ValueError on "np.float64(0.0)"


def test_xdmf_numbers_are_plain_decimals(tmp_path):
    pytest.importorskip("h5py")
    sim = ac.Simulation(shape=(8, 6, 4), box=(1.0, 2.0, 3.0), origin=(np.float64(0.5), -1.0, 2.0),
                        backend="cpu")
    sim.t = np.float64(0.25)
    sim.save(tmp_path / "snap.h5")
    root = ET.parse(tmp_path / "snap.xdmf").getroot()
    assert float(root.find(".//Time").get("Value")) == 0.25
    origin, spacing = root.find(".//Geometry").findall("DataItem")
    assert _numbers(origin) == [2.0, -1.0, 0.5]  # z, y, x
    assert _numbers(spacing) == [0.75, 2.0 / 6, 0.125]
    assert "np." not in (tmp_path / "snap.xdmf").read_text()
    names = [a.get("Name") for a in root.iter("Attribute")]
    assert names == list(sim.field_names)


def test_checkpoint_xdmf_follows_the_checkpoint(tmp_path):
    pytest.importorskip("h5py")
    assert cli.main(["run", write(tmp_path), "--quiet", "--no-plot"]) == 0
    root = ET.parse(tmp_path / "out" / "checkpoint.xdmf").getroot()
    assert float(root.find(".//Time").get("Value")) == ac.load(tmp_path / "out" / "checkpoint.h5").t
    assert float(root.find(".//Time").get("Value")) == pytest.approx(0.6)


def test_xdmf_read_by_vtk(tmp_path):
    """VTK's XDMF reader (the one ParaView uses); skipped where the vtk wheel is absent."""
    pytest.importorskip("h5py")
    xdmf = pytest.importorskip("vtkmodules.vtkIOXdmf2")
    sim = ac.Simulation(shape=(8, 6, 4), box=(1.0, 2.0, 3.0), origin=(0.5, -1.0, 2.0), backend="cpu")
    sim["ux"] = np.arange(sim["ux"].size, dtype=float).reshape(sim.shape)
    sim.save(tmp_path / "snap.h5")
    reader = xdmf.vtkXdmfReader()
    reader.SetFileName(str(tmp_path / "snap.xdmf"))
    reader.Update()
    grid = reader.GetOutputDataObject(0)
    assert grid.GetDimensions() == (8, 6, 4)
    assert grid.GetOrigin() == pytest.approx((0.5, -1.0, 2.0))
    assert grid.GetSpacing() == pytest.approx((0.125, 1 / 3, 0.75))
    ux = grid.GetPointData().GetArray("ux")
    assert ux.GetRange() == (0.0, sim["ux"].size - 1.0)


# --- spectra stop at the Nyquist shell ---------------------------------------------------
@pytest.mark.parametrize("shape, box, last", [((64, 64, 64), (2 * math.pi,) * 3, 32),
                                              ((32, 16, 1), (2 * math.pi,) * 3, 8),
                                              ((16, 16, 16), (4 * math.pi,) * 3, 8)])
def test_spectrum_stops_at_the_nyquist_shell(shape, box, last):
    sim = ac.Simulation(shape=shape, box=box, backend="cpu")
    ac.init.random_velocity(sim, urms=0.1, seed=1)
    k, E = analysis.spectrum(sim)
    assert len(k) == len(E) == last + 1 and k[-1] == pytest.approx(last * 2 * math.pi / max(box))
    assert E.sum() == pytest.approx(0.5 * analysis.rms(sim, "u") ** 2, rel=1e-12)  # nothing past 2/3 Nyquist


def test_forced_spectrum_has_no_corner_drop():
    sim = ac.Simulation(shape=(32, 32, 32), nu=5e-3, backend="cpu")
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.07, seed=1)
    sim.run(until=2.0)
    k, E = analysis.spectrum(sim)
    assert k[-1] == 16 and E[-1] > 1e-6 * E[-2]  # the last shell is a whole one


# --- the helical dynamo notebook runs the sample's values ----------------------------------
def test_helical_dynamo_notebook_has_the_samples_values():
    nb = json.loads((ROOT / "notebooks" / "helical_dynamo.ipynb").read_text())
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "f0=0.07" in code and "relhel=1.0" in code and "nu=5e-3, eta=5e-3" in code
    assert "0.025" not in code and "helicity_mag" not in code and '"emag"' not in code
    assert "What differs from the sample" in text
    forcing = ac.Forcing(kmin=2.1, kmax=2.9)  # the sample's k.dat: 60 vectors, kav = 2.43991
    assert len(forcing.wavenumbers) == 60 and forcing.mean_k == pytest.approx(2.43991, abs=1e-5)
    assert sorted(set((forcing.wavenumbers ** 2).sum(axis=1))) == [5.0, 6.0, 8.0]
