/*
 * stencils.h -- the finite-difference stencils of astaroth, written once:
 * the sixth-order first, second and mixed derivatives of eqs. (6)-(8) of
 * Pekkila et al. (2017), the 7-point sixth derivative of hyperdiffusion,
 * and the coefficient table of the analysis operators.  `static inline`,
 * C99 and CUDA device code; the includer defines `real` (float or double)
 * first.  The terms (csrc/terms/) combine these derivatives; nothing here
 * knows a physical equation.
 *
 * Each stencil comes in two forms: "from" the differences or sums of the
 * values it combines (for a kernel that holds them in registers, shared
 * memory or row-long arrays), and through a pointer and a stride (global
 * memory, a padded host array).  Both do the same arithmetic.
 */
#ifndef ASTAROTH_STENCILS_H
#define ASTAROTH_STENCILS_H

#include <math.h>
#include <stddef.h>

#ifndef real
#error "define `real` (float or double) before including stencils.h"
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
#ifndef AC_INLINE /* cpu/rows_impl.h asks for always_inline */
#define AC_INLINE static inline
#endif
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

/* Eq. (6) without its scale: a kernel may keep this sum and scale it where
 * the derivative is used (first_from_differences = first_sum * scale). */
AC_INLINE real first_sum(real d1, real d2, real d3)
{
    return (real)AC_D1_C1 * d1 + (real)AC_D1_C2 * d2 + (real)AC_D1_C3 * d3;
}

AC_INLINE real first_from_differences(real d1, real d2, real d3, real scale)
{
    return first_sum(d1, d2, d3) * scale;
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

/* first_sum along a stride: first_derivative = first_sum_at * first_scale. */
AC_INLINE real first_sum_at(const real *f, ptrdiff_t s)
{
    return first_sum(AC_LOAD(f + s) - AC_LOAD(f - s), AC_LOAD(f + 2 * s) - AC_LOAD(f - 2 * s),
                     AC_LOAD(f + 3 * s) - AC_LOAD(f - 3 * s));
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
AC_INLINE real del6_at(const real *f, const ptrdiff_t stride[3], const real inv_ds[3])
{
    return sixth_derivative(f, stride[0], inv_ds[0]) + sixth_derivative(f, stride[1], inv_ds[1]) +
           sixth_derivative(f, stride[2], inv_ds[2]);
}


/* exp in the working precision.  AC_EXP_FN: the same exp with vector
 * variants, for a CPU loop vectorised across points (cpu/rows_impl.h). */
AC_INLINE real ac_exp(real x)
{
#if defined(AC_EXP_FN)
    return AC_EXP_FN(x);
#else
    return sizeof(real) == sizeof(float) ? (real)expf((float)x) : (real)exp((double)x);
#endif
}

/* exp in double, for the signal speed's terms (timestep.h: cs^2 and |B|^2 /
 * rho in double, which may overflow the working precision).
 * AC_EXP_DOUBLE_FN: the same exp with vector variants (cpu/signal_impl.h). */
AC_INLINE double ac_exp_double(double x)
{
#if defined(AC_EXP_DOUBLE_FN)
    return AC_EXP_DOUBLE_FN(x);
#else
    return exp(x);
#endif
}

/* a - b rounded on its own, never fused with a product that feeds it.
 * Where a and b are derivatives (sums times their scale), the GPU's
 * assembler may fuse one scaling into the subtraction as a multiply-add in
 * one kernel and not in another, so that two kernels of one build (an
 * ensemble member's substep and its solo run's) would find B = curl A an
 * ulp apart (benchmarks/results/2026-11-28-gpu-forced-instances);
 * __fsub_rn and __dsub_rn are never fused. */
AC_INLINE real ac_sub_unfused(real a, real b)
{
#if defined(__CUDA_ARCH__)
    return sizeof(real) == sizeof(float) ? (real)__fsub_rn((float)a, (float)b) : (real)__dsub_rn((double)a, (double)b);
#else
    return a - b;
#endif
}

/* 1/3 as a constant factor: a multiplication where x / 3 would be a
 * division (several times slower on both the CPU and the GPU). */
#define AC_THIRD ((real)(1.0 / 3.0))

#endif /* ASTAROTH_STENCILS_H */
