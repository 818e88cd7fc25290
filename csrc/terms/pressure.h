/*
 * terms/pressure.h -- the pressure gradient in the momentum equation and
 * its equation of state.  Isothermal (p = rho cs^2, eq. 2 of Pekkila et al.
 * 2017): -grad p / rho = -cs^2 grad lnrho.  With the entropy module (an
 * ideal gas, terms/entropy.h; the Pencil Code's src/entropy.f90 `fpres`):
 * -grad p / rho = -cs2 (grad lnrho + grad lnTT) / gamma with the local cs2.
 */
#ifndef ASTAROTH_TERMS_PRESSURE_H
#define ASTAROTH_TERMS_PRESSURE_H

#include "term.h"
#include "entropy.h"

AC_TERM_INLINE unsigned pressure_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST
           : row == AC_FIELD_ss  ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST) /* with the entropy module only */
                                 : 0u;
}

/* Component i (physics.h sums the momentum equation component by component). */
AC_INLINE void pressure_add_component(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                      int i, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    if (modules & AC_MODULE_ENTROPY) {
        const int s = ac_field_index(modules, AC_FIELD_ss);
        const real cs2 = entropy_cs2(p, d->value[l], d->value[s]);
        const real glnTT = p->gamma_m1 * d->grad[l][i] + p->cv1 * d->grad[s][i];
        rhs[u + i] += -cs2 * (d->grad[l][i] + glnTT) * p->inv_gamma;
        return;
    }
    rhs[u + i] -= p->cs2 * d->grad[l][i];
}

AC_INLINE void pressure_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        pressure_add_component(modules, d, p, i, rhs);
}

#endif
