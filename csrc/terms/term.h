/*
 * terms/term.h -- what every term of the right-hand side sees: the
 * derivatives at one point (generic over the field list of csrc/fields.h),
 * the physical parameters, and the kinds of derivative a term may ask for.
 *
 * A term lives in one header of csrc/terms/ and provides
 *   AC_TERM_INLINE unsigned <term>_needs(int row)
 *       the derivatives (AC_NEEDS_* bits) it reads of field `row` (a row of
 *       csrc/fields.h: AC_FIELD_lnrho, ...), 0 for a field it does not read;
 *       a constant expression, so that kernels can build their schedule
 *       from it at compile time;
 *   AC_INLINE void <term>_add(unsigned modules, const ac_point_derivatives *d,
 *                             const ac_physics_params *p, ..., real rhs[])
 *       adds its contribution to the right-hand sides rhs[], which are
 *       indexed like the fields of the configuration `modules`;
 *   and a term of the momentum equation that physics.h sums component by
 *   component (advection, pressure, viscosity) also
 *   AC_INLINE void <term>_add_component(..., int i, real rhs[])
 *       its contribution to component i of u alone (<term>_add loops it).
 * and its part of the time step (csrc/timestep.h sums them):
 *   AC_TERM_INLINE unsigned <term>_signal_needs(unsigned modules, int row)
 *       what its signal speed reads of field `row` (values and gradients);
 *   AC_INLINE double <term>_flow_speed(modules, d, p), <term>_wave_speed2(...)
 *       a speed that carries signals (|u|) and a wave speed squared (cs2,
 *       vA^2): the signal speed at a point is the flow speeds' sum plus the
 *       square root of the wave speeds' sum;
 *   AC_INLINE double <term>_diffusivity(g, row, max_zeta, &parameter),
 *                    <term>_hyper_diffusivity(g, row, &parameter)
 *       the second- and sixth-order diffusivities it gives field `row`,
 *       and the name of the parameter that sets them (for messages).
 * AC_TERM_NO_TIME_STEP(term) declares a term that limits no time step, and
 * AC_TERM_NO_SIGNAL(term) one that carries no signal.  A term with a source
 * but no derivatives (a uniform gravity) needs nothing and reads only its
 * parameters.  terms.def lists the terms; csrc/physics.h sums them.
 */
#ifndef ASTAROTH_TERMS_TERM_H
#define ASTAROTH_TERMS_TERM_H

#include "../fields.h"
#include "../grid.h"
#include "../stencils.h"

/* Constant-foldable functions of rows and modules (constexpr in C++; in C
 * always inlined, so that a kernel's term mask folds to a constant and its
 * loop is compiled for its terms alone). */
#if defined(__GNUC__) && !defined(__cplusplus)
#define AC_TERM_INLINE static inline __attribute__((always_inline))
#else
#define AC_TERM_INLINE AC_FIELDS_INLINE
#endif

/* The kinds of derivative a term can ask of a field. */
enum {
    AC_NEEDS_VALUE = 1u << 0,    /* the value at the point */
    AC_NEEDS_FIRST = 1u << 1,    /* the gradient, eq. (6) */
    AC_NEEDS_SECOND = 1u << 2,   /* the Laplacian, eq. (7) */
    AC_NEEDS_GRAD_DIV = 1u << 3, /* a vector's grad div: eq. (7) on the diagonal, the mixed eq. (8) off it */
    AC_NEEDS_SIXTH = 1u << 4,    /* del6, the 7-point sixth derivatives summed over the axes */
    AC_NEEDS_EXP = 1u << 5       /* exp(-f) at the point (1 / rho from lnrho), which a CPU kernel computes apart */
};

/* The terms, as bits of a term mask (physics.h sums those that are set),
 * numbered by their rows in terms.def: AC_TERM_CONTINUITY = 1, ... */
enum {
#define AC_TERM(name, NAME, module, description) AC_TERM_ORDINAL_##NAME,
#include "terms.def"
#undef AC_TERM
    AC_TERM_ROWS
};
enum {
#define AC_TERM(name, NAME, module, description) AC_TERM_##NAME = 1u << AC_TERM_ORDINAL_##NAME,
#include "terms.def"
#undef AC_TERM
};
/* ... by the name parameters.def's rows give their term: AC_TERM_BIT_viscosity, ... */
enum {
#define AC_TERM(name, NAME, module, description) AC_TERM_BIT_##name = AC_TERM_##NAME,
#include "terms.def"
#undef AC_TERM
};

/* The number of vector fields in the table, and a vector's index among the
 * vectors of a configuration (row: its x component), -1 if its module is off. */
#define AC_VECTOR_ROW_COUNT(name, module, role) ((role) == AC_VECTOR_X ? 1 : 0) +
enum { AC_VECTOR_ROWS = AC_FIELD_TABLE(AC_VECTOR_ROW_COUNT) 0 };
#undef AC_VECTOR_ROW_COUNT

AC_TERM_INLINE int ac_vector_index(unsigned modules, int r)
{
#define AC_VECTOR_BEFORE(name, module, role)                                                                           \
    ((AC_FIELD_##name < r && (role) == AC_VECTOR_X && (modules & (unsigned)(module))) ? 1 : 0) +
    return (modules & ac_field_module(r)) ? AC_FIELD_TABLE(AC_VECTOR_BEFORE) 0 : -1;
#undef AC_VECTOR_BEFORE
}

/* Everything the terms read at one point, each entry indexed like the
 * fields of the configuration (ac_field_index(modules, AC_FIELD_x)), a
 * vector's grad div by ac_vector_index(modules, AC_FIELD_<x component>).
 * A kernel fills the entries the configuration's terms need (physics_needs
 * in physics.h); the others are never read, and after inlining they
 * cost nothing. */
typedef struct {
    real value[AC_FIELD_ROWS];
    real grad[AC_FIELD_ROWS][3]; /* grad[f][j] = d_j f */
    real lap[AC_FIELD_ROWS];
    real grad_div[AC_VECTOR_ROWS][3]; /* d_i (div v) */
    real del6[AC_FIELD_ROWS];
    real exp_minus[AC_FIELD_ROWS]; /* exp(-f): ac_exp(-value[f]) */
} ac_point_derivatives;

/* Every parameter of csrc/parameters.def in the working precision, by its
 * name there (a VECTOR row as three numbers): a term reads its own
 * parameters here, so that a new parameter is one row of that table and
 * reaches both backends with no change to them. */
#define AC_TABLE_EXTENT_REAL
#define AC_TABLE_EXTENT_VECTOR [3]
typedef struct {
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    real name AC_TABLE_EXTENT_##kind;
#include "../parameters.def"
#undef AC_PARAMETER
} ac_table_params;

/* The coefficients that terms derive from the parameters, X(name), each
 * computed once on the host in double and rounded once to the working
 * precision (make_physics_params in csrc/physics.h), so that both backends
 * compute with the same bits. */
#define AC_DERIVED_PARAMETERS(X)                                                                                       \
    X(cs2)         /* cs^2: eos/isothermal.h's sound speed squared, eos/ideal_gas.h's at rho0 and ss = 0 */          \
    X(inv_mu0)     /* 1 / mu0: magnetic.h, entropy.h */                                                               \
    X(gamma_m1)    /* gamma - 1: eos/ideal_gas.h, as the four below */                                                \
    X(inv_gamma)   /* 1 / gamma */                                                                                    \
    X(cv1)         /* gamma / cp */                                                                                   \
    X(ln_rho0)     /* ln rho0 */                                                                                      \
    X(lnTT0)       /* ln(cs^2 / (cp (gamma - 1))) */                                                                  \
    X(shock_scale) /* nu_shock dxmin^2: the factor of the shock viscosity's profile, shock.h */

/* The one parameter struct that every loop and kernel takes, in the
 * working precision: the derived coefficients above, and `table`, every
 * parameter of csrc/parameters.def by its name there.  A term reads its
 * own parameters in the table (p->table.nu), so that a new row of
 * parameters.def is a new member there and reaches every loop and kernel
 * with no change to them.  The table comes last: a row added at the end of
 * parameters.def moves no other member, and the GPU compiler's register
 * allocation follows the constant-bank offsets of what a kernel reads
 * (csrc/cuda/stream_substep.cuh).  The grid's spacing is apart, in
 * ac_geometry: only the stencils read it, and the streaming kernel and an
 * ensemble's members take it as their stencils' scales instead. */
typedef struct {
#define AC_DERIVED_MEMBER(name) real name;
    AC_DERIVED_PARAMETERS(AC_DERIVED_MEMBER)
#undef AC_DERIVED_MEMBER
    ac_table_params table;
} ac_physics_params;

/* The grid's inverse spacings, 1 / dx, 1 / dy, 1 / dz, in the working
 * precision (make_geometry in csrc/physics.h): what the stencils of
 * csrc/stencils.h scale by. */
typedef struct {
    real inv_ds[3];
} ac_geometry;

/* The shock viscosity's profile and its gradient at a point (shock.h). */
typedef struct {
    real zeta;
    real grad_zeta[3];
} ac_shock_point;

/* div v from a vector's gradient (row: its x component). */
AC_INLINE real ac_divergence_of(const ac_point_derivatives *d, int first)
{
    return d->grad[first][0] + d->grad[first + 1][1] + d->grad[first + 2][2];
}

/* The time step of a term that carries no signal (no flow or wave speed),
 * of one that diffuses nothing, and of one that does neither. */
#define AC_TERM_NO_SIGNAL(term)                                                                                        \
    AC_TERM_INLINE unsigned term##_signal_needs(unsigned modules, int row)                                                               \
    {                                                                                                                  \
        return (void)modules, (void)row, 0u;                                                                                          \
    }                                                                                                                  \
    AC_INLINE double term##_flow_speed(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)     \
    {                                                                                                                  \
        (void)modules, (void)d, (void)p;                                                                               \
        return 0.0;                                                                                                    \
    }                                                                                                                  \
    AC_INLINE double term##_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)    \
    {                                                                                                                  \
        (void)modules, (void)d, (void)p;                                                                               \
        return 0.0;                                                                                                    \
    }
#define AC_TERM_NO_DIFFUSION(term)                                                                                     \
    AC_INLINE double term##_diffusivity(const ac_grid *g, int row, double max_zeta, const char **parameter)                                    \
    {                                                                                                                  \
        (void)g, (void)row, (void)max_zeta, (void)parameter;                                                                            \
        return 0.0;                                                                                                    \
    }                                                                                                                  \
    AC_INLINE double term##_hyper_diffusivity(const ac_grid *g, int row, const char **parameter)                                               \
    {                                                                                                                  \
        (void)g, (void)row, (void)parameter;                                                                                            \
        return 0.0;                                                                                                    \
    }
#define AC_TERM_NO_TIME_STEP(term) AC_TERM_NO_SIGNAL(term) AC_TERM_NO_DIFFUSION(term)

/* Whether field row r is a component of u (of A). */
AC_TERM_INLINE int ac_row_is_velocity(int r)
{
    return r == AC_FIELD_ux || r == AC_FIELD_uy || r == AC_FIELD_uz;
}

AC_TERM_INLINE int ac_row_is_potential(int r)
{
    return r == AC_FIELD_ax || r == AC_FIELD_ay || r == AC_FIELD_az;
}

#endif /* ASTAROTH_TERMS_TERM_H */
