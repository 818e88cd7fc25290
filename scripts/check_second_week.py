#!/usr/bin/env python3
"""Walk the fifteen items of the second week's issue and check each with a
small real run on the CPU, printing one line per item:

    item N: OK — what was checked, with a measured figure
    item N: FAIL — why

The items: (1) chosen time-series columns, (2) averages and slices during a
run, (3) spectra, (4) time_series.dat, nt and RELOAD, (5) hydrostatic layers
and conv_slab's progress, (6) live parameters, (7) the site offline,
(8) docs that match the code, (9) the notebooks, (10) the vtk extra and the
build cache, (11) MHD with walls, (12) atomic files after kills, (13) damaged
Pencil Code files, (14) bad walls, snapshots and times, (15) overflow
messages.  Where a check needs a GPU it says which GPU test covers it
instead (none of them runs here).  Exit status 1 when any item fails.

From the repository root, after pip install -e ".[test,io,plot,docs]":

    python scripts/check_second_week.py          # every item (about two minutes on two cores)
    python scripts/check_second_week.py 4 12     # some of them
"""
import argparse
import contextlib
import glob
import http.server
import importlib.util
import inspect
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

import astaroth as ac
from astaroth import diagnostics, outputs
from astaroth.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers import (KILLED_SAVE, KILLED_WRITER, WRITE_VAR_SET, kill_at_random_moments, noisy_gas,  # noqa: E402
                     pencil_ts)

CHECKS = {}
WALLS = {"ux": "s", "uy": "s", "uz": "a", "lnrho": "a2"}  # z walls of a hydro run: the kinds of docs/guide/walls.md


def item(number):
    def register(function):
        CHECKS[number] = function
        return function
    return register


class Failed(Exception):
    pass


def need(condition, why):
    if not condition:
        raise Failed(why)


def quiet_cli(*argv):
    """`astaroth ARGV` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def pytest_nodes(*nodes):
    """Run tests of tests/ by node id (installed astaroth, not the source folder); (passed, skipped)."""
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                            "--rootdir", str(ROOT)] + [str(ROOT / "tests" / n) for n in nodes],
                           cwd=tempfile.gettempdir(), capture_output=True, text=True, timeout=600)
    tail = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else child.stderr[-500:]
    need(child.returncode == 0, f"pytest {' '.join(nodes)}: {tail}")
    count = lambda word: int(re.search(rf"(\d+) {word}", tail).group(1)) if re.search(rf"(\d+) {word}", tail) else 0
    return count("passed"), count("skipped"), child.stdout


def turbulent(shape=16, nu=1e-2, **kw):
    sim = ac.Simulation(shape=shape, nu=nu, backend="cpu", **kw)
    ac.init.random_velocity(sim, urms=0.1, seed=3)
    return sim


def refusal(action, what, errors=ValueError):
    """The message of the error of `errors` that action() raises; a failure naming `what` where it raises none."""
    try:
        action()
    except errors as e:
        return str(e)
    raise Failed(f"{what}: accepted without an error")


def within(error):
    """'exactly' or 'to 1e-13': how far a figure is from what it should be."""
    return "exactly" if error == 0 else f"to {error:.0e}"


def toml_run(folder, text):
    path = folder / "run.toml"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------------------
@item(1)
def chosen_columns(work):
    sim = turbulent()
    chosen = ["urms", "orms", "ux2m", "rhomax"]
    sim.run(until=0.1, timeseries=work / "ts.csv", diagnostics=chosen, diagnostics_every=1)
    data = diagnostics.read_timeseries(work / "ts.csv")
    need(list(data.dtype.names) == ["it", "t", "dt"] + chosen, f"header {data.dtype.names}")
    error = abs(data["ux2m"][-1] - np.mean(sim["ux"] ** 2)) / np.mean(sim["ux"] ** 2)
    need(error < 1e-12, f"ux2m differs from <ux^2> by {error:.1e}")
    plain = turbulent()
    plain.run(until=0.05, timeseries=work / "default.csv")
    default = (work / "default.csv").read_text().splitlines()[0].split(",")
    need(tuple(default) == diagnostics.COLUMNS, f"default header {default}")
    out = work / "out"
    path = toml_run(work, f'[grid]\nshape = [8, 8, 8]\n[numerics]\nbackend = "cpu"\n[output]\ndir = "{out}"\n'
                          f'until = 0.2\nprogress = false\ntimeseries_every = 2\n'
                          f'[diagnostics]\ncolumns = ["urms", "uz2m", "omax"]\n')
    status, _, err = quiet_cli("run", path, "--no-plot")
    need(status == 0, f"astaroth run: status {status}: {err[-300:]}")
    csv = (out / "timeseries.csv").read_text().splitlines()[0]
    dat = list(pencil_ts(out / "time_series.dat"))
    need(csv == "it,t,dt,urms,uz2m,omax" and dat == ["it", "t", "dt", "urms", "uz2m", "omax"], (csv, dat))
    catalogue = diagnostics.catalogue()
    page = (ROOT / "docs" / "guide" / "diagnostics.md").read_text()
    missing = [n for n in catalogue if f"| `{n}` |" not in page]
    need(not missing, f"columns not on docs/guide/diagnostics.md: {missing}")
    status, _, err = quiet_cli("run", toml_run(work, path.read_text().replace('"omax"', '"omaxx"')), "--overwrite")
    need(status == 2 and "did you mean 'omax'" in err, f"a misspelt column: status {status}, {err[-200:]}")
    return (f"run(diagnostics={chosen}) wrote it,t,dt + those (ux2m = <ux^2> {within(error)}); TOML "
            f"[diagnostics] columns gave 'it,t,dt,urms,uz2m,omax' in timeseries.csv and time_series.dat; the default "
            f"header is still the {len(default)} columns {','.join(default[:4])},...; the catalogue's "
            f"{len(catalogue)} columns (Pencil print.in names) are all on docs/guide/diagnostics.md; 'omaxx' "
            f"refused naming 'omax' (status 2)")


@item(2)
def averages_and_slices(work):
    import h5py

    sim = turbulent(shape=(16, 16, 8), physics="mhd", eta=1e-3)
    sim["ax"] = 0.05 * np.sin(2 * np.pi * sim.y / sim.box[1])[None, :, None]
    seen = []

    class Reader:
        """An output that reads xyaverages.h5 while the run writes it (HDF5 single-writer/multiple-reader)."""
        every = 2

        def check(self, sim):
            pass

        def open(self, sim):
            pass

        def write(self, sim):
            with h5py.File(work / "xyaverages.h5", "r", libver="latest", swmr=True) as f:
                seen.append((sim.steps, f["uz*uz"].shape[0]))

        def close(self):
            pass

    point = (3, 5, 2)
    written = [outputs.Averages(work, xy=["uz", "uz*uz", "bx*by"], xz=["ux"], yz=["uy*lnrho"], z=["lnrho"], every=2),
               outputs.Slices(work, ["uz", "oz"], point=point, every=3), Reader()]
    sim.run(until=10.0, nt=12, outputs=written)
    need(seen and all(rows == steps // 2 for steps, rows in seen), f"rows seen during the run {seen}")
    u, B = sim["uz"], ac.analysis.magnetic_field(sim)
    with h5py.File(work / "xyaverages.h5", "r") as f:
        need(f["uz*uz"].shape == (6, 8) and list(f["it"][:]) == [2, 4, 6, 8, 10, 12], f"xy rows {f['it'][:]}")
        err = max(np.abs(f["uz*uz"][-1] - np.mean(u ** 2, axis=(0, 1))).max(),
                  np.abs(f["bx*by"][-1] - np.mean(B[0] * B[1], axis=(0, 1))).max())
    with h5py.File(work / "zaverages.h5", "r") as f:
        need(f["lnrho"].shape == (6, 16, 16), f"z averages {f['lnrho'].shape}")
    with h5py.File(work / "slices.h5", "r") as f:
        need(list(f["it"][:]) == [3, 6, 9, 12], f"slice rows {f['it'][:]}")
        plane = np.abs(f["uz/xy"][-1] - u[:, :, point[2]]).max()
        oz = np.abs(f["oz/yz"][-1] - np.asarray(ac.analysis.vorticity(sim)[2])[point[0]]).max()
    need(err < 1e-14 and plane == 0 and oz < 1e-13, f"averages off by {err:.1e}, slices by {plane:.1e}, {oz:.1e}")
    names = sorted(os.path.basename(p) for p in glob.glob(str(work / "*.h5")))
    # the device path, by the code: CuPy arrays on the live device fields, only the reduced numbers to the host
    field = inspect.getsource(ac.analysis._field)
    evaluate = inspect.getsource(outputs.Averages.write) + inspect.getsource(outputs.Slices.write)
    need("xp.asarray(sim.view(name))" in field and "evaluate.xp.mean" in evaluate and "_host(f[tuple(index)])"
         in evaluate, "the device path of astaroth.outputs is not what this check reads")
    need("walls=True takes a NumPy array" not in inspect.getsource(ac.ops.derivative),
         "ops.derivative still refuses device arrays with walls")
    return (f"{', '.join(names)} grew along the run (a reader saw {len(seen)} times rows = steps / 2 while it "
            f"went on); the last rows equal the means of the fields (uz*uz, bx*by {within(err)}) and the planes "
            f"through {point} (uz {within(plane)}, oz {within(oz)}). On the GPU (by the code, not run here): with CuPy the "
            f"quantities are CuPy arrays on the live device fields (analysis._field: cupy.asarray(sim.view)), "
            f"means and plane cuts on the device, only the rows copied to the host; without CuPy or on MPI-split "
            f"grids the run warns that it copies fields (astaroth.during.host_copies). GPU tests: "
            f"test_diagnostics_during_run.py::test_averages_and_spectra_on_the_gpu_equal_the_cpu_run, "
            f"test_ops_gpu.py::test_mhd_with_walls_diagnostics_and_averages_on_the_device_agree_with_the_cpu")


@item(3)
def spectra(work):
    import h5py

    sim = turbulent(physics="mhd", eta=1e-2)
    sim["ay"] = 0.05 * np.sin(2 * np.pi * sim.x / sim.box[0])[:, None, None]
    sim.run(until=10.0, nt=12, outputs=[outputs.Spectra(work, ["kinetic", "magnetic", "lnrho"], every=2)])
    k, E = ac.analysis.spectrum(sim)
    with h5py.File(work / "spectra.h5", "r") as f:
        rows = f["t"].shape[0]
        h5 = np.abs(f["kinetic"][-1] - E).max() / E.max()
    t, P = outputs.read_power(work / "power_kin.dat", 8)
    first = (work / "power_kin.dat").read_text().splitlines()[:3]
    pencil_layout = len(first[0].split()) == 1 and len(first[1].split()) == 8  # t, then eight to a line
    parseval = E.sum() / (0.5 * sum(np.mean(sim[c] ** 2) for c in ("ux", "uy", "uz")))
    need(rows == 6 and len(t) == 6 and pencil_layout and h5 < 1e-12 and abs(P[-1] - E[:8]).max() / E.max() < 1e-6,
         f"rows {rows}, {len(t)}; layout {first}; h5 off by {h5:.1e}")
    need((work / "power_mag.dat").exists() and (work / "power_lnrho.dat").exists(), "power_mag/lnrho.dat missing")
    status, _, err = quiet_cli("plot", work / "spectra.h5", "-o", work / "spectra.png")
    need(status == 0 and (work / "spectra.png").stat().st_size > 10000, f"astaroth plot: {status} {err[-200:]}")
    return (f"kinetic, magnetic and lnrho spectra every 2 steps: spectra.h5 (6 rows, the last = "
            f"analysis.spectrum {within(h5)}, Parseval sum/<u^2>/2 = {parseval:.4f}) and power_kin.dat, "
            f"power_mag.dat, power_lnrho.dat in the Pencil Code's layout (a line of t, then 8 numbers a line); "
            f"`astaroth plot spectra.h5` drew the time evolution of the 3 spectra "
            f"({(work / 'spectra.png').stat().st_size // 1024} kB PNG, {rows} times)")


RELOADING = """
import sys
from pathlib import Path
from astaroth import during
from astaroth.cli import main
original = during.RunOutputs.after_step
def after_step(self, dt):
    original(self, dt)
    if self.sim.steps >= 4 and "nu = 0.01" in Path({path!r}).read_text():  # edited while the run goes on
        Path({path!r}).write_text(Path({path!r}).read_text().replace("nu = 0.01", "nu = 0.02"))
        Path({reload!r}).write_text("")
during.RunOutputs.after_step = after_step
sys.exit(main(["run", {path!r}, "--quiet", "--no-plot"]))
"""


@item(4)
def time_series_nt_reload(work):
    sim = turbulent()
    sim.run(until=1.0, timeseries=[work / "ts.csv", work / "time_series.dat"], diagnostics_every=2)
    csv = diagnostics.read_timeseries(work / "ts.csv")
    dat = pencil_ts(work / "time_series.dat")
    need(list(dat) == list(csv.dtype.names), f"{list(dat)} against {csv.dtype.names}")
    worst = max(np.abs(dat[n] - csv[n]).max() / max(np.abs(csv[n]).max(), 1e-300) for n in dat)
    need(worst < 1e-6, f"time_series.dat differs from the CSV by {worst:.1e}")
    capped, straight = turbulent(), turbulent()
    taken = capped.run(until=0.5, nt=3)
    capped.run(until=0.5)
    straight.run(until=0.5)
    need(taken == 3 and np.array_equal(capped["ux"], straight["ux"]), f"nt: {taken} steps, fields differ")
    out = work / "run"
    path = toml_run(work, f'[grid]\nshape = [16, 16, 8]\n[physics]\nnu = 0.01\n[numerics]\nbackend = "cpu"\n'
                          f'[initial]\nkind = "random_velocity"\nurms = 0.05\n[output]\ndir = "{out}"\n'
                          f'until = 0.6\nsnapshot_every = 0.3\ntimeseries_every = 2\nprogress = false\n')
    child = subprocess.run([sys.executable, "-c", RELOADING.format(path=str(path), reload=str(out / "RELOAD"))],
                           capture_output=True, text=True, cwd=work, timeout=300)
    need(child.returncode == 0, f"the RELOAD run: {child.stderr[-300:]}")
    line = next((l for l in child.stdout.splitlines() if "RELOAD" in l), "")
    need("[physics] nu = 0.02 (was 0.01)" in child.stdout and not (out / "RELOAD").exists(), child.stdout[-300:])
    need(ac.load(out / "checkpoint.h5").nu == 0.02, "the checkpoint's nu is not the reloaded one")
    return (f"time_series.dat read by the Pencil Code's reading rules gives the CSV's {len(dat)} columns and "
            f"{len(dat['it'])} rows to {worst:.0e} (7 figures); run(nt=3) stopped at 3 steps and went on bit for "
            f"bit as a straight run; a RELOAD during `astaroth run` took nu 0.01 -> 0.02 ({line.strip()[:60]}...), "
            f"the file removed and the checkpoint's nu 0.02")


@item(5)
def stratified(work):
    from astaroth import config, stability
    from astaroth.cli import build_simulation

    results = {}
    iso = ac.Simulation(shape=(4, 4, 24), box=(1.0, 1.0, 1.0), backend="cpu", gravity=(0, 0, -1.0), cs=0.8,
                        boundaries={"z": WALLS}, nu=1e-2)
    ac.init.hydrostatic(iso, kind="isothermal")
    toml = {"grid": {"shape": [4, 4, 20], "box": [1.0, 1.0, 1.0]},
            "physics": {"energy": "entropy", "gravity": [0.0, 0.0, -1.0], "nu": 0.01},
            "boundaries": {"z": {**WALLS, "ss": "a2"}}, "numerics": {"backend": "cpu"},
            "initial": {"stratification": "polytropic", "mpoly": 1.2, "zref": 0.25}}
    poly = build_simulation(config.validate(toml))
    for name, sim in (("isothermal (Python)", iso), ("polytropic mpoly = 1.2 (TOML)", poly)):
        before = sim["lnrho"].copy()
        for _ in range(100):
            sim.step()
        umax = max(np.abs(sim[c]).max() for c in ("ux", "uy", "uz"))
        results[name] = (umax, np.abs(sim["lnrho"] - before).max())
    need(all(u < 1e-12 and d < 1e-12 for u, d in results.values()), f"drifts {results}")
    stream = io.StringIO()
    start = time.perf_counter()
    stability.conv_slab(shape=(8, 1, 8), n=16, progress=stream)
    seconds = time.perf_counter() - start
    progress = stream.getvalue().replace("\r", "\n").strip().splitlines()
    need(progress and "161 of 161 eigenvalue problems" in progress[-1], f"conv_slab's progress: {progress[-1:]}")
    text = "; ".join(f"{n}: max|u| {u:.0e}, lnrho moved {d:.0e}" for n, (u, d) in results.items())
    return (f"100 steps with walls and gravity: {text} (< 1e-12); stability.conv_slab (n = 16) wrote a progress "
            f"line ending '{' '.join(progress[-1].split())}' in {seconds:.1f} s")


@item(6)
def live_parameters(work):
    from astaroth.device import DeviceView
    from astaroth.simulation import _FIELD_BUFFER

    sim = turbulent()
    sim.run(until=0.1)
    sim.nu = 1e-3
    fresh = ac.Simulation(shape=16, nu=1e-3, backend="cpu")
    for name in sim.field_names:
        fresh[name] = sim[name]
    fresh.t, fresh.steps = sim.t, sim.steps
    sim.run(until=0.3)
    fresh.run(until=0.3)
    difference = max(np.abs(sim[n] - fresh[n]).max() for n in sim.field_names)
    need(difference == 0 and sim.steps == fresh.steps, f"the live change differs from a fresh run by {difference}")
    refused = {name: refusal(lambda: setattr(sim, name, value), f"sim.{name}", AttributeError)
               for name, value in (("chi_hyper", 1e-3), ("cs", 2.0))}
    need("did you mean 'chi_hyper3'" in refused.get("chi_hyper", "") and "is fixed" in refused.get("cs", ""),
         f"refusals {refused}")
    stale = sim.view("ux")
    follower = DeviceView(sim, _FIELD_BUFFER, sim.field_names.index("ux"))  # the CUDA view class, on this grid
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim.nu = 2e-3
    try:
        stale[0, 0, 0] = 1.0
        wrote = True
    except ValueError:
        wrote = False
    view = sim.view("ux")
    sim.run(until=0.35)
    need(np.all(np.isnan(stale)) and not wrote and any("no longer follow the run" in str(w.message) for w in caught),
         "a view taken before the change is not disowned loudly")
    need(np.array_equal(view, sim["ux"]) and np.array_equal(follower.get(), sim["ux"]),
         "a view taken after, or a DeviceView, does not follow the run")
    return (f"sim.nu = 1e-3 on a live run went on bit for bit as a fresh nu = 1e-3 run (max difference "
            f"{difference}, {sim.steps} steps); sim.chi_hyper refused ('{refused['chi_hyper'][:55]}...'), sim.cs "
            f"refused as fixed; a CPU view taken before sim.nu = 2e-3 then held NaN, refused writes and was named in "
            f"a warning; one taken after, and a DeviceView taken before, followed the run")


class SiteAt(http.server.SimpleHTTPRequestHandler):
    """Serves the built site under /base/ as a web server does: its 404.html for what is missing."""
    site, prefix = None, "/base/"

    def translate_path(self, path):
        path = path.split("?")[0]
        if not path.startswith(self.prefix):
            return "/nonexistent"
        return str(Path(self.site) / path[len(self.prefix):])

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            body = (Path(self.site) / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def log_message(self, *args):
        pass


def chromium_dom(url, seconds=15):
    """The DOM of `url` after its scripts ran, from headless Chromium (no network beyond this machine)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        return None
    child = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=10000",
                            "--dump-dom", url], capture_output=True, text=True, timeout=60)
    return child.stdout


@item(7)
def offline_site(work):
    site = work / "site"
    child = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                           capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    need(child.returncode == 0, f"mkdocs build --strict: {child.stderr[-400:]}")
    pages = list(site.rglob("*.html"))
    remote = [str(p.relative_to(site)) for p in pages
              if re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', p.read_text(errors="replace"))]
    need(not remote, f"pages loading scripts or styles from elsewhere: {remote[:3]}")
    mathjax = list((site / "javascripts" / "mathjax").rglob("*"))
    fonts = [p for p in mathjax if p.suffix == ".woff"]
    need((site / "javascripts/mathjax/tex-mml-chtml.js").exists() and fonts, "MathJax is not served with the site")
    entropy = (site / "guide/entropy/index.html").read_text()
    equation = re.search(r'<div class="arithmatex">\\\[\s*\\begin\{aligned\}\s*\\frac\{\\partial\\,ss\}', entropy)
    need(equation and not re.search(r"<li>\s*\+", entropy), "the entropy page's dss/dt is not display math")
    table = (site / "reference/parameters/index.html").read_text()
    head = re.search(r"<thead>\s*<tr>(.*?)</tr>", table, re.S).group(1)
    columns = head.count("<th")
    need(columns <= 4, f"the parameter table has {columns} columns")
    rendered, counts = "not rendered here (no Chromium)", {}
    for page in ("guide/entropy", "numerics"):
        dom = chromium_dom((site / page / "index.html").as_uri())
        if dom is None:
            break
        tex = r'class="arithmatex">\\[\[(]'  # math as TeX, before MathJax replaces it
        source = len(re.findall(tex, (site / page / "index.html").read_text()))
        raw = len(re.findall(tex, dom))
        counts[page] = (source, dom.count("<mjx-container"), raw)
        need(source and dom.count("<mjx-container") >= source and raw == 0, f"{page}: offline MathJax {counts[page]}")
    if counts:
        rendered = ("headless Chromium, offline, rendered every equation, none left as TeX: " +
                    ", ".join(f"{p} {c[0]} of {c[0]}" for p, c in counts.items()))
        SiteAt.site = str(site)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SiteAt)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            port = server.server_address[1]
            missing = chromium_dom(f"http://127.0.0.1:{port}/base/guide/no/such/page/")
        finally:
            server.shutdown()
            server.server_close()
        base = re.search(r'<base href="(/[^"]*)"', missing or "")  # the element the page's script wrote
        need(base and base.group(1) == "/base/", f"404.html under /base/ found the root {base and base.group(1)}")
        rendered += "; 404.html served for /base/guide/no/such/page/ found its root /base/"
    return (f"mkdocs build --strict: {len(pages)} pages, none loading a script or style from elsewhere; MathJax "
            f"served with the site ({len(mathjax)} files, {len(fonts)} fonts); the entropy equation is one display "
            f"block; the parameter table has {columns} columns; {rendered}")


@item(8)
def docs_match(work):
    from astaroth import config

    passed, skipped, _ = pytest_nodes("test_docs_match_code.py")
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```toml\n(.*?)```", readme, re.S).group(1)
    nu_line = re.search(r"^nu = .*# default ([0-9.e-]+) \(Simulation's ([0-9.e-]+)\)", block, re.M)
    f0_line = re.search(r"^f0 = ([0-9.e-]+) .*# ac.Forcing's own: ([0-9.e-]+)", block, re.M)
    forcing_default = inspect.signature(ac.Forcing).parameters["f0"].default
    need(nu_line and f0_line, "the README's TOML block does not give nu's and f0's defaults")
    readme = {"toml nu": float(nu_line.group(1)), "Simulation nu": float(nu_line.group(2)),
              "toml f0": float(f0_line.group(1)), "Forcing f0": float(f0_line.group(2))}
    code = {"toml nu": config.DEFAULT["physics"]["nu"], "Simulation nu": ac.parameters.default("nu"),
            "toml f0": config.DEFAULT["forcing"]["f0"], "Forcing f0": forcing_default}
    need(readme == code, f"README's TOML block {readme}, the code {code}")
    stale = {}
    for page in ("guide/simulations.md", "guide/mhd.md"):
        text = (ROOT / "docs" / page).read_text()
        stale[page] = [n for n in ("step", "rho_mean", "emag", "helicity_mag") if f"`{n}`" in text]
    pencil = " ".join((ROOT / "docs/pencil-code.md").read_text().split())
    not_yet = [w for w in ("gravity", "oum", "jmax", "omax") if re.search(rf"`?{w}`?[^.]{{0,40}}not yet", pencil)]
    limitations = " ".join((ROOT / "docs/limitations.md").read_text().split())
    skip_reasons = [m for f in (ROOT / "tests").glob("*.py") for m in re.findall(r"README: \"?([\w ]+)", f.read_text())]
    need(not any(stale.values()) and not not_yet and "time_series.dat` is not written" not in limitations,
         f"stale names {stale}, 'not yet' {not_yet}")
    need(not skip_reasons, f"skip reasons citing README sections: {skip_reasons}")
    api = ac.Simulation.__init__.__signature__.parameters["cs"].default
    return (f"tests/test_docs_match_code.py: {passed} passed (every default, column and TOML key named in docs/ "
            f"and the README against the code); the README's TOML block gives the defaults the code has: "
            f"{', '.join(f'{k} {v:g}' for k, v in readme.items())}; no old column "
            f"names in guide/simulations.md, guide/mhd.md; pencil-code.md calls none of gravity, oum, jmax, omax "
            f"'not yet'; the API page's cs default is {api!r}; no skip reason cites a README section")


@contextlib.contextmanager
def kernel_stderr(path):
    """File descriptor 2, which a Jupyter kernel started meanwhile inherits, sent to `path`."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "w") as f:
        os.dup2(f.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@item(9)
def notebooks(work):
    import nbclient
    import nbformat

    guide = (ROOT / "docs/getting-started.md").read_text()
    need("### The notebooks" in guide and "scripts/run_notebook.py" in guide, "getting-started has no notebook how-to")
    figures = {}
    for name in ("helical_dynamo", "forced_turbulence"):
        nb = nbformat.read(str(ROOT / "notebooks" / f"{name}.ipynb"), as_version=4)
        if name == "forced_turbulence":  # what the CPU figure shows: its texts and the labels of its lines
            nb.cells.append(nbformat.v4.new_code_cell(
                "import json; print('FIGURE', json.dumps({'texts': [t.get_text() for t in ax.texts], "
                "'lines': [l.get_label() for l in ax.get_lines()], "
                "'E': {f'{kf:.2f}': [float(v) for v in E[1:6]] for kf, (k, E) in spectra.items()}}))"))
        folder = work / name
        folder.mkdir()
        os.environ.setdefault("MPLBACKEND", "Agg")
        os.environ["ASTAROTH_NOTEBOOK_QUICK"] = "1"
        with kernel_stderr(work / f"{name}.stderr"):  # the kernel's own notices (TCP transport) kept out of the lines
            nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": str(folder)}}).execute()
        left = sorted(p.name for p in folder.iterdir())
        need(not left, f"{name} wrote {left} into its working folder")
        if name == "forced_turbulence":
            text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
            figures = json.loads(text.split("FIGURE", 1)[1])
    beside = [p for p in (ROOT / "notebooks").iterdir() if p.suffix != ".ipynb"]
    need(not beside, f"files beside the notebooks: {beside}")
    says = " ".join(figures["texts"])
    need("no inertial range" in says and not any("5/3" in label for label in figures["lines"]),
         f"the CPU figure: texts {figures['texts']}, lines {figures['lines']}")
    kf, E = min(figures["E"].items())
    return (f"docs/getting-started.md 'The notebooks' says how to run them; helical_dynamo and forced_turbulence "
            f"ran (quick sizes) leaving nothing in their working folders, nothing beside notebooks/*.ipynb; the "
            f"CPU figure draws no k^-5/3 line and says why: '{' '.join(says.split())}' (its kf = {kf} spectrum "
            f"falls {math.log10(E[0] / E[-1]):.1f} decades from k = 1 to 5)")


@item(10)
def extras_and_build(work):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    need(not any("vtk" in d for d in project["test"]) and "vtk" in project, f"extras {project}")
    passed, skipped, out = pytest_nodes("test_first_day.py::test_xdmf_read_by_vtk")
    if importlib.util.find_spec("vtkmodules") is not None:
        vtk = "installed here: the test ran and passed"
        need(passed == 1, out[-300:])
    else:
        need(skipped == 1, out[-300:])
        vtk = "absent here: the test skipped cleanly"
    tree = work / "src"
    tree.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "csrc"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, tree / name)
    shutil.copytree(ROOT / "astaroth", tree / "astaroth", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = {**os.environ, "ASTAROTH_NO_CUDA": "1", "ASTAROTH_CFLAGS": "-O0"}
    times, logs = [], []
    for build in ("T1", "T2"):  # a second install builds in a fresh folder, as pip does
        start = time.perf_counter()
        child = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-temp", build, "--build-lib", "L" + build],
                               cwd=tree, env=env, capture_output=True, text=True, timeout=900)
        times.append(time.perf_counter() - start)
        need(child.returncode == 0, child.stderr[-300:])
        logs.append(child.stdout + child.stderr)
    compiled = [len([l for l in log.splitlines() if " -c csrc/" in l]) for log in logs]
    need(compiled[0] > 0 and compiled[1] == 0 and "taken from" in logs[1], f"compiled {compiled}")
    return (f"vtk is its own extra, not in [test]; tests/test_first_day.py::test_xdmf_read_by_vtk: vtk {vtk}; "
            f"a build of a copy of the tree compiled {compiled[0]} C files in {times[0]:.1f} s (-O0), a second one "
            f"into a fresh build folder with csrc/ unchanged compiled none and copied the extension from "
            f"build/astaroth-cache in {times[1]:.1f} s")


@item(11)
def mhd_walls(work):
    import h5py

    sim = ac.Simulation(shape=(8, 8, 32), box=(1.0, 1.0, 2.0), backend="cpu", physics="mhd", eta=1e-3,
                        boundaries={"z": {**WALLS, "ax": "a", "ay": "a", "az": "s"}})
    kz = 1.5 * np.pi / 2.0
    sim["ay"] = np.broadcast_to(np.sin(kz * sim.z)[None, None, :], sim.shape)  # B = -dAy/dz x, J = kz^2 Ay y
    J = ac.analysis.current_density(sim)
    error = np.abs(J[1] - kz ** 2 * sim["ay"]).max() / kz ** 2
    need(error < 1e-3 and np.abs(J[0]).max() < 1e-10, f"J against the analytic one: {error:.1e}")
    out = work / "run"
    text = (f'[grid]\nshape = [8, 8, 24]\nbox = [1.0, 1.0, 1.5]\n[physics]\nphysics = "mhd"\neta = 0.005\n'
            f'nu = 0.005\n[boundaries.z]\nux = "s"\nuy = "s"\nuz = "a"\nlnrho = "a2"\nax = "a"\nay = "a"\n'
            f'az = "s"\n[numerics]\nbackend = "cpu"\n[initial]\nkind = "random_velocity"\nurms = 0.05\n'
            f'seed_field = 0.01\n[output]\ndir = "{out}"\nuntil = 0.3\nsnapshot_every = 0.3\nprogress = false\n'
            f'timeseries_every = 2\n')
    status, stdout, err = quiet_cli("run", toml_run(work, text), "--no-plot")
    need(status == 0, f"astaroth run: status {status}: {err[-300:]}")
    series = diagnostics.read_timeseries(out / "timeseries.csv")
    need(np.all(np.isfinite(series["jrms"])) and series["jrms"][-1] > 0, f"jrms {series['jrms']}")
    with h5py.File(out / "checkpoint.h5", "r") as f:
        t = float(f.attrs["t"])
    need(abs(t - 0.3) < 1e-12, f"checkpoint at t = {t}")
    return (f"J = curl B / mu0 with walls against the analytic kz^2 Ay: {error:.1e} of its size (one-sided "
            f"sixth order at the walls); `astaroth run` of MHD with z walls from TOML: status 0, "
            f"{len(series)} rows with jrms {series['jrms'][-1]:.3g}, jmax {series['jmax'][-1]:.3g}, checkpoint at "
            f"t = {t:g}")


@item(12)
def atomic_files(work):
    import h5py

    folder = work / "save"
    folder.mkdir()

    def reset_save():
        for p in folder.iterdir():
            p.unlink()
        ac.Simulation(shape=(12, 10, 8), backend="cpu").save(folder / "snap.h5")

    def times():
        with h5py.File(folder / "snap.h5", "r") as f:
            t = float(f.attrs["t"])
        index = folder / "snap.xdmf"
        return t, (float(re.search(r'<Time Value="([^"]+)"', index.read_text()).group(1)) if index.exists() else None)

    kills, stale, temporaries, outcome = 0, 0, 0, {0.0: 0, 1.0: 0}
    for status in kill_at_random_moments(KILLED_SAVE, folder, 4, reset_save, seed=1, every_from="link"):
        if status == 0:
            continue
        need(status == -9, f"a killed save ended with {status}")
        kills += 1
        t, indexed = times()
        stale += indexed not in (None, t)
        temporaries += any(p.name.startswith(".tmp-") for p in folder.iterdir())
        t = ac.load(folder / "snap.h5", backend="cpu").t
        need(sorted(p.name for p in folder.iterdir()) == ["snap.h5", "snap.xdmf"] and times() == (t, t),
             f"after the next ac.load: {sorted(p.name for p in folder.iterdir())}, times {times()}")
        outcome[t] += 1
    need(stale == 0, f"{stale} kills left an index of another time beside the snapshot")
    need(temporaries and all(outcome.values()), f"the kills missed the renaming steps: {temporaries}, {outcome}")
    run = work / "pencil"
    old_sim = ac.Simulation(shape=(12, 10, 8), backend="cpu", physics="mhd", energy="entropy", nu=1e-2)
    old_sim.save_pencil(work / "old")
    written = lambda d: {n: (d / n).read_bytes() for n in WRITE_VAR_SET}
    old = written(work / "old")

    def reset_pencil():
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(work / "old", run / "data")

    pencil_kills, mixed, pencil_temporaries, sets = 0, 0, 0, {"earlier": 0, "new": 0}
    new = None
    for status in kill_at_random_moments(KILLED_WRITER, run, 4, reset_pencil, seed=1, every_from="link"):
        if status == 0:
            new = written(run / "data")
            continue
        pencil_kills += 1
        now = written(run / "data")
        need(all(now[n] in (old[n], new[n]) for n in WRITE_VAR_SET), "a file neither the earlier nor the new one")
        mixed += now not in (old, new)
        pencil_temporaries += any(p.name.startswith(".tmp-") for p in (run / "data").rglob("*"))
        ac.pencil.read_var(run / "data", backend="cpu")
        after = written(run / "data")
        need(after in (old, new) and not any(p.name.startswith(".tmp-") for p in (run / "data").rglob("*")),
             "read_var after a kill did not leave a whole set without temporaries")
        sets["new" if after == new else "earlier"] += 1
    need(mixed and pencil_temporaries and all(sets.values()), f"the kills missed the renaming steps: {mixed}, {sets}")
    return (f"sim.save killed before each of its renaming steps and at random ({kills} kills): 0 stale indexes "
            f"right after each; {temporaries} left .tmp-* files (whole), which the next ac.load removed or renamed "
            f"into place; after it every "
            f"folder held exactly snap.h5 + snap.xdmf of one time ({outcome[0.0]} earlier, {outcome[1.0]} new), no "
            f"temporary. ac.pencil.write_var killed likewise ({pencil_kills} kills): every file whole each time; "
            f"{mixed} kills among the renames and {pencil_temporaries} with temporaries, all set right by the next "
            f"read_var: {sets['earlier']} earlier sets and {sets['new']} new sets whole, no temporary")


BINARY = bytes(range(256)) * 4


def replace_line(path, pattern, new):
    text = path.read_text()
    need(re.search(pattern, text, re.M), f"{pattern} not in {path}")
    path.write_text(re.sub(pattern, new, text, count=1, flags=re.M))


@item(13)
def damaged_pencil(work):
    damages = {
        "binary dim.dat": ("dim.dat", lambda p: p.write_bytes(BINARY)),
        "binary index.pro": ("index.pro", lambda p: p.write_bytes(BINARY)),
        "binary param.nml": ("param.nml", lambda p: p.write_bytes(BINARY)),
        "mx = -10": ("dim.dat", lambda p: replace_line(p, r"^ +14 ", "    -10 ")),
        "nghost = 9": ("dim.dat", lambda p: replace_line(p, r"^ +3 +3 +3$", "    9    9    9")),
        "mx = 2147483647": ("dim.dat", lambda p: replace_line(p, r"^ +14 ", " 2147483647 ")),
        "Lxyz missing": ("param.nml", lambda p: (replace_line(p, r"^ LXYZ=.*\n", ""),
                                                 replace_line(p.parent / "param2.nml", r"^ LXYZ=.*\n", ""))),
    }
    said, peak = {}, 0
    for what, (name, damage) in damages.items():
        data = work / re.sub(r"\W+", "_", what) / "data"
        ac.Simulation(shape=(8, 6, 4), backend="cpu").save_pencil(data)
        damage(data / name)
        tracemalloc.start()
        try:
            message = refusal(lambda: ac.pencil.read_var(data, backend="cpu"), what)
        finally:
            peak = max(peak, tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        need(str(data / name) in message or str(data) in message, f"{what}: the message names no file: {message}")
        said[what] = message[message.find(name):][:70]
    need(peak < 64 << 20, f"reading a damaged file allocated {peak / 2**20:.0f} MiB")
    return (f"{len(said)} damaged files each refused with a ValueError naming the file and the fault, none "
            f"raw, at most {peak / 1024:.0f} kB allocated while reading one (e.g. '{said['mx = 2147483647']}...', "
            f"'{said['binary index.pro']}...')")


@item(14)
def bad_walls_snapshots_time(work):
    import h5py

    messages = []
    for kind in (None, 5, 1.5):
        message = refusal(lambda: ac.Simulation(shape=(8, 8, 8), backend="cpu",
                                                boundaries={"z": {**WALLS, "uy": kind}}), f"wall kind {kind!r}")
        need("boundaries['z']['uy']" in message, f"{kind!r}: {message}")
        messages.append(message)
    path = ac.Simulation(shape=(8, 8, 8), backend="cpu", boundaries={"z": WALLS}).save(work / "walls.h5")
    with h5py.File(path, "r+") as f:
        f.attrs["boundaries"] = '{"z": {"ux": ["s", "s"'
    load_message = refusal(lambda: ac.load(path), "a damaged boundaries attribute")
    need(str(path) in load_message and "not JSON" in load_message, load_message)
    status, _, err = quiet_cli("plot", path)
    need(status == 2 and str(path) in err and "Traceback" not in err, f"astaroth plot: {status} {err[-200:]}")
    sim = ac.Simulation(shape=(8, 8, 8), backend="cpu")
    t_message = refusal(lambda: setattr(sim, "t", math.nan), "sim.t = nan")
    return (f"wall kinds None, 5, 1.5 refused naming axis and field ('{messages[0][:60]}...'); a damaged "
            f"'boundaries' attribute named by ac.load and by `astaroth plot` (status 2, no traceback): "
            f"'{load_message[len(str(work)) + 1:][:60]}...'; sim.t = nan refused: '{t_message[:40]}'")


@item(15)
def overflow_messages(work):
    def hot_entropy():
        sim = noisy_gas()
        sim["ss"] = 1e3
        return sim

    cases = {
        "gamma=1e300": (lambda: noisy_gas(gamma=1e300), "gamma = 1e+300"),
        "cp=1e-300": (lambda: noisy_gas(cp=1e-300), "cp = 1e-300"),
        "rho0=1e-300": (lambda: noisy_gas(rho0=1e-300), "rho0 = 1e-300"),
        "ss = 1e3": (hot_entropy, "max |ss| = 1e+03"),
        "set:1e200 wall": (lambda: ac.Simulation(shape=(8, 8, 8), backend="cpu",
                                                 boundaries={"z": {**WALLS, "lnrho": "set:1e200"}}), "'set:1e+200'"),
        "gravity 1e39 float32": (lambda: ac.Simulation(shape=(8, 8, 8), backend="cpu", dtype="float32",
                                                       gravity=(0, 0, -1e39), boundaries={"z": WALLS}),
                                 "gravity = (0.0, 0.0, -1e+39)"),
        "rho0=1e-30 float32": (lambda: noisy_gas(dtype="float32", rho0=1e-30), "rho0 = 1e-30"),
        "gamma=1e300 float32": (lambda: noisy_gas(dtype="float32", gamma=1e300), "gamma = 1e+300"),
        "cp=1e-30 float32": (lambda: noisy_gas(dtype="float32", cp=1e-30), "cp = 1e-30"),
    }
    for what, (make, words) in cases.items():
        message = refusal(lambda: make().run(until=0.05), what, (ValueError, ac.NonFiniteError))
        need(words in message, f"{what}: the message does not name {words!r}: {message[:300]}")
    return "each refused or stopped with a message naming its cause: " + "; ".join(
        f"{w}: {words}" for w, (_, words) in cases.items())


# ---------------------------------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", nargs="*", type=int, help="the items to check (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the working folder")
    args = parser.parse_args(argv)
    chosen = args.items or sorted(CHECKS)
    root = Path(tempfile.mkdtemp(prefix="check-second-week-"))
    failed = []
    try:
        for number in chosen:
            work = root / f"item{number}"
            work.mkdir()
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    said = CHECKS[number](work)
                print(f"item {number}: OK — {said} [{time.perf_counter() - start:.1f} s]", flush=True)
            except Exception as e:  # a check that breaks is a failure of its item, named
                failed.append(number)
                why = str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}"
                print(f"item {number}: FAIL — {why} [{time.perf_counter() - start:.1f} s]", flush=True)
    finally:
        if args.keep:
            print(f"working folder kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{len(chosen) - len(failed)} of {len(chosen)} items OK" + (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
