/*
 * ops_impl.cuh -- periodic central derivatives of strided device arrays
 * (astaroth.ops on the GPU), for one precision; included by ops_f32.cu and
 * ops_f64.cu, which define `real` and AC_FN.  The weights are
 * central_coefficient() of physics.h, evaluated on the host and passed to
 * the kernels by value: the project keeps one table of coefficients.
 *
 * The kernels are memory bound (2R + 1 multiply-adds per point), so the
 * design goal is one read and one write of every point from DRAM, with
 * every warp access coalesced along the array's contiguous axis, and many
 * independent loads in flight per thread (all issued before any arithmetic):
 *  - walk kernel, derivative along a strided axis (y or z of an x-fastest
 *    array): each thread walks 64 bytes of points along it (16 floats, 8
 *    doubles) with the inputs they need in registers; neighbouring threads
 *    take neighbouring points of the contiguous axis; the halo rows are
 *    re-read from L2;
 *  - vector kernel, derivative along the contiguous axis when rows are
 *    16-byte aligned and hold whole vectors: each thread loads one 16-byte
 *    vector of several rows and the vectors on either side (from L1);
 *  - tile kernel, the contiguous axis otherwise: coalesced loads of a row
 *    tile with R points of halo on each side into shared memory.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "../physics.h"
#include "kernels.h"
#include "ops.h"

#ifndef ASTAROTH_CUDA_OPS_COMMON
#define ASTAROTH_CUDA_OPS_COMMON

/* Tuning constants, from timings of float32 first derivatives at 256^3 on
 * an H100 (variants in benchmarks/results/2026-11-23-h100-ops/tune.log and
 * earlier-tile-kernel/tune*.log); -D overrides them for experiments. */
#ifndef AC_OPS_WALK_BYTES
#define AC_OPS_WALK_BYTES 64 /* walk kernel: outputs per thread, in bytes (16 to 128 within 3 %) */
#endif
#ifndef AC_OPS_VECTOR_ROWS
#define AC_OPS_VECTOR_ROWS 4 /* vector kernel: rows per thread in float32 (half that in float64) */
#endif
#ifndef AC_OPS_ROWS_BYTES
#define AC_OPS_ROWS_BYTES 16 /* tile kernel: rows per thread times the element size (16: 0.75 of copy, 32: 0.71) */
#endif
#ifndef AC_OPS_ROW_THREADS
#define AC_OPS_ROW_THREADS 256 /* tile and vector kernels: threads of a block along the contiguous axis, at most */
#endif
enum { AC_OPS_THREADS = 256, AC_OPS_MAX_RADIUS = 4 };
enum { AC_OPS_MAX_POINTS = 1 << 30 }; /* per axis: keeps every index sum in an int */

/* The array as the kernels see it: axis 0 the derivative axis, axis 1 the
 * axis across which neighbouring threads lie (the smaller input stride),
 * axis 2 the last; sizes, and element strides of input and output. */
typedef struct {
    int n[3];
    ptrdiff_t in[3], out[3];
} ac_ops_layout;

/* i modulo n, in [0, n).  i lies within R of [0, n) except in a tile's
 * unused tail, and n may be smaller than R, hence the general remainder
 * off the fast path. */
__device__ __forceinline__ int ac_ops_wrap(int i, int n)
{
    if ((unsigned)i < (unsigned)n)
        return i;
    i %= n;
    return i < 0 ? i + n : i;
}

/* 16-byte vectors of reals: one load or store instruction moves four
 * floats or two doubles. */
template <typename T>
struct ac_ops_vector;
template <>
struct ac_ops_vector<float> {
    typedef float4 type;
};
template <>
struct ac_ops_vector<double> {
    typedef double2 type;
};
/* vector <-> points, component by component: a union, or a cast of the
 * points' array, splits the vector store into scalar stores */
__device__ __forceinline__ void ac_ops_unpack(float4 v, float *e)
{
    e[0] = v.x, e[1] = v.y, e[2] = v.z, e[3] = v.w;
}
__device__ __forceinline__ void ac_ops_unpack(double2 v, double *e)
{
    e[0] = v.x, e[1] = v.y;
}
__device__ __forceinline__ float4 ac_ops_pack(const float *e)
{
    return make_float4(e[0], e[1], e[2], e[3]);
}
__device__ __forceinline__ double2 ac_ops_pack(const double *e)
{
    return make_double2(e[0], e[1]);
}

/* The kernel that differentiates an array (see the file comment). */
typedef enum { AC_OPS_WALK_KERNEL, AC_OPS_TILE_KERNEL, AC_OPS_VECTOR_KERNEL } ac_ops_kernel;

static unsigned ac_ops_pow2_at_least(long long n)
{
    unsigned p = 1;
    while (p < n && p < (1u << 30))
        p <<= 1;
    return p;
}

static unsigned ac_ops_min(long long a, long long b)
{
    return (unsigned)(a < b ? a : b);
}
#endif /* ASTAROTH_CUDA_OPS_COMMON */

/* Outputs per thread along a strided axis: 16 floats or 8 doubles, so that
 * the window of inputs fits in registers without spilling. */
constexpr int AC_FN(ops_walk) = AC_OPS_WALK_BYTES / (int)sizeof(real);

/* Rows per thread of the tile kernel: 4 floats or 2 doubles, the loads one
 * thread has in flight before the tile fills. */
constexpr int AC_FN(ops_rows) = AC_OPS_ROWS_BYTES / (int)sizeof(real);

/* The vector kernel: points per vector, neighbour vectors needed on each
 * side for a stencil of radius R, rows per thread (float64 vectors hold
 * half the points and need up to twice the halo, so half the rows). */
constexpr int AC_FN(ops_vector_points) = 16 / (int)sizeof(real);
constexpr int AC_FN(ops_vector_rows) = AC_OPS_VECTOR_ROWS * 4 / (int)sizeof(real);

/* One stencil's weights, already divided by h^derivative. */
typedef struct {
    real centre;                      /* the centre point (second derivative) */
    real pair[AC_OPS_MAX_RADIUS + 1]; /* pair[r] multiplies f(i + r) -+ f(i - r), r >= 1 */
} AC_FN(ops_weights);

/* The D-th derivative at v[0] from v[-R] .. v[R]: the first derivative is
 * odd (sum_r c_r (f_{i+r} - f_{i-r}), the centre unused, as on the host),
 * the second even.  The indices are compile-time constants once inlined,
 * so a register window stays in registers. */
template <int R, int D>
__device__ __forceinline__ real AC_FN(ops_apply)(const real *v, const AC_FN(ops_weights) & w)
{
    real sum = D == 2 ? w.centre * v[0] : (real)0;
#pragma unroll
    for (int r = 1; r <= R; ++r)
        sum += w.pair[r] * (D == 2 ? v[r] + v[-r] : v[r] - v[-r]);
    return sum;
}

/* The walk kernel: derivative along a strided axis (see the file comment). */
template <int R, int D>
__global__ void __launch_bounds__(AC_OPS_THREADS)
    AC_FN(ops_walk_kernel)(const real *__restrict__ in, real *__restrict__ out, ac_ops_layout g, AC_FN(ops_weights) w)
{
    const int i1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (i1 >= g.n[1])
        return;
    for (int i2 = blockIdx.y * blockDim.y + threadIdx.y; i2 < g.n[2]; i2 += gridDim.y * blockDim.y) {
        const real *src = in + i1 * g.in[1] + i2 * g.in[2];
        real *dst = out + i1 * g.out[1] + i2 * g.out[2];
        for (int start = blockIdx.z * AC_FN(ops_walk); start < g.n[0]; start += gridDim.z * AC_FN(ops_walk)) {
            real v[AC_FN(ops_walk) + 2 * R];
#pragma unroll
            for (int k = 0; k < AC_FN(ops_walk) + 2 * R; ++k) /* all loads first: many in flight per thread */
                v[k] = __ldg(src + ac_ops_wrap(start - R + k, g.n[0]) * g.in[0]);
#pragma unroll
            for (int t = 0; t < AC_FN(ops_walk); ++t)
                if (start + t < g.n[0])
                    dst[(start + t) * g.out[0]] = AC_FN(ops_apply)<R, D>(v + t + R, w);
        }
    }
}

/* The tile kernel: derivative along the contiguous axis of any array (see
 * the file comment).  The block is blockDim.x points of axis 0 by
 * blockDim.y * ops_rows rows of axis 1; grid y steps along axis 0, grid z
 * along axis 2. */
template <int R, int D>
__global__ void __launch_bounds__(AC_OPS_THREADS, 4) /* <= 64 registers: 4 blocks of 256 threads per SM */
    AC_FN(ops_tile_kernel)(const real *__restrict__ in, real *__restrict__ out, ac_ops_layout g, AC_FN(ops_weights) w)
{
    extern __shared__ __align__(16) unsigned char ops_shared[];
    const int width = blockDim.x + 2 * R; /* one tile row: the block's points and the halo */
    real *tile = (real *)ops_shared + threadIdx.y * AC_FN(ops_rows) * width;
    const int first_row = blockIdx.x * blockDim.y * AC_FN(ops_rows) + threadIdx.y * AC_FN(ops_rows);
    for (int i2 = blockIdx.z; i2 < g.n[2]; i2 += gridDim.z) {
        for (int start = blockIdx.y * blockDim.x; start < g.n[0]; start += gridDim.y * blockDim.x) {
            /* every load of the pass into registers before any store to the
             * tile: a load followed by its store, row after row, would keep
             * one load in flight per thread and reach half the bandwidth */
            const int tx = threadIdx.x, points = blockDim.x;
            const bool halo_thread = tx < 2 * R; /* the left halo for tx < R, the right one after */
            const int halo_x = tx < R ? start - R + tx : start + points + tx - R;
            real centre[AC_FN(ops_rows)], halo[AC_FN(ops_rows)];
#pragma unroll
            for (int p = 0; p < AC_FN(ops_rows); ++p) {
                const real *src = in + (first_row + p) * g.in[1] + i2 * g.in[2];
                const bool row_ok = first_row + p < g.n[1];
                centre[p] = row_ok ? __ldg(src + ac_ops_wrap(start + tx, g.n[0]) * g.in[0]) : (real)0;
                halo[p] = row_ok && halo_thread ? __ldg(src + ac_ops_wrap(halo_x, g.n[0]) * g.in[0]) : (real)0;
            }
#pragma unroll
            for (int p = 0; p < AC_FN(ops_rows); ++p) {
                tile[p * width + R + tx] = centre[p];
                if (halo_thread)
                    tile[p * width + (tx < R ? tx : points + tx)] = halo[p];
            }
            __syncthreads();
            const int i0 = start + tx;
#pragma unroll
            for (int p = 0; p < AC_FN(ops_rows); ++p)
                if (first_row + p < g.n[1] && i0 < g.n[0])
                    out[i0 * g.out[0] + (first_row + p) * g.out[1] + i2 * g.out[2]] =
                        AC_FN(ops_apply)<R, D>(tile + p * width + tx + R, w);
            __syncthreads(); /* the tile is refilled on the next pass */
        }
    }
}

/* The vector kernel: derivative along the contiguous axis when every row
 * starts on a 16-byte boundary and holds whole vectors (sim.view of a grid
 * with nx a multiple of 4, most CuPy arrays): each thread takes one vector
 * of points in each of ops_vector_rows rows and loads it and the H vectors
 * on either side with 16-byte loads, all before any arithmetic.
 * Neighbouring threads take neighbouring vectors, so each load instruction
 * of a warp reads 512 contiguous bytes, and the neighbour vectors, read by
 * the adjacent threads in the same pass, come from L1.  No shared memory,
 * no barrier: the tile kernel spends its time on shared-memory traffic (one
 * store and 2R + 1 loads per point) and moved 1.6-2.0 TB/s on an H100 at
 * 256^3, this one 2.8 TB/s, as fast as a copy of the same array
 * (benchmarks/results/2026-11-23-h100-ops). */
template <int R, int D>
__global__ void __launch_bounds__(AC_OPS_THREADS, 3) /* <= 80 registers: the window without spills */
    AC_FN(ops_vector_kernel)(const real *__restrict__ in, real *__restrict__ out, ac_ops_layout g, AC_FN(ops_weights) w)
{
    typedef typename ac_ops_vector<real>::type vector;
    constexpr int V = AC_FN(ops_vector_points);
    constexpr int H = (R + V - 1) / V; /* neighbour vectors on each side */
    constexpr int ROWS = AC_FN(ops_vector_rows);
    const int vectors = g.n[0] / V;
    const int first_row = (blockIdx.x * blockDim.y + threadIdx.y) * ROWS;
    for (int i2 = blockIdx.z; i2 < g.n[2]; i2 += gridDim.z) {
        for (int v0 = blockIdx.y * blockDim.x; v0 < vectors; v0 += gridDim.y * blockDim.x) {
            const int v = v0 + threadIdx.x; /* past the end of a row: loads wrap, nothing is stored */
            real window[ROWS][(2 * H + 1) * V];
#pragma unroll
            for (int p = 0; p < ROWS; ++p) {
                const int row = min(first_row + p, g.n[1] - 1); /* rows past the end: loaded, not stored */
                const vector *src = (const vector *)(in + row * g.in[1] + i2 * g.in[2]);
#pragma unroll
                for (int k = -H; k <= H; ++k)
                    ac_ops_unpack(__ldg(src + ac_ops_wrap(v + k, vectors)), &window[p][(k + H) * V]);
            }
            if (v >= vectors)
                continue;
#pragma unroll
            for (int p = 0; p < ROWS; ++p) {
                if (first_row + p < g.n[1]) {
                    real result[V];
#pragma unroll
                    for (int e = 0; e < V; ++e)
                        result[e] = AC_FN(ops_apply)<R, D>(&window[p][H * V + e], w);
                    /* __stcs: a 16-byte store (a plain assignment is split into scalar stores), marked
                     * evict-first, which leaves L2 to the inputs the neighbouring blocks re-read */
                    __stcs((vector *)(out + (first_row + p) * g.out[1] + i2 * g.out[2] + (ptrdiff_t)v * V),
                           ac_ops_pack(result));
                }
            }
        }
    }
}

template <int R, int D>
static ac_status AC_FN(ops_launch)(const real *in, real *out, const ac_ops_layout &g, const AC_FN(ops_weights) & w,
                                   ac_ops_kernel kernel, cudaStream_t stream)
{
    if (kernel == AC_OPS_VECTOR_KERNEL) {
        const int vectors = g.n[0] / AC_FN(ops_vector_points), rows = AC_FN(ops_vector_rows);
        const unsigned lanes = ac_ops_pow2_at_least(vectors);
        dim3 threads(lanes < 32 ? 32 : ac_ops_min(lanes, AC_OPS_ROW_THREADS));
        threads.y = ac_ops_min(AC_OPS_THREADS / threads.x, ac_ops_pow2_at_least((g.n[1] + rows - 1) / rows));
        const long long rows_per_block = (long long)threads.y * rows;
        const dim3 blocks((unsigned)((g.n[1] + rows_per_block - 1) / rows_per_block),
                          ac_ops_min((vectors + threads.x - 1) / threads.x, 65535), ac_ops_min(g.n[2], 65535));
        AC_FN(ops_vector_kernel)<R, D><<<blocks, threads, 0, stream>>>(in, out, g, w);
        return ac_cuda_record(cudaGetLastError(), "derivative kernel (contiguous axis, vectors) launch");
    }
    if (kernel == AC_OPS_TILE_KERNEL) {
        const unsigned lanes = ac_ops_pow2_at_least(g.n[0]); /* a warp at least: its loads are coalesced */
        dim3 threads(lanes < 32 ? 32 : ac_ops_min(lanes, AC_OPS_ROW_THREADS));
        threads.y = ac_ops_min(AC_OPS_THREADS / threads.x,
                               ac_ops_pow2_at_least((g.n[1] + AC_FN(ops_rows) - 1) / AC_FN(ops_rows)));
        const long long rows_per_block = (long long)threads.y * AC_FN(ops_rows);
        const dim3 blocks((unsigned)((g.n[1] + rows_per_block - 1) / rows_per_block),
                          ac_ops_min((g.n[0] + threads.x - 1) / threads.x, 65535), ac_ops_min(g.n[2], 65535));
        const size_t shared = (size_t)threads.y * AC_FN(ops_rows) * (threads.x + 2 * R) * sizeof(real);
        AC_FN(ops_tile_kernel)<R, D><<<blocks, threads, shared, stream>>>(in, out, g, w);
        return ac_cuda_record(cudaGetLastError(), "derivative kernel (contiguous axis, tiles) launch");
    }
    dim3 threads(ac_ops_min(AC_OPS_THREADS, ac_ops_pow2_at_least(g.n[1])));
    threads.y = ac_ops_min(AC_OPS_THREADS / threads.x, ac_ops_pow2_at_least(g.n[2]));
    const dim3 blocks((unsigned)((g.n[1] + threads.x - 1) / threads.x),
                      ac_ops_min((g.n[2] + threads.y - 1) / threads.y, 65535),
                      ac_ops_min((g.n[0] + AC_FN(ops_walk) - 1) / AC_FN(ops_walk), 65535));
    AC_FN(ops_walk_kernel)<R, D><<<blocks, threads, 0, stream>>>(in, out, g, w);
    return ac_cuda_record(cudaGetLastError(), "derivative kernel (strided axis) launch");
}

extern "C" ac_status AC_FN(cuda_periodic_derivative)(const void *in, void *out, const ptrdiff_t shape[3],
                                                     const ptrdiff_t in_stride[3], const ptrdiff_t out_stride[3],
                                                     int axis, int derivative, int accuracy, double h, void *stream)
{
    if (!in || !out || axis < 0 || axis > 2 || (derivative != 1 && derivative != 2) ||
        (accuracy != 2 && accuracy != 4 && accuracy != 6 && accuracy != 8) || !(h > 0.0))
        return AC_ERR_ARGUMENT;
    for (int a = 0; a < 3; ++a)
        if (shape[a] < 1 || shape[a] > AC_OPS_MAX_POINTS)
            return AC_ERR_ARGUMENT;

    /* the weights, as the host operators make them (csrc/cpu/ops_impl.h) */
    const double scale = derivative == 1 ? 1.0 / h : 1.0 / (h * h);
    AC_FN(ops_weights) w;
    w.centre = (real)(central_coefficient(derivative, accuracy, 0) * scale); /* 0 for the first derivative */
    for (int r = 0; r <= AC_OPS_MAX_RADIUS; ++r)
        w.pair[r] = r == 0 ? (real)0 : (real)(central_coefficient(derivative, accuracy, r) * scale);

    /* axis 1 of the layout: the other axis with the smaller input stride
     * (axes of one point last), so that warps read along it coalesced */
    const int other[2] = {axis == 0 ? 1 : 0, axis == 2 ? 1 : 2};
    ptrdiff_t key[3];
    for (int a = 0; a < 3; ++a)
        key[a] = shape[a] == 1 ? PTRDIFF_MAX : (in_stride[a] < 0 ? -in_stride[a] : in_stride[a]);
    const int b = key[other[0]] <= key[other[1]] ? other[0] : other[1];
    const int c = b == other[0] ? other[1] : other[0];
    const int order[3] = {axis, b, c};
    ac_ops_layout g;
    for (int k = 0; k < 3; ++k) {
        g.n[k] = (int)shape[order[k]];
        g.in[k] = in_stride[order[k]];
        g.out[k] = out_stride[order[k]];
    }
    ac_ops_kernel kernel = key[axis] <= key[b] ? AC_OPS_TILE_KERNEL : AC_OPS_WALK_KERNEL;
    if (kernel == AC_OPS_TILE_KERNEL && g.in[0] == 1 && g.out[0] == 1 && g.n[0] % AC_FN(ops_vector_points) == 0 &&
        (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0) {
        bool rows_aligned = true; /* every row starts on a whole vector */
        for (int k = 1; k < 3; ++k)
            if (g.n[k] > 1 && (g.in[k] % AC_FN(ops_vector_points) || g.out[k] % AC_FN(ops_vector_points)))
                rows_aligned = false;
        if (rows_aligned)
            kernel = AC_OPS_VECTOR_KERNEL;
    }

    const real *src = (const real *)in;
    real *dst = (real *)out;
    const cudaStream_t s = (cudaStream_t)stream;
    /* the radius and the order are template parameters: unrolled stencils */
#define AC_OPS_CASE(radius, order)                                                                  \
    if (accuracy == 2 * (radius) && derivative == (order))                                        \
        return AC_FN(ops_launch)<radius, order>(src, dst, g, w, kernel, s);
    AC_OPS_CASE(1, 1) AC_OPS_CASE(2, 1) AC_OPS_CASE(3, 1) AC_OPS_CASE(4, 1)
    AC_OPS_CASE(1, 2) AC_OPS_CASE(2, 2) AC_OPS_CASE(3, 2) AC_OPS_CASE(4, 2)
#undef AC_OPS_CASE
    return AC_ERR_ARGUMENT;
}
