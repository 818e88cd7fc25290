/*
 * vexp.h -- exp in double and in float as straight-line arithmetic that a
 * loop vectorised across points (cpu/rows_impl.h, pass 2) keeps in its
 * vector registers: no call, no table, no branch.
 *
 * exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 with |r| <= ln 2 / 2
 * (Cody and Waite's reduction: ln 2 split into a head whose product by any n
 * of the range is exact and a tail), exp(r) by its Taylor polynomial in
 * Horner's form, to degree 13 in double (the first term left out,
 * r^14 / 14! < 5e-18, is below half an ulp) and 7 in float (r^8 / 8! < 6e-9);
 * then 2^n as two exact powers of two, so that results that underflow to
 * subnormals or overflow to infinity come out as those (a finite or infinite
 * |x| past 746 (104 in float), where the result is already 0 or infinity, is
 * clamped there first, on its bits and without a branch: a comparison of
 * doubles may trap, and without AVX-512's masks GCC vectorises neither a
 * select on one nor, in pass 2's loop, a select on integers).  n is
 * rounded by adding 1.5 2^52 (1.5 2^23), whose last bits then hold it.  The
 * result is within 0.9 ulp of exp(x) with FMA (-march=native on a machine
 * that has it), 1.2 ulp without (ASTAROTH_PORTABLE=1), measured over 4
 * million arguments per range of each precision against expl; NaN gives
 * NaN.
 *
 * The stored runs of tests/data/bitwise_cpu.npz that take an exp (MHD's
 * 1/rho) were made with this exp.
 */
#ifndef ASTAROTH_CPU_VEXP_H
#define ASTAROTH_CPU_VEXP_H

#include <stdint.h>
#include <string.h>

/* 2^n for an integer n in [-1022, 1023] held in a double, from t = n + 1.5 2^52 */
static inline __attribute__((always_inline)) double ac_pow2_f64(double n)
{
    const double t = n + 0x1.8p52;
    uint64_t bits;
    memcpy(&bits, &t, sizeof bits);
    bits = (bits + 1023u) << 52; /* the low bits of t are n (mod 2^52): its biased exponent */
    double p;
    memcpy(&p, &bits, sizeof p);
    return p;
}

static inline __attribute__((always_inline)) double ac_vexp_f64(double x)
{
    const double ln2_hi = 0x1.62e42fee00000p-1;    /* ln 2 to 32 bits: n ln2_hi is exact for |n| < 2^21 */
    const double ln2_lo = 0x1.a39ef35793c76p-33;   /* ln 2 - ln2_hi */
    int64_t b; /* |x| > 746 (exp(-746) rounds to 0, exp(746) overflows), infinities too, to 746: not NaN */
    memcpy(&b, &x, sizeof b);
    const int64_t magnitude = b & INT64_MAX, limit = 0x4087500000000000; /* 746.0 */
    const int64_t clamp = -(int64_t)((magnitude > limit) & (magnitude <= 0x7ff0000000000000)); /* all ones or 0 */
    b = (b & ~clamp) | (((b & INT64_MIN) | limit) & clamp);
    memcpy(&x, &b, sizeof x);
    const double n = (x * 0x1.71547652b82fep0 + 0x1.8p52) - 0x1.8p52; /* round(x / ln 2) */
    const double r = (x - n * ln2_hi) - n * ln2_lo;
    double q = 1.0 / 6227020800.0; /* 1/13! */
    q = q * r + 1.0 / 479001600.0;
    q = q * r + 1.0 / 39916800.0;
    q = q * r + 1.0 / 3628800.0;
    q = q * r + 1.0 / 362880.0;
    q = q * r + 1.0 / 40320.0;
    q = q * r + 1.0 / 5040.0;
    q = q * r + 1.0 / 720.0;
    q = q * r + 1.0 / 120.0;
    q = q * r + 1.0 / 24.0;
    q = q * r + 1.0 / 6.0;
    q = q * r + 0.5;
    q = q * r + 1.0;
    q = q * r + 1.0;
    /* n in [-1077, 1077]: 2^n as 2^n1 2^n2, each factor normal */
    const double n1 = (n * 0.5 + 0x1.8p52) - 0x1.8p52, n2 = n - n1;
    return q * ac_pow2_f64(n1) * ac_pow2_f64(n2);
}

/* 2^n for an integer n in [-126, 127] held in a float, from t = n + 1.5 2^23 */
static inline __attribute__((always_inline)) float ac_pow2_f32(float n)
{
    const float t = n + 0x1.8p23f;
    uint32_t bits;
    memcpy(&bits, &t, sizeof bits);
    bits = (bits + 127u) << 23;
    float p;
    memcpy(&p, &bits, sizeof p);
    return p;
}

static inline __attribute__((always_inline)) float ac_vexp_f32(float x)
{
    const float ln2_hi = 0x1.62e4p-1f;       /* ln 2 to 15 bits: n ln2_hi is exact for |n| < 2^9 */
    const float ln2_lo = 0x1.7f7d1cp-20f;    /* ln 2 - ln2_hi */
    int32_t b; /* |x| > 104 (expf(-104) rounds to 0, expf(104) overflows) to 104 */
    memcpy(&b, &x, sizeof b);
    const int32_t magnitude = b & INT32_MAX, limit = 0x42d00000; /* 104.0f */
    const int32_t clamp = -(int32_t)((magnitude > limit) & (magnitude <= 0x7f800000));
    b = (b & ~clamp) | (((b & INT32_MIN) | limit) & clamp);
    memcpy(&x, &b, sizeof x);
    const float n = (x * 0x1.715476p0f + 0x1.8p23f) - 0x1.8p23f;
    const float r = (x - n * ln2_hi) - n * ln2_lo;
    float q = 1.0f / 5040.0f;
    q = q * r + 1.0f / 720.0f;
    q = q * r + 1.0f / 120.0f;
    q = q * r + 1.0f / 24.0f;
    q = q * r + 1.0f / 6.0f;
    q = q * r + 0.5f;
    q = q * r + 1.0f;
    q = q * r + 1.0f;
    const float n1 = (n * 0.5f + 0x1.8p23f) - 0x1.8p23f, n2 = n - n1;
    return q * ac_pow2_f32(n1) * ac_pow2_f32(n2);
}

#endif /* ASTAROTH_CPU_VEXP_H */
