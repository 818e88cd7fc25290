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
 * derivatives come from its own slot, three slots back.
 *
 * One template serves every configuration (schedules.cuh: the modules of
 * csrc/fields.h and the kernel terms): the fields are those of the
 * configuration, each takes the derivatives its terms need
 * (physics_needs) by its role -- a scalar its value, gradient, Laplacian
 * and del6, a vector's components the same and the vector its grad div --
 * and physics.h's physics_rhs sums the terms.  What differs between
 * configurations beyond that is a row of the schedule table.  The
 * per-point arithmetic is physics.h's and csrc/terms/'s: this file only
 * moves values.
 */
#include <cuda_pipeline.h>

enum { AC_SPAN = 2 * AC_GHOST + 1 }; /* points of a stencil along one axis */

/* The terms of a configuration key (those of its modules, and its kernel
 * terms of schedules.cuh), and every derivative kind they need of some
 * field (physics_needs). */
static constexpr __host__ __device__ unsigned ac_config_physics_terms(unsigned config)
{
    return ac_module_terms(ac_config_modules(config)) | ac_kernel_terms(ac_config_terms(config));
}

static constexpr __host__ __device__ unsigned ac_config_needs(unsigned config, unsigned without = 0u)
{
#define AC_ROW_NEEDS(name, module, role)                                                                               \
    physics_needs(ac_config_modules(config), ac_config_physics_terms(config) & ~without, AC_FIELD_##name) |
    return AC_FIELD_TABLE(AC_ROW_NEEDS) 0u;
#undef AC_ROW_NEEDS
}

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

/* A thread's 16-byte piece of a plane's row. */
struct __align__(16) AC_FN(piece) {
    real v[16 / sizeof(real)];
};

/* Whether the deferred order's second substep (schedules.cuh) holds this
 * thread's pieces of the next plane of f0 and of the right-hand side in
 * registers, forms f1 there and stores it into the ring once
 * (stream_substep_body), where they fit in 64 registers (MHD in single
 * precision); otherwise both planes are copied into shared memory and f1
 * is formed in place (form_first_update): five shared-memory accesses a
 * value where the plain substep makes one, on a kernel that waits on that
 * queue (benchmarks/results/2026-11-29-gpu-form-held). */
template <typename T>
static constexpr __host__ __device__ bool AC_FN(forms_in_registers)()
{
    return 2 * T::COPIES * T::FIELDS * sizeof(AC_FN(piece)) / 4 <= 64;
}

/* The shared memory an instance takes: the ring, and with the schedule's
 * below_in_shared three planes of the tile's interior after it; in the
 * second substep of the deferred order (schedules.cuh), unless it forms f1
 * in registers, LEAD slots after those for the planes of the first
 * substep's right-hand side. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int DEFER = AC_DEFER_NONE>
static constexpr size_t AC_FN(stream_smem)()
{
    typedef AC_FN(stream_tile)<TX, TY, LEAD, ac_field_count(ac_config_modules(CONFIG))> T;
    return T::BYTES + (ac_schedule_of(CONFIG, sizeof(real)).below_in_shared ? T::BELOW_BYTES : 0) +
           (DEFER == AC_DEFER_FORM && !AC_FN(forms_in_registers)<T>() ? (size_t)LEAD * T::SLOT * sizeof(real) : 0);
}

/* The planes the second substep of the deferred order copies ahead
 * (schedules.cuh's ac_defers), its ring and LEAD more slots for the
 * right-hand side's planes in a block's shared memory: the schedule's
 * planes, else one (one plane more gained nothing); 0 where the order is
 * not built. */
template <unsigned CONFIG>
static constexpr int AC_FN(deferred_lead)()
{
    return !ac_defers(CONFIG) ? 0
           : AC_FN(stream_smem)<CONFIG, ac_schedule_of(CONFIG, sizeof(real)).tx,
                                ac_schedule_of(CONFIG, sizeof(real)).ty, ac_schedule_of(CONFIG, sizeof(real)).lead,
                                AC_DEFER_FORM>() <= AC_SMEM_PER_BLOCK
               ? ac_schedule_of(CONFIG, sizeof(real)).lead
           : AC_FN(stream_smem)<CONFIG, ac_schedule_of(CONFIG, sizeof(real)).tx,
                                ac_schedule_of(CONFIG, sizeof(real)).ty, 1, AC_DEFER_FORM>() <= AC_SMEM_PER_BLOCK
               ? 1
               : 0;
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

static AC_FN(stencil_scales) AC_FN(make_scales)(const ac_geometry &geo)
{
    AC_FN(stencil_scales) c;
    for (int a = 0; a < 3; ++a) {
        c.first[a] = first_scale(geo.inv_ds[a]);
        c.second[a] = second_scale(geo.inv_ds[a]);
        c.sixth[a] = sixth_scale(geo.inv_ds[a]);
    }
    c.mixed_xy = mixed_scale(geo.inv_ds[0], geo.inv_ds[1]);
    for (int r = 1; r <= AC_GHOST; ++r) {
        c.weight_xz[r - 1] = mixed_plane_weight(r) * mixed_scale(geo.inv_ds[0], geo.inv_ds[2]);
        c.weight_yz[r - 1] = mixed_plane_weight(r) * mixed_scale(geo.inv_ds[1], geo.inv_ds[2]);
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

/* The padded z index of the plane after padded z, wrapping past the
 * interior's last plane where z is periodic. */
static __device__ __forceinline__ int AC_FN(next_plane)(int z, const AC_FN(shape) & s, bool wrap_z)
{
    return wrap_z && z + 1 == s.lo[2] + s.n[2] ? s.lo[2] : z + 1;
}

/* Blocks per SM the registers are budgeted for (schedules.cuh). */
template <unsigned CONFIG, int TX, int TY, int BLOCKS>
static constexpr int AC_FN(stream_min_blocks)()
{
    return ac_min_blocks(ac_schedule_of(CONFIG, sizeof(real)), TX, TY, BLOCKS);
}

/* A point's signal speed into a reduction's running maximum, or where it
 * is not finite into its flags, as the velocity's (the field the host's
 * reduction names). */
static __device__ __forceinline__ void AC_FN(fold_speed)(double speed, double *max, unsigned int *flags)
{
    if (!isfinite(speed))
        *flags |= 1u << 1;
    else
        *max = speed > *max ? speed : *max;
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

/* The deferred order's second substep (schedules.cuh): this thread's
 * pieces of a plane of f0 in `slot` become f1 = f0 + beta_1 dt rhs, the
 * first substep's update (physics.h's rk3_substep), from the right-hand
 * side's pieces in `rhs`.  The thread's own pieces only, after its wait
 * for the plane and before the barrier that shows it to the others. */
template <typename T>
static __device__ __forceinline__ void AC_FN(form_first_update)(real *slot, const real *rhs, const int *piece_dst,
                                                                real dt)
{
    typedef AC_FN(piece) piece;
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q)
        if (piece_dst[q] >= 0) {
            /* every field's pieces loaded before any is stored, so that the loads are in flight together (the
             * stores might alias them, and would keep a load, update and store per field in order) */
            piece v[T::FIELDS], r[T::FIELDS];
#pragma unroll
            for (int f = 0; f < T::FIELDS; ++f) {
                v[f] = *reinterpret_cast<const piece *>(slot + f * T::PLANE + piece_dst[q]);
                r[f] = *reinterpret_cast<const piece *>(rhs + f * T::PLANE + piece_dst[q]);
            }
#pragma unroll
            for (int f = 0; f < T::FIELDS; ++f) {
#pragma unroll
                for (int e = 0; e < T::CHUNK; ++e) {
                    real w0;
                    v[f].v[e] = rk3_substep(v[f].v[e], r[f].v[e], &w0, 0, dt);
                }
                *reinterpret_cast<piece *>(slot + f * T::PLANE + piece_dst[q]) = v[f];
            }
        }
}

/* Where it forms f1 in registers (forms_in_registers): this thread's
 * pieces of one plane (offset `plane` in the grid) of every field of f0
 * (in) and of the right-hand side (w_in) into registers, left in flight;
 * each piece's two loads together (in two passes over the fields, ptxas
 * put the second behind a wait on the first). */
template <typename T, typename Set>
static __device__ __forceinline__ void AC_FN(hold_planes)(AC_FN(piece) (*f0)[T::FIELDS], AC_FN(piece) (*rhs)[T::FIELDS],
                                                           const Set &in, const Set &w_in, ptrdiff_t plane,
                                                           const ptrdiff_t *piece_src, const int *piece_dst)
{
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q)
        if (piece_dst[q] >= 0) {
            const ptrdiff_t at = plane + piece_src[q];
#pragma unroll
            for (int f = 0; f < T::FIELDS; ++f) {
                f0[q][f] = *reinterpret_cast<const AC_FN(piece) *>(in.f[f] + at);
                rhs[q][f] = *reinterpret_cast<const AC_FN(piece) *>(w_in.f[f] + at);
            }
        }
}

/* ... and f1 = f0 + beta_1 dt rhs of the pieces held, as form_first_update
 * forms it, stored into `slot`. */
template <typename T>
static __device__ __forceinline__ void AC_FN(store_formed)(real *slot, const AC_FN(piece) (*f0)[T::FIELDS],
                                                           const AC_FN(piece) (*rhs)[T::FIELDS],
                                                           const int *piece_dst, real dt)
{
#pragma unroll
    for (int q = 0; q < T::COPIES; ++q)
        if (piece_dst[q] >= 0) {
#pragma unroll
            for (int f = 0; f < T::FIELDS; ++f) {
                AC_FN(piece) v;
#pragma unroll
                for (int e = 0; e < T::CHUNK; ++e) {
                    real w0;
                    v.v[e] = rk3_substep(f0[q][f].v[e], rhs[q][f].v[e], &w0, 0, dt);
                }
                *reinterpret_cast<AC_FN(piece) *>(slot + f * T::PLANE + piece_dst[q]) = v;
            }
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

/* del6 of the fields whose terms need it (physics_needs) at a finished
 * point: their planes from at, their columns z. */
template <typename T, unsigned CONFIG>
static __device__ __forceinline__ void AC_FN(del6_of_fields)(const real *at, const real (*z)[AC_SPAN],
                                                             const AC_FN(stencil_scales) & c, real *del6)
{
    constexpr unsigned MODULES = ac_config_modules(CONFIG);
#pragma unroll
    for (int f = 0; f < ac_field_count(MODULES); ++f) {
        if (!(physics_needs(MODULES, ac_config_physics_terms(CONFIG), ac_field_row(MODULES, f)) & AC_NEEDS_SIXTH))
            continue;
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
 * s, for configuration CONFIG (schedules.cuh: its fields, kernel terms and
 * schedule; p: the parameters of its terms, physics.h).  Block b takes column of tiles b % columns (x fastest, so that
 * the blocks running together share their rims in L2) and the b /
 * columns-th of `runs` runs up it.  wrap_x, wrap_y, wrap_z: the ghost
 * values along that axis are read from the periodic images (x only where
 * stream_wraps_x); the caller fills the others (a wall's, a subdomain's).  w_in is read unless
 * substep == 0 and w_out written unless it is NULL; out may be w_in's
 * arrays (each point reads its w before writing).  DEVICE_DT: driven by
 * the device-side CFL loop (step, kernels.h): the step's length is not dt
 * but the one at step.dt (so too in the one instance of a configuration
 * the loop drives without an instance of its own); with step.forcing it adds the step's forcing to
 * what it writes, as forcing_sample_kernel would after it (ac_forces_in_substep), and with
 * step.max_u2_bits it leaves there what the next step's reduction would find (ac_reduces_in_substep):
 * max |u|^2 as reduce_kernel, or where the signal speed is not uniform the speed as
 * cuda_reduce_mhd, and the non-finite flags.  Two terms have inputs whose arrival the schedule
 * places, and are added where they arrive, in physics_rhs's order after
 * the others: hyperdiffusion (AC_KERNEL_HYPER3), del6 from the plane and
 * the column; shock viscosity (AC_KERNEL_SHOCK), the profile zeta and its
 * gradient (shock.cuh).  The shearing box (AC_KERNEL_SHEAR) last of all, its
 * background flow at the point's x from sh (terms/shear.h).  Separate
 * instances, so that the kernel the host drives for plain runs keeps its
 * registers.  DEFER: a substep of the device loop's deferred order
 * (schedules.cuh).  AC_DEFER_RHS, the first: writes the right-hand side
 * unscaled to w_out and nothing to out, and leaves the signal speed of its
 * input (as cuda_reduce_mhd finds it) and its non-finite flags at
 * step.max_u2_bits; AC_DEFER_FORM, the second: in holds f0 and w_in that
 * right-hand side, and the planes of f1 are formed as they arrive. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool DEVICE_DT, int DEFER = AC_DEFER_NONE>
static __device__ __forceinline__ void AC_FN(stream_substep_body)(
    AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> in,
    AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> out,
    AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> w_in,
    AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> w_out, AC_FN(shape) s, const ac_physics_params &p,
    AC_FN(stencil_scales) c, int substep, real dt, ac_device_step step, int runs, bool wrap_x, bool wrap_y,
    bool wrap_z, const real *zeta, ac_shear_flow sh)
{
    constexpr unsigned MODULES = ac_config_modules(CONFIG), TERMS = ac_config_physics_terms(CONFIG);
    constexpr bool SIXTH = ac_config_needs(CONFIG) & AC_NEEDS_SIXTH, SHOCK = TERMS & AC_TERM_SHOCK;
    /* del6 needed by a term summed before hyperdiffusion: computed before the right-hand side */
    /* with the entropy module physics_rhs sums every term itself (terms/entropy.h reads zeta and
     * del6 ss within the energy equation, in the Pencil Code's order): del6 and zeta first */
    constexpr bool ENTROPY = (MODULES & AC_MODULE_ENTROPY) != 0;
    constexpr bool EARLY_SIXTH = (ac_config_needs(CONFIG, AC_TERM_HYPER3 | AC_TERM_SHOCK) & AC_NEEDS_SIXTH) ||
                                 (ENTROPY && SIXTH);
    static_assert(DEFER == AC_DEFER_NONE || DEVICE_DT, "the deferred order is the device loop's");
    /* (the deferred order's first substep runs before the step's dt is found, and needs none) */
    if (DEVICE_DT && DEFER != AC_DEFER_RHS && !AC_FN(step_length)(step.dt, &dt))
        return; /* every thread leaves, before any barrier */
    enum { NF = ac_field_count(MODULES), VECTORS = ac_vector_count(MODULES), UX = ac_field_index(MODULES, AC_FIELD_ux) };
    /* the device-side CFL loop's last substep: the step's forcing added to what it writes, and then the
     * reduction for the next step's dt (max |u|^2, or where the signal speed is not uniform the speed) */
    constexpr unsigned SIGNAL_TERMS = ac_signal_terms(MODULES, 0u);
    constexpr bool UNIFORM_SIGNAL = ac_signal_speed_uniform(MODULES, SIGNAL_TERMS);
    const bool reduces =
        DEVICE_DT && (ac_reduces_in_substep(CONFIG) || DEFER == AC_DEFER_RHS) && step.max_u2_bits != NULL;
    const bool forces = DEVICE_DT && ac_forces_in_substep(CONFIG) && step.forcing != NULL;
    double max_u2 = 0.0; /* (the signal speed where it is not uniform) */
    unsigned int nonfinite = 0;
    typedef AC_FN(stream_tile)<TX, TY, LEAD, NF> T;
    extern __shared__ __align__(16) unsigned char ac_stream_smem[];
    real *ring = reinterpret_cast<real *>(ac_stream_smem);
    /* the deferred order's second substep: the right-hand side's planes in flight, LEAD slots after the rest */
    constexpr size_t STAGED_AT = T::RING * T::SLOT + (ac_schedule_of(CONFIG, sizeof(real)).below_in_shared
                                                          ? T::BELOW_BYTES / sizeof(real)
                                                          : 0);
    real *const staged = ring + STAGED_AT;

    const int nz = s.end[2] - s.first[2], tiles_x = (s.end[0] - s.first[0] + TX - 1) / TX;
    const int columns = tiles_x * ((s.end[1] - s.first[1] + TY - 1) / TY);
    const int tile = blockIdx.x % columns, run = blockIdx.x / columns;
    const int k_first = s.first[2] + (int)((long long)nz * run / runs);
    const int planes = s.first[2] + (int)((long long)nz * (run + 1) / runs) - k_first + 2 * AC_GHOST;
    const int i0 = s.first[0] + tile % tiles_x * TX, j0 = s.first[1] + tile / tiles_x * TY;
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
    const bool active = i < s.end[0] && j < s.end[1];
    const bool reads_w = substep > 0, writes_w = w_out.f[0] != NULL;
    static_assert(DEFER != AC_DEFER_FORM || LEAD > 0, "planes in flight");
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
        const int x = x0 + a * T::CHUNK, y = AC_FN(wrapped)(j0 - AC_GHOST + b, s.n[1], wrap_y) + s.lo[1];
        /* whole pieces of the x ghost zones are periodic images n to the side */
        const int source_x = !wrap_x ? x : x < s.lo[0] ? x + s.n[0] : x >= s.lo[0] + s.n[0] ? x - s.n[0] : x;
        piece_src[q] = source_x + s.stride[1] * y;
        piece_dst[q] = e < T::PIECES && x < s.m[0] && y < s.m[1] ? b * T::W + a * T::CHUNK : -1;
    }

    /* this column at planes k-3 .. k-1 of the next point k: in registers, or
     * in shared memory, plane k-3 + n at slot (oldest + n) % 3 */
    constexpr bool shared_below = ac_schedule_of(CONFIG, sizeof(real)).below_in_shared;
    real below[shared_below ? 1 : NF][AC_GHOST];
    real *const below_column = ring + T::RING * T::SLOT + threadIdx.x + TX * threadIdx.y; /* [slot][f], THREADS apart */
    int oldest = 0;
    real acc[VECTORS][3][AC_SPAN]; /* d_i d_z terms of each vector's grad div, points newest-3 .. newest+3 */
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

    /* plane t of the run is padded z index plane_z(t); the first LEAD are queued here, or where the deferred
     * order's second substep forms f1 in registers, the first is held */
    constexpr bool HELD = DEFER == AC_DEFER_FORM && AC_FN(forms_in_registers)<T>();
    AC_FN(piece) held_f0[HELD ? T::COPIES : 1][NF], held_rhs[HELD ? T::COPIES : 1][NF];
    int queued_z = AC_FN(wrapped)(k_first - AC_GHOST, s.n[2], wrap_z) + s.lo[2];
    if (HELD) {
        AC_FN(hold_planes)<T>(held_f0, held_rhs, in, w_in, s.stride[2] * queued_z, piece_src, piece_dst);
        queued_z = AC_FN(next_plane)(queued_z, s, wrap_z);
    } else {
#pragma unroll
        for (int t = 0; t < LEAD; ++t) {
            if (t < planes) {
                AC_FN(queue_plane)<T>(ring + t * T::SLOT, in, s.stride[2] * queued_z, piece_src, piece_dst);
                if (DEFER == AC_DEFER_FORM)
                    AC_FN(queue_plane)<T>(staged + t * T::SLOT, w_in, s.stride[2] * queued_z, piece_src, piece_dst);
            }
            __pipeline_commit();
            queued_z = AC_FN(next_plane)(queued_z, s, wrap_z);
        }
    }

    int newest = 0; /* ring slot of the newest plane */
    constexpr int shock_reads = (MODULES & AC_MODULE_ENTROPY) ? AC_SHOCK_AT_USE : ac_schedule_of(CONFIG, sizeof(real)).shock_reads;
    real shock_next[SHOCK ? 4 : 1];
    if (SHOCK && shock_reads == AC_SHOCK_AHEAD && active)
        AC_FN(load_shock)(zeta, s, column + s.stride[2] * (k_first + s.lo[2]), shock_next);
    for (int it = 0; it < planes; ++it) {
        if (HELD) { /* plane `it`, held since the point before: f1, into its slot (whose plane, it - RING, no
                     * thread still reads, with RING > AC_GHOST + 1) */
            AC_FN(store_formed)<T>(ring + newest * T::SLOT, held_f0, held_rhs, piece_dst, dt);
        } else {
            __pipeline_wait_prior(LEAD - 1);
            if (DEFER == AC_DEFER_FORM) /* plane `it` of f0 and of the right-hand side: f1, in its slot */
                AC_FN(form_first_update)<T>(ring + newest * T::SLOT, staged + it % LEAD * T::SLOT, piece_dst, dt);
        }
        __syncthreads(); /* plane `it` is in; every thread is done with the slot copied next */
        if (HELD) { /* the next plane's loads in flight during this point */
            if (it + 1 < planes) {
                AC_FN(hold_planes)<T>(held_f0, held_rhs, in, w_in, s.stride[2] * queued_z, piece_src, piece_dst);
                queued_z = AC_FN(next_plane)(queued_z, s, wrap_z);
            }
        } else {
            if (it + LEAD < planes) {
                const int slot = newest + LEAD < T::RING ? newest + LEAD : newest + LEAD - T::RING;
                AC_FN(queue_plane)<T>(ring + slot * T::SLOT, in, s.stride[2] * queued_z, piece_src, piece_dst);
                if (DEFER == AC_DEFER_FORM) /* into the slot of plane `it`, formed before the barrier */
                    AC_FN(queue_plane)<T>(staged + it % LEAD * T::SLOT, w_in, s.stride[2] * queued_z, piece_src,
                                          piece_dst);
                queued_z = AC_FN(next_plane)(queued_z, s, wrap_z);
            }
            __pipeline_commit(); /* empty at the end: a stage per plane keeps the count of wait_prior */
        }
        if (active) {
#pragma unroll
            for (int v = 0; v < VECTORS; ++v) {
                /* this plane's share of d_x d_z v_z, d_y d_z v_z and d_z (d_x v_x + d_y v_y) of vector v */
                const real *vx = ring + newest * T::SLOT + centre + ac_vector_at(MODULES, v) * T::PLANE,
                           *vy = vx + T::PLANE,
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
            /* w is loaded early, to hide the loads' latency, or where
             * registers are short late (late_w), after a prefetch into L2
             * during the point before */
            constexpr bool late_w = ac_schedule_of(CONFIG, sizeof(real)).late_w;
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
            ac_point_derivatives d; /* what the terms need of each field (physics.h, physics_needs) */
            if (SIXTH && (!shared_below || EARLY_SIXTH)) /* first, so that the register columns can go */
                AC_FN(del6_of_fields)<T, CONFIG>(at, z, c, d.del6);
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                const int row = ac_field_row(MODULES, f), role = ac_field_role_of(row);
                const unsigned needs = physics_needs(MODULES, TERMS, row);
                const real *v = at + f * T::PLANE;
                if ((needs | (DEFER == AC_DEFER_RHS ? physics_signal_needs(MODULES, SIGNAL_TERMS, row) : 0u)) &
                    AC_NEEDS_VALUE)
                    d.value[f] = z[f][AC_GHOST];
                if (role == AC_SCALAR && (needs & AC_NEEDS_FIRST)) {
                    d.grad[f][0] = AC_FN(stencil_first)<1>(v, c.first[0]);
                    d.grad[f][1] = AC_FN(stencil_first)<T::W>(v, c.first[1]);
                    d.grad[f][2] = AC_FN(stencil_first)<1>(z[f] + AC_GHOST, c.first[2]);
                }
                if (role == AC_SCALAR && (needs & AC_NEEDS_SECOND))
                    d.lap[f] = AC_FN(stencil_second)<1>(v, c.second[0]) + AC_FN(stencil_second)<T::W>(v, c.second[1]) +
                               AC_FN(stencil_second)<1>(z[f] + AC_GHOST, c.second[2]);
                if (role == AC_VECTOR_X && (needs & (AC_NEEDS_FIRST | AC_NEEDS_SECOND | AC_NEEDS_GRAD_DIV)))
                    AC_FN(vector_stencils)<T>(v, z + f, acc[ac_vector_ordinal(MODULES, f)], c, d.grad + f, d.lap + f,
                                              d.grad_div[ac_vector_index(MODULES, row)]);
            }
            if (DEFER == AC_DEFER_RHS && reduces) { /* the step's input, as cuda_reduce_mhd reduces it */
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    if (!isfinite(z[f][AC_GHOST]))
                        nonfinite |= 1u << f;
                AC_FN(fold_speed)(ac_signal_speed(MODULES, SIGNAL_TERMS, &d, &p), &max_u2, &nonfinite);
            }
            /* the terms without inputs of their own scheduled here; then hyperdiffusion and
             * shock viscosity, in physics_rhs's order, each where its inputs arrive */
            real rhs[NF];
            if (ENTROPY) {
                ac_shock_point shock_here;
                if (SHOCK) {
                    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
#pragma unroll
                    for (int a = 0; a < 3; ++a)
                        shock_here.grad_zeta[a] = zeta[(a + 1) * padded + idx];
                    shock_here.zeta = zeta[idx];
                }
                physics_rhs(MODULES, TERMS, &d, &p, &shock_here, rhs);
            } else {
                physics_rhs(MODULES, TERMS & ~(unsigned)(AC_TERM_HYPER3 | AC_TERM_SHOCK), &d, &p, NULL, rhs);
            }
            if (TERMS & AC_TERM_CORIOLIS) /* terms/coriolis.h, where the CPU's physics_sources adds it */
                coriolis_add(MODULES, p.table.omega, &d, rhs);
            if (late_w && reads_w) /* before del6, whose work hides the loads (0.91 of the plain step against 0.90) */
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    w[f] = w_in.f[f][idx];
            if (SIXTH && shared_below && !EARLY_SIXTH) /* last, when the columns are in shared memory */
                AC_FN(del6_of_fields)<T, CONFIG>(at, z, c, d.del6);
            if (!ENTROPY && (TERMS & AC_TERM_HYPER3))
                hyper3_add(MODULES, &d, &p, rhs);
            if (!ENTROPY && SHOCK) { /* the profile of the step's start and its gradient */
                ac_shock_point shock;
                if (shock_reads == AC_SHOCK_AT_USE) {
                    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
#pragma unroll
                    for (int a = 0; a < 3; ++a)
                        shock.grad_zeta[a] = zeta[(a + 1) * padded + idx];
                    shock.zeta = zeta[idx];
                } else { /* read together or a point ahead */
                    real profile[4];
                    if (shock_reads == AC_SHOCK_TOGETHER) {
                        AC_FN(load_shock)(zeta, s, idx, profile);
                    } else {
#pragma unroll
                        for (int a = 0; a < 4; ++a)
                            profile[a] = shock_next[a];
                        if (k + 1 < k_first + planes - 2 * AC_GHOST)
                            AC_FN(load_shock)(zeta, s, idx + s.stride[2], shock_next);
                    }
                    shock.zeta = profile[0];
#pragma unroll
                    for (int a = 0; a < 3; ++a)
                        shock.grad_zeta[a] = profile[1 + a];
                }
                shock_add(MODULES, &d, &shock, rhs);
            }
            if (TERMS & AC_TERM_SHEAR) /* after every other term, as the CPU's shear_pass (cpu/rows_impl.h) */
                shear_add(MODULES, p.table.shear,
                          (real)shear_flow(&sh, ac_axis_coordinate(s.origin[0], s.offset[0] + i, s.spacing[0])), &d,
                          rhs);
            real fresh[NF];
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                if (DEFER == AC_DEFER_RHS) { /* dt is not known yet */
                    w_out.f[f][idx] = rhs[f];
                    continue;
                }
                if (DEFER == AC_DEFER_FORM) { /* w_in held the first substep's right-hand side: its w */
                    real w0;
                    rk3_substep(z[f][AC_GHOST], w[f], &w0, 0, dt);
                    w[f] = w0;
                }
                fresh[f] = rk3_substep(z[f][AC_GHOST], rhs[f], &w[f], substep, dt);
                if (!forces)
                    out.f[f][idx] = fresh[f];
                if (writes_w)
                    w_out.f[f][idx] = w[f];
            }
            if (forces) { /* as forcing_sample_kernel adds it after the step, the helical part rounded apart */
                /* (the column's factors read again at each point: held, they cost registers across the loop) */
                const ac_step_forcing &forcing = *step.forcing;
                const ac_forcing_phase phase =
                    forcing_phase_at(forcing.along[0][i], forcing.along[1][j], forcing.along[2][k]);
                double du[3];
                forcing_increment(&forcing.term, phase, forcing.dt, du);
#pragma unroll
                for (int a = 0; a < 3; ++a)
                    fresh[UX + a] += (real)du[a];
                if (forcing.helical) {
                    forcing_sine_increment(&forcing.term, phase, forcing.dt, du);
#pragma unroll
                    for (int a = 0; a < 3; ++a)
                        fresh[UX + a] += (real)du[a];
                }
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    out.f[f][idx] = fresh[f];
            }
            if (late_w && reads_w && k + 1 < k_first + planes - 2 * AC_GHOST)
#pragma unroll
                for (int f = 0; f < NF; ++f) /* the next point's w into L2, so that its late load does not wait on DRAM */
                    AC_FN(prefetch_l2)(w_in.f[f], idx + s.stride[2]);
            if (reduces && DEFER == AC_DEFER_NONE) {
#pragma unroll
                for (int f = 0; f < NF; ++f)
                    if (!isfinite(fresh[f]))
                        nonfinite |= 1u << f;
                if (UNIFORM_SIGNAL) { /* as reduce_kernel */
                    const double u2 = AC_FN(speed_squared)(fresh[UX], fresh[UX + 1], fresh[UX + 2]);
                    max_u2 = u2 > max_u2 ? u2 : max_u2;
                } else { /* as cuda_reduce_mhd (mhd_substep.cuh) */
                    ac_point_derivatives values;
#pragma unroll
                    for (int f = 0; f < NF; ++f)
                        values.value[f] = fresh[f];
                    AC_FN(fold_speed)(ac_signal_speed(MODULES, SIGNAL_TERMS, &values, &p), &max_u2, &nonfinite);
                }
            }
        }
        if (active && it >= AC_GHOST) { /* plane it - 3 joins the planes below the next point */
#pragma unroll
            for (int f = 0; f < NF; ++f) {
                if (shared_below) {
                    below_column[(oldest * NF + f) * T::THREADS] = above[0][f * T::PLANE];
                } else { /* (an else, not a continue: the loop below is then no unreachable code of the instance) */
#pragma unroll
                    for (int n = 0; n < AC_GHOST - 1; ++n)
                        below[f][n] = below[f][n + 1];
                    below[f][AC_GHOST - 1] = above[0][f * T::PLANE];
                }
            }
            if (shared_below)
                oldest = oldest + 1 == AC_GHOST ? 0 : oldest + 1;
        }
        newest = newest + 1 == T::RING ? 0 : newest + 1;
    }
    if (reduces)
        AC_FN(warp_reduce_to)(max_u2, nonfinite, step.max_u2_bits, step.nonfinite);
}

/* The parameters (terms/term.h) as a kernel puts them together from its
 * arguments: member by member, q.member = get(the member's byte offset in
 * ac_physics_params), generated from the same tables as the struct.  Each
 * member is then read where it is used, as an argument of its own would be;
 * with the struct passed on whole, by value or by reference, the compiler
 * reads it through one pointer ahead of the plane loop (MHD in double spilt
 * twice the bytes). */
template <typename Get>
static __device__ __forceinline__ ac_physics_params AC_FN(params_from)(const Get &get)
{
    ac_physics_params q;
#define AC_FROM_DERIVED(name) q.name = get(offsetof(ac_physics_params, name));
    AC_DERIVED_PARAMETERS(AC_FROM_DERIVED)
#undef AC_FROM_DERIVED
#define AC_FROM_REAL(name) q.table.name = get(offsetof(ac_physics_params, table.name));
#define AC_FROM_VECTOR(name)                                                                                           \
    AC_UNROLL                                                                                                          \
    for (int a = 0; a < 3; ++a)                                                                                        \
        q.table.name[a] = get(offsetof(ac_physics_params, table.name) + a * sizeof(real));
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    AC_FROM_##kind(name)
#include "../parameters.def"
#undef AC_PARAMETER
#undef AC_FROM_REAL
#undef AC_FROM_VECTOR
    return q;
}

/* The streaming kernel takes the parameters in pieces of 128 bytes: NVVM
 * keeps a by-value kernel argument of up to 128 bytes as values, each loaded
 * where it is used, but reads a larger one as memory; with the struct whole
 * (240 bytes in double) the MHD instances in double computed B = curl A +
 * b_ext and J before the Lorentz force's exp(-lnrho) rather than after it,
 * 4 % slower (benchmarks/results/2026-11-27-h200-one-params).  In pieces,
 * every instance in double compiles to the code of the arguments by module
 * but for constant-bank offsets.  Three pieces hold 48 numbers in double: a
 * parameter row past them fails the static_assert, and a fourth piece is an
 * argument more. */
enum { AC_PARAM_PIECE_BYTES = 128, AC_PARAM_PIECES = 3 };
typedef struct {
    real v[AC_PARAM_PIECE_BYTES / sizeof(real)];
} AC_FN(param_piece);
static_assert(sizeof(ac_physics_params) <= AC_PARAM_PIECES * sizeof(AC_FN(param_piece)),
              "ac_physics_params outgrows the streaming kernel's pieces (stream_substep.cuh): add a piece");

/* The number at byte offset `at` of the pieces (a constant after inlining:
 * each read is one of an argument's members). */
struct AC_FN(from_pieces) {
    const AC_FN(param_piece) &p0, &p1, &p2;
    __device__ __forceinline__ real operator()(size_t at) const
    {
        const size_t i = at % AC_PARAM_PIECE_BYTES / sizeof(real);
        return at < AC_PARAM_PIECE_BYTES ? p0.v[i] : at < 2 * AC_PARAM_PIECE_BYTES ? p1.v[i] : p2.v[i];
    }
};

/* ... and of a struct in memory (an ensemble member's, in constant memory). */
struct AC_FN(from_struct) {
    const ac_physics_params &p;
    __device__ __forceinline__ real operator()(size_t at) const
    {
        return *reinterpret_cast<const real *>(reinterpret_cast<const char *>(&p) + at);
    }
};

/* The pieces of p, the launch's arguments (the rest zero). */
static void AC_FN(param_pieces)(const ac_physics_params &p, AC_FN(param_piece) pieces[AC_PARAM_PIECES])
{
    memset(pieces, 0, AC_PARAM_PIECES * sizeof *pieces);
    memcpy(pieces, &p, sizeof p);
}

/* The pieces come last, so that a row added at the end of
 * csrc/parameters.def moves no other argument in the constant bank: ptxas
 * allocates the registers of the larger instances by where the values it
 * reads lie there (reordering three members of a struct argument moved MHD
 * in single precision by 30 registers).  `runs` just before them puts them
 * at an odd 4-byte word in single precision: of the orders tried, the one
 * whose register counts came closest to those of the arguments by module.
 * After them the shearing box's flow in double (terms/shear.h), which only
 * its instances read. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool DEVICE_DT, int DEFER = AC_DEFER_NONE>
__global__ void __launch_bounds__(TX *TY, AC_FN(stream_min_blocks)<CONFIG, TX, TY, BLOCKS>())
    AC_FN(stream_substep_kernel)(AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> in,
                                 AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> out,
                                 AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> w_in,
                                 AC_FN(fields)<ac_field_count(ac_config_modules(CONFIG))> w_out, AC_FN(shape) s,
                                 AC_FN(stencil_scales) c, int substep, real dt, ac_device_step step, bool wrap_x,
                                 bool wrap_y, bool wrap_z, const real *zeta, int runs, AC_FN(param_piece) p0,
                                 AC_FN(param_piece) p1, AC_FN(param_piece) p2, ac_shear_flow sh)
{
    const AC_FN(from_pieces) pieces = {p0, p1, p2};
    AC_FN(stream_substep_body)<CONFIG, TX, TY, LEAD, BLOCKS, DEVICE_DT, DEFER>(in, out, w_in, w_out, s,
                                                                        AC_FN(params_from)(pieces), c, substep, dt,
                                                                        step, runs, wrap_x, wrap_y, wrap_z, zeta, sh);
}
