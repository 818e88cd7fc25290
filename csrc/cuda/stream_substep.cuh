/*
 * stream_substep.cuh -- the 55-point substep, planes streamed along z.
 *
 * Included by kernels_impl.cuh (once per precision).  A block owns a TX x TY
 * tile of x-y columns and a run of z planes.  Planes of the four input
 * fields, each with a ghost-wide rim, pass through a ring of shared-memory
 * slots, copied asynchronously one plane ahead of use, so the ~150 stencil
 * reads of a point come from shared memory and registers at compile-time
 * offsets and every input value leaves DRAM once.
 *
 * Each thread keeps its own column's last seven values of every field in
 * registers (the z stencils).  The mixed derivatives across planes
 * (d_x d_z, d_y d_z) are summed plane by plane, eq. (8) regrouped
 * (physics.h, mixed_plane_weight): a plane adds its weighted in-plane
 * differences to the pending points three above and below it.  A point is
 * finished when the plane three above it has arrived; its in-plane
 * derivatives come from its own slot, three slots back.  The per-point
 * arithmetic is physics.h's: this file only moves values.
 */
#include <cuda_pipeline.h>

enum { AC_SPAN = 2 * AC_GHOST + 1 };  /* points of a stencil along one axis */
enum { AC_RING = AC_GHOST + 2 };     /* slots: the finished point's plane .. the newest, and the next */

/* Eqs. (6) and (7) on values at compile-time offsets S from f: a shared-memory
 * tile or a register column. */
template <int S>
static __device__ __forceinline__ real AC_FN(stencil_first)(const real *f, real inv_d)
{
    return first_from_differences(f[S] - f[-S], f[2 * S] - f[-2 * S], f[3 * S] - f[-3 * S], inv_d);
}

template <int S>
static __device__ __forceinline__ real AC_FN(stencil_second)(const real *f, real inv_d)
{
    return second_from_sums(f[0], f[S] + f[-S], f[2 * S] + f[-2 * S], f[3 * S] + f[-3 * S], inv_d);
}

/* Eq. (8) within a plane, a and b at offsets SA and SB. */
template <int SA, int SB>
static __device__ __forceinline__ real AC_FN(stencil_mixed)(const real *f, real inv_da, real inv_db)
{
    constexpr int P = SA + SB, M = SA - SB;
    return mixed_from_diagonals(f[P] - f[-M] + f[-P] - f[M], f[2 * P] - f[-2 * M] + f[-2 * P] - f[2 * M],
                                f[3 * P] - f[-3 * M] + f[-3 * P] - f[3 * M], inv_da, inv_db);
}

/* Queue one plane (interior z index k) of the tile and its rim into a ring
 * slot.  Points past the padded array are skipped: only threads outside the
 * grid would read them. */
template <int TX, int TY>
static __device__ __forceinline__ void AC_FN(copy_plane)(real *slot, const AC_FN(field_set) & in,
                                                         const AC_FN(shape) & s, int i0, int j0, int k)
{
    constexpr int W = TX + 2 * AC_GHOST, PLANE = W * (TY + 2 * AC_GHOST);
    const int x0 = i0 - AC_GHOST + s.lo[0], y0 = j0 - AC_GHOST + s.lo[1]; /* padded corner */
    const int x_room = s.m[0] - x0, y_room = s.m[1] - y0;
    const ptrdiff_t corner = x0 + s.stride[1] * y0 + s.stride[2] * (k + s.lo[2]);
    for (int e = threadIdx.x + TX * threadIdx.y; e < PLANE; e += TX * TY) {
        const int a = e % W, b = e / W;
        if (a < x_room && b < y_room) {
            const ptrdiff_t g = corner + a + s.stride[1] * b;
#pragma unroll
            for (int f = 0; f < AC_NUM_FIELDS; ++f)
                __pipeline_memcpy_async(slot + f * PLANE + e, in.f[f] + g, sizeof(real));
        }
    }
    __pipeline_commit();
}

/* Shared memory of one block. */
template <int TX, int TY>
static constexpr size_t AC_FN(stream_smem_bytes)()
{
    return (size_t)AC_RING * AC_NUM_FIELDS * (TX + 2 * AC_GHOST) * (TY + 2 * AC_GHOST) * sizeof(real);
}

/* Substep `substep` of the 55-point method over the region [first, end) of
 * s.  w_in is read unless substep == 0 and w_out written unless it is NULL;
 * out may be w_in's array (each point reads its w before writing). */
template <int TX, int TY>
__global__ void __launch_bounds__(TX *TY, sizeof(real) == 4 ? 2 : 1)
    AC_FN(stream_substep_kernel)(AC_FN(field_set) in, AC_FN(field_set) out, AC_FN(field_set) w_in,
                                 AC_FN(field_set) w_out, AC_FN(shape) s, ac_point_params p, int substep, real dt,
                                 int z_per_block)
{
    constexpr int W = TX + 2 * AC_GHOST, PLANE = W * (TY + 2 * AC_GHOST), SLOT = AC_NUM_FIELDS * PLANE;
    extern __shared__ __align__(16) unsigned char ac_stream_smem[];
    real *ring = reinterpret_cast<real *>(ac_stream_smem);

    const int i0 = s.first[0] + blockIdx.x * TX, j0 = s.first[1] + blockIdx.y * TY;
    const int k0 = s.first[2] + blockIdx.z * z_per_block;
    const int planes = min(z_per_block, s.end[2] - k0) + 2 * AC_GHOST;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    const bool active = i < s.end[0] && j < s.end[1];
    const int centre = (threadIdx.y + AC_GHOST) * W + threadIdx.x + AC_GHOST;
    const ptrdiff_t column = (ptrdiff_t)(i + s.lo[0]) + s.stride[1] * (j + s.lo[1]);
    const bool reads_w = substep > 0, writes_w = w_out.f[0] != NULL;
    const real scale_xz = mixed_scale(p.inv_ds[0], p.inv_ds[2]), scale_yz = mixed_scale(p.inv_ds[1], p.inv_ds[2]);

    real col[AC_NUM_FIELDS][AC_SPAN]; /* this column, planes k-3 .. k+3 of the finished point k */
    real acc[3][AC_SPAN];             /* d_i d_z terms of grad div u, points newest-3 .. newest+3 */
#pragma unroll
    for (int q = 0; q < AC_SPAN; ++q) {
#pragma unroll
        for (int f = 0; f < AC_NUM_FIELDS; ++f)
            col[f][q] = 0;
#pragma unroll
        for (int a = 0; a < 3; ++a)
            acc[a][q] = 0;
    }

    AC_FN(copy_plane)<TX, TY>(ring, in, s, i0, j0, k0 - AC_GHOST);
    int newest = 0; /* ring slot of the newest plane */
    for (int it = 0; it < planes; ++it) {
        __pipeline_wait_prior(0);
        __syncthreads(); /* plane `it` is in; every thread is done with the slot copied next */
        const int next = newest == AC_RING - 1 ? 0 : newest + 1;
        if (it + 1 < planes)
            AC_FN(copy_plane)<TX, TY>(ring + next * SLOT, in, s, i0, j0, k0 - AC_GHOST + it + 1);
        const real *plane = ring + newest * SLOT + centre;
        if (active) {
#pragma unroll
            for (int f = 0; f < AC_NUM_FIELDS; ++f) {
#pragma unroll
                for (int q = 0; q < AC_SPAN - 1; ++q)
                    col[f][q] = col[f][q + 1];
                col[f][AC_SPAN - 1] = plane[f * PLANE];
            }
#pragma unroll
            for (int a = 0; a < 3; ++a) {
#pragma unroll
                for (int q = 0; q < AC_SPAN - 1; ++q)
                    acc[a][q] = acc[a][q + 1];
                acc[a][AC_SPAN - 1] = 0;
            }
            /* this plane's share of d_x d_z u_z, d_y d_z u_z and d_z (d_x u_x + d_y u_y) */
            const real *ux = plane + PLANE, *uy = ux + PLANE, *uz = uy + PLANE;
#pragma unroll
            for (int r = 1; r <= AC_GHOST; ++r) {
                const real wr = mixed_plane_weight(r);
                const real e[3] = {scale_xz * (uz[r] - uz[-r]), scale_yz * (uz[r * W] - uz[-r * W]),
                                   scale_xz * (ux[r] - ux[-r]) + scale_yz * (uy[r * W] - uy[-r * W])};
#pragma unroll
                for (int a = 0; a < 3; ++a) {
                    acc[a][AC_GHOST - r] += wr * e[a];
                    acc[a][AC_GHOST + r] -= wr * e[a];
                }
            }
        }
        if (active && it >= 2 * AC_GHOST) { /* point k is finished */
            const int k = k0 + it - 2 * AC_GHOST;
            const ptrdiff_t idx = column + s.stride[2] * (k + s.lo[2]);
            real w[AC_NUM_FIELDS];
#pragma unroll
            for (int f = 0; f < AC_NUM_FIELDS; ++f)
                w[f] = reads_w ? w_in.f[f][idx] : (real)0;
            const int own = newest >= AC_GHOST ? newest - AC_GHOST : newest + AC_RING - AC_GHOST;
            const real *at = ring + own * SLOT + centre; /* point k in its plane's slot */
            ac_derivatives d;
            d.grad_lnrho[0] = AC_FN(stencil_first)<1>(at, p.inv_ds[0]);
            d.grad_lnrho[1] = AC_FN(stencil_first)<W>(at, p.inv_ds[1]);
            d.grad_lnrho[2] = AC_FN(stencil_first)<1>(col[0] + AC_GHOST, p.inv_ds[2]);
            real along[3][3]; /* along[c][a]: second derivative of u_c along axis a */
#pragma unroll
            for (int c = 0; c < 3; ++c) {
                const real *u = at + (1 + c) * PLANE, *uc = col[1 + c] + AC_GHOST;
                d.u[c] = uc[0];
                d.grad_u[c][0] = AC_FN(stencil_first)<1>(u, p.inv_ds[0]);
                d.grad_u[c][1] = AC_FN(stencil_first)<W>(u, p.inv_ds[1]);
                d.grad_u[c][2] = AC_FN(stencil_first)<1>(uc, p.inv_ds[2]);
                along[c][0] = AC_FN(stencil_second)<1>(u, p.inv_ds[0]);
                along[c][1] = AC_FN(stencil_second)<W>(u, p.inv_ds[1]);
                along[c][2] = AC_FN(stencil_second)<1>(uc, p.inv_ds[2]);
                d.lap_u[c] = along[c][0] + along[c][1] + along[c][2];
            }
            /* grad div u, eq. (8): d_i d_i u_i + the mixed terms (those along z from acc) */
            d.grad_div_u[0] = along[0][0] + (AC_FN(stencil_mixed)<1, W>(at + 2 * PLANE, p.inv_ds[0], p.inv_ds[1]) +
                                             acc[0][0]);
            d.grad_div_u[1] = along[1][1] + (AC_FN(stencil_mixed)<W, 1>(at + PLANE, p.inv_ds[1], p.inv_ds[0]) +
                                             acc[1][0]);
            d.grad_div_u[2] = along[2][2] + acc[2][0];
            real rhs[AC_NUM_FIELDS];
            rhs_from_derivatives(&d, &p, rhs);
#pragma unroll
            for (int f = 0; f < AC_NUM_FIELDS; ++f) {
                const real u_new = rk3_substep(col[f][AC_GHOST], rhs[f], &w[f], substep, dt);
                out.f[f][idx] = u_new;
                if (writes_w)
                    w_out.f[f][idx] = w[f];
            }
        }
        newest = next;
    }
}
