/*
 * mhd_substep.cuh -- magnetohydrodynamics (DESIGN 7) on the GPU, for one
 * precision; included by kernels_impl.cuh.  The substep is the streaming
 * kernel of stream_substep.cuh taking seven fields.  A plain form is kept
 * beside it (ASTAROTH_MHD_PLAIN=1): one thread per point, the stencils read
 * through the read-only cache with physics.h's pointer functions, a second
 * statement of the same arithmetic to check the fast one against on a GPU.
 * The reduction for the CFL step and the NaN check is here too.
 */

/* The hydrodynamic and magnetic derivatives at padded index idx. */
static __device__ __forceinline__ void AC_FN(mhd_point_derivatives)(const AC_FN(mhd_field_set) & in, ptrdiff_t idx,
                                                                    const ptrdiff_t stride[3],
                                                                    const ac_point_params *p, ac_derivatives *d,
                                                                    ac_magnetic_derivatives *m)
{
    const real *u[3] = {in.f[1] + idx, in.f[2] + idx, in.f[3] + idx};
    const real *a[3] = {in.f[4] + idx, in.f[5] + idx, in.f[6] + idx};
#pragma unroll
    for (int j = 0; j < 3; ++j)
        d->grad_lnrho[j] = first_derivative(in.f[0] + idx, stride[j], p->inv_ds[j]);
#pragma unroll
    for (int i = 0; i < 3; ++i)
        d->u[i] = AC_LOAD(u[i]);
    vector_derivatives(u, stride, p, d->grad_u, d->lap_u, d->grad_div_u);
    m->lnrho = AC_LOAD(in.f[0] + idx);
    vector_derivatives(a, stride, p, m->grad_a, m->lap_a, m->grad_div_a);
}

/* Substep `substep` over the region [first, end) of s.  w_in is read unless
 * substep == 0 and w_out written unless NULL; out may be w_in's arrays
 * (each point reads its w before writing), so w is read with plain loads. */
__global__ void AC_FN(mhd_substep_kernel)(AC_FN(mhd_field_set) in, AC_FN(mhd_field_set) out,
                                          AC_FN(mhd_field_set) w_in, AC_FN(mhd_field_set) w_out, AC_FN(shape) s,
                                          ac_point_params p, ac_mhd_params q, int substep, real dt,
                                          const double *dt_device)
{
    if (!AC_FN(step_length)(dt_device, &dt))
        return;
    const int i = s.first[0] + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = s.first[1] + blockIdx.y * blockDim.y + threadIdx.y;
    const int k = s.first[2] + blockIdx.z;
    if (i >= s.end[0] || j >= s.end[1] || k >= s.end[2])
        return;
    const ptrdiff_t stride[3] = {1, s.stride[1], s.stride[2]};
    const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
    ac_derivatives d;
    ac_magnetic_derivatives m;
    AC_FN(mhd_point_derivatives)(in, idx, stride, &p, &d, &m);
    real rhs[AC_MHD_FIELDS];
    rhs_mhd_from_derivatives(&d, &m, &p, &q, rhs);
#pragma unroll
    for (int f = 0; f < AC_MHD_FIELDS; ++f) {
        real w = substep > 0 ? w_in.f[f][idx] : (real)0;
        const real u_new = rk3_substep(AC_LOAD(in.f[f] + idx), rhs[f], &w, substep, dt);
        out.f[f][idx] = u_new;
        if (w_out.f[f] != NULL)
            w_out.f[f][idx] = w;
    }
}

/* One MHD substep over region r (NULL: the whole grid, after filling the
 * periodic ghost zones of `in`; otherwise the caller has filled them). */
extern "C" ac_status AC_FN(cuda_substep_mhd)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                                             void *const out_[AC_MAX_FIELDS], void *const w_in_[AC_MAX_FIELDS],
                                             void *const w_out_[AC_MAX_FIELDS], const void *zeta, int substep,
                                             double dt, const ac_device_step *device_step, cudaStream_t stream)
{
    static int plain = -1;
    if (plain < 0) {
        const char *env = getenv("ASTAROTH_MHD_PLAIN");
        plain = env && env[0] == '1';
    }
    AC_FN(shape) s = AC_FN(make_shape)(g);
    if (r) {
        for (int a = 0; a < 3; ++a) {
            s.first[a] = r->lo[a];
            s.end[a] = r->hi[a];
            if (r->hi[a] <= r->lo[a])
                return AC_OK; /* empty region */
        }
    } else {
        /* the streaming kernel reads the y and z images itself, and x where it can */
        const int first_axis = plain ? 0 : AC_FN(stream_wraps_x)(s) ? 3 : 0, last_axis = plain ? 3 : 1;
        for (int axis = first_axis; axis < last_axis; ++axis)
            if (AC_FN(cuda_fill_ghost_axis)(g, in_, axis, stream) != AC_OK)
                return AC_ERR_DEVICE;
    }
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    const ac_mhd_params q = make_mhd_params(g->eta, g->mu0, g->b_ext);
    ac_hyper_params h;
    const ac_hyper_params *hyper = AC_FN(hyper_of)(g, &h);
    if (!plain)
        return AC_FN(stream_substep_mhd)(AC_FN(make_mhd_set)(in_), AC_FN(make_mhd_set)(out_),
                                         AC_FN(make_mhd_set)(w_in_), AC_FN(make_mhd_set)(w_out_), s, p, q, hyper,
                                         (const real *)zeta, substep, (real)dt, device_step, r == NULL, stream);
    if (hyper || zeta)
        return AC_ERR_UNSUPPORTED; /* the plain kernel has neither hyperdiffusion nor shock viscosity */
    const dim3 threads(32, 4, 1);
    const dim3 blocks((unsigned)((s.end[0] - s.first[0] + 31) / 32), (unsigned)((s.end[1] - s.first[1] + 3) / 4),
                      (unsigned)(s.end[2] - s.first[2]));
    AC_FN(mhd_substep_kernel)<<<blocks, threads, 0, stream>>>(
        AC_FN(make_mhd_set)(in_), AC_FN(make_mhd_set)(out_), AC_FN(make_mhd_set)(w_in_), AC_FN(make_mhd_set)(w_out_),
        s, p, q, substep, (real)dt, device_step ? device_step->dt : NULL);
    return ac_cuda_record(cudaGetLastError(), "MHD substep launch");
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
        for (int f = 0; f < AC_MAX_FIELDS; ++f)
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

extern "C" ac_status AC_FN(cuda_reduce_mhd)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS], int fill_ghosts,
                                            unsigned long long *max_bits, unsigned int *nonfinite,
                                            cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (fill_ghosts && AC_FN(fill_ghosts)(AC_FN(potential_set)(fields_), 3, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    long long blocks = (total + 255) / 256;
    if (blocks > 4096)
        blocks = 4096;
    AC_FN(mhd_reduce_kernel)<<<(unsigned)blocks, 256, 0, stream>>>(
        AC_FN(make_mhd_set)(fields_), s, make_point_params(g->spacing, g->nu, g->cs),
        make_mhd_params(g->eta, g->mu0, g->b_ext), max_bits, nonfinite);
    return ac_cuda_record(cudaGetLastError(), "MHD reduction launch");
}
