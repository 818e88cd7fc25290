/*
 * timeseries.cu -- a time-series row's reductions (../timeseries.h) on the
 * GPU, for fields of either precision: a block per tile of x-y columns and
 * run of z planes sums its points in a fixed order (the warps' shuffles, then
 * the warps in turn) into one partial row, and one block combines the
 * partial rows in block order, so that a row's bits are the same at every
 * call.  Ghost zones are filled by the caller.
 */
#include "../timeseries_points.h"

#include "kernels.h"

/* Tiles of 32 x 4 threads, 4 blocks an SM (at most 128 registers): the row's loads wait less with more warps
 * than 32 x 8 tiles at one block an SM give (benchmarks/results/2026-11-29-gpu-timeseries-rows).  Double
 * precision MHD spilled at 4 and ran faster at 3 blocks an SM, with entropy at 2
 * (benchmarks/results/2026-11-29-gpu-split-signal-overlap). */
enum { TS_TX = 32, TS_TY = 4, TS_WARPS = TS_TX * TS_TY / 32, TS_MOST_BLOCKS = 16384 };

template <typename Fields, unsigned MODULES>
static constexpr int ts_min_blocks()
{
    return sizeof(*Fields().lnrho) == sizeof(double) && (MODULES & AC_MODULE_MAGNETIC)
               ? ((MODULES & AC_MODULE_ENTROPY) ? 2 : 3)
               : 4;
}

static __device__ __forceinline__ void ts_point(unsigned modules, int walls, const timeseries_fields_f32 *f,
                                                const int ijk[3], ptrdiff_t idx, const ptrdiff_t st[3],
                                                const ac_timeseries_constants *c, double v[AC_TS_VALUES])
{
    timeseries_point_f32(modules, walls, f, ijk, idx, st, c, v);
}

static __device__ __forceinline__ void ts_point(unsigned modules, int walls, const timeseries_fields_f64 *f,
                                                const int ijk[3], ptrdiff_t idx, const ptrdiff_t st[3],
                                                const ac_timeseries_constants *c, double v[AC_TS_VALUES])
{
    timeseries_point_f64(modules, walls, f, ijk, idx, st, c, v);
}

static timeseries_fields_f32 fields_of(const ac_grid *g, void *const fields[AC_MAX_FIELDS], float)
{
    return timeseries_fields_of_f32(g, fields);
}

static timeseries_fields_f64 fields_of(const ac_grid *g, void *const fields[AC_MAX_FIELDS], double)
{
    return timeseries_fields_of_f64(g, fields);
}

/* MODULES: the configuration's modules that the row reads (hydrodynamics, with the magnetic field and
 * entropy or not); WALLS: whether an axis has walls; an instance each, so that a periodic grid's has no
 * one-sided branch, whose weights' dynamic indexing takes a stack frame and slows every point
 * (benchmarks/results/2026-11-29-gpu-row-kernel). */
template <typename Fields, unsigned MODULES, bool WALLS>
__global__ void __launch_bounds__(TS_TX *TS_TY, (ts_min_blocks<Fields, MODULES>()))
    timeseries_kernel(Fields f, ac_timeseries_constants c, int3 n, int3 lo, int2 m, int planes, double *partial)
{
    const unsigned modules = MODULES;
    double v[AC_TS_VALUES];
    ac_ts_start(v);
    const int i = blockIdx.x * TS_TX + threadIdx.x, j = blockIdx.y * TS_TY + threadIdx.y;
    const int k0 = blockIdx.z * planes, k1 = min(k0 + planes, n.z);
    if (i < n.x && j < n.y) {
        const ptrdiff_t st[3] = {1, m.x, (ptrdiff_t)m.x * m.y};
        for (int k = k0; k < k1; ++k) {
            const int ijk[3] = {i, j, k};
            ts_point(modules, WALLS, &f, ijk, (i + lo.x) + st[1] * (j + lo.y) + st[2] * (k + lo.z), st, &c, v);
        }
    }
    __shared__ double warps[TS_WARPS][AC_TS_VALUES];
#pragma unroll
    for (int q = 0; q < AC_TS_VALUES; ++q) { /* a warp is a row of the tile (TS_TX = 32) */
        double x = v[q];
        for (int o = 16; o > 0; o >>= 1)
            x = ac_ts_join(q, x, __shfl_down_sync(0xffffffffu, x, o));
        if (threadIdx.x == 0)
            warps[threadIdx.y][q] = x;
    }
    __syncthreads();
    const int t = threadIdx.x + TS_TX * threadIdx.y;
    if (t < AC_TS_VALUES) {
        double x = warps[0][t];
        for (int w = 1; w < TS_WARPS; ++w)
            x = ac_ts_join(t, x, warps[w][t]);
        const size_t block = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
        partial[block * AC_TS_VALUES + t] = x;
    }
}

/* The blocks' partial rows combined into the row's sums and extrema (the
 * host finishes it: ac_ts_finish), a block a value: each thread joins the
 * partial rows b = t, t + TS_COMBINE, ... in turn, then the threads' in a
 * fixed tree, so that a row's bits are the same at every call. */
enum { TS_COMBINE = 256 };
__global__ void __launch_bounds__(TS_COMBINE) timeseries_combine_kernel(const double *partial, long long blocks,
                                                                       double *out)
{
    __shared__ double joined[TS_COMBINE];
    const int q = blockIdx.x, t = threadIdx.x;
    double x = ac_ts_identity(q);
    for (long long b = t; b < blocks; b += TS_COMBINE)
        x = ac_ts_join(q, x, partial[b * AC_TS_VALUES + q]);
    joined[t] = x;
    __syncthreads();
    for (int half = TS_COMBINE / 2; half > 0; half /= 2) {
        if (t < half)
            joined[t] = ac_ts_join(q, joined[t], joined[t + half]);
        __syncthreads();
    }
    if (t == 0)
        out[q] = joined[0];
}

/* The launch's shape over grid g: its blocks (one partial row each) and planes a block. */
static dim3 timeseries_blocks(const ac_grid *g, int *planes)
{
    const unsigned tx = (unsigned)(g->n[0] + TS_TX - 1) / TS_TX, ty = (unsigned)(g->n[1] + TS_TY - 1) / TS_TY;
    int z = 1;
    while ((long long)tx * ty * ((g->n[2] + z - 1) / z) > TS_MOST_BLOCKS && z < g->n[2])
        z *= 2;
    *planes = z;
    return dim3(tx, ty, (unsigned)((g->n[2] + z - 1) / z));
}

extern "C" size_t ac_cuda_timeseries_scratch(const ac_grid *g)
{
    int planes;
    const dim3 b = timeseries_blocks(g, &planes);
    return ((size_t)b.x * b.y * b.z + 1) * AC_TS_VALUES * sizeof(double);
}

template <typename Fields, unsigned MODULES>
static long long timeseries_queue(const ac_grid *g, const Fields &f, double *scratch, cudaStream_t stream)
{
    int planes;
    const dim3 blocks = timeseries_blocks(g, &planes);
    const ac_timeseries_constants c = ac_timeseries_constants_of(g);
    const int3 n = make_int3(g->n[0], g->n[1], g->n[2]), lo = make_int3(g->lo[0], g->lo[1], g->lo[2]);
    const int2 m = make_int2(g->m[0], g->m[1]);
    if (g->bc.walls)
        timeseries_kernel<Fields, MODULES, true><<<blocks, dim3(TS_TX, TS_TY), 0, stream>>>(f, c, n, lo, m, planes,
                                                                                           scratch);
    else
        timeseries_kernel<Fields, MODULES, false><<<blocks, dim3(TS_TX, TS_TY), 0, stream>>>(f, c, n, lo, m, planes,
                                                                                            scratch);
    return (long long)blocks.x * blocks.y * blocks.z;
}

template <typename T, typename Fields>
static ac_status timeseries_launch(const ac_grid *g, void *const fields[AC_MAX_FIELDS], double *scratch,
                                   double *row, cudaStream_t stream)
{
    const Fields f = fields_of(g, fields, T());
    const unsigned M = AC_MODULE_MAGNETIC, E = AC_MODULE_ENTROPY, H = AC_MODULE_HYDRO;
    const unsigned which = g->modules & (M | E);
    const long long count = which == (M | E) ? timeseries_queue<Fields, H | M | E>(g, f, scratch, stream)
                            : which == M       ? timeseries_queue<Fields, H | M>(g, f, scratch, stream)
                            : which == E       ? timeseries_queue<Fields, H | E>(g, f, scratch, stream)
                                               : timeseries_queue<Fields, H>(g, f, scratch, stream);
    if (ac_cuda_record(cudaGetLastError(), "time-series row launch") != AC_OK)
        return AC_ERR_DEVICE;
    timeseries_combine_kernel<<<AC_TS_VALUES, TS_COMBINE, 0, stream>>>(scratch, count, row);
    return ac_cuda_record(cudaGetLastError(), "time-series row launch");
}

/* Queues the row of the fields (padded device arrays, ghost zones filled) on
 * `stream`; its sums and extrema, for ac_ts_finish, land at the end of
 * scratch (ac_cuda_timeseries_scratch bytes, device), whose last
 * AC_TS_VALUES doubles it returns. */
extern "C" ac_status ac_cuda_timeseries(const ac_grid *g, int single, void *const fields[AC_MAX_FIELDS],
                                        double *scratch, double **row, cudaStream_t stream)
{
    *row = scratch + ac_cuda_timeseries_scratch(g) / sizeof(double) - AC_TS_VALUES;
    return single ? timeseries_launch<float, timeseries_fields_f32>(g, fields, scratch, *row, stream)
                  : timeseries_launch<double, timeseries_fields_f64>(g, fields, scratch, *row, stream);
}
