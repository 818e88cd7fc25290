"""Run configuration files for `astaroth run CONFIG.toml`.

One TOML file sets the grid, physics, numerics, initial condition, forcing,
output cadences and end time.  Every key is checked: an unknown or
misspelled key is an error naming it and the allowed keys, a wrong type or a
value out of range names the key.  `DEFAULT` (forced turbulence at 64^3 on
the default backend) is what `astaroth run` does without a file.
"""
import copy
import itertools
import math

from . import boundaries as walls
from . import parameters as registry


def _physics_schema():
    """[physics]: the switches (choices, true/false or counts), every parameter of csrc/parameters.def, and
    qshear, which sets the parameter shear as Simulation's keyword does."""
    schema = {sw["keyword"]: {"flag": "bool", "count": "switch_count"}.get(sw["kind"], sw["values"])
              for sw in registry.switches()}
    schema.update((name, "parameter") for name in registry.NAMES)
    schema["qshear"] = "real"
    return schema


def _physics_default():
    values = {sw["keyword"]: sw["off"] for sw in registry.switches()}
    for name in registry.NAMES:
        d = registry.default(name)
        values[name] = list(d) if isinstance(d, tuple) else d
    return values


def _physics_help():
    text = {sw["keyword"]: sw["description"] for sw in registry.switches()}
    text.update((name, registry.help_line(name)) for name in registry.NAMES)
    text["qshear"] = ("a shearing box in a rotating frame: shear = -qshear omega_z (the Pencil Code's qshear; 1.5 "
                      "is Keplerian), in place of shear; unset by default")
    return text

SCHEMA = {
    "grid": {"shape": "ints3", "box": "reals3", "origin": "reals3"},
    "physics": _physics_schema(),
    "boundaries": {"x": "walls", "y": "walls", "z": "walls"},
    "numerics": {"backend": ("auto", "cpu", "cuda"), "method": ("55p", "19p"), "dtype": ("float32", "float64"),
                 "cdt": "positive", "cdtv": "positive",
                 "dt": "nonneg"},
    "initial": {"kind": ("rest", "sine_wave", "radial_explosion", "random_velocity"), "field": ("ux", "uy", "uz", "lnrho"),
                "amplitude": "real", "k": "reals3_or_real", "r0": "nonneg", "width": "positive", "urms": "nonneg",
                "slope": "real", "seed": "seed", "seed_field": "nonneg",
                "stratification": ("none", "isothermal", "polytropic"), "mpoly": "real", "zref": "height"},
    "forcing": {"kmin": "positive", "kmax": "positive", "f0": "nonneg", "seed": "seed", "relhel": "real",
                "normalize": ("per_k", "mean_k"), "kdat": "path"},
    "output": {"dir": "string", "until": "positive", "timeseries_every": "count", "snapshot_every": "positive",
               "progress": "bool", "nt": "steps", "dtmin": "nonneg"},
    "diagnostics": {"columns": "columns", "xyaverages": "quantities", "xzaverages": "quantities",
                    "yzaverages": "quantities", "zaverages": "quantities", "averages_every": "count",
                    "slices": "quantities", "slice_point": "point", "slices_every": "count",
                    "spectra": "names", "spectra_every": "count"},
}

# Where the default run departs from the table's defaults: a lower viscosity
# makes `astaroth run` turbulent (Re = urms / (nu kf) about 40, not 7).
RUN_PHYSICS = {"nu": 3e-3}

DEFAULT = {
    "grid": {"shape": [64, 64, 64], "box": [2 * math.pi] * 3, "origin": [0.0, 0.0, 0.0]},
    "physics": {**_physics_default(), **RUN_PHYSICS},
    "boundaries": {"x": {}, "y": {}, "z": {}},
    "numerics": {"backend": "auto", "method": "55p", "dtype": "float64", "cdt": 0.4, "cdtv": 0.3,
                 "dt": 0.0},
    "initial": {"kind": "rest", "field": "uy", "amplitude": 1e-3, "k": 1.0, "r0": 0.8, "width": 0.2, "urms": 0.1,
                "slope": -2.0, "seed": 1, "seed_field": 0.0, "stratification": "none", "mpoly": 1.5,
                "zref": "bottom"},
    "forcing": {"kmin": 1.0, "kmax": 2.0, "f0": 0.07, "seed": 1, "relhel": 0.0, "normalize": "per_k",
                "kdat": ""},
    "output": {"dir": "astaroth-run", "until": 10.0, "timeseries_every": 10, "snapshot_every": 5.0,
               "progress": True, "nt": 0, "dtmin": 0.0},
    "diagnostics": {"columns": [], "xyaverages": [], "xzaverages": [], "yzaverages": [], "zaverages": [],
                    "averages_every": 10, "slices": [], "slice_point": [], "slices_every": 10, "spectra": [],
                    "spectra_every": 100},
}


HELP = {
    "grid": {"shape": "points per axis (nx, ny, nz), each >= 1", "box": "box lengths, one number or three",
             "origin": "coordinates of point 0 on each axis"},
    "physics": _physics_help(),
    "boundaries": {axis: f"walls at both ends of {axis}: {{field = kind or [lower, upper]}}, kinds s, a, a2, "
                         f"set:VALUE (astaroth.boundaries); {{}} (default): periodic" for axis in "xyz"},
    "numerics": {"backend": "auto, cpu or cuda", "method": "55p or 19p", "dtype": "float32 or float64",
                 "cdt": "advective Courant number of the CFL step", "cdtv": "viscous number of the CFL step",
                 "dt": "a fixed time step (the Pencil Code's dt), 0 (default): the CFL step"},
    "initial": {"kind": "rest, sine_wave, radial_explosion or random_velocity",
                "field": "sine_wave: the field (ux, uy, uz, lnrho)", "amplitude": "sine_wave, radial_explosion",
                "k": "sine_wave: wave number along x, or a wave vector", "r0": "radial_explosion: shell radius",
                "width": "radial_explosion: shell width", "urms": "random_velocity: rms speed",
                "slope": "random_velocity: E(k) ~ k^slope",
                "seed": "random_velocity and seed_field: random seed",
                "seed_field": "mhd: rms of a random (white-noise) vector potential A, as a dynamo's seed",
                "stratification": "a layer at rest under gravity, between walls along it (astaroth.init.hydrostatic): "
                                  "isothermal or polytropic (energy = \"entropy\"), the Pencil Code's initlnrho "
                                  "'isothermal' and 'polytropic_simple'; with kind rest, sine_wave of a velocity "
                                  "or random_velocity",
                "mpoly": "polytropic: the polytropic index",
                "zref": "stratification: the height where rho = rho0 and the sound speed is cs, or \"bottom\" "
                        "(the wall gravity points to)"},
    "forcing": {"kmin": "smallest |k| of the shell, units of 2 pi / L",
                "kmax": "largest |k| of the shell, at most n / 2", "f0": "strength, >= 0",
                "seed": "seed of the forcing's generator",
                "relhel": "relative helicity: +1 or -1 maximally helical, 0 (default) non-helical",
                "normalize": "per_k: N from each drawn |k|; mean_k: from the set's mean |k| (Pencil's kav)",
                "kdat": "a Pencil Code k.dat file of wave vectors, in place of kmin and kmax"},
    "output": {"dir": "run directory", "until": "end time", "timeseries_every": "steps between time-series rows",
               "snapshot_every": "time between snapshots (and checkpoints)", "progress": "a progress line",
               "nt": "at most this many steps in one invocation (the Pencil Code's nt), 0: no cap",
               "dtmin": "stop (exit status of a blow-up) when the CFL step falls below this (the Pencil Code's "
                        "dtmin), 0: never; astaroth sweep stops such a member at its next row, the others run on"},
    "diagnostics": {"columns": "time-series columns (the Pencil Code's print.in), []: the default set",
                    "xyaverages": "quantities averaged over x and y, e.g. [\"uz\", \"uz*ss\"] (xyaverages.h5)",
                    "xzaverages": "quantities averaged over x and z (xzaverages.h5)",
                    "yzaverages": "quantities averaged over y and z (yzaverages.h5)",
                    "zaverages": "quantities averaged over z (zaverages.h5)",
                    "averages_every": "steps between rows of the averages",
                    "slices": "quantities sliced through slice_point (slices.h5)",
                    "slice_point": "grid indices [ix, iy, iz] of the slices, []: the middle",
                    "slices_every": "steps between slices",
                    "spectra": "kinetic, magnetic or field names (spectra.h5, power_kin.dat, ...)",
                    "spectra_every": "steps between spectra"},
}

# Keys `astaroth run --help` lists but the README's TOML block leaves to
# their own page (docs/guide/diagnostics.md, docs/guide/stratified.md and
# docs/guide/rotation.md, where tests find each).
DOCUMENTED_ON = {"docs/guide/diagnostics.md": {"output": ("nt", "dtmin"), "diagnostics": tuple(SCHEMA["diagnostics"])},
                 "docs/guide/stratified.md": {"initial": ("stratification", "mpoly", "zref")},
                 "docs/guide/rotation.md": {"physics": ("qshear",)}}
DOCUMENTED_ELSEWHERE = {section: keys for page in DOCUMENTED_ON.values() for section, keys in page.items()}

# On --restart the checkpoint holds the state: these keys describe it and
# cannot change (the grid, dtype and method, the module switches, the
# physics parameters whose `restart` column in csrc/parameters.def is 0, and
# whether the run is forced).
FIXED_ON_RESTART = {"grid": ("shape", "box", "origin"),
                    "physics": registry.SWITCHES + tuple(n for n in registry.NAMES if not registry.row(n)["restart"]),
                    "boundaries": ("x", "y", "z"),
                    "numerics": ("dtype", "method"),
                    "forcing": ("enabled", "normalize", "kdat")}
# These the checkpoint records too, and a restart may change them, as the
# Pencil Code's run.in may: they are compared with the checkpoint, and each
# change is reported and recorded in the checkpoint's restart history (the
# shell kmin, kmax only for a forcing of a shell, not of a k.dat file's set).
CHANGED_ON_RESTART = {"physics": tuple(n for n in registry.NAMES if registry.row(n)["restart"]),
                      "forcing": ("kmin", "kmax", "f0", "relhel")}
# The other keys take effect from the restart on ([initial] is not used at
# all, the forcing's seed neither, the checkpoint holding its generator's
# state, and a changed [output] dir is another run).


def toml_value(value):
    """`value` as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def describe():
    """Every section and key with its default and meaning (for `astaroth run --help`)."""
    lines = ["configuration keys ([section] key = default: meaning); a file sets any of them:"]
    for section, keys in SCHEMA.items():
        lines.append(f"  [{section}]" + ("  (the table present in the file switches forcing on)"
                                         if section == "forcing" else ""))
        lines += [f"    {key} = {toml_value(DEFAULT[section][key]) if key in DEFAULT[section] else '(unset)'}: "
                  f"{HELP[section][key]}" for key in keys]
    return "\n".join(lines)


class ConfigError(ValueError):
    """A configuration file that cannot be run; the message names the key."""


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check(section, key, kind, v):
    where = f"[{section}] {key}"
    if isinstance(kind, tuple):
        if v not in kind:
            raise ConfigError(f"{where} = {v!r}: must be one of {', '.join(map(repr, kind))}")
        return v
    if kind == "ints3":
        if not (isinstance(v, list) and len(v) == 3 and all(isinstance(n, int) and not isinstance(n, bool) for n in v)):
            raise ConfigError(f"{where} = {v!r}: must be three integers, e.g. [64, 64, 64]")
        if min(v) < 1:
            raise ConfigError(f"{where} = {v!r}: every size must be at least 1")
        return v
    if kind in ("reals3", "reals3_or_real"):
        if kind == "reals3_or_real" and _is_real(v):
            return v
        if _is_real(v) and kind == "reals3":
            v = [v] * 3
        if not (isinstance(v, list) and len(v) == 3 and all(_is_real(x) for x in v)):
            raise ConfigError(f"{where} = {v!r}: must be three numbers" + (" or one number" if "real" in kind else ""))
        if key == "box" and min(v) <= 0:
            raise ConfigError(f"{where} = {v!r}: box lengths must be positive")
        return [float(x) for x in v]
    if kind == "parameter":  # a row of csrc/parameters.def
        vector = registry.row(key)["kind"] == "vector"
        if vector and _is_real(v):
            v = [v] * 3
        if vector and not (isinstance(v, list) and len(v) == 3 and all(_is_real(x) for x in v)):
            raise ConfigError(f"{where} = {v!r}: must be three numbers or one number")
        if not vector and not _is_real(v):
            raise ConfigError(f"{where} = {v!r}: must be a number")
        values = [float(x) for x in (v if vector else [v])]
        if not all(registry.in_bounds(key, x) for x in values):
            raise ConfigError(f"{where} = {v!r}: must be {registry.bounds_text(key)}")
        return values if vector else values[0]
    if kind in ("real", "nonneg", "positive"):
        if not _is_real(v):
            raise ConfigError(f"{where} = {v!r}: must be a number")
        if kind == "nonneg" and v < 0:
            raise ConfigError(f"{where} = {v!r}: must be >= 0")
        if kind == "positive" and v <= 0:
            raise ConfigError(f"{where} = {v!r}: must be > 0")
        return float(v)
    if kind in ("count", "seed"):
        if not (isinstance(v, int) and not isinstance(v, bool)) or v < (1 if kind == "count" else 0):
            raise ConfigError(f"{where} = {v!r}: must be a {'positive' if kind == 'count' else 'non-negative'} integer")
        return v
    if kind == "switch_count":  # a number of copies of a module (csrc/parameters.def); true and false are 1 and 0
        try:
            return registry.check_switch(key, v)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"{where} = {v!r}: {e}") from None
    if kind == "bool":
        if not isinstance(v, bool):
            raise ConfigError(f"{where} = {v!r}: must be true or false")
        return v
    if kind == "path":  # a file name, or "" for none
        if not isinstance(v, str):
            raise ConfigError(f"{where} = {v!r}: must be a file name in quotes (\"\" for none)")
        return v
    if kind == "walls":  # {field: kind or [lower, upper]}; the fields are checked by Simulation
        if not isinstance(v, dict):
            raise ConfigError(f"{where} = {v!r}: must be a table {{field = kind or [lower, upper]}}, e.g. "
                              f'{{ ux = "s", uy = "s", uz = "a", lnrho = "a2" }}')
        try:
            return walls.canonical_table(key, v)
        except ValueError as e:
            raise ConfigError(f"[{section}] {e}") from None
    if kind == "height":  # a coordinate, or "bottom"
        if v != "bottom" and not _is_real(v):
            raise ConfigError(f'{where} = {v!r}: must be a number or "bottom"')
        return v if v == "bottom" else float(v)
    if kind in ("steps", "auto_count"):
        if not (isinstance(v, int) and not isinstance(v, bool)) or v < 0:
            raise ConfigError(f"{where} = {v!r}: must be a non-negative integer (0: "
                              f"{'no cap' if kind == 'steps' else 'chosen for you'})")
        return v
    if kind in ("columns", "quantities", "names"):
        if not (isinstance(v, list) and all(isinstance(x, str) and x for x in v)):
            raise ConfigError(f'{where} = {v!r}: must be a list of names in quotes, e.g. ["uz", "uz*ss"]')
        try:
            if kind == "columns":
                from .diagnostics import check_names
                check_names(v, where)
            elif kind == "quantities":
                from .outputs import check_quantity
                for q in v:
                    check_quantity(None, q, where)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        if len(set(v)) != len(v):
            raise ConfigError(f"{where} = {v!r}: a name appears twice")
        return v
    if kind == "point":
        if not (isinstance(v, list) and (v == [] or (len(v) == 3 and all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in v)))):
            raise ConfigError(f"{where} = {v!r}: must be three grid indices [ix, iy, iz] (>= 0), or [] for the middle")
        return v
    if kind == "string":
        if not isinstance(v, str) or not v:
            raise ConfigError(f"{where} = {v!r}: must be a non-empty string")
        return v
    raise AssertionError(kind)


def validate(user):
    """The full configuration: DEFAULT overridden by `user` (a dict from TOML),
    every key checked.  A [forcing] table present in `user` switches the
    forcing on; without a file the default run is forced too."""
    if not isinstance(user, dict):
        raise ConfigError("a configuration must be a TOML table")
    config = copy.deepcopy(DEFAULT)
    for section, table in user.items():
        if section == "sweep":
            raise ConfigError("[sweep] is for `astaroth sweep CONFIG.toml`, which runs a member for every value; "
                              "astaroth run runs one simulation")
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}]; allowed sections: {', '.join(SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"[{section}] must be a table of keys")
        for key, value in table.items():
            if key not in SCHEMA[section]:
                raise ConfigError(f"unknown key {key!r} in [{section}]; allowed keys: {', '.join(SCHEMA[section])}")
            config[section][key] = _check(section, key, SCHEMA[section][key], value)
    if "qshear" in config["physics"]:
        _shear_of_q(config["physics"], "shear" in user.get("physics", {}))
    if config["forcing"]["kmax"] < config["forcing"]["kmin"]:
        raise ConfigError("[forcing] kmax must be >= kmin")
    if config["forcing"]["kdat"] and {"kmin", "kmax"} & set(user.get("forcing", {})):
        raise ConfigError("[forcing] kdat gives the wave vectors: leave out kmin and kmax")
    config["forcing"]["enabled"] = "forcing" in user
    initial = config["initial"]
    if initial["stratification"] != "none" and (initial["kind"] == "radial_explosion" or (
            initial["kind"] == "sine_wave" and initial["field"] == "lnrho")):
        raise ConfigError(f"[initial] stratification = {initial['stratification']!r} sets lnrho: it cannot go with "
                          f"kind = {initial['kind']!r}" + (" of field 'lnrho'" if initial["kind"] == "sine_wave" else ""))
    return config


def _shear_of_q(physics, shear_given):
    """[physics] qshear as the shear it sets (parameters.shear_of_qshear, as Simulation's keyword)."""
    q = physics.pop("qshear")
    try:
        physics["shear"] = registry.shear_of_qshear(q, physics["omega"][2], physics if shear_given else {})
    except ValueError as e:
        raise ConfigError(f"[physics] {e}") from None


def _read(path):
    """The tables of a TOML file, as a dict."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError("reading TOML needs Python 3.11 or the tomli package") from None
    with open(path, "rb") as f:
        try:
            return tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from None


def load(path):
    """Read and validate a TOML configuration file."""
    return validate(_read(path))


# `astaroth sweep CONFIG.toml` (astaroth.sweeps): the file is a run's, plus a
# [sweep] table of the swept keys, SECTION.KEY = [values] (physics.eta =
# [0.01, 0.02]), seed = [values] for [initial] seed and [forcing] seed
# together, and these settings:
SWEEP = {"every": "nonneg", "wave": "auto_count"}
SWEEP_DEFAULT = {"every": 0.0, "wave": 0}
SWEEP_HELP = {"every": "simulated time between rows of each member's time series, 0: until / 100",
              "wave": "members run at once, 0: as many as fit (GPU) or one per OpenMP thread (CPU)"}
SWEEP_DIR = "astaroth-sweep"  # [output] dir when the file names none


def load_sweep(path):
    """The sweep of `astaroth sweep CONFIG.toml`: (tables, grid, settings).
    tables: the file's tables without [sweep] (sweep_member makes each
    member's configuration from them; [output] dir defaults to SWEEP_DIR);
    grid: {"section.key" or "seed": list of values}; settings: [sweep]'s
    every and wave.  Every value, and every member's whole configuration,
    is checked: an error names the key."""
    user = _read(path)
    if not isinstance(user.get("sweep"), dict):
        raise ConfigError(f"{path} has no [sweep] table of the keys to sweep, e.g. [sweep] physics.eta = [0.01, 0.02] "
                          f"and seed = [1, 2, 3] (astaroth run runs a file without one)")
    table = user.pop("sweep")
    user.setdefault("output", {}).setdefault("dir", SWEEP_DIR)
    settings, grid = dict(SWEEP_DEFAULT), {}
    for name, value in table.items():
        if name in SWEEP:
            settings[name] = _check("sweep", name, SWEEP[name], value)
        elif name == "seed":
            grid[name] = [_check("sweep", name, "seed", v) for v in _swept(name, value)]
        elif name in SCHEMA and name != "output" and isinstance(value, dict):
            for key, values in value.items():
                if key not in SCHEMA[name]:
                    raise ConfigError(f"unknown key [sweep] {name}.{key}: [{name}] has no key {key!r}; allowed keys: "
                                      f"{', '.join(SCHEMA[name])}")
                try:
                    grid[f"{name}.{key}"] = [_check(name, key, SCHEMA[name][key], v)
                                             for v in _swept(f"{name}.{key}", values)]
                except ConfigError as e:
                    raise ConfigError(str(e).replace(f"[{name}] {key}", f"[sweep] {name}.{key}", 1)) from None
        else:
            raise ConfigError(f"unknown key {name!r} in [sweep]; it takes SECTION.KEY = [values] of the sections "
                              f"{', '.join(s for s in SCHEMA if s != 'output')} (e.g. physics.eta = [0.01, 0.02]), "
                              f"seed = [values], {', '.join(SWEEP)}")
    if not grid:
        raise ConfigError("[sweep] sweeps nothing: give the keys to sweep, e.g. physics.eta = [0.01, 0.02] or "
                          "seed = [1, 2, 3]")
    validate(user)
    for values in itertools.product(*grid.values()):  # every member's configuration, before any runs
        params = dict(zip(grid, values))
        try:
            sweep_member(user, params)
        except ConfigError as e:
            raise ConfigError(f"[sweep] the member {', '.join(f'{k} = {toml_value(v)}' for k, v in params.items())}: "
                              f"{e}") from None
    return user, grid, settings


def describe_sweep():
    """The [sweep] table's keys (for `astaroth sweep --help`)."""
    lines = ["[sweep] keys (the other sections are those of astaroth run --help):",
             "    SECTION.KEY = [values]: the values of a key of astaroth run's sections, e.g. physics.eta = "
             "[0.01, 0.02]",
             "    seed = [values]: [initial] seed, and [forcing] seed where the run is forced"]
    lines += [f"    {key} = {toml_value(SWEEP_DEFAULT[key])}: {SWEEP_HELP[key]}" for key in SWEEP]
    return "\n".join(lines)


def _swept(name, values):
    """The list of values of a swept key, or a ConfigError naming it."""
    if not isinstance(values, list) or not values:
        raise ConfigError(f"[sweep] {name} = {values!r}: must be a non-empty list of values, e.g. [1, 2, 3]")
    return values


def sweep_member(user, params):
    """The validated configuration of one member of a sweep: the tables
    `user` (load_sweep's) with the swept values `params` ({"section.key" or
    "seed": value}; seed sets [initial] seed, and [forcing] seed where the
    run is forced)."""
    user = copy.deepcopy(user)
    for name, value in params.items():
        if name == "seed":
            for section in ("initial", "forcing") if "forcing" in user else ("initial",):
                user.setdefault(section, {})["seed"] = value
        else:
            section, key = name.split(".", 1)
            user.setdefault(section, {})[key] = value
    return validate(user)


def default():
    """The configuration of `astaroth run` without a file: forced turbulence at 64^3."""
    config = validate({})
    config["forcing"]["enabled"] = True
    return config
