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
 * terms.  The gas itself (lnTT, the local cs2, the pressure force of
 * terms/pressure.h) is csrc/eos/ideal_gas.h.
 */
#ifndef ASTAROTH_TERMS_ENTROPY_H
#define ASTAROTH_TERMS_ENTROPY_H

#include "term.h"
#include "../eos/ideal_gas.h"

AC_TERM_INLINE unsigned entropy_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ux || row == AC_FIELD_uy || row == AC_FIELD_uz) ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST)
           : row == AC_FIELD_ss ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST | AC_NEEDS_SECOND)
           : (row == AC_FIELD_ax || row == AC_FIELD_ay || row == AC_FIELD_az)
               ? (unsigned)(AC_NEEDS_SECOND | AC_NEEDS_GRAD_DIV) /* J for the Ohmic heating */
               : 0u;
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
    const real lnTT = p->lnTT0 + ideal_gas_log_excess(p, d->value[l], d->value[s]);
    const real TT1 = ac_exp(-lnTT);
    real glnTT[3];
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        glnTT[j] = p->gamma_m1 * d->grad[l][j] + p->cv1 * d->grad[s][j];
    /* advection */
    rhs[s] += -(d->value[u] * d->grad[s][0] + d->value[u + 1] * d->grad[s][1] + d->value[u + 2] * d->grad[s][2]);
    /* viscous heating (and the shock viscosity's), over T */
    real visc_heat = p->table.nu * entropy_two_strain_squared(d, u);
    if (with_shock) {
        const real div_u = ac_divergence_of(d, u);
        visc_heat += shock->zeta * div_u * div_u;
    }
    rhs[s] += TT1 * visc_heat;
    /* conduction, chi-const */
    if (p->table.chi != 0) {
        const real del2lnTT = p->gamma_m1 * d->lap[l] + p->cv1 * d->lap[s];
        real g2 = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j)
            g2 += (d->grad[l][j] + glnTT[j]) * glnTT[j];
        rhs[s] += p->table.chi * p->table.cp * (del2lnTT + g2);
    }
    if (with_hyper3 && p->table.chi_hyper3 != 0)
        rhs[s] += p->table.chi_hyper3 * d->del6[s];
    /* Ohmic heating */
    if (modules & AC_MODULE_MAGNETIC) {
        const int a = ac_field_index(modules, AC_FIELD_ax), va = ac_vector_index(modules, AC_FIELD_ax);
        real j2 = 0;
        AC_UNROLL
        for (int i = 0; i < 3; ++i) {
            const real ji = (d->grad_div[va][i] - d->lap[a + i]) * p->inv_mu0;
            j2 += ji * ji;
        }
        rhs[s] += p->table.eta * p->table.mu0 * j2 * ac_exp(-d->value[l]) * TT1;
    }
}

/* The time step: conduction diffuses lnTT at gamma chi (cp chi lap lnTT
 * with lnTT = ... + (gamma / cp) ss), chi_hyper3 ss at sixth order.  The
 * local sound speed is the equation of state's (terms/pressure.h). */
AC_TERM_NO_SIGNAL(entropy)

AC_INLINE double entropy_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)
{
    (void)max_zeta;
    *parameter = "chi";
    return row == AC_FIELD_ss ? g->chi * g->gamma : 0.0;
}

AC_INLINE double entropy_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)
{
    *parameter = "chi_hyper3";
    return row == AC_FIELD_ss ? g->chi_hyper3 : 0.0;
}

#endif
