/*
 * shock.cuh -- the shock viscosity's profile on the GPU (docs/guide/hyperdiffusion.md).
 *
 * Included by kernels_impl.cuh (once per precision).  One kernel makes the
 * whole profile zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]] from the
 * velocity, with physics.h's shock_compression_from_differences and
 * smooth_121, in the order of the CPU's passes (maximum, smoothing along
 * x, y, z, scale), so that the bits agree.  A block owns an x-y tile and
 * walks a range of z planes.  For each new plane:
 *   - u_x and u_y of the tile and a halo of 2 + 3 go to shared memory, and
 *     u_z of the tile and a halo of 2 to a shared ring of seven planes,
 *     each loaded an iteration ahead (its latency passes meanwhile);
 *   - the compression on the tile and a halo of two goes to shared memory;
 *   - its 3x3 in-plane maximum stays in registers, and the 3x3x3 maximum of
 *     the plane behind is the largest of three of those;
 *   - smoothing along x and y in shared memory, along z in registers;
 *   - each point's profile goes out with its periodic images along each
 *     axis (the ghost zones the gradient's stencils read).
 * Every read of u wraps periodically: its ghost zones are not filled.  A
 * second kernel takes the profile's gradient, held for the step's three
 * substeps as the profile is (the streaming substep's SHOCK instances read
 * both).
 *
 * Passes of one thread a point, with ghost fills between them, cost half
 * the step at 256^3 (benchmarks/results, 98fc2be); this kernel with every
 * stencil read from global memory was bound by L1 loads (3227452).
 */

/* 32 x 16 tiles in single precision (less of the halo computed twice); in
 * double their shared memory would pass the 48 KB of a static allocation */
enum { AC_SHOCK_TX = 32, AC_SHOCK_TY = sizeof(real) == 4 ? 16 : 8, AC_SHOCK_THREADS = AC_SHOCK_TX * AC_SHOCK_TY };

/* Points of a tile region that one thread computes (strided by the block's
 * thread count). */
#define AC_SHOCK_ROUNDS(count) (((count) + AC_SHOCK_THREADS - 1) / AC_SHOCK_THREADS)

/* The in-plane padded offset of point q of a w-wide region whose corner
 * lies at tile corner (x0, y0) minus (hx, hy), wrapped periodically. */
static __device__ __forceinline__ int AC_FN(region_column)(const AC_FN(shape) & s, int q, int w, int x0, int y0,
                                                           int hx, int hy)
{
    return (int)AC_FN(padded)(s, AC_FN(wrapped)(x0 - hx + q % w, s.n[0], true),
                              AC_FN(wrapped)(y0 - hy + q / w, s.n[1], true), -s.lo[2]);
}

/* The padded offset of plane z, wrapped periodically; `near`: -n <= z < 2n,
 * wrapped without a division. */
static __device__ __forceinline__ ptrdiff_t AC_FN(plane_offset)(const AC_FN(shape) & s, int z, bool near)
{
    const int n = s.n[2];
    return s.stride[2] * ((near ? (z < 0 ? z + n : z >= n ? z - n : z) : AC_FN(wrapped)(z, n, true)) + s.lo[2]);
}

__global__ void __launch_bounds__(AC_SHOCK_THREADS, sizeof(real) == 8 ? 3 : 2)
    AC_FN(shock_profile_kernel)(AC_FN(field_set) in, real *__restrict__ zeta, AC_FN(shape) s,
                                ac_geometry geo, ac_physics_params p, int z_per_block, bool images)
{
    enum { TX = AC_SHOCK_TX, TY = AC_SHOCK_TY, THREADS = AC_SHOCK_THREADS, R = 3 /* the stencil's radius */,
           SPAN = 2 * R + 1 };
    enum { CX = TX + 4, CY = TY + 4, MX = TX + 2, MY = TY + 2 }; /* compression, maximum: halos 2, 1 */
    enum { C_ROUNDS = AC_SHOCK_ROUNDS(CX * CY), M_ROUNDS = AC_SHOCK_ROUNDS(MX * MY),
           S_ROUNDS = AC_SHOCK_ROUNDS(TX * MY), UX_ROUNDS = AC_SHOCK_ROUNDS((CX + 2 * R) * CY),
           UY_ROUNDS = AC_SHOCK_ROUNDS(CX * (CY + 2 * R)) };
    __shared__ real ux[CY][CX + 2 * R], uy[CY + 2 * R][CX]; /* the newest plane's u_x, u_y */
    __shared__ real uz[SPAN][CY][CX];                       /* u_z of planes z - 3 .. z + 3, a ring */
    __shared__ real compression[CY][CX];                    /* the newest plane's */
    __shared__ real maximum[MY][MX];                        /* the 3x3x3 maximum of the plane behind */
    __shared__ real along_x[MY][TX];                        /* its smoothing along x */
    const real *__restrict__ vx = in.f[1], *__restrict__ vy = in.f[2], *__restrict__ vz = in.f[3];
    const int t = threadIdx.y * TX + threadIdx.x;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    const int z0 = blockIdx.z * z_per_block, z1 = min(z0 + z_per_block, s.n[2]);
    const bool near = s.n[2] >= 6; /* the planes read, z0 - 5 .. z1 + 4, lie within -n .. 2n - 1 */

    int ux_column[UX_ROUNDS], uy_column[UY_ROUNDS], c_column[C_ROUNDS];
#pragma unroll
    for (int r = 0; r < UX_ROUNDS; ++r)
        ux_column[r] = AC_FN(region_column)(s, t + r * THREADS, CX + 2 * R, x0, y0, 2 + R, 2);
#pragma unroll
    for (int r = 0; r < UY_ROUNDS; ++r)
        uy_column[r] = AC_FN(region_column)(s, t + r * THREADS, CX, x0, y0, 2, 2 + R);
#pragma unroll
    for (int r = 0; r < C_ROUNDS; ++r)
        c_column[r] = AC_FN(region_column)(s, t + r * THREADS, CX, x0, y0, 2, 2);
    /* the ring's first six planes, z0 - 5 .. z0: slot 0 holds z - 3 of the first z, z0 - 2 */
    for (int d = 0; d < SPAN - 1; ++d) {
        const ptrdiff_t plane = AC_FN(plane_offset)(s, z0 - 5 + d, near);
#pragma unroll
        for (int r = 0; r < C_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < CX * CY)
                uz[d][q / CX][q % CX] = vz[c_column[r] + plane];
        }
    }
    /* the next plane's values, loaded an iteration ahead so that the loads'
     * latency passes while the plane before is worked on */
    real next_x[UX_ROUNDS], next_y[UY_ROUNDS], next_z[C_ROUNDS];
#define AC_SHOCK_FETCH(z)                                                                                        \
    do {                                                                                                         \
        const ptrdiff_t plane = AC_FN(plane_offset)(s, z, near), ahead = AC_FN(plane_offset)(s, (z) + R, near); \
        _Pragma("unroll") for (int r = 0; r < UX_ROUNDS; ++r) if (t + r * THREADS < (CX + 2 * R) * CY)          \
            next_x[r] = vx[ux_column[r] + plane];                                                                \
        _Pragma("unroll") for (int r = 0; r < UY_ROUNDS; ++r) if (t + r * THREADS < CX * (CY + 2 * R))          \
            next_y[r] = vy[uy_column[r] + plane];                                                                \
        _Pragma("unroll") for (int r = 0; r < C_ROUNDS; ++r) if (t + r * THREADS < CX * CY)                     \
            next_z[r] = vz[c_column[r] + ahead];                                                                 \
    } while (0)
    AC_SHOCK_FETCH(z0 - 2);
    real in_plane[M_ROUNDS][2]; /* 3x3 maxima of the two planes before the newest */
#pragma unroll
    for (int r = 0; r < M_ROUNDS; ++r)
        in_plane[r][0] = in_plane[r][1] = 0;
    real along_xy[2] = {0, 0}; /* x-y smoothings of the two planes behind the maximum's */
    const int i = x0 + threadIdx.x, j = y0 + threadIdx.y;
    int oldest = 0; /* the ring's slot of plane z - 3 */

    for (int z = z0 - 2; z <= z1 + 1; ++z) {
        const int newest = oldest == 0 ? SPAN - 1 : oldest - 1; /* plane z + 3 takes the slot of z - 4 */
#pragma unroll
        for (int r = 0; r < UX_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < (CX + 2 * R) * CY)
                ux[q / (CX + 2 * R)][q % (CX + 2 * R)] = next_x[r];
        }
#pragma unroll
        for (int r = 0; r < UY_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < CX * (CY + 2 * R))
                uy[q / CX][q % CX] = next_y[r];
        }
#pragma unroll
        for (int r = 0; r < C_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < CX * CY)
                uz[newest][q / CX][q % CX] = next_z[r];
        }
        if (z < z1 + 1)
            AC_SHOCK_FETCH(z + 1);
        __syncthreads();
        int slot[SPAN]; /* of planes z - 3 .. z + 3 */
#pragma unroll
        for (int d = 0; d < SPAN; ++d)
            slot[d] = oldest + d < SPAN ? oldest + d : oldest + d - SPAN;
#pragma unroll
        for (int r = 0; r < C_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < CX * CY) {
                const int a = q % CX, b = q / CX;
                real diff[3][3];
#pragma unroll
                for (int d = 1; d <= R; ++d) {
                    diff[0][d - 1] = ux[b][a + R + d] - ux[b][a + R - d];
                    diff[1][d - 1] = uy[b + R + d][a] - uy[b + R - d][a];
                    diff[2][d - 1] = uz[slot[R + d]][b][a] - uz[slot[R - d]][b][a];
                }
                compression[b][a] = shock_compression_from_differences(diff, geo.inv_ds);
            }
        }
        oldest = oldest + 1 == SPAN ? 0 : oldest + 1;
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
        for (int r = 0; r < S_ROUNDS; ++r) {
            const int q = t + r * THREADS;
            if (q < TX * MY) {
                const int a = q % TX, b = q / TX;
                along_x[b][a] = smooth_121(maximum[b][a], maximum[b][a + 1], maximum[b][a + 2]);
            }
        }
        __syncthreads();
        const real xy = smooth_121(along_x[threadIdx.y][threadIdx.x], along_x[threadIdx.y + 1][threadIdx.x],
                                   along_x[threadIdx.y + 2][threadIdx.x]);
        if (z >= z0 + 2 && i < s.n[0] && j < s.n[1]) { /* the profile of plane z - 2 */
            const int k = z - 2;
            const real v = p.shock_scale * smooth_121(along_xy[0], along_xy[1], xy);
            zeta[AC_FN(padded)(s, i, j, k)] = v;
            if (images) { /* its periodic images in the ghost zones along each axis (the gradient's stencils) */
                if (i < R || i >= s.n[0] - R)
                    zeta[AC_FN(padded)(s, i < R ? i + s.n[0] : i - s.n[0], j, k)] = v;
                if (j < R || j >= s.n[1] - R)
                    zeta[AC_FN(padded)(s, i, j < R ? j + s.n[1] : j - s.n[1], k)] = v;
                if (k < R || k >= s.n[2] - R)
                    zeta[AC_FN(padded)(s, i, j, k < R ? k + s.n[2] : k - s.n[2])] = v;
            }
        }
        along_xy[0] = along_xy[1];
        along_xy[1] = xy;
    }
}

#undef AC_SHOCK_FETCH

/* The profile's gradient (its ghost zones along each axis filled) into the
 * three padded arrays after it, eq. (6) as the CPU's substep takes it. */
__global__ void AC_FN(shock_gradient_kernel)(real *zeta, AC_FN(shape) s, ac_geometry geo, int z_per_block)
{
    const ptrdiff_t padded = (ptrdiff_t)s.m[0] * s.m[1] * s.m[2];
    int i, j, k0, k1;
    if (!AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        return;
    for (int k = k0; k < k1; ++k) {
        const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
#pragma unroll
        for (int a = 0; a < 3; ++a)
            zeta[(a + 1) * padded + idx] = first_derivative(zeta + idx, s.stride[a], geo.inv_ds[a]);
    }
}

/* ---- a shearing box's profile: pass by pass (terms/shock.h) ---------------
 * The fused kernel above reads its halos as periodic images; a shearing
 * box's x images are shifted along y and interpolated, in each pass as in
 * the fields (the maximum and the smoothing of interpolated values are not
 * the interpolation of theirs).  So here each pass of the CPU's profile
 * (cpu/point_impl.h: shock_profile_pass) is a kernel of one thread a point
 * over the interior, and what it writes has its ghost zones filled as the
 * fields' are (fill_ghosts_but: the shifted x images, then y and z) before
 * the next pass reads them: the same values as the CPU's, pass by pass. */

/* One pass (shock_pass_point: the compression from u, axis -1; the 3x3x3
 * maximum of `from`, axis 3; its smoothing along axis 0, 1 or 2) at every
 * interior point into `to`: a thread an x-y column up a run of z planes
 * (tile_column), no index divided a point, as shock_gradient_kernel. */
__global__ void AC_FN(shock_pass_kernel)(AC_FN(field_set) in, const real *from, real *to, AC_FN(shape) s,
                                         ac_geometry geo, int axis, int z_per_block)
{
    const real *const u[3] = {in.f[1], in.f[2], in.f[3]};
    const ptrdiff_t stride[3] = {s.stride[0], s.stride[1], s.stride[2]};
    int i, j, k0, k1;
    if (!AC_FN(tile_column)(s, z_per_block, &i, &j, &k0, &k1))
        return;
    for (int k = k0; k < k1; ++k) {
        const ptrdiff_t idx = AC_FN(padded)(s, i, j, k);
        to[idx] = shock_pass_point(u, from, idx, stride, geo.inv_ds, axis);
    }
}

/* zeta = scale * scratch over the whole padded array, ghost zones too (they
 * hold the shifted images, scaled as the CPU scales them). */
__global__ void AC_FN(shock_scale_kernel)(const real *scratch, real *zeta, long long count, real scale)
{
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < count;
         t += (long long)gridDim.x * blockDim.x)
        zeta[t] = scale * scratch[t];
}

/* Every ghost zone of the `count` padded arrays `arrays` as the grid's
 * fields take theirs (a shearing box's x faces shifted). */
static ac_status AC_FN(fill_ghosts_as_fields)(const ac_grid *g, void *arrays[], int count, cudaStream_t stream)
{
    ac_grid some = *g;
    some.fields = count;
    void *fields[AC_MAX_FIELDS] = {NULL};
    for (int f = 0; f < count; ++f)
        fields[f] = arrays[f];
    return AC_FN(fill_ghosts_but)(&some, fields, 0u, stream);
}

/* Pass `pass` of the profile (cpu/point_impl.h: shock_profile_pass) of the
 * fields `in` (ghost zones filled) with zeta's second padded array (its
 * gradient's x, written after) as the CPU's scratch: passes 0 to
 * AC_SHOCK_PASSES - 2 into zeta or scratch, what they wrote then given its
 * ghost zones as the fields' are; the last scales scratch into zeta, ghost
 * zones too.  *written: 0 zeta, 1 scratch, -1 nothing (the last). */
static ac_status AC_FN(profile_pass)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], real *zeta, int pass,
                                     int *written, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const long long padded = (long long)s.m[0] * s.m[1] * s.m[2];
    real *const scratch = zeta + padded;
    *written = -1;
    if (pass == AC_SHOCK_PASSES - 1) {
        AC_FN(shock_scale_kernel)<<<AC_FN(blocks_for)(padded, 65535), 256, 0, stream>>>(
            scratch, zeta, padded, (real)make_physics_params(g).shock_scale);
        return ac_cuda_record(cudaGetLastError(), "shock profile scale launch");
    }
    real *const from = pass % 2 ? scratch : zeta, *const to = pass % 2 ? zeta : scratch; /* as the CPU's */
    const dim3 threads(32, 8, 1);
    AC_FN(shock_pass_kernel)<<<AC_FN(tile_blocks)(s, threads, 16), threads, 0, stream>>>(
        AC_FN(make_set)(in_), from, to, s, make_geometry(g), shock_pass_axis(pass), 16);
    if (ac_cuda_record(cudaGetLastError(), "shock profile pass launch") != AC_OK)
        return AC_ERR_DEVICE;
    void *what[1] = {to};
    *written = to == zeta ? 0 : 1;
    return AC_FN(fill_ghosts_as_fields)(g, what, 1, stream);
}

/* The profile of a shearing box's fields `in` into zeta, ghost zones filled,
 * pass by pass. */
static ac_status AC_FN(sheared_shock_profile)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], real *zeta,
                                              cudaStream_t stream)
{
    void *velocity[3] = {in_[1], in_[2], in_[3]};
    if (AC_FN(fill_ghosts_as_fields)(g, velocity, 3, stream) != AC_OK)
        return AC_ERR_DEVICE;
    int written;
    for (int pass = 0; pass < AC_SHOCK_PASSES; ++pass)
        if (AC_FN(profile_pass)(g, in_, zeta, pass, &written, stream) != AC_OK)
            return AC_ERR_DEVICE;
    return AC_OK;
}

/* The profile of a periodic grid's fields `in` into zeta, ghost zones
 * filled, by the fused kernel above. */
static ac_status AC_FN(fused_shock_profile)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], real *zeta,
                                            cudaStream_t stream)
{
    static AC_FN(kernel_fit) fit; /* the blocks of the profile kernel one GPU holds at once */
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    if (AC_FN(fit_kernel)(&fit, (const void *)AC_FN(shock_profile_kernel), AC_SHOCK_THREADS, 0) != AC_OK)
        return AC_ERR_DEVICE;
    /* one wave: the z range split among as many blocks per x-y tile as fit */
    const dim3 threads(AC_SHOCK_TX, AC_SHOCK_TY, 1);
    dim3 blocks = AC_FN(tile_blocks)(s, threads, s.n[2]);
    const int tiles = (int)(blocks.x * blocks.y), chunks = fit.resident_blocks / tiles > 1 ? fit.resident_blocks / tiles : 1;
    const int z_per_block = (s.n[2] + chunks - 1) / chunks;
    blocks.z = (s.n[2] + z_per_block - 1) / z_per_block;
    /* the kernel writes each point's images along each axis where every axis
     * has the stencil's radius of points at least (once each) */
    const bool images = s.n[0] >= AC_GHOST && s.n[1] >= AC_GHOST && s.n[2] >= AC_GHOST;
    AC_FN(shock_profile_kernel)<<<blocks, threads, 0, stream>>>(AC_FN(make_set)(in_), zeta, s, make_geometry(g),
                                                               make_physics_params(g), z_per_block, images);
    if (ac_cuda_record(cudaGetLastError(), "shock profile launch") != AC_OK)
        return AC_ERR_DEVICE;
    const AC_FN(field_set) profile = {{zeta, NULL, NULL, NULL}};
    return images ? AC_OK : AC_FN(fill_ghosts)(profile, 1, s, stream);
}

/* The gradient of the profile zeta (its ghost zones filled) into the three
 * padded arrays after it. */
static ac_status AC_FN(shock_gradient)(const ac_grid *g, real *zeta, cudaStream_t stream)
{
    const AC_FN(shape) s = AC_FN(make_shape)(g);
    const dim3 threads(32, 8, 1);
    AC_FN(shock_gradient_kernel)<<<AC_FN(tile_blocks)(s, threads, 16), threads, 0, stream>>>(zeta, s,
                                                                                             make_geometry(g), 16);
    return ac_cuda_record(cudaGetLastError(), "shock profile gradient launch");
}

/* The profile of the fields `in` into zeta (a shearing box's pass by pass,
 * a periodic grid's fused), and its gradient into the three padded arrays
 * after it. */
extern "C" ac_status AC_FN(cuda_shock_profile)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *zeta_,
                                               cudaStream_t stream)
{
    real *zeta = (real *)zeta_;
    const ac_status st = AC_FN(shears_x)(g) ? AC_FN(sheared_shock_profile)(g, in_, zeta, stream)
                                            : AC_FN(fused_shock_profile)(g, in_, zeta, stream);
    return st != AC_OK ? AC_ERR_DEVICE : AC_FN(shock_gradient)(g, zeta, stream);
}

/* Pass `pass` of the profile of the fields `in` (their ghost zones filled,
 * a split grid's from its neighbours) into zeta, for a grid split over MPI
 * ranks that exchanges what each pass wrote (*written: 0 zeta, 1 its second
 * array; -1 after the last, which also takes the gradient) before the next:
 * the passes of the shearing box's profile. */
extern "C" ac_status AC_FN(cuda_shock_profile_pass)(const ac_grid *g, void *const in_[AC_NUM_FIELDS], void *zeta_,
                                                    int pass, int *written, cudaStream_t stream)
{
    real *zeta = (real *)zeta_;
    if (AC_FN(profile_pass)(g, in_, zeta, pass, written, stream) != AC_OK)
        return AC_ERR_DEVICE;
    return *written >= 0 ? AC_OK : AC_FN(shock_gradient)(g, zeta, stream);
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
