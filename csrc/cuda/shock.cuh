/*
 * shock.cuh -- the shock viscosity's profile on the GPU (DESIGN 9).
 *
 * Included by kernels_impl.cuh (once per precision).  The passes of
 * physics.h's shock_pass_point over the interior, one thread a point, each
 * followed by the periodic ghost zones of its result, as the CPU backend
 * runs them: the compression, the 3x3x3 maximum, the smoothing along x, y
 * and z, then the scale nu_shock dxmin^2.  The streaming substep reads the
 * profile and its gradient (HYPER's sibling flag SHOCK).
 */

__global__ void AC_FN(shock_pass_kernel)(AC_FN(field_set) in, const real *from, real *to, AC_FN(shape) s,
                                         ac_point_params p, int axis)
{
    const real *const u[3] = {in.f[1], in.f[2], in.f[3]};
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const ptrdiff_t idx = AC_FN(interior_padded)(s, t);
        to[idx] = shock_pass_point(u, from, idx, s.stride, p.inv_ds, axis);
    }
}

/* zeta = scale * from over the whole padded array (the ghost zones hold the
 * periodic images). */
__global__ void AC_FN(shock_scale_kernel)(real *zeta, const real *from, real scale, long long count)
{
    for (long long n = blockIdx.x * (long long)blockDim.x + threadIdx.x; n < count;
         n += (long long)gridDim.x * blockDim.x)
        zeta[n] = scale * from[n];
}

/* The gradient of the profile (ghost zones filled) at the interior points,
 * eq. (6) as the CPU's substep takes it. */
__global__ void AC_FN(shock_gradient_kernel)(real *zeta, AC_FN(shape) s, ac_point_params p)
{
    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const ptrdiff_t idx = AC_FN(interior_padded)(s, t);
#pragma unroll
        for (int a = 0; a < 3; ++a)
            zeta[(a + 1) * padded + idx] = first_derivative(zeta + idx, s.stride[a], p.inv_ds[a]);
    }
}

/* The profile of the fields `in` (their ghost zones are filled here) into
 * zeta, and its gradient into the three padded arrays after it; scratch is
 * a second padded array. */
extern "C" ac_status AC_FN(cuda_shock_profile)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *zeta_,
                                               void *scratch_, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const AC_FN(field_set) in = AC_FN(make_set)(in_);
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    real *zeta = (real *)zeta_, *scratch = (real *)scratch_;
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    const unsigned blocks = (unsigned)(total / 256 + 1 < 65535 ? total / 256 + 1 : 65535);
    /* compression into scratch, maximum into zeta, smoothing x, y, z: scratch, zeta, scratch */
    real *const to[5] = {scratch, zeta, scratch, zeta, scratch};
    const int axes[5] = {-1, 3, 0, 1, 2};
    if (AC_FN(fill_ghosts)(in, AC_NUM_FIELDS, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    for (int pass = 0; pass < 5; ++pass) {
        AC_FN(shock_pass_kernel)<<<blocks, 256, 0, stream>>>(in, pass ? to[pass - 1] : NULL, to[pass], s, p,
                                                               axes[pass]);
        if (ac_cuda_record(cudaGetLastError(), "shock profile launch") != AC_OK)
            return AC_ERR_DEVICE;
        const AC_FN(field_set) result = {{to[pass], NULL, NULL, NULL}};
        if (AC_FN(fill_ghosts)(result, 1, s, stream) != AC_OK)
            return AC_ERR_DEVICE;
    }
    const double dxmin = ac_grid_dxmin(g);
    const long long count = (long long)s.m[0] * s.m[1] * s.m[2];
    AC_FN(shock_scale_kernel)<<<(unsigned)(count / 256 + 1 < 65535 ? count / 256 + 1 : 65535), 256, 0, stream>>>(
        zeta, scratch, (real)(g->nu_shock * dxmin * dxmin), count);
    if (ac_cuda_record(cudaGetLastError(), "shock profile launch") != AC_OK)
        return AC_ERR_DEVICE;
    AC_FN(shock_gradient_kernel)<<<blocks, 256, 0, stream>>>(zeta, s, p);
    return ac_cuda_record(cudaGetLastError(), "shock profile gradient launch");
}

/* max of a padded array over the interior (non-negative values, as the bits
 * of a double) into max_bits; NaN/Inf sets bit 0 of nonfinite. */
__global__ void AC_FN(max_interior_kernel)(const real *f, AC_FN(shape) s, unsigned long long *max_bits,
                                           unsigned int *nonfinite)
{
    double local = 0.0;
    unsigned int flags = 0;
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const real v = f[AC_FN(interior_padded)(s, t)];
        if (!isfinite(v))
            flags = 1;
        else
            local = (double)v > local ? (double)v : local;
    }
    AC_FN(warp_reduce_to)(local, flags, max_bits, nonfinite);
}

extern "C" ac_status AC_FN(cuda_max_interior)(const ac_grid *g, const void *field, unsigned long long *max_bits,
                                              unsigned int *nonfinite, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const long long total = (long long)s.n[0] * s.n[1] * s.n[2];
    AC_FN(max_interior_kernel)<<<(unsigned)(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096), 256, 0, stream>>>(
        (const real *)field, s, max_bits, nonfinite);
    return ac_cuda_record(cudaGetLastError(), "maximum launch");
}
