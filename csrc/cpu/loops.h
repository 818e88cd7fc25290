/*
 * loops.h -- what the CPU's row loops share (kernels_impl.h for plain
 * hydrodynamics, rows_impl.h for every other configuration): how a row is
 * cut and vectorised, and the software prefetch of the rows ahead.
 */
#ifndef ASTAROTH_CPU_LOOPS_H
#define ASTAROTH_CPU_LOOPS_H

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

#endif
