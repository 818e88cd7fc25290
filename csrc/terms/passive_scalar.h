/*
 * terms/passive_scalar.h -- the passive scalars, each advected by the flow
 * and diffused with its own diffusivity: dc/dt = -u.grad c + D lap c for c
 * = cc (D = pscalar_diff) and, with passive_scalar = 2, c = cc2 (D =
 * pscalar_diff2) (the Pencil Code's pscalar_nolog module with npscalar
 * scalars, without its density term; sixth-order stencils, eqs. (6)-(7) of
 * Pekkila et al. 2017).  It reads u and writes only the scalars'
 * right-hand sides, so the flow does not see them.
 *
 * The scalars are one module whose field repeats (fields by count,
 * csrc/fields.h): AC_PSCALAR_COPIES lists each copy's row, module bit and
 * diffusivity, and everything below is a loop over it.  A copy of a
 * configuration without it is not there: the code of one scalar is what it
 * was before the second existed.
 */
#ifndef ASTAROTH_TERMS_PASSIVE_SCALAR_H
#define ASTAROTH_TERMS_PASSIVE_SCALAR_H

#include "term.h"

/* X(field, module bit, diffusivity parameter) of each copy, in table order. */
#define AC_PSCALAR_COPIES(X) X(cc, AC_MODULE_PSCALAR, pscalar_diff) X(cc2, AC_MODULE_PSCALAR2, pscalar_diff2)

/* Whether row is one of the scalars. */
AC_TERM_INLINE int ac_row_is_pscalar(int row)
{
#define AC_PSCALAR_IS(field, module, diffusivity) row == AC_FIELD_##field ||
    return AC_PSCALAR_COPIES(AC_PSCALAR_IS) 0;
#undef AC_PSCALAR_IS
}

AC_TERM_INLINE unsigned passive_scalar_needs(int row)
{
    return ac_row_is_pscalar(row) ? (unsigned)(AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)AC_NEEDS_VALUE
                                                                              : 0u;
}

/* dc/dt of the scalar of field row `row` with diffusivity `diffusivity`. */
AC_INLINE void passive_scalar_add_copy(unsigned modules, int row, real diffusivity, const ac_point_derivatives *d,
                                       real rhs[])
{
    const int c = ac_field_index(modules, row), u = ac_field_index(modules, AC_FIELD_ux);
    rhs[c] += -(d->value[u] * d->grad[c][0] + d->value[u + 1] * d->grad[c][1] + d->value[u + 2] * d->grad[c][2]) +
              diffusivity * d->lap[c];
}

AC_INLINE void passive_scalar_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                  real rhs[])
{
#define AC_PSCALAR_ADD(field, module, diffusivity)                                                                     \
    if (modules & (unsigned)(module))                                                                                  \
        passive_scalar_add_copy(modules, AC_FIELD_##field, p->table.diffusivity, d, rhs);
    AC_PSCALAR_COPIES(AC_PSCALAR_ADD)
#undef AC_PSCALAR_ADD
}

/* The time step: each scalar's diffusivity diffuses it. */
AC_TERM_NO_SIGNAL(passive_scalar)

AC_INLINE double passive_scalar_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)max_zeta;
    *parameter = "pscalar_diff";
#define AC_PSCALAR_DIFFUSIVITY(field, module, diffusivity)                                                             \
    if (row == AC_FIELD_##field) {                                                                                     \
        *parameter = #diffusivity;                                                                                     \
        return g->diffusivity;                                                                                         \
    }
    AC_PSCALAR_COPIES(AC_PSCALAR_DIFFUSIVITY)
#undef AC_PSCALAR_DIFFUSIVITY
    return 0.0;
}

AC_INLINE double passive_scalar_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    (void)g, (void)row, (void)parameter;
    return 0.0;
}

#endif
