"""astaroth: sixth-order finite-difference compressible hydrodynamics, driven from Python.

    import numpy as np, astaroth as ac
    sim = ac.Simulation(shape=(64, 64, 64), nu=5e-3)
    sim["uy"] = 1e-3 * np.sin(13 * sim.x)[:, None, None]
    sim.run(until=1.5)

See README.md for the API summary.
"""
from .simulation import FIELDS, METHODS, NonFiniteError, Simulation, backends

__version__ = "0.1.0"
__all__ = ["Simulation", "backends", "FIELDS", "METHODS", "NonFiniteError"]
