/* ops.h -- periodic derivatives of plain host arrays (astaroth.ops). */
#ifndef ASTAROTH_CPU_OPS_H
#define ASTAROTH_CPU_OPS_H

#include <stddef.h>

void periodic_derivative_f32(const void *in, void *out, ptrdiff_t outer, ptrdiff_t n, ptrdiff_t inner,
                             int derivative, int accuracy, double h);
void periodic_derivative_f64(const void *in, void *out, ptrdiff_t outer, ptrdiff_t n, ptrdiff_t inner,
                             int derivative, int accuracy, double h);

#endif
