/*
 * kernels_impl.h -- the CPU loops over the grid, for one precision.
 *
 * Included once by kernels_f32.c and once by kernels_f64.c, each of which
 * defines `real` and AC_FN(name) (the precision suffix) first.  The loops
 * only move data: all arithmetic comes from ../physics.h.
 */
#include <math.h>
#include <string.h>

#include "../grid.h"
#include "../physics.h"
#include "kernels.h"

static ac_point_params AC_FN(point_params)(const ac_grid *g)
{
    ac_point_params p;
    for (int a = 0; a < 3; ++a)
        p.inv_ds[a] = (real)(1.0 / g->spacing[a]);
    p.nu = (real)g->nu;
    p.cs2 = (real)(g->cs * g->cs);
    return p;
}

/* Periodic ghost zones, one axis after the other so that edges and corners
 * (read by the 55-point mixed derivatives) are filled too. */
void AC_FN(fill_ghost_zones)(const ac_grid *g, void *field)
{
    real *f = (real *)field;
    const int mx = g->m[0], my = g->m[1], mz = g->m[2];
    const ptrdiff_t sy = mx, sz = (ptrdiff_t)mx * my;
#pragma omp parallel for schedule(static)
    for (int k = AC_GHOST; k < mz - AC_GHOST; ++k)
        for (int j = AC_GHOST; j < my - AC_GHOST; ++j) {
            real *row = f + j * sy + k * sz;
            for (int g0 = 0; g0 < AC_GHOST; ++g0) {
                row[g0] = row[ac_periodic_source(g0, g->n[0])];
                row[mx - 1 - g0] = row[ac_periodic_source(mx - 1 - g0, g->n[0])];
            }
        }
#pragma omp parallel for schedule(static)
    for (int k = AC_GHOST; k < mz - AC_GHOST; ++k)
        for (int jg = 0; jg < 2 * AC_GHOST; ++jg) {
            const int j = jg < AC_GHOST ? jg : my - 2 * AC_GHOST + jg;
            memcpy(f + j * sy + k * sz, f + ac_periodic_source(j, g->n[1]) * sy + k * sz, sizeof(real) * mx);
        }
#pragma omp parallel for schedule(static)
    for (int kg = 0; kg < 2 * AC_GHOST; ++kg) {
        const int k = kg < AC_GHOST ? kg : mz - 2 * AC_GHOST + kg;
        memcpy(f + k * sz, f + ac_periodic_source(k, g->n[2]) * sz, sizeof(real) * sz);
    }
}

static ac_point_fields AC_FN(fields_at)(real *const fields[AC_NUM_FIELDS], ptrdiff_t idx)
{
    ac_point_fields pf;
    pf.lnrho = fields[0] + idx;
    for (int i = 0; i < 3; ++i)
        pf.u[i] = fields[1 + i] + idx;
    return pf;
}

/* The three substeps as compile-time constants: each row loop is inlined
 * three times, so the RK3 coefficients fold and the x loop vectorises. */
#define AC_FOR_EACH_SUBSTEP(substep, call) \
    do {                                   \
        if ((substep) == 0)                \
            call(0);                       \
        else if ((substep) == 1)           \
            call(1);                       \
        else                               \
            call(2);                       \
    } while (0)

/* Pointers, parameters and strides as locals, so the compiler sees that the
 * stores of a row cannot change them (else it reloads them and will not
 * vectorise the row). */
#define AC_LOCAL_POINTERS(name, from) \
    real *const name[AC_NUM_FIELDS] = {(from)[0], (from)[1], (from)[2], (from)[3]}

/* The x loop of a row carries no dependence: ask for vectorisation.  (GCC
 * 12 vectorises these loops under ivdep but not under `omp simd`.) */
#if defined(__GNUC__) && !defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("clang loop vectorize(enable)")
#else
#define AC_VECTOR_LOOP _Pragma("omp simd")
#endif

#define AC_LOCAL_CONSTANTS                                                   \
    const ac_point_params params = *p_, *const p = &params;                     \
    const ptrdiff_t stride[3] = {stride_[0], stride_[1], stride_[2]}

/* One x row of a 55-point substep (seed Alg. 2). */
static inline __attribute__((always_inline)) void AC_FN(row_55p)(real *const *in_, real *const *out_,
                                                                  real *const *w_, ptrdiff_t row, int nx,
                                                                  const ptrdiff_t stride_[3], const ac_point_params *p_,
                                                                  int substep, real dt)
{
    AC_LOCAL_CONSTANTS;
    AC_LOCAL_POINTERS(in, in_);
    AC_LOCAL_POINTERS(out, out_);
    AC_LOCAL_POINTERS(w, w_);
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        const ptrdiff_t idx = row + i;
        real rhs[AC_NUM_FIELDS];
        rhs_55p(AC_FN(fields_at)(in, idx), stride, p, rhs);
        AC_UNROLL
        for (int f = 0; f < AC_NUM_FIELDS; ++f)
            out[f][idx] = rk3_substep(in[f][idx], rhs[f], &w[f][idx], substep, dt);
    }
}

/* One substep of the 55-point method: reads `in` (ghost zones filled),
 * updates w and writes `out`. */
void AC_FN(substep_55p)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *const out_[AC_NUM_FIELDS],
                        void *const w_[AC_NUM_FIELDS], int substep, double dt_)
{
    real *const *in = (real *const *)in_, *const *out = (real *const *)out_, *const *w = (real *const *)w_;
    const ac_point_params p = AC_FN(point_params)(g);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = ac_grid_index(g, 0, j, k);
#define AC_ROW(s) AC_FN(row_55p)(in, out, w, row, g->n[0], stride, &p, s, dt)
            AC_FOR_EACH_SUBSTEP(substep, AC_ROW);
#undef AC_ROW
        }
}

/* One x row of the 19-point method's first pass (seed Alg. 3): everything
 * but the grad div u term, and div u itself. */
static inline __attribute__((always_inline)) void AC_FN(row_19p_first)(real *const *in_, real *const *out_,
                                                                        real *const *w_, real *div_u, ptrdiff_t row,
                                                                        int nx, const ptrdiff_t stride_[3],
                                                                        const ac_point_params *p_, int substep,
                                                                        real dt)
{
    AC_LOCAL_CONSTANTS;
    AC_LOCAL_POINTERS(in, in_);
    AC_LOCAL_POINTERS(out, out_);
    AC_LOCAL_POINTERS(w, w_);
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        const ptrdiff_t idx = row + i;
        real rhs[AC_NUM_FIELDS];
        div_u[idx] = rhs_without_grad_div(AC_FN(fields_at)(in, idx), stride, p, rhs);
        AC_UNROLL
        for (int f = 0; f < AC_NUM_FIELDS; ++f)
            out[f][idx] = rk3_substep(in[f][idx], rhs[f], &w[f][idx], substep, dt);
    }
}

void AC_FN(substep_19p_first)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *const out_[AC_NUM_FIELDS],
                              void *const w_[AC_NUM_FIELDS], void *div_u_, int substep, double dt_)
{
    real *const *in = (real *const *)in_, *const *out = (real *const *)out_, *const *w = (real *const *)w_;
    real *div_u = (real *)div_u_;
    const ac_point_params p = AC_FN(point_params)(g);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = ac_grid_index(g, 0, j, k);
#define AC_ROW(s) AC_FN(row_19p_first)(in, out, w, div_u, row, g->n[0], stride, &p, s, dt)
            AC_FOR_EACH_SUBSTEP(substep, AC_ROW);
#undef AC_ROW
        }
}

/* One x row of the 19-point method's second pass, eqs. (17)-(18). */
static inline __attribute__((always_inline)) void AC_FN(row_19p_second)(real *const *out_, real *const *w_,
                                                                         const real *div_u, ptrdiff_t row, int nx,
                                                                         const ptrdiff_t stride_[3],
                                                                         const ac_point_params *p_, int substep,
                                                                         real dt)
{
    AC_LOCAL_CONSTANTS;
    AC_LOCAL_POINTERS(out, out_);
    AC_LOCAL_POINTERS(w, w_);
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        const ptrdiff_t idx = row + i;
        real grad_div[3];
        grad_div_19p(div_u + idx, stride, p, grad_div);
        AC_UNROLL
        for (int c = 0; c < 3; ++c)
            rk3_add_grad_div(&out[1 + c][idx], &w[1 + c][idx], grad_div[c], substep, dt, p->nu);
    }
}

/* div_u has its ghost zones filled. */
void AC_FN(substep_19p_second)(const ac_grid *g, void *const out_[AC_NUM_FIELDS], void *const w_[AC_NUM_FIELDS],
                               const void *div_u_, int substep, double dt_)
{
    real *const *out = (real *const *)out_, *const *w = (real *const *)w_;
    const real *div_u = (const real *)div_u_;
    const ac_point_params p = AC_FN(point_params)(g);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = ac_grid_index(g, 0, j, k);
#define AC_ROW(s) AC_FN(row_19p_second)(out, w, div_u, row, g->n[0], stride, &p, s, dt)
            AC_FOR_EACH_SUBSTEP(substep, AC_ROW);
#undef AC_ROW
        }
}

double AC_FN(max_speed)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS])
{
    real *const *fields = (real *const *)fields_;
    double max_u2 = 0.0;
    int nonfinite = 0;
#pragma omp parallel for collapse(2) reduction(max : max_u2) reduction(| : nonfinite) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const size_t row = ac_grid_index(g, 0, j, k);
            for (int i = 0; i < g->n[0]; ++i) {
                const ptrdiff_t idx = row + i;
                const double u2 = (double)fields[1][idx] * fields[1][idx] + (double)fields[2][idx] * fields[2][idx] +
                                  (double)fields[3][idx] * fields[3][idx];
                nonfinite |= !isfinite(u2);
                max_u2 = u2 > max_u2 ? u2 : max_u2;
            }
        }
    return nonfinite ? NAN : sqrt(max_u2);
}

int AC_FN(first_nonfinite_field)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS])
{
    real *const *fields = (real *const *)fields_;
    for (int f = 0; f < AC_NUM_FIELDS; ++f) {
        int nonfinite = 0;
#pragma omp parallel for collapse(2) reduction(| : nonfinite) schedule(static)
        for (int k = 0; k < g->n[2]; ++k)
            for (int j = 0; j < g->n[1]; ++j) {
                const size_t row = ac_grid_index(g, 0, j, k);
                for (int i = 0; i < g->n[0]; ++i)
                    nonfinite |= !isfinite(fields[f][row + (size_t)i]);
            }
        if (nonfinite)
            return f;
    }
    return -1;
}
