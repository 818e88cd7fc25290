/*
 * rows_impl.h -- the CPU's vectorised row loop for every configuration but
 * plain hydrodynamics (MHD, hyperdiffusion, shock viscosity, entropy, the
 * passive scalar and their combinations), for one precision; compiled by
 * rows_f32.c and rows_f64.c.  Plain hydrodynamics keeps its tuned loops
 * (kernels_impl.h); both run a whole step in the fused sweep of
 * kernels_impl.h (rows_fused_row, step_fused_rows) where the grid allows.
 *
 * A row is done in chunks of AC_CHUNK points, in passes over x, each a
 * vectorised loop (SIMD across x: the lanes are independent points):
 *   1. for each field, the Laplacian, a vector's grad div, del6 and the sums
 *      of the gradient where its terms ask for them (physics_needs), and the
 *      shock profile's gradient, into row-long arrays ("pencils");
 *   2. one pass that fills an ac_point_derivatives per point (the first
 *      derivatives scaled there), sums the terms (physics_rhs) and keeps the
 *      right-hand sides: one function per configuration and term set, so that
 *      each is inlined and vectorised whole;
 *   3. the RK3 update.
 * Nothing here names a field or a term.
 *
 * Bit for bit the same as computing each point alone (the stored runs of
 * tests/data/bitwise_cpu.npz were made point by point).  GCC contracts a
 * product into an FMA when every use of it is an addition in the same
 * block, and where two products meet in one addition the earlier statement
 * is the one contracted.  So a pencil holds only values that end in an
 * addition (Laplacian, grad div, del6) or that are used in products only
 * (the profile's gradient); a first derivative ends in its product by 1/(60
 * dx), which the curl of A absorbs, so pass 1 keeps its sum (first_sum_at,
 * which ends in an addition) and pass 2 multiplies, in the order of a
 * point's: pass 2 then reads one pencil per derivative in place of six rows
 * (pass 1 reads those rows for the Laplacian anyway).  The row files compile without the within-point
 * vectorisation and the sinking of statements into branches, which reorder
 * those products.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* Every function of the physics inlined into pass 2, whatever its size:
 * GCC would call the larger terms out of line, which neither vectorises nor
 * rounds as a point does. */
#define AC_INLINE static inline __attribute__((always_inline))

#include "../grid.h"

/* exp as straight-line arithmetic (vexp.h), inlined into pass 2 and
 * vectorised with it: libm's scalar exp, called lane by lane, was a fifth of
 * a hydro+entropy step (benchmarks/results/2026-11-28-cpu-pencil). */
#include "vexp.h"
#define AC_EXP_FN(x) (sizeof(real) == sizeof(float) ? (real)ac_vexp_f32((float)(x)) : (real)ac_vexp_f64((double)(x)))

#include "../physics.h"
#include "kernels.h"
#include "loops.h"

/* Pencils of one chunk, in units of AC_CHUNK reals. */
enum {
    AC_R_LAP = 0,                                   /* [field] */
    AC_R_GRAD_DIV = AC_R_LAP + AC_FIELD_ROWS,       /* [vector][component] */
    AC_R_DEL6 = AC_R_GRAD_DIV + 3 * AC_VECTOR_ROWS, /* [field] */
    AC_R_ZETA = AC_R_DEL6 + AC_FIELD_ROWS,          /* [axis]: the shock profile's gradient */
    AC_R_RHS = AC_R_ZETA + 3,                       /* [field] */
    AC_R_FIRST = AC_R_RHS + AC_FIELD_ROWS,          /* [field][axis]: first_sum_at, the gradient unscaled */
    AC_R_PENCILS = AC_R_FIRST + 3 * AC_FIELD_ROWS
};

typedef struct AC_FN(rows_job) AC_FN(rows_job);
/* pass 2 of a configuration and term set; pass 3 of a substep (below) */
typedef void (*AC_FN(rows_rhs_fn))(const AC_FN(rows_job) *, ptrdiff_t, ptrdiff_t, int, real *);
typedef void (*AC_FN(rows_update_fn))(const AC_FN(rows_job) *, ac_plane_offsets, int, const real *);

/* One substep from in to out. */
struct AC_FN(rows_job) {
    real *in[AC_MAX_FIELDS], *out[AC_MAX_FIELDS], *w[AC_MAX_FIELDS];
    const real *zeta; /* the shock profile, with AC_TERM_SHOCK */
    ac_physics_params p;
    ac_geometry geo;
    ptrdiff_t stride[3]; /* stride[0] = 1 */
    real dt;
    int fields;
    unsigned terms; /* for the sources without derivatives (physics_sources) */
    unsigned needs[AC_FIELD_ROWS]; /* physics_needs of each row (0: its module is off) */
    int index[AC_FIELD_ROWS];      /* ac_field_index of each row */
    int vector[AC_FIELD_ROWS];     /* ac_vector_index of a vector's x component */
    AC_FN(rows_rhs_fn) rhs;
    AC_FN(rows_update_fn) update;
};

#define AC_R_PENCIL(pencil, kind, n) ((pencil) + AC_CHUNK * (ptrdiff_t)((kind) + (n)))
#define AC_R_NOINLINE static __attribute__((noinline))

/* ---- pass 1: derivatives into pencils, one field and axis at a time ---- */

/* The sum of eq. (7) along stride s without its scale (second_derivative =
 * second_sum * second_scale). */
static inline real AC_FN(second_sum)(const real *f, ptrdiff_t s)
{
    return second_from_sums(AC_LOAD(f), AC_LOAD(f + s) + AC_LOAD(f - s), AC_LOAD(f + 2 * s) + AC_LOAD(f - 2 * s),
                            AC_LOAD(f + 3 * s) + AC_LOAD(f - 3 * s), (real)1);
}

/* The Laplacian, summed over the axes in order from 0 (as a point's is);
 * with del6 del6 too, with own (a vector component: its axis 0, 1, 2) the
 * sum along its own axis for grad div, and with first the gradient's sums
 * (first_sum_at per axis), while the rows are in registers. */
static inline __attribute__((always_inline)) void AC_FN(lap_row)(const real *restrict v, ptrdiff_t sy, ptrdiff_t sz,
                                                                  const real inv[3], real *restrict lap,
                                                                  real *restrict del6, real *restrict own_sum, int own,
                                                                  real *restrict first, int nx)
{
    const ptrdiff_t stride[3] = {1, sy, sz};
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        real sum = 0;
        AC_UNROLL
        for (int a = 0; a < 3; ++a) {
            const real second = AC_FN(second_sum)(v + i, stride[a]);
            sum += second * second_scale(inv[a]);
            if (a == own)
                own_sum[i] = second;
            if (first)
                first[a * AC_CHUNK + i] = first_sum_at(v + i, stride[a]);
        }
        lap[i] = sum;
        if (del6)
            del6[i] = del6_at(v + i, stride, inv);
    }
}

AC_R_NOINLINE void AC_FN(pass_lap)(const real *restrict v, ptrdiff_t sy, ptrdiff_t sz, real inv_x, real inv_y,
                                   real inv_z, real *restrict lap, real *restrict del6, real *restrict own_sum, int own,
                                   real *restrict first, int nx)
{
    const real inv[3] = {inv_x, inv_y, inv_z};
#define AC_R_LAP_ROW(d, o, g) AC_FN(lap_row)(v, sy, sz, inv, lap, (d), own_sum, (o), (g), nx)
#define AC_R_LAP_OWN(d, g)                                                                                             \
    (own == 0 ? AC_R_LAP_ROW(d, 0, g) : own == 1 ? AC_R_LAP_ROW(d, 1, g) : own == 2 ? AC_R_LAP_ROW(d, 2, g)         \
                                                                            : AC_R_LAP_ROW(d, -1, g))
    if (del6)
        first ? AC_R_LAP_OWN(del6, first) : AC_R_LAP_OWN(del6, NULL);
    else
        first ? AC_R_LAP_OWN(NULL, first) : AC_R_LAP_OWN(NULL, NULL);
#undef AC_R_LAP_OWN
#undef AC_R_LAP_ROW
}

/* The gradient's sums alone (first_sum_at per axis), for a field without a
 * Laplacian. */
AC_R_NOINLINE void AC_FN(pass_first)(const real *restrict v, ptrdiff_t sy, ptrdiff_t sz, real *restrict first, int nx)
{
    const ptrdiff_t stride[3] = {1, sy, sz};
    AC_UNROLL
    for (int a = 0; a < 3; ++a) {
        AC_VECTOR_LOOP
        for (int i = 0; i < nx; ++i)
            first[a * AC_CHUNK + i] = first_sum_at(v + i, stride[a]);
    }
}

/* Component c of a vector's grad div, d_c d_c v_c + d_c d_j v_j over the
 * other axes j in order (eq. 8): g holds the sum of d_c d_c v_c (pass_lap),
 * scaled here, where a point's addition absorbs the product. */
static inline __attribute__((always_inline)) void AC_FN(grad_div_component)(
    const real *restrict v1, const real *restrict v2, ptrdiff_t sc, ptrdiff_t s1, ptrdiff_t s2, real inv_c, real inv_1,
    real inv_2, real *restrict g, int nx)
{
    const real scale = second_scale(inv_c);
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        real sum = g[i] * scale;
        sum += mixed_derivative(v1 + i, sc, s1, inv_c, inv_1);
        sum += mixed_derivative(v2 + i, sc, s2, inv_c, inv_2);
        g[i] = sum;
    }
}

AC_R_NOINLINE void AC_FN(pass_grad_div)(const real *restrict vx, const real *restrict vy, const real *restrict vz,
                                        ptrdiff_t sy, ptrdiff_t sz, real inv_x, real inv_y, real inv_z,
                                        real *restrict gx, real *restrict gy, real *restrict gz, int nx)
{
    AC_FN(grad_div_component)(vy, vz, 1, sy, sz, inv_x, inv_y, inv_z, gx, nx);
    AC_FN(grad_div_component)(vx, vz, sy, 1, sz, inv_y, inv_x, inv_z, gy, nx);
    AC_FN(grad_div_component)(vx, vy, sz, 1, sy, inv_z, inv_x, inv_y, gz, nx);
}

AC_R_NOINLINE void AC_FN(pass_del6)(const real *restrict v, ptrdiff_t sy, ptrdiff_t sz, real inv_x, real inv_y,
                                    real inv_z, real *restrict del6, int nx)
{
    const ptrdiff_t stride[3] = {1, sy, sz};
    const real inv[3] = {inv_x, inv_y, inv_z};
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i)
        del6[i] = del6_at(v + i, stride, inv);
}

/* The shock profile's first derivative along s (only multiplied: rounded
 * where a point computes it too). */
AC_R_NOINLINE void AC_FN(pass_first_derivative)(const real *restrict v, ptrdiff_t s, real inv, real *restrict d,
                                                int nx)
{
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i)
        d[i] = first_derivative(v + i, s, inv);
}

/* The derivatives of one chunk (nx points from padded index row of the
 * input, zrow of the profile) into the pencils. */
static void AC_FN(rows_derivatives)(const AC_FN(rows_job) *job, ptrdiff_t row, ptrdiff_t zrow, int nx, real *pencil)
{
    const ptrdiff_t *s = job->stride;
    const real *inv = job->geo.inv_ds;
    for (int r = 0; r < AC_FIELD_ROWS; ++r) {
        const unsigned need = job->needs[r];
        if (!need)
            continue;
        const int f = job->index[r];
        const real *v = job->in[f] + row;
        real *del6 = (need & AC_NEEDS_SIXTH) ? AC_R_PENCIL(pencil, AC_R_DEL6, f) : NULL;
        const int role = ac_field_role_of(r), x_row = r - (role > 0 ? role - 1 : 0); /* a vector's x component */
        const int own = (role > 0 && (job->needs[x_row] & AC_NEEDS_GRAD_DIV)) ? role - 1 : -1;
        real *own_sum = own >= 0 ? AC_R_PENCIL(pencil, AC_R_GRAD_DIV, 3 * job->vector[x_row] + own) : NULL;
        real *first = (need & AC_NEEDS_FIRST) ? AC_R_PENCIL(pencil, AC_R_FIRST, 3 * f) : NULL;
        if ((need & AC_NEEDS_SECOND) || own_sum) {
            AC_FN(pass_lap)(v, s[1], s[2], inv[0], inv[1], inv[2], AC_R_PENCIL(pencil, AC_R_LAP, f), del6, own_sum,
                            own, first, nx);
        } else {
            if (del6)
                AC_FN(pass_del6)(v, s[1], s[2], inv[0], inv[1], inv[2], del6, nx);
            if (first)
                AC_FN(pass_first)(v, s[1], s[2], first, nx);
        }
        /* a vector's grad div after the Laplacians of its components (they give the sums d_c d_c v_c),
         * while its rows are still in the cache */
        if (role == AC_VECTOR_Z && (job->needs[x_row] & AC_NEEDS_GRAD_DIV)) {
            const int fx = job->index[x_row];
            real *grad_div = AC_R_PENCIL(pencil, AC_R_GRAD_DIV, 3 * job->vector[x_row]);
            AC_FN(pass_grad_div)(job->in[fx] + row, job->in[fx + 1] + row, job->in[fx + 2] + row, s[1], s[2], inv[0],
                                 inv[1], inv[2], grad_div, grad_div + AC_CHUNK, grad_div + 2 * AC_CHUNK, nx);
        }
    }
    if (job->zeta)
        for (int a = 0; a < 3; ++a)
            AC_FN(pass_first_derivative)(job->zeta + zrow, s[a], inv[a], AC_R_PENCIL(pencil, AC_R_ZETA, a), nx);
}

/* ---- pass 2: the right-hand sides, one function per configuration M and
 * term set T (constants after inlining) ---- */
static inline __attribute__((always_inline)) void AC_FN(rows_rhs)(const AC_FN(rows_job) *job_, ptrdiff_t row,
                                                                   ptrdiff_t zrow, int nx, real *restrict pencil,
                                                                   unsigned M, unsigned T)
{
    const AC_FN(rows_job) job = *job_; /* a local: stores cannot change it */
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        ac_point_derivatives d;
        AC_UNROLL
        for (int r = 0; r < AC_FIELD_ROWS; ++r) {
            const unsigned need = physics_needs(M, T, r);
            if (!need)
                continue;
            const int f = ac_field_index(M, r);
            if (need & AC_NEEDS_VALUE)
                d.value[f] = job.in[f][row + i];
            if (need & AC_NEEDS_FIRST)
                AC_UNROLL
                for (int a = 0; a < 3; ++a) /* first_derivative, its sums from pass 1 */
                    d.grad[f][a] = AC_R_PENCIL(pencil, AC_R_FIRST, 3 * f + a)[i] * first_scale(job.geo.inv_ds[a]);
            if (need & AC_NEEDS_SECOND)
                d.lap[f] = AC_R_PENCIL(pencil, AC_R_LAP, f)[i];
            if ((need & AC_NEEDS_GRAD_DIV) && ac_field_role_of(r) == AC_VECTOR_X) {
                const int v = ac_vector_index(M, r);
                AC_UNROLL
                for (int c = 0; c < 3; ++c)
                    d.grad_div[v][c] = AC_R_PENCIL(pencil, AC_R_GRAD_DIV, 3 * v + c)[i];
            }
            if (need & AC_NEEDS_SIXTH)
                d.del6[f] = AC_R_PENCIL(pencil, AC_R_DEL6, f)[i];
            if (need & AC_NEEDS_EXP)
                d.exp_minus[f] = ac_exp(-job.in[f][row + i]);
        }
        ac_shock_point shock = {0, {0, 0, 0}};
        if (T & AC_TERM_SHOCK) {
            shock.zeta = job.zeta[zrow + i];
            AC_UNROLL
            for (int a = 0; a < 3; ++a)
                shock.grad_zeta[a] = AC_R_PENCIL(pencil, AC_R_ZETA, a)[i];
        }
        real rhs[AC_FIELD_ROWS];
        physics_rhs(M, T, &d, &job.p, &shock, rhs);
        physics_sources(M, job.terms, &d, &job.p, rhs); /* a run-time choice: a vectorised select, no branch */
        AC_UNROLL
        for (int f = 0; f < ac_field_count(M); ++f)
            AC_R_PENCIL(pencil, AC_R_RHS, f)[i] = rhs[f];
    }
}

/* ---- pass 2b: the shearing box (terms/shear.h), added to the right-hand
 * sides after every other term, as the Pencil Code adds it; a pass of its
 * own, so that pass 2 and its rounding stay those of a grid without it.
 * The chunk starts at x index i0 of the grid. ---- */
AC_R_NOINLINE void AC_FN(shear_pass)(const ac_grid *g, const AC_FN(rows_job) *job, int i0, ptrdiff_t row, int nx,
                                     real *pencil)
{
    const unsigned modules = ac_grid_modules(g);
    const real shear = job->p.table.shear, scale = first_scale(job->geo.inv_ds[1]);
    for (int i = 0; i < nx; ++i) {
        ac_point_derivatives d;
        real rhs[AC_FIELD_ROWS];
        for (int f = 0; f < job->fields; ++f) {
            d.value[f] = job->in[f][row + i];
            d.grad[f][1] = AC_R_PENCIL(pencil, AC_R_FIRST, 3 * f + 1)[i] * scale; /* as pass 2's gradient */
            rhs[f] = AC_R_PENCIL(pencil, AC_R_RHS, f)[i];
        }
        shear_add(modules, shear, (real)shear_flow_at(g, i0 + i), &d, rhs);
        for (int f = 0; f < job->fields; ++f)
            AC_R_PENCIL(pencil, AC_R_RHS, f)[i] = rhs[f];
    }
}

/* The instances: every configuration (bits 1-4 of fields.h beside hydro,
 * the second scalar only with the first: ac_modules_valid) with and
 * without hyperdiffusion and shock viscosity. */
#define AC_R_MODULE_BITS(name, module, role) (unsigned)(module) |
typedef char AC_FN(rows_cover_the_modules)[(AC_FIELD_TABLE(AC_R_MODULE_BITS) 0u) < 32u ? 1 : -1];
#undef AC_R_MODULE_BITS
#define AC_R_INSTANCE(m, h, k)                                                                                         \
    AC_R_NOINLINE void AC_FN(rows_rhs_##m##_##h##_##k)(const AC_FN(rows_job) *job, ptrdiff_t row, ptrdiff_t zrow,     \
                                                        int nx, real *pencil)                                         \
    {                                                                                                                  \
        AC_FN(rows_rhs)(job, row, zrow, nx, pencil, AC_MODULE_HYDRO | (m##u << 1),                                    \
                        ac_terms_of(AC_MODULE_HYDRO | (m##u << 1), h, k));                                             \
    }
#define AC_R_INSTANCES(m) AC_R_INSTANCE(m, 0, 0) AC_R_INSTANCE(m, 1, 0) AC_R_INSTANCE(m, 0, 1) AC_R_INSTANCE(m, 1, 1)
AC_R_INSTANCES(0)
AC_R_INSTANCES(1)
AC_R_INSTANCES(2)
AC_R_INSTANCES(3)
AC_R_INSTANCES(4)
AC_R_INSTANCES(5)
AC_R_INSTANCES(6)
AC_R_INSTANCES(7)
AC_R_INSTANCES(12)
AC_R_INSTANCES(13)
AC_R_INSTANCES(14)
AC_R_INSTANCES(15)
#undef AC_R_INSTANCES
#undef AC_R_INSTANCE

#define AC_R_ROW(m) {AC_FN(rows_rhs_##m##_0_0), AC_FN(rows_rhs_##m##_1_0), AC_FN(rows_rhs_##m##_0_1), AC_FN(rows_rhs_##m##_1_1)}
#define AC_R_NO_ROW {NULL, NULL, NULL, NULL} /* the second scalar without the first: no configuration */
/* [(modules >> 1)][hyper3 + 2 shock] */
static const AC_FN(rows_rhs_fn) AC_FN(rows_rhs_table)[16][4] = {
    AC_R_ROW(0),  AC_R_ROW(1),  AC_R_ROW(2),  AC_R_ROW(3),  AC_R_ROW(4),  AC_R_ROW(5),  AC_R_ROW(6),  AC_R_ROW(7),
    AC_R_NO_ROW,  AC_R_NO_ROW,  AC_R_NO_ROW,  AC_R_NO_ROW,  AC_R_ROW(12), AC_R_ROW(13), AC_R_ROW(14), AC_R_ROW(15)};
#undef AC_R_NO_ROW
#undef AC_R_ROW

/* ---- pass 3: the RK3 update of substep S (a constant) from the pencils
 * of the right-hand sides; w is read from substep 1 on and written in
 * substeps 0 and 1 (after the last one it is not read again) ---- */
static inline __attribute__((always_inline)) void AC_FN(rows_update)(const AC_FN(rows_job) *job, ac_plane_offsets at,
                                                                      int nx, const real *restrict pencil, int S)
{
    for (int f = 0; f < job->fields; ++f) {
        const real *restrict in = job->in[f] + at.in, *restrict rhs = AC_R_PENCIL(pencil, AC_R_RHS, f);
        real *restrict out = job->out[f] + at.out, *restrict w = job->w[f] + at.w;
        const real dt = job->dt;
        AC_VECTOR_LOOP
        for (int i = 0; i < nx; ++i) {
            real w_f = S > 0 ? w[i] : (real)0; /* the first substep does not read w (alpha = 0) */
            out[i] = rk3_substep(in[i], rhs[i], &w_f, S, dt);
            if (S < 2)
                w[i] = w_f;
        }
    }
}

AC_R_NOINLINE void AC_FN(rows_update_0)(const AC_FN(rows_job) *job, ac_plane_offsets at, int nx,
                                        const real *pencil)
{
    AC_FN(rows_update)(job, at, nx, pencil, 0);
}
AC_R_NOINLINE void AC_FN(rows_update_1)(const AC_FN(rows_job) *job, ac_plane_offsets at, int nx,
                                        const real *pencil)
{
    AC_FN(rows_update)(job, at, nx, pencil, 1);
}
AC_R_NOINLINE void AC_FN(rows_update_2)(const AC_FN(rows_job) *job, ac_plane_offsets at, int nx,
                                        const real *pencil)
{
    AC_FN(rows_update)(job, at, nx, pencil, 2);
}

/* The job of RK3 substep `substep` of the grid's configuration from in to
 * out, with the shock viscosity of profile zeta (NULL: none). */
static AC_FN(rows_job) AC_FN(make_rows_job)(const ac_grid *g, void *const in[AC_MAX_FIELDS],
                                            void *const out[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS],
                                            const void *zeta, int substep, double dt)
{
    AC_FN(rows_job) job;
    const unsigned modules = ac_grid_modules(g);
    const unsigned terms = zeta ? ac_grid_terms(g) : ac_grid_terms(g) & ~(unsigned)AC_TERM_SHOCK;
    job.fields = ac_field_count(modules);
    job.terms = terms;
    for (int f = 0; f < job.fields; ++f) {
        job.in[f] = (real *)in[f];
        job.out[f] = (real *)out[f];
        job.w[f] = (real *)w[f];
    }
    for (int row = 0; row < AC_FIELD_ROWS; ++row) {
        job.needs[row] = physics_needs(modules, terms, row);
        job.index[row] = ac_field_index(modules, row);
        job.vector[row] = ac_vector_index(modules, row);
    }
    job.zeta = (const real *)zeta;
    job.p = make_physics_params(g);
    job.geo = make_geometry(g);
    ac_grid_strides(g, job.stride);
    job.stride[0] = 1;
    job.dt = (real)dt;
    job.rhs =
        AC_FN(rows_rhs_table)[(modules >> 1) & 15u][((terms & AC_TERM_HYPER3) ? 1 : 0) + ((terms & AC_TERM_SHOCK) ? 2 : 0)];
    job.update = substep == 0 ? AC_FN(rows_update_0) : substep == 1 ? AC_FN(rows_update_1) : AC_FN(rows_update_2);
    return job;
}

/* Row j of a plane from x = i0 to i1, in chunks of AC_CHUNK points: the
 * three passes of each. */
static void AC_FN(rows_span)(const ac_grid *g, const AC_FN(rows_job) *job, int i0, int i1, int j,
                             ac_plane_offsets planes, real *pencil)
{
    const ptrdiff_t x0 = ac_row_in_plane(g, j) + g->lo[0]; /* within the plane */
    for (int i = i0; i < i1; i += AC_CHUNK) {
        const int nx = i1 - i < AC_CHUNK ? i1 - i : AC_CHUNK;
        const ptrdiff_t x = x0 + i;
        const ac_plane_offsets at = {planes.in + x, planes.out + x, planes.w + x, planes.field + x};
        AC_FN(rows_derivatives)(job, at.in, at.field, nx, pencil);
        job->rhs(job, at.in, at.field, nx, pencil);
        if (job->terms & AC_TERM_SHEAR)
            AC_FN(shear_pass)(g, job, i, at.in, nx, pencil);
        job->update(job, at, nx, pencil);
    }
}

/* RK3 substep `substep` of the grid's configuration from in to out over
 * region r (ghost zones filled), with the shock viscosity of profile zeta
 * (NULL: none).  *failed: memory ran out. */
void AC_FN(substep_rows)(const ac_grid *g, const ac_region *r, void *const in[AC_MAX_FIELDS],
                         void *const out[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS], const void *zeta, int substep,
                         double dt, int *failed)
{
    const AC_FN(rows_job) job = AC_FN(make_rows_job)(g, in, out, w, zeta, substep, dt);
    const int y_blocks = (r->hi[1] - r->lo[1] + AC_Y_BLOCK - 1) / AC_Y_BLOCK;
    int missing = 0;
#pragma omp parallel reduction(| : missing)
    {
        real *pencil = malloc(sizeof(real) * AC_CHUNK * AC_R_PENCILS);
        if (!pencil) {
            missing = 1;
        } else {
            /* blocks of rows in y swept along z, as the hydrodynamic loop (kernels_impl.h) */
#pragma omp for collapse(2) schedule(static)
            for (int jb = 0; jb < y_blocks; ++jb)
                for (int k = r->lo[2]; k < r->hi[2]; ++k) {
                    const int block_start = r->lo[1] + jb * AC_Y_BLOCK;
                    for (int j = block_start; j < r->hi[1] && j < block_start + AC_Y_BLOCK; ++j) {
                        ac_prefetch_ahead(g, (void *const *)job.in, NULL, job.fields, (int)sizeof(real), block_start,
                                          j, k);
                        AC_FN(rows_span)(g, &job, r->lo[0], r->hi[0], j, ac_same_plane(g, k), pencil);
                    }
                }
            free(pencil);
        }
    }
    *failed = missing;
}

/* Row j of one plane in the fused sweep (kernels_impl.h). */
static void AC_FN(rows_fused_row)(const ac_grid *g, const void *job, int j, ac_plane_offsets planes, void *scratch)
{
    AC_FN(rows_span)(g, (const AC_FN(rows_job) *)job, 0, g->n[0], j, planes, (real *)scratch);
}

/* One full step home -> a -> b -> home on the fused sweep, with the shock
 * viscosity of profile zeta (NULL: none; else the profile of home, held for
 * the three substeps as three_substeps holds it); home has its ghost zones
 * filled. */
void AC_FN(step_fused_rows)(const ac_grid *g, void *const home[AC_MAX_FIELDS], void *const a[AC_MAX_FIELDS],
                            void *const b[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS], const void *zeta, double dt,
                            int *failed)
{
    const AC_FN(rows_job) jobs[3] = {AC_FN(make_rows_job)(g, home, a, w, zeta, 0, dt),
                                     AC_FN(make_rows_job)(g, a, b, w, zeta, 1, dt),
                                     AC_FN(make_rows_job)(g, b, home, w, zeta, 2, dt)};
    const ac_fused_sweep sweep = {jobs[0].fields, {home, a, b}, {&jobs[0], &jobs[1], &jobs[2]},
                                  {AC_FN(rows_fused_row), AC_FN(rows_fused_row), AC_FN(rows_fused_row)},
                                  sizeof(real) * AC_CHUNK * AC_R_PENCILS};
    AC_FN(fused_sweep)(g, &sweep, failed);
}
#undef AC_R_PENCIL
#undef AC_R_NOINLINE
