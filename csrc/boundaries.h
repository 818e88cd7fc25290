/*
 * boundaries.h -- non-periodic boundaries ("walls") as data: per axis, per
 * face and per field a kind, with the Pencil Code's meaning (its
 * src/boundcond.f90, bc_sym_x and friends).  The wall points are the first
 * (lower face) and last (upper face) interior points of a wall axis; with
 * ghost layers i = 1 .. 3 and the wall point w, mirror points w -/+ i:
 *
 *   AC_BC_S    symmetric:      f(ghost i) = f(mirror i); the wall point evolves
 *   AC_BC_A    antisymmetric:  f(ghost i) = -f(mirror i), and f(w) = 0
 *   AC_BC_A2   antisymmetric about the wall value:
 *                              f(ghost i) = 2 f(w) - f(mirror i); f(w) evolves
 *   AC_BC_SET  a fixed value:  f(w) = value, f(ghost i) = 2 value - f(mirror i)
 *
 * AC_BC_PERIODIC on a face means that face is not a wall: periodic images
 * on a single grid, the neighbour's ghost zones on a grid split over MPI
 * ranks (astaroth/parallel.py), where only the ranks at a wall have wall
 * faces.  Both backends fill the ghosts of every field (and set the wall
 * values of 'a' and 'set') before every substep.  astaroth/boundaries.py
 * parses the Python form and hands the binding these codes.
 *
 * Plain C99 and CUDA; no precision.
 */
#ifndef ASTAROTH_BOUNDARIES_H
#define ASTAROTH_BOUNDARIES_H

#include "fields.h"

#if defined(__CUDACC__)
#define AC_BC_INLINE static inline __host__ __device__
#else
#define AC_BC_INLINE static inline
#endif

/* The codes astaroth/boundaries.py uses (KINDS there); keep in step. */
typedef enum { AC_BC_PERIODIC = 0, AC_BC_S = 1, AC_BC_A = 2, AC_BC_A2 = 3, AC_BC_SET = 4 } ac_bc_kind;

/* The shearing-periodic x faces of a shearing box (terms/shear.h; the
 * Pencil Code's bcx = 'she'), where the grid runs the term shear: the x
 * ghost zones are the opposite face's interior shifted along y by deltay
 * and interpolated (the CPU's fill_ghost_axis_bc).  deltay is a value of
 * the run, advanced every substep (shear_advance) and kept in snapshots. */
typedef struct {
    double deltay;    /* the shift now, in (-Ly, Ly) */
    double length[2]; /* the whole box's Lx and Ly */
    int ny;           /* the whole grid's points along y */
    int local;        /* 1: this grid holds every y and both x faces and shifts its ghosts itself; 0: a grid split
                       * over MPI ranks along x or y, whose caller fills them (astaroth/parallel.py) */
} ac_shear_boundary;

typedef struct {
    /* kind[axis][face][f], face 0 lower, 1 upper, f a field of the
     * configuration (ac_field_index) */
    unsigned char kind[3][2][AC_FIELD_ROWS];
    double value[3][2][AC_FIELD_ROWS]; /* AC_BC_SET: the wall value */
    unsigned walls;                     /* bit 2 a + face: that face is a wall for some field */
    ac_shear_boundary shear;
} ac_boundaries;

/* Every face periodic. */
AC_BC_INLINE void ac_boundaries_clear(ac_boundaries *b)
{
    for (int a = 0; a < 3; ++a)
        for (int s = 0; s < 2; ++s)
            for (int f = 0; f < AC_FIELD_ROWS; ++f) {
                b->kind[a][s][f] = AC_BC_PERIODIC;
                b->value[a][s][f] = 0.0;
            }
    b->walls = 0u;
    b->shear.deltay = b->shear.length[0] = b->shear.length[1] = 0.0;
    b->shear.ny = b->shear.local = 0;
}

/* Whether face `face` of axis a is a wall (of this grid or subdomain). */
AC_BC_INLINE int ac_boundaries_wall(const ac_boundaries *b, int a, int face)
{
    return (b->walls >> (2 * a + face)) & 1u;
}

/* Whether axis a has a wall on either face. */
AC_BC_INLINE int ac_boundaries_wall_axis(const ac_boundaries *b, int a)
{
    return (b->walls >> (2 * a)) & 3u ? 1 : 0;
}

/* The ghost value at mirror distance i (1..3) of a wall face of kind k, in
 * the precision of its operands: `wall` is the wall point's value (after
 * 'a' and 'set' have set it), `mirror` the interior value i points inside. */
#define AC_BC_GHOST(k, wall, mirror) ((k) == AC_BC_S ? (mirror) : (k) == AC_BC_A ? -(mirror) : 2 * (wall) - (mirror))

#endif /* ASTAROTH_BOUNDARIES_H */
