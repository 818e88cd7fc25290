/*
 * point_impl.h -- the CPU's point-wise helpers of the extended physics, for
 * one precision; included by kernels_impl.h: the shock viscosity's profile
 * (docs/guide/hyperdiffusion.md) and the fastest signal speed with MHD or
 * the entropy module (docs/guide/mhd.md).  The substeps themselves run on
 * the row loop of rows_impl.h.  Ghost zones are filled by the caller.
 */

double AC_FN(max_signal_speed_generic)(const ac_grid *g, void *const fields_[AC_MAX_FIELDS]);

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
    const int nx = g->n[0];
/* the pass of one axis (a constant, so that the x loop vectorises) over a row */
#define AC_SHOCK_ROW(a)                                                                                                \
    AC_VECTOR_LOOP                                                                                                     \
    for (int i = 0; i < nx; ++i)                                                                                       \
        to[row + i] = shock_pass_point(u, from, row + i, stride, p.inv_ds, (a));
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j) {
            const ptrdiff_t row = (ptrdiff_t)ac_grid_index(g, 0, j, k);
            switch (axis) {
            case -1: AC_SHOCK_ROW(-1) break;
            case 0: AC_SHOCK_ROW(0) break;
            case 1: AC_SHOCK_ROW(1) break;
            case 2: AC_SHOCK_ROW(2) break;
            default: AC_SHOCK_ROW(3) break;
            }
        }
#undef AC_SHOCK_ROW
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
