/* The CUDA kernels in single precision. */
#define real float
#define AC_FN(name) name##_f32
#include "kernels_impl.cuh"
