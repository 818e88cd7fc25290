/* The row loop of the extended physics (rows_impl.h) in single precision.  Its
 * own file, for the options below apply to every function in it: without
 * them GCC orders a point's products differently from the point-by-point
 * loop whose bits tests/data/bitwise_cpu.npz stores. */
#pragma GCC optimize("no-tree-slp-vectorize", "no-tree-sink", "no-partial-inlining")
#define real float
#define AC_FN(name) name##_f32
#include "rows_impl.h"
