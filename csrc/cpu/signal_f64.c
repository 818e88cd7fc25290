/* The CFL step's signal-speed reduction (signal_impl.h) in double precision.  Its own
 * file, for the option below applies to every function in it.
 * no-trapping-math: the row's loop selects (the maximum, the flags) on
 * comparisons that GCC will not vectorise while an operation might trap.
 * No FP exception is read. */
#pragma GCC optimize("no-trapping-math")
#define real double
#define AC_FN(name) name##_f64
#include "signal_impl.h"
