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
 * One instance per module set, so that the field indices fold, and one
 * more of each for the shearing box (SHEARING), so that the others keep
 * their registers.
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
            if (!isfinite(speed))
                flags |= 1u << 1; /* reported as the velocity's */
            else
                local_max = speed > local_max ? speed : local_max;
        }
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

/* (the body, also of an ensemble's members: members.cuh's signal_members_kernel) */
template <unsigned MODULES, bool SHEARING>
__global__ void __launch_bounds__(AC_ZWALK_TX *AC_ZWALK_TY, AC_SIGNAL_MIN_BLOCKS)
    AC_FN(signal_reduce_kernel)(AC_FN(mhd_field_set) fields, unsigned terms, AC_FN(shape) s, ac_physics_params p,
                                ac_geometry geo, unsigned long long *max_bits, unsigned int *nonfinite,
                                ac_shear_flow flow, int z_per_block)
{
    AC_FN(signal_reduce_body)<MODULES, SHEARING>(fields, terms, s, p, geo, max_bits, nonfinite, flow, blockIdx.z,
                                                 z_per_block);
}

extern "C" ac_status AC_FN(cuda_reduce_mhd)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int fill_ghosts,
                                            unsigned long long *max_bits, unsigned int *nonfinite,
                                            cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
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
    const int z_per_block = AC_FN(zwalk_planes)(s, 1);
    const dim3 blocks = AC_FN(zwalk_blocks)(s, z_per_block, 1), threads(AC_ZWALK_TX, AC_ZWALK_TY);
    const ac_physics_params p = make_physics_params(g);
    const ac_geometry geo = make_geometry(g);
    const ac_shear_flow flow = shear_flow_of(g);
    switch (g->modules) {
#define AC_SIGNAL_INSTANCE(m)                                                                                          \
    case (m):                                                                                                          \
        if (terms & AC_TERM_SHEAR)                                                                                     \
            AC_FN(signal_reduce_kernel)<(m), true><<<blocks, threads, 0, stream>>>(set, terms, s, p, geo, max_bits,    \
                                                                                   nonfinite, flow, z_per_block);      \
        else                                                                                                           \
            AC_FN(signal_reduce_kernel)<(m), false><<<blocks, threads, 0, stream>>>(set, terms, s, p, geo,             \
                                                                                    max_bits, nonfinite, flow,         \
                                                                                    z_per_block);                      \
        break;
        AC_SIGNAL_MODULE_SETS(AC_SIGNAL_INSTANCE)
#undef AC_SIGNAL_INSTANCE
    default:
        return AC_ERR_UNSUPPORTED;
    }
    return ac_cuda_record(cudaGetLastError(), "signal-speed reduction launch");
}
