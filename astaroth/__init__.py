"""astaroth: sixth-order finite-difference compressible hydrodynamics, driven from Python.

    import numpy as np, astaroth as ac
    sim = ac.Simulation(shape=(64, 64, 64), nu=5e-3)
    sim["uy"] = 1e-3 * np.sin(13 * sim.x)[:, None, None]
    sim.run(until=1.5)

See README.md for the API summary.
"""
try:
    import os as _os

    # OpenMP threads that wait spin only briefly before sleeping, so that a
    # loaded machine's other work does not make the default team far slower
    # than one thread (benchmarks/results/2026-11-24-cpu-loaded); libgomp
    # reads this once, when the extension loads it.  A user's own setting wins.
    _os.environ.setdefault("GOMP_SPINCOUNT", "1000")
    from . import _core  # noqa: F401  (the compiled extension)
except ImportError as e:  # pragma: no cover - depends on how Python was started
    raise ImportError(
        "astaroth's compiled extension (astaroth._core) was not found. Install the package with "
        "`pip install .` and run Python from outside the source tree (or run the tests with `pytest`, "
        "not `python -m pytest`, from the repository root)."
    ) from e

from . import analysis, init, ops
from . import outputs  # averages, slices and spectra during a run (ac.outputs.Averages, ...)
from . import pencil  # Pencil Code files in and out
from .ensemble import Ensemble
from .forcing import Forcing
from .io import load
from . import parameters  # a module that is also callable: ac.parameters() gives the rows
from .parameters import terms  # the rows of csrc/terms/terms.def
from .simulation import FIELDS, METHODS, NonFiniteError, Simulation, TimeStepTooShortError, UnstableStepError, backends
from . import sweeps
from .sweeps import sweep  # a run for every point of a grid of parameters and seeds

__version__ = "0.1.0"
__all__ = ["Simulation", "Ensemble", "Forcing", "sweep", "load", "backends", "parameters", "terms", "analysis", "init",
           "ops", "outputs", "FIELDS", "METHODS", "NonFiniteError", "TimeStepTooShortError", "UnstableStepError"]
