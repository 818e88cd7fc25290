/*
 * point_impl.h -- the CPU's point-wise helpers of the extended physics, for
 * one precision; included by kernels_impl.h: the shock viscosity's profile
 * (docs/guide/hyperdiffusion.md; the fastest signal speed of the CFL step is
 * signal_impl.h's).  The substeps themselves run on the row loop of
 * rows_impl.h.  Ghost zones are filled by the caller.
 */

/* One pass of the shock profile over the interior: to[idx] from the
 * padded array `from` (ghost zones filled): the compression (axis -1,
 * `from` unused: the velocity in `in`), the 3x3x3 maximum (axis 3) or the
 * smoothing along `axis`; then to's ghost zones. */
static void AC_FN(shock_pass)(const ac_grid *g, real *const *in, const real *from, real *to, int axis)
{
    const ac_geometry geo = make_geometry(g);
    const real *const u[3] = {in[1], in[2], in[3]};
    ptrdiff_t stride[3];
    ac_grid_strides(g, stride);
    const int nx = g->n[0];
/* the pass of one axis (a constant, so that the x loop vectorises) over a row */
#define AC_SHOCK_ROW(a)                                                                                                \
    AC_VECTOR_LOOP                                                                                                     \
    for (int i = 0; i < nx; ++i)                                                                                       \
        to[row + i] = shock_pass_point(u, from, row + i, stride, geo.inv_ds, (a));
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
    AC_FN(fill_ghosts_bc)(g, to, 0); /* periodic, or a shearing box's shifted x images (walls refuse the profile) */
}

/* Pass `pass` (0 to AC_SHOCK_PASSES - 1) of the shock viscosity zeta =
 * nu_shock dxmin^2 S[M3[max(-div u, 0)]] of the fields `in` (ghost zones
 * filled): the compression into scratch, its 3x3x3 maximum into zeta, the
 * smoothing along x, y and z (scratch, zeta, scratch), each with the ghost
 * zones of what it wrote filled as periodic images (a shearing box's x
 * images shifted as its fields', terms/shear.h); the last scales scratch
 * into zeta, ghost zones too.  Returns what the pass wrote for a grid split
 * over MPI ranks to exchange before the next (astaroth/parallel.py): 0
 * zeta, 1 scratch, -1 nothing (the last). */
int AC_FN(shock_profile_pass)(const ac_grid *g, void *const in_[AC_MAX_FIELDS], void *zeta_, void *scratch_,
                              int pass)
{
    real *const *in = (real *const *)in_;
    real *zeta = (real *)zeta_, *scratch = (real *)scratch_;
    if (pass < AC_SHOCK_PASSES - 1) {
        real *from = pass % 2 ? scratch : zeta, *to = pass % 2 ? zeta : scratch;
        AC_FN(shock_pass)(g, in, pass == 0 ? NULL : from, to, shock_pass_axis(pass));
        return to == zeta ? 0 : 1;
    }
    const real scale = make_physics_params(g).shock_scale;
    const size_t count = ac_grid_padded_count(g);
    for (size_t n = 0; n < count; ++n) /* ghost zones too: they hold the periodic images */
        zeta[n] = scale * scratch[n];
    return -1;
}

/* The whole profile of the fields `in` (ghost zones filled) into zeta, ghost
 * zones filled; scratch is a second padded array. */
void AC_FN(shock_profile)(const ac_grid *g, void *const in_[AC_MAX_FIELDS], void *zeta_, void *scratch_)
{
    for (int pass = 0; pass < AC_SHOCK_PASSES; ++pass)
        AC_FN(shock_profile_pass)(g, in_, zeta_, scratch_, pass);
}

