/*
 * terms/entropy.h -- the energy equation of an ideal gas in the specific
 * entropy ss (the Pencil Code's `entropy` module with `eos_idealgas`,
 * iheatcond='chi-const'), with cv1 = gamma / cp:
 *
 *   lnTT = lnTT0 + cv1 ss + (gamma - 1)(lnrho - ln rho0),
 *   lnTT0 = ln(cs^2 / (cp (gamma - 1))),  T = exp(lnTT),
 *   cs2 = cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0))   (the local sound speed squared),
 *   grad lnTT = (gamma - 1) grad lnrho + cv1 grad ss,  lap lnTT likewise;
 *
 *   dss/dt = -u.grad ss + (2 nu S:S + zeta (div u)^2) / T
 *            + cp chi (lap lnTT + (grad lnrho + grad lnTT).grad lnTT)
 *            + chi_hyper3 del6 ss + eta mu0 |J|^2 / (rho T)
 *
 * summed in that order (the Pencil Code's: src/entropy.f90 `denergy_dt`,
 * src/viscosity.f90 `calc_viscous_heat`, src/magnetic.f90 `daa_dt`).  S is
 * the traceless rate of strain of viscosity.h; the shock heating joins with
 * shock viscosity, the Ohmic heating with MHD, chi_hyper3 with the hyper3
 * terms.  The pressure force of this gas, -cs2 (grad lnrho + grad lnTT) /
 * gamma, is in pressure.h.
 */
#ifndef ASTAROTH_TERMS_ENTROPY_H
#define ASTAROTH_TERMS_ENTROPY_H

#include "term.h"

AC_TERM_INLINE unsigned entropy_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST)
           : row == AC_FIELD_ss ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ax || row == AC_FIELD_ay || row == AC_FIELD_az)
               ? (unsigned)(AC_NEEDS_SECOND | AC_NEEDS_GRAD_DIV) /* J for the Ohmic heating */
               : 0u;
}

/* cv1 ss + (gamma - 1)(lnrho - ln rho0): lnTT - lnTT0 = ln(cs2 / cs^2). */
AC_INLINE real entropy_log_excess(const ac_physics_params *p, real lnrho, real ss)
{
    return p->cv1 * ss + p->gamma_m1 * (lnrho - p->ln_rho0);
}

/* The local sound speed squared cs2 of the ideal gas. */
AC_INLINE real entropy_cs2(const ac_physics_params *p, real lnrho, real ss)
{
    return p->cs2 * ac_exp(entropy_log_excess(p, lnrho, ss));
}

/* 2 S:S with the traceless S of the velocity gradient at u (its x index). */
AC_INLINE real entropy_two_strain_squared(const ac_point_derivatives *d, int u)
{
    const real div_u = ac_divergence_of(d, u);
    real sum = 0;
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            const real s = (real)0.5 * (d->grad[u + i][j] + d->grad[u + j][i]) - (i == j ? div_u * AC_THIRD : (real)0);
            sum += s * s;
        }
    return (real)2 * sum;
}

/* dss/dt (the module docstring).  shock: zeta here, read with_shock only;
 * with_hyper3: chi_hyper3 del6 ss where chi_hyper3 is not 0. */
AC_INLINE void entropy_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                           const ac_shock_point *shock, int with_shock, int with_hyper3, real rhs[])
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), u = ac_field_index(modules, AC_FIELD_ux);
    const int s = ac_field_index(modules, AC_FIELD_ss);
    const real lnTT = p->lnTT0 + entropy_log_excess(p, d->value[l], d->value[s]);
    const real TT1 = ac_exp(-lnTT);
    real glnTT[3];
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        glnTT[j] = p->gamma_m1 * d->grad[l][j] + p->cv1 * d->grad[s][j];
    /* advection */
    rhs[s] += -(d->value[u] * d->grad[s][0] + d->value[u + 1] * d->grad[s][1] + d->value[u + 2] * d->grad[s][2]);
    /* viscous heating (and the shock viscosity's), over T */
    real visc_heat = p->nu * entropy_two_strain_squared(d, u);
    if (with_shock) {
        const real div_u = ac_divergence_of(d, u);
        visc_heat += shock->zeta * div_u * div_u;
    }
    rhs[s] += TT1 * visc_heat;
    /* conduction, chi-const */
    if (p->chi != 0) {
        const real del2lnTT = p->gamma_m1 * d->lap[l] + p->cv1 * d->lap[s];
        real g2 = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j)
            g2 += (d->grad[l][j] + glnTT[j]) * glnTT[j];
        rhs[s] += p->chi * p->cp * (del2lnTT + g2);
    }
    if (with_hyper3 && p->chi_hyper3 != 0)
        rhs[s] += p->chi_hyper3 * d->del6[s];
    /* Ohmic heating */
    if (modules & AC_MODULE_MAGNETIC) {
        const int a = ac_field_index(modules, AC_FIELD_ax), va = ac_vector_index(modules, AC_FIELD_ax);
        real j2 = 0;
        AC_UNROLL
        for (int i = 0; i < 3; ++i) {
            const real ji = (d->grad_div[va][i] - d->lap[a + i]) * p->inv_mu0;
            j2 += ji * ji;
        }
        rhs[s] += p->eta * p->mu0 * j2 * ac_exp(-d->value[l]) * TT1;
    }
}

/* The fastest signal at a point for the CFL step: |u| + sqrt(cs2 + vA^2),
 * cs2 the local sound speed squared (entropy_cs2 with the entropy module,
 * else cs^2) and vA^2 = |B|^2 / (mu0 rho) (b: NULL without MHD).  In double,
 * as the reductions of the backends compare it. */
AC_INLINE double ac_signal_speed(unsigned modules, const ac_physics_params *p, const real u[3], const real *b,
                                 real lnrho, real ss)
{
    const double u2 = (double)u[0] * u[0] + (double)u[1] * u[1] + (double)u[2] * u[2];
    double c2 = (modules & AC_MODULE_ENTROPY)
                    ? (double)p->cs2 * exp((double)p->cv1 * ss + (double)p->gamma_m1 * ((double)lnrho - (double)p->ln_rho0))
                    : (double)p->cs2;
    if (b)
        c2 += ((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]) * (double)p->inv_mu0 * exp(-(double)lnrho);
    return sqrt(u2) + sqrt(c2);
}

#endif
