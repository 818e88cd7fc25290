/* The CUDA kernels in double precision. */
#define real double
#define AC_FN(name) name##_f64
#include "kernels_impl.cuh"
