/*
 * terms/shock.h -- shock viscosity (the Pencil Code's ivisc='nu-shock'):
 * du/dt += zeta (div u grad lnrho + grad div u) + div u grad zeta with the
 * profile zeta below, which a kernel computes at the start of each step
 * and holds for its three substeps (passed in as an ac_shock_point).
 */
#ifndef ASTAROTH_TERMS_SHOCK_H
#define ASTAROTH_TERMS_SHOCK_H

#include "term.h"

/* The profile: zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]]: the compression, its
 * maximum over the 3x3x3 neighbourhood, the (1, 2, 1) / 4 smoothing along
 * each axis; computed at the start of a step, held for its substeps. */
AC_INLINE real shock_compression(real div_u)
{
    return div_u < 0 ? -div_u : (real)0;
}

AC_INLINE real smooth_121(real below, real here, real above)
{
    return (below + (real)2 * here + above) * (real)0.25;
}

/* The profile's passes, on both backends (cpu/point_impl.h, cuda/shock.cuh):
 * 0 the compression (from the fields), 1 its 3x3x3 maximum, 2-4 the
 * smoothing along x, y and z, the last (AC_SHOCK_PASSES - 1) the scale.
 * The neighbours a pass reads of what the pass before wrote: -1 none, 3
 * along all three axes, else along that axis. */
AC_INLINE int shock_pass_axis(int pass)
{
    return pass == 0 ? -1 : pass == 1 ? 3 : pass - 2;
}

/* The axes (bit a: axis a) whose ghost zones pass `pass` reads of what the
 * pass before wrote, which a split grid exchanges between them: the last
 * scales the ghost zones too, and the gradient after it reads all three. */
AC_INLINE unsigned shock_pass_reads(int pass)
{
    const int axis = pass >= AC_SHOCK_PASSES - 1 ? 3 : shock_pass_axis(pass);
    return axis < 0 ? 0u : axis == 3 ? 7u : 1u << axis;
}

/* The profile's factor nu_shock dxmin^2, in double: make_physics_params
 * (csrc/physics.h) rounds it once, as shock_scale, for both backends. */
AC_INLINE double shock_profile_scale(const ac_grid *g)
{
    const double dxmin = ac_grid_dxmin(g);
    return g->nu_shock * dxmin * dxmin;
}

/* The compression from the velocity's differences u_a(+r) - u_a(-r) along
 * each axis a (r = 1..3): eq. (6) for div u. */
AC_INLINE real shock_compression_from_differences(const real diff[3][3], const real inv_ds[3])
{
    real div_u = 0;
    for (int a = 0; a < 3; ++a)
        div_u += first_from_differences(diff[a][0], diff[a][1], diff[a][2], first_scale(inv_ds[a]));
    return shock_compression(div_u);
}

/* One pass of the profile at padded index idx: the compression (axis -1,
 * from the velocity u[0..2]; `from` unused), the 3x3x3 maximum of `from`
 * (axis 3) or its smoothing along `axis` (0, 1, 2); `from` and u have their
 * ghost zones filled.  The CPU applies it at every interior point; the CUDA
 * profile kernel (cuda/shock.cuh) takes the same steps, in the same order,
 * from shared memory. */
AC_INLINE real shock_pass_point(const real *const u[3], const real *from, ptrdiff_t idx, const ptrdiff_t stride[3],
                                const real inv_ds[3], int axis)
{
    if (axis < 0) {
        real diff[3][3];
        for (int a = 0; a < 3; ++a)
            for (int r = 1; r <= 3; ++r)
                diff[a][r - 1] = AC_LOAD(u[a] + idx + r * stride[a]) - AC_LOAD(u[a] + idx - r * stride[a]);
        return shock_compression_from_differences(diff, inv_ds);
    }
    if (axis == 3) {
        real v = from[idx];
        for (int dk = -1; dk <= 1; ++dk)
            for (int dj = -1; dj <= 1; ++dj)
                for (int di = -1; di <= 1; ++di) {
                    const real x = from[idx + di * stride[0] + dj * stride[1] + dk * stride[2]];
                    v = x > v ? x : v;
                }
        return v;
    }
    return smooth_121(from[idx - stride[axis]], from[idx], from[idx + stride[axis]]);
}

AC_TERM_INLINE unsigned shock_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz)
               ? (unsigned)(AC_NEEDS_FIRST | AC_NEEDS_GRAD_DIV)
               : 0u;
}

/* du/dt += zeta (div u grad lnrho + grad div u) + div u grad zeta. */
AC_INLINE void shock_add(unsigned modules, const ac_point_derivatives *d, const ac_shock_point *s, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int v = ac_vector_index(modules, AC_FIELD_ux);
    const real div_u = ac_divergence_of(d, u);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        rhs[u + i] += s->zeta * (div_u * d->grad[l][i] + d->grad_div[v][i]) + div_u * s->grad_zeta[i];
}

/* The time step: the profile's largest value diffuses u beside nu
 * (max_zeta: the reduction's, of the fields the step starts from). */
AC_TERM_NO_SIGNAL(shock)

AC_INLINE double shock_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)g;
    *parameter = "nu_shock";
    return ac_row_is_velocity(row) ? max_zeta : 0.0;
}

AC_INLINE double shock_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    (void)g, (void)row, (void)parameter;
    return 0.0;
}

#endif
