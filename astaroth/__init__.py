"""astaroth: sixth-order finite-difference compressible hydrodynamics, driven from Python.

    import numpy as np, astaroth as ac
    sim = ac.Simulation(shape=(64, 64, 64), nu=5e-3)
    sim["uy"] = 1e-3 * np.sin(13 * sim.x)[:, None, None]
    sim.run(until=1.5)

See README.md for the API summary.
"""
try:
    from . import _core  # noqa: F401  (the compiled extension)
except ImportError as e:  # pragma: no cover - depends on how Python was started
    raise ImportError(
        "astaroth's compiled extension (astaroth._core) was not found. Install the package with "
        "`pip install .` and run Python from outside the source tree (or run the tests with `pytest`, "
        "not `python -m pytest`, from the repository root)."
    ) from e

from . import analysis, init, ops
from . import pencil  # Pencil Code files in and out
from .ensemble import Ensemble
from .forcing import Forcing
from .io import load
from . import parameters  # a module that is also callable: ac.parameters() gives the rows
from .simulation import FIELDS, METHODS, NonFiniteError, Simulation, UnstableStepError, backends

__version__ = "0.1.0"
__all__ = ["Simulation", "Ensemble", "Forcing", "load", "backends", "parameters", "analysis", "init", "ops", "FIELDS",
           "METHODS", "NonFiniteError", "UnstableStepError"]
