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

#include <math.h>
#include <stddef.h>

#ifndef real
#error "define `real` (float or double) before including physics.h"
#endif

/* AC_LOAD(p): read a stencil input.  On the GPU through the read-only data
 * path (the inputs of a substep are never written during it), which lets
 * the compiler batch the loads. */
#if defined(__CUDA_ARCH__)
#define AC_LOAD(p) __ldg(p)
#else
#define AC_LOAD(p) (*(p))
#endif

#if defined(__CUDACC__)
#define AC_INLINE static inline __host__ __device__
#define AC_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define AC_INLINE static inline
#define AC_UNROLL _Pragma("GCC unroll 32") /* fully unrolled loops let the CPU loops vectorise */
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

/* Central differences of accuracy 2, 4, 6 and 8 for the analysis operators
 * (astaroth.ops): the weight of the pair of points at distance r (r = 1 ..
 * accuracy/2) and, for second derivatives, of the centre (r = 0), without
 * the 1/h^n.  The sixth-order row is the solver's own table above. */
AC_INLINE double central_coefficient(int derivative, int accuracy, int r)
{
    if (derivative == 1) {
        switch (accuracy) {
        case 2: return r == 1 ? 0.5 : 0.0;
        case 4: return r == 1 ? 2.0 / 3.0 : r == 2 ? -1.0 / 12.0 : 0.0;
        case 6: return r == 1 ? AC_D1_C1 / AC_D1_DENOM : r == 2 ? AC_D1_C2 / AC_D1_DENOM : r == 3 ? AC_D1_C3 / AC_D1_DENOM : 0.0;
        case 8: return r == 1 ? 4.0 / 5.0 : r == 2 ? -1.0 / 5.0 : r == 3 ? 4.0 / 105.0 : r == 4 ? -1.0 / 280.0 : 0.0;
        }
    } else if (derivative == 2) {
        switch (accuracy) {
        case 2: return r == 0 ? -2.0 : r == 1 ? 1.0 : 0.0;
        case 4: return r == 0 ? -5.0 / 2.0 : r == 1 ? 4.0 / 3.0 : r == 2 ? -1.0 / 12.0 : 0.0;
        case 6: return r == 0 ? AC_D2_C0 / AC_D2_DENOM : r == 1 ? AC_D2_C1 / AC_D2_DENOM : r == 2 ? AC_D2_C2 / AC_D2_DENOM
                                                                             : r == 3 ? AC_D2_C3 / AC_D2_DENOM : 0.0;
        case 8: return r == 0 ? -205.0 / 72.0 : r == 1 ? 8.0 / 5.0 : r == 2 ? -1.0 / 5.0 : r == 3 ? 8.0 / 315.0
                                                                                       : r == 4 ? -1.0 / 560.0 : 0.0;
        }
    }
    return 0.0;
}

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

/* The parameters of a grid of spacing `spacing`, in the working precision. */
AC_INLINE ac_point_params make_point_params(const double spacing[3], double nu, double cs)
{
    ac_point_params p;
    for (int a = 0; a < 3; ++a)
        p.inv_ds[a] = (real)(1.0 / spacing[a]);
    p.nu = (real)nu;
    p.cs2 = (real)(cs * cs);
    return p;
}

/* The stencils of eqs. (6)-(8) from the values they combine, so that a
 * kernel holding the values in registers or shared memory uses the same
 * arithmetic as the pointer forms below.  d_r = f(+r) - f(-r) and
 * s_r = f(+r) + f(-r) for the points at distance r along the axis; the
 * scale is first_scale(1/dx) etc., which a kernel may compute once. */
AC_INLINE real first_scale(real inv_d)
{
    return inv_d / (real)AC_D1_DENOM;
}

AC_INLINE real second_scale(real inv_d)
{
    return inv_d * inv_d / (real)AC_D2_DENOM;
}

AC_INLINE real mixed_scale(real inv_da, real inv_db)
{
    return inv_da * inv_db / (real)AC_DXY_DENOM;
}

AC_INLINE real first_from_differences(real d1, real d2, real d3, real scale)
{
    return ((real)AC_D1_C1 * d1 + (real)AC_D1_C2 * d2 + (real)AC_D1_C3 * d3) * scale;
}

AC_INLINE real second_from_sums(real f0, real s1, real s2, real s3, real scale)
{
    return ((real)AC_D2_C0 * f0 + (real)AC_D2_C1 * s1 + (real)AC_D2_C2 * s2 + (real)AC_D2_C3 * s3) * scale;
}

/* Eq. (8): e_r = f(+r p) - f(-r m) + f(-r p) - f(+r m) along the diagonals
 * p = a + b and m = a - b.  A kernel that streams planes along b may sum the
 * weighted differences plane by plane instead (mixed_plane_weight). */
AC_INLINE real mixed_from_diagonals(real e1, real e2, real e3, real scale)
{
    return ((real)AC_DXY_C1 * e1 + (real)AC_DXY_C2 * e2 + (real)AC_DXY_C3 * e3) * scale;
}

/* Eq. (8) regrouped by planes of b: d_a d_b f at plane q is
 * mixed_scale * sum_r w_r [D_r(q + r) - D_r(q - r)], D_r(plane) = f(a + r) -
 * f(a - r) within that plane, w_r the weight below. */
AC_INLINE real mixed_plane_weight(int r)
{
    return r == 1 ? (real)AC_DXY_C1 : r == 2 ? (real)AC_DXY_C2 : (real)AC_DXY_C3;
}

/* First derivative along a stride, eq. (6). */
AC_INLINE real first_derivative(const real *f, ptrdiff_t s, real inv_d)
{
    return first_from_differences(AC_LOAD(f + s) - AC_LOAD(f - s), AC_LOAD(f + 2 * s) - AC_LOAD(f - 2 * s),
                                  AC_LOAD(f + 3 * s) - AC_LOAD(f - 3 * s), first_scale(inv_d));
}

/* Second derivative along a stride, eq. (7). */
AC_INLINE real second_derivative(const real *f, ptrdiff_t s, real inv_d)
{
    return second_from_sums(AC_LOAD(f), AC_LOAD(f + s) + AC_LOAD(f - s), AC_LOAD(f + 2 * s) + AC_LOAD(f - 2 * s),
                            AC_LOAD(f + 3 * s) + AC_LOAD(f - 3 * s), second_scale(inv_d));
}

/* Mixed derivative d^2 f / (da db) by the bidiagonal scheme, eq. (8). */
AC_INLINE real mixed_derivative(const real *f, ptrdiff_t sa, ptrdiff_t sb, real inv_da, real inv_db)
{
    const ptrdiff_t p = sa + sb, m = sa - sb; /* the two diagonals */
    return mixed_from_diagonals(AC_LOAD(f + p) - AC_LOAD(f - m) + AC_LOAD(f - p) - AC_LOAD(f + m),
                                AC_LOAD(f + 2 * p) - AC_LOAD(f - 2 * m) + AC_LOAD(f - 2 * p) - AC_LOAD(f + 2 * m),
                                AC_LOAD(f + 3 * p) - AC_LOAD(f - 3 * m) + AC_LOAD(f - 3 * p) - AC_LOAD(f + 3 * m),
                                mixed_scale(inv_da, inv_db));
}

/* The four fields at one point: pointers to lnrho, ux, uy, uz there. */
typedef struct {
    const real *lnrho;
    const real *u[3];
} ac_point_fields;

/* Everything the right-hand side needs at one point. */
typedef struct {
    real u[3];
    real grad_lnrho[3];
    real grad_u[3][3]; /* grad_u[i][j] = d_j u_i */
    real lap_u[3];
    real grad_div_u[3]; /* d_i (div u): 55-point or 19-point form, or 0 in the 19-point first pass */
} ac_derivatives;

/* All of ac_derivatives but grad_div_u at one point: the 19-point stencil. */
AC_INLINE void axis_derivatives(ac_point_fields f, const ptrdiff_t stride[3], const ac_point_params *p,
                                ac_derivatives *d)
{
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        d->grad_lnrho[j] = first_derivative(f.lnrho, stride[j], p->inv_ds[j]);
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        d->u[i] = AC_LOAD(f.u[i]);
        d->lap_u[i] = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            d->grad_u[i][j] = first_derivative(f.u[i], stride[j], p->inv_ds[j]);
            d->lap_u[i] += second_derivative(f.u[i], stride[j], p->inv_ds[j]);
        }
    }
}

/* One off-diagonal term of d_i (div u) = sum_j d_i d_j u_j: the mixed
 * derivative d_i d_j u_j (j != i) of eq. (8); u_j points at the point. */
AC_INLINE real grad_div_mixed_term(const real *u_j, const ptrdiff_t stride[3], const ac_point_params *p, int i, int j)
{
    return mixed_derivative(u_j, stride[i], stride[j], p->inv_ds[i], p->inv_ds[j]);
}

/* d_i (div u) as the first derivative of a stored div u field: the 19-point
 * method's second pass (seed Appendix A, eqs. 17-18). */
AC_INLINE real grad_div_19p(const real *div_u, const ptrdiff_t stride[3], const ac_point_params *p, int i)
{
    return first_derivative(div_u, stride[i], p->inv_ds[i]);
}

AC_INLINE real divergence(const ac_derivatives *d)
{
    return d->grad_u[0][0] + d->grad_u[1][1] + d->grad_u[2][2];
}

/* 1/3 as a constant factor: a multiplication where x / 3 would be a
 * division (several times slower on both the CPU and the GPU). */
#define AC_THIRD ((real)(1.0 / 3.0))

/* Right-hand sides of eqs. (1) and (2) (no forcing) from the derivatives:
 * d lnrho/dt to rhs[0], du_i/dt to rhs[1 + i]. */
AC_INLINE void rhs_from_derivatives(const ac_derivatives *d, const ac_point_params *p, real rhs[4])
{
    const real div_u = divergence(d);

    /* eq. (1): d lnrho/dt = -u.grad lnrho - div u */
    rhs[0] = -(d->u[0] * d->grad_lnrho[0] + d->u[1] * d->grad_lnrho[1] + d->u[2] * d->grad_lnrho[2]) - div_u;

    /* eq. (2) with the traceless rate of strain S of eq. (3), as
     * 2 S.grad lnrho = sum_j (d_j u_i + d_i u_j) d_j lnrho - (2/3) div u d_i lnrho */
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        const real advection = d->u[0] * d->grad_u[i][0] + d->u[1] * d->grad_u[i][1] + d->u[2] * d->grad_u[i][2];
        real two_strain_dot_grad_lnrho = (real)(-2.0 / 3.0) * div_u * d->grad_lnrho[i];
        AC_UNROLL
        for (int j = 0; j < 3; ++j)
            two_strain_dot_grad_lnrho += (d->grad_u[i][j] + d->grad_u[j][i]) * d->grad_lnrho[j];
        rhs[1 + i] = -advection - p->cs2 * d->grad_lnrho[i] +
                     p->nu * (d->lap_u[i] + d->grad_div_u[i] * AC_THIRD + two_strain_dot_grad_lnrho);
    }
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
    const real increment = dt * nu * AC_THIRD * grad_div;
    *w += increment;
    *u_out += rk3_beta(substep) * increment;
}

/* ---- magnetohydrodynamics (DESIGN 7): the vector potential A -----------
 * Fields lnrho, u, A (seven); B = curl A + b_ext, J = (grad div A - lap A)
 * / mu0; the induction equation in the resistive gauge. */
enum { AC_MHD_FIELDS = 7 };

typedef struct {
    real eta;      /* magnetic diffusivity */
    real inv_mu0;  /* 1 / mu0 */
    real b_ext[3]; /* the imposed uniform field */
} ac_mhd_params;

AC_INLINE ac_mhd_params make_mhd_params(double eta, double mu0, const double b_ext[3])
{
    ac_mhd_params q;
    q.eta = (real)eta;
    q.inv_mu0 = (real)(1.0 / mu0);
    for (int a = 0; a < 3; ++a)
        q.b_ext[a] = (real)b_ext[a];
    return q;
}

/* The stencils of A at a point (the same as u's, eqs. 6-8). */
typedef struct {
    real lnrho;          /* the value: J x B / rho needs rho itself */
    real grad_a[3][3];   /* grad_a[i][j] = d_j A_i */
    real lap_a[3];
    real grad_div_a[3];
} ac_magnetic_derivatives;

/* First and second derivatives of a vector field v (u or A) at a point:
 * grad[i][j] = d_j v_i, lap v, and grad div v with eq. (8)'s mixed terms. */
AC_INLINE void vector_derivatives(const real *const v[3], const ptrdiff_t stride[3], const ac_point_params *p,
                                  real grad[3][3], real lap[3], real grad_div[3])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        lap[i] = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            const real second = second_derivative(v[i], stride[j], p->inv_ds[j]);
            grad[i][j] = first_derivative(v[i], stride[j], p->inv_ds[j]);
            lap[i] += second;
            if (i == j)
                grad_div[i] = second;
        }
    }
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        AC_UNROLL
        for (int j = 0; j < 3; ++j)
            if (j != i)
                grad_div[i] += mixed_derivative(v[j], stride[i], stride[j], p->inv_ds[i], p->inv_ds[j]);
}

AC_INLINE real ac_exp(real x)
{
    return sizeof(real) == sizeof(float) ? (real)expf((float)x) : (real)exp((double)x);
}

/* B = curl A + b_ext. */
AC_INLINE void magnetic_field(const ac_magnetic_derivatives *m, const ac_mhd_params *q, real b[3])
{
    b[0] = m->grad_a[2][1] - m->grad_a[1][2] + q->b_ext[0];
    b[1] = m->grad_a[0][2] - m->grad_a[2][0] + q->b_ext[1];
    b[2] = m->grad_a[1][0] - m->grad_a[0][1] + q->b_ext[2];
}

/* The seven right-hand sides: the hydrodynamic ones (eqs. 1-2) plus the
 * Lorentz force J x B / rho, and dA/dt = u x B + eta lap A. */
AC_INLINE void rhs_mhd_from_derivatives(const ac_derivatives *d, const ac_magnetic_derivatives *m,
                                        const ac_point_params *p, const ac_mhd_params *q, real rhs[AC_MHD_FIELDS])
{
    rhs_from_derivatives(d, p, rhs);
    real b[3], j[3];
    magnetic_field(m, q, b);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        j[i] = (m->grad_div_a[i] - m->lap_a[i]) * q->inv_mu0;
    const real inv_rho = ac_exp(-m->lnrho);
    const real j_cross_b[3] = {j[1] * b[2] - j[2] * b[1], j[2] * b[0] - j[0] * b[2], j[0] * b[1] - j[1] * b[0]};
    const real u_cross_b[3] = {d->u[1] * b[2] - d->u[2] * b[1], d->u[2] * b[0] - d->u[0] * b[2],
                               d->u[0] * b[1] - d->u[1] * b[0]};
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        rhs[1 + i] += j_cross_b[i] * inv_rho;
        rhs[4 + i] = u_cross_b[i] + q->eta * m->lap_a[i];
    }
}

/* ---- hyperdiffusion (DESIGN 9): nu_hyper3 del6 u, diff_hyper3 del6 lnrho */
typedef struct {
    real nu_hyper3, diff_hyper3;
} ac_hyper_params;

AC_INLINE ac_hyper_params make_hyper_params(double nu_hyper3, double diff_hyper3)
{
    ac_hyper_params h;
    h.nu_hyper3 = (real)nu_hyper3;
    h.diff_hyper3 = (real)diff_hyper3;
    return h;
}

/* d^6 f / dx^6 by the 7-point stencil (f3 - 6 f2 + 15 f1 - 20 f0 + 15 f-1 - 6 f-2 + f-3) / dx^6,
 * from the sums s_k = f_k + f_-k and scale = 1 / dx^6 (sixth_scale). */
AC_INLINE real sixth_scale(real inv_d)
{
    const real inv_d3 = inv_d * inv_d * inv_d;
    return inv_d3 * inv_d3;
}

AC_INLINE real sixth_from_sums(real f0, real s1, real s2, real s3, real scale)
{
    return (s3 - (real)6 * s2 + (real)15 * s1 - (real)20 * f0) * scale;
}

AC_INLINE real sixth_derivative(const real *f, ptrdiff_t s, real inv_d)
{
    return sixth_from_sums(AC_LOAD(f), AC_LOAD(f + s) + AC_LOAD(f - s), AC_LOAD(f + 2 * s) + AC_LOAD(f - 2 * s),
                           AC_LOAD(f + 3 * s) + AC_LOAD(f - 3 * s), sixth_scale(inv_d));
}

/* del6 f = d6f/dx6 + d6f/dy6 + d6f/dz6. */
AC_INLINE real del6(const real *f, const ptrdiff_t stride[3], const ac_point_params *p)
{
    return sixth_derivative(f, stride[0], p->inv_ds[0]) + sixth_derivative(f, stride[1], p->inv_ds[1]) +
           sixth_derivative(f, stride[2], p->inv_ds[2]);
}

/* The hyperdiffusive terms added to the right-hand sides of lnrho and u. */
AC_INLINE void add_hyperdiffusion(const real *lnrho, const real *const u[3], const ptrdiff_t stride[3],
                                  const ac_point_params *p, const ac_hyper_params *h, real *rhs)
{
    if (h->diff_hyper3 != 0)
        rhs[0] += h->diff_hyper3 * del6(lnrho, stride, p);
    if (h->nu_hyper3 != 0)
        for (int i = 0; i < 3; ++i)
            rhs[1 + i] += h->nu_hyper3 * del6(u[i], stride, p);
}

/* ---- shock viscosity (DESIGN 9, the Pencil Code's 'nu-shock') ----------
 * zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]]: the compression, its
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

/* du/dt += zeta (div u grad lnrho + grad div u) + div u grad zeta. */
AC_INLINE void add_shock_viscosity(const ac_derivatives *d, real zeta, const real grad_zeta[3], real *rhs)
{
    const real div_u = d->grad_u[0][0] + d->grad_u[1][1] + d->grad_u[2][2];
    for (int i = 0; i < 3; ++i)
        rhs[1 + i] += zeta * (div_u * d->grad_lnrho[i] + d->grad_div_u[i]) + div_u * grad_zeta[i];
}

/* |u| + sqrt(cs^2 + |B|^2 / (mu0 rho)): the fastest signal at a point (the
 * fast magnetosonic speed carried by the flow), for the CFL step. */
AC_INLINE double fast_signal_speed(const real u[3], const real b[3], real lnrho, const ac_point_params *p,
                                   const ac_mhd_params *q)
{
    const double u2 = (double)u[0] * u[0] + (double)u[1] * u[1] + (double)u[2] * u[2];
    const double b2 = (double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2];
    return sqrt(u2) + sqrt((double)p->cs2 + b2 * (double)q->inv_mu0 * exp(-(double)lnrho));
}

#endif /* ASTAROTH_PHYSICS_H */
