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
import math

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


def check_constants(values, dtype):
    """ValueError naming gamma, cp and cs where the constants of the ideal
    gas that the step computes from them (csrc/eos/ideal_gas.h: cv1 = gamma /
    cp, cp (gamma - 1), lnTT0 = ln(cs^2 / (cp (gamma - 1)))) are not finite
    and nonzero in `dtype`, before any work (values: {name: float}, with the
    entropy module's parameters)."""
    info = np.finfo(dtype)
    largest, tiny = float(info.max), float(info.tiny)
    gamma, cp, cs = values["gamma"], values["cp"], values["cs"]
    named = f"gamma = {gamma:g}, cp = {cp:g}, cs = {cs:g}"
    with np.errstate(all="ignore"):
        constants = {"cv1 = gamma / cp": gamma / cp, "cp (gamma - 1)": cp * (gamma - 1.0), "cs^2": cs * cs}
        constants["cs^2 / (cp (gamma - 1))"] = constants["cs^2"] / constants["cp (gamma - 1)"]
    for what, value in constants.items():
        if not tiny <= abs(value) <= largest:
            raise ValueError(f"{what} = {value:.3g} with {named} is not a finite nonzero {info.dtype.name} "
                             f"number, as the ideal gas's arithmetic needs (lnTT0 = ln(cs^2 / (cp (gamma - 1))), "
                             f"cv1 ss): rescale these parameters or use dtype='float64'")


def overflow_causes(sim):
    """Phrases naming what makes the ideal gas's arithmetic overflow the
    simulation's dtype in its present state (energy="entropy"; [] otherwise):
    the exponent of cs2 = cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0)) and
    of T, beyond half the log of the dtype's largest number (so that cs2 times
    a gradient overflows), split into its two terms with the parameters and
    fields that make each one large."""
    if _energy(sim) != "entropy":
        return []
    gamma, cp, rho0, cs = (float(getattr(sim, name)) for name in ("gamma", "cp", "rho0", "cs"))
    limit = 0.5 * math.log(float(np.finfo(sim.dtype).max))
    ss = np.abs(np.asarray(sim["ss"], dtype=np.float64))
    lnrho = np.abs(np.asarray(sim["lnrho"], dtype=np.float64) - math.log(rho0))
    with np.errstate(all="ignore"):
        cv1 = gamma / cp
        ss_max, rho_max = (float(np.max(a[np.isfinite(a)], initial=0.0)) for a in (ss, lnrho))
        terms = [(cv1 * ss_max, f"cv1 ss with cv1 = gamma / cp = {cv1:.3g} (gamma = {gamma:g}, cp = {cp:g}) and "
                                f"max |ss| = {ss_max:.3g}"),
                 ((gamma - 1.0) * rho_max, f"(gamma - 1)(lnrho - ln rho0) with gamma = {gamma:g}, rho0 = {rho0:g} "
                                           f"and max |lnrho - ln rho0| = {rho_max:.3g}")]
    return [f"{what} reaches {value:.3g} in the exponent of the sound speed cs2 and temperature, beyond "
            f"{limit:.3g} (half the log of the largest {sim.dtype.name})" for value, what in terms if value > limit]
