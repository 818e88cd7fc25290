/*
 * physics.h -- the per-point physics of astaroth, written once.
 *
 * Stencil coefficients, finite-difference derivatives, the right-hand sides
 * of the continuity and momentum equations and the 2N-storage RK3 update,
 * as `static inline` functions that compile as C99 and as CUDA device code.
 * Every backend (csrc/cpu, csrc/cuda) calls these; none re-derives an
 * equation.  Equation numbers refer to seeds/001 (Pekkila et al. 2017).
 *
 * Precision: the includer defines `real` (float or double) before including
 * this header, once per translation unit.  Fields are addressed by a pointer
 * to the point and the element strides along x, y and z, so the same code
 * reads global memory, a padded host array or a shared-memory tile.
 */
#ifndef ASTAROTH_PHYSICS_H
#define ASTAROTH_PHYSICS_H

#include <stddef.h>

#ifndef real
#error "define `real` (float or double) before including physics.h"
#endif

#if defined(__CUDACC__)
#define AC_INLINE static inline __host__ __device__
#define AC_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define AC_INLINE static inline
#define AC_UNROLL _Pragma("GCC unroll 4") /* fully unrolled loops let the CPU loops vectorise */
#elif defined(__clang__)
#define AC_INLINE static inline
#define AC_UNROLL _Pragma("unroll")
#else
#define AC_INLINE static inline
#define AC_UNROLL
#endif

/* The one table of sixth-order coefficients, eqs. (6)-(8): entry r multiplies
 * the pair of points at distance r; the denominators are factored out. */
#define AC_D1_C1 45.0
#define AC_D1_C2 (-9.0)
#define AC_D1_C3 1.0
#define AC_D1_DENOM 60.0

#define AC_D2_C0 (-490.0)
#define AC_D2_C1 270.0
#define AC_D2_C2 (-27.0)
#define AC_D2_C3 2.0
#define AC_D2_DENOM 180.0

#define AC_DXY_C1 270.0
#define AC_DXY_C2 (-27.0)
#define AC_DXY_C3 2.0
#define AC_DXY_DENOM 720.0

/* Williamson (1980) 2N-storage RK3 coefficients, eq. (10). */
AC_INLINE real rk3_alpha(int substep)
{
    return substep == 0 ? (real)0.0 : substep == 1 ? (real)(-5.0 / 9.0) : (real)(-153.0 / 128.0);
}

AC_INLINE real rk3_beta(int substep)
{
    return substep == 0 ? (real)(1.0 / 3.0) : substep == 1 ? (real)(15.0 / 16.0) : (real)(8.0 / 15.0);
}

/* Physical parameters and inverse grid spacings as seen by one point. */
typedef struct {
    real inv_ds[3]; /* 1 / dx, 1 / dy, 1 / dz */
    real nu;        /* kinematic viscosity */
    real cs2;       /* isothermal sound speed squared */
} ac_point_params;

/* First derivative along a stride, eq. (6). */
AC_INLINE real first_derivative(const real *f, ptrdiff_t s, real inv_d)
{
    return ((real)AC_D1_C1 * (f[s] - f[-s]) + (real)AC_D1_C2 * (f[2 * s] - f[-2 * s]) +
            (real)AC_D1_C3 * (f[3 * s] - f[-3 * s])) *
           (inv_d / (real)AC_D1_DENOM);
}

/* Second derivative along a stride, eq. (7). */
AC_INLINE real second_derivative(const real *f, ptrdiff_t s, real inv_d)
{
    return ((real)AC_D2_C0 * f[0] + (real)AC_D2_C1 * (f[s] + f[-s]) + (real)AC_D2_C2 * (f[2 * s] + f[-2 * s]) +
            (real)AC_D2_C3 * (f[3 * s] + f[-3 * s])) *
           (inv_d * inv_d / (real)AC_D2_DENOM);
}

/* Mixed derivative d^2 f / (da db) by the bidiagonal scheme, eq. (8). */
AC_INLINE real mixed_derivative(const real *f, ptrdiff_t sa, ptrdiff_t sb, real inv_da, real inv_db)
{
    const ptrdiff_t p = sa + sb, m = sa - sb; /* the two diagonals */
    return ((real)AC_DXY_C1 * (f[p] - f[-m] + f[-p] - f[m]) + (real)AC_DXY_C2 * (f[2 * p] - f[-2 * m] + f[-2 * p] - f[2 * m]) +
            (real)AC_DXY_C3 * (f[3 * p] - f[-3 * m] + f[-3 * p] - f[3 * m])) *
           (inv_da * inv_db / (real)AC_DXY_DENOM);
}

/* The four fields at one point: pointers to lnrho, ux, uy, uz there. */
typedef struct {
    const real *lnrho;
    const real *u[3];
} ac_point_fields;

/* Right-hand sides of eq. (1) and of eq. (2) without the (nu/3) grad div u
 * term, which the two methods discretise differently (seed Sect. 4).
 * Writes d lnrho/dt to rhs[0] and du_i/dt to rhs[1 + i]; returns div u. */
AC_INLINE real rhs_without_grad_div(ac_point_fields f, const ptrdiff_t stride[3], const ac_point_params *p,
                                    real rhs[4])
{
    real grad_lnrho[3], grad_u[3][3], lap_u[3], u[3];
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        grad_lnrho[j] = first_derivative(f.lnrho, stride[j], p->inv_ds[j]);
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        u[i] = f.u[i][0];
        lap_u[i] = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            grad_u[i][j] = first_derivative(f.u[i], stride[j], p->inv_ds[j]); /* d_j u_i */
            lap_u[i] += second_derivative(f.u[i], stride[j], p->inv_ds[j]);
        }
    }
    const real div_u = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];

    /* eq. (1): d lnrho/dt = -u.grad lnrho - div u */
    rhs[0] = -(u[0] * grad_lnrho[0] + u[1] * grad_lnrho[1] + u[2] * grad_lnrho[2]) - div_u;

    /* eq. (2) with the traceless rate of strain S of eq. (3) */
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        real advection = u[0] * grad_u[i][0] + u[1] * grad_u[i][1] + u[2] * grad_u[i][2];
        real strain_dot_grad_lnrho = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            real s_ij = (real)0.5 * (grad_u[i][j] + grad_u[j][i]) - (i == j ? div_u / (real)3.0 : (real)0.0);
            strain_dot_grad_lnrho += s_ij * grad_lnrho[j];
        }
        rhs[1 + i] = -advection - p->cs2 * grad_lnrho[i] + p->nu * (lap_u[i] + (real)2.0 * strain_dot_grad_lnrho);
    }
    return div_u;
}

/* grad (div u) from second and mixed derivatives of u: the 55-point stencil. */
AC_INLINE void grad_div_55p(ac_point_fields f, const ptrdiff_t stride[3], const ac_point_params *p, real grad_div[3])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        grad_div[i] = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) /* d_i d_j u_j */
            grad_div[i] += (i == j) ? second_derivative(f.u[j], stride[j], p->inv_ds[j])
                                    : mixed_derivative(f.u[j], stride[i], stride[j], p->inv_ds[i], p->inv_ds[j]);
    }
}

/* grad (div u) as first derivatives of a stored div u field: the 19-point
 * method's second pass (seed Appendix A). */
AC_INLINE void grad_div_19p(const real *div_u, const ptrdiff_t stride[3], const ac_point_params *p, real grad_div[3])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        grad_div[i] = first_derivative(div_u, stride[i], p->inv_ds[i]);
}

/* Full right-hand side of eqs. (1)-(2) for the 55-point method (no forcing). */
AC_INLINE void rhs_55p(ac_point_fields f, const ptrdiff_t stride[3], const ac_point_params *p, real rhs[4])
{
    real grad_div[3];
    rhs_without_grad_div(f, stride, p, rhs);
    grad_div_55p(f, stride, p, grad_div);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        rhs[1 + i] += p->nu / (real)3.0 * grad_div[i];
}

/* 2N-storage RK3 substep, eq. (10), for one value:
 * w <- alpha w + dt rhs (w is not read in the first substep, alpha = 0),
 * returns the new field value u + beta w. */
AC_INLINE real rk3_substep(real u, real rhs, real *w, int substep, real dt)
{
    real w_new = dt * rhs;
    if (substep > 0)
        w_new += rk3_alpha(substep) * *w;
    *w = w_new;
    return u + rk3_beta(substep) * w_new;
}

/* The 19-point method's second pass, eqs. (17)-(18): adds dt nu/3 grad div u
 * to w and beta times that to the field already written by the first pass. */
AC_INLINE void rk3_add_grad_div(real *u_out, real *w, real grad_div, int substep, real dt, real nu)
{
    const real increment = dt * nu / (real)3.0 * grad_div;
    *w += increment;
    *u_out += rk3_beta(substep) * increment;
}

#endif /* ASTAROTH_PHYSICS_H */
