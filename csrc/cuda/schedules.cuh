/*
 * schedules.cuh -- how each configuration is scheduled on the GPU, in one
 * table keyed by configuration and precision, and which instances of the
 * streaming kernel (stream_substep.cuh) a build holds.
 *
 * A configuration is the set of modules a run has (csrc/fields.h, its
 * fields) and the terms that take code of their own in the kernel (below);
 * the streaming kernel is one template over the configuration, and what
 * differs between configurations beyond the field list -- the tile, the
 * planes copied ahead, the register budget, where each thread's column
 * below its point lives, when w is loaded, when the shock profile is read
 * -- is a row of ac_schedules, not a branch in the kernel.  Each row cites
 * the measurement that chose it (benchmarks/results/<date>-h100-<commit>/).
 *
 * Tile-tuning instances (AC_TUNING_SHAPES, for scripts/tune-tiles.py and
 * ASTAROTH_STREAM_TILE) are built only with -DAC_TUNING=1, which setup.py
 * passes when ASTAROTH_TUNING=1 at build time.
 */
#ifndef ASTAROTH_CUDA_SCHEDULES_CUH
#define ASTAROTH_CUDA_SCHEDULES_CUH

#include "../fields.h"

#ifndef ASTAROTH_TERMS_TERM_H
#error "include physics.h (or reach.h) before schedules.cuh: the term table numbers the kernel terms"
#endif

/* The terms of csrc/terms/terms.def with code of their own in the
 * streaming kernel, each a separate instance so that runs without it keep
 * their registers: hyperdiffusion (del6 of the flow), shock viscosity (the
 * profile and its gradient read per point), the Coriolis force (a source
 * of u, summed right after physics_rhs as the CPU's physics_sources adds
 * it) and the shearing box (terms/shear.h: the y gradient of every field
 * and the point's x, added after every other term as the CPU's shear_pass
 * adds it; its shifted x ghosts are a kernel of their own before each
 * substep, kernels_impl.cuh).  Gravity is a kernel of its own after each
 * substep (kernels_impl.cuh), and needs none.  In a configuration key they
 * take the low bits, packed in the table's order. */
enum { AC_KERNEL_TERMS = AC_TERM_HYPER3 | AC_TERM_SHOCK | AC_TERM_CORIOLIS | AC_TERM_SHEAR };

/* The bits of `value` that `mask` has, packed in order, and back. */
static constexpr __host__ __device__ unsigned ac_pack_bits(unsigned value, unsigned mask)
{
    return mask == 0u ? 0u
           : (mask & 1u) ? (value & 1u) | ac_pack_bits(value >> 1, mask >> 1) << 1
                         : ac_pack_bits(value >> 1, mask >> 1);
}

static constexpr __host__ __device__ unsigned ac_unpack_bits(unsigned bits, unsigned mask)
{
    return mask == 0u ? 0u
           : (mask & 1u) ? (bits & 1u) | ac_unpack_bits(bits >> 1, mask >> 1) << 1
                         : ac_unpack_bits(bits, mask >> 1) << 1;
}

/* A term mask's kernel terms, packed, and back. */
static constexpr __host__ __device__ unsigned ac_kernel_bits(unsigned terms, unsigned mask = AC_KERNEL_TERMS)
{
    return ac_pack_bits(terms, mask);
}

static constexpr __host__ __device__ unsigned ac_kernel_terms(unsigned bits, unsigned mask = AC_KERNEL_TERMS)
{
    return ac_unpack_bits(bits, mask);
}

static constexpr __host__ __device__ int ac_count_bits(unsigned m)
{
    return m ? (int)(m & 1u) + ac_count_bits(m >> 1) : 0;
}

enum {
    AC_KERNEL_HYPER3 = ac_kernel_bits(AC_TERM_HYPER3),
    AC_KERNEL_SHOCK = ac_kernel_bits(AC_TERM_SHOCK),
    AC_KERNEL_CORIOLIS = ac_kernel_bits(AC_TERM_CORIOLIS),
    AC_KERNEL_SHEAR = ac_kernel_bits(AC_TERM_SHEAR),
    AC_KERNEL_TERM_BITS = ac_count_bits(AC_KERNEL_TERMS)
};
static_assert(ac_kernel_terms(AC_KERNEL_HYPER3 | AC_KERNEL_SHOCK | AC_KERNEL_CORIOLIS | AC_KERNEL_SHEAR) ==
                  AC_KERNEL_TERMS,
              "kernel terms round trip");
/* the configurations that existed before the Coriolis force and the shear keep their kernel-term bits (and their
 * schedule rows) */
static_assert(AC_KERNEL_HYPER3 == 1u && AC_KERNEL_SHOCK == 2u && AC_KERNEL_CORIOLIS == 4u && AC_KERNEL_SHEAR == 8u,
              "kernel term bits");

/* Every module of the field table (fields.h), and the bits a module mask
 * takes in a configuration key: the modules but the further copies of a
 * repeated one (AC_MODULE_COPIES) in the low bits, those copies above the
 * kernel terms, so that the key of a configuration without them is what
 * it was before copies existed. */
static constexpr __host__ __device__ unsigned ac_all_modules()
{
#define AC_MODULE_OF(name, module, role) (unsigned)(module) |
    return AC_FIELD_TABLE(AC_MODULE_OF) 0u;
#undef AC_MODULE_OF
}

static constexpr __host__ __device__ int ac_bits_of(unsigned m)
{
    return m ? 1 + ac_bits_of(m >> 1) : 0;
}

enum {
    AC_MODULE_BITS = ac_bits_of(ac_all_modules() & ~(unsigned)AC_MODULE_COPIES),
    AC_COPY_BITS = ac_count_bits(AC_MODULE_COPIES)
};

/* A configuration key: modules (fields.h) and kernel terms in one integer,
 * a template argument of the streaming kernel. */
static constexpr __host__ __device__ unsigned ac_config(unsigned modules, unsigned terms)
{
    return (modules & ~(unsigned)AC_MODULE_COPIES) | terms << AC_MODULE_BITS |
           ac_pack_bits(modules, AC_MODULE_COPIES) << (AC_MODULE_BITS + AC_KERNEL_TERM_BITS);
}

static constexpr __host__ __device__ unsigned ac_config_modules(unsigned config)
{
    return (config & ((1u << AC_MODULE_BITS) - 1u) & ~(unsigned)AC_MODULE_COPIES) |
           ac_unpack_bits(config >> (AC_MODULE_BITS + AC_KERNEL_TERM_BITS), AC_MODULE_COPIES);
}

static constexpr __host__ __device__ unsigned ac_config_terms(unsigned config)
{
    return (config >> AC_MODULE_BITS) & ((1u << AC_KERNEL_TERM_BITS) - 1u);
}

/* Whether the device-side CFL loop (cuda_backend.cu's gpu_run_cfl) runs a
 * configuration: every one but shock viscosity, whose dt counts its
 * profile's maximum and is found on the host, and the shearing box, whose
 * deltay the host advances after each substep for the weights of the
 * shifted x ghosts (terms/shear.h's shear_advance).  Such a configuration has two
 * instances: one takes dt from the host, the other reads the step's length
 * where the loop left it.  The host's steps keep an instance of their own
 * because a step length read from memory changes how ptxas schedules the
 * larger instances (MHD+entropy in single precision ran at 0.89 of the
 * host's instance: benchmarks/results/2026-11-28-h100-checks). */
static constexpr __host__ __device__ bool ac_device_loop_runs(unsigned config)
{
    return !(ac_config_terms(config) & (AC_KERNEL_SHOCK | AC_KERNEL_SHEAR));
}

/* Whether the device loop's instance of a configuration may reduce what
 * its last substep writes for the next step's dt (stream_substep.cuh):
 * plain hydrodynamics max |u|^2 (its signal speed is the flow's and a
 * uniform sound speed; the flags of reduce_kernel's fields), the entropy
 * module's sets the signal speed itself (it reads the values at the point:
 * timestep.h's ac_signal_reads_values), as the reductions of a launch of
 * their own would find them; not the magnetic module's (B = curl A). */
static constexpr __host__ __device__ bool ac_reduces_in_substep(unsigned config)
{
    return !(ac_config_terms(config) & AC_KERNEL_SHOCK) &&
           (ac_signal_speed_uniform(ac_config_modules(config), ac_signal_terms(ac_config_modules(config), 0u))
                ? ac_config_modules(config) == AC_MODULE_HYDRO
                : ac_signal_reads_values(ac_config_modules(config), ac_signal_terms(ac_config_modules(config), 0u)));
}

/* A compile-time truth value as a type, to pick an overload (C++14). */
template <bool B>
struct ac_constant {};

/* Whether the device loop's instance of a configuration adds a forced
 * step's forcing in its last substep (stream_substep.cuh): not the magnetic
 * module's, whose instances would carry the forcing's double-precision
 * registers into every step, forced or not, and ran slower unforced
 * (benchmarks/results/2026-11-28-gpu-last-substep); their forcing is a
 * kernel after the step. */
static constexpr __host__ __device__ bool ac_forces_in_substep(unsigned config)
{
    return !(ac_config_modules(config) & AC_MODULE_MAGNETIC);
}

/* One past the largest key; a key names a configuration when its modules
 * are one (hydrodynamics on, a copy only with the one before it: fields.h's
 * ac_modules_valid) and lie in the table, and the build holds it when
 * instances.def lists it. */
enum { AC_CONFIG_END = 1u << (AC_MODULE_BITS + AC_KERNEL_TERM_BITS + AC_COPY_BITS) };

#include "instances.def"

static constexpr __host__ __device__ bool ac_config_listed(unsigned config)
{
#define AC_LISTED(modules, terms) config == ac_config((modules), ac_kernel_bits(terms)) ||
    return AC_INSTANCES(AC_LISTED) false;
#undef AC_LISTED
}

static constexpr __host__ __device__ bool ac_config_valid(unsigned config)
{
    return ac_modules_valid(ac_config_modules(config)) && (ac_config_modules(config) & ~ac_all_modules()) == 0 &&
           ac_config_listed(config);
}
static_assert(ac_config_modules(ac_config(AC_MODULE_HYDRO | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2, AC_KERNEL_SHOCK)) ==
                      (AC_MODULE_HYDRO | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2) &&
                  ac_config_terms(ac_config(AC_MODULE_HYDRO | AC_MODULE_PSCALAR2, AC_KERNEL_SHOCK)) == AC_KERNEL_SHOCK,
              "configuration keys round trip");

/* The fields of a configuration by role: the table row of field f (-1
 * past the last), the number of vectors, the ordinal of the vector whose x
 * component is field f, and the x component of vector v.  Chains of constants over the
 * table, so that they fold where f is an unrolled loop's index. */
static constexpr __host__ __device__ int ac_field_row(unsigned modules, int f)
{
#define AC_ROW_OF(name, module, role) ac_field_index(modules, AC_FIELD_##name) == f ? (int)AC_FIELD_##name:
    return AC_FIELD_TABLE(AC_ROW_OF) - 1;
#undef AC_ROW_OF
}

static constexpr __host__ __device__ int ac_vector_count(unsigned modules)
{
#define AC_VECTOR_ROW(name, module, role) ((modules & (unsigned)(module)) && (role) == AC_VECTOR_X ? 1 : 0) +
    return AC_FIELD_TABLE(AC_VECTOR_ROW) 0;
#undef AC_VECTOR_ROW
}

static constexpr __host__ __device__ int ac_vector_ordinal(unsigned modules, int f)
{
#define AC_VECTOR_BEFORE(name, module, role)                                                                           \
    ((role) == AC_VECTOR_X && ac_field_index(modules, AC_FIELD_##name) >= 0 &&                                        \
             ac_field_index(modules, AC_FIELD_##name) < f                                                              \
         ? 1                                                                                                           \
         : 0) +
    return AC_FIELD_TABLE(AC_VECTOR_BEFORE) 0;
#undef AC_VECTOR_BEFORE
}

/* The index of the x component of vector v (its ordinal), -1 past the last. */
static constexpr __host__ __device__ int ac_vector_at(unsigned modules, int v)
{
#define AC_VECTOR_AT(name, module, role)                                                                               \
    (role) == AC_VECTOR_X && (modules & (unsigned)(module)) &&                                                         \
            ac_vector_ordinal(modules, ac_field_index(modules, AC_FIELD_##name)) == v                                  \
        ? ac_field_index(modules, AC_FIELD_##name)                                                                     \
        :
    return AC_FIELD_TABLE(AC_VECTOR_AT) - 1;
#undef AC_VECTOR_AT
}

/* The most shared memory a block may have on sm_90 (227 kB). */
enum { AC_SMEM_PER_BLOCK = 232448 };

/* How the streaming kernel runs a configuration in one precision. */
struct ac_schedule {
    int tx, ty;          /* the thread block's tile of x-y columns */
    int lead;            /* planes copied ahead of use */
    int threads_per_sm;  /* registers budgeted so that this many threads fit an SM (launch bounds) */
    bool below_in_shared; /* each thread's column below its point in shared memory, not registers */
    bool late_w;          /* w loaded after the right-hand side (prefetched into L2 a point ahead) */
    int shock_reads;      /* when the shock profile and its gradient are read: AC_SHOCK_* */
};

/* The shock profile's reads (the term's per-point inputs): where used, the
 * gradient first; where used, the four together; or a point ahead.  They
 * schedule differently, each kept where it measured fastest. */
enum { AC_SHOCK_AT_USE = 0, AC_SHOCK_TOGETHER = 1, AC_SHOCK_AHEAD = 2 };

/* A row applies to a configuration that has all of its modules and terms,
 * in its precision (bytes of real); the first that applies is taken. */
struct ac_schedule_row {
    unsigned modules, terms;
    int real_bytes;
    ac_schedule s;
};

static constexpr ac_schedule_row ac_schedules[] = {
    /* MHD with two passive scalars (nine fields; ten with entropy) in
     * double: the shape of MHD with entropy and a scalar below, as the
     * rows after it would take more shared memory than a block may have.
     * Not tuned yet. */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR | AC_MODULE_PSCALAR2, 0, 8,
     {32, 4, 1, 128, true, true, AC_SHOCK_AT_USE}},
    /* Nine fields in double (MHD, entropy, passive scalar), and MHD with a
     * passive scalar and hyperdiffusion (eight): the rows below them would
     * take more shared memory than a block may have (257 and 264 kB; the
     * static_assert of kernels_impl.cuh's stream_config).  MHD's nine-field
     * ring in 32 x 4 tiles (172 kB), MHD with entropy's shape for eight. */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY | AC_MODULE_PSCALAR, 0, 8,
     {32, 4, 1, 128, true, true, AC_SHOCK_AT_USE}},
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_PSCALAR, AC_KERNEL_HYPER3, 8,
     {32, 8, 1, 128, true, true, AC_SHOCK_AT_USE}},
    /* MHD with entropy (eight fields).  In double the column
     * below in registers spills 268 bytes a thread (ptxas, 255 registers;
     * 340 with shock viscosity), so it goes to shared memory.  The ring of
     * two planes ahead and the column take 264 kB, more than an SM has: one
     * plane ahead (228 kB).  w loaded at the point's start, faster than late
     * (ab-entropy.log of 2026-11-24-h100-d21fa78).  The shock profile
     * read where it is used (the energy equation reads it inside
     * physics_rhs). */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY, 0, 8, {32, 8, 1, 128, true, false, AC_SHOCK_AT_USE}},
    /* In single precision 32 x 4 tiles, one plane ahead: two blocks an SM
     * (70 kB each), faster than one 32 x 8 block (118 kB) two planes ahead
     * and than the other shapes tried (ab-entropy.log of
     * 2026-11-24-h100-d6193d7, ab-variants.log of 2026-11-24-h100-b0889c3
     * and -a5352dc). */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC | AC_MODULE_ENTROPY, 0, 4, {32, 4, 1, 256, false, false, AC_SHOCK_AT_USE}},
    /* hydro with entropy (five fields): hydro's shapes, the shock profile
     * where it is used; not tuned yet. */
    {AC_MODULE_HYDRO | AC_MODULE_ENTROPY, 0, 8, {32, 4, 2, 256, false, false, AC_SHOCK_AT_USE}},
    {AC_MODULE_HYDRO | AC_MODULE_ENTROPY, 0, 4, {32, 8, 2, 512, false, false, AC_SHOCK_AT_USE}},
    /* MHD in double with hyperdiffusion: its 255 registers a thread spill
     * 192 bytes with the column below in registers; three planes of the
     * tile's interior (43 kB) fit beside the ring's 188 kB.  w late, its
     * loads hidden by del6: 0.91 of the plain step (0.73 before);
     * 2026-11-24-h100-* (w-earlier, below-in-shared). */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, AC_KERNEL_HYPER3, 8, {32, 8, 2, 128, true, true, AC_SHOCK_AT_USE}},
    /* MHD with shock viscosity in single precision (with hyperdiffusion
     * or a scalar beside it too): 32 x 4 tiles, two blocks an SM.  In
     * MHD's 32 x 8 tiles it ran at 0.90 of 74dd058's same instance after
     * the one parameter route (ptxas schedules it otherwise, not for fewer
     * registers); 32 x 4 gave 0.968, the profile a point ahead or read
     * together, or three blocks an SM, 0.79-0.95
     * (2026-11-28-h100-shock-schedule). */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, AC_KERNEL_SHOCK, 4, {32, 4, 2, 256, false, false, AC_SHOCK_AT_USE}},
    /* MHD: 32 x 8 in both precisions; in double the six-plane ring fills an
     * SM's shared memory, one block of 255 registers, and still beats 32 x 4
     * (0.61 against 0.47-0.53 of copy at 256^3; mhd-shapes.log of
     * 2026-11-23-h100-722e2b7).  The seven fields' queues take twice the
     * registers of hydro's: half the threads per SM.  The shock profile
     * read where it is used, the gradient first: in single precision 0.70
     * of the plain step against 0.61 together (2026-11-24-h100-*). */
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, 0, 8, {32, 8, 2, 128, false, false, AC_SHOCK_AT_USE}},
    {AC_MODULE_HYDRO | AC_MODULE_MAGNETIC, 0, 4, {32, 8, 2, 256, false, false, AC_SHOCK_AT_USE}},
    /* hydrodynamics: 32 x 8 in single precision; in double, whose registers
     * allow one such block per SM, 32 x 4 (two blocks keep more loads in
     * flight); two planes ahead (tune.log of 2026-11-23-h100-a6c44dc).  The
     * shock profile a point ahead in double: the step 3 % shorter at 256^3
     * (a0673d4); in single precision, the four read together where used
     * (0.66 of the plain step against 0.64; 2026-11-24-h100-*). */
    {AC_MODULE_HYDRO, 0, 8, {32, 4, 2, 256, false, false, AC_SHOCK_AHEAD}},
    {AC_MODULE_HYDRO, 0, 4, {32, 8, 2, 512, false, false, AC_SHOCK_TOGETHER}},
};

static constexpr __host__ __device__ bool ac_row_applies(const ac_schedule_row &row, unsigned config, int real_bytes)
{
    return (ac_config_modules(config) & row.modules) == row.modules &&
           (ac_config_terms(config) & row.terms) == row.terms && row.real_bytes == real_bytes;
}

static constexpr __host__ __device__ ac_schedule ac_schedule_of(unsigned config, int real_bytes, int row = 0)
{
    return row >= (int)(sizeof ac_schedules / sizeof ac_schedules[0])
               ? ac_schedules[sizeof ac_schedules / sizeof ac_schedules[0] - 1].s
           : ac_row_applies(ac_schedules[row], config, real_bytes) ? ac_schedules[row].s
                                                                 : ac_schedule_of(config, real_bytes, row + 1);
}

/* Blocks per SM the registers are budgeted for: `blocks`, or by default
 * the schedule's threads per SM in blocks of tx x ty (at least one). */
static constexpr __host__ __device__ int ac_min_blocks(const ac_schedule &s, int tx, int ty, int blocks)
{
    return blocks > 0 ? blocks : s.threads_per_sm / (tx * ty) > 1 ? s.threads_per_sm / (tx * ty) : 1;
}

/* The device loop's step in the Pencil Code's order: its src/timestep.f90
 * finds dt in the first substep, from the advec/diffus sums that
 * src/equ.f90 makes while it fills df with the right-hand side, and only
 * then updates f.  Where the signal speed reads a gradient (B = curl A)
 * no substep can reduce it from what it writes, so the plain order
 * launches a reduction before every step (mhd_substep.cuh).  In this order
 * the first substep reduces the speed from the derivatives it takes anyway
 * and leaves its right-hand side unscaled (AC_DEFER_RHS); once the step's
 * dt is found, the second forms f1 = f0 + beta_1 dt rhs as the planes of f0
 * and the right-hand side arrive (AC_DEFER_FORM), the arithmetic of the
 * first substep's update, so the step ends as the plain order's does, bit
 * for bit.  It takes a fourth set of arrays: the second substep reads f0
 * and the right-hand side across its stencil. */
enum { AC_DEFER_NONE = 0, AC_DEFER_RHS = 1, AC_DEFER_FORM = 2 };

/* The configurations the deferred order is built for: MHD without other
 * modules or kernel terms (two instances more in each precision), where it
 * measured faster than a reduction before each step; with the entropy
 * module the second substep lost more than the reduction took, formed in
 * shared memory and in registers alike
 * (benchmarks/results/2026-11-29-gpu-deferred-order,
 * 2026-11-29-gpu-defer-entropy).  The planes its second substep copies
 * ahead: stream_substep.cuh's deferred_lead. */
static constexpr __host__ __device__ bool ac_defers(unsigned config)
{
    return ac_device_loop_runs(config) && ac_config_terms(config) == 0u &&
           ac_config_modules(config) == (AC_MODULE_HYDRO | AC_MODULE_MAGNETIC) &&
           ac_signal_gradient_fields(ac_config_modules(config), ac_signal_terms(ac_config_modules(config), 0u)) != 0u;
}

/* The shapes built for tile tuning besides each configuration's own (only
 * for configurations without kernel terms, and with at most `fields`
 * fields): tx, ty, lead, blocks (0: the schedule's budget).  Chosen from
 * tune.log of 2026-11-23-h100-a6c44dc and mhd-shapes.log of
 * 2026-11-23-h100-722e2b7. */
#define AC_TUNING_SHAPES(X)                                                                                            \
    X(32, 8, 1, 0, 4) X(32, 8, 2, 0, 7) X(32, 8, 3, 0, 4) X(32, 4, 1, 0, 7) X(32, 4, 2, 0, 7) X(32, 4, 1, 3, 4)       \
        X(32, 8, 1, 3, 4) X(64, 4, 1, 0, 4) X(64, 4, 2, 0, 4)

/* Whether this build has an instance of shape (tx, ty, lead, blocks) for
 * some configuration: a configuration's own, or with AC_TUNING a tuning one. */
static inline bool ac_shape_built(int tx, int ty, int lead, int blocks)
{
    for (const ac_schedule_row &row : ac_schedules)
        if (row.s.tx == tx && row.s.ty == ty && row.s.lead == lead && blocks == 0)
            return true;
#if AC_TUNING
#define AC_TUNING_SHAPE_BUILT(tx_, ty_, lead_, blocks_, fields_)                                                       \
    if (tx == tx_ && ty == ty_ && lead == lead_ && blocks == blocks_)                                                  \
        return true;
    AC_TUNING_SHAPES(AC_TUNING_SHAPE_BUILT)
#undef AC_TUNING_SHAPE_BUILT
#endif
    return false;
}

#endif /* ASTAROTH_CUDA_SCHEDULES_CUH */
