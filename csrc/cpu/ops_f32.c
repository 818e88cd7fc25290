/* The analysis operators in single precision. */
#define real float
#define AC_FN(name) name##_f32
#include "ops_impl.h"
