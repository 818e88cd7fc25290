/*
 * shock.cuh -- the shock viscosity's profile on the GPU (DESIGN 9).
 *
 * Included by kernels_impl.cuh (once per precision).  One kernel makes the
 * whole profile zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]] from the
 * velocity, with physics.h's shock_pass_point (the compression) and
 * smooth_121, in the order the CPU's passes take (maximum, then smoothing
 * along x, y, z, then the scale), so that the bits agree.  A block owns an
 * x-y tile and walks a range of z planes: each new plane's compression on
 * the tile and a halo of two goes to shared memory, its 3x3 in-plane
 * maximum stays in registers, the 3x3x3 maximum of the plane behind is the
 * largest of three of those, smoothed along x and y in shared memory and
 * along z in registers.  A second kernel takes the profile's gradient, held
 * for the step's substeps as the profile is (the streaming substep's SHOCK
 * instances read both).  Passes of one thread a point with ghost fills
 * between them cost half the step at 256^3 (benchmarks/results, 98fc2be).
 */

enum { AC_SHOCK_TX = 32, AC_SHOCK_TY = 8, AC_SHOCK_Z = 64 };

/* Points of the tile's halo regions that one thread computes (strided by
 * the block's thread count). */
#define AC_SHOCK_ROUNDS(count) (((count) + AC_SHOCK_TX * AC_SHOCK_TY - 1) / (AC_SHOCK_TX * AC_SHOCK_TY))

static __device__ __forceinline__ int AC_FN(periodic)(int i, int n)
{
    const int r = i % n;
    return r < 0 ? r + n : r;
}

__global__ void __launch_bounds__(AC_SHOCK_TX *AC_SHOCK_TY)
    AC_FN(shock_profile_kernel)(AC_FN(field_set) in, real *__restrict__ zeta, AC_FN(shape) s, ac_point_params p,
                                real scale, int z_per_block)
{
    enum { CX = AC_SHOCK_TX + 4, CY = AC_SHOCK_TY + 4, MX = AC_SHOCK_TX + 2, MY = AC_SHOCK_TY + 2,
           THREADS = AC_SHOCK_TX * AC_SHOCK_TY };
    enum { C_ROUNDS = AC_SHOCK_ROUNDS(CX * CY), M_ROUNDS = AC_SHOCK_ROUNDS(MX * MY),
           X_ROUNDS = AC_SHOCK_ROUNDS(AC_SHOCK_TX * MY) };
    __shared__ real compression[CY][CX]; /* the newest plane, tile and halo 2 */
    __shared__ real maximum[MY][MX];     /* the 3x3x3 maximum one plane behind, halo 1 */
    __shared__ real along_x[MY][AC_SHOCK_TX];
    const real *const u[3] = {in.f[1], in.f[2], in.f[3]};
    const int t = threadIdx.y * AC_SHOCK_TX + threadIdx.x;
    const int x0 = blockIdx.x * AC_SHOCK_TX, y0 = blockIdx.y * AC_SHOCK_TY;
    const int z0 = blockIdx.z * z_per_block, z1 = min(z0 + z_per_block, s.n[2]);

    /* x-y part of the padded index of each compression point (wrapped: the
     * halo of an edge tile holds the periodic images) */
    ptrdiff_t column[C_ROUNDS];
#pragma unroll
    for (int r = 0; r < C_ROUNDS; ++r) {
        const int q = t + r * THREADS;
        column[r] = AC_FN(padded)(s, AC_FN(periodic)(x0 - 2 + q % CX, s.n[0]), AC_FN(periodic)(y0 - 2 + q / CX, s.n[1]),
                                  0);
    }
    real in_plane[M_ROUNDS][2]; /* 3x3 maxima of the two planes before the newest */
#pragma unroll
    for (int r = 0; r < M_ROUNDS; ++r)
        in_plane[r][0] = in_plane[r][1] = 0;
    real along_xy[2] = {0, 0}; /* the x-y smoothing of the planes two and one behind the maximum's */
    const int i = x0 + threadIdx.x, j = y0 + threadIdx.y;

    for (int z = z0 - 2; z <= z1 + 1; ++z) {
        const ptrdiff_t plane = s.stride[2] * AC_FN(periodic)(z, s.n[2]);
#pragma unroll
        for (int r = 0; r < C_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < CX * CY)
                compression[q / CX][q % CX] = shock_pass_point(u, NULL, column[r] + plane, s.stride, p.inv_ds, -1);
        }
        __syncthreads();
        /* the maximum of plane z - 1 over its 3x3x3 neighbourhood */
#pragma unroll
        for (int r = 0; r < M_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < MX * MY) {
                const int a = q % MX, b = q / MX;
                real v = compression[b + 1][a + 1];
#pragma unroll
                for (int db = 0; db < 3; ++db)
#pragma unroll
                    for (int da = 0; da < 3; ++da)
                        v = fmax(v, compression[b + db][a + da]);
                maximum[b][a] = fmax(fmax(in_plane[r][0], in_plane[r][1]), v);
                in_plane[r][0] = in_plane[r][1];
                in_plane[r][1] = v;
            }
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < X_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < AC_SHOCK_TX * MY) {
                const int a = q % AC_SHOCK_TX, b = q / AC_SHOCK_TX;
                along_x[b][a] = smooth_121(maximum[b][a], maximum[b][a + 1], maximum[b][a + 2]);
            }
        }
        __syncthreads();
        const real xy = smooth_121(along_x[threadIdx.y][threadIdx.x], along_x[threadIdx.y + 1][threadIdx.x],
                                   along_x[threadIdx.y + 2][threadIdx.x]);
        if (z >= z0 + 2 && i < s.n[0] && j < s.n[1]) /* the profile of plane z - 2 */
            zeta[AC_FN(padded)(s, i, j, z - 2)] = scale * smooth_121(along_xy[0], along_xy[1], xy);
        along_xy[0] = along_xy[1];
        along_xy[1] = xy;
    }
}

/* The profile's gradient (its ghost zones filled) into the three padded
 * arrays after it, eq. (6) as the CPU's substep takes it. */
__global__ void AC_FN(shock_gradient_kernel)(real *zeta, AC_FN(shape) s, ac_point_params p, int z_per_block)
{
    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
    int i, j, k0, k1;
    if (!AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        return;
    for (int k = k0; k < k1; ++k) {
        const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
#pragma unroll
        for (int a = 0; a < 3; ++a)
            zeta[(a + 1) * padded + idx] = first_derivative(zeta + idx, s.stride[a], p.inv_ds[a]);
    }
}

/* The profile of the fields `in` (the velocity's ghost zones are filled
 * here) into zeta, and its gradient into the three padded arrays after it. */
extern "C" ac_status AC_FN(cuda_shock_profile)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *zeta_,
                                               cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const AC_FN(field_set) in = AC_FN(make_set)(in_);
    const AC_FN(field_set) velocity = {{in.f[1], in.f[2], in.f[3], NULL}};
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    real *zeta = (real *)zeta_;
    const double dxmin = ac_grid_dxmin(g);
    if (AC_FN(fill_ghosts)(velocity, 3, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    const dim3 threads(AC_SHOCK_TX, AC_SHOCK_TY, 1);
    dim3 blocks = AC_FN(tile_blocks)(s, threads, AC_SHOCK_Z);
    AC_FN(shock_profile_kernel)<<<blocks, threads, 0, stream>>>(in, zeta, s, p, (real)(g->nu_shock * dxmin * dxmin),
                                                               AC_SHOCK_Z);
    if (ac_cuda_record(cudaGetLastError(), "shock profile launch") != AC_OK)
        return AC_ERR_DEVICE;
    const AC_FN(field_set) profile = {{zeta, NULL, NULL, NULL}};
    if (AC_FN(fill_ghosts)(profile, 1, s, stream) != AC_OK)
        return AC_ERR_DEVICE;
    blocks = AC_FN(tile_blocks)(s, threads, 16);
    AC_FN(shock_gradient_kernel)<<<blocks, threads, 0, stream>>>(zeta, s, p, 16);
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
