/* The analysis operators on the GPU in double precision. */
#define real double
#define AC_FN(name) name##_f64
#include "ops_impl.cuh"
