// The scratch driver behind tune.log (not part of the build): times the astaroth.ops CUDA kernels of one
// -D variant at 256^3 float32, x fastest, called through cuda_periodic_derivative_f32, against copies.
// Built from a folder one level below the repository root, e.g.
//   nvcc -O3 -std=c++14 -I../csrc -gencode=arch=compute_90,code=sm_90 -DAC_OPS_VECTOR_ROWS=4 \
//        -DAC_OPS_ROW_THREADS=256 tune_ops.cu ../csrc/cuda/ops_f32.cu -o tune_vrows4_t256
// Each time is the fastest of 30 launches queued back to back with an event between each two; the
// ratio column divides by "copy (synchronous best)", a copy waited for after each call (slower).
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "../csrc/cuda/ops.h"
#include "../csrc/cuda/kernels.h"
static char msg[256];
extern "C" ac_status ac_cuda_record(cudaError_t err, const char *what) {
    if (err == cudaSuccess) return AC_OK;
    snprintf(msg, sizeof msg, "%s: %s", what, cudaGetErrorString(err)); fprintf(stderr, "%s\n", msg); return AC_ERR_DEVICE; }
__global__ void fill(float *a, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) a[i] = __sinf(0.001f * i); }
template <class F> static void timeit(const char *name, F f, double bytes, double ref) {
    const int reps = 30; cudaEvent_t e[reps + 1]; for (auto &x : e) cudaEventCreate(&x);
    f(); cudaDeviceSynchronize();
    for (int i = 0; i < reps; ++i) { cudaEventRecord(e[i]); f(); } cudaEventRecord(e[reps]); cudaEventSynchronize(e[reps]);
    std::vector<float> ms(reps); for (int i = 0; i < reps; ++i) cudaEventElapsedTime(&ms[i], e[i], e[i + 1]);
    std::sort(ms.begin(), ms.end());
    double best = bytes / (ms[0] * 1e-3) / 1e9, med = bytes / (ms[reps / 2] * 1e-3) / 1e9;
    printf("%-28s best %7.0f GB/s (%.3f)  median %7.0f GB/s (%.3f)  %s\n", name, best, ref > 0 ? best / ref : 1.0, med, ref > 0 ? med / ref : 1.0,
           cudaGetErrorString(cudaGetLastError()));
    for (auto &x : e) cudaEventDestroy(x);
}
int main() {
    const long n = 256; const long N = n * n * n; const size_t bytes = N * sizeof(float);
    float *a, *b; cudaMalloc(&a, bytes + 64); cudaMalloc(&b, bytes);
    fill<<<(N + 255) / 256, 256>>>(a, N); cudaDeviceSynchronize();
    double copy = 0;
    timeit("copy 64 MiB (D2D)", [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); }, 2.0 * bytes, 0);
    { // measure again to store reference
        const int reps = 30; cudaEvent_t s, t; cudaEventCreate(&s); cudaEventCreate(&t); float best = 1e9;
        for (int i = 0; i < reps; ++i) { cudaEventRecord(s); cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); cudaEventRecord(t); cudaEventSynchronize(t); float ms; cudaEventElapsedTime(&ms, s, t); best = std::min(best, ms); }
        copy = 2.0 * bytes / (best * 1e-3) / 1e9; printf("copy (synchronous best) %.0f GB/s\n", copy);
    }
    ptrdiff_t shape[3] = {n, n, n}, st[3] = {1, n, n * n};
    for (int acc : {6, 8}) for (int axis = 0; axis < 3; ++axis) {
        char name[64]; snprintf(name, sizeof name, "d/d%c acc %d", "xyz"[axis], acc);
        timeit(name, [&] { cuda_periodic_derivative_f32(a, b, shape, st, st, axis, 1, acc, 0.1, 0); }, 2.0 * bytes, copy);
    }
    timeit("d/dx acc 6 (tile kernel)", [&] { cuda_periodic_derivative_f32(a + 1, b, shape, st, st, 0, 1, 6, 0.1, 0); }, 2.0 * bytes, copy);
    return 0;
}
