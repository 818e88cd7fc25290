"""Thermodynamic fields of a Simulation: temperature and pressure.

With energy="entropy" the gas is ideal, as in the Pencil Code's
`eos_idealgas` module (src/eos_idealgas.f90): with cv1 = gamma / cp,

    lnTT = lnTT0 + cv1 ss + (gamma - 1)(lnrho - ln rho0),
    lnTT0 = ln(cs^2 / (cp (gamma - 1))),
    p = (cp - cv) rho T = rho cs2 / gamma,  cs2 = cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0)),

where `cs` is the sound speed at rho = rho0 and ss = 0 (Pencil's cs0).  With
energy="isothermal" (the default) p = rho cs^2 and the temperature is not
defined (there is no energy equation): `temperature` refuses.

Both functions return NumPy arrays of the simulation's shape in float64.
"""
import math

import numpy as np


def _energy(sim):
    return getattr(sim, "energy", "isothermal")


def _thermo_parameters(sim):
    """gamma, cp, rho0, cs of an energy="entropy" simulation, checked."""
    gamma, cp, rho0, cs = (float(getattr(sim, name)) for name in ("gamma", "cp", "rho0", "cs"))
    for name, value in (("gamma", gamma - 1.0), ("cp", cp), ("rho0", rho0), ("cs", cs)):
        if not value > 0:
            raise ValueError(f"{name} must be {'> 1' if name == 'gamma' else 'positive'} for an ideal gas, "
                             f"got {getattr(sim, name)!r}")
    return gamma, cp, rho0, cs


def log_temperature(sim):
    """ln T of the ideal gas (energy="entropy"), as the Pencil Code's lnTT."""
    if _energy(sim) != "entropy":
        raise ValueError(f"the temperature needs energy='entropy' (this simulation has energy={_energy(sim)!r})")
    gamma, cp, rho0, cs = _thermo_parameters(sim)
    cv1 = gamma / cp
    lnTT0 = math.log(cs ** 2 / (cp * (gamma - 1.0)))
    lnrho = np.asarray(sim["lnrho"], dtype=np.float64)
    ss = np.asarray(sim["ss"], dtype=np.float64)
    return lnTT0 + cv1 * ss + (gamma - 1.0) * (lnrho - math.log(rho0))


def temperature(sim):
    """T = exp(lnTT) (energy="entropy"; see the module docstring)."""
    return np.exp(log_temperature(sim))


def pressure(sim):
    """p = (cp - cv) rho T with energy="entropy", rho cs^2 with energy="isothermal"."""
    rho = np.exp(np.asarray(sim["lnrho"], dtype=np.float64))
    if _energy(sim) != "entropy":
        return rho * float(sim.cs) ** 2
    gamma, cp, _, _ = _thermo_parameters(sim)
    return (cp - cp / gamma) * rho * np.exp(log_temperature(sim))


def sound_speed_squared(sim):
    """cs2 = gamma p / rho, the local adiabatic sound speed squared (cs^2 with energy="isothermal")."""
    if _energy(sim) != "entropy":
        return np.full(tuple(sim.shape), float(sim.cs) ** 2)
    gamma, cp, _, _ = _thermo_parameters(sim)
    return cp * (gamma - 1.0) * np.exp(log_temperature(sim))
