/*
 * terms/passive_scalar.h -- a passive scalar cc, advected by the flow and
 * diffused: dcc/dt = -u.grad cc + pscalar_diff lap cc (the Pencil Code's
 * pscalar_nolog module without its density term; sixth-order stencils,
 * eqs. (6)-(7) of Pekkila et al. 2017).  It reads u and writes only cc's
 * right-hand side, so the flow does not see it.
 */
#ifndef ASTAROTH_TERMS_PASSIVE_SCALAR_H
#define ASTAROTH_TERMS_PASSIVE_SCALAR_H

#include "term.h"

AC_TERM_INLINE unsigned passive_scalar_needs(int row)
{
    return row == AC_FIELD_cc ? (unsigned)(AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)AC_NEEDS_VALUE
                                                                              : 0u;
}

AC_INLINE void passive_scalar_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                  real rhs[])
{
    const int c = ac_field_index(modules, AC_FIELD_cc), u = ac_field_index(modules, AC_FIELD_ux);
    rhs[c] += -(d->value[u] * d->grad[c][0] + d->value[u + 1] * d->grad[c][1] + d->value[u + 2] * d->grad[c][2]) +
              p->table.pscalar_diff * d->lap[c];
}

/* The time step: pscalar_diff diffuses cc. */
AC_TERM_NO_SIGNAL(passive_scalar)

AC_INLINE double passive_scalar_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)max_zeta;
    *parameter = "pscalar_diff";
    return row == AC_FIELD_cc ? g->pscalar_diff : 0.0;
}

AC_INLINE double passive_scalar_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    (void)g, (void)row, (void)parameter;
    return 0.0;
}

#endif
