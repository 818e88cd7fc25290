"""MkDocs hook: generates reference/parameters.md from ``astaroth.parameters()``,
and a short page for each page of the navigation that is still to be written.

The page is made at build time, so it always lists the parameters of the
package that is installed: ``astaroth.parameters()`` returns one dict per
parameter with at least the keys name, default, module, description and
restart (True: the value may change when a run restarts), and possibly
kind, lower, upper (with lower_open / upper_open), unit, term,
needs_55p.

The package is imported in a child process started in a temporary folder,
so that the installed package (with its compiled extension) is found, not
the source folder of the repository.  A build without an importable
package fails under ``mkdocs build --strict`` with a warning that says how
to install it; a package without ``parameters()`` gives a short note.
"""
import json
import logging
import subprocess
import sys
import tempfile

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.parameters")

PAGE = "reference/parameters.md"

# Pages in the navigation that a part of the package still to come writes; until
# the file exists, a short page says so (the file, once there, is used as it is).
PLANNED = {}

_QUERY = r"""
import json, math
import astaroth
rows = astaroth.parameters() if hasattr(astaroth, "parameters") else None
def plain(v):
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    try:
        return plain(v.tolist())
    except AttributeError:
        return str(v)
terms = astaroth.terms() if hasattr(astaroth, "terms") else None
print(json.dumps({"version": astaroth.__version__,
                  "rows": None if rows is None else [{k: plain(v) for k, v in dict(r).items()} for r in rows],
                  "terms": terms}))
"""

_HEAD = """# Parameters

Every physics parameter of a simulation, as `astaroth.parameters()` lists
it. The same names are the keyword arguments of `ac.Simulation`, the keys
of the `[physics]` table of a run's TOML file
([Runs and the TOML file](../guide/runs.md)) and the attributes stored in a
snapshot. *Restart* says whether `astaroth run --restart` may change the
value (as the Pencil Code's `run.in` may).

"""


def _query():
    """The parameter rows of the installed package, or (None, reason)."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, "-c", _QUERY], cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit status {done.returncode}"
    return json.loads(done.stdout), None


_SPECIAL = "\\`*_[]<>|"


def _text(value):
    """Plain text for a table cell: Markdown's special characters escaped."""
    return "".join("\\" + c if c in _SPECIAL else c for c in str(value).replace("\n", " "))


def _number(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return value
    return _text(value)


def _cell(value):
    if value is None or value == "":
        return ""
    if isinstance(value, list):
        return "(" + ", ".join(_number(v) for v in value) + ")"
    return _number(value)


def _infinite(value):
    return value is None or value in ("inf", "-inf") or (isinstance(value, float) and abs(value) == float("inf"))


def _bounds(row):
    """[lower, upper] with ( or ) where a bound is excluded; infinite bounds are open."""
    lower, upper = row.get("lower"), row.get("upper")
    if "bounds" in row and lower is None and upper is None and isinstance(row["bounds"], list):
        lower, upper = row["bounds"]
    if _infinite(lower) and _infinite(upper):
        return "any" if lower is not None or upper is not None else ""
    lower_open = row.get("lower_open", not row.get("lower_inclusive", True)) or _infinite(lower)
    upper_open = row.get("upper_open", not row.get("upper_inclusive", True)) or _infinite(upper)
    return (("(" if lower_open else "[") + ("-inf" if _infinite(lower) else _cell(lower)) + ", "
            + ("inf" if _infinite(upper) else _cell(upper)) + (")" if upper_open else "]"))


def _notes(row):
    notes = []
    if row.get("needs_55p"):
        notes.append("55-point method")
    return ", ".join(notes)


def render(result):
    """The page's Markdown for the query's result."""
    rows = result["rows"]
    if rows is None:
        return _HEAD + (f"!!! note\n    astaroth {result['version']} does not list its parameters yet "
                        "(`astaroth.parameters()` is not there); the keyword arguments are described in "
                        "the [Python API](api.md) under `Simulation`.\n")
    text = [_HEAD, f"Generated from astaroth {result['version']}. A value other than the default of a "
                   "parameter marked *55-point method* or *one process* needs that method or a single "
                   "process.\n"]
    modules = []
    for row in rows:
        if row.get("module") not in modules:
            modules.append(row.get("module"))
    for module in modules:
        # four columns, so that the table fits the page's width: unit under the bounds, restart and
        # needs after the description
        text.append(f"\n## {_text(module)}\n\n| name | default | bounds, unit | description |\n"
                    "| --- | --- | --- | --- |\n")
        for row in rows:
            if row.get("module") == module:
                notes = "; ".join(n for n in (f"restart: {_cell(bool(row.get('restart')))}", _notes(row)) if n)
                unit = _cell(row.get("unit"))
                text.append(f"| `{row['name']}` | {_cell(row.get('default'))} | {_bounds(row)}"
                            f"{'<br>' + unit if unit else ''} | {_cell(row.get('description'))} (*{notes}*) |\n")
    text.append(_terms(result.get("terms")))
    return "".join(text)


def _terms(terms):
    """The section of the terms, from astaroth.terms() (csrc/terms/terms.def)."""
    if not terms:
        return ""
    text = ["\n## Terms\n\nThe terms of the right-hand side, one row of `csrc/terms/terms.def` and one header of "
            "`csrc/terms/` each ([Architecture](../architecture.md)). A term runs where its module is on and, "
            "if parameters switch it, where one of them is not 0.\n\n"
            "| term | module | switched by | parameters | equation |\n| --- | --- | --- | --- | --- |\n"]
    for t in terms:
        names = lambda key: ", ".join(f"`{n}`" for n in t[key])  # noqa: E731
        text.append(f"| `{t['name']}` | {_text(t['module'])} | {names('switched_by')} | {names('parameters')} | "
                    f"{_text(t['description'])} |\n")
    return "".join(text)


def on_files(files, config):
    result, error = _query()
    if result is None:
        log.warning("could not import astaroth to list its parameters (%s): install the package first, "
                    "e.g. pip install \".[docs]\"", error)
        text = _HEAD + "!!! warning\n    Built without an importable astaroth package: no parameter list.\n"
    else:
        text = render(result)
    files.append(File.generated(config, PAGE, content=text))
    for path, planned in PLANNED.items():
        if files.get_file_from_path(path) is None:
            files.append(File.generated(config, path, content=planned))
    return files
