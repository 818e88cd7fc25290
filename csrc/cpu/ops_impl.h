/*
 * ops_impl.h -- periodic finite-difference derivatives of plain arrays (the
 * analysis operators of astaroth.ops), for one precision; included by
 * ops_f32.c and ops_f64.c.  Weights: central_coefficient() of physics.h.
 */
#include <stddef.h>

#include "../physics.h"

/* out = d^derivative f / dx^derivative along the middle axis of a C-ordered
 * (outer, n, inner) array, periodic in that axis, spacing h. */
void AC_FN(periodic_derivative)(const void *in_, void *out_, ptrdiff_t outer, ptrdiff_t n, ptrdiff_t inner,
                                int derivative, int accuracy, double h)
{
    const real *in = (const real *)in_;
    real *out = (real *)out_;
    const int radius = accuracy / 2;
    real c[5];
    const double scale = derivative == 1 ? 1.0 / h : 1.0 / (h * h);
    for (int r = 0; r <= radius; ++r)
        c[r] = (real)(central_coefficient(derivative, accuracy, r) * scale);
    const real sign = derivative == 1 ? (real)-1 : (real)1; /* odd or even stencil */
#pragma omp parallel for collapse(2) schedule(static)
    for (ptrdiff_t o = 0; o < outer; ++o)
        for (ptrdiff_t i = 0; i < n; ++i) {
            real *dst = out + (o * n + i) * inner;
            const real *centre = in + (o * n + i) * inner;
            for (ptrdiff_t q = 0; q < inner; ++q)
                dst[q] = derivative == 2 ? c[0] * centre[q] : (real)0;
            for (int r = 1; r <= radius; ++r) {
                const real *plus = in + (o * n + (i + r) % n) * inner;
                const real *minus = in + (o * n + ((i - r) % n + n) % n) * inner;
                for (ptrdiff_t q = 0; q < inner; ++q)
                    dst[q] += c[r] * (plus[q] + sign * minus[q]);
            }
        }
}
