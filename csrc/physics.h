/*
 * physics.h -- the right-hand side of astaroth at one point, summed from its
 * terms, and the 2N-storage RK3 update; `static inline`, C99 and CUDA device
 * code.  Equation numbers refer to Pekkila et al. (2017) (the method of
 * Astaroth); the fields are those of csrc/fields.h.
 *
 * Layers: stencils.h (the finite differences) -> csrc/terms/<term>.h (one
 * term each: continuity, advection, pressure, viscosity, magnetic, hyper3,
 * shock, entropy; each declares the derivatives it needs and adds its
 * contribution)
 * -> this file, which sums the terms of a configuration.  Forcing is applied
 * between steps (csrc/forcing.h).
 *
 * How a kernel calls it (the includer defines `real` first):
 *
 *   const unsigned modules = AC_MODULE_HYDRO | AC_MODULE_MAGNETIC; // a constant
 *   const unsigned terms = ac_terms_of(modules, hyper, shock);      // a constant
 *   const ac_physics_params p = make_physics_params(grid);          // once, on the host
 *   ...for each point:
 *   ac_point_derivatives d;  // fill, for every field row r whose module is
 *       // on, the kinds physics_needs(modules, terms, r) asks for, at
 *       // d.value[f], d.grad[f][j], d.lap[f], d.del6[f], d.exp_minus[f] with
 *       // f = ac_field_index(modules, r), and a vector's grad div at
 *       // d.grad_div[ac_vector_index(modules, r)][i] (r its x component)
 *   ac_shock_point s;        // with AC_TERM_SHOCK: zeta and grad zeta here
 *   real rhs[AC_FIELD_ROWS];
 *   physics_rhs(modules, terms, &d, &p, &s, rhs);
 *   for f < ac_field_count(modules): out[f] = rk3_substep(in[f], rhs[f], &w[f], substep, dt);
 *
 * With modules and terms compile-time constants, the unused entries of d
 * and the absent terms vanish after inlining.  The terms are summed in a
 * fixed order (physics_rhs), which fixes the rounding: continuity; then the
 * momentum equation (advection, pressure, viscosity), the Lorentz force and
 * the induction equation; then hyperdiffusion; then shock viscosity.  With
 * the entropy module the Pencil Code's order instead (u: advection, viscous
 * force with shock viscosity and hyper3, pressure, Lorentz force; ss last,
 * terms/entropy.h).  The sources without derivatives (physics_sources:
 * gravity) a kernel adds right after physics_rhs: after the Lorentz force
 * where the loop sums in that order, as the Pencil Code adds gravity.
 */
#ifndef ASTAROTH_PHYSICS_H
#define ASTAROTH_PHYSICS_H

#include <math.h>
#include <stddef.h>

#ifndef real
#error "define `real` (float or double) before including physics.h"
#endif

#include "stencils.h"
#include "terms/term.h"
#include "terms/continuity.h"
#include "terms/advection.h"
#include "terms/pressure.h"
#include "terms/viscosity.h"
#include "terms/magnetic.h"
#include "terms/hyper3.h"
#include "terms/shock.h"
#include "terms/entropy.h"
#include "terms/passive_scalar.h"
#include "terms/gravity.h"
#include "terms/coriolis.h"
#include "terms/shear.h"

/* Williamson (1980) 2N-storage RK3 coefficients, eq. (10). */
AC_INLINE real rk3_alpha(int substep)
{
    return substep == 0 ? (real)0.0 : substep == 1 ? (real)(-5.0 / 9.0) : (real)(-153.0 / 128.0);
}

AC_INLINE real rk3_beta(int substep)
{
    return substep == 0 ? (real)(1.0 / 3.0) : substep == 1 ? (real)(15.0 / 16.0) : (real)(8.0 / 15.0);
}

/* The modules a grid runs (csrc/fields.h). */
AC_INLINE unsigned ac_grid_modules(const ac_grid *g)
{
    return g->modules;
}

/* The terms that parameters switch (parameters.def's rows flagged
 * AC_PARAMETER_TERM_SWITCH name them): each runs only where one of its
 * switching parameters is not 0.  A row naming no term of terms.def does
 * not compile. */
#define AC_SWITCHED_TERM(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,   \
                         description)                                                                                  \
    (((flags) & AC_PARAMETER_TERM_SWITCH) ? (unsigned)AC_TERM_BIT_##term : 0u) |
enum {
    AC_SWITCHED_TERMS =
#define AC_PARAMETER AC_SWITCHED_TERM
#include "parameters.def"
#undef AC_PARAMETER
    0u
};
#undef AC_SWITCHED_TERM

/* The terms of the modules `modules` (terms.def), switched or not. */
AC_TERM_INLINE unsigned ac_terms_of_modules(unsigned modules)
{
    return
#define AC_TERM(name, NAME, module, description) ((modules & (unsigned)(module)) ? (unsigned)AC_TERM_##NAME : 0u) |
#include "terms/terms.def"
#undef AC_TERM
        0u;
}

/* ... those that no parameter switches. */
AC_TERM_INLINE unsigned ac_module_terms(unsigned modules)
{
    return ac_terms_of_modules(modules) & ~(unsigned)AC_SWITCHED_TERMS;
}

/* The terms a compiled configuration runs: those of its modules, plus
 * hyperdiffusion and shock viscosity where asked for (the kernels' own
 * instances; gravity, a source without derivatives, is added apart). */
AC_TERM_INLINE unsigned ac_terms_of(unsigned modules, int hyper3, int shock)
{
    return ac_module_terms(modules) | (hyper3 ? (unsigned)AC_TERM_HYPER3 : 0u) | (shock ? (unsigned)AC_TERM_SHOCK : 0u);
}

#define AC_NONZERO_REAL(v) ((v) != 0.0)
#define AC_NONZERO_VECTOR(v) ((v)[0] != 0.0 || (v)[1] != 0.0 || (v)[2] != 0.0)

/* The terms a grid runs: those of its modules, and each switched term where
 * one of its parameters is not 0 (a parameter of a module that is off keeps
 * its default, 0 for every switch). */
AC_INLINE unsigned ac_grid_terms(const ac_grid *g)
{
    unsigned switched_on = 0u;
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    if (((flags) & AC_PARAMETER_TERM_SWITCH) && AC_NONZERO_##kind(g->name))                                            \
        switched_on |= (unsigned)AC_TERM_BIT_##term;
#include "parameters.def"
#undef AC_PARAMETER
    return ac_terms_of_modules(g->modules) & (~(unsigned)AC_SWITCHED_TERMS | switched_on);
}
#undef AC_NONZERO_REAL
#undef AC_NONZERO_VECTOR

/* The derivatives (AC_NEEDS_* bits) that the terms of a configuration read
 * of field row r; 0 when its module is off. */
AC_TERM_INLINE unsigned physics_needs(unsigned modules, unsigned terms, int r)
{
    return !(modules & ac_field_module(r)) ? 0u :
#define AC_TERM(name, NAME, module, description) ((terms & AC_TERM_##NAME) ? name##_needs(r) : 0u) |
#include "terms/terms.def"
#undef AC_TERM
                                           0u;
}

/* Every parameter of the grid's table (csrc/parameters.def) in the working precision. */
#define AC_TABLE_COPY_REAL(name) t.name = (real)g->name;
#define AC_TABLE_COPY_VECTOR(name)                                                                                     \
    for (int a = 0; a < 3; ++a)                                                                                        \
        t.name[a] = (real)g->name[a];
AC_INLINE ac_table_params make_table_params(const ac_grid *g)
{
    ac_table_params t;
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    AC_TABLE_COPY_##kind(name)
#include "parameters.def"
#undef AC_PARAMETER
    return t;
}
#undef AC_TABLE_COPY_REAL
#undef AC_TABLE_COPY_VECTOR

/* The parameters every loop and kernel takes (terms/term.h), made once on
 * the host: the table, and each derived coefficient computed in double and
 * rounded once to the working precision (cs2 is (real)(cs * cs), not the
 * square of (real)cs). */
AC_INLINE ac_physics_params make_physics_params(const ac_grid *g)
{
    ac_physics_params p;
    p.table = make_table_params(g);
    p.cs2 = (real)(g->cs * g->cs);
    p.inv_mu0 = (real)(1.0 / g->mu0);
    ideal_gas_params(g->gamma, g->cp, g->rho0, g->cs, &p);
    p.shock_scale = (real)shock_profile_scale(g);
    return p;
}

/* The grid's spacing as the stencils take it (terms/term.h). */
AC_INLINE ac_geometry make_geometry(const ac_grid *g)
{
    ac_geometry geo;
    for (int a = 0; a < 3; ++a)
        geo.inv_ds[a] = (real)(1.0 / g->spacing[a]);
    return geo;
}

/* The right-hand sides of the fields of configuration `modules` (rhs[f],
 * f < ac_field_count(modules)) at one point: the sum of `terms`, in this
 * order.  Each starts at -0, the exact additive identity (-0 + x == x for
 * every x, and compilers fold it), so that the first term's contribution
 * is the right-hand side bit for bit.  shock: read only with AC_TERM_SHOCK. */
AC_INLINE void physics_rhs(unsigned modules, unsigned terms, const ac_point_derivatives *d,
                           const ac_physics_params *p, const ac_shock_point *shock, real rhs[])
{
    const int fields = ac_field_count(modules);
    AC_UNROLL
    for (int f = 0; f < fields; ++f)
        rhs[f] = (real)-0.0;
    if (terms & AC_TERM_PASSIVE_SCALAR) /* dcc/dt alone: no other term's sum depends on where it goes */
        passive_scalar_add(modules, d, p, rhs);
    if (modules & AC_MODULE_ENTROPY) {
        /* the Pencil Code's order (terms/entropy.h): u: advection, viscous force (nu, shock,
         * hyper3), pressure, Lorentz; ss last */
        if (terms & AC_TERM_CONTINUITY)
            continuity_add(modules, d, p, rhs);
        if (terms & AC_TERM_ADVECTION)
            advection_add(modules, d, p, rhs);
        if (terms & AC_TERM_VISCOSITY)
            viscosity_add(modules, d, p, rhs);
        if (terms & AC_TERM_SHOCK)
            shock_add(modules, d, shock, rhs);
        if (terms & AC_TERM_HYPER3)
            hyper3_add(modules, d, p, rhs);
        if (terms & AC_TERM_PRESSURE)
            pressure_add(modules, d, p, rhs);
        if ((terms & AC_TERM_MAGNETIC) && (modules & AC_MODULE_MAGNETIC))
            magnetic_add(modules, d, p, rhs);
        if (terms & AC_TERM_ENTROPY)
            entropy_add(modules, d, p, shock, (terms & AC_TERM_SHOCK) != 0, (terms & AC_TERM_HYPER3) != 0, rhs);
        return;
    }
    if (terms & AC_TERM_CONTINUITY)
        continuity_add(modules, d, p, rhs);
    /* The momentum equation's first terms component by component (each
     * component's sum in the order above): the order the GPU compiler
     * schedules best (benchmarks/results/2026-11-24-h100-525a57b). */
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        if (terms & AC_TERM_ADVECTION)
            advection_add_component(modules, d, i, rhs);
        if (terms & AC_TERM_PRESSURE)
            pressure_add_component(modules, d, p, i, rhs);
        if (terms & AC_TERM_VISCOSITY)
            viscosity_add_component(modules, d, p, i, rhs);
    }
    if ((terms & AC_TERM_MAGNETIC) && (modules & AC_MODULE_MAGNETIC))
        magnetic_add(modules, d, p, rhs);
    if (terms & AC_TERM_HYPER3)
        hyper3_add(modules, d, p, rhs);
    if (terms & AC_TERM_SHOCK)
        shock_add(modules, d, shock, rhs);
}

/* The terms without derivatives (gravity.h, coriolis.h) of `terms`, added
 * to rhs right after physics_rhs (the hydro and MHD point loop adds
 * hyperdiffusion and shock viscosity after them): du/dt += g and the
 * Coriolis force after the Lorentz force, as the Pencil Code adds gravity.
 * Kept out of physics_rhs so that GCC's code for the configurations
 * without them (and the stored runs of tests/data/bitwise_cpu.npz) stays as
 * it was. */
AC_INLINE void physics_sources(unsigned modules, unsigned terms, const ac_point_derivatives *d,
                               const ac_physics_params *p, real rhs[])
{
    if (terms & AC_TERM_GRAVITY)
        gravity_add(modules, p->table.gravity, rhs);
    if (terms & AC_TERM_CORIOLIS)
        coriolis_add(modules, p->table.omega, d, rhs);
}

/* The four fields at one point: pointers to lnrho, ux, uy, uz there. */
typedef struct {
    const real *lnrho;
    const real *u[3];
} ac_point_fields;

/* Everything the right-hand side needs at one point. */
typedef struct {
    real u[3];
    real grad_lnrho[3];
    real grad_u[3][3]; /* grad_u[i][j] = d_j u_i */
    real lap_u[3];
    real grad_div_u[3]; /* d_i (div u): 55-point or 19-point form, or 0 in the 19-point first pass */
} ac_derivatives;

/* All of ac_derivatives but grad_div_u at one point: the 19-point stencil. */
AC_INLINE void axis_derivatives(ac_point_fields f, const ptrdiff_t stride[3], const ac_geometry *geo,
                                ac_derivatives *d)
{
    AC_UNROLL
    for (int j = 0; j < 3; ++j)
        d->grad_lnrho[j] = first_derivative(f.lnrho, stride[j], geo->inv_ds[j]);
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        d->u[i] = AC_LOAD(f.u[i]);
        d->lap_u[i] = 0;
        AC_UNROLL
        for (int j = 0; j < 3; ++j) {
            d->grad_u[i][j] = first_derivative(f.u[i], stride[j], geo->inv_ds[j]);
            d->lap_u[i] += second_derivative(f.u[i], stride[j], geo->inv_ds[j]);
        }
    }
}

/* One off-diagonal term of d_i (div u) = sum_j d_i d_j u_j: the mixed
 * derivative d_i d_j u_j (j != i) of eq. (8); u_j points at the point. */
AC_INLINE real grad_div_mixed_term(const real *u_j, const ptrdiff_t stride[3], const ac_geometry *geo, int i, int j)
{
    return mixed_derivative(u_j, stride[i], stride[j], geo->inv_ds[i], geo->inv_ds[j]);
}

/* d_i (div u) as the first derivative of a stored div u field: the 19-point
 * method's second pass (seed Appendix A, eqs. 17-18). */
AC_INLINE real grad_div_19p(const real *div_u, const ptrdiff_t stride[3], const ac_geometry *geo, int i)
{
    return first_derivative(div_u, stride[i], geo->inv_ds[i]);
}

/* ---- Transitional: the interface of the kernels before csrc/terms ------
 * Thin wrappers over the terms, kept until every kernel fills an
 * ac_point_derivatives and calls physics_rhs; each does exactly what
 * physics_rhs does for its configuration. */

AC_INLINE real divergence(const ac_derivatives *d)
{
    return d->grad_u[0][0] + d->grad_u[1][1] + d->grad_u[2][2];
}

/* The hydrodynamic entries of ac_point_derivatives from ac_derivatives
 * (lnrho, u at their indices in any configuration: 0 and 1..3). */
AC_INLINE void ac_point_derivatives_of_flow(const ac_derivatives *h, ac_point_derivatives *d)
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i) {
        d->grad[0][i] = h->grad_lnrho[i];
        d->value[1 + i] = h->u[i];
        d->lap[1 + i] = h->lap_u[i];
        d->grad_div[0][i] = h->grad_div_u[i];
        AC_UNROLL
        for (int j = 0; j < 3; ++j)
            d->grad[1 + i][j] = h->grad_u[i][j];
    }
}

/* Right-hand sides of eqs. (1) and (2) (no forcing): d lnrho/dt to rhs[0],
 * du_i/dt to rhs[1 + i].  Transitional: physics_rhs of plain hydro. */
AC_INLINE void rhs_from_derivatives(const ac_derivatives *d, const ac_physics_params *p, real rhs[4])
{
    ac_point_derivatives pd;
    ac_point_derivatives_of_flow(d, &pd);
    physics_rhs(AC_MODULE_HYDRO, ac_terms_of(AC_MODULE_HYDRO, 0, 0), &pd, p, NULL, rhs);
}

/* 2N-storage RK3 substep, eq. (10), for one value:
 * w <- alpha w + dt rhs (w is not read in the first substep, alpha = 0),
 * returns the new field value u + beta w. */
AC_INLINE real rk3_substep(real u, real rhs, real *w, int substep, real dt)
{
    real w_new = dt * rhs;
    if (substep > 0)
        w_new += rk3_alpha(substep) * *w;
    *w = w_new;
    return u + rk3_beta(substep) * w_new;
}

/* The 19-point method's second pass, eqs. (17)-(18): adds dt nu/3 grad div u
 * to w and beta times that to the field already written by the first pass. */
AC_INLINE void rk3_add_grad_div(real *u_out, real *w, real grad_div, int substep, real dt, real nu)
{
    const real increment = dt * nu * AC_THIRD * grad_div;
    *w += increment;
    *u_out += rk3_beta(substep) * increment;
}

#include "timestep.h" /* the CFL step from what the terms declare */

#endif /* ASTAROTH_PHYSICS_H */
