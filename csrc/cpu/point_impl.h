/*
 * point_impl.h -- the CPU loops of the extended physics, for one precision;
 * included by kernels_impl.h: magnetohydrodynamics (DESIGN 7),
 * hyperdiffusion and shock viscosity (DESIGN 9).  Point by point, through physics.h's pointer
 * stencils (vector_derivatives gives A the same first, second and mixed
 * stencils as u); plain hydrodynamics keeps its tuned loops.  Ghost zones
 * are filled by the caller.
 */

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
 * finite); A's ghost zones filled. */
double AC_FN(max_signal_speed_mhd)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS])
{
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
