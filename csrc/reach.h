/*
 * reach.h -- where each term runs, for the code that has no working
 * precision (the backends' host code, the binding): which terms a grid runs
 * (ac_grid_terms), what they read (physics_needs, physics_signal_needs),
 * the CFL step from what they declare (timestep.h), and the one choice of
 * the loop or kernel that runs a configuration (ac_choose_path).  None of
 * it computes in the working precision: `real` stands for double while the
 * term headers are read.
 */
#ifndef ASTAROTH_REACH_H
#define ASTAROTH_REACH_H

#include <string.h>

#ifdef real
#include "physics.h"
#else
#define real double
#include "physics.h"
#undef real
#endif

/* The terms' names, by their ordinal in terms/terms.def. */
static const char *const ac_term_names[AC_TERM_ROWS] = {
#define AC_TERM(name, NAME, module, description) #name,
#include "terms/terms.def"
#undef AC_TERM
};

/* The loops and kernels: the tuned hydrodynamics of csrc/cpu/kernels_impl.h
 * (both methods) and of the CUDA 19-point kernels, which implement the
 * terms AC_HYDRO_PATH_TERMS of the hydro module and are never chosen for
 * others; and the generic ones over the term table, the CPU's row loop
 * (csrc/cpu/rows_impl.h) and the GPU's streaming kernel
 * (csrc/cuda/stream_substep.cuh), 55-point only. */
typedef enum { AC_PATH_NONE = -1, AC_PATH_HYDRO = 0, AC_PATH_TERMS = 1 } ac_path;

enum { AC_HYDRO_PATH_TERMS = AC_TERM_CONTINUITY | AC_TERM_ADVECTION | AC_TERM_PRESSURE | AC_TERM_VISCOSITY };

/* The parameters of those terms that the tuned hydro loops were written
 * for.  They take every parameter (ac_physics_params, as every loop does),
 * but they fill only the derivatives these terms read today
 * (ac_point_derivatives_of_flow in physics.h) and the 19-point method adds
 * nu's grad div u in a pass of its own (rk3_add_grad_div): any other
 * parameter of these terms off its default (one added to parameters.def
 * since) may need what they leave out, and ac_hydro_path_unread names it. */
#define AC_HYDRO_PATH_READS(name) (strcmp(name, "nu") == 0 || strcmp(name, "cs") == 0)
#define AC_OFF_DEFAULT_REAL(v, dflt) ((v) != (dflt))
#define AC_OFF_DEFAULT_VECTOR(v, dflt) ((v)[0] != (dflt) || (v)[1] != (dflt) || (v)[2] != (dflt))
static inline const char *ac_hydro_path_unread(const ac_grid *g)
{
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    if ((AC_TERM_BIT_##term & AC_HYDRO_PATH_TERMS) && !AC_HYDRO_PATH_READS(#name) && AC_OFF_DEFAULT_##kind(g->name, dflt)) \
        return #name;
#include "parameters.def"
#undef AC_PARAMETER
    return NULL;
}
#undef AC_OFF_DEFAULT_REAL
#undef AC_OFF_DEFAULT_VECTOR

/* The path that runs grid g by `method`. */
static inline ac_path ac_choose_path(const ac_grid *g, ac_method method)
{
    if (g->modules == (unsigned)AC_MODULE_HYDRO && (ac_grid_terms(g) & ~(unsigned)AC_HYDRO_PATH_TERMS) == 0u &&
        !ac_hydro_path_unread(g))
        return AC_PATH_HYDRO;
    return method == AC_METHOD_55P ? AC_PATH_TERMS : AC_PATH_NONE;
}

/* Where ac_choose_path finds no path: the first term of g that the tuned
 * hydro path lacks (its ordinal in terms.def), or -1 (a module's terms are
 * named by the first of them). */
static inline int ac_path_missing_term(const ac_grid *g)
{
    const unsigned missing = ac_grid_terms(g) & ~(unsigned)AC_HYDRO_PATH_TERMS;
    for (int t = 0; t < AC_TERM_ROWS; ++t)
        if (missing & (1u << t))
            return t;
    return -1;
}

#endif /* ASTAROTH_REACH_H */
