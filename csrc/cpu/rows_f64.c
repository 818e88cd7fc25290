/* The row loop of the extended physics (rows_impl.h) in double precision.  Its
 * own file, for the options below apply to every function in it: without
 * them GCC orders a point's products differently from the point-by-point
 * loop whose bits tests/data/bitwise_cpu.npz stores. */
#pragma GCC optimize("no-tree-slp-vectorize", "no-tree-sink", "no-partial-inlining")
#define real double
#define AC_FN(name) name##_f64
#include "rows_impl.h"
