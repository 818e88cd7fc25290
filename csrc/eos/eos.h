/*
 * eos/eos.h -- the equation-of-state slot, as the Pencil Code's eos_*.f90
 * behind one interface: the configuration's modules choose the gas (the
 * ideal gas of eos/ideal_gas.h with the entropy module, else the isothermal
 * gas of eos/isothermal.h), and the pressure term (terms/pressure.h), the
 * energy equation (terms/entropy.h) and the signal speed of the CFL step
 * (csrc/timestep.h) ask it for the pressure force and the sound speed.
 * A second gas is a header here and a branch in each function below.
 */
#ifndef ASTAROTH_EOS_EOS_H
#define ASTAROTH_EOS_EOS_H

#include "ideal_gas.h"
#include "isothermal.h"

/* What the pressure force reads of field `row` (both gases' needs: a row of
 * a module that is off is never read). */
AC_TERM_INLINE unsigned eos_needs(int row)
{
    return isothermal_needs(row) | ideal_gas_needs(row);
}

/* -grad p / rho, component i, of the configuration's gas (added to du_i/dt
 * as a value: a - b c and a + -(b c) are the same number). */
AC_INLINE real eos_pressure_force(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, int i)
{
    return (modules & AC_MODULE_ENTROPY) ? ideal_gas_pressure_force(modules, d, p, i)
                                         : isothermal_pressure_force(modules, d, p, i);
}

/* What the sound speed reads of field `row`: nothing where it is uniform. */
AC_TERM_INLINE unsigned eos_signal_needs(unsigned modules, int row)
{
    return (modules & AC_MODULE_ENTROPY) ? ideal_gas_signal_needs(modules, row) : 0u;
}

/* The sound speed squared at a point, in double (the CFL step). */
AC_INLINE double eos_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    return (modules & AC_MODULE_ENTROPY) ? ideal_gas_wave_speed2(modules, d, p) : isothermal_wave_speed2(p);
}

/* The gas's state at a point, for analysis (astaroth/thermo.py): the log
 * temperature (NAN for the isothermal gas, which has none), the sound speed
 * squared and the pressure. */
AC_INLINE real eos_log_temperature(unsigned modules, const ac_physics_params *p, real lnrho, real ss)
{
    return (modules & AC_MODULE_ENTROPY) ? p->lnTT0 + ideal_gas_log_excess(p, lnrho, ss) : (real)NAN;
}

AC_INLINE real eos_sound_speed2(unsigned modules, const ac_physics_params *p, real lnrho, real ss)
{
    return (modules & AC_MODULE_ENTROPY) ? ideal_gas_cs2(p, lnrho, ss) : p->cs2;
}

/* p = rho cs2 / gamma for the ideal gas (= (cp - cv) rho T), rho cs^2 isothermal. */
AC_INLINE real eos_pressure(unsigned modules, const ac_physics_params *p, real lnrho, real ss)
{
    const real rho_cs2 = ac_exp(lnrho) * eos_sound_speed2(modules, p, lnrho, ss);
    return (modules & AC_MODULE_ENTROPY) ? rho_cs2 * p->inv_gamma : rho_cs2;
}

/* The sound speed where it is uniform (the isothermal gas), in double. */
static inline double eos_uniform_sound_speed(const ac_grid *g)
{
    return g->cs;
}

#endif
