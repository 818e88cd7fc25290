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

/* The y ghost rows of interior plane k (its rows' x ghosts already filled). */
static void AC_FN(fill_plane_y_ghosts)(const ac_grid *g, real *f, int k)
{
    const ptrdiff_t sy = g->m[0];
    real *plane = f + (ptrdiff_t)(k + g->lo[2]) * sy * g->m[1];
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
        AC_FN(fill_plane_y_ghosts)(g, f, k);
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        AC_FN(copy_z_images)(g, f, k);
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

/* The x loop of a row carries no dependence: ask for vectorisation.  (GCC
 * 12 vectorises these loops under ivdep but not under `omp simd`.) */
#if defined(__GNUC__) && !defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("clang loop vectorize(enable)")
#else
#define AC_VECTOR_LOOP _Pragma("omp simd")
#endif

/* A row is done in three vectorised passes over x, through "pencils" (one
 * row-long array per entry of ac_derivatives): the derivatives, grad div u
 * (55-point method) and the update.  One pass doing all at once runs out of
 * registers and spills; this way each pass stays in registers. */
enum { AC_Y_BLOCK = 8 };
/* Rows are done in chunks of at most AC_CHUNK points: a compile-time pencil
 * length lets one register address all pencils. */
enum { AC_CHUNK = 64 };
enum { AC_PENCILS = sizeof(ac_derivatives) / sizeof(real) };
/* Above this many bytes of input, output and w per substep (more than a
 * typical last-level cache), `out` is written with streaming stores. */
#define AC_STREAMING_BYTES ((size_t)32 << 20)

typedef struct {
    real *in[AC_NUM_FIELDS], *out[AC_NUM_FIELDS], *w[AC_NUM_FIELDS];
    real *div_u; /* 19-point method only */
    ac_point_params p;
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
                                                                      ptrdiff_t w_row, int nx, real *restrict pencil,
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
            grad[i] = first_derivative(lnrho + i, stride[a], job.p.inv_ds[a]);
    }
    AC_UNROLL
    for (int c = 0; c < 3; ++c) {
        const real *u = in[1 + c] + row;
        AC_UNROLL
        for (int a = 0; a < 3; ++a) {
            const ptrdiff_t s = stride[a];
            const real inv = job.p.inv_ds[a];
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
                grad_div1[i] = (c ? grad_div1[i] : (real)0) + grad_div_mixed_term(u + i, stride, &job.p, i1, c);
                grad_div2[i] = (c ? grad_div2[i] : (real)0) + grad_div_mixed_term(u + i, stride, &job.p, i2, c);
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
        AC_FN(store_row)(out[f] + row, staged + f * AC_CHUNK, nx, job.streaming);
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
    job.p = make_point_params(g->spacing, g->nu, g->cs);
    ac_grid_strides(g, job.stride);
    job.dt = (real)dt;
    job.streaming = streaming;
    job.streaming_w = streaming_w;
    return job;
}

/* Substep `substep` on row j of plane k from x = i0 to i1, in chunks of
 * AC_CHUNK points; a full chunk runs with its length as a compile-time
 * constant (no remainder loops). */
static inline __attribute__((always_inline)) void AC_FN(row_span_substep)(const ac_grid *g, const AC_FN(row_job) *job,
                                                                          int i0, int i1, int j, int k,
                                                                          ptrdiff_t w_shift, real *scratch, int substep,
                                                                          ac_method method)
{
    real *staged = scratch + AC_PENCILS * AC_CHUNK;
    for (int i = i0; i < i1; i += AC_CHUNK) {
        const ptrdiff_t start = (ptrdiff_t)ac_grid_index(g, i, j, k);
        const int count = i1 - i < AC_CHUNK ? i1 - i : AC_CHUNK;
#define AC_ROW(s, m)                                                                                    \
    (count == AC_CHUNK ? AC_FN(row_substep)(job, start, start + w_shift, AC_CHUNK, scratch, staged, s, m)                 \
                       : AC_FN(row_substep)(job, start, start + w_shift, count, scratch, staged, s, m))
        AC_FOR_EACH_SUBSTEP(substep, method, AC_ROW);
#undef AC_ROW
    }
}

/* Asks the cache for `bytes` from p on (a row: too short for the hardware
 * prefetcher to learn). */
static void AC_FN(prefetch_bytes)(const real *p, int bytes, int for_writing)
{
    const char *c = (const char *)p;
    for (int b = 0; b < bytes; b += 64)
        if (for_writing)
            __builtin_prefetch(c + b, 1, 3);
        else
            __builtin_prefetch(c + b, 0, 3);
}

/* Asks the cache for what the sweep below reads AC_PREFETCH_PLANES planes
 * later: the input rows that plane brings into the stencil of y-block jb
 * (two rows per row of the block, which covers the block and its ghost
 * rows) and, where the substep reads it, the row of w.  Rows are short (one x line), too short for the
 * hardware prefetcher to learn; without this the sweep waits on memory. */
enum { AC_PREFETCH_PLANES = 2 };

static void AC_FN(prefetch_ahead)(const ac_grid *g, const AC_FN(row_job) *job, int block_start, int j, int k,
                                   int reads_w)
{
    const int block_row = j - block_start;
    const int row_bytes = (g->n[0] + 2 * AC_GHOST) * (int)sizeof(real);
    const int kz = k + AC_PREFETCH_PLANES;
    if (kz >= g->n[2])
        return;
    for (int f = 0; f < AC_NUM_FIELDS; ++f) {
        for (int q = 0; q < 2; ++q) {
            const int jy = block_start - AC_GHOST + 2 * block_row + q;
            if (jy >= g->n[1] + AC_GHOST)
                break;
            AC_FN(prefetch_bytes)(job->in[f] + ac_grid_index(g, -AC_GHOST, jy, kz + AC_GHOST), row_bytes, 0);
        }
        if (reads_w)
            AC_FN(prefetch_bytes)(job->w[f] + ac_grid_index(g, 0, j, kz), g->n[0] * (int)sizeof(real), 1);
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
                        AC_FN(prefetch_ahead)(g, &job, block_start, j, k, substep > 0);
                        AC_FN(row_span_substep)(g, &job, r->lo[0], r->hi[0], j, k, 0, scratch, substep, method);
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
 * Substep s at plane k needs the output of substep s - 1 at planes k - 3 ..
 * k + 3 (and w at k).  Sweeping z with substep 0 six planes ahead of
 * substep 2 and substep 1 three planes ahead, the intermediate fields and w
 * are read back while they are still in the cache: a step then moves the
 * fields through memory about once instead of three times.  The arithmetic
 * per point is that of the unfused substeps, so the results are identical.
 * Periodic z: the planes that the first planes' stencils reach across the
 * boundary are done first (the prologue). */
enum { AC_FUSED_MIN_NZ = 4 * AC_GHOST }; /* prologue planes n-6 .. n-1 and 0 .. 5 are distinct */
#ifndef AC_FUSED_PLANES
#define AC_FUSED_PLANES 2 /* planes per pass of each substep */
#endif
#define AC_MIN(a, b) ((a) < (b) ? (a) : (b))

/* w is read at its own point only (no stencil), so the sweep keeps it in a
 * ring of planes at the start of the w buffer: substep 0 writes a plane's w
 * and substep 2 reads it for the last time 2 AC_GHOST planes and one pass
 * later.  The planes the prologue writes at the top of the grid are read
 * again only at the end of the sweep, and keep slots of their own.  The
 * sweep then works on a few planes of w instead of all of them. */
enum { AC_W_RING = AC_FUSED_PLANES + 2 * AC_GHOST };

static ptrdiff_t AC_FN(fused_w_shift)(const ac_grid *g, int k)
{
    const int top = g->n[2] - 2 * AC_GHOST; /* the prologue's planes at the top: top .. n - 1 */
    const int slot = k >= top ? AC_W_RING + (k - top) : k % AC_W_RING;
    return (ptrdiff_t)(slot - (k + g->lo[2])) * g->m[0] * g->m[1];
}

/* Substep `substep` on interior planes k0 .. k1 - 1, row j of each plane
 * in turn (neighbouring planes share most of their stencil input, which is
 * then read from memory once), rows shared among the threads of the
 * enclosing parallel region.  With `ghosts` the output planes' ghost zones
 * and z images are filled, for the next substep. */
static void AC_FN(substep_planes)(const ac_grid *g, const AC_FN(row_job) *job, int k0, int k1, int substep,
                                   int ghosts, real *scratch)
{
    if (k0 >= k1)
        return;
    const int row_bytes = (g->n[0] + 2 * AC_GHOST) * (int)sizeof(real);
#pragma omp for schedule(static)
    for (int j = 0; j < g->n[1]; ++j) {
        for (int k = k0; k < k1; ++k) {
            if (substep == 0 && k + AC_GHOST + 1 < g->n[2]) /* the home row the next plane adds to the stencil */
                for (int f = 0; f < AC_NUM_FIELDS; ++f)
                    AC_FN(prefetch_bytes)(job->in[f] + ac_grid_index(g, -AC_GHOST, j, k + AC_GHOST + 1), row_bytes, 0);
            AC_FN(row_span_substep)(g, job, 0, g->n[0], j, k, AC_FN(fused_w_shift)(g, k), scratch, substep,
                                    AC_METHOD_55P);
            if (ghosts)
                for (int f = 0; f < AC_NUM_FIELDS; ++f)
                    AC_FN(fill_row_x_ghosts)(g, job->out[f] + ac_grid_index(g, -g->lo[0], j, k));
        }
    }
    if (ghosts) {
#pragma omp for collapse(2) schedule(static)
        for (int f = 0; f < AC_NUM_FIELDS; ++f)
            for (int k = k0; k < k1; ++k) {
                AC_FN(fill_plane_y_ghosts)(g, job->out[f], k);
                AC_FN(copy_z_images)(g, job->out[f], k);
            }
    }
}

int AC_FN(can_fuse_step)(const ac_grid *g, ac_method method)
{
    return method == AC_METHOD_55P && g->n[2] >= AC_FUSED_MIN_NZ;
}

/* home -> a -> b -> home, one full step; home has its ghost zones filled. */
void AC_FN(step_fused)(const ac_grid *g, void *const home[AC_NUM_FIELDS], void *const a[AC_NUM_FIELDS],
                       void *const b[AC_NUM_FIELDS], void *const w[AC_NUM_FIELDS], double dt, int *failed)
{
    /* only the step's result leaves the cache */
    const AC_FN(row_job) jobs[3] = {AC_FN(make_job)(g, home, a, w, NULL, dt, 0, 0),
                                    AC_FN(make_job)(g, a, b, w, NULL, dt, 0, 0),
                                    AC_FN(make_job)(g, b, home, w, NULL, dt, AC_FN(overflows_cache)(g), 0)};
    const int n = g->n[2];
    int missing = 0;
#pragma omp parallel
    {
        real *scratch = malloc(sizeof(real) * AC_SCRATCH);
        if (!scratch) {
#pragma omp atomic write
            missing = 1;
        }
#pragma omp barrier
        int give_up;
#pragma omp atomic read
        give_up = missing;
        if (!give_up) {
#define AC_PLANES(s, k0, k1, ghosts) AC_FN(substep_planes)(g, &jobs[s], (k0), (k1), (s), (ghosts), scratch)
            AC_PLANES(0, n - 2 * AC_GHOST, n, 1);
            AC_PLANES(0, 0, 2 * AC_GHOST, 1);
            AC_PLANES(1, n - AC_GHOST, n, 1);
            AC_PLANES(1, 0, AC_GHOST, 1);
            for (int k = 0; k < n; k += AC_FUSED_PLANES) {
                const int end = k + AC_FUSED_PLANES < n ? k + AC_FUSED_PLANES : n;
                AC_PLANES(0, k + 2 * AC_GHOST, AC_MIN(end + 2 * AC_GHOST, n - 2 * AC_GHOST), 1);
                AC_PLANES(1, k + AC_GHOST, AC_MIN(end + AC_GHOST, n - AC_GHOST), 1);
                AC_PLANES(2, k, end, 0);
            }
#undef AC_PLANES
        }
        free(scratch);
#if defined(__AVX__)
        _mm_sfence(); /* streaming stores are weakly ordered: make them visible before the barrier */
#endif
    }
    *failed = missing;
}

/* Second pass of the 19-point method, eqs. (17)-(18); div_u has its ghost
 * zones filled. */
void AC_FN(substep_19p_second)(const ac_grid *g, void *const out_[AC_NUM_FIELDS], void *const w_[AC_NUM_FIELDS],
                               const void *div_u_, int substep, double dt_)
{
    real *const out[3] = {(real *)out_[1], (real *)out_[2], (real *)out_[3]};
    real *const w[3] = {(real *)w_[1], (real *)w_[2], (real *)w_[3]};
    const real *div_u = (const real *)div_u_;
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
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
                    rk3_add_grad_div(&out[c][row + i], &w[c][row + i], grad_div_19p(div_u + row + i, stride, &p, c),
                                     substep, dt, p.nu);
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

/* The forcing of one step, eq. (24), added to the velocity. */
void AC_FN(add_forcing)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS], const ac_forcing_term *term, double dt)
{
    real *const *fields = (real *const *)fields_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const double y = ac_coordinate(g, 1, j), z = ac_coordinate(g, 2, k);
            const size_t row = ac_grid_index(g, 0, j, k);
            for (int i = 0; i < g->n[0]; ++i) {
                double du[3];
                forcing_increment(term, ac_coordinate(g, 0, i), y, z, dt, du);
                for (int c = 0; c < 3; ++c)
                    fields[1 + c][row + (size_t)i] += (real)du[c];
            }
        }
}
