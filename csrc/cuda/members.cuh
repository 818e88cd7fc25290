/*
 * members.cuh -- ensembles (astaroth/ensemble.py): the members of one shape stepped by
 * one launch per substep.
 *
 * Included by kernels_impl.cuh (once per precision).  Each member keeps its
 * own fields, parameters and device CFL state (cuda_backend.cu's run_cfl
 * for many grids); a table in constant memory holds them, read with the
 * block's member index.  The members of an ensemble share one
 * configuration (modules and kernel terms, schedules.cuh), any that the
 * solo device loop runs, all forced or none; the kernels are the bodies of that
 * loop's (the streaming substep's of the configuration's instance, the
 * reductions), so a member's arithmetic is that of its solo run, bit for
 * bit.
 */

/* A member as the kernel reads it: block (b, m) is block b of member m. */
typedef struct {
    AC_FN(field_set) sets[3]; /* home, stage_a, w */
    ac_physics_params p;
    AC_FN(stencil_scales) c; /* its geometry */
    ac_member_step step;
} AC_FN(stream_member);

__constant__ AC_FN(stream_member) AC_FN(stream_members)[AC_MAX_MEMBERS];

/* The table lives in the 64 KiB of constant memory a module has.  In
 * double a member takes 488 bytes, 240 of them its parameters (one double
 * a row of csrc/parameters.def and a derived coefficient), so that 128
 * members take 61 KiB: three more rows fit; past them, fewer members a
 * launch (AC_MAX_MEMBERS with astaroth/ensemble.py's MEMBERS_PER_LAUNCH). */
static_assert(sizeof(AC_FN(stream_members)) <= 65536, "the ensemble table (members.cuh) outgrows constant memory");

/* roles: the sets substep `substep` reads, writes, reads w from and writes w
 * to (-1: none); reduce: the last substep of a step, which leaves max |u|^2
 * and the non-finite flags for the next step's dt; forcing (FORCED): the
 * members' forcing of the step, which the last substep adds first.  The
 * forced instances are their own, so that unforced ensembles keep the
 * registers and schedule they had (with one instance for both, unforced
 * entropy ensembles ran slower: benchmarks/results/2026-11-28-gpu-last-substep). */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool FORCED>
__global__ void __launch_bounds__(TX *TY, AC_FN(stream_min_blocks)<CONFIG, TX, TY, BLOCKS>())
    AC_FN(stream_members_kernel)(AC_FN(shape) s, int4 roles, int substep, bool reduce, int runs, bool wrap_x,
                                 const ac_step_forcing *forcing)
{
    const AC_FN(stream_member) &m = AC_FN(stream_members)[blockIdx.y];
    const AC_FN(field_set) none = {{NULL}};
    const ac_device_step step = {m.step.dt, reduce ? m.step.max_u2_bits : NULL, m.step.nonfinite,
                                 FORCED ? forcing + blockIdx.y : NULL};
    const AC_FN(from_struct) params = {m.p};
    AC_FN(stream_substep_body)<CONFIG, TX, TY, LEAD, BLOCKS, true>(
        m.sets[roles.x], m.sets[roles.y], roles.z >= 0 ? m.sets[roles.z] : none,
        roles.w >= 0 ? m.sets[roles.w] : none, s, AC_FN(params_from)(params), m.c, substep, (real)0, step, runs, wrap_x,
        true, true, NULL, ac_shear_flow()); /* the hydro path: no shear */
}

/* A member of any other configuration the device loop runs
 * (ac_device_loop_runs): the sets of its configuration's fields, and its
 * geometry for the signal-speed reduction (mhd_substep.cuh).  Such members
 * are read from the same constant bytes as the hydro table's, so that the
 * module's constant memory holds one table: fewer of them a launch
 * (cuda_members_capacity), the ensemble split into launches of that many. */
template <int NF>
struct AC_FN(wide_member) {
    AC_FN(fields)<NF> sets[3]; /* home, stage_a, w */
    ac_physics_params p;
    AC_FN(stencil_scales) c;
    ac_member_step step;
    ac_geometry geo;
};

template <int NF>
static __device__ __forceinline__ const AC_FN(wide_member)<NF> &AC_FN(wide_member_at)(int i)
{
    return reinterpret_cast<const AC_FN(wide_member) < NF > *>(AC_FN(stream_members))[i];
}

template <int NF>
static constexpr int AC_FN(wide_capacity)()
{
    return (int)(sizeof(AC_FN(stream_members)) / sizeof(AC_FN(wide_member)<NF>));
}
static_assert(AC_FN(wide_capacity)<AC_MAX_FIELDS>() >= 32, "an ensemble launch of the widest members holds too few");

/* The substep of stream_members_kernel for a member of configuration
 * CONFIG read as a wide member: its device loop's instance body, as
 * stream_substep_kernel<..., DEVICE_DT = true> runs it solo. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS, bool FORCED>
__global__ void __launch_bounds__(TX *TY, AC_FN(stream_min_blocks)<CONFIG, TX, TY, BLOCKS>())
    AC_FN(stream_wide_members_kernel)(AC_FN(shape) s, int4 roles, int substep, bool reduce, int runs, bool wrap_x,
                                      const ac_step_forcing *forcing)
{
    constexpr int NF = ac_field_count(ac_config_modules(CONFIG));
    const AC_FN(wide_member)<NF> &m = AC_FN(wide_member_at)<NF>(blockIdx.y);
    const AC_FN(fields)<NF> none = {{NULL}};
    /* (the body reduces where its configuration's instance does: ac_reduces_in_substep) */
    const ac_device_step step = {m.step.dt, reduce ? m.step.max_u2_bits : NULL, m.step.nonfinite,
                                 FORCED ? forcing + blockIdx.y : NULL};
    const AC_FN(from_struct) params = {m.p};
    AC_FN(stream_substep_body)<CONFIG, TX, TY, LEAD, BLOCKS, true>(
        m.sets[roles.x], m.sets[roles.y], roles.z >= 0 ? m.sets[roles.z] : none,
        roles.w >= 0 ? m.sets[roles.w] : none, s, AC_FN(params_from)(params), m.c, substep, (real)0, step, runs, wrap_x,
        true, true, NULL, ac_shear_flow()); /* no shock viscosity, no shear (ac_device_loop_runs) */
}

/* The configuration a member's substeps run: as stream_substep's for the
 * grid, without shock viscosity (ac_device_loop_runs). */
static unsigned AC_FN(member_config)(const ac_grid *g)
{
    return ac_config(ac_grid_modules(g), ac_kernel_bits(ac_grid_terms(g) & ~(unsigned)AC_TERM_SHOCK));
}

static bool AC_FN(member_is_hydro)(const ac_grid *g)
{
    return AC_FN(member_config)(g) == ac_config(AC_MODULE_HYDRO, 0u);
}

/* Calls fn<NF> for a member's count of fields (the wide tables). */
static_assert(AC_NUM_FIELDS == 4 && AC_MAX_FIELDS == 10, "members.cuh's AC_BY_FIELDS lists the field counts");
#define AC_BY_FIELDS(nf, fn, args)                                                                                     \
    switch (nf) {                                                                                                      \
    case 4:                                                                                                            \
        return fn<4> args;                                                                                             \
    case 5:                                                                                                            \
        return fn<5> args;                                                                                             \
    case 6:                                                                                                            \
        return fn<6> args;                                                                                             \
    case 7:                                                                                                            \
        return fn<7> args;                                                                                             \
    case 8:                                                                                                            \
        return fn<8> args;                                                                                             \
    case 9:                                                                                                            \
        return fn<9> args;                                                                                             \
    case 10:                                                                                                           \
        return fn<10> args;                                                                                            \
    default:                                                                                                           \
        break;                                                                                                         \
    }

template <int NF>
static int AC_FN(wide_members_capacity)()
{
    return AC_FN(wide_capacity)<NF>() < AC_MAX_MEMBERS ? AC_FN(wide_capacity)<NF>() : AC_MAX_MEMBERS;
}

/* The most members of grid g's configuration one launch steps. */
extern "C" int AC_FN(cuda_members_capacity)(const ac_grid *g)
{
    if (AC_FN(member_is_hydro)(g))
        return AC_MAX_MEMBERS;
    AC_BY_FIELDS(ac_field_count(ac_grid_modules(g)), AC_FN(wide_members_capacity), ())
    return 0;
}

template <int NF>
static ac_status AC_FN(load_wide_members)(const ac_member *members, int count, cudaStream_t stream)
{
    if (count < 1 || count > AC_FN(wide_members_capacity)<NF>())
        return AC_ERR_ARGUMENT;
    AC_FN(wide_member)<NF> *table = (AC_FN(wide_member)<NF> *)calloc((size_t)count, sizeof *table);
    if (!table)
        return AC_ERR_NO_MEMORY;
    for (int i = 0; i < count; ++i) {
        const ac_grid *g = members[i].grid;
        for (int k = 0; k < 3; ++k)
            for (int f = 0; f < NF; ++f)
                table[i].sets[k].f[f] = (real *)members[i].sets[k][f];
        table[i].p = make_physics_params(g);
        table[i].c = AC_FN(make_scales)(make_geometry(g));
        table[i].step = members[i].step;
        table[i].geo = make_geometry(g);
    }
    const ac_status st = ac_cuda_record(cudaMemcpyToSymbolAsync(AC_FN(stream_members), table, count * sizeof *table,
                                                                0, cudaMemcpyHostToDevice, stream),
                                        "ensemble table");
    free(table);
    return st;
}

/* Loads the table: the members' sets, parameters and stencil scales, as
 * cuda_substep computes them for a solo run (the hydro table, or the wide
 * one of the members' configuration; they are all of one).  The caller
 * keeps other ensembles from loading it until its launches have run. */
extern "C" ac_status AC_FN(cuda_load_members)(const ac_member *members, int count, cudaStream_t stream)
{
    if (count < 1 || count > AC_MAX_MEMBERS)
        return AC_ERR_ARGUMENT;
    if (!AC_FN(member_is_hydro)(members[0].grid)) {
        AC_BY_FIELDS(ac_field_count(ac_grid_modules(members[0].grid)), AC_FN(load_wide_members),
                     (members, count, stream))
        return AC_ERR_UNSUPPORTED;
    }
    AC_FN(stream_member) *table = (AC_FN(stream_member) *)calloc((size_t)count, sizeof *table);
    if (!table)
        return AC_ERR_NO_MEMORY;
    for (int i = 0; i < count; ++i) {
        const ac_grid *g = members[i].grid;
        for (int k = 0; k < 3; ++k)
            table[i].sets[k] = AC_FN(make_set)(members[i].sets[k]);
        table[i].p = make_physics_params(g);
        table[i].c = AC_FN(make_scales)(make_geometry(g));
        table[i].step = members[i].step;
    }
    /* from pageable memory: the copy is staged before the call returns */
    const ac_status st = ac_cuda_record(cudaMemcpyToSymbolAsync(AC_FN(stream_members), table, count * sizeof *table, 0,
                                                                cudaMemcpyHostToDevice, stream),
                                        "ensemble table");
    free(table);
    return st;
}

/* The members' kernel of configuration CONFIG: the hydro table's for plain
 * hydrodynamics, the wide table's for the others. */
template <unsigned CONFIG, int TX, int TY, int LEAD, bool FORCED, bool HYDRO = CONFIG == ac_config(AC_MODULE_HYDRO, 0u)>
struct AC_FN(members_kernel) {
    static const void *address()
    {
        return (const void *)AC_FN(stream_wide_members_kernel)<CONFIG, TX, TY, LEAD, 0, FORCED>;
    }
    static void launch(dim3 blocks, dim3 threads, size_t smem, cudaStream_t stream, const AC_FN(shape) & s, int4 roles,
                       int substep, bool reduce, int runs, bool wrap_x, const ac_step_forcing *forcing)
    {
        AC_FN(stream_wide_members_kernel)<CONFIG, TX, TY, LEAD, 0, FORCED>
            <<<blocks, threads, smem, stream>>>(s, roles, substep, reduce, runs, wrap_x, forcing);
    }
};

template <unsigned CONFIG, int TX, int TY, int LEAD, bool FORCED>
struct AC_FN(members_kernel)<CONFIG, TX, TY, LEAD, FORCED, true> {
    static const void *address()
    {
        return (const void *)AC_FN(stream_members_kernel)<CONFIG, TX, TY, LEAD, 0, FORCED>;
    }
    static void launch(dim3 blocks, dim3 threads, size_t smem, cudaStream_t stream, const AC_FN(shape) & s, int4 roles,
                       int substep, bool reduce, int runs, bool wrap_x, const ac_step_forcing *forcing)
    {
        AC_FN(stream_members_kernel)<CONFIG, TX, TY, LEAD, 0, FORCED>
            <<<blocks, threads, smem, stream>>>(s, roles, substep, reduce, runs, wrap_x, forcing);
    }
};

/* Substep `substep` of the `count` members in the table, configuration
 * CONFIG in its schedule (schedules.cuh); built for the configurations the
 * device loop runs. */
template <unsigned CONFIG, bool BUILT = ac_device_loop_runs(CONFIG) && ac_config_valid(CONFIG)>
struct AC_FN(members_substep) {
    static ac_status launch(const AC_FN(shape) & s, int count, const int roles[4], int substep, int reduce,
                            const ac_step_forcing *forcing, cudaStream_t stream)
    {
        return launch_forced(ac_constant<ac_forces_in_substep(CONFIG)>(), s, count, roles, substep, reduce, forcing,
                             stream);
    }

    /* the forced instance only where the loop adds the forcing in the substep (C++14: no if constexpr) */
    static ac_status launch_forced(ac_constant<true>, const AC_FN(shape) & s, int count, const int roles[4],
                                   int substep, int reduce, const ac_step_forcing *forcing, cudaStream_t stream)
    {
        return forcing ? launch_instance<true>(s, count, roles, substep, reduce, forcing, stream)
                       : launch_instance<false>(s, count, roles, substep, reduce, NULL, stream);
    }

    static ac_status launch_forced(ac_constant<false>, const AC_FN(shape) & s, int count, const int roles[4],
                                   int substep, int reduce, const ac_step_forcing *, cudaStream_t stream)
    {
        return launch_instance<false>(s, count, roles, substep, reduce, NULL, stream);
    }

    template <bool FORCED>
    static ac_status launch_instance(const AC_FN(shape) & s, int count, const int roles[4], int substep, int reduce,
                                     const ac_step_forcing *forcing, cudaStream_t stream)
    {
        constexpr ac_schedule S = ac_schedule_of(CONFIG, sizeof(real));
        constexpr int TX = S.tx, TY = S.ty, LEAD = S.lead, NF = ac_field_count(ac_config_modules(CONFIG));
        constexpr size_t smem = AC_FN(stream_smem)<CONFIG, TX, TY, LEAD>();
        typedef AC_FN(members_kernel)<CONFIG, TX, TY, LEAD, FORCED> K;
        static AC_FN(kernel_fit) fit = {0, 0, 0};
        if (AC_FN(fit_kernel)(&fit, K::address(), TX * TY, smem) != AC_OK)
            return AC_ERR_DEVICE;
        const long long columns = (long long)((s.n[0] + TX - 1) / TX) * ((s.n[1] + TY - 1) / TY);
        const int runs = AC_FN(stream_runs)(fit, columns * count, s.n[2],
                                            (double)count * NF * s.m[0] * s.m[1] * s.m[2] * sizeof(real));
        if (columns * runs > 0x7fffffffLL)
            return AC_ERR_ARGUMENT;
        K::launch(dim3((unsigned)(columns * runs), (unsigned)count), dim3(TX, TY, 1), smem, stream, s,
                  make_int4(roles[0], roles[1], roles[2], roles[3]), substep, reduce != 0, runs,
                  AC_FN(stream_wraps_x)(s), forcing);
        return ac_cuda_record(cudaGetLastError(), "ensemble substep launch");
    }
};

template <unsigned CONFIG>
struct AC_FN(members_substep)<CONFIG, false> {
    static ac_status launch(const AC_FN(shape) &, int, const int *, int, int, const ac_step_forcing *, cudaStream_t)
    {
        return AC_ERR_UNSUPPORTED;
    }
};

/* Substep `substep` of the `count` members in the table, all of grid g's
 * configuration; roles: the indices of in, out, w_in and w_out in their
 * sets (-1: none); reduce: the last substep of a step, where it reduces
 * for the next (run_members asks it where the configuration's instance
 * can: ac_reduces_in_substep; max |u|^2 of plain hydrodynamics, the
 * entropy module's signal speed); forcing: the last
 * substep's, each member's step forcing (cuda_forcing_members_step), or
 * NULL.  The x ghost zones must come from the periodic images
 * (stream_wraps_x). */
extern "C" ac_status AC_FN(cuda_substep_members)(const ac_grid *g, int count, const int roles[4], int substep,
                                                 int reduce, const ac_step_forcing *forcing, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const unsigned config = AC_FN(member_config)(g);
    if (count < 1 || count > AC_FN(cuda_members_capacity)(g))
        return AC_ERR_ARGUMENT;
    if (!AC_FN(stream_wraps_x)(s))
        return AC_ERR_UNSUPPORTED;
#define AC_MEMBERS_CASE(modules, terms)                                                                                \
    if (config == ac_config((modules), ac_kernel_bits(terms)))                                                         \
        return AC_FN(members_substep)<ac_config((modules), ac_kernel_bits(terms))>::launch(                            \
            s, count, roles, substep, reduce, forcing, stream);
    AC_INSTANCES(AC_MEMBERS_CASE)
#undef AC_MEMBERS_CASE
    return AC_ERR_UNSUPPORTED;
}

/* The reduction of each member's fields (all of them checked) into its
 * step's max |u|^2 and flags, as cuda_reduce does for the first step of a
 * solo device loop: block (b, m) reduces part of member m. */
__global__ void AC_FN(reduce_members_kernel)(AC_FN(shape) s)
{
    const AC_FN(stream_member) &m = AC_FN(stream_members)[blockIdx.y];
    AC_FN(reduce_body)(m.sets[0], s, 0, m.step.max_u2_bits, m.step.nonfinite);
}

/* ... of a wide member: its first four fields, as cuda_reduce reads a
 * solo grid's home (queue_cfl_step's reduction where the speed is uniform). */
template <int NF>
__global__ void AC_FN(reduce_wide_members_kernel)(AC_FN(shape) s)
{
    const AC_FN(wide_member)<NF> &m = AC_FN(wide_member_at)<NF>(blockIdx.y);
    const AC_FN(field_set) home = {{m.sets[0].f[0], m.sets[0].f[1], m.sets[0].f[2], m.sets[0].f[3]}};
    AC_FN(reduce_body)(home, s, 0, m.step.max_u2_bits, m.step.nonfinite);
}

/* Blocks for a reduction of `count` members' interiors: the solo
 * reduction's at most 4096 shared among them (a maximum does not depend on
 * the order its values come in). */
static long long AC_FN(member_reduce_blocks)(const AC_FN(shape) & s, int count)
{
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    long long blocks = (total + 255) / 256, most = 4096 / count > 1 ? 4096 / count : 1;
    return blocks > most ? most : blocks;
}

template <int NF>
static ac_status AC_FN(reduce_wide_members)(const AC_FN(shape) & s, int count, cudaStream_t stream)
{
    AC_FN(reduce_wide_members_kernel)<NF>
        <<<dim3((unsigned)AC_FN(member_reduce_blocks)(s, count), (unsigned)count), 256, 0, stream>>>(s);
    return ac_cuda_record(cudaGetLastError(), "ensemble reduction launch");
}

extern "C" ac_status AC_FN(cuda_reduce_members)(const ac_grid *g, int count, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (count < 1 || count > AC_FN(cuda_members_capacity)(g))
        return AC_ERR_ARGUMENT;
    if (!AC_FN(member_is_hydro)(g)) {
        AC_BY_FIELDS(ac_field_count(ac_grid_modules(g)), AC_FN(reduce_wide_members), (s, count, stream))
        return AC_ERR_UNSUPPORTED;
    }
    AC_FN(reduce_members_kernel)<<<dim3((unsigned)AC_FN(member_reduce_blocks)(s, count), (unsigned)count), 256, 0,
                                    stream>>>(s);
    return ac_cuda_record(cudaGetLastError(), "ensemble reduction launch");
}

/* The signal speed's reduction of each wide member into its step's
 * maximum and flags: where the speed reads gradients (B = curl A) as
 * signal_stream_body finds it, its periodic images read, else as
 * signal_reduce_body walks them (mhd_substep.cuh); the same
 * speed as a solo run's either way. */
template <unsigned MODULES>
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY, AC_FN(signal_tile)<MODULES>::BLOCKS)
    AC_FN(signal_members_kernel)(AC_FN(shape) s, unsigned terms, int runs, int z_per_block)
{
    constexpr int NF = ac_field_count(MODULES);
    const AC_FN(wide_member)<NF> &m = AC_FN(wide_member_at)<NF>(blockIdx.z / runs); /* member by member */
    AC_FN(mhd_field_set) fields;
#pragma unroll
    for (int f = 0; f < AC_MAX_FIELDS; ++f)
        fields.f[f] = f < NF ? m.sets[0].f[f] : NULL;
    if (AC_FN(signal_tile)<MODULES>::G > 0)
        AC_FN(signal_stream_body)<MODULES>(fields, terms, s, m.p, m.geo, m.step.max_u2_bits, m.step.nonfinite,
                                           blockIdx.z % runs, runs);
    else
        AC_FN(signal_reduce_body)<MODULES, false>(fields, terms, s, m.p, m.geo, m.step.max_u2_bits,
                                                  m.step.nonfinite, ac_shear_flow(), blockIdx.z % runs, z_per_block);
}

/* The signal-speed reduction of the `count` wide members in the table, all
 * of grid g's modules and terms, as queue_signal_reduction does for a solo
 * periodic grid without walls or shear. */
extern "C" ac_status AC_FN(cuda_signal_members)(const ac_grid *g, int count, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const unsigned modules = ac_grid_modules(g), terms = ac_grid_terms(g);
    if (count < 1 || count > AC_FN(cuda_members_capacity)(g) || AC_FN(member_is_hydro)(g))
        return AC_ERR_ARGUMENT;
    const int z_per_block = AC_FN(zwalk_planes)(s, count); /* (signal_reduce_body's) */
    dim3 blocks = AC_FN(zwalk_blocks)(s, z_per_block, count);
    int runs = (s.n[2] + z_per_block - 1) / z_per_block;
    switch (modules) {
#define AC_SIGNAL_MEMBERS(m)                                                                                           \
    case (m): {                                                                                                        \
        static AC_FN(kernel_fit) fit = {0, 0, 0};                                                                      \
        if (AC_FN(signal_tile)<(m)>::G > 0 &&                                                                          \
            AC_FN(signal_launch)<(m)>((const void *)AC_FN(signal_members_kernel)<(m)>, &fit, s, count, &blocks,        \
                                      &runs) != AC_OK)                                                                 \
            return AC_ERR_DEVICE;                                                                                      \
        AC_FN(signal_members_kernel)<(m)><<<blocks, dim3(AC_ZWALK_TX, AC_ZWALK_TY), AC_FN(signal_tile)<(m)>::BYTES,  \
                                           stream>>>(s, terms, runs, z_per_block);                                     \
        break;                                                                                                         \
    }
        AC_SIGNAL_MODULE_SETS(AC_SIGNAL_MEMBERS)
#undef AC_SIGNAL_MEMBERS
    default:
        return AC_ERR_UNSUPPORTED;
    }
    return ac_cuda_record(cudaGetLastError(), "ensemble signal-speed reduction launch");
}

/* The forcing after a forced member's step, as forcing_sample_kernel adds
 * it after a solo device loop's: the draw of its run's last step to the
 * velocity of its home set (the hydro table's, or the first four fields of
 * a wide member's), at its own grid's coordinates (add_forcing_term),
 * where its last substep does not add it (the magnetic module's:
 * ac_forces_in_substep); block (x, y, z)
 * takes run z % z_runs of member z / z_runs.  A point's increment does not depend
 * on how the points are shared out, so the tiling may differ from the solo
 * launch's. */
template <int NF, bool HYDRO>
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY)
    AC_FN(forcing_members_kernel)(AC_FN(shape) s, const ac_member_forcing *forcing, int planes, int z_runs)
{
    const int member = (int)blockIdx.z / z_runs;
    const ac_member_forcing &mine = forcing[member];
    ac_forcing_term term;
    double dt;
    if (!AC_FN(run_forcing_term)(mine.samples, mine.run, &term, &dt))
        return; /* the run has ended: every thread of the block, before its barrier */
    for (int a = 0; a < 3; ++a) {
        s.origin[a] = mine.origin[a];
        s.spacing[a] = mine.spacing[a];
        s.offset[a] = mine.offset[a];
    }
    AC_FN(field_set) home;
    if (HYDRO) {
        home = AC_FN(stream_members)[member].sets[0];
    } else {
        const AC_FN(wide_member)<NF> &m = AC_FN(wide_member_at)<NF>(member);
        for (int f = 0; f < AC_NUM_FIELDS; ++f)
            home.f[f] = m.sets[0].f[f];
    }
    AC_FN(add_forcing_term)(home, s, term, dt, planes, (int)blockIdx.z % z_runs);
}

/* ... or, where their last substep adds it (ac_forces_in_substep), each
 * member's term and phase factors at its own coordinates into forcing[m],
 * as forcing_step_kernel makes a solo run's: block (x, m) of member m. */
__global__ void AC_FN(forcing_members_step_kernel)(AC_FN(shape) s, const ac_member_forcing *members,
                                                   ac_step_forcing *forcing)
{
    const ac_member_forcing &mine = members[blockIdx.y];
    for (int a = 0; a < 3; ++a) {
        s.origin[a] = mine.origin[a];
        s.spacing[a] = mine.spacing[a];
        s.offset[a] = mine.offset[a];
    }
    AC_FN(make_step_forcing)(s, mine.samples, mine.run, forcing + blockIdx.y);
}

extern "C" ac_status AC_FN(cuda_forcing_members_step)(const ac_grid *g, int count, const ac_member_forcing *members,
                                                      ac_step_forcing *forcing, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const int points = s.n[0] + s.n[1] + s.n[2];
    AC_FN(forcing_members_step_kernel)<<<dim3((points + 127) / 128, count), 128, 0, stream>>>(s, members, forcing);
    return ac_cuda_record(cudaGetLastError(), "ensemble forcing step launch");
}

/* The launch of forcing_members_kernel for `count` members: the hydro
 * table's (HYDRO) or the wide table's of NF fields. */
template <int NF, bool HYDRO = false>
static ac_status AC_FN(force_members_of)(const AC_FN(shape) & s, int count, const ac_member_forcing *forcing,
                                         cudaStream_t stream)
{
    const int planes = AC_FN(zwalk_planes)(s, count);
    AC_FN(forcing_members_kernel)<NF, HYDRO>
        <<<AC_FN(zwalk_blocks)(s, planes, count), dim3(AC_ZWALK_TX, AC_ZWALK_TY), 0, stream>>>(
            s, forcing, planes, (s.n[2] + planes - 1) / planes);
    return ac_cuda_record(cudaGetLastError(), "ensemble forcing launch");
}

/* The forcing after a step of the `count` members in the table, all of
 * grid g's configuration and forced; forcing: each member's, in device
 * memory. */
extern "C" ac_status AC_FN(cuda_force_members)(const ac_grid *g, int count, const ac_member_forcing *forcing,
                                               cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (count < 1 || count > AC_FN(cuda_members_capacity)(g))
        return AC_ERR_ARGUMENT;
    if (AC_FN(member_is_hydro)(g))
        return AC_FN(force_members_of)<AC_NUM_FIELDS, true>(s, count, forcing, stream);
    AC_BY_FIELDS(ac_field_count(ac_grid_modules(g)), AC_FN(force_members_of), (s, count, forcing, stream))
    return AC_ERR_UNSUPPORTED;
}

#undef AC_BY_FIELDS
