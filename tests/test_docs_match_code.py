"""The documentation matches the code: every parameter default, time-series
column and TOML key that README.md and the pages under docs/ name is checked
against astaroth.parameters(), the signatures of Simulation, Simulation.run
and Forcing, the column catalogue of astaroth/diagnostics.py and the TOML keys and
defaults of astaroth/config.py."""
import inspect
import math
import re
import tomllib
from pathlib import Path

import astaroth as ac
from astaroth import config, diagnostics
from astaroth import parameters as registry

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
COLUMNS = set(diagnostics.catalogue())  # every column a run may choose, the default ones first
CALLS = {"sim.run": ac.Simulation.run, "sim.step": ac.Simulation.step, "ac.Forcing": ac.Forcing,
         "ac.Simulation": ac.Simulation}


def signature_defaults(function):
    return {name: p.default for name, p in inspect.signature(function).parameters.items()
            if p.default is not inspect.Parameter.empty}


def code_default(name):
    """The code's default of a parameter or argument the docs name, or None where there is none."""
    if name in registry.NAMES:
        return registry.default(name)
    for function in (ac.Simulation.run, ac.Forcing):
        if name in signature_defaults(function):
            return signature_defaults(function)[name]
    return None


def same(text, value):
    """Whether the docs' text of a value (a number, a quoted string, None) is the code's value."""
    text = text.strip().strip("`")
    if isinstance(value, str):
        return text.strip("\"'") == value
    if value is None:
        return text == "None"
    try:
        return math.isclose(float(eval(text, {"math": math, "pi": math.pi})), float(value), rel_tol=1e-12)
    except Exception:
        return False


def table_rows(text):
    """(header cells, row cells) of every row of every Markdown table in text."""
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(line) <= set("|-: "):
            yield header, cells


def column_problems(page, text):
    out = []
    for header, cells in table_rows(text):
        if header[0] == "column":
            named = cells[0]
        elif len(header) > 1 and "astaroth column" in header[1]:
            named = cells[1]
        else:
            continue
        for name in re.findall(r"`([A-Za-z_0-9]+)`", named):
            if name not in COLUMNS:
                out.append(f"{page}: time-series column {name!r} is not one of astaroth/diagnostics.py's")
    for listed in re.findall(r"columns add ([\w, ]+)", text):
        out += [f"{page}: time-series column {n!r} is not one of astaroth/diagnostics.py's"
                for n in re.split(r",\s*", listed.strip()) if n not in COLUMNS]
    return out


def default_problems(page, text):
    out = []
    lines = text.splitlines()
    for line in lines:
        if page.name == "pencil-code.md" and line.startswith("|"):
            line = "|".join(line.strip("|").split("|")[1:])  # the first cell is the Pencil Code's side
        for names, values in re.findall(r"((?:`\w+`(?:,| and)? )+)\(defaults? ([^)]*)\)", line):
            names = re.findall(r"`(\w+)`", names)
            values = re.findall(r"-?[\d.]+(?:e-?\d+)?|\"[^\"]*\"", values.split(":")[0])
            for name, value in zip(names, values):
                if code_default(name) is not None and not same(value, code_default(name)):
                    out.append(f"{page}: `{name}` (default {value}), but the code's default is {code_default(name)!r}")
    for call, arguments in re.findall(r"`(sim\.run|sim\.step|ac\.Forcing|ac\.Simulation)\(([^`]*)\)`", text):
        defaults = signature_defaults(CALLS[call])
        if not set(inspect.signature(CALLS[call]).parameters) & {a.strip() for a in arguments.split(",")}:
            continue  # a call with chosen values, not the signature with its defaults
        for name, value in re.findall(r"(\w+)=([^,]+)", arguments):
            if not re.fullmatch(r"\s*(-?\d[\d.]*(e-?\d+)?|None)\s*", value):
                continue  # a string or a name: a value chosen for the example (timeseries="ts.csv", N)
            if name in defaults and not same(value, defaults[name]):
                out.append(f"{page}: `{call}(... {name}={value} ...)`, but its default is {defaults[name]!r}")
    return out


def toml_problems(page, text):
    out = []
    for block in re.findall(r"```toml\n(.*?)```", text, re.S):
        for section, key, value, comment in _toml_lines(block):
            if section == "sweep":  # astaroth sweep's table: SECTION.KEY = [values], seed, its settings
                swept, _, name = key.partition(".")
                if not (key in config.SWEEP or key == "seed" or name in config.DEFAULT.get(swept, {})):
                    out.append(f"{page}: TOML key [sweep] {key} is not one that astaroth/config.py's load_sweep takes")
                continue
            if section not in config.SCHEMA or key not in config.SCHEMA[section]:
                out.append(f"{page}: TOML key [{section}] {key} is not one of astaroth/config.py's")
                continue
            if key not in config.DEFAULT[section]:  # a key without a default (qshear, which sets shear)
                continue
            if page.name != "README.md":  # the README's block lists every key with its default
                continue
            default = config.DEFAULT[section][key]
            stated = re.match(r"\s*default (\[[^\]]*\]|[^ ;,()]+)", comment)
            if stated:
                if _toml_value(stated.group(1)) != default:
                    out.append(f"README.md: [{section}] {key}: the comment says default {stated.group(1)}, "
                               f"astaroth/config.py has {default!r}")
            elif _toml_value(value) not in (default, *_one_for_all(default)):
                out.append(f"README.md: [{section}] {key} = {value}, shown as the default, but astaroth/config.py "
                           f"has {default!r}")
    return out


def _toml_value(text):
    """A TOML value, or a comment's bare word (float64) as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip('"')


def _one_for_all(default):
    """A list of equal numbers (box, origin) may be given as one number."""
    return default[:1] if isinstance(default, list) and default and len(set(default)) == 1 else []


def _toml_lines(block):
    section = None
    for line in block.splitlines():
        code, _, comment = line.partition("#")
        code = code.strip()
        if code.startswith("["):
            section = code.strip("[]").split(".")[0]
        elif "=" in code and section is not None:
            key, _, value = code.partition("=")
            yield section, key.strip(), value.strip(), comment


def test_docs_name_the_codes_defaults_columns_and_toml_keys():
    problems = []
    for page in PAGES:
        text = page.read_text()
        name = page.relative_to(ROOT)
        problems += column_problems(name, text) + default_problems(name, text) + toml_problems(name, text)
    # the API page shows Simulation's signature: its written-out defaults are the table's
    for arg, value in signature_defaults(ac.Simulation.__init__).items():
        if arg in registry.NAMES + registry.SWITCHES and value != registry.default(arg):
            problems.append(f"Simulation({arg}={value!r}) but csrc/parameters.def's default is {registry.default(arg)!r}")
    # a README section that a message or skip reason cites exists
    headings = re.findall(r"^#+ (.*)$", (ROOT / "README.md").read_text(), re.M)
    for source in sorted((ROOT / "tests").glob("*.py")) + sorted((ROOT / "astaroth").glob("*.py")):
        for cited in re.findall(r"README: \"?([\w ]+)", source.read_text()):
            if not any(cited.strip().lower() in h.lower() for h in headings):
                problems.append(f"{source.relative_to(ROOT)} cites the README section {cited!r}, which it lacks")
    assert not problems, "\n".join(problems)


def test_the_site_loads_nothing_from_elsewhere():
    """Scripts and fonts are served with the site (docs/site_hooks.py), so it renders offline."""
    text = (ROOT / "mkdocs.yml").read_text()
    scripts = re.search(r"^extra_javascript:\n((?:  - .*\n)+)", text, re.M).group(1)
    assert "javascripts/mathjax/tex-mml-chtml.js" in scripts and "://" not in scripts
    assert re.search(r"^  font: false", text, re.M)


def test_the_check_finds_what_it_looks_for():
    """Each kind of statement the test above reads is found, and a wrong one is reported."""
    wrong = Path("wrong.md")
    assert column_problems(wrong, "| column | meaning |\n| --- | --- |\n| `urms`, `rho_mean` | x |\n") == [
        "wrong.md: time-series column 'rho_mean' is not one of astaroth/diagnostics.py's"]
    assert column_problems(wrong, "ts.csv  # columns add brms, emag\n")[0].endswith("'emag' is not one of "
                                                                                    "astaroth/diagnostics.py's")
    assert len(default_problems(wrong, "`cdt` (default 0.5), `cdtv` (default 0.3)")) == 1
    assert len(default_problems(wrong, "`cdt`, `cdtv` (defaults 0.4 and 0.2)")) == 1
    assert len(default_problems(wrong, "`ac.Forcing(kmin, kmax, f0, seed, relhel=1)`")) == 1
    assert default_problems(wrong, "`sim.run(until, cdt=0.4, cdtv=0.3, ..., dt=None)`") == []
    assert len(toml_problems(Path("README.md"), "```toml\n[physics]\nnu = 2e-4  # default 5e-3\n```")) == 1
    assert len(toml_problems(Path("README.md"), "```toml\n[forcing]\nf0 = 0.02\n```")) == 1
    assert len(toml_problems(wrong, "```toml\n[physics]\nviscosity = 1\n```")) == 1
    assert toml_problems(wrong, "```toml\n[sweep]\nphysics.eta = [0.1]\nseed = [1]\nevery = 2.0\n```") == []
    assert len(toml_problems(wrong, "```toml\n[sweep]\nphysics.etaa = [0.1]\nseeds = [1]\n```")) == 2


def test_the_docs_claim_no_missing_feature_that_exists():
    """Statements that were once true and went stale: the time series in the
    Pencil Code's format is written, gravity is supported."""
    docs = {path.name: path.read_text() for path in Path(__file__).parent.parent.joinpath("docs").rglob("*.md")}
    stale = [(name, phrase) for name, text in docs.items() for phrase in (
        "not written: the time", "time_series.dat` is not written", "gravity is not yet", "gravity: not yet")
        if phrase in " ".join(text.split())]
    assert not stale, stale

