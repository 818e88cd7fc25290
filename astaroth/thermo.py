"""Thermodynamic fields of a Simulation: temperature, pressure, sound speed.

They come from the solver's own equation of state (csrc/eos/: the isothermal
gas, or with energy="entropy" the ideal gas of the Pencil Code's
`eos_idealgas`, src/eos_idealgas.f90), evaluated in double precision on the
fields now.  With cv1 = gamma / cp:

    lnTT = lnTT0 + cv1 ss + (gamma - 1)(lnrho - ln rho0),
    lnTT0 = ln(cs^2 / (cp (gamma - 1))),
    p = (cp - cv) rho T = rho cs2 / gamma,  cs2 = cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0)),

where `cs` is the sound speed at rho = rho0 and ss = 0 (Pencil's cs0).  With
energy="isothermal" (the default) p = rho cs^2 and the temperature is not
defined (there is no energy equation): `temperature` refuses.

Each function returns a NumPy array of the simulation's shape in float64.
"""
import numpy as np


def _energy(sim):
    return getattr(sim, "energy", "isothermal")


def _state(sim):
    """(lnTT, cs2, p) of the fields now, from the grid's equation of state."""
    lnrho = np.asarray(sim["lnrho"], dtype=np.float64)
    ss = np.asarray(sim["ss"], dtype=np.float64) if _energy(sim) == "entropy" else None
    return sim._grid.thermodynamics(lnrho, ss)


def log_temperature(sim):
    """ln T of the ideal gas (energy="entropy"), as the Pencil Code's lnTT."""
    if _energy(sim) != "entropy":
        raise ValueError(f"the temperature needs energy='entropy' (this simulation has energy={_energy(sim)!r})")
    return _state(sim)[0]


def temperature(sim):
    """T = exp(lnTT) (energy="entropy"; see the module docstring)."""
    return np.exp(log_temperature(sim))


def pressure(sim):
    """p = (cp - cv) rho T with energy="entropy", rho cs^2 with energy="isothermal"."""
    return _state(sim)[2]


def sound_speed_squared(sim):
    """cs2 = gamma p / rho, the local adiabatic sound speed squared (cs^2 with energy="isothermal")."""
    return _state(sim)[1]
