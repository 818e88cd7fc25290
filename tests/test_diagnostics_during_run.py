"""What a run writes while it goes on: chosen time-series columns,
time_series.dat in the Pencil Code's format, nt, RELOAD, averages, slices
and spectra (astaroth.during, astaroth.outputs)."""
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import astaroth as ac
from astaroth import config as configuration
from astaroth import diagnostics, outputs
from astaroth.cli import main
from helpers import pencil_ts

ROOT = Path(__file__).parent.parent


def _turbulent(**kw):
    sim = ac.Simulation(shape=(16, 16, 8), nu=1e-2, **kw)
    ac.init.random_velocity(sim, urms=0.1, seed=2)
    return sim


# --- time-series columns -----------------------------------------------------------------------
def test_chosen_columns_and_their_values(tmp_path):
    sim = _turbulent()
    sim.run(until=0.2, timeseries=tmp_path / "ts.csv", diagnostics=["urms", "ux2m", "uzm", "rhomax"],
            diagnostics_every=1)
    data = diagnostics.read_timeseries(tmp_path / "ts.csv")
    assert data.dtype.names == ("it", "t", "dt", "urms", "ux2m", "uzm", "rhomax")
    assert data["ux2m"][-1] == pytest.approx(np.mean(sim["ux"] ** 2), rel=1e-12)
    assert data["uzm"][-1] == pytest.approx(np.mean(sim["uz"]), abs=1e-15)
    assert data["rhomax"][-1] == pytest.approx(np.exp(sim["lnrho"]).max(), rel=1e-12)


def test_the_default_columns_stay_as_they_were(tmp_path):
    sim = _turbulent()
    sim.run(until=0.1, timeseries=tmp_path / "ts.csv")
    header = (tmp_path / "ts.csv").read_text().splitlines()[0].split(",")
    assert tuple(header) == diagnostics.COLUMNS


def test_the_catalogue_names_every_column_on_the_docs_page():
    page = (ROOT / "docs" / "guide" / "diagnostics.md").read_text()
    for name, (formula, meaning, needs) in diagnostics.catalogue().items():
        assert f"| `{name}` |" in page, name
    for section, keys in configuration.DOCUMENTED_ON["docs/guide/diagnostics.md"].items():
        block = page.split("```toml\n")[1].split("```")[0]
        for key in keys:
            assert re.search(rf"^{key} = ", block, re.M), key


def test_the_docs_page_toml_is_valid(tmp_path):
    page = (ROOT / "docs" / "guide" / "diagnostics.md").read_text()
    (tmp_path / "d.toml").write_text(page.split("```toml\n")[1].split("```")[0])
    configuration.load(tmp_path / "d.toml")


@pytest.mark.parametrize("columns, error, words", [
    (["urms", "ekinn"], ValueError, "unknown column 'ekinn' (did you mean 'ekin'"),
    (["brms"], ValueError, "'brms' (rms field, b_ext included) needs physics=\"mhd\""),
    (["TTm"], ValueError, "needs energy=\"entropy\""),
    ("urms", TypeError, "must be a list of column names"),
    ([3], TypeError, "column names are strings"),
    (["urms", "urms"], ValueError, "named twice"),
])
def test_bad_columns_refused_before_any_step(tmp_path, columns, error, words):
    sim = _turbulent()
    with pytest.raises(error, match=re.escape(words)):
        sim.run(until=0.1, timeseries=tmp_path / "ts.csv", diagnostics=columns)
    assert sim.steps == 0 and not (tmp_path / "ts.csv").exists()


def test_columns_without_a_time_series_are_refused():
    with pytest.raises(ValueError, match="timeseries=PATH"):
        _turbulent().run(until=0.1, diagnostics=["urms"])


def test_a_time_series_in_a_new_folder_makes_the_folder(tmp_path):
    sim = _turbulent()
    sim.run(until=0.1, timeseries=tmp_path / "run" / "ts.csv", diagnostics_every=1)
    assert diagnostics.read_timeseries(tmp_path / "run" / "ts.csv")["it"][-1] == sim.steps > 0


def test_magnetic_extra_columns():
    sim = ac.Simulation(shape=8, physics="mhd", b_ext=(0.0, 0.0, 0.3))
    row = diagnostics.row(sim, 0.0, ["bzm", "bz2m", "bxm"])
    assert row["bzm"] == pytest.approx(0.3) and row["bz2m"] == pytest.approx(0.09) and row["bxm"] == 0.0


# --- time_series.dat ---------------------------------------------------------------------------
def test_time_series_dat_reads_as_the_pencil_code_reads_it_and_matches_the_csv(tmp_path):
    sim = _turbulent()
    sim.run(until=0.3, timeseries=[tmp_path / "ts.csv", tmp_path / "time_series.dat"], diagnostics_every=2)
    csv = diagnostics.read_timeseries(tmp_path / "ts.csv")
    dat = pencil_ts(tmp_path / "time_series.dat")
    assert list(dat) == list(csv.dtype.names)
    assert (tmp_path / "time_series.dat").read_text().startswith("#------it-------------t")
    for name in csv.dtype.names:  # seven significant figures, as written
        np.testing.assert_allclose(dat[name], csv[name], rtol=1e-6, atol=1e-300)
    assert list(diagnostics.read_timeseries(tmp_path / "time_series.dat")["it"]) == list(csv["it"])


def test_time_series_dat_truncated_on_restart(tmp_path):
    sim = _turbulent()
    sim.run(until=0.3, timeseries=tmp_path / "time_series.dat", diagnostics_every=1)
    rows = pencil_ts(tmp_path / "time_series.dat")
    assert diagnostics.truncate(tmp_path / "time_series.dat", int(rows["it"][1]), keep_last=True) == len(rows["it"]) - 2
    assert list(pencil_ts(tmp_path / "time_series.dat")["it"]) == list(rows["it"][:2])


# --- nt ------------------------------------------------------------------------------------------
def test_nt_caps_the_steps_of_a_call_and_the_rest_goes_on_as_one_run(tmp_path):
    a, b = _turbulent(), _turbulent()
    assert a.run(until=0.5, nt=3, timeseries=tmp_path / "a.csv", diagnostics_every=2) == 3
    assert a.steps == 3 and a.t < 0.5
    a.run(until=0.5, timeseries=tmp_path / "a.csv", diagnostics_every=2)
    b.run(until=0.5, timeseries=tmp_path / "b.csv", diagnostics_every=2)
    np.testing.assert_array_equal(a["ux"], b["ux"])
    with pytest.raises(ValueError, match="nt must be a positive integer"):
        a.run(until=1.0, nt=0)


# --- averages and slices -------------------------------------------------------------------------
def test_averages_of_fields_and_products_every_n_steps(tmp_path):
    h5py = pytest.importorskip("h5py")
    sim = ac.Simulation(shape=(16, 16, 8), physics="mhd", eta=1e-3, backend="cpu")  # NumPy fields to compare
    ac.init.random_velocity(sim, urms=0.1, seed=2)
    sim["ax"] = 0.01 * np.random.default_rng(4).standard_normal(sim.shape)
    sim["ay"] = 0.01 * np.random.default_rng(5).standard_normal(sim.shape)
    averages = outputs.Averages(tmp_path, xy=["uz", "bx*by", "rho*uz*uz"], yz=["ux"], z=["lnrho"], every=2)
    sim.run(until=10.0, nt=4, outputs=[averages])
    with h5py.File(tmp_path / "xyaverages.h5", "r") as f:
        assert list(f["it"][:]) == list(range(2, sim.steps + 1, 2))
        last = int(f["it"][-1])
        assert f["bx*by"].shape == (len(f["it"]), 8) and np.array_equal(f["z"][:], sim.z)
        rows = {k: f[k][-1] for k in ("uz", "bx*by", "rho*uz*uz")}
    assert last == sim.steps  # the last row is of the state now: compare with it
    bx, by, _ = ac.analysis.magnetic_field(sim)
    np.testing.assert_allclose(rows["bx*by"], (bx * by).mean(axis=(0, 1)), rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(rows["uz"], sim["uz"].mean(axis=(0, 1)), rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(rows["rho*uz*uz"], (np.exp(sim["lnrho"]) * sim["uz"] ** 2).mean(axis=(0, 1)),
                               rtol=1e-12)
    with h5py.File(tmp_path / "zaverages.h5", "r") as f:
        np.testing.assert_allclose(f["lnrho"][-1], sim["lnrho"].mean(axis=2), rtol=1e-12, atol=1e-18)
    with h5py.File(tmp_path / "yzaverages.h5", "r") as f:
        np.testing.assert_allclose(f["ux"][-1], sim["ux"].mean(axis=(1, 2)), rtol=1e-12, atol=1e-18)


def test_slices_through_a_point(tmp_path):
    h5py = pytest.importorskip("h5py")
    sim = _turbulent()
    sim.run(until=0.2, outputs=[outputs.Slices(tmp_path, ["uz", "ux*uy"], point=(3, 5, 7), every=1)])
    with h5py.File(tmp_path / "slices.h5", "r") as f:
        assert f["it"][-1] == sim.steps
        np.testing.assert_array_equal(f["uz/xy"][-1], sim["uz"][:, :, 7])
        np.testing.assert_array_equal(f["uz/xz"][-1], sim["uz"][:, 5, :])
        np.testing.assert_array_equal(f["uz/yz"][-1], sim["uz"][3, :, :])
        np.testing.assert_allclose(f["ux*uy/xy"][-1], (sim["ux"] * sim["uy"])[:, :, 7], rtol=1e-15)


@pytest.mark.parametrize("make, words", [
    (lambda d: outputs.Averages(d, xy=["uz*sss"]), "unknown quantity 'sss' in 'uz*sss' (did you mean 'ss'"),
    (lambda d: outputs.Averages(d, xy=["bx*by"]), "'bx' (x magnetic field) in 'bx*by' needs physics=\"mhd\""),
    (lambda d: outputs.Slices(d, ["uz"], point=(0, 0, 8)), "point index 8 along z lies outside"),
    (lambda d: outputs.Spectra(d, ["magnetic"]), "'magnetic' needs physics='mhd'"),
    (lambda d: outputs.Spectra(d, ["lnrhoo"]), "unknown spectrum 'lnrhoo' (did you mean 'lnrho'"),
])
def test_bad_outputs_refused_before_any_file_or_step(tmp_path, make, words):
    sim = _turbulent()
    with pytest.raises(ValueError, match=re.escape(words)):
        sim.run(until=0.1, timeseries=tmp_path / "ts.csv", outputs=[make(tmp_path)])
    assert sim.steps == 0 and list(tmp_path.iterdir()) == []


READER = """
import sys, h5py
with h5py.File(sys.argv[1], "r", libver="latest", swmr=True) as f:
    f["uz"].refresh(); f["it"].refresh()
    print(f["uz"].shape[0], f["it"][:].tolist())
"""


class _Watcher:
    """An output that, while the averages file is open for writing, reads it from another process."""
    every = 1

    def __init__(self, path):
        self.path, self.seen = path, []

    def check(self, sim):
        pass

    def open(self, sim):
        pass

    def write(self, sim):
        if sim.steps in (2, 4):
            out = subprocess.run([sys.executable, "-c", READER, str(self.path)], capture_output=True, text=True,
                                 timeout=60)
            assert out.returncode == 0, out.stderr
            self.seen.append(out.stdout.strip())

    def close(self):
        pass


def test_a_reader_sees_the_rows_while_the_run_writes_the_file(tmp_path):
    pytest.importorskip("h5py")
    sim = _turbulent()
    watcher = _Watcher(tmp_path / "xyaverages.h5")
    sim.run(until=0.4, nt=5, outputs=[outputs.Averages(tmp_path, xy=["uz"], every=1), watcher])
    assert watcher.seen == ["2 [1, 2]", "4 [1, 2, 3, 4]"]


def test_a_second_run_call_appends_and_a_fresh_run_drops_the_old_rows(tmp_path):
    h5py = pytest.importorskip("h5py")
    sim = _turbulent()
    sim.run(until=0.1, outputs=[outputs.Averages(tmp_path, xy=["uz"], every=1)])
    sim.run(until=0.2, outputs=[outputs.Averages(tmp_path, xy=["uz"], every=1)])
    with h5py.File(tmp_path / "xyaverages.h5", "r") as f:
        assert list(f["it"][:]) == list(range(1, sim.steps + 1))
    with pytest.warns(RuntimeWarning, match="dropped"):
        _turbulent().run(until=0.05, nt=1, outputs=[outputs.Averages(tmp_path, xy=["uz"], every=1)])
    with h5py.File(tmp_path / "xyaverages.h5", "r") as f:
        assert list(f["it"][:]) == [1]
    with pytest.raises(ValueError, match="holds uz"):
        _turbulent().run(until=0.05, outputs=[outputs.Averages(tmp_path, xy=["ux"], every=1)])


@pytest.mark.gpu
def test_averages_and_spectra_on_the_gpu_equal_the_cpu_run(tmp_path):
    h5py = pytest.importorskip("h5py")
    pytest.importorskip("cupy")
    files = {}
    for backend in ("cpu", "cuda"):
        sim = ac.Simulation(shape=32, nu=1e-2, backend=backend)
        ac.init.random_velocity(sim, urms=0.1, seed=2)
        d = tmp_path / backend
        sim.run(until=0.2, outputs=[outputs.Averages(d, xy=["uz*uz"], z=["lnrho"], every=2),
                                    outputs.Spectra(d, ["kinetic"], every=2)])
        with h5py.File(d / "xyaverages.h5") as f, h5py.File(d / "spectra.h5") as g:
            files[backend] = (f["uz*uz"][:], g["kinetic"][:])
    for cpu, gpu in zip(files["cpu"], files["cuda"]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-9, atol=1e-20)


# --- spectra -------------------------------------------------------------------------------------
def test_spectra_in_hdf5_and_in_the_pencil_codes_power_kin_dat(tmp_path):
    h5py = pytest.importorskip("h5py")
    sim = ac.Simulation(shape=16, nu=1e-2)
    ac.init.random_velocity(sim, urms=0.1, seed=2)
    sim.run(until=10.0, nt=4, outputs=[outputs.Spectra(tmp_path, ["kinetic", "lnrho"], every=2)])
    k, E = ac.analysis.spectrum(sim)
    with h5py.File(tmp_path / "spectra.h5", "r") as f:
        assert f["it"][-1] == sim.steps
        np.testing.assert_allclose(f["kinetic"][-1], E, rtol=1e-12)
        np.testing.assert_array_equal(f["k"][:], k)
        rows = f["t"].shape[0]
    t, P = outputs.read_power(tmp_path / "power_kin.dat", 8)  # n / 2 shells, as the Pencil Code
    assert len(t) == rows and t[-1] == pytest.approx(sim.t, rel=1e-8)
    np.testing.assert_allclose(P[-1], E[:8], rtol=1e-6)
    # Parseval: the shells hold half the mean square speed
    assert E.sum() == pytest.approx(0.5 * sum(np.mean(sim[c] ** 2) for c in ("ux", "uy", "uz")), rel=1e-3)
    assert (tmp_path / "power_lnrho.dat").exists()


# --- astaroth run: [diagnostics], time_series.dat, nt, RELOAD --------------------------------------
RUN = """
[grid]
shape = [16, 16, 8]
[physics]
nu = {nu}
[numerics]
backend = "cpu"
[initial]
kind = "random_velocity"
urms = 0.05
[output]
dir = "{dir}"
until = {until}
snapshot_every = 0.3
timeseries_every = 2
progress = false
nt = {nt}
[diagnostics]
columns = ["urms", "uz2m"]
xyaverages = ["uz", "uz*uz"]
averages_every = 3
slices = ["uz"]
slices_every = 4
spectra = ["kinetic"]
spectra_every = 5
"""


def test_a_toml_run_writes_every_diagnostic(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "run.toml"
    path.write_text(RUN.format(nu=0.01, dir=(tmp_path / "out").as_posix(), until=0.6, nt=0))
    assert main(["run", str(path), "--quiet", "--no-plot"]) == 0
    out = tmp_path / "out"
    dat = pencil_ts(out / "time_series.dat")
    assert list(dat) == ["it", "t", "dt", "urms", "uz2m"] and dat["t"][-1] == pytest.approx(0.6)
    for name, every in (("xyaverages.h5", 3), ("slices.h5", 4), ("spectra.h5", 5)):
        with h5py.File(out / name) as f:
            assert all(it % every == 0 for it in f["it"][:]) and len(f["it"]) >= 1
    assert (out / "power_kin.dat").exists()
    assert main(["run", str(path), "--quiet", "--no-plot", "--overwrite"]) == 0  # --overwrite removes them all


def test_nt_ends_a_toml_run_and_restart_goes_on_as_the_straight_run(tmp_path, capsys):
    pytest.importorskip("h5py")
    straight = tmp_path / "straight.toml"
    straight.write_text(RUN.format(nu=0.01, dir=(tmp_path / "straight").as_posix(), until=0.6, nt=0))
    assert main(["run", str(straight), "--quiet", "--no-plot"]) == 0
    capped = tmp_path / "capped.toml"
    capped.write_text(RUN.format(nu=0.01, dir=(tmp_path / "capped").as_posix(), until=0.6, nt=3))
    assert main(["run", str(capped), "--quiet", "--no-plot"]) == 0
    assert "reached nt = 3 steps at step 3" in capsys.readouterr().out
    capped.write_text(RUN.format(nu=0.01, dir=(tmp_path / "capped").as_posix(), until=0.6, nt=0))
    assert main(["run", str(capped), "--restart", "--quiet", "--no-plot"]) == 0
    for name in ("timeseries.csv", "time_series.dat"):
        assert (tmp_path / "capped" / name).read_text() == (tmp_path / "straight" / name).read_text()


RELOADING = """
import sys
from pathlib import Path
import astaroth.simulation as simulation
from astaroth.cli import main
original = simulation.Simulation._advance
def advance(self, dt, **kw):
    original(self, dt, **kw)
    if self.steps == 4:  # in the fifth step: the file edited and RELOAD asked for while the run goes on
        Path({path!r}).write_text(Path({path!r}).read_text().replace("nu = 0.01", "nu = 0.02"))
        Path({reload!r}).write_text("")
simulation.Simulation._advance = advance
sys.exit(main(["run", {path!r}, "--quiet", "--no-plot"]))
"""


def test_reload_takes_a_changed_viscosity_while_the_run_goes_on(tmp_path):
    pytest.importorskip("h5py")
    path = tmp_path / "run.toml"
    out = tmp_path / "out"
    path.write_text(RUN.format(nu=0.01, dir=out.as_posix(), until=0.6, nt=0))
    child = subprocess.run([sys.executable, "-c", RELOADING.format(path=str(path), reload=str(out / "RELOAD"))],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert child.returncode == 0, child.stderr
    assert "RELOAD at step 5" in child.stdout and "[physics] nu = 0.02 (was 0.01)" in child.stdout
    assert not (out / "RELOAD").exists()
    sim = ac.load(out / "checkpoint.h5")
    assert sim.nu == 0.02
    history = ac.io.attributes(out / "checkpoint.h5")["restart_history"]
    assert '"steps": 5' in history and "[physics] nu" in history


def test_reload_refuses_a_fixed_key_and_goes_on(tmp_path):
    pytest.importorskip("h5py")
    path = tmp_path / "run.toml"
    out = tmp_path / "out"
    path.write_text(RUN.format(nu=0.01, dir=out.as_posix(), until=0.6, nt=0))
    script = RELOADING.replace('"nu = 0.01", "nu = 0.02"', '"[physics]", "[physics]\\ncs = 2.0"')
    child = subprocess.run([sys.executable, "-c", script.format(path=str(path), reload=str(out / "RELOAD"))],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert child.returncode == 0, child.stderr
    assert "cannot change while the run goes on: [physics] cs = 2.0" in child.stdout
    assert ac.load(out / "checkpoint.h5").cs == 1.0


def test_astaroth_plot_draws_the_spectras_time_evolution(tmp_path, capsys):
    pytest.importorskip("h5py")
    pytest.importorskip("matplotlib")
    sim = ac.Simulation(shape=16, nu=2e-2)
    ac.init.random_velocity(sim, urms=0.1, seed=2)
    sim.run(until=1.0, outputs=[outputs.Spectra(tmp_path, ["kinetic"], every=2)])
    assert main(["plot", str(tmp_path / "spectra.h5"), "-o", str(tmp_path / "s.png")]) == 0
    assert (tmp_path / "s.png").stat().st_size > 10000
    # the decay the picture shows: the energy at late times is below the early one
    t, E = outputs.read_power(tmp_path / "power_kin.dat", 8)
    assert E[-1].sum() < 0.9 * E[0].sum()


def test_a_cuda_run_without_cupy_is_told_that_its_outputs_copy_fields_to_the_host(monkeypatch):
    """Without CuPy the time series and outputs of a CUDA run are computed on the host from copies of the
    whole fields (astaroth.analysis._array_module); the run warns of it, and is silent where they are
    computed on the device or the run is on the CPU."""
    import sys
    from types import SimpleNamespace

    from astaroth.during import host_copies

    cuda = SimpleNamespace(backend="cuda", decomposition=None)
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    assert "copies the whole fields it needs from the GPU" in host_copies(cuda)
    assert "gathers the whole fields" in host_copies(SimpleNamespace(backend="cuda", decomposition=(2, 1, 1)))
    assert host_copies(SimpleNamespace(backend="cpu", decomposition=None)) is None
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace())  # CuPy importable: on the device
    assert host_copies(cuda) is None
