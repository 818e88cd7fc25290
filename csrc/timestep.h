/*
 * timestep.h -- the CFL time step of any configuration, summed from what
 * its terms declare (terms/term.h; the idea of AthenaK's per-package
 * *_newdt.cpp and the Pencil Code's advec/diffus sums in src/equ.f90):
 *
 *   signal speed at a point  c = sum of the terms' flow speeds
 *                                + sqrt(sum of their wave speeds squared)
 *                            (|u| + sqrt(cs2 + vA^2) with MHD),
 *   dt = min(cdt dxmin / max c,
 *            cdtv / (max_f D_f sum 1/dx^2),
 *            cdtv3 / (max_f H_f sum 1/dx^6)),
 *
 * D_f (H_f) the sum of the second- (sixth-) order diffusivities the terms
 * give field f, and the sums of 1/dx^n over the axes with more than one
 * point.  Both backends reduce max c with ac_signal_speed_at; the binding
 * turns the reductions into dt with ac_time_step_rates and ac_cfl_dt, for
 * Simulation.cfl_dt and for the device's CFL loop alike.  Include after
 * physics.h includes it.
 */
#ifndef ASTAROTH_TIMESTEP_H
#define ASTAROTH_TIMESTEP_H

#include <math.h>

/* The Courant number of the sixth-order (del6) limit: RK3 with the 7-point
 * del6 is unstable above 0.039 (docs/guide/hyperdiffusion.md). */
#define AC_CDTV3 0.03

/* What the signal speed of configuration (modules, terms) reads of field
 * row r: AC_NEEDS_VALUE and AC_NEEDS_FIRST bits. */
AC_TERM_INLINE unsigned physics_signal_needs(unsigned modules, unsigned terms, int r)
{
    return !(modules & ac_field_module(r)) ? 0u :
#define AC_TERM(name, NAME, module, description) ((terms & AC_TERM_##NAME) ? name##_signal_needs(modules, r) : 0u) |
#include "terms/terms.def"
#undef AC_TERM
                                           0u;
}

/* The terms that parameters switch (parameters.def) and that carry a
 * signal: none yet.  A reduction takes the module set's terms as the
 * signal's, constants in its instance, and these where the grid runs them;
 * a switched term with a flow or wave speed adds its bit here. */
enum { AC_SWITCHED_SIGNAL_TERMS = 0u };

AC_TERM_INLINE unsigned ac_signal_terms(unsigned modules, unsigned grid_terms)
{
    return ac_module_terms(modules) | (grid_terms & (unsigned)AC_SWITCHED_SIGNAL_TERMS);
}

/* The terms whose flow speed depends on the position alone (shear.h: the
 * background flow |S (x - x0)|): the reductions add it to each point's
 * signal speed (ac_position_speed), which is then not uniform. */
enum { AC_POSITION_SIGNAL_TERMS = AC_TERM_SHEAR };

/* ... from the background flow's parameters and the point's x coordinate,
 * for code that holds no ac_grid (the GPU's reduction, cuda/mhd_substep.cuh). */
AC_INLINE double ac_position_speed_of(unsigned terms, const ac_shear_flow *flow, double x)
{
    return (terms & AC_TERM_SHEAR) ? shear_signal_speed(flow, x) : 0.0;
}

static inline double ac_position_speed(const ac_grid *g, unsigned terms, int i)
{
    const ac_shear_flow flow = shear_flow_of(g);
    return ac_position_speed_of(terms, &flow, ac_coordinate(g, 0, i));
}

/* Whether the signal speed reads nothing but u: then it is |u| plus a
 * uniform wave speed, and max c = max |u| + that speed (the reductions of
 * max |u|^2 that the hydro kernels fuse into their last substep serve). */
AC_TERM_INLINE int ac_signal_speed_uniform(unsigned modules, unsigned terms)
{
    int uniform = (terms & (unsigned)AC_POSITION_SIGNAL_TERMS) == 0u;
    for (int r = 0; r < AC_FIELD_ROWS; ++r)
        if (!ac_row_is_velocity(r) && physics_signal_needs(modules, terms, r) != 0u)
            uniform = 0;
    return uniform;
}

/* Whether the signal speed reads each field's value at the point alone, no
 * gradient (not B = curl A) and nothing of the position: a kernel that
 * writes the fields may then reduce it as it writes them (the GPU device
 * loop's last substep: cuda/stream_substep.cuh). */
AC_TERM_INLINE int ac_signal_reads_values(unsigned modules, unsigned terms)
{
    int values = (terms & (unsigned)AC_POSITION_SIGNAL_TERMS) == 0u;
    for (int r = 0; r < AC_FIELD_ROWS; ++r)
        if (physics_signal_needs(modules, terms, r) & ~(unsigned)AC_NEEDS_VALUE)
            values = 0;
    return values;
}

/* The fields (bit f: field f of the configuration) whose gradients the
 * signal speed reads (B from A): their ghost zones are filled, or on a split
 * grid exchanged, before a reduction. */
AC_TERM_INLINE unsigned ac_signal_gradient_fields(unsigned modules, unsigned terms)
{
    unsigned fields = 0;
    for (int r = 0; r < AC_FIELD_ROWS; ++r)
        if (physics_signal_needs(modules, terms, r) & AC_NEEDS_FIRST)
            fields |= 1u << ac_field_index(modules, r);
    return fields;
}

/* The signal speed at a point from the derivatives physics_signal_needs asks
 * for, in double. */
AC_INLINE double ac_signal_speed(unsigned modules, unsigned terms, const ac_point_derivatives *d,
                                 const ac_physics_params *p)
{
    double flow = 0.0, wave2 = 0.0;
#define AC_TERM(name, NAME, module, description)                                                                       \
    if (terms & AC_TERM_##NAME & ~(unsigned)AC_POSITION_SIGNAL_TERMS) { /* those: ac_position_speed */               \
        flow += name##_flow_speed(modules, d, p);                                                                      \
        wave2 += name##_wave_speed2(modules, d, p);                                                                    \
    }
#include "terms/terms.def"
#undef AC_TERM
    return flow + sqrt(wave2);
}

/* ... at padded index idx of `fields` (ghost zones filled where gradients
 * are read). */
AC_INLINE double ac_signal_speed_at(unsigned modules, unsigned terms, const real *const *fields, ptrdiff_t idx,
                                    const ptrdiff_t stride[3], const ac_geometry *geo, const ac_physics_params *p)
{
    ac_point_derivatives d;
    AC_UNROLL
    for (int r = 0; r < AC_FIELD_ROWS; ++r) { /* unrolled, so that the needs and indices fold */
        const unsigned needs = physics_signal_needs(modules, terms, r);
        const int f = ac_field_index(modules, r);
        if (needs & AC_NEEDS_VALUE)
            d.value[f] = fields[f][idx];
        if (needs & AC_NEEDS_FIRST)
            AC_UNROLL
            for (int a = 0; a < 3; ++a)
                d.grad[f][a] = first_derivative(fields[f] + idx, stride[a], geo->inv_ds[a]);
    }
    return ac_signal_speed(modules, terms, &d, p);
}

/* The uniform wave speed of a configuration whose signal speed reads only u
 * (ac_signal_speed_uniform): the equation of state's sound speed, the only
 * wave speed that reads no field; as given, in double (its square may
 * overflow where it does not). */
static inline double ac_uniform_wave_speed(const ac_grid *g)
{
    return eos_uniform_sound_speed(g);
}

/* What limits the step besides the signal speed, and what sets each limit. */
typedef struct {
    double dxmin;     /* the smallest spacing of the axes with more than one point */
    double diffusion; /* max_f D_f sum 1/dx^2: a step dt has diffusion number dt diffusion */
    double hyper;     /* max_f H_f sum 1/dx^6 */
    int diffusion_row, hyper_row; /* the field row of the largest D_f (H_f); -1: none */
    const char *diffusion_parameter, *hyper_parameter; /* the parameter of its largest part */
} ac_time_step_rates;

/* The rates of grid g's terms; max_zeta: the shock viscosity profile's
 * maximum over the grid (0 without shock viscosity). */
static inline ac_time_step_rates ac_time_step_rates_of(const ac_grid *g, unsigned terms, double max_zeta)
{
    ac_time_step_rates r = {ac_grid_dxmin(g), 0.0, 0.0, -1, -1, NULL, NULL};
    double inv2 = 0.0, inv6 = 0.0;
    for (int pass = 0; pass < 2 && inv2 == 0.0; ++pass) /* the resolved axes; all of them if none is */
        for (int a = 0; a < 3; ++a)
            if (pass == 1 || g->n[a] > 1) {
                inv2 += 1.0 / (g->spacing[a] * g->spacing[a]);
                inv6 += 1.0 / pow(g->spacing[a], 6.0);
            }
    double largest = 0.0, largest_hyper = 0.0;
    for (int row = 0; row < AC_FIELD_ROWS; ++row) {
        if (!(g->modules & ac_field_module(row)))
            continue;
        double diffusivity = 0.0, hyper = 0.0, top = 0.0, top_hyper = 0.0;
        const char *parameter = NULL, *hyper_parameter = NULL;
#define AC_TERM(name, NAME, module, description)                                                                       \
    if (terms & AC_TERM_##NAME) {                                                                                      \
        const char *named = NULL, *hyper_named = NULL;                                                                 \
        const double d = name##_diffusivity(g, row, max_zeta, &named);                                                 \
        const double h = name##_hyper_diffusivity(g, row, &hyper_named);                                               \
        diffusivity += d;                                                                                              \
        hyper += h;                                                                                                    \
        if (d > top) {                                                                                                 \
            top = d;                                                                                                   \
            parameter = named;                                                                                         \
        }                                                                                                              \
        if (h > top_hyper) {                                                                                           \
            top_hyper = h;                                                                                             \
            hyper_parameter = hyper_named;                                                                             \
        }                                                                                                              \
    }
#include "terms/terms.def"
#undef AC_TERM
        if (diffusivity > largest) {
            largest = diffusivity;
            r.diffusion_row = row;
            r.diffusion_parameter = parameter;
        }
        if (hyper > largest_hyper) {
            largest_hyper = hyper;
            r.hyper_row = row;
            r.hyper_parameter = hyper_parameter;
        }
    }
    r.diffusion = largest * inv2;
    r.hyper = largest_hyper * inv6;
    return r;
}

/* Which limit sets the CFL step. */
typedef enum { AC_LIMIT_NONE = -1, AC_LIMIT_ADVECTIVE, AC_LIMIT_DIFFUSIVE, AC_LIMIT_HYPER } ac_limit;

/* The diffusive part of the step: min(cdtv / diffusion, cdtv3 / hyper), or
 * +inf where nothing diffuses. */
static inline double ac_diffusive_dt(const ac_time_step_rates *r, double cdtv, ac_limit *which)
{
    double dt = INFINITY;
    *which = AC_LIMIT_NONE;
    if (r->diffusion > 0.0) {
        dt = cdtv / r->diffusion;
        *which = AC_LIMIT_DIFFUSIVE;
    }
    if (r->hyper > 0.0 && AC_CDTV3 / r->hyper < dt) {
        dt = AC_CDTV3 / r->hyper;
        *which = AC_LIMIT_HYPER;
    }
    return dt;
}

/* The CFL step for the signal speed max c = speed: +inf (AC_LIMIT_NONE)
 * where nothing limits it. */
static inline double ac_cfl_dt(const ac_time_step_rates *r, double speed, double cdt, double cdtv, ac_limit *which)
{
    double dt = ac_diffusive_dt(r, cdtv, which);
    if (speed > 0.0 && cdt * r->dxmin / speed <= dt) {
        dt = cdt * r->dxmin / speed;
        *which = AC_LIMIT_ADVECTIVE;
    }
    return dt;
}

#endif /* ASTAROTH_TIMESTEP_H */
