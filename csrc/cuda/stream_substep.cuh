/*
 * stream_substep.cuh -- the 55-point substep, planes streamed along z.
 *
 * Included by kernels_impl.cuh (once per precision).  A block walks up the
 * z planes of a TX x TY tile of x-y columns.  Planes of the four input
 * fields, each with a ghost-wide rim, pass through a ring of shared-memory
 * slots, copied asynchronously in 16-byte pieces LEAD planes ahead of use, so
 * the ~150 stencil reads of a point come from shared memory and registers
 * at compile-time offsets and every input value leaves DRAM once.
 *
 * Each thread keeps its own column's three values below the next point in
 * registers (in shared memory where registers are short: below_in_shared);
 * the z stencils take the rest from the ring.  The mixed
 * derivatives across planes (d_x d_z, d_y d_z) are summed plane by plane,
 * eq. (8) regrouped (physics.h, mixed_plane_weight): a plane adds its
 * weighted in-plane differences to the pending points three above and
 * below it.  A point is
 * finished when the plane three above it has arrived; its in-plane
 * derivatives come from its own slot, three slots back.  The per-point
 * arithmetic is physics.h's: this file only moves values.
 */
#include <cuda_pipeline.h>

enum { AC_SPAN = 2 * AC_GHOST + 1 }; /* points of a stencil along one axis */

/* Shared-memory layout of a TX x TY tile: rows of W values starting on a
 * 16-byte boundary of the padded grid, H rows, one plane per field; RING
 * slots: the finished point's plane .. the newest, and LEAD planes in
 * flight. */
template <int TX, int TY, int LEAD, int NF = AC_NUM_FIELDS>
struct AC_FN(stream_tile) {
    static constexpr int FIELDS = NF; /* four (hydrodynamics) or seven (MHD) */
    static constexpr int CHUNK = 16 / (int)sizeof(real); /* values per 16-byte copy */
    static constexpr int W = (TX + 2 * AC_GHOST + 2 * (CHUNK - 1)) / CHUNK * CHUNK;
    static constexpr int H = TY + 2 * AC_GHOST;
    static constexpr int PLANE = W * H, SLOT = NF * PLANE;
    static constexpr int PIECES = H * (W / CHUNK); /* 16-byte copies per field and plane */
    static constexpr int THREADS = TX * TY;
    static constexpr int COPIES = (PIECES + THREADS - 1) / THREADS; /* per thread, field and plane */
    static constexpr int RING = AC_GHOST + 1 + LEAD;
    static constexpr size_t BYTES = (size_t)RING * SLOT * sizeof(real);
    static constexpr size_t BELOW_BYTES = (size_t)AC_GHOST * NF * THREADS * sizeof(real); /* see below_in_shared */
};

/* Whether an instance keeps each thread's column below its point (`below`)
 * in shared memory after the ring, not in registers: MHD with
 * hyperdiffusion in double, whose 255 registers a thread spill 192 bytes
 * otherwise (24 so).  Its three planes of the tile's interior, 43 kB, fit
 * beside the ring's 188 kB.  At 256^3 its step takes 0.91 of the plain
 * one's M/s, against 0.73 before (benchmarks/results, 2026-11-24-h100-*). */
template <int NF, bool HYPER>
static constexpr __host__ __device__ bool AC_FN(below_in_shared)()
{
    return HYPER && NF > AC_NUM_FIELDS && sizeof(real) == 8;
}

/* The shared memory an instance takes. */
template <int TX, int TY, int LEAD, int NF, bool HYPER>
static constexpr size_t AC_FN(stream_smem)()
{
    typedef AC_FN(stream_tile)<TX, TY, LEAD, NF> T;
    return T::BYTES + (AC_FN(below_in_shared)<NF, HYPER>() ? T::BELOW_BYTES : 0);
}

/* Eqs. (6) and (7) on values at compile-time offsets S from f: a shared-memory
 * tile or a register column. */
template <int S>
static __device__ __forceinline__ real AC_FN(stencil_first)(const real *f, real scale)
{
    return first_from_differences(f[S] - f[-S], f[2 * S] - f[-2 * S], f[3 * S] - f[-3 * S], scale);
}

template <int S>
static __device__ __forceinline__ real AC_FN(stencil_second)(const real *f, real scale)
{
    return second_from_sums(f[0], f[S] + f[-S], f[2 * S] + f[-2 * S], f[3 * S] + f[-3 * S], scale);
}

template <int S>
static __device__ __forceinline__ real AC_FN(stencil_sixth)(const real *f, real scale)
{
    return sixth_from_sums(f[0], f[S] + f[-S], f[2 * S] + f[-2 * S], f[3 * S] + f[-3 * S], scale);
}

/* Eq. (8) within a plane, a and b at offsets SA and SB. */
template <int SA, int SB>
static __device__ __forceinline__ real AC_FN(stencil_mixed)(const real *f, real scale)
{
    constexpr int P = SA + SB, M = SA - SB;
    return mixed_from_diagonals(f[P] - f[-M] + f[-P] - f[M], f[2 * P] - f[-2 * M] + f[-2 * P] - f[2 * M],
                                f[3 * P] - f[-3 * M] + f[-3 * P] - f[3 * M], scale);
}

/* The stencils' scale factors (physics.h), computed once on the host: as
 * kernel parameters they are operands from the constant bank, not
 * registers. */
typedef struct {
    real first[3], second[3], mixed_xy;
    real weight_xz[AC_GHOST], weight_yz[AC_GHOST]; /* eq. (8)'s weights times the scale along z */
    real sixth[3];                                 /* hyperdiffusion's del6 */
} AC_FN(stencil_scales);

static AC_FN(stencil_scales) AC_FN(make_scales)(const ac_point_params &p)
{
    AC_FN(stencil_scales) c;
    for (int a = 0; a < 3; ++a) {
        c.first[a] = first_scale(p.inv_ds[a]);
        c.second[a] = second_scale(p.inv_ds[a]);
        c.sixth[a] = sixth_scale(p.inv_ds[a]);
    }
    c.mixed_xy = mixed_scale(p.inv_ds[0], p.inv_ds[1]);
    for (int r = 1; r <= AC_GHOST; ++r) {
        c.weight_xz[r - 1] = mixed_plane_weight(r) * mixed_scale(p.inv_ds[0], p.inv_ds[2]);
        c.weight_yz[r - 1] = mixed_plane_weight(r) * mixed_scale(p.inv_ds[1], p.inv_ds[2]);
    }
    return c;
}

/* Whether the kernel can read the x ghost zones of a periodic grid from
 * their images: when rows split into whole 16-byte pieces at the interior's
 * ends, so that a ghost piece's image is a piece n values to the side (and
 * n >= AC_GHOST, so that the image is interior). */
static bool AC_FN(stream_wraps_x)(const AC_FN(shape) & s)
{
    const int chunk = 16 / (int)sizeof(real);
    return s.n[0] % chunk == 0 && s.lo[0] % chunk == 0 && s.n[0] >= AC_GHOST;
}

/* Interior index i along an axis of n points, periodic or as it is. */
static __device__ __forceinline__ int AC_FN(wrapped)(int i, int n, bool periodic)
{
    if (!periodic)
        return i;
    const int r = i % n;
    return r < 0 ? r + n : r;
}

/* Blocks per SM the registers are budgeted for: BLOCKS, or by default the
 * 256 or 512 threads that keep an SM's loads in flight (half as many for
 * MHD's seven fields, whose queues need twice the registers). */
template <int TX, int TY, int BLOCKS, int NF = AC_NUM_FIELDS>
static constexpr int AC_FN(stream_min_blocks)()
{
    constexpr int threads_per_sm = (sizeof(real) == 4 ? 512 : 256) / (NF > AC_NUM_FIELDS ? 2 : 1);
    return BLOCKS > 0 ? BLOCKS : threads_per_sm / (TX * TY) > 1 ? threads_per_sm / (TX * TY) : 1;
}

/* Queues this thread's 16-byte pieces of one plane (offset `plane` in the
 * grid) of every field into `slot`, as one pipeline stage. */
template <typename T, typename Set>
static __device__ __forceinline__ void AC_FN(queue_plane)(real *slot, const Set &in, ptrdiff_t plane,
                                                           const ptrdiff_t *piece_src, const int *piece_dst)
{
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q)
        if (piece_dst[q] >= 0) {
#pragma unroll
            for (int f = 0; f < T::FIELDS; ++f)
                __pipeline_memcpy_async(slot + f * T::PLANE + piece_dst[q], in.f[f] + plane + piece_src[q], 16);
        }
}

/* The stencils of a vector field v (u, or A with MHD) at a finished point:
 * v_i's plane at f + i PLANE in the ring, its column z[i] (planes k-3 ..
 * k+3), the mixed terms along z summed in acc.  grad[i][a] = d_a v_i, the
 * Laplacian, and grad div v by eq. (8). */
template <typename T>
static __device__ __forceinline__ void AC_FN(vector_stencils)(const real *f, const real (*z)[AC_SPAN],
                                                              const real (*acc)[AC_SPAN],
                                                              const AC_FN(stencil_scales) & c, real grad[3][3],
                                                              real lap[3], real grad_div[3])
{
    real along[3][3]; /* along[i][a]: second derivative of v_i along axis a */
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        const real *v = f + i * T::PLANE, *vz = z[i] + AC_GHOST;
        grad[i][0] = AC_FN(stencil_first)<1>(v, c.first[0]);
        grad[i][1] = AC_FN(stencil_first)<T::W>(v, c.first[1]);
        grad[i][2] = AC_FN(stencil_first)<1>(vz, c.first[2]);
        along[i][0] = AC_FN(stencil_second)<1>(v, c.second[0]);
        along[i][1] = AC_FN(stencil_second)<T::W>(v, c.second[1]);
        along[i][2] = AC_FN(stencil_second)<1>(vz, c.second[2]);
        lap[i] = along[i][0] + along[i][1] + along[i][2];
    }
    /* grad div v, eq. (8): d_i d_i v_i + the mixed terms (those along z from acc) */
    grad_div[0] = along[0][0] + (AC_FN(stencil_mixed)<1, T::W>(f + T::PLANE, c.mixed_xy) + acc[0][0]);
    grad_div[1] = along[1][1] + (AC_FN(stencil_mixed)<T::W, 1>(f, c.mixed_xy) + acc[1][0]);
    grad_div[2] = along[2][2] + acc[2][0];
}

/* Fetches base[index] into L2.  The address is formed inside the asm, out
 * of the compiler's sight, so that it does not keep pointers live between
 * points. */
static __device__ __forceinline__ void AC_FN(prefetch_l2)(const real *base, ptrdiff_t index)
{
    asm volatile("{\n\t.reg .b64 a;\n\tmad.lo.s64 a, %1, %2, %0;\n\tprefetch.global.L2 [a];\n\t}" ::"l"(base),
                 "l"(index), "n"((int)sizeof(real)));
}

/* del6 of lnrho and u_x, u_y, u_z at a finished point: their planes from
 * at, their columns z. */
template <typename T>
static __device__ __forceinline__ void AC_FN(del6_of_flow)(const real *at, const real (*z)[AC_SPAN],
                                                           const AC_FN(stencil_scales) & c, real del6[4])
{
#pragma unroll
    for (int f = 0; f < 4; ++f) {
        const real *v = at + f * T::PLANE;
        del6[f] = AC_FN(stencil_sixth)<1>(v, c.sixth[0]) + AC_FN(stencil_sixth)<T::W>(v, c.sixth[1]) +
                  AC_FN(stencil_sixth)<1>(z[f] + AC_GHOST, c.sixth[2]);
    }
}

/* The shock profile and its gradient at idx (four padded arrays, one after another). */
static __device__ __forceinline__ void AC_FN(load_shock)(const real *zeta, const AC_FN(shape) & s, ptrdiff_t idx,
                                                         real shock[4])
{
    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
#pragma unroll
    for (int a = 0; a < 4; ++a)
        shock[a] = zeta[a * padded + idx];
}

/* Substep `substep` of the 55-point method over the region [first, end) of
 * s.  Block b takes column of tiles b % columns (x fastest, so that the
 * blocks running together share their rims in L2) and the b / columns-th
 * of `runs` runs up it.  periodic: y and z ghost values are read from the
 * periodic images, and x ghost values too if wrap_x (stream_wraps_x); the
 * caller fills the others.  w_in is read unless substep == 0 and w_out written
 * unless it is NULL; out may be w_in's arrays (each point reads its w
 * before writing).  DEVICE_DT: driven by the device-side CFL loop (step,
 * kernels.h): the step's length is not dt but the one at step.dt, and with
 * step.max_u2_bits the kernel leaves max |u|^2 and the non-finite flags of
 * what it writes there, as reduce_kernel would find them.  HYPER: with the
 * hyperdiffusive terms of `hyper` (physics.h's add_hyperdiffusion, del6 from
 * the plane and the column); SHOCK: with the shock viscosity of the profile
 * zeta and its gradient (shock.cuh).  Separate instances, so that the kernel the
 * host drives for plain runs keeps its registers. */
template <int TX, int TY, int LEAD, int BLOCKS, typename Set, bool DEVICE_DT, bool HYPER, bool SHOCK>
static __device__ __forceinline__ void AC_FN(stream_substep_body)(
    Set in, Set out, Set w_in, Set w_out, AC_FN(shape) s, ac_point_params p, AC_FN(stencil_scales) c, int substep,
    real dt, ac_device_step step, int runs, bool periodic, bool wrap_x, ac_mhd_params magnetic, ac_hyper_params hyper,
    const real *zeta)
{
    if (DEVICE_DT && !AC_FN(step_length)(step.dt, &dt))
        return; /* every thread leaves, before any barrier */
    enum { NF = sizeof(Set) / sizeof(real *), VECTORS = (NF - 1) / 3 }; /* u, and A with MHD */
    const bool reduces = DEVICE_DT && VECTORS == 1 && step.max_u2_bits != NULL; /* MHD's speed needs B */
    double max_u2 = 0.0;
    unsigned int nonfinite = 0;
    typedef AC_FN(stream_tile)<TX, TY, LEAD, NF> T;
    extern __shared__ __align__(16) unsigned char ac_stream_smem[];
    real *ring = reinterpret_cast<real *>(ac_stream_smem);

    const int nz = s.end[2] - s.first[2], tiles_x = (s.end[0] - s.first[0] + TX - 1) / TX;
    const int columns = tiles_x * ((s.end[1] - s.first[1] + TY - 1) / TY);
    const int tile = blockIdx.x % columns, run = blockIdx.x / columns;
    const int k_first = s.first[2] + (int)((long long)nz * run / runs);
    const int planes = s.first[2] + (int)((long long)nz * (run + 1) / runs) - k_first + 2 * AC_GHOST;
    const int i0 = s.first[0] + tile % tiles_x * TX, j0 = s.first[1] + tile / tiles_x * TY;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    const bool active = i < s.end[0] && j < s.end[1];
    const bool reads_w = substep > 0, writes_w = w_out.f[0] != NULL;
    /* the tile's rows start at padded x0, on a 16-byte boundary */
    const int x0 = (i0 + s.lo[0] - AC_GHOST) / T::CHUNK * T::CHUNK;
    const int centre = (threadIdx.y + AC_GHOST) * T::W + i0 + s.lo[0] - x0 + threadIdx.x;
    const ptrdiff_t column = (ptrdiff_t)(i + s.lo[0]) + s.stride[1] * (j + s.lo[1]);

    /* this thread's 16-byte pieces of a plane: offsets in the grid and the slot */
    ptrdiff_t piece_src[T::COPIES];
    int piece_dst[T::COPIES];
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q) {
        const int e = threadIdx.x + TX * threadIdx.y + q * T::THREADS;
        const int a = e % (T::W / T::CHUNK), b = e / (T::W / T::CHUNK);
        const int x = x0 + a * T::CHUNK, y = AC_FN(wrapped)(j0 - AC_GHOST + b, s.n[1], periodic) + s.lo[1];
        /* whole pieces of the x ghost zones are periodic images n to the side */
        const int source_x = !wrap_x ? x : x < s.lo[0] ? x + s.n[0] : x >= s.lo[0] + s.n[0] ? x - s.n[0] : x;
        piece_src[q] = source_x + s.stride[1] * y;
        piece_dst[q] = e < T::PIECES && x < s.m[0] && y < s.m[1] ? b * T::W + a * T::CHUNK : -1;
    }

    /* this column at planes k-3 .. k-1 of the next point k: in registers, or
     * in shared memory, plane k-3 + n at slot (oldest + n) % 3 */
    constexpr bool shared_below = AC_FN(below_in_shared)<NF, HYPER>();
    real below[shared_below ? 1 : NF][AC_GHOST];
    real *const below_column = ring + T::RING * T::SLOT + threadIdx.x + TX * threadIdx.y; /* [slot][f], THREADS apart */
    int oldest = 0;
    real acc[VECTORS][3][AC_SPAN]; /* d_i d_z terms of grad div u (and A), points newest-3 .. newest+3 */
#pragma unroll
    for (int n = 0; n < AC_SPAN; ++n) {
#pragma unroll
        for (int f = 0; f < NF; ++f)
            if (n < AC_GHOST && !shared_below)
                below[f][n] = 0;
#pragma unroll
        for (int v = 0; v < VECTORS; ++v)
#pragma unroll
            for (int a = 0; a < 3; ++a)
                acc[v][a][n] = 0;
    }

    /* plane t of the run is padded z index plane_z(t); the first LEAD are queued here */
    int queued_z = AC_FN(wrapped)(k_first - AC_GHOST, s.n[2], periodic) + s.lo[2];
#pragma unroll
    for (int t = 0; t < LEAD; ++t) {
        if (t < planes)
            AC_FN(queue_plane)<T>(ring + t * T::SLOT, in, s.stride[2] * queued_z, piece_src, piece_dst);
        __pipeline_commit();
        queued_z = periodic && queued_z + 1 == s.lo[2] + s.n[2] ? s.lo[2] : queued_z + 1;
    }

    int newest = 0; /* ring slot of the newest plane */
    /* hydro in double reads the shock profile and its gradient a point ahead
     * (their latency passes during the point before: 256^3 step 3 % shorter,
     * a0673d4); the others read them where they are used.  The two ways of
     * writing those reads below schedule differently, each kept where it
     * measured faster at 256^3 (MHD in single precision: 0.70 of the plain
     * step against 0.61; hydro: 0.66 against 0.64; benchmarks/results,
     * 2026-11-24-h100-*). */
    constexpr bool shock_ahead = NF == AC_NUM_FIELDS && sizeof(real) == 8;
    real shock_next[SHOCK ? 4 : 1];
    if (SHOCK && shock_ahead && active)
        AC_FN(load_shock)(zeta, s, column + s.stride[2] * (k_first + s.lo[2]), shock_next);
    for (int it = 0; it < planes; ++it) {
        __pipeline_wait_prior(LEAD - 1);
        __syncthreads(); /* plane `it` is in; every thread is done with the slot copied next */
        if (it + LEAD < planes) {
            const int slot = newest + LEAD < T::RING ? newest + LEAD : newest + LEAD - T::RING;
            AC_FN(queue_plane)<T>(ring + slot * T::SLOT, in, s.stride[2] * queued_z, piece_src, piece_dst);
            queued_z = periodic && queued_z + 1 == s.lo[2] + s.n[2] ? s.lo[2] : queued_z + 1;
        }
        __pipeline_commit(); /* empty at the end: a stage per plane keeps the count of wait_prior */
        if (active) {
#pragma unroll
            for (int v = 0; v < VECTORS; ++v) {
                /* this plane's share of d_x d_z v_z, d_y d_z v_z and d_z (d_x v_x + d_y v_y), v = u, A */
                const real *vx = ring + newest * T::SLOT + centre + (1 + 3 * v) * T::PLANE, *vy = vx + T::PLANE,
                           *vz = vy + T::PLANE;
#pragma unroll
                for (int a = 0; a < 3; ++a) {
#pragma unroll
                    for (int n = 0; n < AC_SPAN - 1; ++n)
                        acc[v][a][n] = acc[v][a][n + 1];
                    acc[v][a][AC_SPAN - 1] = 0;
                }
#pragma unroll
                for (int r = 1; r <= AC_GHOST; ++r) {
                    const real e[3] = {c.weight_xz[r - 1] * (vz[r] - vz[-r]),
                                       c.weight_yz[r - 1] * (vz[r * T::W] - vz[-r * T::W]),
                                       c.weight_xz[r - 1] * (vx[r] - vx[-r]) +
                                           c.weight_yz[r - 1] * (vy[r * T::W] - vy[-r * T::W])};
#pragma unroll
                    for (int a = 0; a < 3; ++a) {
                        acc[v][a][AC_GHOST - r] += e[a];
                        acc[v][a][AC_GHOST + r] -= e[a];
                    }
                }
            }
        }
        /* planes k .. k+3 of the point k = it - 3 planes back, in their slots */
        const real *above[AC_GHOST + 1];
#pragma unroll
        for (int q = 0; q <= AC_GHOST; ++q)
            above[q] = ring + (newest - AC_GHOST + q + (newest - AC_GHOST + q < 0 ? T::RING : 0)) * T::SLOT + centre;
        if (active && it >= 2 * AC_GHOST) { /* point k is finished */
            const int k = k_first + it - 2 * AC_GHOST;
            const ptrdiff_t idx = column + s.stride[2] * (k + s.lo[2]);
            /* w is loaded early, to hide the loads' latency, except where
             * registers are short (MHD with hyperdiffusion in double: late,
             * after a prefetch into L2 during the point before) */
            constexpr bool late_w = HYPER && NF > AC_NUM_FIELDS && sizeof(real) == 8;
            real w[NF];
#pragma unroll
            for (int f = 0; f < NF; ++f)
                w[f] = reads_w && !late_w ? w_in.f[f][idx] : (real)0;
            real z[NF][AC_SPAN]; /* this column at planes k-3 .. k+3 */
#pragma unroll
            for (int n = 0; n < AC_SPAN; ++n) {
                const int slot = oldest + n < AC_GHOST ? oldest + n : oldest + n - AC_GHOST;
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    z[f][n] = n >= AC_GHOST ? above[n - AC_GHOST][f * T::PLANE]
                              : shared_below ? below_column[(slot * NF + f) * T::THREADS]
                                             : below[f][n];
            }
            const real *at = above[0];
            real del6[HYPER ? 4 : 1]; /* first, so that the register columns of lnrho and u can go */
            if (HYPER && !shared_below)
                AC_FN(del6_of_flow)<T>(at, z, c, del6);
            ac_derivatives d;
            d.grad_lnrho[0] = AC_FN(stencil_first)<1>(at, c.first[0]);
            d.grad_lnrho[1] = AC_FN(stencil_first)<T::W>(at, c.first[1]);
            d.grad_lnrho[2] = AC_FN(stencil_first)<1>(z[0] + AC_GHOST, c.first[2]);
#pragma unroll
            for (int i = 0; i < 3; ++i)
                d.u[i] = z[1 + i][AC_GHOST];
            AC_FN(vector_stencils)<T>(at + T::PLANE, z + 1, acc[0], c, d.grad_u, d.lap_u, d.grad_div_u);
            real rhs[NF];
            if (VECTORS == 1) {
                rhs_from_derivatives(&d, &p, rhs);
            } else {
                ac_magnetic_derivatives m;
                m.lnrho = z[0][AC_GHOST];
                AC_FN(vector_stencils)<T>(at + 4 * T::PLANE, z + 4, acc[VECTORS - 1], c, m.grad_a, m.lap_a,
                                          m.grad_div_a);
                rhs_mhd_from_derivatives(&d, &m, &p, &magnetic, rhs);
            }
            if (late_w && reads_w) /* before del6, whose work hides the loads (0.91 of the plain step against 0.90) */
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    w[f] = w_in.f[f][idx];
            if (HYPER) {
                if (shared_below) /* last, when the columns are in shared memory */
                    AC_FN(del6_of_flow)<T>(at, z, c, del6);
#pragma unroll
                for (int f = 0; f < 4; ++f) { /* lnrho with diff_hyper3, u with nu_hyper3 */
                    const real coefficient = f == 0 ? hyper.diff_hyper3 : hyper.nu_hyper3;
                    if (coefficient != 0)
                        rhs[f] += coefficient * del6[f];
                }
            }
            if (SHOCK && NF > AC_NUM_FIELDS) { /* the profile of the step's start and its gradient */
                const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
                real grad_zeta[3];
#pragma unroll
                for (int a = 0; a < 3; ++a)
                    grad_zeta[a] = zeta[(a + 1) * padded + idx];
                add_shock_viscosity(&d, zeta[idx], grad_zeta, rhs);
            } else if (SHOCK) { /* the same, read together (hydro) or a point ahead (hydro in double) */
                real shock[4];
                if (!shock_ahead) {
                    AC_FN(load_shock)(zeta, s, idx, shock);
                } else {
#pragma unroll
                    for (int a = 0; a < 4; ++a)
                        shock[a] = shock_next[a];
                    if (k + 1 < k_first + planes - 2 * AC_GHOST)
                        AC_FN(load_shock)(zeta, s, idx + s.stride[2], shock_next);
                }
                add_shock_viscosity(&d, shock[0], shock + 1, rhs);
            }
            real fresh[NF];
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                fresh[f] = rk3_substep(z[f][AC_GHOST], rhs[f], &w[f], substep, dt);
                out.f[f][idx] = fresh[f];
                if (writes_w)
                    w_out.f[f][idx] = w[f];
            }
            if (late_w && reads_w && k + 1 < k_first + planes - 2 * AC_GHOST)
#pragma unroll
                for (int f = 0; f < NF; ++f) /* the next point's w into L2, so that its late load does not wait on DRAM */
                    AC_FN(prefetch_l2)(w_in.f[f], idx + s.stride[2]);
            if (reduces) {
                const double u2 = AC_FN(speed_squared)(fresh[1], fresh[2], fresh[3]);
                max_u2 = u2 > max_u2 ? u2 : max_u2;
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    if (!isfinite(fresh[f]))
                        nonfinite |= 1u << f;
            }
        }
        if (active && it >= AC_GHOST) { /* plane it - 3 joins the planes below the next point */
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                if (shared_below) {
                    below_column[(oldest * NF + f) * T::THREADS] = above[0][f * T::PLANE];
                    continue;
                }
#pragma unroll
                for (int n = 0; n < AC_GHOST - 1; ++n)
                    below[f][n] = below[f][n + 1];
                below[f][AC_GHOST - 1] = above[0][f * T::PLANE];
            }
            if (shared_below)
                oldest = oldest + 1 == AC_GHOST ? 0 : oldest + 1;
        }
        newest = newest + 1 == T::RING ? 0 : newest + 1;
    }
    if (reduces)
        AC_FN(warp_reduce_to)(max_u2, nonfinite, step.max_u2_bits, step.nonfinite);
}

template <int TX, int TY, int LEAD, int BLOCKS, typename Set, bool DEVICE_DT, bool HYPER, bool SHOCK>
__global__ void __launch_bounds__(TX *TY, AC_FN(stream_min_blocks)<TX, TY, BLOCKS, sizeof(Set) / sizeof(real *)>())
    AC_FN(stream_substep_kernel)(Set in, Set out, Set w_in, Set w_out, AC_FN(shape) s, ac_point_params p,
                                 AC_FN(stencil_scales) c, int substep, real dt, ac_device_step step, int runs,
                                 bool periodic, bool wrap_x, ac_mhd_params magnetic, ac_hyper_params hyper,
                                 const real *zeta)
{
    AC_FN(stream_substep_body)<TX, TY, LEAD, BLOCKS, Set, DEVICE_DT, HYPER, SHOCK>(
        in, out, w_in, w_out, s, p, c, substep, dt, step, runs, periodic, wrap_x, magnetic, hyper, zeta);
}
