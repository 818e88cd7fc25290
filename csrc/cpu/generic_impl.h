/*
 * generic_impl.h -- the CPU's vectorised row loop for every configuration
 * (csrc/fields.h: the modules, hence the fields) and every set of terms
 * (csrc/terms/), for one precision; included by kernels_impl.h.
 *
 * A row is done in chunks of AC_CHUNK points, in vectorised passes over x
 * through "pencils" (row-long arrays): for each field, the derivatives its
 * terms ask for (physics_needs): one pass per axis for the first and second
 * derivatives, one per component of a vector's grad div, one for del6, one
 * (scalar: libm's exp does not vectorise) for exp(-f); then one pass that
 * fills an ac_point_derivatives per point, sums the terms (physics_rhs) and
 * takes the RK3 substep.  Nothing here names a field or a term: a field
 * added to csrc/fields.h and a term added to physics.h need no change here.
 *
 * Status: built with ASTAROTH_CFLAGS=-DASTAROTH_CPU_ROWS (its instances
 * take minutes to compile) and used with ASTAROTH_CPU_LOOP=rows.  It agrees with
 * the point-by-point loop (point_impl.h) to round-off but not bit for bit:
 * GCC contracts multiplications into FMAs according to how a loop is
 * vectorised, and the point loop's results (tests/data/bitwise_cpu.npz)
 * come from its own vectorisation within a point.  It is also not yet
 * fast: in this form GCC stops inlining the stencil functions into the
 * large instances (-fopt-info-vec-missed: "statement clobbers memory" at
 * first_derivative), so the passes do not vectorise; one instance per
 * noinline function would fix that.
 */

/* The number of modules a configuration may combine: instances of the
 * last pass are made for each combination of the modules in fields.h. */
#define AC_MODULES_SEEN(name, module, role) (unsigned)(module) |
enum { AC_MODULES_ALL = AC_FIELD_TABLE(AC_MODULES_SEEN) 0u };
#undef AC_MODULES_SEEN

/* Pencils of one chunk, in units of AC_CHUNK reals. */
enum {
    AC_G_FIRST = 0,                                   /* [field][axis]: first_sum */
    AC_G_LAP = AC_G_FIRST + 3 * AC_FIELD_ROWS,        /* [field] */
    AC_G_GRAD_DIV = AC_G_LAP + AC_FIELD_ROWS,         /* [vector][component] */
    AC_G_DEL6 = AC_G_GRAD_DIV + 3 * AC_VECTOR_ROWS,   /* [field] */
    AC_G_EXP = AC_G_DEL6 + AC_FIELD_ROWS,             /* [field] */
    AC_G_ZETA = AC_G_EXP + AC_FIELD_ROWS,             /* [axis]: first_sum of the shock profile */
    AC_G_OUT = AC_G_ZETA + 3,                         /* [field]: the staged row of out */
    AC_G_W = AC_G_OUT + AC_FIELD_ROWS,                /* [field]: the staged row of w */
    AC_G_PENCILS = AC_G_W + AC_FIELD_ROWS
};

typedef struct {
    real *in[AC_MAX_FIELDS], *out[AC_MAX_FIELDS], *w[AC_MAX_FIELDS];
    const real *zeta; /* the shock profile, with AC_TERM_SHOCK */
    ac_physics_params p;
    ptrdiff_t stride[3];
    real dt;
    int streaming;   /* streaming stores for `out` */
    int streaming_w; /* and for w in the first substep (which does not read it) */
} AC_FN(generic_job);

#define AC_G_PENCIL(kind, n) (pencil + AC_CHUNK * (ptrdiff_t)((kind) + (n)))

/* The derivatives of field row r on the row segment at `row` (nx points)
 * into the pencils; M, T: the configuration and terms (constants). */
static inline __attribute__((always_inline)) void AC_FN(generic_field)(const AC_FN(generic_job) *job, ptrdiff_t row,
                                                                        int nx, real *restrict pencil, unsigned M,
                                                                        unsigned T, int r)
{
    const unsigned need = physics_needs(M, T, r);
    if (!need)
        return;
    const int f = ac_field_index(M, r);
    const ptrdiff_t stride[3] = {1, job->stride[1], job->stride[2]};
    const real *inv = job->p.inv_ds;
    const real *v = job->in[f] + row;
    if (need & (AC_NEEDS_FIRST | AC_NEEDS_SECOND)) {
        AC_UNROLL
        for (int a = 0; a < 3; ++a) {
            const ptrdiff_t s = stride[a];
            real *first = AC_G_PENCIL(AC_G_FIRST, 3 * f + a), *lap = AC_G_PENCIL(AC_G_LAP, f);
            if ((need & AC_NEEDS_FIRST) && (need & AC_NEEDS_SECOND)) {
                AC_VECTOR_LOOP
                for (int i = 0; i < nx; ++i) {
                    first[i] = first_derivative(v + i, s, inv[a]);
                    lap[i] = (a ? lap[i] : (real)0) + second_derivative(v + i, s, inv[a]);
                }
            } else if (need & AC_NEEDS_FIRST) {
                AC_VECTOR_LOOP
                for (int i = 0; i < nx; ++i)
                    first[i] = first_derivative(v + i, s, inv[a]);
            } else {
                AC_VECTOR_LOOP
                for (int i = 0; i < nx; ++i)
                    lap[i] = (a ? lap[i] : (real)0) + second_derivative(v + i, s, inv[a]);
            }
        }
    }
    if ((need & AC_NEEDS_GRAD_DIV) && ac_field_role_of(r) == AC_VECTOR_X) {
        /* d_c (div v) = d_c d_c v_c + the mixed d_c d_j v_j, j != c in axis order */
        const int vec = ac_vector_index(M, r);
        AC_UNROLL
        for (int c = 0; c < 3; ++c) {
            const int j1 = c == 0 ? 1 : 0, j2 = c == 2 ? 1 : 2; /* the other two axes, in order */
            const real *vc = job->in[f + c] + row, *v1 = job->in[f + j1] + row, *v2 = job->in[f + j2] + row;
            real *grad_div = AC_G_PENCIL(AC_G_GRAD_DIV, 3 * vec + c);
            AC_VECTOR_LOOP
            for (int i = 0; i < nx; ++i) {
                real g = second_derivative(vc + i, stride[c], inv[c]);
                g += mixed_derivative(v1 + i, stride[c], stride[j1], inv[c], inv[j1]);
                g += mixed_derivative(v2 + i, stride[c], stride[j2], inv[c], inv[j2]);
                grad_div[i] = g;
            }
        }
    }
    if (need & AC_NEEDS_SIXTH) {
        real *del6 = AC_G_PENCIL(AC_G_DEL6, f);
        AC_VECTOR_LOOP
        for (int i = 0; i < nx; ++i)
            del6[i] = del6_at(v + i, stride, inv);
    }
    if (need & AC_NEEDS_EXP) {
        real *e = AC_G_PENCIL(AC_G_EXP, f);
        for (int i = 0; i < nx; ++i)
            e[i] = ac_exp(-v[i]);
    }
}

/* Substep S of the terms T of configuration M on the row segment at `row`
 * (out and w at the same padded index), nx points. */
static inline __attribute__((always_inline)) void AC_FN(generic_row)(const AC_FN(generic_job) *job_, ptrdiff_t row,
                                                                      int nx, real *restrict pencil, unsigned M,
                                                                      unsigned T, int S)
{
    const AC_FN(generic_job) job = *job_;
    enum { ROWS = AC_FIELD_ROWS };
    AC_UNROLL
    for (int r = 0; r < ROWS; ++r)
        AC_FN(generic_field)(&job, row, nx, pencil, M, T, r);
    if (T & AC_TERM_SHOCK) {
        AC_UNROLL
        for (int a = 0; a < 3; ++a) {
            const ptrdiff_t s = a == 0 ? 1 : job.stride[a];
            real *zf = AC_G_PENCIL(AC_G_ZETA, a);
            AC_VECTOR_LOOP
            for (int i = 0; i < nx; ++i)
                zf[i] = first_derivative(job.zeta + row + i, s, job.p.inv_ds[a]);
        }
    }
    const int nf = ac_field_count(M);
    AC_VECTOR_LOOP
    for (int i = 0; i < nx; ++i) {
        ac_point_derivatives d;
        AC_UNROLL
        for (int r = 0; r < ROWS; ++r) {
            const unsigned need = physics_needs(M, T, r);
            if (!need)
                continue;
            const int f = ac_field_index(M, r);
            if (need & AC_NEEDS_VALUE)
                d.value[f] = job.in[f][row + i];
            if (need & AC_NEEDS_FIRST)
                AC_UNROLL
                for (int a = 0; a < 3; ++a)
                    d.grad[f][a] = AC_G_PENCIL(AC_G_FIRST, 3 * f + a)[i];
            if (need & AC_NEEDS_SECOND)
                d.lap[f] = AC_G_PENCIL(AC_G_LAP, f)[i];
            if ((need & AC_NEEDS_GRAD_DIV) && ac_field_role_of(r) == AC_VECTOR_X) {
                const int vec = ac_vector_index(M, r);
                AC_UNROLL
                for (int c = 0; c < 3; ++c)
                    d.grad_div[vec][c] = AC_G_PENCIL(AC_G_GRAD_DIV, 3 * vec + c)[i];
            }
            if (need & AC_NEEDS_SIXTH)
                d.del6[f] = AC_G_PENCIL(AC_G_DEL6, f)[i];
            if (need & AC_NEEDS_EXP)
                d.exp_minus[f] = AC_G_PENCIL(AC_G_EXP, f)[i];
        }
        ac_shock_point shock;
        if (T & AC_TERM_SHOCK) {
            shock.zeta = job.zeta[row + i];
            AC_UNROLL
            for (int a = 0; a < 3; ++a)
                shock.grad_zeta[a] = AC_G_PENCIL(AC_G_ZETA, a)[i];
        }
        real rhs[AC_FIELD_ROWS];
        physics_rhs(M, T, &d, &job.p, &shock, rhs);
        AC_UNROLL
        for (int f = 0; f < nf; ++f) {
            real w_f = S > 0 ? job.w[f][row + i] : (real)0; /* the first substep does not read w (alpha = 0) */
            AC_G_PENCIL(AC_G_OUT, f)[i] = rk3_substep(job.in[f][row + i], rhs[f], &w_f, S, job.dt);
            if (S == 0)
                AC_G_PENCIL(AC_G_W, f)[i] = w_f;
            else if (S == 1)
                job.w[f][row + i] = w_f; /* after the last substep w is not read again */
        }
    }
    for (int f = 0; f < nf; ++f) {
        AC_FN(store_row)(job.out[f] + row, AC_G_PENCIL(AC_G_OUT, f), nx, job.streaming);
        if (S == 0)
            AC_FN(store_row)(job.w[f] + row, AC_G_PENCIL(AC_G_W, f), nx, job.streaming_w);
    }
}

/* Substep S over region r, rows in blocks of AC_Y_BLOCK swept along z (as
 * the plain hydrodynamic loop, kernels_impl.h), the rows shared among the
 * threads of the enclosing parallel region (which is not in here: an
 * OpenMP region is outlined before inlining, and M, T and S would not be
 * constants in it). */
static inline __attribute__((always_inline)) void AC_FN(generic_rows)(const ac_grid *g, const ac_region *r,
                                                                       const AC_FN(generic_job) *job, real *pencil,
                                                                       unsigned M, unsigned T, int S)
{
    const int nf = ac_field_count(M);
    const int row_bytes = (g->n[0] + 2 * AC_GHOST) * (int)sizeof(real);
    const int y_blocks = (r->hi[1] - r->lo[1] + AC_Y_BLOCK - 1) / AC_Y_BLOCK;
#pragma omp for collapse(2) schedule(static)
    for (int jb = 0; jb < y_blocks; ++jb)
        for (int k = r->lo[2]; k < r->hi[2]; ++k) {
            const int block_start = r->lo[1] + jb * AC_Y_BLOCK;
            for (int j = block_start; j < r->hi[1] && j < block_start + AC_Y_BLOCK; ++j) {
                const int kz = k + AC_PREFETCH_PLANES, block_row = j - block_start;
                if (kz < g->n[2]) /* the rows this block's stencils read two planes on */
                    for (int f = 0; f < nf; ++f)
                        for (int q = 0; q < 2; ++q) {
                            const int jy = block_start - AC_GHOST + 2 * block_row + q;
                            if (jy < g->n[1] + AC_GHOST)
                                AC_FN(prefetch_bytes)(job->in[f] + ac_grid_index(g, -AC_GHOST, jy, kz + AC_GHOST),
                                                      row_bytes, 0);
                        }
                const ptrdiff_t at = (ptrdiff_t)ac_grid_index(g, 0, j, k);
                for (int i = r->lo[0]; i < r->hi[0]; i += AC_CHUNK) {
                    const int count = r->hi[0] - i < AC_CHUNK ? r->hi[0] - i : AC_CHUNK;
                    if (count == AC_CHUNK)
                        AC_FN(generic_row)(job, at + i, AC_CHUNK, pencil, M, T, S);
                    else
                        AC_FN(generic_row)(job, at + i, count, pencil, M, T, S);
                }
            }
        }
}

/* One instance per substep, configuration and choice of the optional terms. */
#define AC_G_SUBSTEPS(M, T)                                                                                           \
    (substep == 0   ? AC_FN(generic_rows)(g, r, &job, pencil, (M), (T), 0)                                           \
     : substep == 1 ? AC_FN(generic_rows)(g, r, &job, pencil, (M), (T), 1)                                           \
                    : AC_FN(generic_rows)(g, r, &job, pencil, (M), (T), 2))
#define AC_G_TERMS(M)                                                                                                 \
    (hyper3 ? (shock ? AC_G_SUBSTEPS(M, ac_terms_of(M, 1, 1)) : AC_G_SUBSTEPS(M, ac_terms_of(M, 1, 0)))               \
            : (shock ? AC_G_SUBSTEPS(M, ac_terms_of(M, 0, 1)) : AC_G_SUBSTEPS(M, ac_terms_of(M, 0, 0))))
/* configuration m (with hydro) if its modules exist */
#define AC_G_MODULES(m)                                                                                               \
    if (modules == (AC_MODULE_HYDRO | (m)) && ((m) & ~AC_MODULES_ALL) == 0) {                                          \
        AC_G_TERMS(AC_MODULE_HYDRO | (m));                                                                            \
        done = 1;                                                                                                     \
    }

/* RK3 substep `substep` of any configuration from in to out over region r
 * (ghost zones filled), with the shock viscosity of profile zeta (NULL:
 * none).  Returns nonzero where the configuration has no instance (more
 * than four module bits) or memory ran out (*failed). */
int AC_FN(substep_generic)(const ac_grid *g, const ac_region *r, void *const in[AC_MAX_FIELDS],
                           void *const out[AC_MAX_FIELDS], void *const w[AC_MAX_FIELDS], const void *zeta,
                           int substep, double dt, int *failed)
{
    AC_FN(generic_job) job;
    const unsigned modules = ac_grid_modules(g);
    const int nf = ac_field_count(modules);
    for (int f = 0; f < nf; ++f) {
        job.in[f] = (real *)in[f];
        job.out[f] = (real *)out[f];
        job.w[f] = (real *)w[f];
    }
    job.zeta = (const real *)zeta;
    job.p = make_physics_params(g);
    ac_grid_strides(g, job.stride);
    job.dt = (real)dt;
    job.streaming = (size_t)3 * nf * ac_grid_padded_count(g) * sizeof(real) > AC_STREAMING_BYTES;
    job.streaming_w = job.streaming;
    const int hyper3 = (ac_grid_terms(g) & AC_TERM_HYPER3) != 0, shock = zeta != NULL; /* chi_hyper3 too */
    int missing = 0, done = 0;
#pragma omp parallel reduction(| : done)
    {
        real *pencil = malloc(sizeof(real) * AC_CHUNK * AC_G_PENCILS);
        if (!pencil) {
#pragma omp atomic write
            missing = 1;
        }
#pragma omp barrier
        int give_up;
#pragma omp atomic read
        give_up = missing; /* all threads or none go into the loop's worksharing */
        if (!give_up) {
            /* the modules beside hydro: bits 1 .. 3 */
            AC_G_MODULES(0u)
            AC_G_MODULES(2u)
            AC_G_MODULES(4u)
            AC_G_MODULES(6u)
            AC_G_MODULES(8u)
            AC_G_MODULES(10u)
            AC_G_MODULES(12u)
            AC_G_MODULES(14u)
        }
        free(pencil);
#if defined(__AVX__)
        if (job.streaming)
            _mm_sfence(); /* streaming stores are weakly ordered: make them visible before the barrier */
#endif
    }
    *failed = missing;
    return !done;
}
#undef AC_G_MODULES
#undef AC_G_TERMS
#undef AC_G_SUBSTEPS
#undef AC_G_PENCIL
