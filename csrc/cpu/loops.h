/*
 * loops.h -- what the CPU's row loops share (kernels_impl.h for plain
 * hydrodynamics, rows_impl.h for every other configuration): how a row is
 * cut and vectorised, the software prefetch of the rows ahead, and the
 * planes of the fused step (fused_sweep in kernels_impl.h), which both
 * loops run.
 */
#ifndef ASTAROTH_CPU_LOOPS_H
#define ASTAROTH_CPU_LOOPS_H

#include <stddef.h>

#include "../grid.h"

/* The x loop of a row carries no dependence: ask for vectorisation.  (GCC
 * 12 vectorises these loops under ivdep but not under `omp simd`.) */
#if defined(__GNUC__) && !defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define AC_VECTOR_LOOP _Pragma("clang loop vectorize(enable)")
#else
#define AC_VECTOR_LOOP _Pragma("omp simd")
#endif

/* Rows are swept in blocks of AC_Y_BLOCK along y, plane by plane along z. */
enum { AC_Y_BLOCK = 8 };
/* Rows are done in chunks of at most AC_CHUNK points: a compile-time pencil
 * length lets one register address all pencils. */
enum { AC_CHUNK = 64 };
/* The planes ahead whose rows are prefetched. */
enum { AC_PREFETCH_PLANES = 2 };

/* Asks the cache for `bytes` from p on (a row: too short for the hardware
 * prefetcher to learn). */
static inline void ac_prefetch_bytes(const void *p, int bytes, int for_writing)
{
    const char *c = (const char *)p;
    for (int b = 0; b < bytes; b += 64)
        if (for_writing)
            __builtin_prefetch(c + b, 1, 3);
        else
            __builtin_prefetch(c + b, 0, 3);
}

/* Asks the cache for what a sweep of y-blocks along z reads
 * AC_PREFETCH_PLANES planes after plane k: the rows of each field of `in`
 * that plane brings into the stencil of row j of the block starting at
 * block_start (two rows per row of the block, which covers the block and
 * its ghost rows) and, with w (else NULL), the row of w.  `bytes`: of an
 * element. */
static inline void ac_prefetch_ahead(const ac_grid *g, void *const in[], void *const w[], int fields, int bytes,
                                     int block_start, int j, int k)
{
    const int kz = k + AC_PREFETCH_PLANES, block_row = j - block_start;
    if (kz >= g->n[2])
        return;
    for (int f = 0; f < fields; ++f) {
        for (int q = 0; q < 2; ++q) {
            const int jy = block_start - AC_GHOST + 2 * block_row + q;
            if (jy >= g->n[1] + AC_GHOST)
                break;
            ac_prefetch_bytes((const char *)in[f] + bytes * ac_grid_index(g, -AC_GHOST, jy, kz + AC_GHOST),
                              (g->n[0] + 2 * AC_GHOST) * bytes, 0);
        }
        if (w)
            ac_prefetch_bytes((const char *)w[f] + bytes * ac_grid_index(g, 0, j, kz), g->n[0] * bytes, 1);
    }
}

static inline int ac_mod(int p, int n)
{
    const int r = p % n;
    return r < 0 ? r + n : r;
}

/* Elements in one padded z plane. */
static inline ptrdiff_t ac_plane_size(const ac_grid *g)
{
    return (ptrdiff_t)g->m[0] * g->m[1];
}

/* Start of interior plane p (mod n) of a full field. */
static inline ptrdiff_t ac_field_plane(const ac_grid *g, int p)
{
    return (ac_mod(p, g->n[2]) + g->lo[2]) * ac_plane_size(g);
}

/* Start of padded row j (interior index) within its plane. */
static inline ptrdiff_t ac_row_in_plane(const ac_grid *g, int j)
{
    return (ptrdiff_t)(j + g->lo[1]) * g->m[0];
}

/* Where the padded plane of a row starts (elements) in a substep's input,
 * output and w, and in a full padded field (the shock profile): the same
 * plane for a plain substep, slots of rings in the fused step. */
typedef struct {
    ptrdiff_t in, out, w, field;
} ac_plane_offsets;

static inline ac_plane_offsets ac_same_plane(const ac_grid *g, int k)
{
    const ptrdiff_t at = ac_field_plane(g, k);
    const ac_plane_offsets planes = {at, at, at, at};
    return planes;
}

/* What the fused step (fused_sweep, kernels_impl.h) sweeps: one loop's jobs
 * of the three substeps home -> a -> b -> home, and per substep its function
 * that computes row j (interior index) of one plane (one each, so that a
 * loop can compile each substep's row with its RK3 coefficients folded). */
typedef struct {
    int fields;
    void *const *set[3]; /* home, a, b: substep s reads set[s] and writes set[(s + 1) % 3] */
    const void *job[3];
    void (*row[3])(const ac_grid *g, const void *job, int j, ac_plane_offsets planes, void *scratch);
    size_t scratch_bytes; /* per thread, for `row` */
} ac_fused_sweep;

#endif
