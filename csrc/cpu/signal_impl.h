/*
 * signal_impl.h -- the CPU's fastest signal speed of the CFL step
 * (csrc/timestep.h's ac_signal_speed_at) for one precision; included by
 * signal_f32.c and signal_f64.c, which define `real` and AC_FN(name).  Its
 * own files: the reduction runs with vexp.h's exp in double (AC_EXP_DOUBLE_FN
 * for timestep.h's terms, straight-line arithmetic a loop vectorised across
 * points keeps in its registers) and without trapping math, so that GCC
 * vectorises its rows, where libm's exp, called point by point, kept them
 * scalar (benchmarks/results/2026-11-28-cpu-forcing).  Ghost zones are
 * filled by the caller.
 */
#include <math.h>
#include <stddef.h>

/* Every function of the signal speed inlined into the row's loop. */
#define AC_INLINE static inline __attribute__((always_inline))

#include "../grid.h"

#include "vexp.h"
#define AC_EXP_DOUBLE_FN(x) ac_vexp_f64(x)

#include "../physics.h"
#include "kernels.h"

/* max of the signal speed (timestep.h's ac_signal_speed_at) over the
 * interior of grid g with modules M, NaN if not finite; the ghost zones of
 * the fields whose gradients it reads filled.  A function per module set
 * (the macro's M a constant), so that the field indices fold, as the GPU's
 * instances do. */
/* Points of a row whose speeds are found together, then reduced: GCC
 * vectorises the first loop, not one that also takes the maximum. */
enum { AC_SIGNAL_CHUNK = 256 };

#define AC_MAX_SIGNAL_SPEED(M, name)                                                                                   \
    static double AC_FN(name)(const ac_grid *g, const real *const *fields, unsigned terms)                            \
    {                                                                                                                  \
        const ac_physics_params p = make_physics_params(g);                                                            \
        const ac_geometry geo = make_geometry(g);                                                                      \
        ptrdiff_t stride[3];                                                                                           \
        ac_grid_strides(g, stride);                                                                                    \
        double fastest = 0.0;                                                                                          \
        int nonfinite = 0;                                                                                             \
        _Pragma("omp parallel for collapse(2) reduction(max : fastest) reduction(| : nonfinite) schedule(static)")     \
        for (int k = 0; k < g->n[2]; ++k)                                                                              \
            for (int j = 0; j < g->n[1]; ++j) {                                                                        \
                const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);                                            \
                double speed[AC_SIGNAL_CHUNK];                                                                         \
                for (int i0 = 0; i0 < g->n[0]; i0 += AC_SIGNAL_CHUNK) {                                                \
                    const int n = g->n[0] - i0 < AC_SIGNAL_CHUNK ? g->n[0] - i0 : AC_SIGNAL_CHUNK;                     \
                    for (int i = 0; i < n; ++i) /* vectorised: no reduction in it, no select on the terms */           \
                        speed[i] = ac_signal_speed_at((M), ac_signal_terms((M), terms), fields, row + i0 + i, stride,  \
                                                      &geo, &p);                                                       \
                    if (terms & (unsigned)AC_POSITION_SIGNAL_TERMS) /* the shearing box's flow at the point's x */     \
                        for (int i = 0; i < n; ++i)                                                                    \
                            speed[i] += ac_position_speed(g, terms, i0 + i);                                           \
                    for (int i = 0; i < n; ++i) {                                                                      \
                        nonfinite |= !isfinite(speed[i]);                                                              \
                        fastest = speed[i] > fastest ? speed[i] : fastest;                                             \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        return nonfinite ? NAN : fastest;                                                                              \
    }
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO, max_signal_speed_h)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, max_signal_speed_m)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_ENTROPY, max_signal_speed_e)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY, max_signal_speed_me)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_PSCALAR, max_signal_speed_s)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR, max_signal_speed_ms)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR, max_signal_speed_es)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR, max_signal_speed_mes)
#define AC_SCALARS2 (AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2) /* two passive scalars */
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_SCALARS2, max_signal_speed_s2)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_SCALARS2, max_signal_speed_ms2)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_SCALARS2, max_signal_speed_es2)
AC_MAX_SIGNAL_SPEED(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_SCALARS2, max_signal_speed_mes2)
#undef AC_MAX_SIGNAL_SPEED

double AC_FN(max_signal_speed)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS])
{
    const real *const *fields = (const real *const *)fields_;
    const unsigned terms = ac_grid_terms(g);
    switch (ac_grid_modules(g)) {
    case AC_MODULE_HYDRO: return AC_FN(max_signal_speed_h)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_MAGNETIC: return AC_FN(max_signal_speed_m)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_ENTROPY: return AC_FN(max_signal_speed_e)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY: return AC_FN(max_signal_speed_me)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_PSCALAR: return AC_FN(max_signal_speed_s)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR: return AC_FN(max_signal_speed_ms)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR: return AC_FN(max_signal_speed_es)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR:
        return AC_FN(max_signal_speed_mes)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_SCALARS2: return AC_FN(max_signal_speed_s2)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_SCALARS2: return AC_FN(max_signal_speed_ms2)(g, fields, terms);
    case AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_SCALARS2: return AC_FN(max_signal_speed_es2)(g, fields, terms);
    default: return AC_FN(max_signal_speed_mes2)(g, fields, terms);
    }
}
#undef AC_SCALARS2
