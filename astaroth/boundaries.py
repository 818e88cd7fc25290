"""Non-periodic boundaries ("walls") along any axis.

``Simulation(..., boundaries={"z": {"ux": "s", "uy": "s", "uz": "a",
"lnrho": "a2"}})`` puts walls at both ends of z; axes not named stay
periodic.  Each field of the simulation gets a kind, or a pair ``(lower,
upper)`` of kinds, with the Pencil Code's meaning (its ``src/boundcond.f90``,
``bc_sym_x`` and friends); the wall points are the first and last points of
the axis, with mirror points ``w -/+ i`` of ghost layer ``i = 1, 2, 3``:

``"s"``
    symmetric: ``f(ghost i) = f(mirror i)``; the wall value evolves.
``"a"``
    antisymmetric: ``f(ghost i) = -f(mirror i)`` and the wall value is 0
    (set before every substep, and 0 in every snapshot).
``"a2"``
    antisymmetric about the wall value: ``f(ghost i) = 2 f(wall) -
    f(mirror i)``; the wall value evolves.
``"set:VALUE"``
    a fixed wall value: ``f(wall) = VALUE``, ``f(ghost i) = 2 VALUE -
    f(mirror i)`` (the Pencil Code's ``set``).

A wall axis of ``n`` points and length ``L`` has spacing ``L / (n - 1)``:
point ``k`` sits at ``origin + k L / (n - 1)``, the first on the lower wall
and the last on the upper one (the Pencil Code's non-periodic grid).  The
codes of the kinds are those of ``csrc/boundaries.h``.
"""
import json
import math

AXES = ("x", "y", "z")
KINDS = {"s": 1, "a": 2, "a2": 3, "set": 4}  # csrc/boundaries.h, ac_bc_kind
MIN_POINTS = 4  # a wall's ghosts mirror 3 interior points


def _kind(axis, field, spec):
    """(kind, value) of one face from its string; ValueError naming axis and field."""
    if not isinstance(spec, str):
        raise ValueError(f"boundaries[{axis!r}][{field!r}]: a kind is a string ('s', 'a', 'a2' or "
                         f"'set:VALUE'), got {spec!r}")
    name, sep, rest = spec.strip().partition(":")
    if name == "set":
        try:
            value = float(rest)
        except ValueError:
            value = math.nan
        if not sep or not math.isfinite(value):
            raise ValueError(f"boundaries[{axis!r}][{field!r}]: 'set' needs a finite value, as 'set:1.5', "
                             f"got {spec!r}")
        return name, value
    if name not in KINDS or sep:
        raise ValueError(f"boundaries[{axis!r}][{field!r}]: unknown kind {spec!r} (one of 's', 'a', 'a2', "
                         f"'set:VALUE')")
    return name, 0.0


def _pair(axis, field, spec):
    """(lower, upper) of one field's entry: a kind for both faces, or a pair of them; ValueError
    naming axis and field for anything else (None, a number, a list of another length)."""
    if isinstance(spec, (list, tuple)):
        if len(spec) != 2:
            raise ValueError(f"boundaries[{axis!r}][{field!r}]: a kind or a pair (lower, upper), got {spec!r}")
        return tuple(spec)
    return spec, spec  # _kind refuses what is not a string


def _text(kind, value):
    return f"set:{value!r}" if kind == "set" else kind


def parse(boundaries, field_names):
    """The canonical form ``{axis: {field: (lower, upper)}}`` (kind strings,
    'set:VALUE' with its value in full) of a ``boundaries=`` argument, or {}
    for None; ValueError naming the axis and field of what is wrong."""
    if boundaries is None:
        return {}
    if isinstance(boundaries, str):
        boundaries = json.loads(boundaries)
    if not isinstance(boundaries, dict):
        raise TypeError(f"boundaries must be a dict {{axis: {{field: kind}}}}, got {type(boundaries).__name__}")
    out = {}
    for axis, kinds in boundaries.items():
        if axis not in AXES:
            raise ValueError(f"boundaries: unknown axis {axis!r} (one of 'x', 'y', 'z')")
        if not isinstance(kinds, dict):
            raise TypeError(f"boundaries[{axis!r}] must be a dict {{field: kind or (lower, upper)}}, "
                            f"got {type(kinds).__name__}")
        unknown = [f for f in kinds if f not in field_names]
        if unknown:
            raise ValueError(f"boundaries[{axis!r}]: {unknown[0]!r} is not a field of this simulation "
                             f"(fields: {', '.join(field_names)})")
        missing = [f for f in field_names if f not in kinds]
        if missing:
            raise ValueError(f"boundaries[{axis!r}]: no kind for field {missing[0]!r}; a wall axis needs one for "
                             f"every field ({', '.join(field_names)})")
        faces = {}
        for field in field_names:
            faces[field] = tuple(_text(*_kind(axis, field, s)) for s in _pair(axis, field, kinds[field]))
        out[axis] = faces
    return {a: out[a] for a in AXES if a in out}


def canonical_table(axis, table):
    """One axis's table {field: kind or (lower, upper)} with every face in
    canonical text, as lists {field: [lower, upper]} (the TOML file's form);
    the fields themselves are checked by parse()."""
    out = {}
    for field, spec in table.items():
        out[field] = [_text(*_kind(axis, field, s)) for s in _pair(axis, field, spec)]
    return out


def wall_axes(parsed):
    """Indices of the axes with walls."""
    return tuple(AXES.index(a) for a in parsed)


def check_shape(parsed, shape):
    for a in wall_axes(parsed):
        if shape[a] < MIN_POINTS:
            raise ValueError(f"boundaries: the wall axis {AXES[a]!r} needs at least {MIN_POINTS} points, "
                             f"got {shape[a]}")


def spacing(box, shape, parsed):
    """Grid spacings: L / n on a periodic axis, L / (n - 1) on a wall axis."""
    walls = wall_axes(parsed)
    return tuple(L / (n - 1) if a in walls else L / n for a, (L, n) in enumerate(zip(box, shape)))


def entries(parsed, field_names, offset, local_shape, global_shape):
    """The binding's form: (axis, face, field index, kind code, value) for the
    wall faces of a (sub)domain at offset with local_shape (a subdomain
    inside a split wall axis has no wall face there)."""
    out = []
    for axis_name, kinds in parsed.items():
        a = AXES.index(axis_name)
        faces = []
        if offset[a] == 0:
            faces.append(0)
        if offset[a] + local_shape[a] == global_shape[a]:
            faces.append(1)
        for face in faces:
            for i, field in enumerate(field_names):
                kind, value = _kind(axis_name, field, kinds[field][face])
                out.append((a, face, i, KINDS[kind], value))
    return out


def dumps(parsed):
    """A JSON string of the canonical form (snapshot attribute)."""
    return json.dumps({a: {f: list(p) for f, p in k.items()} for a, k in parsed.items()}, sort_keys=True)


def refuse_wall_axes(parsed, axes, what):
    """ValueError naming `what` and the wall axes among `axes` (indices)."""
    bad = [AXES[a] for a in wall_axes(parsed) if a in axes]
    if bad:
        raise ValueError(f"{what} assumes periodic axes and {', '.join(repr(b) for b in bad)} "
                         f"{'has' if len(bad) == 1 else 'have'} walls")


def _set_faces(parsed):
    """(phrase, value) of every 'set' face: "boundaries['z']['lnrho'] lower = 'set:...'"."""
    for axis, kinds in parsed.items():
        for field, pair in kinds.items():
            for face, spec in zip(("lower", "upper"), pair):
                kind, value = _kind(axis, field, spec)
                if kind == "set":
                    yield f"boundaries[{axis!r}][{field!r}] {face} = {spec!r}", value


def check_dtype(parsed, dtype_max, dtype_name):
    """ValueError naming the first 'set' value beyond the precision's largest number (Inf in the step)."""
    for phrase, value in _set_faces(parsed):
        if abs(value) > dtype_max:
            raise ValueError(f"{phrase} is beyond the largest {dtype_name} number ({dtype_max:.3g}): the ghosts "
                             f"would be Inf; use dtype='float64' or a smaller value")


def large_values(parsed, limit):
    """Phrases naming the 'set' values beyond `limit` (what makes a step overflow)."""
    return [phrase for phrase, value in _set_faces(parsed) if abs(value) > limit]
