/*
 * mhd_substep.cuh -- magnetohydrodynamics on the GPU, for one precision;
 * included by kernels_impl.cuh.  The substep is the streaming kernel of
 * stream_substep.cuh for the configuration with the magnetic module (its
 * schedule in schedules.cuh).  The reduction for the CFL step and the NaN
 * check is here too.
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
    AC_FN(shape) s = AC_FN(make_shape)(g);
    unsigned wraps = 0;
    if (r) {
        for (int a = 0; a < 3; ++a) {
            s.first[a] = r->lo[a];
            s.end[a] = r->hi[a];
            if (r->hi[a] <= r->lo[a])
                return AC_OK; /* empty region */
        }
    } else if (AC_FN(fill_unwrapped_ghosts)(g, in_, s, &wraps, stream) != AC_OK) {
        return AC_ERR_DEVICE;
    }
    return AC_FN(stream_substep)(g, in_, out_, w_in_, w_out_, s, (const real *)zeta, substep, (real)dt, device_step,
                                 wraps, stream);
}

/* max of |u| + sqrt(cs^2 + |B|^2 / (mu0 rho)) as the bits of a non-negative
 * double, and one flag bit per field holding a NaN or Inf; A's ghost zones
 * filled. */
__global__ void AC_FN(mhd_reduce_kernel)(AC_FN(mhd_field_set) fields, AC_FN(shape) s, ac_point_params p,
                                         ac_mhd_params q, unsigned long long *max_bits, unsigned int *nonfinite)
{
    double local_max = 0.0;
    unsigned int flags = 0;
    const ptrdiff_t stride[3] = {1, s.stride[1], s.stride[2]};
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const ptrdiff_t idx = AC_FN(interior_padded)(s, t);
        for (int f = 0; f < AC_MHD_FIELDS; ++f) /* the seven of MHD (AC_MAX_FIELDS also counts ss) */
            if (!isfinite(fields.f[f][idx]))
                flags |= 1u << f;
        ac_magnetic_derivatives m;
        for (int c = 0; c < 3; ++c)
            for (int a = 0; a < 3; ++a)
                m.grad_a[c][a] = first_derivative(fields.f[4 + c] + idx, stride[a], p.inv_ds[a]);
        real b[3];
        magnetic_field(&m, &q, b);
        const real u[3] = {fields.f[1][idx], fields.f[2][idx], fields.f[3][idx]};
        const double speed = fast_signal_speed(u, b, fields.f[0][idx], &p, &q);
        if (!isfinite(speed))
            flags |= 1u << 1; /* reported as the velocity's */
        else
            local_max = speed > local_max ? speed : local_max;
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

/* With the entropy module (MHD or not): max of physics.h's ac_signal_speed
 * (the local sound speed, and the Alfven speed with MHD) and the flags of
 * every field. */
__global__ void AC_FN(signal_reduce_kernel)(AC_FN(mhd_field_set) fields, int count, unsigned modules, AC_FN(shape) s,
                                            ac_physics_params p, unsigned long long *max_bits, unsigned int *nonfinite)
{
    double local_max = 0.0;
    unsigned int flags = 0;
    const ptrdiff_t stride[3] = {1, s.stride[1], s.stride[2]};
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int a = ac_field_index(modules, AC_FIELD_ax), e = ac_field_index(modules, AC_FIELD_ss);
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const ptrdiff_t idx = AC_FN(interior_padded)(s, t);
        for (int f = 0; f < count; ++f)
            if (!isfinite(fields.f[f][idx]))
                flags |= 1u << f;
        real b[3];
        if (a >= 0) {
            real grad_a[3][3];
            for (int c = 0; c < 3; ++c)
                for (int x = 0; x < 3; ++x)
                    grad_a[c][x] = first_derivative(fields.f[a + c] + idx, stride[x], p.inv_ds[x]);
            curl_plus(grad_a, p.b_ext, b);
        }
        const real uu[3] = {fields.f[u][idx], fields.f[u + 1][idx], fields.f[u + 2][idx]};
        const double speed =
            ac_signal_speed(modules, &p, uu, a >= 0 ? b : NULL, fields.f[l][idx], e >= 0 ? fields.f[e][idx] : (real)0);
        if (!isfinite(speed))
            flags |= 1u << 1; /* reported as the velocity's */
        else
            local_max = speed > local_max ? speed : local_max;
    }
    AC_FN(warp_reduce_to)(local_max, flags, max_bits, nonfinite); /* every lane gets here */
}

extern "C" ac_status AC_FN(cuda_reduce_mhd)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int fill_ghosts,
                                            unsigned long long *max_bits, unsigned int *nonfinite,
                                            cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (fill_ghosts && ac_grid_has_module(g, AC_MODULE_MAGNETIC) && /* B needs A's ghost zones */
        AC_FN(fill_ghosts)(AC_FN(potential_set)(fields_), 3, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    const unsigned blocks = AC_FN(blocks_for)(total, 4096);
    /* every configuration but plain MHD: the generic signal speed (physics.h's ac_signal_speed) over its fields */
    if (g->modules != (unsigned)(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC)) {
        AC_FN(signal_reduce_kernel)<<<blocks, 256, 0, stream>>>(AC_FN(make_mhd_set)(fields_), g->fields,
                                                                 ac_grid_modules(g), s, make_physics_params(g),
                                                                 max_bits, nonfinite);
        return ac_cuda_record(cudaGetLastError(), "signal-speed reduction launch");
    }
    AC_FN(mhd_reduce_kernel)<<<blocks, 256, 0, stream>>>(
        AC_FN(make_mhd_set)(fields_), s, make_point_params(g->spacing, g->nu, g->cs),
        make_mhd_params(g->eta, g->mu0, g->b_ext), max_bits, nonfinite);
    return ac_cuda_record(cudaGetLastError(), "MHD reduction launch");
}
