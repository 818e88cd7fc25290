/*
 * terms/continuity.h -- the continuity equation, eq. (1) of Pekkila et al.
 * (2017): d lnrho/dt = -u.grad lnrho - div u (the Pencil Code's density
 * module, non-conservative form in ln rho).
 */
#ifndef ASTAROTH_TERMS_CONTINUITY_H
#define ASTAROTH_TERMS_CONTINUITY_H

#include "term.h"

AC_TERM_INLINE unsigned continuity_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST)
                                                                              : 0u;
}

AC_INLINE void continuity_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                              real rhs[])
{
    (void)p;
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const real div_u = ac_divergence_of(d, u);
    rhs[l] += -(d->value[u] * d->grad[l][0] + d->value[u + 1] * d->grad[l][1] + d->value[u + 2] * d->grad[l][2]) - div_u;
}

AC_TERM_NO_TIME_STEP(continuity)

#endif
