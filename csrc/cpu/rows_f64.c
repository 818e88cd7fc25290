/* The row loop of the extended physics (rows_impl.h) in double precision.  Its
 * own file, for the options below apply to every function in it: without
 * them GCC orders a point's products differently from the point-by-point
 * loop whose bits tests/data/bitwise_cpu.npz stores. */
/* no-trapping-math: pass 2 holds terms under run-time conditions (a
 * parameter that is not 0, a term that is on); without AVX-512's masked
 * instructions GCC will not compute them speculatively for a vectorised
 * select while an operation might trap, and left every pass 2 scalar on AVX2
 * (benchmarks/results/2026-11-28-cpu-pencil).  No FP exception is read. */
#pragma GCC optimize("no-tree-slp-vectorize", "no-tree-sink", "no-partial-inlining", \
                     "no-trapping-math")
#define real double
#define AC_FN(name) name##_f64
#include "rows_impl.h"
