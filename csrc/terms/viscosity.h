/*
 * terms/viscosity.h -- the viscous force of constant kinematic viscosity
 * nu, eqs. (2)-(3) of Pekkila et al. (2017) (the Pencil Code's
 * ivisc='nu-const'): nu (lap u + (1/3) grad div u + 2 S.grad lnrho), with
 * the traceless rate of strain S_ij = (d_j u_i + d_i u_j)/2 - delta_ij div u / 3.
 */
#ifndef ASTAROTH_TERMS_VISCOSITY_H
#define ASTAROTH_TERMS_VISCOSITY_H

#include "term.h"

AC_TERM_INLINE unsigned viscosity_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz)
               ? (unsigned)(AC_NEEDS_FIRST | AC_NEEDS_SECOND | AC_NEEDS_GRAD_DIV)
               : 0u;
}

/* Component i (physics.h sums the momentum equation component by component). */
AC_INLINE void viscosity_add_component(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                       int i, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int v = ac_vector_index(modules, AC_FIELD_ux);
    const real div_u = ac_divergence_of(d, u);
    /* 2 S.grad lnrho = sum_j (d_j u_i + d_i u_j) d_j lnrho - (2/3) div u d_i lnrho */
    real two_strain_dot_grad_lnrho = (real)(-2.0 / 3.0) * div_u * d->grad[l][i];
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        two_strain_dot_grad_lnrho += (d->grad[u + i][j] + d->grad[u + j][i]) * d->grad[l][j];
    rhs[u + i] += p->table.nu * (d->lap[u + i] + d->grad_div[v][i] * AC_THIRD + two_strain_dot_grad_lnrho);
}

AC_INLINE void viscosity_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        viscosity_add_component(modules, d, p, i, rhs);
}

/* The time step: nu diffuses u. */
AC_TERM_NO_SIGNAL(viscosity)

AC_INLINE double viscosity_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)max_zeta;
    *parameter = "nu";
    return ac_row_is_velocity(row) ? g->nu : 0.0;
}

AC_INLINE double viscosity_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    (void)g, (void)row, (void)parameter;
    return 0.0;
}

#endif
