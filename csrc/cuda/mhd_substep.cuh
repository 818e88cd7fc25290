/*
 * mhd_substep.cuh -- magnetohydrodynamics on the GPU, for one precision;
 * included by kernels_impl.cuh.  The substep is the streaming kernel of
 * stream_substep.cuh for the configuration with the magnetic module (its
 * schedule in schedules.cuh).  The reduction for the CFL step of every
 * configuration with a signal speed that is not uniform, and its NaN check,
 * is here too.
 */

/* One MHD substep over region r (NULL: the whole grid; the streaming
 * kernel reads the ghost values of periodic axes from their images, x
 * where it can, and the others are filled first; otherwise the caller has
 * filled them). */
extern "C" ac_status AC_FN(cuda_substep_mhd)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                                             void *const out_[AC_MAX_FIELDS], void *const w_in_[AC_MAX_FIELDS],
                                             void *const w_out_[AC_MAX_FIELDS], const void *zeta, int substep,
                                             double dt, const ac_device_step *device_step, cudaStream_t stream)
{
    AC_FN(shape) s;
    unsigned wraps;
    ac_status status;
    if (!AC_FN(substep_shape)(g, r, in_, &s, &wraps, stream, &status))
        return status;
    return AC_FN(stream_substep)(g, in_, out_, w_in_, w_out_, s, (const real *)zeta, substep, (real)dt, device_step,
                                 wraps, stream);
}

/* The first two substeps of the device loop's deferred order
 * (schedules.cuh): defer AC_DEFER_RHS, the first, writes the right-hand
 * side to w_out and reduces the signal speed of `in` at
 * device_step->max_u2_bits; AC_DEFER_FORM, the second, reads f0 at in and
 * that right-hand side at w_in.  Over the whole grid, whose ghost values
 * the kernel reads from their periodic images on every axis (cuda_defers). */
extern "C" ac_status AC_FN(cuda_substep_deferred)(const ac_grid *g, void *const in_[AC_MAX_FIELDS],
                                                  void *const out_[AC_MAX_FIELDS], void *const w_in_[AC_MAX_FIELDS],
                                                  void *const w_out_[AC_MAX_FIELDS], int defer,
                                                  const ac_device_step *device_step, cudaStream_t stream)
{
    if ((defer != AC_DEFER_RHS && defer != AC_DEFER_FORM) || !device_step)
        return AC_ERR_ARGUMENT;
    if (!AC_FN(cuda_defers)(g))
        return AC_ERR_UNSUPPORTED;
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    return AC_FN(stream_substep)(g, in_, out_, w_in_, w_out_, s, NULL, defer == AC_DEFER_RHS ? 0 : 1, (real)0,
                                 device_step, 7u, stream, defer);
}

/* Whether the device loop's steps of grid g may take the deferred order:
 * built for its configuration (ac_defers), and every axis's ghost values
 * read from their periodic images, so that no ghost fill of f0, or of the
 * right-hand side that has none, comes between its substeps. */
extern "C" int AC_FN(cuda_defers)(const ac_grid *g)
{
    const unsigned config =
        ac_config(ac_grid_modules(g), ac_kernel_bits(ac_grid_terms(g) & (unsigned)AC_KERNEL_TERMS));
    return ac_config_valid(config) && ac_defers(config) &&
           AC_FN(wrappable_axes)(g, AC_FN(make_shape)(g), 7u) == 7u;
}

/* The module sets whose signal-speed reductions the build holds (one
 * kernel instance each): X(modules), for the solo reduction below and an
 * ensemble's (members.cuh's cuda_signal_members). */
#define AC_SIGNAL_MODULE_SETS(X)                                                                                       \
    X(AC_MODULE_HYDRO)                                                                                                 \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC)                                                                            \
    X(AC_MODULE_HYDRO | AC_MODULE_ENTROPY)                                                                             \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY)                                                        \
    X(AC_MODULE_HYDRO | AC_MODULE_PSCALAR)                                                                             \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR)                                                        \
    X(AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR)                                                         \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR)                                    \
    X(AC_MODULE_HYDRO | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2)                                                        \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2)                                   \
    X(AC_MODULE_HYDRO | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2)                                    \
    X(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2)

/* max of the signal speed of the CFL step (timestep.h's ac_signal_speed_at,
 * and where it depends on the position the flow of the shearing box at the
 * point's x, ac_position_speed_of, as the CPU's reduction adds it) as the
 * bits of a non-negative double, and one flag bit per field holding a NaN
 * or Inf; the ghost zones of the fields whose gradients it reads filled.
 * One instance per module set, so that the field indices fold.  The
 * shearing box's reduction (SHEARING) and ensemble members without a
 * streamed field (members.cuh) run this body; other grids run
 * signal_piece_kernel below, its points' arithmetic the same.
 *
 * It walks z (kernels_impl.cuh: zwalk_planes), its x-y column's shear flow
 * found once.  (A grid-stride loop over the points, x fastest, read each
 * value from DRAM about twice and divided 64-bit indices at every point.)
 * Six blocks an SM in single precision, four in double, where six spill:
 * the kernel waits on its loads more than it issues, and more warps hide
 * them (unbounded, the MHD instances took more registers and ran slower;
 * benchmarks/results/2026-11-28-gpu-run-profile and
 * 2026-11-29-gpu-signal-reduction). */
enum { AC_SIGNAL_MIN_BLOCKS = sizeof(real) == sizeof(float) ? 6 : 4 };

template <unsigned MODULES, bool SHEARING>
static __device__ __forceinline__ void AC_FN(signal_reduce_body)(const AC_FN(mhd_field_set) & fields, unsigned terms,
                                                                 const AC_FN(shape) & s, const ac_physics_params &p,
                                                                 const ac_geometry &geo, unsigned long long *max_bits,
                                                                 unsigned int *nonfinite, const ac_shear_flow &flow,
                                                                 int z_block, int z_per_block)
{
    constexpr int count = ac_field_count(MODULES);
    double local_max = 0.0;
    unsigned int flags = 0;
    const ptrdiff_t stride[3] = {1, s.stride[1], s.stride[2]};
    const int i = blockIdx.x * AC_ZWALK_TX + threadIdx.x, j = blockIdx.y * AC_ZWALK_TY + threadIdx.y;
    const int k0 = z_block * z_per_block, k1 = min(k0 + z_per_block, s.n[2]);
    if (i < s.n[0] && j < s.n[1]) {
        const double position =
            SHEARING ? ac_position_speed_of(terms, &flow,
                                            ac_axis_coordinate(s.origin[0], s.offset[0] + i, s.spacing[0]))
                     : 0.0;
        ptrdiff_t idx = AC_FN(padded)(s, i, j, k0);
        for (int k = k0; k < k1; ++k, idx += s.stride[2]) {
            AC_UNROLL
            for (int f = 0; f < count; ++f)
                if (!isfinite(fields.f[f][idx]))
                    flags |= 1u << f;
            /* the grid's terms at run time: with the module set's as constants (the CPU's choice) the MHD+entropy
             * instance takes 82 registers and 1.23 times as long (benchmarks/results/2026-11-27-h100-run-in-c) */
            double speed = ac_signal_speed_at(MODULES, terms, fields.f, idx, stride, &geo, &p);
            if (SHEARING)
                speed += position;
            AC_FN(fold_speed)(speed, &local_max, &flags);
        }
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

/* The shearing box's reduction (the body, unsheared, also of an ensemble's
 * members: members.cuh's signal_members_kernel). */
template <unsigned MODULES>
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY, AC_SIGNAL_MIN_BLOCKS)
    AC_FN(signal_reduce_kernel)(AC_FN(mhd_field_set) fields, unsigned terms, AC_FN(shape) s, ac_physics_params p,
                                ac_geometry geo, unsigned long long *max_bits, unsigned int *nonfinite,
                                ac_shear_flow flow, int z_per_block)
{
    AC_FN(signal_reduce_body)<MODULES, true>(fields, terms, s, p, geo, max_bits, nonfinite, flow, blockIdx.z,
                                             z_per_block);
}

/* The same reduction of a grid without shear (cuda_reduce_mhd), PX
 * consecutive x points a thread: each value read as part of an aligned
 * piece of PX, an x-derivative's neighbours from the pieces either side,
 * so that a thread issues one load and one address where the walk issues
 * PX.  Each point's speed is ac_signal_speed of the same values and
 * differences as ac_signal_speed_at's, so the same bits.  Pairs in
 * float32, one point in float64, four blocks an SM: four points a thread,
 * or two in float64, take over 64 registers and leave too few warps to
 * wait on the loads; float32 pairs in fewer registers spill
 * (benchmarks/results/2026-11-29-gpu-signal-pieces). */
enum { AC_SIGNAL_PX = sizeof(real) == sizeof(float) ? 2 : 1, AC_SIGNAL_PIECE_BLOCKS = 4 };

template <int PX>
struct AC_FN(signal_piece) {
    static __device__ __forceinline__ void load(const real *p, real v[1])
    {
        v[0] = *p;
    }
};
template <>
struct AC_FN(signal_piece)<2> {
    static __device__ __forceinline__ void load(const real *p, real v[2])
    {
        typedef typename std::conditional<sizeof(real) == sizeof(float), float2, double2>::type pair;
        const pair q = *(const pair *)p;
        v[0] = q.x, v[1] = q.y;
    }
};

template <unsigned MODULES, int PX>
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY, AC_SIGNAL_PIECE_BLOCKS)
    AC_FN(signal_piece_kernel)(AC_FN(mhd_field_set) fields, unsigned terms, AC_FN(shape) s, ac_physics_params p,
                               ac_geometry geo, unsigned long long *max_bits, unsigned int *nonfinite,
                               int z_per_block)
{
    typedef AC_FN(signal_piece)<PX> piece;
    constexpr int SIDE = (AC_GHOST + PX - 1) / PX; /* pieces either side of a thread's own */
    double local_max = 0.0;
    unsigned int flags = 0;
    const int i = (blockIdx.x * AC_ZWALK_TX + threadIdx.x) * PX, j = blockIdx.y * AC_ZWALK_TY + threadIdx.y;
    const int k0 = blockIdx.z * z_per_block, k1 = min(k0 + z_per_block, s.n[2]);
    if (i < s.n[0] && j < s.n[1]) {
        ptrdiff_t idx = AC_FN(padded)(s, i, j, k0);
        for (int k = k0; k < k1; ++k, idx += s.stride[2]) {
            ac_point_derivatives d[PX];
            AC_UNROLL
            for (int r = 0; r < AC_FIELD_ROWS; ++r) { /* unrolled, so that the needs and indices fold */
                if (!(MODULES & ac_field_module(r)))
                    continue;
                const unsigned needs = physics_signal_needs(MODULES, terms, r);
                const int f = ac_field_index(MODULES, r);
                const real *at = fields.f[f] + idx;
                real v[2 * AC_GHOST + 1][PX];
                piece::load(at, v[AC_GHOST]);
                AC_UNROLL
                for (int q = 0; q < PX; ++q) {
                    if (!isfinite(v[AC_GHOST][q]))
                        flags |= 1u << f;
                    d[q].value[f] = v[AC_GHOST][q];
                }
                if (!(needs & AC_NEEDS_FIRST))
                    continue;
                { /* x: the pieces either side, their points' neighbours by their place */
                    real row[(2 * SIDE + 1) * PX];
                    AC_UNROLL
                    for (int b = -SIDE; b <= SIDE; ++b)
                        if (b != 0)
                            piece::load(at + b * PX, row + (b + SIDE) * PX);
                    AC_UNROLL
                    for (int q = 0; q < PX; ++q)
                        row[SIDE * PX + q] = v[AC_GHOST][q];
                    AC_UNROLL
                    for (int q = 0; q < PX; ++q)
                        d[q].grad[f][0] = AC_FN(stencil_first)<1>(row + SIDE * PX + q, first_scale(geo.inv_ds[0]));
                }
                AC_UNROLL
                for (int a = 1; a < 3; ++a) { /* y, z: a piece at each offset */
                    AC_UNROLL
                    for (int o = 1; o <= AC_GHOST; ++o) {
                        piece::load(at + o * s.stride[a], v[AC_GHOST + o]);
                        piece::load(at - o * s.stride[a], v[AC_GHOST - o]);
                    }
                    AC_UNROLL
                    for (int q = 0; q < PX; ++q) {
                        real column[2 * AC_GHOST + 1];
                        AC_UNROLL
                        for (int o = 0; o <= 2 * AC_GHOST; ++o)
                            column[o] = v[o][q];
                        d[q].grad[f][a] = AC_FN(stencil_first)<1>(column + AC_GHOST, first_scale(geo.inv_ds[a]));
                    }
                }
            }
            AC_UNROLL
            for (int q = 0; q < PX; ++q)
                AC_FN(fold_speed)(ac_signal_speed(MODULES, terms, &d[q], &p), &local_max, &flags);
        }
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

/* Whether signal_piece_kernel's PX points a thread can take shape s of
 * `fields`: every row's interior starts on a piece and holds whole pieces,
 * the pieces either side lie in the row, and the strides and arrays keep
 * pieces aligned (a split grid's region may start anywhere). */
static bool AC_FN(signal_pieces_fit)(const AC_FN(shape) & s, const AC_FN(mhd_field_set) & fields, int count, int PX)
{
    const int reach = (AC_GHOST + PX - 1) / PX * PX;
    bool fit = s.lo[0] % PX == 0 && s.n[0] % PX == 0 && s.stride[1] % PX == 0 && s.stride[2] % PX == 0 &&
               s.lo[0] >= reach && s.lo[0] + s.n[0] + reach <= s.m[0];
    for (int f = 0; f < count; ++f)
        fit = fit && (uintptr_t)fields.f[f] % (PX * sizeof(real)) == 0;
    return fit;
}

/* ... over region r of the grid (NULL: the whole grid), whose ghost values
 * the caller has filled (fill_ghosts 0): the walk's shape is the region's
 * box, its points' padded indices and positions shifted to it. */
extern "C" ac_status AC_FN(cuda_reduce_mhd)(const ac_grid *g, const ac_region *r, void *const fields_[AC_MAX_FIELDS],
                                            int fill_ghosts, unsigned long long *max_bits, unsigned int *nonfinite,
                                            cudaStream_t stream)
{
    AC_FN(shape) s = AC_FN(make_shape)(g);
    if (r && fill_ghosts)
        return AC_ERR_ARGUMENT;
    for (int a = 0; r && a < 3; ++a) {
        if (r->hi[a] <= r->lo[a])
            return AC_OK; /* an empty region adds nothing */
        s.n[a] = s.end[a] = r->hi[a] - r->lo[a];
        s.lo[a] += r->lo[a];
        s.offset[a] += r->lo[a];
    }
    const unsigned terms = ac_grid_terms(g);
    const AC_FN(mhd_field_set) set = AC_FN(make_mhd_set)(fields_);
    const unsigned read = ac_signal_gradient_fields(g->modules, terms); /* A, for B */
    if (fill_ghosts && read) {
        if (!AC_FN(faces_countable)(s))
            return AC_ERR_ARGUMENT;
        AC_FN(fill_faces_kernel)<<<AC_FN(blocks_for)(AC_FN(face_count)(s), 65535), 256, 0, stream>>>(set, read, s);
        if (ac_cuda_record(cudaGetLastError(), "ghost faces launch") != AC_OK)
            return AC_ERR_DEVICE;
    }
    const bool shearing = (terms & AC_TERM_SHEAR) != 0u; /* the walk, its x-y column's shear flow found once */
    const int px = !shearing && AC_FN(signal_pieces_fit)(s, set, g->fields, AC_SIGNAL_PX) ? AC_SIGNAL_PX : 1;
    AC_FN(shape) columns = s; /* the walk's columns: a thread's points along x */
    columns.n[0] = s.n[0] / px;
    const int z_per_block = AC_FN(zwalk_planes)(columns, 1);
    const dim3 blocks = AC_FN(zwalk_blocks)(columns, z_per_block, 1), threads(AC_ZWALK_TX, AC_ZWALK_TY);
    const ac_physics_params p = make_physics_params(g);
    const ac_geometry geo = make_geometry(g);
    const ac_shear_flow flow = shear_flow_of(g);
    switch (g->modules) {
#define AC_SIGNAL_INSTANCE(m)                                                                                          \
    case (m):                                                                                                          \
        if (shearing)                                                                                                  \
            AC_FN(signal_reduce_kernel)<(m)><<<blocks, threads, 0, stream>>>(set, terms, s, p, geo, max_bits,          \
                                                                             nonfinite, flow, z_per_block);            \
        else if (px == AC_SIGNAL_PX)                                                                                   \
            AC_FN(signal_piece_kernel)<(m), AC_SIGNAL_PX><<<blocks, threads, 0, stream>>>(set, terms, s, p, geo,       \
                                                                                          max_bits, nonfinite,         \
                                                                                          z_per_block);                \
        else                                                                                                           \
            AC_FN(signal_piece_kernel)<(m), 1><<<blocks, threads, 0, stream>>>(set, terms, s, p, geo, max_bits,        \
                                                                               nonfinite, z_per_block);                \
        break;
        AC_SIGNAL_MODULE_SETS(AC_SIGNAL_INSTANCE)
#undef AC_SIGNAL_INSTANCE
    default:
        return AC_ERR_UNSUPPORTED;
    }
    return ac_cuda_record(cudaGetLastError(), "signal-speed reduction launch");
}

/* The same reduction for an ensemble's members whose signal speed reads
 * gradients (members.cuh's signal_members_kernel): the same speed of each
 * point (ac_signal_speed, from the same values and differences), found
 * without filling ghost zones.  A block of the walk's AC_ZWALK_TX x
 * AC_ZWALK_TY threads (members.cuh launches either body in that shape)
 * walks up the z planes of its run of a tile of x-y columns, as
 * the substep does (stream_substep.cuh): the planes of the fields whose
 * gradients the speed reads (A, for B = curl A), each with a ghost-wide
 * rim, pass through a ring of shared-memory slots, copied asynchronously
 * LEAD planes ahead of use; each thread keeps its column's three values
 * below its point in registers, and reads the other fields at the point.
 * The ghost values are read from their periodic images (the members' grids
 * are periodic, without shear: ac_device_loop_runs).  For many small grids
 * that saves the ghost fill's launch and is faster; for one 256^3 grid
 * the walk above is (benchmarks/results/2026-11-29-gpu-signal-stream). */
template <unsigned MODULES>
struct AC_FN(signal_tile) {
    /* the fields whose gradients the module set's signal terms read (the grid's may read fewer) */
    static constexpr unsigned GRADIENT =
        ac_signal_gradient_fields(MODULES, ac_signal_terms(MODULES, (unsigned)AC_SWITCHED_SIGNAL_TERMS));
    static constexpr int G = ac_count_bits(GRADIENT);
    static constexpr int LEAD = sizeof(real) == sizeof(float) ? 2 : 1;
    static constexpr int RING = AC_GHOST + 1 + LEAD; /* planes k .. k+3 of the point, LEAD in flight */
    static constexpr int W = AC_ZWALK_TX + 2 * AC_GHOST, H = AC_ZWALK_TY + 2 * AC_GHOST;
    static constexpr int PLANE = W * H, SLOT = (G > 0 ? G : 1) * PLANE;
    static constexpr int THREADS = AC_ZWALK_TX * AC_ZWALK_TY;
    static constexpr int COPIES = (PLANE + THREADS - 1) / THREADS; /* values per thread, field and plane */
    static constexpr size_t BYTES = G > 0 ? (size_t)RING * SLOT * sizeof(real) : 0;
    /* the blocks an SM the ring leaves room for (A's three fields: 38 KB in float32, 64 KB in float64),
     * registers budgeted for them; without a streamed field the walk's (signal_reduce_body) */
    static constexpr int BLOCKS = G == 0 ? AC_SIGNAL_MIN_BLOCKS : sizeof(real) == sizeof(float) ? 5 : 3;
};

/* The place of field f among the set bits of mask. */
static constexpr __host__ __device__ int ac_bit_rank(unsigned mask, int f)
{
    return ac_count_bits(mask & ((1u << f) - 1u));
}

/* Queues this thread's values of the z plane at offset `plane` of the
 * gradient fields into `slot`, as one pipeline stage (the caller commits). */
template <typename T>
static __device__ __forceinline__ void AC_FN(queue_signal_plane)(real *slot, const AC_FN(mhd_field_set) & fields,
                                                                  ptrdiff_t plane, const int *source)
{
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q)
        if (source[q] >= 0) {
            const int e = threadIdx.x + AC_ZWALK_TX * threadIdx.y + q * T::THREADS;
#pragma unroll
            for (int f = 0, g = 0; f < AC_MAX_FIELDS; ++f)
                if (T::GRADIENT >> f & 1u)
                    __pipeline_memcpy_async(slot + (g++) * T::PLANE + e, fields.f[f] + plane + source[q],
                                            sizeof(real));
        }
}

/* The offset of plane t of a run starting at interior plane k_first, its periodic image. */
static __device__ __forceinline__ ptrdiff_t AC_FN(signal_plane_offset)(const AC_FN(shape) & s, int k_first, int t)
{
    return s.stride[2] * (AC_FN(wrapped)(k_first - AC_GHOST + t, s.n[2], true) + s.lo[2]);
}

/* (run `run` of `runs` up the block's column of tiles) */
template <unsigned MODULES>
static __device__ __forceinline__ void AC_FN(signal_stream_body)(const AC_FN(mhd_field_set) & fields, unsigned terms,
                                                                 const AC_FN(shape) & s, const ac_physics_params &p,
                                                                 const ac_geometry &geo, unsigned long long *max_bits,
                                                                 unsigned int *nonfinite, int run, int runs)
{
    typedef AC_FN(signal_tile)<MODULES> T;
    constexpr int NF = ac_field_count(MODULES), G = T::G;
    extern __shared__ __align__(16) unsigned char ac_signal_smem[];
    real *const ring = reinterpret_cast<real *>(ac_signal_smem);
    double local_max = 0.0;
    unsigned int flags = 0;
    const int i0 = blockIdx.x * AC_ZWALK_TX, j0 = blockIdx.y * AC_ZWALK_TY;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    const bool active = i < s.n[0] && j < s.n[1];
    const int k_first = (int)((long long)s.n[2] * run / runs);
    const int planes = (int)((long long)s.n[2] * (run + 1) / runs) - k_first + 2 * AC_GHOST;
    const int centre = (threadIdx.y + AC_GHOST) * T::W + threadIdx.x + AC_GHOST;

    /* this thread's values of a plane: their offsets in a padded z plane, -1 none */
    int source[T::COPIES];
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q) {
        const int e = threadIdx.x + AC_ZWALK_TX * threadIdx.y + q * T::THREADS;
        const int x = AC_FN(wrapped)(i0 - AC_GHOST + e % T::W, s.n[0], true) + s.lo[0];
        const int y = AC_FN(wrapped)(j0 - AC_GHOST + e / T::W, s.n[1], true) + s.lo[1];
        source[q] = G > 0 && e < T::PLANE ? x + (int)s.stride[1] * y : -1;
    }
    real below[G > 0 ? G : 1][AC_GHOST]; /* this column at planes k-3 .. k-1 of the next point k */
#pragma unroll
    for (int g = 0; g < (G > 0 ? G : 1); ++g)
#pragma unroll
        for (int n = 0; n < AC_GHOST; ++n)
            below[g][n] = 0;
    if (G > 0)
#pragma unroll
        for (int t = 0; t < T::LEAD; ++t) {
            if (t < planes)
                AC_FN(queue_signal_plane)<T>(ring + t * T::SLOT, fields,
                                             AC_FN(signal_plane_offset)(s, k_first, t), source);
            __pipeline_commit();
        }
    int newest = 0; /* the ring slot of plane it */
    for (int it = 0; it < planes; ++it, newest = newest + 1 == T::RING ? 0 : newest + 1) {
        if (G > 0) {
            __pipeline_wait_prior(T::LEAD - 1);
            __syncthreads(); /* plane it is in; every thread is done with the slot copied next */
            if (it + T::LEAD < planes) {
                const int slot = newest + T::LEAD < T::RING ? newest + T::LEAD : newest + T::LEAD - T::RING;
                AC_FN(queue_signal_plane)<T>(ring + slot * T::SLOT, fields,
                                             AC_FN(signal_plane_offset)(s, k_first, it + T::LEAD), source);
            }
            __pipeline_commit(); /* empty at the end: a stage per plane keeps the count of wait_prior */
        }
        /* planes k .. k+3 of the point k = it - 3 planes back, in their slots */
        const real *above[AC_GHOST + 1];
#pragma unroll
        for (int q = 0; q <= AC_GHOST; ++q)
            above[q] = ring + (newest - AC_GHOST + q + (newest - AC_GHOST + q < 0 ? T::RING : 0)) * T::SLOT + centre;
        if (active && it >= 2 * AC_GHOST) { /* point k is finished */
            const ptrdiff_t idx = AC_FN(padded)(s, i, j, k_first + it - 2 * AC_GHOST);
            ac_point_derivatives d;
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                if (T::GRADIENT >> f & 1u) {
                    const int g = ac_bit_rank(T::GRADIENT, f);
                    real z[AC_SPAN]; /* this column at planes k-3 .. k+3 */
#pragma unroll
                    for (int n = 0; n < AC_SPAN; ++n)
                        z[n] = n < AC_GHOST ? below[g][n] : above[n - AC_GHOST][g * T::PLANE];
                    const real *v = above[0] + g * T::PLANE;
                    d.value[f] = z[AC_GHOST];
                    /* eq. (6), as first_derivative */
                    d.grad[f][0] = AC_FN(stencil_first)<1>(v, first_scale(geo.inv_ds[0]));
                    d.grad[f][1] = AC_FN(stencil_first)<T::W>(v, first_scale(geo.inv_ds[1]));
                    d.grad[f][2] = AC_FN(stencil_first)<1>(z + AC_GHOST, first_scale(geo.inv_ds[2]));
                } else {
                    d.value[f] = fields.f[f][idx];
                }
                if (!isfinite(d.value[f]))
                    flags |= 1u << f;
            }
            /* the grid's terms at run time: with the module set's as constants (the CPU's choice) the MHD+entropy
             * instance took 82 registers and 1.23 times as long (benchmarks/results/2026-11-27-h100-run-in-c) */
            AC_FN(fold_speed)(ac_signal_speed(MODULES, terms, &d, &p), &local_max, &flags);
        }
        if (G > 0 && active && it >= AC_GHOST) /* plane it - 3 joins the planes below the next point */
#pragma unroll
            for (int g = 0; g < (G > 0 ? G : 1); ++g) {
#pragma unroll
                for (int n = 0; n < AC_GHOST - 1; ++n)
                    below[g][n] = below[g][n + 1];
                below[g][AC_GHOST - 1] = above[0][g * T::PLANE];
            }
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

/* The launch of a signal kernel instance over `count` grids of shape s side
 * by side along z: its blocks, and its runs up each column of tiles (as
 * many as fill the GPU in one wave beside the columns, at most one per 8
 * planes: each run also reads 2 AC_GHOST planes it does not reduce). */
template <unsigned MODULES>
static ac_status AC_FN(signal_launch)(const void *kernel, AC_FN(kernel_fit) * fit, const AC_FN(shape) & s, int count,
                                      dim3 *blocks, int *runs)
{
    if (AC_FN(fit_kernel)(fit, kernel, AC_ZWALK_TX * AC_ZWALK_TY, AC_FN(signal_tile)<MODULES>::BYTES) != AC_OK)
        return AC_ERR_DEVICE;
    const int tiles_x = (s.n[0] + AC_ZWALK_TX - 1) / AC_ZWALK_TX, tiles_y = (s.n[1] + AC_ZWALK_TY - 1) / AC_ZWALK_TY;
    const int r = (int)(fit->resident_blocks / ((long long)tiles_x * tiles_y * count));
    const int most = s.n[2] / 8 < 65535 / count ? s.n[2] / 8 : 65535 / count;
    *runs = r > most ? most : r;
    if (*runs < 1)
        *runs = 1;
    *blocks = dim3((unsigned)tiles_x, (unsigned)tiles_y, (unsigned)(*runs * count));
    return AC_OK;
}

