/*
 * kernels_impl.cuh -- the CUDA kernels for one precision, and their launchers.
 *
 * Included once by kernels_f32.cu and once by kernels_f64.cu, each defining
 * `real` and AC_FN(name) first.  Kernels only move data: the arithmetic is
 * csrc/physics.h.  Every launcher checks the launch and returns a status.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "../forcing.h"
#include "../grid.h"
#include "../physics.h"
#include "kernels.h"
#include "schedules.cuh"

/* The arrays of NF fields, passed by value: four (hydrodynamics), seven
 * (MHD), or a configuration's count (fields.h). */
template <int NF>
struct AC_FN(fields) {
    real *f[NF];
};
typedef AC_FN(fields)<AC_NUM_FIELDS> AC_FN(field_set);
typedef AC_FN(fields)<AC_MAX_FIELDS> AC_FN(mhd_field_set);

static AC_FN(mhd_field_set) AC_FN(make_mhd_set)(void *const f[AC_MAX_FIELDS])
{
    AC_FN(mhd_field_set) s;
    for (int i = 0; i < AC_MAX_FIELDS; ++i)
        s.f[i] = f ? (real *)f[i] : NULL;
    return s;
}

/* Grid shape as the kernels see it. */
typedef struct {
    int n[3], m[3], lo[3];
    int offset[3];       /* global index of interior point 0 (decomposed grids) */
    int first[3], end[3]; /* the region the integration kernels cover */
    ptrdiff_t stride[3];
    double origin[3], spacing[3];
} AC_FN(shape);

static AC_FN(shape) AC_FN(make_shape)(const ac_grid *g)
{
    AC_FN(shape) s;
    for (int a = 0; a < 3; ++a) {
        s.origin[a] = g->origin[a];
        s.spacing[a] = g->spacing[a];
    }
    for (int a = 0; a < 3; ++a) {
        s.n[a] = g->n[a];
        s.m[a] = g->m[a];
        s.lo[a] = g->lo[a];
        s.offset[a] = g->offset[a];
        s.first[a] = 0;
        s.end[a] = g->n[a];
    }
    ac_grid_strides(g, s.stride);
    return s;
}

/* NULL: a set of NULL pointers (an array a substep does not use). */
static AC_FN(field_set) AC_FN(make_set)(void *const f[AC_NUM_FIELDS])
{
    AC_FN(field_set) s;
    for (int i = 0; i < AC_NUM_FIELDS; ++i)
        s.f[i] = f ? (real *)f[i] : NULL;
    return s;
}

static __device__ __forceinline__ ptrdiff_t AC_FN(padded)(const AC_FN(shape) & s, int i, int j, int k)
{
    return (ptrdiff_t)(i + s.lo[0]) + s.stride[1] * (j + s.lo[1]) + s.stride[2] * (k + s.lo[2]);
}

/* The padded index of interior point t, counted x fastest (the reductions' grid-stride loops). */
static __device__ __forceinline__ ptrdiff_t AC_FN(interior_padded)(const AC_FN(shape) & s, long long t)
{
    const long long r = t / s.n[0];
    return AC_FN(padded)(s, (int)(t % s.n[0]), (int)(r % s.n[1]), (int)(r / s.n[1]));
}

/* ---- periodic ghost zones ------------------------------------------------
 * Axis by axis (x, then y, then z), each pass over the whole padded extent of
 * the other two axes, so edges and corners end up right after the z pass.
 * The axis is described by scalars (no indexing of a struct by a run-time
 * axis, which would put the struct in local memory). */
typedef struct {
    int n, lo;             /* interior size and first interior index along the axis */
    int mb, mc;            /* padded extents of the other two axes */
    ptrdiff_t sa, sb, sc;  /* strides of the axis and of the other two */
} AC_FN(ghost_pass);

/* Blocks of 256 threads for a grid-stride loop over `total` items, at
 * least one and at most `most`. */
static unsigned AC_FN(blocks_for)(long long total, long long most)
{
    const long long blocks = (total + 255) / 256;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

/* The pass along `axis` of a grid of shape s. */
static AC_FN(ghost_pass) AC_FN(make_ghost_pass)(const AC_FN(shape) & s, int axis)
{
    const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2; /* the other two axes */
    AC_FN(ghost_pass) g;
    g.n = s.n[axis];
    g.lo = s.lo[axis];
    g.mb = s.m[b];
    g.mc = s.m[c];
    g.sa = s.stride[axis];
    g.sb = s.stride[b];
    g.sc = s.stride[c];
    return g;
}

__global__ void AC_FN(fill_ghost_kernel)(AC_FN(field_set) fields, int count, AC_FN(ghost_pass) g)
{
    const long long total = (long long)(2 * AC_GHOST) * g.mb * g.mc;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const int plane = (int)(t % (2 * AC_GHOST));
        const long long rest = t / (2 * AC_GHOST);
        const int pb = (int)(rest % g.mb), pc = (int)(rest / g.mb);
        const int ghost = ac_ghost_plane(plane, g.lo, g.n);
        const int source = ac_periodic_source(ghost, g.lo, g.n);
        const ptrdiff_t base = pb * g.sb + pc * g.sc;
#pragma unroll
        for (int f = 0; f < AC_NUM_FIELDS; ++f) /* constant indices keep `fields` in registers */
            if (f < count)
                fields.f[f][base + ghost * g.sa] = fields.f[f][base + source * g.sa];
    }
}

static ac_status AC_FN(fill_ghost_axis)(AC_FN(field_set) fields, int count, const AC_FN(shape) & s, int axis,
                                        cudaStream_t stream)
{
    const AC_FN(ghost_pass) g = AC_FN(make_ghost_pass)(s, axis);
    AC_FN(fill_ghost_kernel)<<<AC_FN(blocks_for)((long long)(2 * AC_GHOST) * g.mb * g.mc, 65535), 256, 0, stream>>>(
        fields, count, g);
    return ac_cuda_record(cudaGetLastError(), "fill_ghost_kernel launch");
}

/* ---- the ghost faces a first derivative reads ---------------------------
 * The periodic ghost values of the three axes at interior points of the
 * other two (no edges or corners: a derivative along one axis reads none):
 * each from the interior, so that one launch fills all three axes. */
static __host__ __device__ long long AC_FN(face_count)(const AC_FN(shape) & s)
{
    return 2LL * AC_GHOST * ((long long)s.n[1] * s.n[2] + (long long)s.n[0] * s.n[2] + (long long)s.n[0] * s.n[1]);
}

/* Face value number t (0 .. face_count, below 2^31: faces_countable) of
 * the fields of mask `mask` (bit f: field f).  Neighbouring t lie
 * side by side in memory: the ghost planes fastest across x, the x index
 * fastest across y and z (with the planes fastest there too, a warp's
 * values lay six rows apart); 32-bit divisions (a 64-bit one costs as much
 * as the copy). */
template <int NF>
static __device__ __forceinline__ void AC_FN(fill_face)(const AC_FN(fields)<NF> & fields, unsigned mask,
                                                         const AC_FN(shape) & s, int t)
{
    const int across_x = 2 * AC_GHOST * s.n[1] * s.n[2], across_y = 2 * AC_GHOST * s.n[0] * s.n[2];
    const int axis = t < across_x ? 0 : t < across_x + across_y ? 1 : 2;
    t -= axis == 0 ? 0 : axis == 1 ? across_x : across_x + across_y;
    /* the axis and the other two (b, c) by scalars: a struct indexed at run time would live in local memory */
    const int n = axis == 0 ? s.n[0] : axis == 1 ? s.n[1] : s.n[2], lo = axis == 0 ? s.lo[0] : axis == 1 ? s.lo[1] : s.lo[2];
    const int nb = axis == 0 ? s.n[1] : s.n[0], lob = axis == 0 ? s.lo[1] : s.lo[0];
    const int loc = axis == 2 ? s.lo[1] : s.lo[2];
    const ptrdiff_t sa = axis == 0 ? s.stride[0] : axis == 1 ? s.stride[1] : s.stride[2],
                    sb = axis == 0 ? s.stride[1] : s.stride[0],
                    sc = axis == 2 ? s.stride[1] : s.stride[2];
    int plane, b, c;
    if (axis == 0) {
        plane = t % (2 * AC_GHOST);
        b = t / (2 * AC_GHOST) % nb;
        c = t / (2 * AC_GHOST) / nb;
    } else {
        b = t % nb;
        plane = t / nb % (2 * AC_GHOST);
        c = t / nb / (2 * AC_GHOST);
    }
    const ptrdiff_t base = (ptrdiff_t)(b + lob) * sb + (ptrdiff_t)(c + loc) * sc;
    const int ghost = ac_ghost_plane(plane, lo, n);
    const ptrdiff_t to = base + ghost * sa, from = base + ac_periodic_source(ghost, lo, n) * sa;
#pragma unroll
    for (int f = 0; f < NF; ++f)
        if (mask & 1u << f)
            fields.f[f][to] = fields.f[f][from];
}

__global__ void AC_FN(fill_faces_kernel)(AC_FN(fields)<AC_MAX_FIELDS> fields, unsigned mask, AC_FN(shape) s)
{
    const long long total = AC_FN(face_count)(s);
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x)
        AC_FN(fill_face)(fields, mask, s, (int)t);
}

/* Whether fill_face's 32-bit face numbers reach every face value of s. */
static bool AC_FN(faces_countable)(const AC_FN(shape) & s)
{
    return AC_FN(face_count)(s) < 0x7fffffffLL;
}

static ac_status AC_FN(fill_ghosts)(AC_FN(field_set) fields, int count, const AC_FN(shape) & s, cudaStream_t stream)
{
    for (int axis = 0; axis < 3; ++axis)
        if (AC_FN(fill_ghost_axis)(fields, count, s, axis, stream) != AC_OK)
            return AC_ERR_DEVICE;
    return AC_OK;
}

/* The periodic ghost zones along one axis of the grid's g->fields fields
 * (four, and those of the other modules: A, ss; fewer for a grid standing
 * for some arrays, shock.cuh's fill_ghosts_as_fields). */
extern "C" ac_status AC_FN(cuda_fill_ghost_axis)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int axis,
                                                 cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (AC_FN(fill_ghost_axis)(AC_FN(make_set)(fields_), g->fields < AC_NUM_FIELDS ? g->fields : AC_NUM_FIELDS, s,
                               axis, stream) != AC_OK)
        return AC_ERR_DEVICE;
    for (int first = AC_NUM_FIELDS; first < g->fields; first += AC_NUM_FIELDS) { /* A, ss: four at a time */
        AC_FN(field_set) rest = {{NULL, NULL, NULL, NULL}};
        const int count = g->fields - first < AC_NUM_FIELDS ? g->fields - first : AC_NUM_FIELDS;
        for (int q = 0; q < count; ++q)
            rest.f[q] = (real *)fields_[first + q];
        if (AC_FN(fill_ghost_axis)(rest, count, s, axis, stream) != AC_OK)
            return AC_ERR_DEVICE;
    }
    return AC_OK;
}

/* ---- integration ---------------------------------------------------------
 * The 55-point method: stream_substep.cuh.  The 19-point method's two
 * passes: a block covers a tile of x-y columns and walks up z, so the seven
 * z planes a stencil needs stay in L1 from one point to the next.  Its tile
 * is ac_cuda_tile() (ASTAROTH_CUDA_TILE="tx,ty,tz" overrides it). */

/* With the device-side CFL loop (cuda_backend.cu) the step's length is not
 * the dt argument but the one that loop left at dt_device, rounded to real
 * as the host rounds dt; false once that run has ended (NaN there). */
static __device__ __forceinline__ bool AC_FN(step_length)(const double *dt_device, real *dt)
{
    if (dt_device == NULL)
        return true;
    const double d = *dt_device;
    *dt = (real)d;
    return d == d;
}

/* |u|^2 in double, without contraction to FMA, so that every kernel that
 * reduces it (reduce_kernel, the device-driven substep) gets the same bits. */
static __device__ __forceinline__ double AC_FN(speed_squared)(real ux, real uy, real uz)
{
    return __dadd_rn(__dadd_rn(__dmul_rn(ux, ux), __dmul_rn(uy, uy)), __dmul_rn(uz, uz));
}

/* A warp's max |u|^2 (as the bits of a non-negative double, which order
 * like the values) and non-finite flags into the reduction's results. */
static __device__ __forceinline__ void AC_FN(warp_reduce_to)(double max_u2, unsigned int flags,
                                                             unsigned long long *max_u2_bits, unsigned int *nonfinite)
{
#pragma unroll
    for (int lane = 16; lane > 0; lane /= 2) {
        const double other = __shfl_xor_sync(0xffffffffu, max_u2, lane);
        max_u2 = other > max_u2 ? other : max_u2;
        flags |= __shfl_xor_sync(0xffffffffu, flags, lane);
    }
    if ((threadIdx.x + blockDim.x * threadIdx.y) % 32 == 0) {
        atomicMax(max_u2_bits, (unsigned long long)__double_as_longlong(max_u2));
        if (flags)
            atomicOr(nonfinite, flags);
    }
}

#include "stream_substep.cuh"

/* This thread's x-y column of the block's tile and its z range; false when
 * the column lies outside the grid. */
static __device__ __forceinline__ bool AC_FN(tile_column)(const AC_FN(shape) & s, int z_per_block, int *i, int *j,
                                                          int *k0, int *k1)
{
    *i = s.first[0] + blockIdx.x * blockDim.x + threadIdx.x;
    *j = s.first[1] + blockIdx.y * blockDim.y + threadIdx.y;
    *k0 = s.first[2] + blockIdx.z * z_per_block;
    *k1 = min(*k0 + z_per_block, s.end[2]);
    return *i < s.end[0] && *j < s.end[1];
}

/* The 19-point method's first pass: the 19-point stencil and div u.  The
 * second pass only adds to w, so w_out may be NULL here too. */
__global__ void __launch_bounds__(AC_MAX_TILE_THREADS)
    AC_FN(first_pass_19p_kernel)(AC_FN(field_set) in, AC_FN(field_set) out, AC_FN(field_set) w_in,
                                 AC_FN(field_set) w_out, real *__restrict__ div_u, AC_FN(shape) s,
                                 ac_physics_params p, ac_geometry geo, int substep, real dt, int z_per_block)
{
    int i, j, k0, k1;
    if (!AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        return;
    for (int k = k0; k < k1; ++k) {
        const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
        ac_point_fields f;
        f.lnrho = in.f[0] + idx;
        for (int c = 0; c < 3; ++c)
            f.u[c] = in.f[1 + c] + idx;
        ac_derivatives d;
        axis_derivatives(f, s.stride, &geo, &d);
        for (int c = 0; c < 3; ++c)
            d.grad_div_u[c] = 0;
        div_u[idx] = divergence(&d);
        real rhs[AC_NUM_FIELDS], w[AC_NUM_FIELDS];
        rhs_from_derivatives(&d, &p, rhs);
        for (int q = 0; q < AC_NUM_FIELDS; ++q)
            w[q] = substep > 0 ? w_in.f[q][idx] : (real)0; /* all read before out, which may be w_in */
        for (int q = 0; q < AC_NUM_FIELDS; ++q) {
            out.f[q][idx] = rk3_substep(in.f[q][idx], rhs[q], &w[q], substep, dt);
            if (w_out.f[q])
                w_out.f[q][idx] = w[q];
        }
    }
}

/* The 19-point method's second pass, eqs. (17)-(18).  In the last substep w
 * is not needed after it (w_out NULL): the increment goes to u alone. */
__global__ void __launch_bounds__(AC_MAX_TILE_THREADS)
    AC_FN(grad_div_kernel)(AC_FN(field_set) out, AC_FN(field_set) w_out, const real *__restrict__ div_u,
                           AC_FN(shape) s, ac_physics_params p, ac_geometry geo, int substep, real dt,
                           int z_per_block)
{
    int i, j, k0, k1;
    if (!AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        return;
    for (int k = k0; k < k1; ++k) {
        const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
        for (int c = 0; c < 3; ++c) {
            real unused = 0;
            real *w = w_out.f[1 + c] ? &w_out.f[1 + c][idx] : &unused;
            rk3_add_grad_div(&out.f[1 + c][idx], w, grad_div_19p(div_u + idx, s.stride, &geo, c), substep, dt,
                             p.table.nu);
        }
    }
}

static dim3 AC_FN(tile_blocks)(const AC_FN(shape) & s, dim3 threads, int z_per_block)
{
    return dim3((s.end[0] - s.first[0] + threads.x - 1) / threads.x, (s.end[1] - s.first[1] + threads.y - 1) / threads.y,
                (s.end[2] - s.first[2] + z_per_block - 1) / z_per_block);
}

/* A stream kernel instance's fit to the device, found once per device: its
 * shared memory allowed, the blocks of it the GPU holds at once, and the L2
 * cache's size. */
typedef struct {
    unsigned long long devices; /* one bit per device prepared */
    int resident_blocks, l2_bytes;
} AC_FN(kernel_fit);

static ac_status AC_FN(fit_kernel)(AC_FN(kernel_fit) * fit, const void *kernel, int threads, size_t smem)
{
    int device = 0;
    if (ac_cuda_record(cudaGetDevice(&device), "cudaGetDevice") != AC_OK)
        return AC_ERR_DEVICE;
    if (device < 64 && fit->devices >> device & 1)
        return AC_OK;
    int per_sm = 0, sms = 0;
    if (ac_cuda_record(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                       "cudaFuncSetAttribute (a streaming kernel's shared memory)") != AC_OK ||
        ac_cuda_record(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor") != AC_OK ||
        ac_cuda_record(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                       "cudaDeviceGetAttribute") != AC_OK ||
        ac_cuda_record(cudaDeviceGetAttribute(&fit->l2_bytes, cudaDevAttrL2CacheSize, device),
                       "cudaDeviceGetAttribute") != AC_OK)
        return AC_ERR_DEVICE;
    fit->resident_blocks = per_sm * sms > 0 ? per_sm * sms : 1;
    if (device < 64)
        fit->devices |= 1ull << device;
    return AC_OK;
}

/* Runs up each of `columns` columns of tiles (`copies` grids of them, each
 * of three field sets of set_bytes): as many as fit the GPU in one wave
 * beside the columns, or two when the columns alone take more than four
 * waves (at least one, at most one per 8 planes: each run also reads 2
 * AC_GHOST planes it does not update; field sets that fit in half the L2
 * cache give those from L2, and may have a run per plane). */
static int AC_FN(stream_runs)(const AC_FN(kernel_fit) & fit, long long columns, int nz, double set_bytes)
{
    int runs = (int)(fit.resident_blocks / columns);
    if (columns > 4 * (long long)fit.resident_blocks)
        runs = 2; /* measured at 512^3 in float64: +1.4 % (tune.log of 2026-11-23-h100-6531e07) */
    const int most = 3.0 * set_bytes <= 0.5 * fit.l2_bytes ? nz : nz / 8;
    if (runs > most)
        runs = most;
    return runs < 1 ? 1 : runs > nz ? nz : runs;
}

/* The 55-point substep of configuration CONFIG with a TX x TY tile and
 * `runs` runs up each column of tiles (0: stream_runs). */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool DEVICE_DT, typename Set,
          int DEFER = AC_DEFER_NONE>
static ac_status AC_FN(launch_stream_instance)(Set in, Set out, Set w_in, Set w_out, const AC_FN(shape) & s,
                                               const ac_physics_params &p, const AC_FN(stencil_scales) & c,
                                               const real *zeta, int substep, real dt, ac_device_step step, int runs,
                                               unsigned wraps, const ac_shear_flow &sh, cudaStream_t stream)
{
    constexpr size_t smem = AC_FN(stream_smem)<CONFIG, TX, TY, LEAD, DEFER>();
    static AC_FN(kernel_fit) fit = {0, 0, 0};
    if (smem > AC_SMEM_PER_BLOCK) /* a tuning shape too large for this configuration */
        return AC_ERR_UNSUPPORTED;
    if (AC_FN(fit_kernel)(&fit,
                          (const void *)AC_FN(stream_substep_kernel)<CONFIG, TX, TY, LEAD, BLOCKS, DEVICE_DT, DEFER>,
                          TX * TY, smem) != AC_OK)
        return AC_ERR_DEVICE;
    const int nz = s.end[2] - s.first[2];
    const long long columns =
        (long long)((s.end[0] - s.first[0] + TX - 1) / TX) * ((s.end[1] - s.first[1] + TY - 1) / TY);
    if (runs <= 0)
        runs = AC_FN(stream_runs)(fit, columns, nz,
                                  (double)(sizeof(Set) / sizeof(real *)) * s.m[0] * s.m[1] * s.m[2] * sizeof(real));
    if (runs > nz)
        runs = nz;
    if (columns * runs > 0x7fffffffLL)
        return AC_ERR_ARGUMENT;
    AC_FN(param_piece) pieces[AC_PARAM_PIECES];
    AC_FN(param_pieces)(p, pieces);
    AC_FN(stream_substep_kernel)<CONFIG, TX, TY, LEAD, BLOCKS, DEVICE_DT, DEFER>
        <<<(unsigned)(columns * runs), dim3(TX, TY, 1), smem, stream>>>(in, out, w_in, w_out, s, c, substep, dt, step,
                                                                      (wraps & 1u) != 0, (wraps & 2u) != 0,
                                                                      (wraps & 4u) != 0, zeta, runs, pieces[0],
                                                                      pieces[1], pieces[2], sh);
    return ac_cuda_record(cudaGetLastError(), "55-point substep launch");
}

/* The instance of the device-side CFL loop (ac_device_loop_runs: it reads
 * the step's length at device_step->dt) or the one that takes dt. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, typename Set>
static ac_status AC_FN(launch_stream)(Set in, Set out, Set w_in, Set w_out, const AC_FN(shape) & s,
                                      const ac_physics_params &p, const AC_FN(stencil_scales) & c, const real *zeta,
                                      int substep, real dt, const ac_device_step *device_step, int runs, unsigned wraps,
                                      const ac_shear_flow &sh, cudaStream_t stream)
{
    if (device_step) /* (C++14 instantiates this call for shock viscosity and the shear too: the host's instance) */
        return AC_FN(launch_stream_instance)<CONFIG, TX, TY, LEAD, BLOCKS, ac_device_loop_runs(CONFIG)>(
            in, out, w_in, w_out, s, p, c, zeta, substep, dt, *device_step, runs, wraps, sh, stream);
    return AC_FN(launch_stream_instance)<CONFIG, TX, TY, LEAD, BLOCKS, false>(
        in, out, w_in, w_out, s, p, c, zeta, substep, dt, ac_device_step(), runs, wraps, sh, stream);
}

/* The raw arrays of a substep: in, out, w_in, w_out (kernels.h's order). */
typedef void *const *AC_FN(raw_sets)[4];

template <int NF>
static AC_FN(fields)<NF> AC_FN(make_fields)(void *const *f)
{
    AC_FN(fields)<NF> set;
    for (int i = 0; i < NF; ++i)
        set.f[i] = f ? (real *)f[i] : NULL;
    return set;
}

/* Everything a substep launch takes besides its instance. */
typedef struct {
    const AC_FN(shape) *s;
    ac_physics_params p;
    AC_FN(stencil_scales) c; /* of the grid's geometry */
    const real *zeta;
    int substep;
    real dt;
    const ac_device_step *device_step;
    unsigned wraps; /* bit a: axis a's ghost values read from periodic images (fill_unwrapped_ghosts) */
    int defer;      /* a substep of the deferred order (schedules.cuh's AC_DEFER_*), with device_step */
    ac_shear_flow sh; /* the shearing box's background flow, in double (terms/shear.h) */
    cudaStream_t stream;
} AC_FN(substep_args);

template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS>
static ac_status AC_FN(launch_shape)(const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a, int runs)
{
    constexpr int NF = ac_field_count(ac_config_modules(CONFIG));
    const AC_FN(shape) &s = *a.s;
    return AC_FN(launch_stream)<CONFIG, TX, TY, LEAD, BLOCKS>(
        AC_FN(make_fields)<NF>(raw[0]), AC_FN(make_fields)<NF>(raw[1]), AC_FN(make_fields)<NF>(raw[2]),
        AC_FN(make_fields)<NF>(raw[3]), s, a.p, a.c, a.zeta, a.substep, a.dt, a.device_step, runs,
        a.wraps, a.sh, a.stream);
}

/* A tuning shape of AC_TUNING_SHAPES, built for CONFIG when BUILT (no
 * kernel terms and at most the shape's fields). */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool BUILT>
struct AC_FN(tuning_shape) {
    static bool launch(const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a, const ac_stream_shape &t,
                       ac_status *st)
    {
        if (t.x != TX || t.y != TY || t.lead != LEAD || t.blocks != BLOCKS)
            return false;
        *st = AC_FN(launch_shape)<CONFIG, TX, TY, LEAD, BLOCKS>(raw, a, t.runs);
        return true;
    }
};

template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS>
struct AC_FN(tuning_shape)<CONFIG, TX, TY, LEAD, BLOCKS, false> {
    static bool launch(const AC_FN(raw_sets) &, const AC_FN(substep_args) &, const ac_stream_shape &, ac_status *)
    {
        return false;
    }
};

/* A substep of the deferred order (schedules.cuh) in the schedule's tile:
 * the first with the schedule's planes ahead, the second with
 * deferred_lead's; unsupported where the order is not built. */
template <unsigned CONFIG, int LEAD = AC_FN(deferred_lead)<CONFIG>()>
struct AC_FN(deferred_substep) {
    static ac_status launch(const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a)
    {
        constexpr ac_schedule S = ac_schedule_of(CONFIG, sizeof(real));
        constexpr int NF = ac_field_count(ac_config_modules(CONFIG));
        typedef AC_FN(fields)<NF> Set;
        const Set in = AC_FN(make_fields)<NF>(raw[0]), out = AC_FN(make_fields)<NF>(raw[1]),
                  w_in = AC_FN(make_fields)<NF>(raw[2]), w_out = AC_FN(make_fields)<NF>(raw[3]);
        if (a.defer == AC_DEFER_RHS)
            return AC_FN(launch_stream_instance)<CONFIG, S.tx, S.ty, S.lead, 0, true, Set, AC_DEFER_RHS>(
                in, out, w_in, w_out, *a.s, a.p, a.c, a.zeta, a.substep, a.dt, *a.device_step, 0, a.wraps, a.sh,
                a.stream);
        return AC_FN(launch_stream_instance)<CONFIG, S.tx, S.ty, LEAD, 0, true, Set, AC_DEFER_FORM>(
            in, out, w_in, w_out, *a.s, a.p, a.c, a.zeta, a.substep, a.dt, *a.device_step, 0, a.wraps, a.sh,
            a.stream);
    }
};

template <unsigned CONFIG>
struct AC_FN(deferred_substep)<CONFIG, 0> {
    static_assert(!ac_defers(CONFIG), "the deferred order's second substep fits a block's shared memory");
    static ac_status launch(const AC_FN(raw_sets) &, const AC_FN(substep_args) &)
    {
        return AC_ERR_UNSUPPORTED;
    }
};

/* The substep of configuration CONFIG in the shape ASTAROTH_STREAM_TILE
 * asks for (ac_cuda_stream_shape) where this build has it (tuning shapes
 * only with AC_TUNING), else in its schedule's (schedules.cuh); a substep
 * of the deferred order in the schedule's. */
template <unsigned CONFIG>
static ac_status AC_FN(stream_config)(const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a)
{
    constexpr ac_schedule S = ac_schedule_of(CONFIG, sizeof(real));
    if (a.defer != AC_DEFER_NONE)
        return a.device_step ? AC_FN(deferred_substep)<CONFIG>::launch(raw, a) : AC_ERR_ARGUMENT;
    static_assert(AC_FN(stream_smem)<CONFIG, S.tx, S.ty, S.lead>() <= AC_SMEM_PER_BLOCK,
                  "a configuration's schedule (schedules.cuh) takes more shared memory than a block may have");
    const ac_stream_shape t = ac_cuda_stream_shape();
#if AC_TUNING
    ac_status st = AC_OK;
    constexpr bool plain = ac_config_terms(CONFIG) == 0;
    constexpr int fields = ac_field_count(ac_config_modules(CONFIG));
#define AC_TUNING_LAUNCH(tx, ty, lead_, blocks_, most_fields)                                                          \
    if (AC_FN(tuning_shape)<CONFIG, tx, ty, lead_, blocks_, plain && fields <= (most_fields)>::launch(raw, a, t, &st))   \
        return st;
    AC_TUNING_SHAPES(AC_TUNING_LAUNCH)
#undef AC_TUNING_LAUNCH
#endif
    const int runs = t.x == S.tx && t.y == S.ty && t.lead == S.lead && t.blocks == 0 ? t.runs : 0;
    return AC_FN(launch_shape)<CONFIG, S.tx, S.ty, S.lead, 0>(raw, a, runs);
}

/* Run-time configuration key to instance: the keys in [LO, HI) halved
 * down to one (a depth of log2 of the keys, where a chain through every key
 * would pass the compiler's recursion limit), the valid ones
 * (schedules.cuh) built. */
template <unsigned CONFIG, bool VALID = ac_config_valid(CONFIG)>
struct AC_FN(stream_key) {
    static ac_status run(const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a)
    {
        return AC_FN(stream_config)<CONFIG>(raw, a);
    }
};

template <unsigned CONFIG>
struct AC_FN(stream_key)<CONFIG, false> {
    static ac_status run(const AC_FN(raw_sets) &, const AC_FN(substep_args) &)
    {
        return AC_ERR_UNSUPPORTED;
    }
};

template <unsigned LO, unsigned HI, bool ONE = (HI - LO == 1u)>
struct AC_FN(stream_dispatch) {
    static ac_status run(unsigned config, const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a)
    {
        constexpr unsigned MID = LO + (HI - LO) / 2u;
        return config < MID ? AC_FN(stream_dispatch)<LO, MID>::run(config, raw, a)
                            : AC_FN(stream_dispatch)<MID, HI>::run(config, raw, a);
    }
};

template <unsigned LO, unsigned HI>
struct AC_FN(stream_dispatch)<LO, HI, true> {
    static ac_status run(unsigned config, const AC_FN(raw_sets) & raw, const AC_FN(substep_args) & a)
    {
        return config == LO ? AC_FN(stream_key)<LO>::run(raw, a) : AC_ERR_UNSUPPORTED;
    }
};

/* The 55-point substep of grid g: its configuration's instance. */
static ac_status AC_FN(stream_substep)(const ac_grid *g, void *const in[], void *const out[], void *const w_in[],
                                       void *const w_out[], const AC_FN(shape) & s, const real *zeta, int substep,
                                       real dt, const ac_device_step *device_step, unsigned wraps, cudaStream_t stream,
                                       int defer = AC_DEFER_NONE)
{
    AC_FN(substep_args) a;
    a.s = &s;
    a.p = make_physics_params(g);
    a.c = AC_FN(make_scales)(make_geometry(g));
    a.zeta = zeta;
    a.substep = substep;
    a.dt = dt;
    a.device_step = device_step;
    a.wraps = wraps;
    a.defer = defer;
    a.sh = shear_flow_of(g);
    a.stream = stream;
    /* the instance: the grid's modules, hyperdiffusion if on, shock viscosity when given its profile */
    const unsigned terms =
        ac_kernel_bits((ac_grid_terms(g) & ~(unsigned)AC_TERM_SHOCK) | (zeta ? (unsigned)AC_TERM_SHOCK : 0u));
    const AC_FN(raw_sets) raw = {in, out, w_in, w_out};
    return AC_FN(stream_dispatch)<0u, AC_CONFIG_END>::run(ac_config(ac_grid_modules(g), terms), raw, a);
}

static unsigned AC_FN(wrappable_axes)(const ac_grid *g, const AC_FN(shape) & s, unsigned candidates);
static ac_status AC_FN(fill_unwrapped_ghosts)(const ac_grid *g, void *const in_[AC_MAX_FIELDS],
                                              const AC_FN(shape) & s, unsigned *wraps, cudaStream_t stream);

/* The shape *s of a streaming substep over region r (its box) and the axes
 * *wraps whose ghost values the kernel reads from periodic images: r's
 * periodic axes (its other ghost zones the caller's: ac_region), or for r
 * NULL the whole grid's, after filling the ghost zones of `in` it does not
 * wrap.  Returns false where the substep ends here, with *status its result
 * (AC_OK: r is empty). */
static bool AC_FN(substep_shape)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                                 AC_FN(shape) * s, unsigned *wraps, cudaStream_t stream, ac_status *status)
{
    *s = AC_FN(make_shape)(g);
    *status = AC_OK;
    if (r) {
        *wraps = AC_FN(wrappable_axes)(g, *s, r->periodic);
        for (int a = 0; a < 3; ++a) {
            s->first[a] = r->lo[a];
            s->end[a] = r->hi[a];
            if (r->hi[a] <= r->lo[a])
                return false; /* empty region */
        }
    } else if (AC_FN(fill_unwrapped_ghosts)(g, in_, *s, wraps, stream) != AC_OK) {
        *status = AC_ERR_DEVICE;
        return false;
    }
    return true;
}

/* One substep over region r (NULL: the whole grid, after filling the ghost
 * zones of `in` the kernel does not wrap; otherwise the caller has filled
 * them).
 * w_in is not read in substep 0 and may be NULL; w_out NULL: w is not kept
 * (the last substep).  out may be w_in: every point reads its w first. */
extern "C" ac_status AC_FN(cuda_substep)(const ac_grid *g, const ac_region *r, ac_method method,
                                         void *const in_[AC_NUM_FIELDS], void *const out_[AC_NUM_FIELDS],
                                         void *const w_in_[AC_NUM_FIELDS], void *const w_out_[AC_NUM_FIELDS],
                                         void *div_u_, const void *zeta, int substep, double dt_, const ac_device_step *device_step,
                                         cudaStream_t stream)
{
    if ((device_step || zeta) && method != AC_METHOD_55P)
        return AC_ERR_UNSUPPORTED; /* the device-side CFL loop and shock viscosity: the 55-point kernel only */
    if (method == AC_METHOD_55P) {
        AC_FN(shape) s;
        unsigned wraps;
        ac_status status;
        if (!AC_FN(substep_shape)(g, r, in_, &s, &wraps, stream, &status))
            return status;
        return AC_FN(stream_substep)(g, in_, out_, w_in_, w_out_, s, (const real *)zeta, substep, (real)dt_,
                                     device_step, wraps, stream);
    }
    if (r)
        return AC_ERR_UNSUPPORTED; /* the 19-point method takes the whole grid only */
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    AC_FN(field_set) in = AC_FN(make_set)(in_), out = AC_FN(make_set)(out_), w_in = AC_FN(make_set)(w_in_),
                     w_out = AC_FN(make_set)(w_out_);
    real *div_u = (real *)div_u_;
    const real dt = (real)dt_;
    if (AC_FN(fill_ghosts)(in, AC_NUM_FIELDS, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    const ac_physics_params p = make_physics_params(g);
    const ac_geometry geo = make_geometry(g);
    const ac_tile tile = ac_cuda_tile();
    const dim3 threads(tile.x, tile.y, 1);
    const int z = tile.z;
    const dim3 blocks = AC_FN(tile_blocks)(s, threads, z);
    AC_FN(first_pass_19p_kernel)<<<blocks, threads, 0, stream>>>(in, out, w_in, w_out, div_u, s, p, geo, substep, dt,
                                                                 z);
    if (ac_cuda_record(cudaGetLastError(), "19-point first pass launch") != AC_OK)
        return AC_ERR_DEVICE;
    AC_FN(field_set) div_set = {{div_u, NULL, NULL, NULL}};
    if (AC_FN(fill_ghosts)(div_set, 1, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    AC_FN(grad_div_kernel)<<<blocks, threads, 0, stream>>>(out, w_out, div_u, s, p, geo, substep, dt, z);
    return ac_cuda_record(cudaGetLastError(), "19-point second pass launch");
}

/* ---- walls (../boundaries.h) ------------------------------------------------
 * Grids with walls take the streaming kernel's ghost-reading path (as a
 * decomposed grid does); these kernels fill the ghosts before every substep:
 * the wall values of 'a' and 'set', then axis by axis (periodic, or each wall
 * face by its kind), each pass over the whole padded extent of the others. */
/* The wall faces of one axis for every field in one launch: the fields,
 * each face's kind and 'set' value, the wall points' indices along the
 * axis (-1: that face is not a wall). */
typedef struct {
    real *f[AC_MAX_FIELDS];
    unsigned char kind[2][AC_MAX_FIELDS];
    real value[2][AC_MAX_FIELDS];
    int wall[2];
    int fields;
} AC_FN(wall_faces);

/* The wall values of 'a' (0) and 'set' at the interior points of the wall
 * planes: thread t takes point (b, c) of field f on a face, b fastest. */
__global__ void AC_FN(set_walls_kernel)(AC_FN(wall_faces) w, int nb, int nc, ptrdiff_t sa, ptrdiff_t sb,
                                        ptrdiff_t sc, int lob, int loc)
{
    const long long plane = (long long)nb * nc, total = plane * w.fields * 2;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long at = t % plane, rest = t / plane;
        const int f = (int)(rest % w.fields), face = (int)(rest / w.fields), k = w.kind[face][f];
        if (w.wall[face] < 0 || (k != AC_BC_A && k != AC_BC_SET))
            continue;
        w.f[f][w.wall[face] * sa + (lob + at % nb) * sb + (loc + at / nb) * sc] =
            k == AC_BC_A ? (real)0 : w.value[face][f];
    }
}

/* The ghosts of the wall faces over the whole padded extent of the other
 * axes (boundaries.h, AC_BC_GHOST): thread t takes column (b, c) of field
 * f on a face, b fastest. */
__global__ void AC_FN(wall_ghosts_kernel)(AC_FN(wall_faces) w, AC_FN(ghost_pass) g)
{
    const long long plane = (long long)g.mb * g.mc, total = plane * w.fields * 2;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long at = t % plane, rest = t / plane;
        const int f = (int)(rest % w.fields), face = (int)(rest / w.fields), k = w.kind[face][f];
        if (w.wall[face] < 0)
            continue;
        const int out = face == 0 ? -1 : 1;
        real *p = w.f[f] + (at % g.mb) * g.sb + (at / g.mb) * g.sc + w.wall[face] * g.sa;
        const real wall = p[0];
#pragma unroll
        for (int i = 1; i <= AC_GHOST; ++i)
            p[out * i * g.sa] = AC_BC_GHOST(k, wall, p[-out * i * g.sa]);
    }
}

/* Axis `axis`'s wall faces of the grid's fields (wall[face] -1 where that
 * face is not a wall). */
static AC_FN(wall_faces) AC_FN(make_wall_faces)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS],
                                                const AC_FN(shape) & s, int axis)
{
    AC_FN(wall_faces) w;
    memset(&w, 0, sizeof w);
    w.fields = g->fields;
    for (int face = 0; face < 2; ++face) {
        w.wall[face] = !ac_boundaries_wall(&g->bc, axis, face) ? -1
                       : face == 0                              ? s.lo[axis]
                                                                : s.lo[axis] + s.n[axis] - 1;
        for (int f = 0; f < g->fields; ++f) {
            w.f[f] = (real *)fields_[f];
            w.kind[face][f] = g->bc.kind[axis][face][f];
            w.value[face][f] = (real)g->bc.value[axis][face][f];
        }
    }
    return w;
}

/* The wall values of every field of `fields_` on the grid's wall faces:
 * one launch per wall axis. */
extern "C" ac_status AC_FN(cuda_set_walls)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    for (int axis = 0; axis < 3; ++axis) {
        if (!ac_boundaries_wall_axis(&g->bc, axis))
            continue;
        const int b = axis == 0 ? 1 : 0, c = axis == 2 ? 1 : 2;
        AC_FN(set_walls_kernel)<<<AC_FN(blocks_for)((long long)s.n[b] * s.n[c] * g->fields * 2, 65535), 256, 0, stream>>>(
            AC_FN(make_wall_faces)(g, fields_, s, axis), s.n[b], s.n[c], s.stride[axis], s.stride[b], s.stride[c],
            s.lo[b], s.lo[c]);
        if (ac_cuda_record(cudaGetLastError(), "set_walls_kernel launch") != AC_OK)
            return AC_ERR_DEVICE;
    }
    return AC_OK;
}

/* ---- the shearing-periodic x faces (../boundaries.h, terms/shear.h) -------
 * The x ghost planes of a shearing box over the interior y and z, each the
 * opposite face's interior shifted along y by deltay and interpolated, as
 * the CPU's shear_ghosts (cpu/kernels_impl.h) fills them: the weights in
 * double on the host (shear_weights) for the deltay of the substep being
 * queued, each ghost's sum in double (shear_ghost_value).  The y and z
 * ghosts follow (the y and z passes copy the x ghosts on, or the streaming
 * kernel reads them at their periodic images' rows). */
typedef struct {
    real *f[AC_MAX_FIELDS];
    /* per face, of each field: the opposite face's AC_GHOST x planes, plane q's value at whole-grid row Y and
     * interior z index k at [q + sy Y + sz k] */
    const real *source[2][AC_MAX_FIELDS];
    ptrdiff_t sy, sz;
    double c[6];
    int displs, ny, fields, first_face, faces;
} AC_FN(shear_faces);

/* Thread t takes ghost plane q of row (j, k) of field f on a face, q fastest. */
__global__ void AC_FN(shear_ghosts_kernel)(AC_FN(shear_faces) w, AC_FN(shape) s)
{
    const long long plane = (long long)AC_GHOST * s.n[1] * s.n[2], total = plane * w.fields * w.faces;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long at = t % plane, rest = t / plane, row = at / AC_GHOST;
        const int q = (int)(at % AC_GHOST), j = (int)(row % s.n[1]), k = (int)(row / s.n[1]);
        const int f = (int)(rest % w.fields), face = w.first_face + (int)(rest / w.fields), toward = face == 0 ? -1 : 1;
        w.f[f][AC_FN(padded)(s, face == 0 ? q - AC_GHOST : s.n[0] + q, j, k)] =
            shear_ghost_value(w.source[face][f] + q + w.sz * k, w.sy, w.ny, s.offset[1] + j + toward * (w.displs - 2),
                              toward, w.c);
    }
}

/* The shifted x ghosts of `faces` faces from face first_face of the grid's
 * fields, from the sources w holds (shear_faces). */
static ac_status AC_FN(launch_shear_ghosts)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS],
                                            AC_FN(shear_faces) & w, int first_face, int faces, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    for (int f = 0; f < g->fields; ++f)
        w.f[f] = (real *)fields_[f];
    w.fields = g->fields;
    w.first_face = first_face;
    w.faces = faces;
    w.ny = g->bc.shear.ny;
    shear_weights(g->bc.shear.deltay, g->spacing[1], &w.displs, w.c);
    const long long total = (long long)AC_GHOST * s.n[1] * s.n[2] * g->fields * faces;
    AC_FN(shear_ghosts_kernel)<<<AC_FN(blocks_for)(total, 65535), 256, 0, stream>>>(w, s);
    return ac_cuda_record(cudaGetLastError(), "shear_ghosts_kernel launch");
}

/* Both x faces of a grid that holds every y and both faces (bc.shear.local),
 * from its own interior. */
static ac_status AC_FN(fill_shear_ghosts)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], cudaStream_t stream)
{
    AC_FN(shear_faces) w;
    memset(&w, 0, sizeof w);
    for (int f = 0; f < g->fields; ++f) {
        const real *field = (const real *)fields_[f];
        w.source[0][f] = field + ac_grid_index(g, g->n[0] - AC_GHOST, 0, 0); /* the upper face's planes */
        w.source[1][f] = field + ac_grid_index(g, 0, 0, 0);
    }
    w.sy = g->m[0];
    w.sz = (ptrdiff_t)g->m[0] * g->m[1];
    return AC_FN(launch_shear_ghosts)(g, fields_, w, 0, 2, stream);
}

/* The x ghosts of face `face` of the grid's fields from `source` in device
 * memory, dense as the backend's shear_ghosts op takes it (backend.h):
 * field by field, AC_GHOST x planes by the whole grid's y by the interior
 * z, x fastest. */
extern "C" ac_status AC_FN(cuda_shear_ghosts)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int face,
                                              const void *source, cudaStream_t stream)
{
    AC_FN(shear_faces) w;
    memset(&w, 0, sizeof w);
    w.sy = AC_GHOST;
    w.sz = (ptrdiff_t)AC_GHOST * g->bc.shear.ny;
    for (int f = 0; f < g->fields; ++f)
        w.source[face][f] = (const real *)source + (size_t)f * (size_t)(w.sz * g->n[2]);
    return AC_FN(launch_shear_ghosts)(g, fields_, w, face, 1, stream);
}

/* Whether the grid's x faces are shearing-periodic and shifted here: a
 * shearing box that holds every y and both x faces. */
static bool AC_FN(shears_x)(const ac_grid *g)
{
    return (ac_grid_terms(g) & AC_TERM_SHEAR) && g->bc.shear.local;
}

/* The ghosts of one axis under the grid's boundaries: periodic on an axis
 * without walls, else those of its wall faces (a face that is not a wall on
 * a wall axis is the exchange's), every field in one launch; a shearing
 * box's x faces shifted where the grid holds their sources, else periodic
 * for the caller to shift (as the CPU's fill_ghost_axis_bc). */
extern "C" ac_status AC_FN(cuda_fill_ghost_axis_bc)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int axis,
                                                    cudaStream_t stream)
{
    if (axis == 0 && AC_FN(shears_x)(g))
        return AC_FN(fill_shear_ghosts)(g, fields_, stream);
    if (!ac_boundaries_wall_axis(&g->bc, axis))
        return AC_FN(cuda_fill_ghost_axis)(g, fields_, axis, stream);
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const AC_FN(ghost_pass) p = AC_FN(make_ghost_pass)(s, axis);
    AC_FN(wall_ghosts_kernel)<<<AC_FN(blocks_for)((long long)p.mb * p.mc * g->fields * 2, 65535), 256, 0, stream>>>(
        AC_FN(make_wall_faces)(g, fields_, s, axis), p);
    return ac_cuda_record(cudaGetLastError(), "wall_ghosts_kernel launch");
}

/* The ghost zones of the fields under the grid's walls: the wall values of
 * 'a' and 'set', then axis by axis (periodic, or each wall face by its
 * kind) but the axes of mask `skip`. */
static ac_status AC_FN(fill_ghosts_but)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], unsigned skip,
                                        cudaStream_t stream)
{
    if (g->bc.walls && AC_FN(cuda_set_walls)(g, fields_, stream) != AC_OK)
        return AC_ERR_DEVICE;
    for (int axis = 0; axis < 3; ++axis)
        if (!(skip & 1u << axis) && AC_FN(cuda_fill_ghost_axis_bc)(g, fields_, axis, stream) != AC_OK)
            return AC_ERR_DEVICE;
    return AC_OK;
}

/* The axes among `candidates` (bit a: axis a, periodic on this grid) whose
 * ghost values the streaming kernel can read from their periodic images:
 * those without walls, x only where stream_wraps_x and not
 * shearing-periodic. */
static unsigned AC_FN(wrappable_axes)(const ac_grid *g, const AC_FN(shape) & s, unsigned candidates)
{
    unsigned wraps = 0;
    for (int axis = 0; axis < 3; ++axis)
        if ((candidates >> axis & 1u) && !ac_boundaries_wall_axis(&g->bc, axis) &&
            (axis > 0 || (AC_FN(stream_wraps_x)(s) && !AC_FN(shears_x)(g))))
            wraps |= 1u << axis;
    return wraps;
}

/* Before a whole-grid substep: *wraps, the axes whose ghost values the
 * streaming kernel reads from periodic images (bit a: axis a; every
 * periodic axis, x only where stream_wraps_x and not shearing-periodic),
 * and the ghost zones of the others.  A periodic grid's y and z are never
 * filled. */
static ac_status AC_FN(fill_unwrapped_ghosts)(const ac_grid *g, void *const in_[AC_MAX_FIELDS],
                                              const AC_FN(shape) & s, unsigned *wraps, cudaStream_t stream)
{
    *wraps = AC_FN(wrappable_axes)(g, s, 7u);
    return AC_FN(fill_ghosts_but)(g, in_, *wraps, stream);
}

extern "C" unsigned AC_FN(cuda_region_wraps)(const ac_grid *g, unsigned periodic)
{
    return AC_FN(wrappable_axes)(g, AC_FN(make_shape)(g), periodic);
}

/* Every ghost zone of the fields under the grid's walls. */
extern "C" ac_status AC_FN(cuda_fill_walls)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], cudaStream_t stream)
{
    return AC_FN(fill_ghosts_but)(g, fields_, 0u, stream);
}

/* Gravity (terms/gravity.h) after a substep's kernel over region r: du/dt
 * += g is linear, so it adds dt g to w and beta dt g to u (w_out NULL: the
 * last substep keeps no w).  dt_device: the device-side CFL loop's step
 * length, read as the substep kernels read it (step_length). */
__global__ void AC_FN(gravity_kernel)(AC_FN(field_set) out, AC_FN(field_set) w_out, AC_FN(shape) s,
                                      ac_physics_params p, real dt, const double *dt_device, real beta)
{
    if (!AC_FN(step_length)(dt_device, &dt))
        return;
    const int ni = s.end[0] - s.first[0], nj = s.end[1] - s.first[1], nk = s.end[2] - s.first[2];
    const long long total = (long long)ni * nj * nk;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long r = t / ni;
        const ptrdiff_t at = AC_FN(padded)(s, s.first[0] + (int)(t % ni), s.first[1] + (int)(r % nj),
                                           s.first[2] + (int)(r / nj));
#pragma unroll
        for (int i = 0; i < 3; ++i) {
            const real increment = dt * p.table.gravity[i];
            if (w_out.f[1 + i])
                w_out.f[1 + i][at] += increment;
            out.f[1 + i][at] += beta * increment;
        }
    }
}

extern "C" ac_status AC_FN(cuda_add_gravity)(const ac_grid *g, const ac_region *r, void *const out_[AC_MAX_FIELDS],
                                             void *const w_out_[AC_MAX_FIELDS], int substep, double dt,
                                             const double *dt_device, cudaStream_t stream)
{
    AC_FN(shape) s = AC_FN(make_shape)(g);
    for (int a = 0; r && a < 3; ++a) {
        s.first[a] = r->lo[a];
        s.end[a] = r->hi[a];
        if (r->hi[a] <= r->lo[a])
            return AC_OK;
    }
    const long long total = (long long)(s.end[0] - s.first[0]) * (s.end[1] - s.first[1]) * (s.end[2] - s.first[2]);
    AC_FN(gravity_kernel)<<<AC_FN(blocks_for)(total, 65535), 256, 0, stream>>>(
        AC_FN(make_set)(out_), AC_FN(make_set)(w_out_), s, make_physics_params(g), (real)dt, dt_device,
        rk3_beta(substep));
    return ac_cuda_record(cudaGetLastError(), "gravity_kernel launch");
}

/* ---- reductions ------------------------------------------------------------
 * max |u|^2 as the bits of a non-negative double (they order like the
 * values), and one flag bit per field holding a NaN or Inf. */
/* One point's part: the flags of fields first_field..3 and its |u|^2. */
static __device__ __forceinline__ void AC_FN(reduce_point)(const AC_FN(field_set) & fields, ptrdiff_t idx,
                                                            int first_field, double *max_u2, unsigned int *flags)
{
    for (int f = first_field; f < AC_NUM_FIELDS; ++f)
        if (!isfinite(fields.f[f][idx]))
            *flags |= 1u << f;
    const double u2 = AC_FN(speed_squared)(fields.f[1][idx], fields.f[2][idx], fields.f[3][idx]);
    *max_u2 = u2 > *max_u2 ? u2 : *max_u2;
}

/* Over the interior, a thread a point at a time (an ensemble's members). */
static __device__ __forceinline__ void AC_FN(reduce_body)(const AC_FN(field_set) & fields, const AC_FN(shape) & s,
                                                           int first_field, unsigned long long *max_u2_bits,
                                                           unsigned int *nonfinite)
{
    double local_max = 0.0;
    unsigned int flags = 0;
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x)
        AC_FN(reduce_point)(fields, AC_FN(interior_padded)(s, t), first_field, &local_max, &flags);
    AC_FN(warp_reduce_to)(local_max, flags, max_u2_bits, nonfinite); /* every lane gets here */
}

/* Over one grid, a thread an x-y column up a run of z planes (tile_column):
 * no division a point (reduce_body's walk divides three 64-bit integers a
 * point). */
__global__ void AC_FN(reduce_kernel)(AC_FN(field_set) fields, AC_FN(shape) s, int first_field, int z_per_block,
                                     unsigned long long *max_u2_bits, unsigned int *nonfinite)
{
    double local_max = 0.0;
    unsigned int flags = 0;
    int i, j, k0, k1;
    if (AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        for (int k = k0; k < k1; ++k)
            AC_FN(reduce_point)(fields, AC_FN(padded)(s, i, j, k), first_field, &local_max, &flags);
    AC_FN(warp_reduce_to)(local_max, flags, max_u2_bits, nonfinite); /* every lane gets here */
}

extern "C" ac_status AC_FN(cuda_reduce)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS], int first_field,
                                        unsigned long long *max_u2_bits, unsigned int *nonfinite, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const dim3 threads(32, 8, 1);
    const dim3 columns = AC_FN(tile_blocks)(s, threads, s.n[2]);
    int z = 16; /* planes a thread, fewer where the launch would have fewer than 1024 blocks */
    while (z > 1 && (long long)columns.x * columns.y * ((s.n[2] + z - 1) / z) < 1024)
        z /= 2;
    AC_FN(reduce_kernel)<<<AC_FN(tile_blocks)(s, threads, z), threads, 0, stream>>>(
        AC_FN(make_set)(fields_), s, first_field, z, max_u2_bits, nonfinite);
    return ac_cuda_record(cudaGetLastError(), "reduction launch");
}

/* ---- kernels that walk z ---------------------------------------------------
 * A block of AC_ZWALK_TX x AC_ZWALK_TY threads takes that tile of x-y columns
 * and walks a run of planes up it: a point's z neighbours are those of the
 * point below, still in L1, what depends on x and y alone is found once a
 * column, and no thread divides an index.  Runs of AC_ZWALK_PLANES planes,
 * fewer where the launch would have fewer than AC_ZWALK_BLOCKS blocks (small
 * grids: a thread's planes are taken one after another, and too few threads
 * leave the SMs waiting on their loads), more where it would pass 65535
 * blocks along z; `count` grids of one shape side by side along the launch's
 * z (an ensemble's members). */
enum { AC_ZWALK_TX = 32, AC_ZWALK_TY = 8, AC_ZWALK_PLANES = 16, AC_ZWALK_BLOCKS = 2048 };

static int AC_FN(zwalk_planes)(const AC_FN(shape) & s, int count)
{
    const long long tiles = (long long)((s.n[0] + AC_ZWALK_TX - 1) / AC_ZWALK_TX) *
                            ((s.n[1] + AC_ZWALK_TY - 1) / AC_ZWALK_TY) * count;
    int z = AC_ZWALK_PLANES;
    while (z > 1 && tiles * ((s.n[2] + z - 1) / z) < AC_ZWALK_BLOCKS)
        z /= 2;
    while ((long long)((s.n[2] + z - 1) / z) * count > 65535)
        z *= 2;
    return z;
}

static dim3 AC_FN(zwalk_blocks)(const AC_FN(shape) & s, int planes, int count)
{
    return dim3((unsigned)((s.n[0] + AC_ZWALK_TX - 1) / AC_ZWALK_TX),
                (unsigned)((s.n[1] + AC_ZWALK_TY - 1) / AC_ZWALK_TY),
                (unsigned)((s.n[2] + planes - 1) / planes * count));
}

/* ---- forcing: the term of one step, eq. (24), added to the velocity ---- */
enum { AC_FORCING_PLANES = 4 }; /* the planes whose velocity a thread reads at once (add_forcing_term) */
/* Each point's phase from its axes' (forcing.h's forcing_phase_at): the
 * thread's x and y factors once, z's once a plane by the block, which takes
 * the z_run-th run of `planes` planes. */
static __device__ __forceinline__ void AC_FN(add_forcing_term)(const AC_FN(field_set) & fields, const AC_FN(shape) & s,
                                                                const ac_forcing_term &term, double dt, int planes,
                                                                int z_run)
{
    __shared__ ac_forcing_phase along_z[AC_ZWALK_PLANES];
    const int k0 = z_run * planes, k1 = min(k0 + planes, s.n[2]);
    const int t = threadIdx.x + AC_ZWALK_TX * threadIdx.y;
    if (t < k1 - k0)
        along_z[t] = forcing_axis_phase(&term, 2, ac_axis_coordinate(s.origin[2], s.offset[2] + k0 + t, s.spacing[2]));
    __syncthreads();
    const int i = blockIdx.x * AC_ZWALK_TX + threadIdx.x, j = blockIdx.y * AC_ZWALK_TY + threadIdx.y;
    if (i < s.n[0] && j < s.n[1]) {
        /* the coordinates as ac_coordinate() (grid.h) computes them */
        const double xi = ac_axis_coordinate(s.origin[0], s.offset[0] + i, s.spacing[0]),
                     yj = ac_axis_coordinate(s.origin[1], s.offset[1] + j, s.spacing[1]);
        const ac_forcing_phase x = forcing_axis_phase(&term, 0, xi), y = forcing_axis_phase(&term, 1, yj);
        const bool helical = forcing_is_helical(&term);
        const ptrdiff_t dz = s.stride[2];
        ptrdiff_t idx = AC_FN(padded)(s, i, j, k0);
        /* The velocity of AC_FORCING_PLANES planes is read before any of it is written back: as far as the
         * compiler knows the fields may overlap, so a load after a store waits for it, and a plane at a time
         * (the helical part read back after the cosine part's store) left one plane's loads in flight. */
        for (int k = k0; k < k1; k += AC_FORCING_PLANES, idx += AC_FORCING_PLANES * dz) {
            real u[AC_FORCING_PLANES][3];
            AC_UNROLL
            for (int q = 0; q < AC_FORCING_PLANES; ++q)
                if (k + q < k1)
                    AC_UNROLL
                    for (int c = 0; c < 3; ++c)
                        u[q][c] = fields.f[1 + c][idx + q * dz];
            AC_UNROLL
            for (int q = 0; q < AC_FORCING_PLANES; ++q)
                if (k + q < k1) {
                    const ac_forcing_phase phase = forcing_phase_at(x, y, along_z[k + q - k0]);
                    double du[3];
                    forcing_increment(&term, phase, dt, du);
                    AC_UNROLL
                    for (int c = 0; c < 3; ++c)
                        u[q][c] += (real)du[c];
                    if (helical) { /* the sine part as the CPU adds it: a second rounding to real */
                        forcing_sine_increment(&term, phase, dt, du);
                        AC_UNROLL
                        for (int c = 0; c < 3; ++c)
                            u[q][c] += (real)du[c];
                    }
                    AC_UNROLL
                    for (int c = 0; c < 3; ++c)
                        fields.f[1 + c][idx + q * dz] = u[q][c];
                }
        }
    }
}

__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY)
    AC_FN(forcing_kernel)(AC_FN(field_set) fields, AC_FN(shape) s, ac_forcing_term term, double dt, int planes)
{
    AC_FN(add_forcing_term)(fields, s, term, dt, planes, blockIdx.z);
}

/* The term of a device CFL run's last step, samples[taken - 1] for its
 * length (forcing.h's ac_forcing_term_of, as the host finds it), and that
 * length; false once the run has ended (NaN there): nothing to add. */
static __device__ __forceinline__ bool AC_FN(run_forcing_term)(const ac_forcing_sample *samples,
                                                                const ac_cfl_run *run, ac_forcing_term *term,
                                                                double *dt)
{
    *dt = run->step_dt;
    if (*dt != *dt)
        return false;
    ac_forcing_term_of(samples + (run->taken - 1), run->forcing_f0, run->forcing_cs, *dt, term);
    return true;
}

/* The device-side CFL loop's forcing after a step, where its last substep
 * does not add it (cuda_backend.cu's forcing_in_substep: the magnetic
 * module's instances, walls, gravity): the term of the run's last step
 * (run_forcing_term). */
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY)
    AC_FN(forcing_sample_kernel)(AC_FN(field_set) fields, AC_FN(shape) s, const ac_forcing_sample *samples,
                                 const ac_cfl_run *run, int planes)
{
    ac_forcing_term term;
    double dt;
    if (!AC_FN(run_forcing_term)(samples, run, &term, &dt))
        return; /* every thread of the block, before its barrier */
    AC_FN(add_forcing_term)(fields, s, term, dt, planes, blockIdx.z);
}

/* ... or, where the step's last substep adds it (stream_substep.cuh), the
 * term and its axes' phase factors at the grid's points, each as
 * add_forcing_term finds them: a thread a point of an axis, x's, y's, then
 * z's. */
static __device__ __forceinline__ void AC_FN(make_step_forcing)(const AC_FN(shape) & s,
                                                                 const ac_forcing_sample *samples,
                                                                 const ac_cfl_run *run, ac_step_forcing *forcing)
{
    ac_forcing_term term;
    double dt;
    if (!AC_FN(run_forcing_term)(samples, run, &term, &dt))
        return; /* the run has ended: its substeps do nothing */
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x), a = 0;
    if (t == 0) {
        forcing->term = term;
        forcing->dt = dt;
        forcing->helical = forcing_is_helical(&term);
    }
    while (a < 3 && t >= s.n[a])
        t -= s.n[a++];
    if (a < 3)
        forcing->along[a][t] = forcing_axis_phase(&term, a, ac_axis_coordinate(s.origin[a], s.offset[a] + t, s.spacing[a]));
}

__global__ void AC_FN(forcing_step_kernel)(AC_FN(shape) s, const ac_forcing_sample *samples, const ac_cfl_run *run,
                                           ac_step_forcing *forcing)
{
    AC_FN(make_step_forcing)(s, samples, run, forcing);
}

extern "C" ac_status AC_FN(cuda_forcing_step)(const ac_grid *g, const ac_forcing_sample *samples, const ac_cfl_run *run,
                                              ac_step_forcing *forcing, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const int points = s.n[0] + s.n[1] + s.n[2];
    AC_FN(forcing_step_kernel)<<<(points + 127) / 128, 128, 0, stream>>>(s, samples, run, forcing);
    return ac_cuda_record(cudaGetLastError(), "forcing step launch");
}

extern "C" ac_status AC_FN(cuda_add_forcing)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS],
                                             const ac_forcing_term *term, double dt, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const int planes = AC_FN(zwalk_planes)(s, 1);
    AC_FN(forcing_kernel)<<<AC_FN(zwalk_blocks)(s, planes, 1), dim3(AC_ZWALK_TX, AC_ZWALK_TY), 0, stream>>>(
        AC_FN(make_set)(fields_), s, *term, dt, planes);
    return ac_cuda_record(cudaGetLastError(), "forcing launch");
}

extern "C" ac_status AC_FN(cuda_add_forcing_sample)(const ac_grid *g, void *const fields_[AC_NUM_FIELDS],
                                                    const ac_forcing_sample *samples, const ac_cfl_run *run,
                                                    cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const int planes = AC_FN(zwalk_planes)(s, 1);
    AC_FN(forcing_sample_kernel)<<<AC_FN(zwalk_blocks)(s, planes, 1), dim3(AC_ZWALK_TX, AC_ZWALK_TY), 0, stream>>>(
        AC_FN(make_set)(fields_), s, samples, run, planes);
    return ac_cuda_record(cudaGetLastError(), "forcing launch");
}

#include "mhd_substep.cuh"
#include "members.cuh"
#include "shock.cuh"
