/* The analysis operators on the GPU in single precision. */
#define real float
#define AC_FN(name) name##_f32
#include "ops_impl.cuh"
