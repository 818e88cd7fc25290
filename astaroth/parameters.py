"""The physics parameters, modules and fields of astaroth, from one table.

Every physics parameter is one row of ``csrc/parameters.def`` (name, owning
module, term, kind, default, bounds, unit, whether a restart may change it,
description); the fields are the rows of ``csrc/fields.h``.  The compiled
module hands those rows over (``astaroth._core.parameter_table()`` and
friends) and everything in Python derives from them: the ``Simulation``
keywords, their checks and properties, ``Simulation.field_names``, the TOML
``[physics]`` table and ``astaroth run --help``, the snapshot attributes and
which keys ``astaroth run --restart`` may change.

    >>> import astaroth as ac
    >>> [(p["name"], p["default"], p["module"], p["restart"]) for p in ac.parameters()][:2]
    [('nu', 0.005, 'hydro', True), ('cs', 1.0, 'hydro', False)]

``ac.parameters`` is this module, and calling it is calling its function
``parameters()``.

A *switch* is a keyword that chooses modules (``physics="mhd"`` adds the
module ``magnetic`` and its fields ``ax, ay, az``); a parameter of a module
that is off keeps its default.  A switch of kind "count" chooses how many
copies of a module whose fields repeat (``passive_scalar=2``: the modules
``pscalar`` and ``pscalar2``, the fields ``cc`` and ``cc2``; fields by
count, csrc/fields.h).
"""
import math
import numbers
import sys
import types

import numpy as np

from . import _core

_ROWS = tuple(_core.parameter_table())
_MODULES = tuple(_core.module_table())
_SWITCHES = tuple(_core.switch_table())
_FIELDS = tuple(_core.field_table())  # (name, module, role), in memory order
_TERMS = tuple(_core.term_table())  # csrc/terms/terms.def, in the order of their bits

NAMES = tuple(row["name"] for row in _ROWS)
"""The physics parameters, in table order."""


def _public(row):
    """A row as ac.parameters() gives it: the default of a vector as three numbers, bounds as a pair."""
    out = dict(row)
    if row["kind"] == "vector":
        out["default"] = (row["default"],) * row["components"]
    out["bounds"] = (row["lower"], row["upper"])
    return out


_BY_NAME = {row["name"]: _public(row) for row in _ROWS}
_MODULE_BY_NAME = {m["name"]: m for m in _MODULES}


def parameters():
    """The physics parameters, one dict per row of ``csrc/parameters.def``.

    Keys: ``name``; ``module`` (the module it belongs to; with that module
    off the parameter keeps its default) and ``term`` (the term of the
    equations it enters); ``kind`` ("real", or "vector": three numbers x,
    y, z); ``default``; ``bounds`` = (lower, upper) with ``lower_open`` and
    ``upper_open`` (True: the bound itself is excluded); ``unit``;
    ``description``; ``restart`` (True: ``astaroth run --restart`` may
    change it, as the Pencil Code's ``run.in`` may); ``term_switch`` (0
    leaves its term out); ``needs_55p`` (a value other than the default
    needs the 55-point method).
    """
    return [dict(_BY_NAME[name]) for name in NAMES]


def row(name):
    """The row of parameter `name` (KeyError naming the parameters if unknown)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown parameter {name!r}; parameters are {', '.join(NAMES)}") from None


def modules():
    """The modules: dicts with name, bit, switch (the keyword choosing it; '' always on), value, description."""
    return [dict(m) for m in _MODULES]


def _convert(kind):
    """A switch value of the table (a string) as Python has it: a bool, an int (a count) or the string."""
    return {"flag": lambda v: v == "true", "count": int}.get(kind, lambda v: v)


def switches():
    """The keywords that choose modules: dicts with keyword, kind ('choice': a string, 'flag': a bool,
    'count': a whole number of copies of a module whose fields repeat, True and False standing for 1 and
    0), off (the default, adding no module), values (every value it takes) and description."""
    out = []
    for s in _SWITCHES:
        convert = _convert(s["kind"])
        values = [convert(s["off"])] + [convert(m["value"]) for m in _MODULES if m["switch"] == s["keyword"]]
        out.append(dict(s, off=convert(s["off"]), values=tuple(values)))
    return out


SWITCHES = tuple(s["keyword"] for s in _SWITCHES)
"""The keywords that choose modules (e.g. "physics")."""
_SWITCH_BY_KEYWORD = {s["keyword"]: s for s in switches()}


def default(name):
    """The default of a parameter or a switch."""
    if name in _SWITCH_BY_KEYWORD:
        return _SWITCH_BY_KEYWORD[name]["off"]
    return row(name)["default"]


def meaning(name):
    """The short meaning of a parameter: its description up to the first ':'."""
    return row(name)["description"].split(":")[0]


def bounds_text(name):
    """The bounds of a parameter as a phrase, e.g. '>= 0', '> 0', '>= 0 and < 1', or 'finite'."""
    r = row(name)
    parts = []
    if r["lower"] != -math.inf:
        parts.append(f"{'>' if r['lower_open'] else '>='} {r['lower']:g}")
    if r["upper"] != math.inf:
        parts.append(f"{'<' if r['upper_open'] else '<='} {r['upper']:g}")
    return " and ".join(parts) or "finite"


def in_bounds(name, value):
    """Whether the number `value` lies within the bounds of parameter `name` (and is finite)."""
    r = row(name)
    if not math.isfinite(value):
        return False
    lower_ok = value > r["lower"] if r["lower_open"] else value >= r["lower"]
    upper_ok = value < r["upper"] if r["upper_open"] else value <= r["upper"]
    return lower_ok and upper_ok


def finite_real(value, name):
    """`value` as a float: a TypeError for what is not a real number, a
    ValueError for NaN or Inf, each naming the parameter (used by every
    check of a number in astaroth)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, not {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check(name, value):
    """`value` of parameter `name`, checked: a float (a tuple of three for a
    vector; one number stands for all three), finite and within bounds.
    TypeError or ValueError naming the parameter otherwise."""
    r = row(name)
    if r["kind"] == "vector":
        if isinstance(value, (numbers.Number, np.number)) and not isinstance(value, bool):
            value = (value,) * r["components"]
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            items = tuple(value)
        except TypeError:
            raise TypeError(f"{name} must be a number or a sequence of three numbers, not {value!r}") from None
        if len(items) != r["components"]:
            raise ValueError(f"{name} must have three entries (x, y, z), got {len(items)}: {value!r}")
        out = tuple(finite_real(v, f"{name} entries") for v in items)
        bad = [v for v in out if not in_bounds(name, v)]
    else:
        out = finite_real(value, name)
        bad = [] if in_bounds(name, out) else [out]
    if bad:
        raise ValueError(f"{name} ({meaning(name)}) must be {bounds_text(name)}, got {bad[0]}")
    return out


def shear_of_qshear(q, omega_z, given=()):
    """shear = -qshear omega_z, the Pencil Code's Sshear of qshear (src/shear.f90), for the keyword qshear of
    Simulation and of a TOML file's [physics]; ValueError where `given` (the other keywords) holds shear too,
    or omega has no z component."""
    if "shear" in given:
        raise ValueError(f"pass shear or qshear, not both (shear = -qshear omega_z); got qshear = {q} and "
                         f"shear = {given['shear']!r}")
    if omega_z == 0.0 and q != 0.0:
        raise ValueError(f"qshear = {q} needs a rotating frame: shear = -qshear omega_z, and omega has no z "
                         "component; pass omega=(0, 0, Omega), or shear=S")
    return -q * omega_z


def check_switch(keyword, value):
    """The value of switch `keyword`, checked against the values it takes (a count as an int: True is 1)."""
    s = _SWITCH_BY_KEYWORD[keyword]
    if s["kind"] == "flag":
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{keyword} must be True or False, not {value!r}")
        return bool(value)
    if s["kind"] == "count":
        most = max(s["values"])
        if not isinstance(value, (numbers.Integral, np.integer, np.bool_)):
            raise TypeError(f"{keyword} must be a whole number from 0 to {most} (or True or False), not {value!r}")
        if not 0 <= int(value) <= most:
            raise ValueError(f"{keyword} must be from 0 to {most} ({s['description'].split(':')[0]}; at most "
                             f"{most} in this version), got {int(value)}")
        return int(value)
    if not isinstance(value, str) or value not in s["values"]:
        raise ValueError(f"{keyword} must be one of {s['values']}, got {value!r}")
    return value


def modules_of(switch_values):
    """The module names a configuration runs ({keyword: value} of the
    switches, the others at their defaults), in table order."""
    on = []
    for m in _MODULES:
        if not m["switch"]:
            on.append(m["name"])
        else:
            s = _SWITCH_BY_KEYWORD[m["switch"]]
            value = switch_values.get(m["switch"], s["off"])
            wanted = _convert(s["kind"])(m["value"])
            if value == wanted or (s["kind"] == "count" and value > wanted):  # copy k of a count k or more
                on.append(m["name"])
    return tuple(on)


def module_mask(module_names):
    """The bit mask of modules that the binding takes."""
    return sum(_MODULE_BY_NAME[name]["bit"] for name in set(module_names))


def field_names(module_names=None):
    """The fields of a configuration (module names; default: every module), in memory order."""
    names = set(module_names) if module_names is not None else set(_MODULE_BY_NAME)
    return tuple(name for name, module, role in _FIELDS if module in names)


def fields():
    """The rows of ``csrc/fields.h``: dicts with name, module and role ('scalar', 'x', 'y', 'z')."""
    return [dict(name=name, module=module, role=role) for name, module, role in _FIELDS]


def field_module(field):
    """The module that owns `field`, or None."""
    return next((module for name, module, role in _FIELDS if name == field), None)


def module_switch(module):
    """How to switch `module` on, e.g. "physics='mhd'" (None: always on)."""
    m = _MODULE_BY_NAME[module]
    if not m["switch"]:
        return None
    value = _convert(_SWITCH_BY_KEYWORD[m["switch"]]["kind"])(m["value"])
    return f"{m['switch']}={value!r}"


def terms():
    """The terms of the right-hand side, one dict per row of
    csrc/terms/terms.def in the order of their bits: name, module (that must
    be on), description, parameters (those whose row in csrc/parameters.def
    names the term), switched_by (those of them that switch it: the term
    runs only where one of them is not 0; empty: it runs with its module)
    and backends (the compiled backends that run it: a backend's
    terms_missing leaves it out)."""
    compiled = _core.compiled_backends()
    missing = {b: set(_core.terms_missing(b)) for b in compiled}
    return [dict(t, parameters=[r["name"] for r in _ROWS if r["term"] == t["name"]],
                 switched_by=[r["name"] for r in _ROWS if r["term"] == t["name"] and r["term_switch"]],
                 backends=[b for b in compiled if t["name"] not in missing[b]])
            for t in _TERMS]


def _is_default(name, value):
    d = row(name)["default"]
    return tuple(value) == tuple(d) if isinstance(d, tuple) else value == d


def resolve(given, switch_values, method="55p"):
    """The full set of a configuration's parameters, checked.

    given: {name: value} of the parameters passed (unknown names are a
    TypeError naming them); switch_values: {keyword: value}.  Returns
    (switches, modules, values): the checked switches (every one), the
    module names that are on, and every parameter's value (defaults filled
    in).  Refuses, naming the parameter: values out of bounds, a parameter
    other than its default whose module is off, and values that need the
    55-point method where the run has another.
    """
    unknown = [name for name in given if name not in _BY_NAME]
    if unknown:
        raise TypeError(f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                        f"the parameters are {', '.join(NAMES)} and the switches {', '.join(SWITCHES)}")
    switched = {k: check_switch(k, switch_values.get(k, _SWITCH_BY_KEYWORD[k]["off"])) for k in SWITCHES}
    on = modules_of(switched)
    values = {name: check(name, given[name]) if name in given else row(name)["default"] for name in NAMES}
    for module in _MODULE_BY_NAME:
        stray = [n for n in NAMES if row(n)["module"] == module and not _is_default(n, values[n])]
        if module not in on and stray:
            what = _MODULE_BY_NAME[module]["description"].split(":")[0]
            raise ValueError(f"{' and '.join(stray) if len(stray) < 3 else ', '.join(stray[:-1]) + ' and ' + stray[-1]}"
                             f" belong{'s' if len(stray) == 1 else ''} to the module {module!r} ({what}): pass "
                             f"{module_switch(module)} as well")
    for module in on:
        if _MODULE_BY_NAME[module]["needs_55p"] and method != "55p":
            raise ValueError(f"{module_switch(module)} needs method='55p'")
    for name in NAMES:
        r = row(name)
        if _is_default(name, values[name]):
            continue
        if r["needs_55p"] and method != "55p":
            raise ValueError(f"{meaning(name)} ({name}) needs method='55p'")
    return switched, on, values


def recorded(switched, on, values):
    """The parameters a Simulation reports (Simulation.parameters()): the
    switches not at their default, and the parameters of the modules that
    are on, except those of a term that is off (its term_switch rows at 0:
    x0_shear is not recorded without shear)."""
    out = {k: v for k, v in switched.items() if v != _SWITCH_BY_KEYWORD[k]["off"]}
    for name in NAMES:
        r = row(name)
        if r["module"] not in on:
            continue
        switches = [n for n in NAMES if row(n)["term"] == r["term"] and row(n)["term_switch"]]
        if switches and all(_is_default(n, values[n]) for n in switches):
            continue
        out[name] = np.array(values[name]) if r["kind"] == "vector" else values[name]
    return out


def table():
    """The parameters as a Markdown table (name, module, default, bounds, unit, restart, description), for
    the docs: ``python -c "import astaroth; print(astaroth.parameters.table())"``."""
    lines = ["| parameter | module | default | bounds | unit | may change on restart | description |",
             "|---|---|---|---|---|---|---|"]
    for r in parameters():
        d = r["default"]
        d = f"({', '.join(f'{x:g}' for x in d)})" if isinstance(d, tuple) else f"{d:g}"
        lines.append(f"| `{r['name']}` | {r['module']} | {d} | {bounds_text(r['name'])} | {r['unit']} | "
                     f"{'yes' if r['restart'] else 'no'} | {r['description']} |")
    return "\n".join(lines)


def help_line(name):
    """One line for `astaroth run --help`: the module, the meaning, the bounds, restart."""
    r = row(name)
    m = _MODULE_BY_NAME[r["module"]]
    where = ""
    if m["switch"]:
        kind = _SWITCH_BY_KEYWORD[m["switch"]]["kind"]
        value = {"flag": "true", "count": m["value"]}.get(kind, repr(m["value"]).replace(chr(39), chr(34)))
        where = f"{r['module']} ({m['switch']} {'>=' if kind == 'count' else '='} {value}): "
    needs = " (55p)" if r["needs_55p"] else ""
    kind = "; one number or three" if r["kind"] == "vector" else ""
    restart = "; may change on --restart" if r["restart"] else ""
    return f"{where}{r['description']}; {bounds_text(name)}{kind}{needs}{restart}"


class _CallableModule(types.ModuleType):
    """This module, callable: ``ac.parameters()`` is ``ac.parameters.parameters()``."""

    def __call__(self):
        return parameters()


sys.modules[__name__].__class__ = _CallableModule



def check_dtype(values, dtype):
    """ValueError naming the first parameter of `values` ({name: float or
    tuple}) that the precision `dtype` cannot hold: beyond its largest number
    (it would be Inf in the step, e.g. gravity = 1e39 in float32), or so
    small that it would be 0 (a nonzero value below its smallest normal
    number)."""
    info = np.finfo(dtype)
    largest, tiny = float(info.max), float(info.tiny)
    for name, value in values.items():
        for v in (value if isinstance(value, tuple) else (value,)):
            huge = abs(v) > largest
            if huge or 0 < abs(v) < tiny:
                raise ValueError(f"{name} = {value} is {'beyond the largest' if huge else 'below the smallest normal'} "
                                 f"{info.dtype.name} number ({largest if huge else tiny:.3g}): the step would "
                                 f"compute with {'Inf' if huge else '0'}; use dtype='float64' or rescale the units")
