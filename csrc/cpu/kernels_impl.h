/*
 * kernels_impl.h -- the CPU loops over the grid, for one precision.
 *
 * Included once by kernels_f32.c and once by kernels_f64.c, each of which
 * defines `real` and AC_FN(name) (the precision suffix) first.  The loops
 * only move data: all arithmetic comes from ../physics.h.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "../forcing.h"
#include "../grid.h"
#include "../physics.h"
#include "kernels.h"
#include "loops.h"

/* Periodic ghost zones, one axis after the other so that edges and corners
 * (read by the 55-point mixed derivatives) are filled too: x within a row,
 * then whole y ghost rows of a plane, then whole z ghost planes. */
static void AC_FN(fill_row_x_ghosts)(const ac_grid *g, real *row)
{
    const int lo = g->lo[0], n = g->n[0];
    if (n >= AC_GHOST) { /* the usual case, without the divisions of ac_periodic_source */
        for (int q = 0; q < AC_GHOST; ++q) {
            row[lo - AC_GHOST + q] = row[lo + n - AC_GHOST + q];
            row[lo + n + q] = row[lo + q];
        }
        return;
    }
    for (int gx = 0; gx < 2 * AC_GHOST; ++gx) {
        const int i = ac_ghost_plane(gx, lo, n);
        row[i] = row[ac_periodic_source(i, lo, n)];
    }
}

/* The y ghost rows of a padded plane (its rows' x ghosts already filled). */
static void AC_FN(fill_plane_y_ghosts)(const ac_grid *g, real *plane)
{
    const ptrdiff_t sy = g->m[0];
    for (int gy = 0; gy < 2 * AC_GHOST; ++gy) {
        const int j = ac_ghost_plane(gy, g->lo[1], g->n[1]);
        memcpy(plane + j * sy, plane + ac_periodic_source(j, g->lo[1], g->n[1]) * sy, sizeof(real) * (size_t)sy);
    }
}

/* Copies the complete interior plane k to the z ghost planes that are its
 * periodic images. */
static void AC_FN(copy_z_images)(const ac_grid *g, real *f, int k)
{
    const ptrdiff_t sz = (ptrdiff_t)g->m[0] * g->m[1];
    for (int gz = 0; gz < 2 * AC_GHOST; ++gz) {
        const int ghost = ac_ghost_plane(gz, g->lo[2], g->n[2]);
        if (ac_periodic_source(ghost, g->lo[2], g->n[2]) == k + g->lo[2])
            memcpy(f + ghost * sz, f + (k + g->lo[2]) * sz, sizeof(real) * (size_t)sz);
    }
}

/* The periodic ghost zones of one axis only, over the whole padded extent
 * of the other two (a split grid fills its other axes by exchange). */
void AC_FN(fill_ghost_axis)(const ac_grid *g, void *field, int axis)
{
    real *f = (real *)field;
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2; /* the other two axes */
#pragma omp parallel for collapse(2) schedule(static)
    for (int pc = 0; pc < g->m[c]; ++pc)
        for (int pb = 0; pb < g->m[b]; ++pb) {
            real *line = f + pb * stride[b] + pc * stride[c];
            for (int q = 0; q < 2 * AC_GHOST; ++q) {
                const int ghost = ac_ghost_plane(q, g->lo[axis], g->n[axis]);
                line[ghost * stride[axis]] = line[ac_periodic_source(ghost, g->lo[axis], g->n[axis]) * stride[axis]];
            }
        }
}

void AC_FN(fill_ghost_zones)(const ac_grid *g, void *field)
{
    real *f = (real *)field;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->n[2]; ++k) {
        for (int j = 0; j < g->n[1]; ++j)
            AC_FN(fill_row_x_ghosts)(g, f + ac_grid_index(g, -g->lo[0], j, k));
        AC_FN(fill_plane_y_ghosts)(g, f + ac_field_plane(g, k));
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        AC_FN(copy_z_images)(g, f, k);
}

/* ---- Walls (../boundaries.h) ----
 * The wall values of field `field` (its index in the configuration) on
 * every wall face of kind 'a' (0) or 'set' (the value): before the ghosts
 * of any axis are filled, so that those ghosts see them. */
void AC_FN(set_wall_values)(const ac_grid *g, void *data, int field)
{
    real *f = (real *)data;
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    for (int axis = 0; axis < 3; ++axis)
        for (int face = 0; face < 2; ++face) {
            const int k = g->bc.kind[axis][face][field];
            if (!ac_boundaries_wall(&g->bc, axis, face) || (k != AC_BC_A && k != AC_BC_SET))
                continue;
            const real value = k == AC_BC_A ? (real)0 : (real)g->bc.value[axis][face][field];
            const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2; /* the other two axes */
            real *plane = f + (face == 0 ? g->lo[axis] : g->lo[axis] + g->n[axis] - 1) * stride[axis];
            for (int pc = g->lo[c]; pc < g->lo[c] + g->n[c]; ++pc)
                for (int pb = g->lo[b]; pb < g->lo[b] + g->n[b]; ++pb)
                    plane[pb * stride[b] + pc * stride[c]] = value;
        }
}

/* ---- The shearing-periodic x faces (../boundaries.h, terms/shear.h) ----
 * The ghost planes q = 0 .. AC_GHOST - 1 of x face `face` of a padded field,
 * over the interior y and z (the y and z ghosts follow from them, as the
 * Pencil Code fills them after its x boundary), from `source`: the opposite
 * face's AC_GHOST interior x planes at every y of the whole grid,
 * source[q + sy Y + sz k] for Y < bc.shear.ny and interior z index k.  The
 * sum in double, in the Pencil Code's order (finalize_shearing). */
void AC_FN(shear_ghosts)(const ac_grid *g, void *field, int face, const void *source, ptrdiff_t sy, ptrdiff_t sz)
{
    real *f = (real *)field;
    const real *src = (const real *)source;
    const int ny = g->bc.shear.ny, toward = face == 0 ? -1 : 1;
    int displs = 0;
    double c[6];
    shear_weights(g->bc.shear.deltay, g->spacing[1], &displs, c);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j)
            for (int q = 0; q < AC_GHOST; ++q) {
                const real *line = src + q + sz * k;
                f[ac_grid_index(g, face == 0 ? q - AC_GHOST : g->n[0] + q, j, k)] =
                    shear_ghost_value(line, sy, ny, g->offset[1] + j + toward * (displs - 2), toward, c);
            }
}

/* Whether the x faces of grid g are shearing-periodic. */
static int AC_FN(shearing_x)(const ac_grid *g)
{
    return (ac_grid_terms(g) & AC_TERM_SHEAR) != 0u;
}

/* The ghost zones of one axis of field `field`, over the whole padded
 * extent of the other two: an axis without walls periodic (fill_ghost_axis),
 * else each wall face by its kind; a face that is not a wall on an axis that
 * has one (a subdomain inside a split wall axis) is left to the exchange.
 * Shearing-periodic x faces shifted where the grid holds their sources
 * (bc.shear.local), else periodic for the caller to shift. */
void AC_FN(fill_ghost_axis_bc)(const ac_grid *g, void *data, int field, int axis)
{
    if (axis == 0 && AC_FN(shearing_x)(g) && g->bc.shear.local) {
        real *f = (real *)data;
        const ptrdiff_t sy = g->m[0], sz = (ptrdiff_t)g->m[0] * g->m[1];
        AC_FN(shear_ghosts)(g, f, 0, f + ac_grid_index(g, g->n[0] - AC_GHOST, 0, 0), sy, sz);
        AC_FN(shear_ghosts)(g, f, 1, f + ac_grid_index(g, 0, 0, 0), sy, sz);
        return;
    }
    if (!ac_boundaries_wall_axis(&g->bc, axis)) {
        AC_FN(fill_ghost_axis)(g, data, axis);
        return;
    }
    real *f = (real *)data;
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
    const ptrdiff_t s = stride[axis];
    for (int face = 0; face < 2; ++face) {
        if (!ac_boundaries_wall(&g->bc, axis, face))
            continue;
        const int k = g->bc.kind[axis][face][field];
        const int wall = face == 0 ? g->lo[axis] : g->lo[axis] + g->n[axis] - 1;
        const int out = face == 0 ? -1 : 1; /* towards the ghosts */
#pragma omp parallel for collapse(2) schedule(static)
        for (int pc = 0; pc < g->m[c]; ++pc)
            for (int pb = 0; pb < g->m[b]; ++pb) {
                real *w = f + pb * stride[b] + pc * stride[c] + wall * s;
                for (int i = 1; i <= AC_GHOST; ++i)
                    w[out * i * s] = AC_BC_GHOST(k, w[0], w[-out * i * s]);
            }
    }
}

/* Every ghost zone of field `field` under the grid's boundaries: without
 * walls or shear exactly fill_ghost_zones; else the wall values first, then
 * the axes x, y, z in turn (edges and corners as the periodic fill has them). */
void AC_FN(fill_ghosts_bc)(const ac_grid *g, void *data, int field)
{
    if (!g->bc.walls && !AC_FN(shearing_x)(g)) {
        AC_FN(fill_ghost_zones)(g, data);
        return;
    }
    AC_FN(set_wall_values)(g, data, field);
    for (int axis = 0; axis < 3; ++axis)
        AC_FN(fill_ghost_axis_bc)(g, data, field, axis);
}

/* Substep and method as compile-time constants: the row function is
 * inlined once per pair, so the RK3 coefficients fold, the branches go and
 * the x loops vectorise. */
#define AC_FOR_EACH_SUBSTEP(substep, method, call)                      \
    do {                                                                 \
        const int is_55p_ = (method) == AC_METHOD_55P;                   \
        if ((substep) == 0)                                              \
            is_55p_ ? call(0, AC_METHOD_55P) : call(0, AC_METHOD_19P);   \
        else if ((substep) == 1)                                         \
            is_55p_ ? call(1, AC_METHOD_55P) : call(1, AC_METHOD_19P);   \
        else                                                             \
            is_55p_ ? call(2, AC_METHOD_55P) : call(2, AC_METHOD_19P);   \
    } while (0)

/* A row is done in three vectorised passes over x, through "pencils" (one
 * row-long array per entry of ac_derivatives): the derivatives, grad div u
 * (55-point method) and the update.  One pass doing all at once runs out of
 * registers and spills; this way each pass stays in registers. */
enum { AC_PENCILS = sizeof(ac_derivatives) / sizeof(real) };
/* Above this many bytes of input, output and w per substep (more than a
 * typical last-level cache), `out` is written with streaming stores. */
#define AC_STREAMING_BYTES ((size_t)32 << 20)

typedef struct {
    real *in[AC_NUM_FIELDS], *out[AC_NUM_FIELDS], *w[AC_NUM_FIELDS];
    real *div_u; /* 19-point method only */
    ac_physics_params p;
    ac_geometry geo;
    ptrdiff_t stride[3];
    real dt;
    int streaming;   /* streaming stores for `out` */
    int streaming_w; /* and for w in the first substep (which does not read it) */
} AC_FN(row_job);

/* Writes a finished row segment to a field.  Where the fields of a substep
 * overflow the cache, streaming stores skip reading the destination lines
 * first (a quarter of the memory traffic of a substep). */
static void AC_FN(store_row)(real *dst, const real *src, int n, int streaming)
{
    int i = 0;
#if defined(__AVX__)
    if (streaming && ((uintptr_t)dst & 31) == 0) {
        if (sizeof(real) == 8)
            for (; i + 4 <= n; i += 4)
                _mm256_stream_pd((double *)(dst + i), _mm256_loadu_pd((const double *)(src + i)));
        else
            for (; i + 8 <= n; i += 8)
                _mm256_stream_ps((float *)(dst + i), _mm256_loadu_ps((const float *)(src + i)));
    }
#else
    (void)streaming;
#endif
    for (; i < n; ++i)
        dst[i] = src[i];
}

static inline __attribute__((always_inline)) void AC_FN(row_substep)(const AC_FN(row_job) *job_, ptrdiff_t row,
                                                                      ptrdiff_t out_row, ptrdiff_t w_row, int nx,
                                                                      real *restrict pencil,
                                                                      real *restrict staged, int substep,
                                                                      ac_method method)
{
    /* locals, so the compiler sees that stores cannot change them */
    const AC_FN(row_job) job = *job_;
    real *const *in = job.in, *const *out = job.out, *const *w = job.w;
    const ptrdiff_t stride[3] = {1, job.stride[1], job.stride[2]}; /* x is the unit stride */

    /* One pencil per derivative.  Each loop reads one field along one axis
     * (few enough addresses for the registers), and the loops of a field
     * follow each other, so that its rows come from the L1 cache after the
     * first loop. */
#define AC_PENCIL(member) (pencil + AC_CHUNK * (ptrdiff_t)(offsetof(ac_derivatives, member) / sizeof(real)))
    AC_UNROLL
    for (int a = 0; a < 3; ++a) {
        const real *lnrho = in[0] + row;
        real *grad = AC_PENCIL(grad_lnrho[a]);
        AC_VECTOR_LOOP
        for (int i = 0; i < nx; ++i)
            grad[i] = first_derivative(lnrho + i, stride[a], job.geo.inv_ds[a]);
    }
    AC_UNROLL
    for (int c = 0; c < 3; ++c) {
        const real *u = in[1 + c] + row;
        AC_UNROLL
        for (int a = 0; a < 3; ++a) {
            const ptrdiff_t s = stride[a];
            const real inv = job.geo.inv_ds[a];
            real *grad = AC_PENCIL(grad_u[c][a]), *lap = AC_PENCIL(lap_u[c]), *grad_div = AC_PENCIL(grad_div_u[c]);
            AC_VECTOR_LOOP
            for (int i = 0; i < nx; ++i) {
                const real second = second_derivative(u + i, s, inv);
                grad[i] = first_derivative(u + i, s, inv);
                lap[i] = (a ? lap[i] : (real)0) + second;
                /* grad div u: 55p adds d_c d_c u_c to the sum that u_x starts (below); 19p has 0 here
                 * and adds grad div u in its second pass */
                if (a == c)
                    grad_div[i] = method == AC_METHOD_55P ? (c ? grad_div[i] : (real)0) + second : (real)0;
            }
        }
        /* 55p: the mixed terms d_i d_c u_c of grad div u, while the rows of u_c are in the cache */
        if (method == AC_METHOD_55P) {
            const int i1 = c == 0 ? 1 : 0, i2 = c == 2 ? 1 : 2; /* the other two axes */
            real *grad_div1 = AC_PENCIL(grad_div_u[i1]), *grad_div2 = AC_PENCIL(grad_div_u[i2]);
            AC_VECTOR_LOOP
            for (int i = 0; i < nx; ++i) {
                grad_div1[i] = (c ? grad_div1[i] : (real)0) + grad_div_mixed_term(u + i, stride, &job.geo, i1, c);
                grad_div2[i] = (c ? grad_div2[i] : (real)0) + grad_div_mixed_term(u + i, stride, &job.geo, i2, c);
            }
        }
    }
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        ac_derivatives d;
        real *dv = (real *)&d;
        AC_UNROLL
        for (int q = 0; q < AC_PENCILS; ++q)
            dv[q] = pencil[q * AC_CHUNK + i];
        AC_UNROLL
        for (int c = 0; c < 3; ++c) /* u from its rows: no pencil to copy it to */
            d.u[c] = in[1 + c][row + i];
        real rhs[AC_NUM_FIELDS];
        rhs_from_derivatives(&d, &job.p, rhs);
        const ptrdiff_t idx = row + i;
        if (method == AC_METHOD_19P)
            job.div_u[idx] = divergence(&d);
        AC_UNROLL
        for (int f = 0; f < AC_NUM_FIELDS; ++f) {
            real w_f = substep > 0 ? w[f][w_row + i] : (real)0; /* the first substep does not read w (alpha = 0) */
            staged[f * AC_CHUNK + i] = rk3_substep(in[f][idx], rhs[f], &w_f, substep, job.dt);
            if (substep == 0)
                staged[(AC_NUM_FIELDS + f) * AC_CHUNK + i] = w_f;
            else if (substep == 1 || method == AC_METHOD_19P)
                w[f][w_row + i] = w_f;
            /* after the last substep w is never read again (the next step starts with alpha = 0),
             * so the 55-point method does not write it back; the 19-point second pass still adds to it */
        }
    }
    for (int f = 0; f < AC_NUM_FIELDS; ++f) {
        AC_FN(store_row)(out[f] + out_row, staged + f * AC_CHUNK, nx, job.streaming);
        if (substep == 0) /* w was not read, so its lines are not in the cache either */
            AC_FN(store_row)(w[f] + w_row, staged + (AC_NUM_FIELDS + f) * AC_CHUNK, nx, job.streaming_w);
    }
#undef AC_PENCIL
}

static int AC_FN(overflows_cache)(const ac_grid *g)
{
    return 3 * AC_NUM_FIELDS * ac_grid_padded_count(g) * sizeof(real) > AC_STREAMING_BYTES;
}

/* A thread's scratch: the pencils of ac_derivatives, then the staged row
 * segments of `out` and w (row_substep). */
enum { AC_SCRATCH = (AC_PENCILS + 2 * AC_NUM_FIELDS) * AC_CHUNK };

/* The job of one substep from `in` to `out`. */
static AC_FN(row_job) AC_FN(make_job)(const ac_grid *g, void *const in[AC_NUM_FIELDS], void *const out[AC_NUM_FIELDS],
                                      void *const w[AC_NUM_FIELDS], void *div_u, double dt, int streaming,
                                      int streaming_w)
{
    AC_FN(row_job) job;
    for (int f = 0; f < AC_NUM_FIELDS; ++f) {
        job.in[f] = (real *)in[f];
        job.out[f] = (real *)out[f];
        job.w[f] = (real *)w[f];
    }
    job.div_u = (real *)div_u;
    job.p = make_physics_params(g);
    job.geo = make_geometry(g);
    ac_grid_strides(g, job.stride);
    job.dt = (real)dt;
    job.streaming = streaming;
    job.streaming_w = streaming_w;
    return job;
}

/* Substep `substep` on row j of one plane from x = i0 to i1, in chunks of
 * AC_CHUNK points; a full chunk runs with its length as a compile-time
 * constant (no remainder loops). */
static inline __attribute__((always_inline)) void AC_FN(row_span_substep)(const ac_grid *g, const AC_FN(row_job) *job,
                                                                          int i0, int i1, int j,
                                                                          ac_plane_offsets planes, real *scratch,
                                                                          int substep, ac_method method)
{
    real *staged = scratch + AC_PENCILS * AC_CHUNK;
    for (int i = i0; i < i1; i += AC_CHUNK) {
        const ptrdiff_t at = ac_row_in_plane(g, j) + i + g->lo[0]; /* within the plane */
        const ptrdiff_t row = planes.in + at, out_row = planes.out + at, w_row = planes.w + at;
        const int count = i1 - i < AC_CHUNK ? i1 - i : AC_CHUNK;
#define AC_ROW(s, m)                                                                                          \
    (count == AC_CHUNK ? AC_FN(row_substep)(job, row, out_row, w_row, AC_CHUNK, scratch, staged, s, m)       \
                       : AC_FN(row_substep)(job, row, out_row, w_row, count, scratch, staged, s, m))
        AC_FOR_EACH_SUBSTEP(substep, method, AC_ROW);
#undef AC_ROW
    }
}

/* One substep over the region r of the grid: the whole 55-point update (seed
 * Alg. 2), or the 19-point method's first pass (seed Alg. 3).  `in` has its
 * ghost zones filled; w is updated and `out` written. */
void AC_FN(substep)(const ac_grid *g, const ac_region *r, ac_method method, void *const in[AC_NUM_FIELDS],
                    void *const out[AC_NUM_FIELDS], void *const w[AC_NUM_FIELDS], void *div_u, int substep,
                    double dt, int *failed)
{
    const int streaming = AC_FN(overflows_cache)(g);
    const AC_FN(row_job) job = AC_FN(make_job)(g, in, out, w, div_u, dt, streaming, streaming);
    int missing = 0;
#pragma omp parallel reduction(| : missing)
    {
        real *scratch = malloc(sizeof(real) * AC_SCRATCH);
        if (!scratch) {
            missing = 1;
        } else {
            /* Blocks of rows in y, swept along z: the 7 z planes of stencil
             * input for one block stay in the L2 cache. */
            const int y_blocks = (r->hi[1] - r->lo[1] + AC_Y_BLOCK - 1) / AC_Y_BLOCK;
#pragma omp for collapse(2) schedule(static)
            for (int jb = 0; jb < y_blocks; ++jb)
                for (int k = r->lo[2]; k < r->hi[2]; ++k) {
                    const int block_start = r->lo[1] + jb * AC_Y_BLOCK;
                    for (int j = block_start; j < r->hi[1] && j < block_start + AC_Y_BLOCK; ++j) {
                        /* rows are too short for the hardware prefetcher to learn: without this the sweep waits on memory */
                        ac_prefetch_ahead(g, (void *const *)job.in, substep > 0 ? (void *const *)job.w : NULL,
                                          AC_NUM_FIELDS, (int)sizeof(real), block_start, j, k);
                        AC_FN(row_span_substep)(g, &job, r->lo[0], r->hi[0], j, ac_same_plane(g, k), scratch, substep, method);
                    }
                }
            free(scratch);
#if defined(__AVX__)
            if (job.streaming)
                _mm_sfence(); /* streaming stores are weakly ordered: make them visible before the barrier */
#endif
        }
    }
    *failed = missing;
}

/* ---- The 55-point RK3 step with its three substeps fused in one z sweep ----
 *
 * Substep s at plane p needs the output of substep s - 1 at planes p - 3 ..
 * p + 3 (and w at p).  Sweeping z with substep 0 six planes ahead of
 * substep 2 and substep 1 three planes ahead, the intermediate fields and w
 * are read back while they are still in the cache: a step moves the fields
 * through memory once instead of three times.  The arithmetic per point is
 * that of the unfused substeps, so the results are identical.
 *
 * The sweep only moves planes; a row of a substep is the loop's own
 * (ac_fused_sweep: this file's row_span_substep for plain hydrodynamics,
 * rows_impl.h for every other configuration), so any configuration whose
 * stencils reach AC_GHOST planes runs on it.
 *
 * The intermediate fields a and b and w live in rings of a few planes (at
 * the start of their buffers), so the sweep's working set stays small
 * whatever the grid.  Periodic z: the sweep starts at plane -6 (substep 0)
 * and -3 (substep 1), which are planes n - 6 and n - 3 of the grid, and ends
 * at n + 2, which are planes 0 .. 2.  Those planes are computed once, at the
 * start, kept aside, and copied back into the rings at the end. */
#ifndef AC_FUSED_DEFINED /* once for both precisions */
#define AC_FUSED_DEFINED
#ifndef AC_FUSED_PLANES
#define AC_FUSED_PLANES 2 /* planes per pass of each substep */
#endif
#define AC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AC_MAX(a, b) ((a) > (b) ? (a) : (b))
enum {
    AC_RING = 2 * AC_GHOST + AC_FUSED_PLANES, /* planes of a that substep 1 reads during one pass, b likewise */
    AC_RING_SLOTS = AC_RING + 2 * AC_GHOST,   /* each ring plane also as a mirror next to the ring's ends */
    AC_KEPT_A = 3 * AC_GHOST,                 /* planes -6 .. 2 of a kept for the end of the sweep (of b: -3 .. 2) */
    /* the kept planes fit in the buffers after the ring */
    AC_FUSED_MIN_NZ = AC_RING_SLOTS + AC_KEPT_A - 2 * AC_GHOST
};

/* Start of the ring slot of plane p of a or b: plane p at slot AC_GHOST +
 * (p mod AC_RING), so that the planes p - 3 .. p + 3 a stencil reads follow
 * each other in memory (mirrors fill the slots before and after the ring). */
static ptrdiff_t ac_ring_plane(const ac_grid *g, int p)
{
    return (AC_GHOST + ac_mod(p, AC_RING)) * ac_plane_size(g);
}

/* w: no stencil reads it, so a plain ring; the planes the start of the sweep
 * writes at the top of the grid are read again only at its end, and keep
 * slots of their own. */
static ptrdiff_t ac_w_plane(const ac_grid *g, int p)
{
    const int top = g->n[2] - 2 * AC_GHOST, k = ac_mod(p, g->n[2]);
    return (k >= top ? AC_RING + (k - top) : ac_mod(p, AC_RING)) * ac_plane_size(g);
}
#endif

/* Copies ring plane p to its mirror, where the ring's ends need one. */
static void AC_FN(mirror_plane)(const ac_grid *g, real *plane, int p)
{
    const ptrdiff_t size = ac_plane_size(g);
    const int q = ac_mod(p, AC_RING);
    if (q < AC_GHOST) /* read past the ring's end */
        memcpy(plane + AC_RING * size, plane, sizeof(real) * (size_t)size);
    if (q >= AC_RING - AC_GHOST) /* read before its start */
        memcpy(plane - AC_RING * size, plane, sizeof(real) * (size_t)size);
}

/* Substep `substep` on planes p0 .. p1 - 1 of the sweep, row j of each
 * plane in turn (neighbouring planes share most of their stencil input,
 * which is then read from memory once), rows shared among the threads of
 * the enclosing parallel region.  Substeps 0 and 1 write a ring; then the
 * planes' y ghost rows and mirrors are filled, and planes the end of the
 * sweep needs are kept (at `kept`, before `kept_from`). */
static void AC_FN(substep_planes)(const ac_grid *g, const ac_fused_sweep *sweep, int p0, int p1, int substep,
                                   ptrdiff_t kept, int kept_from, void *scratch)
{
    if (p0 >= p1)
        return;
    real *const *in = (real *const *)sweep->set[substep], *const *out = (real *const *)sweep->set[(substep + 1) % 3];
    const int row_bytes = (g->n[0] + 2 * AC_GHOST) * (int)sizeof(real);
    const ptrdiff_t size = ac_plane_size(g);
#pragma omp for schedule(static)
    for (int j = 0; j < g->n[1]; ++j) {
        for (int p = p0; p < p1; ++p) {
            ac_plane_offsets planes;
            planes.field = ac_field_plane(g, p);
            planes.in = substep == 0 ? planes.field : ac_ring_plane(g, p);
            planes.out = substep == 2 ? planes.field : ac_ring_plane(g, p);
            planes.w = ac_w_plane(g, p);
            if (substep == 0) /* the row of home that the next plane adds to the stencil */
                for (int f = 0; f < sweep->fields; ++f)
                    ac_prefetch_bytes(in[f] + ac_field_plane(g, p + AC_GHOST + 1) + ac_row_in_plane(g, j) + g->lo[0] -
                                          AC_GHOST,
                                      row_bytes, 0);
            sweep->row[substep](g, sweep->job[substep], j, planes, scratch);
            if (substep < 2)
                for (int f = 0; f < sweep->fields; ++f)
                    AC_FN(fill_row_x_ghosts)(g, out[f] + planes.out + ac_row_in_plane(g, j));
        }
    }
    if (substep < 2) {
#pragma omp for collapse(2) schedule(static)
        for (int f = 0; f < sweep->fields; ++f)
            for (int p = p0; p < p1; ++p) {
                real *plane = out[f] + ac_ring_plane(g, p);
                AC_FN(fill_plane_y_ghosts)(g, plane);
                AC_FN(mirror_plane)(g, plane, p);
                if (p >= kept_from && p < AC_GHOST)
                    memcpy(out[f] + kept + (p - kept_from) * size, plane, sizeof(real) * (size_t)size);
            }
    }
}

/* Planes p0 .. p1 - 1 (at the end of the sweep, n + kept_from <= p) back
 * into the ring of a or b from where substep_planes kept them, with their
 * mirrors. */
static void AC_FN(restore_planes)(const ac_grid *g, void *const set_[AC_MAX_FIELDS], int fields, int p0, int p1,
                                  ptrdiff_t kept, int kept_from)
{
    if (p0 >= p1)
        return;
    real *const *set = (real *const *)set_;
    const ptrdiff_t size = ac_plane_size(g);
    const int n = g->n[2];
#pragma omp for collapse(2) schedule(static)
    for (int f = 0; f < fields; ++f)
        for (int p = p0; p < p1; ++p) {
            real *plane = set[f] + ac_ring_plane(g, p);
            memcpy(plane, set[f] + kept + (p - n - kept_from) * size, sizeof(real) * (size_t)size);
            AC_FN(mirror_plane)(g, plane, p);
        }
}

int AC_FN(can_fuse_step)(const ac_grid *g, ac_method method)
{
    return method == AC_METHOD_55P && g->n[2] >= AC_FUSED_MIN_NZ;
}

/* home -> a -> b -> home, one full step of the sweep's rows; home has its
 * ghost zones filled.  a, b and w are scratch: after the step they hold
 * rings, not fields. */
void AC_FN(fused_sweep)(const ac_grid *g, const ac_fused_sweep *sweep, int *failed)
{
    const int n = g->n[2];
    const ptrdiff_t kept = AC_RING_SLOTS * ac_plane_size(g); /* the kept planes follow the ring */
    enum { FROM_A = -2 * AC_GHOST, FROM_B = -AC_GHOST };        /* the first kept plane of a, of b */
    int missing = 0;
#pragma omp parallel
    {
        void *scratch = malloc(sweep->scratch_bytes);
        if (!scratch) {
#pragma omp atomic write
            missing = 1;
        }
#pragma omp barrier
        int give_up;
#pragma omp atomic read
        give_up = missing;
        if (!give_up) {
            /* pass t: substep 0 on planes t + 6 .., substep 1 on t + 3 .., substep 2 on t .. */
            for (int t = FROM_A - 2 * AC_GHOST; t < n; t += AC_FUSED_PLANES) {
                const int p0 = t + 2 * AC_GHOST, p1 = t + AC_GHOST, p2 = t, e = AC_FUSED_PLANES;
                /* substep 0: planes -6 .. n - 7 computed, n - 6 .. n + 2 restored */
                AC_FN(substep_planes)(g, sweep, AC_MAX(p0, FROM_A), AC_MIN(p0 + e, n + FROM_A), 0, kept, FROM_A,
                                      scratch);
                AC_FN(restore_planes)(g, sweep->set[1], sweep->fields, AC_MAX(p0, n + FROM_A),
                                      AC_MIN(p0 + e, n + AC_GHOST), kept, FROM_A);
                /* substep 1: planes -3 .. n - 4 computed, n - 3 .. n + 2 restored */
                AC_FN(substep_planes)(g, sweep, AC_MAX(p1, FROM_B), AC_MIN(p1 + e, n + FROM_B), 1, kept, FROM_B,
                                      scratch);
                AC_FN(restore_planes)(g, sweep->set[2], sweep->fields, AC_MAX(p1, n + FROM_B),
                                      AC_MIN(p1 + e, n + AC_GHOST), kept, FROM_B);
                /* substep 2: planes 0 .. n - 1, into home */
                AC_FN(substep_planes)(g, sweep, AC_MAX(p2, 0), AC_MIN(p2 + e, n), 2, 0, 0, scratch);
            }
        }
        free(scratch);
#if defined(__AVX__)
        _mm_sfence(); /* streaming stores are weakly ordered: make them visible before the barrier */
#endif
    }
    *failed = missing;
}

/* Row j of one plane of plain hydrodynamics in the fused sweep, one
 * function per substep. */
#define AC_FUSED_ROW(s)                                                                                                \
    static void AC_FN(fused_row_##s)(const ac_grid *g, const void *job, int j, ac_plane_offsets planes, void *scratch) \
    {                                                                                                                  \
        AC_FN(row_span_substep)(g, (const AC_FN(row_job) *)job, 0, g->n[0], j, planes, (real *)scratch, s,            \
                                AC_METHOD_55P);                                                                        \
    }
AC_FUSED_ROW(0)
AC_FUSED_ROW(1)
AC_FUSED_ROW(2)
#undef AC_FUSED_ROW

/* One full step of plain hydrodynamics on the fused sweep. */
void AC_FN(step_fused)(const ac_grid *g, void *const home[AC_NUM_FIELDS], void *const a[AC_NUM_FIELDS],
                       void *const b[AC_NUM_FIELDS], void *const w[AC_NUM_FIELDS], double dt, int *failed)
{
    /* only the step's result leaves the cache */
    const AC_FN(row_job) jobs[3] = {AC_FN(make_job)(g, home, a, w, NULL, dt, 0, 0),
                                    AC_FN(make_job)(g, a, b, w, NULL, dt, 0, 0),
                                    AC_FN(make_job)(g, b, home, w, NULL, dt, AC_FN(overflows_cache)(g), 0)};
    const ac_fused_sweep sweep = {AC_NUM_FIELDS, {home, a, b}, {&jobs[0], &jobs[1], &jobs[2]},
                                  {AC_FN(fused_row_0), AC_FN(fused_row_1), AC_FN(fused_row_2)},
                                  sizeof(real) * AC_SCRATCH};
    AC_FN(fused_sweep)(g, &sweep, failed);
}

/* Second pass of the 19-point method, eqs. (17)-(18); div_u has its ghost
 * zones filled. */
void AC_FN(substep_19p_second)(const ac_grid *g, void *const out_[AC_NUM_FIELDS], void *const w_[AC_NUM_FIELDS],
                               const void *div_u_, int substep, double dt_)
{
    real *const out[3] = {(real *)out_[1], (real *)out_[2], (real *)out_[3]};
    real *const w[3] = {(real *)w_[1], (real *)w_[2], (real *)w_[3]};
    const real *div_u = (const real *)div_u_;
    const ac_physics_params p = make_physics_params(g);
    const ac_geometry geo = make_geometry(g);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
    const int nx = g->n[0];
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int c = 0; c < 3; ++c) {
                AC_VECTOR_LOOP
                for (int i = 0; i < nx; ++i)
                    rk3_add_grad_div(&out[c][row + i], &w[c][row + i], grad_div_19p(div_u + row + i, stride, &geo, c),
                                     substep, dt, p.table.nu);
            }
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
    for (int f = 0; f < g->fields; ++f) {
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

/* One part of the forcing (forcing.h: increment(term, phase, dt, du)) added
 * to the velocity, each point's phase from its axes' (x's in along_x); a
 * macro, so that each part's loop is compiled for it alone. */
#define AC_ADD_FORCING_PART(increment)                                                                        \
    _Pragma("omp parallel for collapse(2) schedule(static)") for (int k = 0; k < g->n[2]; ++k)                  \
    for (int j = 0; j < g->n[1]; ++j) {                                                                          \
        const ac_forcing_phase y = forcing_axis_phase(term, 1, ac_coordinate(g, 1, j)),                          \
                               z = forcing_axis_phase(term, 2, ac_coordinate(g, 2, k));                          \
        const size_t row = ac_grid_index(g, 0, j, k);                                                            \
        for (int i = 0; i < g->n[0]; ++i) {                                                                      \
            double du[3];                                                                                        \
            increment(term, forcing_phase_at(along_x[i], y, z), dt, du);                                         \
            for (int c = 0; c < 3; ++c)                                                                          \
                fields[1 + c][row + (size_t)i] += (real)du[c];                                                   \
        }                                                                                                        \
    }

/* The forcing of one step, eq. (24), added to the velocity: the cosine part,
 * then the sine part of a helical term.  -1 where x's factors find no memory. */
int AC_FN(add_forcing)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS], const ac_forcing_term *term, double dt)
{
    real *const *fields = (real *const *)fields_;
    ac_forcing_phase *along_x = (ac_forcing_phase *)malloc((size_t)g->n[0] * sizeof *along_x);
    if (!along_x)
        return -1;
    for (int i = 0; i < g->n[0]; ++i)
        along_x[i] = forcing_axis_phase(term, 0, ac_coordinate(g, 0, i));
    AC_ADD_FORCING_PART(forcing_increment)
    if (forcing_is_helical(term)) {
        AC_ADD_FORCING_PART(forcing_sine_increment)
    }
    free(along_x);
    return 0;
}
#undef AC_ADD_FORCING_PART
#include "point_impl.h"
