/*
 * terms/pressure.h -- the pressure gradient in the momentum equation and
 * its equation of state.  Isothermal (p = rho cs^2, eq. 2 of Pekkila et al.
 * 2017): -grad p / rho = -cs^2 grad lnrho.  An energy equation (the
 * Pencil Code's entropy module, an ideal gas) replaces the isothermal
 * pressure here.
 */
#ifndef ASTAROTH_TERMS_PRESSURE_H
#define ASTAROTH_TERMS_PRESSURE_H

#include "term.h"

AC_TERM_INLINE unsigned pressure_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST : 0u;
}

AC_INLINE void pressure_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        rhs[u + i] -= p->cs2 * d->grad[l][i];
}

#endif
