/*
 * timeseries_point.h -- what one point adds to a time-series row
 * (timeseries.h), for fields stored as `field_t` (float or double), in
 * double: timeseries_points.h includes it once per storage precision (no
 * include guard), with field_t, AC_FN(name) and `real` double defined.
 */

/* The padded arrays a row reads; NULL where the configuration lacks the field. */
typedef struct {
    const field_t *lnrho, *u[3], *a[3], *ss;
} AC_FN(timeseries_fields);

/* The fields of grid g a row reads, from its padded arrays. */
AC_INLINE AC_FN(timeseries_fields) AC_FN(timeseries_fields_of)(const ac_grid *g, void *const fields[AC_MAX_FIELDS])
{
    AC_FN(timeseries_fields) f = {NULL, {NULL, NULL, NULL}, {NULL, NULL, NULL}, NULL};
    f.lnrho = (const field_t *)fields[ac_field_index(g->modules, AC_FIELD_lnrho)];
    for (int i = 0; i < 3; ++i) {
        f.u[i] = (const field_t *)fields[ac_field_index(g->modules, AC_FIELD_ux + i)];
        if (g->modules & AC_MODULE_MAGNETIC)
            f.a[i] = (const field_t *)fields[ac_field_index(g->modules, AC_FIELD_ax + i)];
    }
    if (g->modules & AC_MODULE_ENTROPY)
        f.ss = (const field_t *)fields[ac_field_index(g->modules, AC_FIELD_ss)];
    return f;
}

/* f's value at idx + offset, in double. */
#define AC_TS_AT(f, offset) ((double)AC_LOAD((f) + idx + (offset)))

/* Eq. (6) at idx along stride s. */
AC_INLINE double AC_FN(ts_first)(const field_t *f, ptrdiff_t idx, ptrdiff_t s, double scale)
{
    return first_from_differences(AC_TS_AT(f, s) - AC_TS_AT(f, -s), AC_TS_AT(f, 2 * s) - AC_TS_AT(f, -2 * s),
                                  AC_TS_AT(f, 3 * s) - AC_TS_AT(f, -3 * s), scale);
}

/* d f / dx_a at interior point ijk: eq. (6), or on a wall axis within three
 * points of a wall the one-sided stencil of ac_ts_one_sided_weights (the
 * upper wall's mirrored, its sign flipped).  walls: 0 where no axis has
 * walls, so that a caller compiling that case as a constant drops the
 * branch (on the GPU its weights' dynamic indexing takes a stack frame). */
AC_INLINE double AC_FN(ts_first_at)(const field_t *f, ptrdiff_t idx, const ptrdiff_t st[3], int a, const int ijk[3],
                                   const ac_timeseries_constants *c, int walls)
{
    if (walls && c->wall_axis[a]) {
        const int lower = ijk[a], upper = c->n[a] - 1 - ijk[a];
        if (lower < 3 || upper < 3) {
            const int k = lower < 3 ? lower : upper;
            const ptrdiff_t step = lower < 3 ? st[a] : -st[a];
            double sum = 0.0;
            for (int j = 0; j < 7; ++j)
                sum += c->one_sided[a][k][j] * AC_TS_AT(f, (j - k) * step);
            return lower < 3 ? sum : -sum;
        }
    }
    return AC_FN(ts_first)(f, idx, st[a], c->first[a]);
}

/* Eq. (7). */
AC_INLINE double AC_FN(ts_second)(const field_t *f, ptrdiff_t idx, ptrdiff_t s, double scale)
{
    return second_from_sums(AC_TS_AT(f, 0), AC_TS_AT(f, s) + AC_TS_AT(f, -s), AC_TS_AT(f, 2 * s) + AC_TS_AT(f, -2 * s),
                            AC_TS_AT(f, 3 * s) + AC_TS_AT(f, -3 * s), scale);
}

/* Eq. (8), along strides sa and sb. */
AC_INLINE double AC_FN(ts_mixed)(const field_t *f, ptrdiff_t idx, ptrdiff_t sa, ptrdiff_t sb, double scale)
{
    const ptrdiff_t p = sa + sb, m = sa - sb;
    return mixed_from_diagonals(AC_TS_AT(f, p) - AC_TS_AT(f, -m) + AC_TS_AT(f, -p) - AC_TS_AT(f, m),
                                AC_TS_AT(f, 2 * p) - AC_TS_AT(f, -2 * m) + AC_TS_AT(f, -2 * p) - AC_TS_AT(f, 2 * m),
                                AC_TS_AT(f, 3 * p) - AC_TS_AT(f, -3 * m) + AC_TS_AT(f, -3 * p) - AC_TS_AT(f, 3 * m),
                                scale);
}

/* v (a row's values, ac_ts_start) with interior point ijk (padded index idx)
 * added: sums of the means' summands, extrema (minima negated); modules:
 * the grid's (c->modules), and walls: 0 where no axis has walls, else 1;
 * each a constant where the caller compiles one instance a case. */
AC_INLINE void AC_FN(timeseries_point)(unsigned modules, int walls, const AC_FN(timeseries_fields) *f,
                                      const int ijk[3], ptrdiff_t idx, const ptrdiff_t st[3],
                                      const ac_timeseries_constants *c, double v[AC_TS_VALUES])
{
    const double lnrho = AC_TS_AT(f->lnrho, 0), rho = exp(lnrho), weight = walls ? ac_ts_weight(c, ijk) : 1.0;
    double u[3], grad_u[3][3], w[3];
    for (int i = 0; i < 3; ++i) {
        u[i] = AC_TS_AT(f->u[i], 0);
        for (int j = 0; j < 3; ++j)
            grad_u[i][j] = AC_FN(ts_first_at)(f->u[i], idx, st, j, ijk, c, walls);
    }
    ac_ts_curl(grad_u, w);
    const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], w2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    const double divu = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];
    v[AC_TS_u2] += u2;
    v[AC_TS_ekin] += 0.5 * rho * u2;
    v[AC_TS_rho] += rho;
    v[AC_TS_divu2] += divu * divu;
    v[AC_TS_w2] += w2;
    v[AC_TS_wu] += w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
    v[AC_TS_w] += weight;
    v[AC_TS_ekin_vol] += 0.5 * rho * u2 * weight;
    v[AC_TS_epot_vol] += rho * ac_ts_potential(c, ijk) * weight;
    for (int i = 0; i < 3; ++i) {
        v[AC_TS_ux + i] += u[i];
        v[AC_TS_ux2 + i] += u[i] * u[i];
    }
    v[AC_TS_u2_max] = ac_ts_max(v[AC_TS_u2_max], u2);
    v[AC_TS_w2_max] = ac_ts_max(v[AC_TS_w2_max], w2);
    v[AC_TS_lnrho_max] = ac_ts_max(v[AC_TS_lnrho_max], lnrho);
    v[AC_TS_lnrho_min] = ac_ts_max(v[AC_TS_lnrho_min], -lnrho);
    if (modules & AC_MODULE_MAGNETIC) {
        double a[3], grad_a[3][3], curl_a[3], j[3];
        for (int i = 0; i < 3; ++i) {
            a[i] = AC_TS_AT(f->a[i], 0);
            for (int k = 0; k < 3; ++k)
                grad_a[i][k] = AC_FN(ts_first_at)(f->a[i], idx, st, k, ijk, c, walls);
        }
        ac_ts_curl(grad_a, curl_a);
        for (int i = 0; i < 3; ++i) { /* J_i = (d_i div A - lap A_i) / mu0 (terms/magnetic.h) */
            double grad_div = 0.0, lap = 0.0;
            for (int k = 0; k < 3; ++k) {
                grad_div += k == i ? AC_FN(ts_second)(f->a[i], idx, st[i], c->second[i])
                                   : AC_FN(ts_mixed)(f->a[k], idx, st[i], st[k], c->mixed[i][k]);
                lap += AC_FN(ts_second)(f->a[i], idx, st[k], c->second[k]);
            }
            j[i] = (grad_div - lap) * c->inv_mu0;
        }
        double b2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            const double b = curl_a[i] + c->b_ext[i];
            b2 += b * b;
            v[AC_TS_bx + i] += b;
            v[AC_TS_bx2 + i] += b * b;
        }
        const double j2 = j[0] * j[0] + j[1] * j[1] + j[2] * j[2];
        v[AC_TS_b2] += b2;
        v[AC_TS_b2_vol] += b2 * weight;
        v[AC_TS_j2] += j2;
        v[AC_TS_ab] += a[0] * curl_a[0] + a[1] * curl_a[1] + a[2] * curl_a[2];
        v[AC_TS_b2_max] = ac_ts_max(v[AC_TS_b2_max], b2);
        v[AC_TS_j2_max] = ac_ts_max(v[AC_TS_j2_max], j2);
    }
    if (modules & AC_MODULE_ENTROPY) {
        const double ss = AC_TS_AT(f->ss, 0);
        const double T = exp(eos_log_temperature(modules, &c->p, lnrho, ss));
        v[AC_TS_TT] += T;
        v[AC_TS_ss] += ss;
        v[AC_TS_eth] += rho * c->cv * T;
        v[AC_TS_eth_vol] += rho * c->cv * T * weight;
        v[AC_TS_TT_max] = ac_ts_max(v[AC_TS_TT_max], T);
        v[AC_TS_TT_min] = ac_ts_max(v[AC_TS_TT_min], -T);
        v[AC_TS_ss_max] = ac_ts_max(v[AC_TS_ss_max], ss);
        v[AC_TS_ss_min] = ac_ts_max(v[AC_TS_ss_min], -ss);
    }
}

#undef AC_TS_AT
