/*
 * grid.h -- what every backend and the binding agree on: status codes,
 * the grid geometry (interior plus ghost zones) and the field numbering.
 * Plain C99, no precision: the backends pick float or double at run time.
 */
#ifndef ASTAROTH_GRID_H
#define ASTAROTH_GRID_H

#include <stddef.h>

#include "boundaries.h"
#include "fields.h"

#if defined(__CUDACC__)
#define AC_GRID_INLINE static inline __host__ __device__
#else
#define AC_GRID_INLINE static inline
#endif

enum { AC_NUM_FIELDS = 4 }; /* the fields of AC_MODULE_HYDRO alone (fields.h) */
enum { AC_MAX_FIELDS = AC_FIELD_ROWS }; /* the fields of every module of fields.h */
enum { AC_GHOST = 3 };      /* ghost-zone width, the stencil radius */
enum { AC_SHOCK_PASSES = 6 }; /* passes of the shock viscosity's profile (cpu/point_impl.h: shock_profile_pass) */

typedef enum {
    AC_OK = 0,
    AC_ERR_NO_MEMORY,   /* host or device allocation failed */
    AC_ERR_ARGUMENT,    /* a value the caller should have refused */
    AC_ERR_DEVICE,      /* a CUDA call failed; ac_last_device_error says which */
    AC_ERR_UNSUPPORTED, /* this build or this backend cannot do it */
    AC_ERR_COMMUNICATION /* a message between the ranks of a split grid failed: MPI, or its copies (csrc/split/) */
} ac_status;

typedef enum { AC_FLOAT32 = 0, AC_FLOAT64 = 1 } ac_precision;
typedef enum { AC_METHOD_55P = 0, AC_METHOD_19P = 1 } ac_method;

/* Rows start their interior on an aligned boundary, so that the loads of a
 * warp or of a CPU vector along a row touch the fewest cache lines; only
 * the x-neighbour loads of the stencil are unaligned.  Each backend picks
 * the boundary (backend.h): 128 bytes on the GPU (seed Sect. 4), one
 * cache line on the CPU (an AVX-512 vector: on a 32-byte boundary each of
 * its aligned loads would touch two lines).  Allocations are aligned to the
 * widest. */
enum { AC_ROW_ALIGN_BYTES = 128, AC_CPU_ROW_ALIGN_BYTES = 64 };

/* The flags column of parameters.def. */
enum { AC_PARAMETER_TERM_SWITCH = 1, AC_PARAMETER_55P = 2 };

/* Interior size n, padded size m, padded index lo of interior point 0
 * (lo >= AC_GHOST; m >= lo + n + AC_GHOST), spacing per axis. */
typedef struct {
    int n[3];
    int m[3];
    int lo[3];
    double spacing[3];
    double origin[3]; /* coordinates of global point (0, 0, 0) */
    int offset[3];    /* global index of interior point (0, 0, 0): nonzero in a subdomain of a decomposed grid */
    int fields;        /* ac_field_count(modules): the fields this configuration evolves */
    unsigned modules;  /* the configuration: a bit mask of AC_MODULE_* (fields.h) */
    ac_boundaries bc;  /* walls (boundaries.h); every face periodic by default */
    /* the physics parameters, one member per row of parameters.def, named
     * as there: double nu, cs, eta, mu0, b_ext[3], nu_hyper3, ... */
#define AC_PARAMETER_MEMBER_REAL(name) double name;
#define AC_PARAMETER_MEMBER_VECTOR(name) double name[3];
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    AC_PARAMETER_MEMBER_##kind(name)
#include "parameters.def"
#undef AC_PARAMETER
#undef AC_PARAMETER_MEMBER_REAL
#undef AC_PARAMETER_MEMBER_VECTOR
} ac_grid;

/* The grid of configuration `modules` with every physics parameter at its
 * default (parameters.def); the caller sets those it is given. */
AC_GRID_INLINE ac_grid ac_grid_make(const int n[3], const double spacing[3], const double origin[3], unsigned modules,
                                    int element_bytes, int row_align_bytes)
{
    ac_grid g;
    const int align = row_align_bytes > element_bytes ? row_align_bytes / element_bytes : 1; /* elements */
    for (int a = 0; a < 3; ++a) {
        g.n[a] = n[a];
        g.lo[a] = AC_GHOST;
        g.m[a] = n[a] + 2 * AC_GHOST;
        g.spacing[a] = spacing[a];
        g.origin[a] = origin[a];
        g.offset[a] = 0;
    }
    g.lo[0] = align; /* the ghost zone sits at the end of the alignment gap */
    g.m[0] = (align + n[0] + AC_GHOST + align - 1) / align * align;
    g.modules = modules;
    ac_boundaries_clear(&g.bc);
    g.fields = ac_field_count(modules);
#define AC_PARAMETER_DEFAULT_REAL(name, dflt) g.name = (dflt);
#define AC_PARAMETER_DEFAULT_VECTOR(name, dflt) g.name[0] = g.name[1] = g.name[2] = (dflt);
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    AC_PARAMETER_DEFAULT_##kind(name, dflt)
#include "parameters.def"
#undef AC_PARAMETER
#undef AC_PARAMETER_DEFAULT_REAL
#undef AC_PARAMETER_DEFAULT_VECTOR
    return g;
}

/* A box of interior points, lo <= index < hi per axis (a subdomain's inner
 * part or one face of its shell, when ghost-zone exchange overlaps work).
 * periodic, bit a: axis a is not split, so that its ghost values are this
 * subdomain's own periodic images; the substep reads those it can from the
 * images in place (the backend's region_wraps) and the caller fills the
 * others. */
typedef struct {
    int lo[3], hi[3];
    unsigned periodic;
} ac_region;

/* The smallest spacing of the axes with more than one point (of all axes
 * if none has): the dxmin of the CFL step (timestep.h). */
AC_GRID_INLINE double ac_grid_dxmin(const ac_grid *g)
{
    double dxmin = 0.0;
    for (int pass = 0; pass < 2 && dxmin == 0.0; ++pass)
        for (int a = 0; a < 3; ++a)
            if ((pass == 1 || g->n[a] > 1) && (dxmin == 0.0 || g->spacing[a] < dxmin))
                dxmin = g->spacing[a];
    return dxmin;
}

AC_GRID_INLINE ac_region ac_whole_grid(const ac_grid *g)
{
    ac_region r;
    for (int a = 0; a < 3; ++a) {
        r.lo[a] = 0;
        r.hi[a] = g->n[a];
    }
    r.periodic = 0u;
    return r;
}

/* The coordinate of global index `global` along an axis from its origin
 * and spacing: code that holds no ac_grid (the GPU's kernels) computes it
 * so too. */
AC_GRID_INLINE double ac_axis_coordinate(double origin, int global, double spacing)
{
    return origin + global * spacing;
}

/* Coordinate of interior index i along axis a (global index offset + i, so
 * every decomposition computes the same number). */
AC_GRID_INLINE double ac_coordinate(const ac_grid *g, int a, int i)
{
    return ac_axis_coordinate(g->origin[a], g->offset[a] + i, g->spacing[a]);
}

/* Elements in one padded field; strides along x, y, z (x fastest). */
AC_GRID_INLINE size_t ac_grid_padded_count(const ac_grid *g)
{
    return (size_t)g->m[0] * (size_t)g->m[1] * (size_t)g->m[2];
}

AC_GRID_INLINE void ac_grid_strides(const ac_grid *g, ptrdiff_t stride[3])
{
    stride[0] = 1;
    stride[1] = g->m[0];
    stride[2] = (ptrdiff_t)g->m[0] * g->m[1];
}

/* Padded index of the interior point (i, j, k), 0 <= i < n[0] etc. */
AC_GRID_INLINE size_t ac_grid_index(const ac_grid *g, int i, int j, int k)
{
    return (size_t)(i + g->lo[0]) + (size_t)g->m[0] * ((size_t)(j + g->lo[1]) + (size_t)g->m[1] * (size_t)(k + g->lo[2]));
}

/* Padded index of ghost plane number `ghost` (0 .. 2 AC_GHOST - 1) along an
 * axis: the AC_GHOST planes below the interior, then those above it. */
AC_GRID_INLINE int ac_ghost_plane(int ghost, int lo, int n)
{
    return ghost < AC_GHOST ? lo - AC_GHOST + ghost : lo + n + ghost - AC_GHOST;
}

/* The interior plane that a padded plane index copies under periodic
 * boundaries; works for any n >= 1. */
AC_GRID_INLINE int ac_periodic_source(int padded_index, int lo, int n)
{
    int r = (padded_index - lo) % n;
    return (r < 0 ? r + n : r) + lo;
}

#endif /* ASTAROTH_GRID_H */
