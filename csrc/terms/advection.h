/*
 * terms/advection.h -- the advection of momentum, -(u.grad) u in eq. (2)
 * of Pekkila et al. (2017) (the Pencil Code's hydro module).
 */
#ifndef ASTAROTH_TERMS_ADVECTION_H
#define ASTAROTH_TERMS_ADVECTION_H

#include "term.h"

AC_TERM_INLINE unsigned advection_needs(int row)
{
    return (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST)
                                                                            : 0u;
}

/* Component i (physics.h sums the momentum equation component by component). */
AC_INLINE void advection_add_component(unsigned modules, const ac_point_derivatives *d, int i, real rhs[])
{
    const int u = ac_field_index(modules, AC_FIELD_ux);
    rhs[u + i] += -(d->value[u] * d->grad[u + i][0] + d->value[u + 1] * d->grad[u + i][1] +
                    d->value[u + 2] * d->grad[u + i][2]);
}

AC_INLINE void advection_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    (void)p;
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        advection_add_component(modules, d, i, rhs);
}

/* The time step: the flow carries signals at |u|. */
AC_TERM_INLINE unsigned advection_signal_needs(unsigned modules, int row)
{
    return (void)modules, ac_row_is_velocity(row) ? (unsigned)AC_NEEDS_VALUE : 0u;
}

AC_INLINE double advection_flow_speed(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    (void)p;
    const real *u = d->value + ac_field_index(modules, AC_FIELD_ux);
    return sqrt((double)u[0] * u[0] + (double)u[1] * u[1] + (double)u[2] * u[2]);
}

AC_INLINE double advection_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    (void)modules, (void)d, (void)p;
    return 0.0;
}

AC_TERM_NO_DIFFUSION(advection)

#endif
