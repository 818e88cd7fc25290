/*
 * ops.h -- periodic derivatives of strided device arrays (astaroth.ops on
 * the GPU), once per precision.  Plain C: the binding includes it without
 * the CUDA headers, so the stream travels as a void pointer.
 */
#ifndef ASTAROTH_CUDA_OPS_H
#define ASTAROTH_CUDA_OPS_H

#include <stddef.h>

#include "../grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = d^derivative in / dx_axis^derivative, periodic along `axis`, spacing
 * h, central differences of the given accuracy (2, 4, 6 or 8).  `in` and
 * `out` are device addresses of 3-D arrays of `shape` (pad 1-D and 2-D
 * arrays with axes of size 1) with element strides `in_stride` and
 * `out_stride` (any sign; out must not overlap in).  Queued on `stream`
 * (a cudaStream_t; NULL: the legacy default stream) without waiting for
 * it.  AC_ERR_ARGUMENT for a bad size, axis, order, accuracy or spacing,
 * AC_ERR_DEVICE (ac_cuda_last_error() says why) when the launch fails. */
ac_status cuda_periodic_derivative_f32(const void *in, void *out, const ptrdiff_t shape[3], const ptrdiff_t in_stride[3],
                                       const ptrdiff_t out_stride[3], int axis, int derivative, int accuracy, double h,
                                       void *stream);
ac_status cuda_periodic_derivative_f64(const void *in, void *out, const ptrdiff_t shape[3], const ptrdiff_t in_stride[3],
                                       const ptrdiff_t out_stride[3], int axis, int derivative, int accuracy, double h,
                                       void *stream);

#ifdef __cplusplus
}
#endif

#endif
