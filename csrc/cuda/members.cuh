/*
 * members.cuh -- ensembles (astaroth/ensemble.py): the members of one shape stepped by
 * one launch per substep.
 *
 * Included by kernels_impl.cuh (once per precision).  Each member keeps its
 * own fields, parameters and device CFL state (cuda_backend.cu's run_cfl
 * for many grids); a table in constant memory holds them, read with the
 * block's member index.  The kernel is the streaming substep's body, so a
 * member's arithmetic is that of its solo run, bit for bit.
 */

/* A member as the kernel reads it: block (b, m) is block b of member m. */
typedef struct {
    AC_FN(field_set) sets[3]; /* home, stage_a, w */
    ac_physics_params p;
    AC_FN(stencil_scales) c; /* its geometry */
    ac_device_step step;
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
 * and the non-finite flags for the next step's dt. */
template <unsigned CONFIG, int TX, int TY, int LEAD, int BLOCKS>
__global__ void __launch_bounds__(TX *TY, AC_FN(stream_min_blocks)<CONFIG, TX, TY, BLOCKS>())
    AC_FN(stream_members_kernel)(AC_FN(shape) s, int4 roles, int substep, bool reduce, int runs, bool wrap_x)
{
    const AC_FN(stream_member) &m = AC_FN(stream_members)[blockIdx.y];
    const AC_FN(field_set) none = {{NULL}};
    ac_device_step step = m.step;
    if (!reduce)
        step.max_u2_bits = NULL;
    const AC_FN(from_struct) params = {m.p};
    AC_FN(stream_substep_body)<CONFIG, TX, TY, LEAD, BLOCKS, true>(
        m.sets[roles.x], m.sets[roles.y], roles.z >= 0 ? m.sets[roles.z] : none,
        roles.w >= 0 ? m.sets[roles.w] : none, s, AC_FN(params_from)(params), m.c, substep, (real)0, step, runs, wrap_x,
        true, true, NULL, ac_shear_flow()); /* the hydro path: no shear */
}

/* Loads the table: the members' sets, parameters and stencil scales, as
 * cuda_substep computes them for a solo run.  The caller keeps other
 * ensembles from loading it until its launches have run. */
extern "C" ac_status AC_FN(cuda_load_members)(const ac_member *members, int count, cudaStream_t stream)
{
    if (count < 1 || count > AC_MAX_MEMBERS)
        return AC_ERR_ARGUMENT;
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

/* Substep `substep` of the `count` members in the table, in the schedule
 * of hydrodynamics without kernel terms (schedules.cuh); roles: the indices of in, out, w_in and w_out in
 * their sets (-1: none); reduce: the last substep of a step.  The x ghost
 * zones must come from the periodic images (stream_wraps_x). */
extern "C" ac_status AC_FN(cuda_substep_members)(const ac_grid *g, int count, const int roles[4], int substep,
                                                 int reduce, cudaStream_t stream)
{
    constexpr unsigned CONFIG = ac_config(AC_MODULE_HYDRO, 0);
    constexpr ac_schedule S = ac_schedule_of(CONFIG, sizeof(real));
    constexpr int TX = S.tx, TY = S.ty, LEAD = S.lead;
    constexpr size_t smem = AC_FN(stream_smem)<CONFIG, TX, TY, LEAD>();
    static AC_FN(kernel_fit) fit = {0, 0, 0};
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (count < 1 || count > AC_MAX_MEMBERS)
        return AC_ERR_ARGUMENT;
    if (!AC_FN(stream_wraps_x)(s))
        return AC_ERR_UNSUPPORTED;
    if (AC_FN(fit_kernel)(&fit, (const void *)AC_FN(stream_members_kernel)<CONFIG, TX, TY, LEAD, 0>, TX * TY, smem) != AC_OK)
        return AC_ERR_DEVICE;
    const long long columns = (long long)((s.n[0] + TX - 1) / TX) * ((s.n[1] + TY - 1) / TY);
    const int runs = AC_FN(stream_runs)(fit, columns * count, s.n[2],
                                        (double)count * AC_NUM_FIELDS * s.m[0] * s.m[1] * s.m[2] * sizeof(real));
    if (columns * runs > 0x7fffffffLL)
        return AC_ERR_ARGUMENT;
    AC_FN(stream_members_kernel)<CONFIG, TX, TY, LEAD, 0><<<dim3((unsigned)(columns * runs), (unsigned)count), dim3(TX, TY, 1),
                                                    smem, stream>>>(s, make_int4(roles[0], roles[1], roles[2], roles[3]),
                                                                    substep, reduce != 0, runs, AC_FN(stream_wraps_x)(s));
    return ac_cuda_record(cudaGetLastError(), "ensemble substep launch");
}

/* The reduction of each member's fields (all of them checked) into its
 * step's max |u|^2 and flags, as cuda_reduce does for the first step of a
 * solo device loop: block (b, m) reduces part of member m. */
__global__ void AC_FN(reduce_members_kernel)(AC_FN(shape) s)
{
    const AC_FN(stream_member) &m = AC_FN(stream_members)[blockIdx.y];
    AC_FN(reduce_body)(m.sets[0], s, 0, m.step.max_u2_bits, m.step.nonfinite);
}

extern "C" ac_status AC_FN(cuda_reduce_members)(const ac_grid *g, int count, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    long long blocks = (total + 255) / 256, most = 4096 / count > 1 ? 4096 / count : 1;
    if (blocks > most)
        blocks = most;
    if (count < 1 || count > AC_MAX_MEMBERS)
        return AC_ERR_ARGUMENT;
    AC_FN(reduce_members_kernel)<<<dim3((unsigned)blocks, (unsigned)count), 256, 0, stream>>>(s);
    return ac_cuda_record(cudaGetLastError(), "ensemble reduction launch");
}
