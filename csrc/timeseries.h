/*
 * timeseries.h -- the reductions behind a time-series row (astaroth/diagnostics.py
 * turns them into its columns): means over the grid and extrema of the fields
 * and of what the solver's sixth-order derivatives give of them, the
 * vorticity, div u, B = curl A + b_ext, J = (grad div A - lap A) / mu0 and
 * the ideal gas's temperature (eos/eos.h), and the volume means of the
 * energies (the wall points at half weight on wall axes, the Pencil Code's
 * dVol in src/grid.f90), every one in double whatever the fields'
 * precision.  Precision-free: the point function is timeseries_point.h,
 * included once per storage precision (timeseries_points.h) by each
 * backend (cpu/timeseries.c, cuda/timeseries.cu).
 *
 * First derivatives are those of the analysis functions
 * (astaroth/analysis.py, astaroth/ops.py): central, from the ghost zones,
 * on periodic axes; on a wall axis one-sided on the seven points nearest
 * each wall for the three points next to it (ops.derivative(walls=True)).
 * J takes second and mixed derivatives from the ghost zones, the analysis
 * functions' on periodic grids only: with walls they take J as the curl of
 * B instead, and in a shearing box every derivative from the shearing
 * images, and a row takes those columns from them (diagnostics.py); a grid
 * split over ranks takes every column from them.
 */
#ifndef ASTAROTH_TIMESERIES_H
#define ASTAROTH_TIMESERIES_H

#include "physics.h"

/* X(name, module, kind, reach): a value of the row, the module it needs,
 * how it reduces (AC_TS_MEAN: the mean over the grid; AC_TS_VOLUME: the
 * volume mean, sum w f / sum w with the weights w of ac_ts_weight;
 * AC_TS_MAX, AC_TS_MIN), and what it reads: the point (0), first
 * derivatives (1), second derivatives (2: J, not the analysis functions'
 * with walls).  Sums first, then extrema. */
enum { AC_TS_MEAN = 0, AC_TS_VOLUME = 1, AC_TS_MAX = 2, AC_TS_MIN = 3 };
#define AC_TIMESERIES_TABLE(X)                                                                                         \
    X(u2, AC_MODULE_HYDRO, AC_TS_MEAN, 0)            /* |u|^2 */                                                       \
    X(ekin, AC_MODULE_HYDRO, AC_TS_MEAN, 0)          /* rho |u|^2 / 2 */                                               \
    X(rho, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                             \
    X(divu2, AC_MODULE_HYDRO, AC_TS_MEAN, 1)         /* (div u)^2 */                                                   \
    X(w2, AC_MODULE_HYDRO, AC_TS_MEAN, 1)            /* |omega|^2, omega = curl u */                                   \
    X(wu, AC_MODULE_HYDRO, AC_TS_MEAN, 1)            /* omega . u */                                                   \
    X(ux, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                              \
    X(uy, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                              \
    X(uz, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                              \
    X(ux2, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                             \
    X(uy2, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                             \
    X(uz2, AC_MODULE_HYDRO, AC_TS_MEAN, 0)                                                                             \
    X(b2, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)         /* |B|^2, b_ext included */                                       \
    X(j2, AC_MODULE_MAGNETIC, AC_TS_MEAN, 2)         /* |J|^2 */                                                       \
    X(ab, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)         /* A . curl A */                                                  \
    X(bx, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                           \
    X(by, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                           \
    X(bz, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                           \
    X(bx2, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                          \
    X(by2, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                          \
    X(bz2, AC_MODULE_MAGNETIC, AC_TS_MEAN, 1)                                                                          \
    X(TT, AC_MODULE_ENTROPY, AC_TS_MEAN, 0)          /* T = exp(lnTT) */                                               \
    X(ss, AC_MODULE_ENTROPY, AC_TS_MEAN, 0)                                                                            \
    X(eth, AC_MODULE_ENTROPY, AC_TS_MEAN, 0)         /* rho cv T, cv = cp / gamma */                                   \
    X(w, AC_MODULE_HYDRO, AC_TS_MEAN, 0)             /* the volume weight (1 without walls) */                         \
    X(ekin_vol, AC_MODULE_HYDRO, AC_TS_VOLUME, 0)                                                                      \
    X(epot_vol, AC_MODULE_HYDRO, AC_TS_VOLUME, 0)  /* rho Phi, Phi = -g . x */                                         \
    X(b2_vol, AC_MODULE_MAGNETIC, AC_TS_VOLUME, 1)                                                                     \
    X(eth_vol, AC_MODULE_ENTROPY, AC_TS_VOLUME, 0)                                                                     \
    X(u2_max, AC_MODULE_HYDRO, AC_TS_MAX, 0)                                                                           \
    X(w2_max, AC_MODULE_HYDRO, AC_TS_MAX, 1)                                                                           \
    X(lnrho_max, AC_MODULE_HYDRO, AC_TS_MAX, 0)                                                                        \
    X(lnrho_min, AC_MODULE_HYDRO, AC_TS_MIN, 0)                                                                        \
    X(b2_max, AC_MODULE_MAGNETIC, AC_TS_MAX, 1)                                                                        \
    X(j2_max, AC_MODULE_MAGNETIC, AC_TS_MAX, 2)                                                                        \
    X(TT_max, AC_MODULE_ENTROPY, AC_TS_MAX, 0)                                                                         \
    X(TT_min, AC_MODULE_ENTROPY, AC_TS_MIN, 0)                                                                         \
    X(ss_max, AC_MODULE_ENTROPY, AC_TS_MAX, 0)                                                                         \
    X(ss_min, AC_MODULE_ENTROPY, AC_TS_MIN, 0)

/* AC_TS_u2, ...: a value's index in a row; AC_TS_VALUES of them, the
 * first AC_TS_MEANS sums (means and volume means). */
enum {
#define AC_TS_INDEX(name, module, kind, reach) AC_TS_##name,
    AC_TIMESERIES_TABLE(AC_TS_INDEX)
#undef AC_TS_INDEX
        AC_TS_VALUES,
    AC_TS_MEANS = AC_TS_u2_max
};

/* How value v reduces (AC_TS_MEAN, AC_TS_VOLUME, AC_TS_MAX, AC_TS_MIN). */
AC_INLINE int ac_ts_kind(int v)
{
#define AC_TS_KIND(name, module, kind, reach) v == AC_TS_##name ? (int)(kind):
    return AC_TIMESERIES_TABLE(AC_TS_KIND) - 1;
#undef AC_TS_KIND
}

/* The larger of a and b, NaN if either is: a row after a blow-up shows it. */
AC_INLINE double ac_ts_max(double a, double b)
{
    return (b > a || b != b) ? b : a;
}

/* Value q before any point: a sum at 0, an extremum (a minimum kept
 * negated while reducing) at -inf. */
AC_INLINE double ac_ts_identity(int q)
{
    return q < AC_TS_MEANS ? 0.0 : -HUGE_VAL;
}

/* Two partial values of value q (of two parts of the grid) joined: sums
 * added, extrema kept. */
AC_INLINE double ac_ts_join(int q, double a, double b)
{
    return q < AC_TS_MEANS ? a + b : ac_ts_max(a, b);
}

/* A row's values before any point. */
AC_INLINE void ac_ts_start(double v[AC_TS_VALUES])
{
    for (int q = 0; q < AC_TS_VALUES; ++q)
        v[q] = ac_ts_identity(q);
}

/* into joined with from, value by value. */
AC_INLINE void ac_ts_combine(double into[AC_TS_VALUES], const double from[AC_TS_VALUES])
{
    for (int q = 0; q < AC_TS_VALUES; ++q)
        into[q] = ac_ts_join(q, into[q], from[q]);
}

/* The row from the reduced values over `points` points: sums to means and
 * volume means (over the sum of the weights, AC_TS_w's before it becomes
 * their mean), negated minima back. */
AC_INLINE void ac_ts_finish(double v[AC_TS_VALUES], double points)
{
    const double weights = v[AC_TS_w];
    for (int q = 0; q < AC_TS_VALUES; ++q)
        v[q] = ac_ts_kind(q) == AC_TS_MEAN ? v[q] / points : ac_ts_kind(q) == AC_TS_VOLUME ? v[q] / weights
             : ac_ts_kind(q) == AC_TS_MIN  ? -v[q]
                                           : v[q];
}

/* The constants of a row's point function, from the grid. */
typedef struct {
    double first[3];     /* first_scale(1/dx_a) */
    double second[3];    /* second_scale(1/dx_a) */
    double mixed[3][3];  /* mixed_scale(1/dx_a, 1/dx_b) */
    double b_ext[3], inv_mu0, cv;
    double gravity[3];   /* Phi = -g . x */
    double origin[3], spacing[3]; /* a point's coordinates (grid.h's ac_axis_coordinate) */
    int offset[3];
    int n[3], wall_axis[3]; /* the weights of a wall axis: 1/2 at its first and last points */
    /* on a wall axis a, the first derivative at the k-th point (k < 3) from a wall: sum over the seven
     * points j nearest the wall of one_sided[a][k][j] f_j (its sign flipped at the upper wall) */
    double one_sided[3][3][7];
    ac_physics_params p; /* the equation of state's (eos/eos.h), in double */
    unsigned modules;
} ac_timeseries_constants;

/* The weights w_j of sum_j w_j f(x + (j - k) h) = h f'(x) + O(h^7), j = 0 .. 6
 * (ops._stencil_weights: the Taylor conditions sum_j w_j (j - k)^m = [m ==
 * 1], m < 7), by Gaussian elimination with partial pivoting. */
AC_INLINE void ac_ts_one_sided_weights(int k, double w[7])
{
    double m[7][8];
    for (int row = 0; row < 7; ++row) {
        for (int j = 0; j < 7; ++j) {
            double power = 1.0;
            for (int e = 0; e < row; ++e)
                power *= (double)(j - k);
            m[row][j] = power;
        }
        m[row][7] = row == 1 ? 1.0 : 0.0;
    }
    for (int col = 0; col < 7; ++col) {
        int pivot = col;
        for (int row = col + 1; row < 7; ++row)
            if (fabs(m[row][col]) > fabs(m[pivot][col]))
                pivot = row;
        for (int j = 0; j < 8; ++j) {
            const double swap = m[col][j];
            m[col][j] = m[pivot][j];
            m[pivot][j] = swap;
        }
        for (int row = col + 1; row < 7; ++row) {
            const double factor = m[row][col] / m[col][col];
            for (int j = col; j < 8; ++j)
                m[row][j] -= factor * m[col][j];
        }
    }
    for (int row = 6; row >= 0; --row) {
        double x = m[row][7];
        for (int j = row + 1; j < 7; ++j)
            x -= m[row][j] * w[j];
        w[row] = x / m[row][row];
    }
}

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
        c.gravity[a] = g->gravity[a];
        c.origin[a] = g->origin[a];
        c.spacing[a] = g->spacing[a];
        c.offset[a] = g->offset[a];
        c.n[a] = g->n[a];
        c.wall_axis[a] = ac_boundaries_wall_axis(&g->bc, a);
        for (int k = 0; k < 3; ++k) {
            ac_ts_one_sided_weights(k, c.one_sided[a][k]);
            for (int j = 0; j < 7; ++j)
                c.one_sided[a][k][j] /= g->spacing[a];
        }
    }
    c.inv_mu0 = 1.0 / g->mu0;
    c.cv = g->cp / g->gamma;
    c.p = make_physics_params(g);
    c.modules = g->modules;
    return c;
}

/* curl of the vector v from grad[i][j] = d_j v_i. */
AC_INLINE void ac_ts_curl(const double grad[3][3], double curl[3])
{
    curl[0] = grad[2][1] - grad[1][2];
    curl[1] = grad[0][2] - grad[2][0];
    curl[2] = grad[1][0] - grad[0][1];
}

/* The volume weight of interior point ijk[3] (analysis.volume_mean's): 1/2
 * for each wall axis on whose first or last point it lies. */
AC_INLINE double ac_ts_weight(const ac_timeseries_constants *c, const int ijk[3])
{
    double w = 1.0;
    for (int a = 0; a < 3; ++a)
        if (c->wall_axis[a] && (ijk[a] == 0 || ijk[a] == c->n[a] - 1))
            w *= 0.5;
    return w;
}

/* The potential of the uniform gravity at interior point ijk[3], Phi = -g . x
 * (analysis.potential_energy's), summed over the axes whose g is nonzero. */
AC_INLINE double ac_ts_potential(const ac_timeseries_constants *c, const int ijk[3])
{
    double phi = 0.0;
    for (int a = 0; a < 3; ++a)
        if (c->gravity[a] != 0.0)
            phi += -c->gravity[a] * ac_axis_coordinate(c->origin[a], c->offset[a] + ijk[a], c->spacing[a]);
    return phi;
}

#endif
