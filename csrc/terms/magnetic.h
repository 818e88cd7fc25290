/*
 * terms/magnetic.h -- magnetohydrodynamics with the vector potential A in
 * the resistive gauge (the Pencil Code's magnetic module with constant
 * resistivity): B = curl A + b_ext, J = curl B / mu0 = (grad div A - lap A)
 * / mu0; the Lorentz force J x B / rho on u and the induction equation
 * dA/dt = u x B + eta lap A.  A takes the same stencils as u.
 */
#ifndef ASTAROTH_TERMS_MAGNETIC_H
#define ASTAROTH_TERMS_MAGNETIC_H

#include "term.h"

AC_TERM_INLINE unsigned magnetic_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_VALUE
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)AC_NEEDS_VALUE
           : (row == AC_FIELD_ax || row == AC_FIELD_ay || row == AC_FIELD_az)
               ? (unsigned)(AC_NEEDS_FIRST | AC_NEEDS_SECOND | AC_NEEDS_GRAD_DIV)
               : 0u;
}

/* B = curl A + b_ext from grad_a[i][j] = d_j A_i; each difference of
 * derivatives rounded on its own (ac_sub_unfused), so that every GPU kernel
 * finds the same B. */
AC_INLINE void curl_plus(const real grad_a[3][3], const real b_ext[3], real b[3])
{
    b[0] = ac_sub_unfused(grad_a[2][1], grad_a[1][2]) + b_ext[0];
    b[1] = ac_sub_unfused(grad_a[0][2], grad_a[2][0]) + b_ext[1];
    b[2] = ac_sub_unfused(grad_a[1][0], grad_a[0][1]) + b_ext[2];
}

AC_INLINE void magnetic_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int a = ac_field_index(modules, AC_FIELD_ax), va = ac_vector_index(modules, AC_FIELD_ax);
    const real grad_a[3][3] = {{d->grad[a][0], d->grad[a][1], d->grad[a][2]},
                               {d->grad[a + 1][0], d->grad[a + 1][1], d->grad[a + 1][2]},
                               {d->grad[a + 2][0], d->grad[a + 2][1], d->grad[a + 2][2]}};
    real b[3], j[3];
    curl_plus(grad_a, p->table.b_ext, b);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        j[i] = (d->grad_div[va][i] - d->lap[a + i]) * p->inv_mu0;
    const real inv_rho = ac_exp(-d->value[l]); /* 1 / rho */
    const real *const uu = d->value + u;
    const real j_cross_b[3] = {j[1] * b[2] - j[2] * b[1], j[2] * b[0] - j[0] * b[2], j[0] * b[1] - j[1] * b[0]};
    const real u_cross_b[3] = {uu[1] * b[2] - uu[2] * b[1], uu[2] * b[0] - uu[0] * b[2], uu[0] * b[1] - uu[1] * b[0]};
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        rhs[u + i] += j_cross_b[i] * inv_rho;
        rhs[a + i] += u_cross_b[i] + p->table.eta * d->lap[a + i];
    }
}

/* The time step: the Alfven speed carries signals (with the sound speed,
 * the fast magnetosonic speed), eta diffuses A. */
AC_TERM_INLINE unsigned magnetic_signal_needs(unsigned modules, int row)
{
    return (void)modules, row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_VALUE : ac_row_is_potential(row) ? (unsigned)AC_NEEDS_FIRST : 0u;
}

AC_INLINE double magnetic_flow_speed(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    (void)modules, (void)d, (void)p;
    return 0.0;
}

/* vA^2 = |B|^2 / (mu0 rho). */
AC_INLINE double magnetic_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), a = ac_field_index(modules, AC_FIELD_ax);
    const real grad_a[3][3] = {{d->grad[a][0], d->grad[a][1], d->grad[a][2]},
                               {d->grad[a + 1][0], d->grad[a + 1][1], d->grad[a + 1][2]},
                               {d->grad[a + 2][0], d->grad[a + 2][1], d->grad[a + 2][2]}};
    real b[3];
    curl_plus(grad_a, p->table.b_ext, b);
    return ((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]) * (double)p->inv_mu0 *
           ac_exp_double(-(double)d->value[l]);
}

AC_INLINE double magnetic_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)max_zeta;
    *parameter = "eta";
    return ac_row_is_potential(row) ? g->eta : 0.0;
}

AC_INLINE double magnetic_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    (void)g, (void)row, (void)parameter;
    return 0.0;
}

#endif
