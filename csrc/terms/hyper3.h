/*
 * terms/hyper3.h -- sixth-order hyperdiffusion (the Pencil Code's
 * ivisc='hyper3-simplified' and idiff='hyper3-lnrho'): du/dt += nu_hyper3
 * del6 u and d lnrho/dt += diff_hyper3 del6 lnrho, del6 f = d6f/dx6 +
 * d6f/dy6 + d6f/dz6 by the 7-point stencil (stencils.h).  Each part is off
 * when its coefficient is 0.
 */
#ifndef ASTAROTH_TERMS_HYPER3_H
#define ASTAROTH_TERMS_HYPER3_H

#include "term.h"

AC_TERM_INLINE unsigned hyper3_needs(int row)
{
    return (row == AC_FIELD_lnrho || row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz ||
            row == AC_FIELD_ss) /* ss: chi_hyper3, added by entropy.h */
               ? (unsigned)AC_NEEDS_SIXTH
               : 0u;
}

AC_INLINE void hyper3_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    /* One test per field: the GPU compiler makes each a select, where one
     * test for the three components stays a branch around them (hydro
     * float32 with hyper3 slower: benchmarks/results/2026-11-24-h100-5a9c7d4). */
    AC_UNROLL
    for (int f = 0; f < 4; ++f) {
        const int at = f == 0 ? l : u + f - 1;
        const real coefficient = f == 0 ? p->table.diff_hyper3 : p->table.nu_hyper3;
        if (coefficient != 0)
            rhs[at] += coefficient * d->del6[at];
    }
}

/* The time step: the sixth-order limit of its coefficients. */
AC_TERM_NO_SIGNAL(hyper3)

AC_INLINE double hyper3_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)g, (void)row, (void)max_zeta, (void)parameter;
    return 0.0;
}

AC_INLINE double hyper3_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    *parameter = row == AC_FIELD_lnrho ? "diff_hyper3" : "nu_hyper3";
    return row == AC_FIELD_lnrho ? g->diff_hyper3 : ac_row_is_velocity(row) ? g->nu_hyper3 : 0.0;
}

#endif
