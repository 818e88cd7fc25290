/*
 * fields.h -- every evolved field, declared once: its name, the module that
 * owns it and its role (a scalar, or a component of a vector).
 *
 * A configuration is the set of modules a simulation runs (a bit mask of
 * AC_MODULE_*); its fields are the table's rows of those modules, in table
 * order, and that order is the memory order of the backends and what
 * Simulation.field_names returns.  A field added to a module that is off
 * shifts no other field, so existing configurations keep their layout.
 * Kernels are generic over the configuration: they take each field's
 * derivatives by its role (a scalar: gradient, Laplacian, del6; a vector:
 * also grad div by eq. (8) of Pekkila et al. 2017).
 *
 * Usable from C99 and CUDA; the functions fold to constants when the
 * configuration is one (compile-time constexpr in C++).
 */
#ifndef ASTAROTH_FIELDS_H
#define ASTAROTH_FIELDS_H

#if defined(__CUDACC__)
#define AC_FIELDS_INLINE static inline constexpr __host__ __device__
#elif defined(__cplusplus)
#define AC_FIELDS_INLINE static inline constexpr
#else
#define AC_FIELDS_INLINE static inline
#endif

/* Modules that own fields.  HYDRO is always on.
 *
 * Fields by count: a module whose fields may repeat (the passive scalars)
 * takes one bit per copy, each copy's bit the one above the copy before
 * it, up to a fixed number of copies.  A configuration with n copies has
 * the first n of those bits (ac_modules_valid), and copy k's rows follow
 * copy k - 1's in the table, named as the first copy's with k appended
 * (cc, cc2: the names the Pencil Code gives the second of npscalar scalars,
 * src/farray.f90's save_analysis_info).  The count is then part of the
 * configuration like any module, and a configuration with fewer copies
 * keeps its layout, names and code. */
enum {
    AC_MODULE_HYDRO = 1u << 0,    /* lnrho and u: continuity and momentum */
    AC_MODULE_MAGNETIC = 1u << 1, /* the vector potential A (induction, Lorentz force) */
    AC_MODULE_ENTROPY = 1u << 2,  /* the specific entropy ss of an ideal gas (terms/entropy.h) */
    AC_MODULE_PSCALAR = 1u << 3,  /* the passive scalars (terms/passive_scalar.h): the first, cc */
    AC_MODULE_PSCALAR2 = 1u << 4, /* ... and its second copy, cc2 */
};

/* The bits of the copies after a repeated module's first: each is on only
 * with the bit below it. */
enum { AC_MODULE_COPIES = AC_MODULE_PSCALAR2 };

typedef enum { AC_SCALAR = 0, AC_VECTOR_X = 1, AC_VECTOR_Y = 2, AC_VECTOR_Z = 3 } ac_field_role;

/* X(name, module, role), in memory order. */
#define AC_FIELD_TABLE(X)                                                                                              \
    X(lnrho, AC_MODULE_HYDRO, AC_SCALAR)                                                                               \
    X(ux, AC_MODULE_HYDRO, AC_VECTOR_X)                                                                                \
    X(uy, AC_MODULE_HYDRO, AC_VECTOR_Y)                                                                                \
    X(uz, AC_MODULE_HYDRO, AC_VECTOR_Z)                                                                                \
    X(ax, AC_MODULE_MAGNETIC, AC_VECTOR_X)                                                                             \
    X(ay, AC_MODULE_MAGNETIC, AC_VECTOR_Y)                                                                             \
    X(az, AC_MODULE_MAGNETIC, AC_VECTOR_Z)                                                                             \
    X(ss, AC_MODULE_ENTROPY, AC_SCALAR)                                                                                \
    X(cc, AC_MODULE_PSCALAR, AC_SCALAR)                                                                                \
    X(cc2, AC_MODULE_PSCALAR2, AC_SCALAR)

/* AC_FIELD_lnrho, AC_FIELD_ux, ...: a field's row in the table (not its
 * index in a configuration: ac_field_index). */
enum {
#define AC_FIELD_ROW(name, module, role) AC_FIELD_##name,
    AC_FIELD_TABLE(AC_FIELD_ROW)
#undef AC_FIELD_ROW
        AC_FIELD_ROWS
};

/* The owning module and role of row r. */
AC_FIELDS_INLINE unsigned ac_field_module(int r)
{
#define AC_FIELD_MODULE(name, module, role) r == AC_FIELD_##name ? (unsigned)(module):
    return AC_FIELD_TABLE(AC_FIELD_MODULE) 0u;
#undef AC_FIELD_MODULE
}

AC_FIELDS_INLINE int ac_field_role_of(int r)
{
#define AC_FIELD_ROLE(name, module, role) r == AC_FIELD_##name ? (int)(role):
    return AC_FIELD_TABLE(AC_FIELD_ROLE) - 1;
#undef AC_FIELD_ROLE
}

/* Index of row r among the fields of configuration `modules` (the rows
 * before it whose module is on), or -1 when its module is off. */
AC_FIELDS_INLINE int ac_field_index(unsigned modules, int r)
{
#define AC_FIELD_BEFORE(name, module, role) ((AC_FIELD_##name < r && (modules & (unsigned)(module))) ? 1 : 0) +
    return (modules & ac_field_module(r)) ? AC_FIELD_TABLE(AC_FIELD_BEFORE) 0 : -1;
#undef AC_FIELD_BEFORE
}

/* Whether `modules` is a configuration: hydrodynamics on, and each copy
 * of a repeated module only with the copy before it. */
AC_FIELDS_INLINE int ac_modules_valid(unsigned modules)
{
    return (modules & AC_MODULE_HYDRO) && (modules & (unsigned)AC_MODULE_COPIES & ~(modules << 1)) == 0u;
}

/* Number of fields of configuration `modules`. */
AC_FIELDS_INLINE int ac_field_count(unsigned modules)
{
#define AC_FIELD_COUNT(name, module, role) ((modules & (unsigned)(module)) ? 1 : 0) +
    return AC_FIELD_TABLE(AC_FIELD_COUNT) 0;
#undef AC_FIELD_COUNT
}

#endif /* ASTAROTH_FIELDS_H */
