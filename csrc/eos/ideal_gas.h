/*
 * eos/ideal_gas.h -- the ideal gas in lnrho and the specific entropy ss
 * (the Pencil Code's src/eos_idealgas.f90), with cv1 = gamma / cp:
 *
 *   lnTT = lnTT0 + cv1 ss + (gamma - 1)(lnrho - ln rho0),
 *   lnTT0 = ln(cs^2 / (cp (gamma - 1))),  T = exp(lnTT),
 *   cs2 = cs^2 exp(cv1 ss + (gamma - 1)(lnrho - ln rho0))   (the local sound speed squared),
 *   grad lnTT = (gamma - 1) grad lnrho + cv1 grad ss,
 *   -grad p / rho = -cs2 (grad lnrho + grad lnTT) / gamma
 *
 * (src/entropy.f90 `fpres`).  Chosen with the entropy module (eos/eos.h);
 * terms/entropy.h evolves ss with this gas's temperature.
 */
#ifndef ASTAROTH_EOS_IDEAL_GAS_H
#define ASTAROTH_EOS_IDEAL_GAS_H

#include <math.h>

#include "../terms/term.h"

/* The gas's constants in the working precision, from the grid's parameters
 * (cs is the sound speed at rho0 and ss = 0, the Pencil Code's cs0). */
AC_INLINE void ideal_gas_params(double gamma, double cp, double rho0, double cs, ac_physics_params *p)
{
    p->gamma_m1 = (real)(gamma - 1.0);
    p->inv_gamma = (real)(1.0 / gamma);
    p->cv1 = (real)(gamma / cp);
    p->ln_rho0 = (real)log(rho0);
    p->lnTT0 = (real)log(cs * cs / (cp * (gamma - 1.0)));
}

/* The fields the pressure force reads: lnrho's gradient, ss and its gradient. */
AC_TERM_INLINE unsigned ideal_gas_needs(int row)
{
    return row == AC_FIELD_lnrho ? (unsigned)AC_NEEDS_FIRST
           : row == AC_FIELD_ss  ? (unsigned)(AC_NEEDS_VALUE | AC_NEEDS_FIRST)
                                 : 0u;
}

/* cv1 ss + (gamma - 1)(lnrho - ln rho0): lnTT - lnTT0 = ln(cs2 / cs^2). */
AC_INLINE real ideal_gas_log_excess(const ac_physics_params *p, real lnrho, real ss)
{
    return p->cv1 * ss + p->gamma_m1 * (lnrho - p->ln_rho0);
}

/* The local sound speed squared. */
AC_INLINE real ideal_gas_cs2(const ac_physics_params *p, real lnrho, real ss)
{
    return p->cs2 * ac_exp(ideal_gas_log_excess(p, lnrho, ss));
}

/* -grad p / rho, component i. */
AC_INLINE real ideal_gas_pressure_force(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                        int i)
{
    const int l = ac_field_index(modules, AC_FIELD_lnrho), s = ac_field_index(modules, AC_FIELD_ss);
    const real cs2 = ideal_gas_cs2(p, d->value[l], d->value[s]);
    const real glnTT = p->gamma_m1 * d->grad[l][i] + p->cv1 * d->grad[s][i];
    return -cs2 * (d->grad[l][i] + glnTT) * p->inv_gamma;
}

/* What the sound speed reads: lnrho and ss at the point. */
AC_TERM_INLINE unsigned ideal_gas_signal_needs(unsigned modules, int row)
{
    return (void)modules, row == AC_FIELD_lnrho || row == AC_FIELD_ss ? (unsigned)AC_NEEDS_VALUE : 0u;
}

/* The local sound speed squared in double, for the CFL step. */
AC_INLINE double ideal_gas_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    const double lnrho = (double)d->value[ac_field_index(modules, AC_FIELD_lnrho)];
    const double ss = (double)d->value[ac_field_index(modules, AC_FIELD_ss)];
    return (double)p->cs2 * ac_exp_double((double)p->cv1 * ss + (double)p->gamma_m1 * (lnrho - (double)p->ln_rho0));
}

#endif
