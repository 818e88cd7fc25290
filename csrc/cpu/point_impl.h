/*
 * point_impl.h -- the CPU loops of the extended physics, for one precision;
 * included by kernels_impl.h: magnetohydrodynamics (docs/guide/mhd.md),
 * hyperdiffusion and shock viscosity (docs/guide/hyperdiffusion.md).  Point by point, through physics.h's pointer
 * stencils (vector_derivatives gives A the same first, second and mixed
 * stencils as u); plain hydrodynamics keeps its tuned loops.  Ghost zones
 * are filled by the caller.
 */

void AC_FN(substep_point_any)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                            void *const out_[AC_MAX_FIELDS], void *const w_[AC_MAX_FIELDS], const void *zeta_,
                            int substep, double dt_);
double AC_FN(max_signal_speed_generic)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS]);

/* The hydrodynamic derivatives at padded index idx (u: the velocity there,
 * pointers into in), and with seven fields the magnetic ones. */
static inline void AC_FN(point_derivatives)(real *const *in, const real *const u[3], int fields, ptrdiff_t idx,
                                            const ptrdiff_t stride[3], const ac_point_params *p, ac_derivatives *d,
                                            ac_magnetic_derivatives *m)
{
    for (int j = 0; j < 3; ++j)
        d->grad_lnrho[j] = first_derivative(in[0] + idx, stride[j], p->inv_ds[j]);
    for (int i = 0; i < 3; ++i)
        d->u[i] = *u[i];
    vector_derivatives(u, stride, p, d->grad_u, d->lap_u, d->grad_div_u);
    if (fields == AC_MHD_FIELDS) {
        const real *a[3] = {in[4] + idx, in[5] + idx, in[6] + idx};
        m->lnrho = in[0][idx];
        vector_derivatives(a, stride, p, m->grad_a, m->lap_a, m->grad_div_a);
    }
}

/* RK3 substep `substep` of the grid's fields from in to out over region r:
 * eqs. (1)-(2), with MHD the Lorentz force and the induction equation, the
 * hyperdiffusive terms where their coefficients are not 0, and the shock
 * viscosity of profile zeta (shock_profile; NULL: none). */
static inline __attribute__((always_inline)) void AC_FN(substep_point_body)(
    const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS], void *const out_[AC_MAX_FIELDS],
    void *const w_[AC_MAX_FIELDS], const void *zeta_, int substep, double dt_, const int gravity)
{
    if (g->modules & ~(unsigned)(AC_MODULE_HYDRO | AC_MODULE_MAGNETIC)) { /* any later module: through physics_rhs */
        AC_FN(substep_point_any)(g, r, in_, out_, w_, zeta_, substep, dt_);
        return;
    }
    const real *zeta = (const real *)zeta_;
    real *const *in = (real *const *)in_, *const *out = (real *const *)out_, *const *w = (real *const *)w_;
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    const ac_mhd_params q = make_mhd_params(g->eta, g->mu0, g->b_ext);
    const ac_hyper_params h = make_hyper_params(g->nu_hyper3, g->diff_hyper3);
    const int fields = g->fields;
    const real g_acc[3] = {(real)g->gravity[0], (real)g->gravity[1], (real)g->gravity[2]};
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = r->lo[2]; k < r->hi[2]; ++k)
        for (int j = r->lo[1]; j < r->hi[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int i = r->lo[0]; i < r->hi[0]; ++i) {
                const ptrdiff_t idx = row + i;
                ac_derivatives d;
                ac_magnetic_derivatives m;
                real rhs[AC_MHD_FIELDS];
                const real *u[3] = {in[1] + idx, in[2] + idx, in[3] + idx};
                AC_FN(point_derivatives)(in, u, fields, idx, stride, &p, &d, &m);
                if (fields == AC_MHD_FIELDS)
                    rhs_mhd_from_derivatives(&d, &m, &p, &q, rhs);
                else
                    rhs_from_derivatives(&d, &p, rhs);
                if (gravity) /* after the Lorentz force (physics.h's order) */
                    gravity_add(AC_MODULE_HYDRO, g_acc, rhs);
                add_hyperdiffusion(in[0] + idx, u, stride, &p, &h, rhs);
                if (zeta) {
                    real grad_zeta[3];
                    for (int a = 0; a < 3; ++a)
                        grad_zeta[a] = first_derivative(zeta + idx, stride[a], p.inv_ds[a]);
                    add_shock_viscosity(&d, zeta[idx], grad_zeta, rhs);
                }
                for (int f = 0; f < fields; ++f)
                    out[f][idx] = rk3_substep(in[f][idx], rhs[f], &w[f][idx], substep, dt);
            }
        }
}

/* gravity a compile-time constant: without it the loop is the one the stored
 * runs of tests/data/bitwise_cpu.npz were made with. */
void AC_FN(substep_point)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                          void *const out_[AC_MAX_FIELDS], void *const w_[AC_MAX_FIELDS], const void *zeta_,
                          int substep, double dt_)
{
    if (ac_grid_has_gravity(g))
        AC_FN(substep_point_body)(g, r, in_, out_, w_, zeta_, substep, dt_, 1);
    else
        AC_FN(substep_point_body)(g, r, in_, out_, w_, zeta_, substep, dt_, 0);
}

/* One pass of the shock profile over the interior: to[idx] from the
 * padded array `from` (ghost zones filled): the compression (axis -1,
 * `from` unused: the velocity in `in`), the 3x3x3 maximum (axis 3) or the
 * smoothing along `axis`; then to's ghost zones. */
static void AC_FN(shock_pass)(const ac_grid *g, real *const *in, const real *from, real *to, int axis)
{
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    const real *const u[3] = {in[1], in[2], in[3]};
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int i = 0; i < g->n[0]; ++i)
                to[row + i] = shock_pass_point(u, from, row + i, stride, p.inv_ds, axis);
        }
    AC_FN(fill_ghost_zones)(g, to);
}

/* The shock viscosity zeta = nu_shock dxmin^2 S[M3[max(-div u, 0)]] of the
 * fields `in` (ghost zones filled) into zeta, ghost zones filled; scratch
 * is a second padded array. */
void AC_FN(shock_profile)(const ac_grid *g, void *const in_[AC_MAX_FIELDS], void *zeta_, void *scratch_)
{
    real *const *in = (real *const *)in_;
    real *zeta = (real *)zeta_, *scratch = (real *)scratch_;
    AC_FN(shock_pass)(g, in, NULL, scratch, -1);
    AC_FN(shock_pass)(g, in, scratch, zeta, 3);
    AC_FN(shock_pass)(g, in, zeta, scratch, 0);
    AC_FN(shock_pass)(g, in, scratch, zeta, 1);
    AC_FN(shock_pass)(g, in, zeta, scratch, 2);
    const double dxmin = ac_grid_dxmin(g);
    const real scale = (real)(g->nu_shock * dxmin * dxmin);
    const size_t count = ac_grid_padded_count(g);
    for (size_t n = 0; n < count; ++n) /* ghost zones too: they hold the periodic images */
        zeta[n] = scale * scratch[n];
}

/* max |u| + sqrt(cs^2 + |B|^2 / (mu0 rho)) over the interior (NaN if not
 * finite); A's ghost zones filled.  With the entropy module (MHD or not)
 * the local sound speed's ac_signal_speed. */
double AC_FN(max_signal_speed_mhd)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS])
{
    if (ac_grid_has_module(g, AC_MODULE_ENTROPY)) /* the local sound speed: physics.h's ac_signal_speed */
        return AC_FN(max_signal_speed_generic)(g, fields_);
    real *const *fields = (real *const *)fields_;
    const ac_point_params p = make_point_params(g->spacing, g->nu, g->cs);
    const ac_mhd_params q = make_mhd_params(g->eta, g->mu0, g->b_ext);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    double fastest = 0.0;
    int nonfinite = 0;
#pragma omp parallel for collapse(2) reduction(max : fastest) reduction(| : nonfinite) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int i = 0; i < g->n[0]; ++i) {
                const ptrdiff_t idx = row + i;
                ac_magnetic_derivatives m;
                for (int c = 0; c < 3; ++c)
                    for (int a = 0; a < 3; ++a)
                        m.grad_a[c][a] = first_derivative(fields[4 + c] + idx, stride[a], p.inv_ds[a]);
                real b[3];
                magnetic_field(&m, &q, b);
                const real u[3] = {fields[1][idx], fields[2][idx], fields[3][idx]};
                const double speed = fast_signal_speed(u, b, fields[0][idx], &p, &q);
                nonfinite |= !isfinite(speed);
                fastest = speed > fastest ? speed : fastest;
            }
        }
    return nonfinite ? NAN : fastest;
}

/* ---- Any configuration through physics_rhs (the entropy module) ----------
 * Point by point: each field's derivatives as physics_needs asks for them
 * (a vector's grad div by eq. (8)), then physics.h's sum of the terms. */

/* The derivatives of the configuration's fields at padded index idx. */
static inline void AC_FN(generic_derivatives)(const ac_grid *g, unsigned modules, unsigned terms, real *const *in,
                                              ptrdiff_t idx, const ptrdiff_t stride[3], const real inv_ds[3],
                                              ac_point_derivatives *d)
{
    (void)g;
    for (int r = 0; r < AC_FIELD_ROWS; ++r) {
        const unsigned needs = physics_needs(modules, terms, r);
        if (!needs)
            continue;
        const int f = ac_field_index(modules, r);
        const real *x = in[f] + idx;
        d->value[f] = *x;
        if (needs & AC_NEEDS_FIRST)
            for (int a = 0; a < 3; ++a)
                d->grad[f][a] = first_derivative(x, stride[a], inv_ds[a]);
        if (needs & AC_NEEDS_SECOND) {
            real lap = 0;
            for (int a = 0; a < 3; ++a)
                lap += second_derivative(x, stride[a], inv_ds[a]);
            d->lap[f] = lap;
        }
        if (needs & AC_NEEDS_SIXTH)
            d->del6[f] = del6_at(x, stride, inv_ds);
        if ((needs & AC_NEEDS_GRAD_DIV) && ac_field_role_of(r) == AC_VECTOR_X) {
            const int v = ac_vector_index(modules, r);
            for (int i = 0; i < 3; ++i) {
                real sum = second_derivative(in[f + i] + idx, stride[i], inv_ds[i]);
                for (int j = 0; j < 3; ++j)
                    if (j != i)
                        sum += mixed_derivative(in[f + j] + idx, stride[i], stride[j], inv_ds[i], inv_ds[j]);
                d->grad_div[v][i] = sum;
            }
        }
    }
}

/* RK3 substep `substep` over region r for a configuration with the entropy
 * module; zeta: the shock profile (NULL: none). */
void AC_FN(substep_point_any)(const ac_grid *g, const ac_region *r, void *const in_[AC_MAX_FIELDS],
                            void *const out_[AC_MAX_FIELDS], void *const w_[AC_MAX_FIELDS], const void *zeta_,
                            int substep, double dt_)
{
    const real *zeta = (const real *)zeta_;
    real *const *in = (real *const *)in_, *const *out = (real *const *)out_, *const *w = (real *const *)w_;
    const unsigned modules = ac_grid_modules(g), terms = ac_grid_terms(g);
    const ac_physics_params p = make_physics_params(g);
    const int fields = ac_field_count(modules);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const real dt = (real)dt_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = r->lo[2]; k < r->hi[2]; ++k)
        for (int j = r->lo[1]; j < r->hi[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int i = r->lo[0]; i < r->hi[0]; ++i) {
                const ptrdiff_t idx = row + i;
                ac_point_derivatives d;
                AC_FN(generic_derivatives)(g, modules, terms, in, idx, stride, p.inv_ds, &d);
                ac_shock_point s = {0, {0, 0, 0}};
                if (zeta) {
                    s.zeta = zeta[idx];
                    for (int a = 0; a < 3; ++a)
                        s.grad_zeta[a] = first_derivative(zeta + idx, stride[a], p.inv_ds[a]);
                }
                real rhs[AC_FIELD_ROWS];
                physics_rhs(modules, zeta ? terms : (terms & ~(unsigned)AC_TERM_SHOCK), &d, &p, &s, rhs);
                physics_sources(modules, terms, &p, rhs);
                for (int f = 0; f < fields; ++f)
                    out[f][idx] = rk3_substep(in[f][idx], rhs[f], &w[f][idx], substep, dt);
            }
        }
}

/* max of ac_signal_speed (terms/entropy.h) over the interior, NaN if not
 * finite; with MHD A's ghost zones filled. */
double AC_FN(max_signal_speed_generic)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS])
{
    real *const *fields = (real *const *)fields_;
    const unsigned modules = ac_grid_modules(g);
    const ac_physics_params p = make_physics_params(g);
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int a = ac_field_index(modules, AC_FIELD_ax), s = ac_field_index(modules, AC_FIELD_ss);
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    double fastest = 0.0;
    int nonfinite = 0;
#pragma omp parallel for collapse(2) reduction(max : fastest) reduction(| : nonfinite) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            for (int i = 0; i < g->n[0]; ++i) {
                const ptrdiff_t idx = row + i;
                real b[3];
                if (a >= 0) {
                    real grad_a[3][3];
                    for (int c = 0; c < 3; ++c)
                        for (int x = 0; x < 3; ++x)
                            grad_a[c][x] = first_derivative(fields[a + c] + idx, stride[x], p.inv_ds[x]);
                    curl_plus(grad_a, p.b_ext, b);
                }
                const real uu[3] = {fields[u][idx], fields[u + 1][idx], fields[u + 2][idx]};
                const double speed =
                    ac_signal_speed(modules, &p, uu, a >= 0 ? b : NULL, fields[l][idx], s >= 0 ? fields[s][idx] : (real)0);
                nonfinite |= !isfinite(speed);
                fastest = speed > fastest ? speed : fastest;
            }
        }
    return nonfinite ? NAN : fastest;
}
