/*
 * timeseries.h -- the reductions behind a time-series row (astaroth/diagnostics.py
 * turns them into its columns): means over the grid and extrema of the fields
 * and of what the solver's sixth-order derivatives give of them, the
 * vorticity, div u, B = curl A + b_ext, J = (grad div A - lap A) / mu0 and
 * the ideal gas's temperature (eos/eos.h), every one in double whatever the
 * fields' precision.  Precision-free: the point function is
 * timeseries_point.h, included once per storage precision by each backend
 * (cpu/timeseries.c, cuda/timeseries.cu), which defines `real` as double.
 *
 * The derivatives read the ghost zones, which the backend fills first; they
 * are the solver's on periodic axes.  A grid with walls, shear or gravity,
 * or one split over ranks, takes its row from the analysis functions
 * instead (astaroth/analysis.py: one-sided stencils at walls, the shearing
 * images, volume means with the walls at half weight).
 */
#ifndef ASTAROTH_TIMESERIES_H
#define ASTAROTH_TIMESERIES_H

#include "physics.h"

/* X(name, module, kind): a value of the row, the module it needs, and how
 * it reduces: AC_TS_MEAN (the mean over the grid), AC_TS_MAX, AC_TS_MIN.
 * Means first, then extrema. */
enum { AC_TS_MEAN = 0, AC_TS_MAX = 1, AC_TS_MIN = 2 };
#define AC_TIMESERIES_TABLE(X)                                                                                         \
    X(u2, AC_MODULE_HYDRO, AC_TS_MEAN)            /* |u|^2 */                                                          \
    X(ekin, AC_MODULE_HYDRO, AC_TS_MEAN)          /* rho |u|^2 / 2 */                                                  \
    X(rho, AC_MODULE_HYDRO, AC_TS_MEAN)                                                                                \
    X(divu2, AC_MODULE_HYDRO, AC_TS_MEAN)         /* (div u)^2 */                                                      \
    X(w2, AC_MODULE_HYDRO, AC_TS_MEAN)            /* |omega|^2, omega = curl u */                                      \
    X(wu, AC_MODULE_HYDRO, AC_TS_MEAN)            /* omega . u */                                                      \
    X(ux, AC_MODULE_HYDRO, AC_TS_MEAN) X(uy, AC_MODULE_HYDRO, AC_TS_MEAN) X(uz, AC_MODULE_HYDRO, AC_TS_MEAN)           \
    X(ux2, AC_MODULE_HYDRO, AC_TS_MEAN) X(uy2, AC_MODULE_HYDRO, AC_TS_MEAN) X(uz2, AC_MODULE_HYDRO, AC_TS_MEAN)        \
    X(b2, AC_MODULE_MAGNETIC, AC_TS_MEAN)         /* |B|^2, b_ext included */                                          \
    X(j2, AC_MODULE_MAGNETIC, AC_TS_MEAN)         /* |J|^2 */                                                          \
    X(ab, AC_MODULE_MAGNETIC, AC_TS_MEAN)         /* A . curl A */                                                     \
    X(bx, AC_MODULE_MAGNETIC, AC_TS_MEAN) X(by, AC_MODULE_MAGNETIC, AC_TS_MEAN) X(bz, AC_MODULE_MAGNETIC, AC_TS_MEAN)  \
    X(bx2, AC_MODULE_MAGNETIC, AC_TS_MEAN) X(by2, AC_MODULE_MAGNETIC, AC_TS_MEAN)                                     \
    X(bz2, AC_MODULE_MAGNETIC, AC_TS_MEAN)                                                                             \
    X(TT, AC_MODULE_ENTROPY, AC_TS_MEAN)          /* T = exp(lnTT) */                                                  \
    X(ss, AC_MODULE_ENTROPY, AC_TS_MEAN)                                                                               \
    X(eth, AC_MODULE_ENTROPY, AC_TS_MEAN)         /* rho cv T, cv = cp / gamma */                                      \
    X(u2_max, AC_MODULE_HYDRO, AC_TS_MAX) X(w2_max, AC_MODULE_HYDRO, AC_TS_MAX)                                       \
    X(lnrho_max, AC_MODULE_HYDRO, AC_TS_MAX) X(lnrho_min, AC_MODULE_HYDRO, AC_TS_MIN)                                 \
    X(b2_max, AC_MODULE_MAGNETIC, AC_TS_MAX) X(j2_max, AC_MODULE_MAGNETIC, AC_TS_MAX)                                 \
    X(TT_max, AC_MODULE_ENTROPY, AC_TS_MAX) X(TT_min, AC_MODULE_ENTROPY, AC_TS_MIN)                                   \
    X(ss_max, AC_MODULE_ENTROPY, AC_TS_MAX) X(ss_min, AC_MODULE_ENTROPY, AC_TS_MIN)

/* AC_TS_u2, ...: a value's index in a row; AC_TS_VALUES of them, the
 * first AC_TS_MEANS means. */
enum {
#define AC_TS_INDEX(name, module, kind) AC_TS_##name,
    AC_TIMESERIES_TABLE(AC_TS_INDEX)
#undef AC_TS_INDEX
        AC_TS_VALUES,
    AC_TS_MEANS = AC_TS_u2_max
};

/* How value v reduces (AC_TS_MEAN, AC_TS_MAX, AC_TS_MIN). */
AC_INLINE int ac_ts_kind(int v)
{
#define AC_TS_KIND(name, module, kind) v == AC_TS_##name ? (int)(kind):
    return AC_TIMESERIES_TABLE(AC_TS_KIND) - 1;
#undef AC_TS_KIND
}

/* The larger of a and b, NaN if either is: a row after a blow-up shows it. */
AC_INLINE double ac_ts_max(double a, double b)
{
    return (b > a || b != b) ? b : a;
}

/* A row's values before any point: sums at 0, extrema (minima kept negated
 * while reducing) at -inf. */
AC_INLINE void ac_ts_start(double v[AC_TS_VALUES])
{
    for (int q = 0; q < AC_TS_VALUES; ++q)
        v[q] = q < AC_TS_MEANS ? 0.0 : -HUGE_VAL;
}

/* into += from, value by value (partial rows of two parts of the grid). */
AC_INLINE void ac_ts_combine(double into[AC_TS_VALUES], const double from[AC_TS_VALUES])
{
    for (int q = 0; q < AC_TS_VALUES; ++q)
        into[q] = q < AC_TS_MEANS ? into[q] + from[q] : ac_ts_max(into[q], from[q]);
}

/* The row from the reduced values over `points` points: sums to means,
 * negated minima back. */
AC_INLINE void ac_ts_finish(double v[AC_TS_VALUES], double points)
{
    for (int q = 0; q < AC_TS_VALUES; ++q)
        v[q] = q < AC_TS_MEANS ? v[q] / points : ac_ts_kind(q) == AC_TS_MIN ? -v[q] : v[q];
}

/* The constants of a row's point function, from the grid. */
typedef struct {
    double first[3];     /* first_scale(1/dx_a) */
    double second[3];    /* second_scale(1/dx_a) */
    double mixed[3][3];  /* mixed_scale(1/dx_a, 1/dx_b) */
    double b_ext[3], inv_mu0, cv;
    ac_physics_params p; /* the equation of state's (eos/eos.h), in double */
    unsigned modules;
} ac_timeseries_constants;

AC_INLINE ac_timeseries_constants ac_timeseries_constants_of(const ac_grid *g)
{
    ac_timeseries_constants c;
    for (int a = 0; a < 3; ++a) {
        const double inv = 1.0 / g->spacing[a];
        c.first[a] = first_scale(inv);
        c.second[a] = second_scale(inv);
        for (int b = 0; b < 3; ++b)
            c.mixed[a][b] = mixed_scale(inv, 1.0 / g->spacing[b]);
        c.b_ext[a] = g->b_ext[a];
    }
    c.inv_mu0 = 1.0 / g->mu0;
    c.cv = g->cp / g->gamma;
    c.p = make_physics_params(g);
    c.modules = g->modules;
    return c;
}

#endif
