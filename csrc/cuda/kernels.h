/*
 * kernels.h -- the CUDA launchers, once per precision (suffix _f32, _f64),
 * and the error recorder they share with cuda_backend.cu.
 */
#ifndef ASTAROTH_CUDA_KERNELS_H
#define ASTAROTH_CUDA_KERNELS_H

#include <cuda_runtime.h>

#include "../forcing.h"
#include "../grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Turns a CUDA error into AC_ERR_DEVICE and remembers "what: message" for
 * ac_cuda_last_error(); AC_OK for cudaSuccess. */
ac_status ac_cuda_record(cudaError_t err, const char *what);

/* Thread-block tile of the integration kernels: x, y threads, z points. */
typedef struct {
    int x, y, z;
} ac_tile;
enum { AC_MAX_TILE_THREADS = 128 };
ac_tile ac_cuda_tile(void);

/* The 55-point kernel's tiles are compile-time shapes (shared-memory
 * offsets become constants); these are built.  ASTAROTH_STREAM_TILE=
 * "tx,ty,runs" picks one (runs up each column of tiles, 0: chosen per
 * grid); unset, x and y are 0 and each precision takes its default. */
#define AC_STREAM_TILES AC_STREAM_TILE(32, 8) AC_STREAM_TILE(32, 4) AC_STREAM_TILE(64, 4)
ac_tile ac_cuda_stream_tile(void);

#define AC_DECLARE_CUDA_KERNELS(sfx)                                                                         \
    ac_status cuda_substep_##sfx(const ac_grid *g, const ac_region *r, ac_method method,                      \
                                 void *const in[AC_NUM_FIELDS], void *const out[AC_NUM_FIELDS],              \
                                 void *const w_in[AC_NUM_FIELDS], void *const w_out[AC_NUM_FIELDS],          \
                                 void *div_u, int substep, double dt, cudaStream_t stream);                  \
    ac_status cuda_reduce_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS], int first_field,       \
                                unsigned long long *max_u2_bits, unsigned int *nonfinite, cudaStream_t stream); \
    ac_status cuda_add_forcing_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS],                   \
                                     const ac_forcing_term *term, double dt, cudaStream_t stream);           \
    ac_status cuda_fill_ghost_axis_##sfx(const ac_grid *g, void *const fields[AC_NUM_FIELDS], int axis,       \
                                         cudaStream_t stream);

AC_DECLARE_CUDA_KERNELS(f32)
AC_DECLARE_CUDA_KERNELS(f64)

#ifdef __cplusplus
}
#endif

#endif
