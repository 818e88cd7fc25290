/*
 * cuda_backend.h -- the GPU backend: fields in device memory, the 55-point
 * and 19-point methods, reductions on the device.  Built when nvcc is found.
 */
#ifndef ASTAROTH_CUDA_BACKEND_H
#define ASTAROTH_CUDA_BACKEND_H

#include <stddef.h>

#include "../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const ac_backend_ops ac_cuda_backend;

/* "what: CUDA message" of the last failed CUDA call in this thread. */
const char *ac_cuda_last_error(void);

/* GPUs visible (0 when there is no driver or no device). */
int ac_cuda_device_count(void);

/* Free and total device memory in bytes, on the current device. */
ac_status ac_cuda_memory_info(size_t *free_bytes, size_t *total_bytes);

/* Device-to-device copy bandwidth in bytes/s (bytes read plus written),
 * the best of `repeats` copies of `bytes` bytes. */
ac_status ac_cuda_copy_bandwidth(size_t bytes, int repeats, double *bytes_per_second);

/* Make GPU `device` current for this thread (one GPU per MPI rank). */
ac_status ac_cuda_set_device(int device);

/* The device the backend runs on. */
int ac_cuda_current_device(void);

/* Ensemble member runs stepped in shared launches (cuda_backend.cu's
 * run_members) since the process began: which path an ensemble took. */
unsigned long long ac_cuda_shared_member_runs(void);

#ifdef __cplusplus
}
#endif

#endif
