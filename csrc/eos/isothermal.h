/*
 * eos/isothermal.h -- the isothermal equation of state, p = rho cs^2 (eq. 2
 * of Pekkila et al. 2017; the Pencil Code's src/eos_idealgas.f90 with
 * leos_isothermal): the sound speed is cs everywhere and the pressure force
 * -grad p / rho = -cs^2 grad lnrho.  Chosen where the entropy module is off
 * (eos/eos.h).
 */
#ifndef ASTAROTH_EOS_ISOTHERMAL_H
#define ASTAROTH_EOS_ISOTHERMAL_H

#include "../terms/term.h"

/* The fields the pressure force reads: the gradient of lnrho. */
AC_TERM_INLINE unsigned isothermal_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST : 0u;
}

/* -grad p / rho, component i. */
AC_INLINE real isothermal_pressure_force(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                         int i)
{
    return -(p->cs2 * d->grad[ac_field_index(modules, AC_FIELD_lnrho)][i]);
}

/* The sound speed squared, uniform (in double, for the CFL step). */
AC_INLINE double isothermal_wave_speed2(const ac_physics_params *p)
{
    return (double)p->cs2;
}

#endif
