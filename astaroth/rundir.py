"""The run directory of `astaroth run`: what a run leaves there, and what a
restart checks and repairs before it continues.

    timeseries.csv                  one row per `timeseries_every` steps and per segment end
    time_series.dat                 the same rows in the Pencil Code's format (pencil.read.ts reads it)
    xyaverages.h5, ..., slices.h5   averages and slices ([diagnostics]; astaroth.outputs)
    spectra.h5, power_*.dat         spectra ([diagnostics] spectra), power_kin.dat in the Pencil Code's format
    snapshot_NNNNNNN.h5, .xdmf      at every multiple of `snapshot_every`
    checkpoint.h5, .xdmf            the newest state, what --restart continues from
    summary.png                     the picture at the end
    STOP                            asks a running run to stop (removed once it has)
    RELOAD                          asks a running run to re-read the restart-changeable keys of its
                                    TOML file, as the Pencil Code's RELOAD re-reads run.in (removed once read)

Every file is written to a temporary and renamed (astaroth.io.atomic_files,
atomic_path), so a run killed mid-write may leave a `.tmp-*` file behind; the
next start removes it (remove_temporaries).
"""
import glob
import json
import os

from . import config as configuration
from . import parameters as registry
from .io import cleanup_folder

TIMESERIES, CHECKPOINT, SUMMARY, STOP = "timeseries.csv", "checkpoint.h5", "summary.png", "STOP"
PENCIL_TIMESERIES, RELOAD = "time_series.dat", "RELOAD"
SNAPSHOTS = "snapshot_*.h5"
OUTPUTS = ("xyaverages.h5", "xzaverages.h5", "yzaverages.h5", "zaverages.h5", "slices.h5", "spectra.h5")


def snapshot_name(steps):
    return f"snapshot_{steps:07d}.h5"


def _path(folder, name):
    return os.path.join(folder, name)


def run_files(folder):
    """The files of a run in `folder` (sorted paths), without STOP and temporaries."""
    names = [TIMESERIES, PENCIL_TIMESERIES, CHECKPOINT, "checkpoint.xdmf", SUMMARY] + list(OUTPUTS)
    found = [_path(folder, n) for n in names if os.path.exists(_path(folder, n))]
    return sorted(found + glob.glob(_path(folder, "snapshot_*.h5")) + glob.glob(_path(folder, "snapshot_*.xdmf")) +
                  glob.glob(_path(folder, "power_*.dat")))


def holds_run(folder):
    """True when `folder` has a time series, a checkpoint or a snapshot."""
    return any(not p.endswith((".xdmf", ".png")) for p in run_files(folder))


def remove_run(folder):
    """Delete an earlier run's files (only those, and a STOP file, and the
    parts of its snapshots written split over MPI ranks: astaroth.io.PARTS);
    returns how many files."""
    import shutil

    from .io import PARTS

    paths = run_files(folder) + ([_path(folder, STOP)] if os.path.exists(_path(folder, STOP)) else [])
    for p in paths:
        os.unlink(p)
    for parts in glob.glob(_path(folder, "*.h5" + PARTS)):
        shutil.rmtree(parts, ignore_errors=True)
    return len(paths)


def remove_temporaries(folder):
    """Set right what writers killed in `folder` left: the renames of a set
    they had committed made, then every other `.tmp-*` file deleted that no
    running process is writing (astaroth.io.cleanup_folder); returns the
    names deleted."""
    return cleanup_folder(folder, everything=True)


def newest_snapshot(folder):
    """The snapshot of the most steps in `folder`, or None."""
    found = sorted(glob.glob(_path(folder, SNAPSHOTS)))
    return found[-1] if found else None


def _values(config, keys):
    return {f"[{section}] {key}": config[section][key] for section, keys_ in keys.items() for key in keys_}


def fixed_values(config):
    """The keys that cannot change on a restart, as {"[section] key": value}."""
    return _values(config, configuration.FIXED_ON_RESTART)


def _state_of(sim):
    """The configuration keys a checkpoint's simulation records, read from the simulation itself."""
    f = sim.forcing
    physics = {}
    for key in registry.SWITCHES + registry.NAMES:  # every switch and parameter of csrc/parameters.def
        value = getattr(sim, key)
        physics[key] = [float(v) for v in value] if isinstance(value, tuple) else value
    return {"grid": {"shape": list(sim.shape), "box": list(sim.box),
                     "origin": [float(c[0]) for c in (sim.x, sim.y, sim.z)]},
            "physics": physics,
            "boundaries": {axis: {f: list(p) for f, p in sim.boundaries.get(axis, {}).items()} for axis in "xyz"},
            "numerics": {"dtype": sim.dtype.name, "method": sim.method},
            "forcing": {"enabled": f is not None, "kmin": f and f.kmin, "kmax": f and f.kmax, "f0": f and f.f0,
                        "seed": f and f.seed, "relhel": f and f.relhel, "normalize": f and f.normalize,
                        "kdat": f and (f.kdat or "")}}


def values_of(sim):
    """fixed_values() of the run a checkpoint holds, read from the simulation itself."""
    return fixed_values(_state_of(sim))


def changes(config, sim):
    """The keys a restart may change (config.CHANGED_ON_RESTART) whose value in
    `config` differs from the checkpoint's `sim`: {section: {key: (old, new)}}
    (the forcing's only when both are forced; its kmin and kmax only for a
    shell, not for the set of a k.dat file)."""
    state = _state_of(sim)
    forced = state["forcing"]["enabled"] and config["forcing"]["enabled"]
    out = {}
    for section, keys in configuration.CHANGED_ON_RESTART.items():
        if section == "forcing" and not forced:
            continue
        for key in keys:
            if section == "forcing" and key in ("kmin", "kmax") and (config["forcing"]["kdat"] or sim.forcing.explicit):
                continue
            old, new = state[section][key], config[section][key]
            if old != new:
                out.setdefault(section, {})[key] = (old, new)
    return out


def compare(config, sim, recorded):
    """Check a configuration against the checkpoint it restarts.

    `sim`: the checkpoint's simulation; `recorded`: the configuration the
    checkpoint was written under (None for a file without one).  Returns
    (refused, changed): the keys that cannot change on a restart and did,
    each as "[section] key = new (checkpoint: old)", and those that may and
    did, each as "[section] key = new (was old)" (the physics parameters and
    forcing against the checkpoint itself, the other keys against `recorded`).
    """
    now, then = fixed_values(config), values_of(sim)
    both_forced = now["[forcing] enabled"] and then["[forcing] enabled"]
    refused = [f"{k} = {configuration.toml_value(now[k])} (checkpoint: {configuration.toml_value(then[k])})"
               for k in now if now[k] != then[k] and (both_forced or not k.startswith("[forcing]")
                                                      or k == "[forcing] enabled")]
    changed = [f"[{section}] {key} = {configuration.toml_value(new)} (was {configuration.toml_value(old)})"
               for section, keys in changes(config, sim).items() for key, (old, new) in keys.items()]
    if recorded is not None:
        for section, keys in configuration.SCHEMA.items():
            for key in keys:
                if key in configuration.FIXED_ON_RESTART.get(section, ()) or \
                        key in configuration.CHANGED_ON_RESTART.get(section, ()) or key not in config[section]:
                    continue  # (not in config: qshear, validated into the shear it sets)
                if key not in recorded.get(section, {}) and config[section][key] == configuration.DEFAULT[section][key]:
                    continue  # a key newer than the checkpoint, at its default
                old, new = recorded.get(section, {}).get(key), config[section][key]
                if old != new and key != "dir":
                    note = (" (ignored: the checkpoint holds the state)" if section == "initial" else
                            " (ignored: the checkpoint holds the forcing generator's state)"
                            if (section, key) == ("forcing", "seed") else "")
                    changed.append(f"[{section}] {key} = {configuration.toml_value(new)} "
                                   f"(was {configuration.toml_value(old)}){note}")
    return refused, changed


HISTORY = "restart_history"  # the checkpoint attribute: what each restart changed (JSON)


def history_entry(sim, taken):
    """One restart's record: its step and time and the keys it changed, {"[section] key": [old, new]}."""
    return {"steps": int(sim.steps), "t": float(sim.t),
            "changes": {f"[{section}] {key}": [old, new] for section, keys in taken.items()
                        for key, (old, new) in keys.items()}}


def encode(config):
    """The configuration as the text a checkpoint records (JSON)."""
    return json.dumps(config, sort_keys=True)


def decode(text):
    """The configuration a checkpoint recorded, or None."""
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def truncate_timeseries(path, steps, keep_last):
    """Drop the rows of the time series `path` (timeseries.csv or
    time_series.dat) past step `steps`, the row at `steps` itself unless
    keep_last, and any partial line a kill left; returns how many rows
    went (astaroth.diagnostics.truncate)."""
    from .diagnostics import truncate

    return truncate(path, steps, keep_last)
