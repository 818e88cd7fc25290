/*
 * terms/shear.h -- the shearing box: a uniform background flow u0 = S (x -
 * x0) e_y that is not stored in the fields (the Pencil Code's Sshear and
 * x0_shear, src/shear.f90, subroutine shearing; S = -q Omega for its
 * qshear).  The fields are the deviations from u0, so that every field is
 * advected by it, the momentum equation gains the shear of u0 by u_x and,
 * in the Pencil Code's gauge of A, the induction equation its stretching:
 *
 *   df/dt  -= u0 df/dy  (every field, the sixth-order first derivative)
 *   duy/dt -= S ux
 *   dAx/dt -= S Ay
 *
 * added after every other term, as the Pencil Code adds them last in
 * src/equ.f90.  The x boundaries are shearing-periodic (the Pencil Code's
 * bcx = 'she', finalize_shearing of src/nompicomm.f90): the ghost zones of
 * one x face are the opposite face's interior shifted along y by deltay
 * (ac_shear_boundary in ../boundaries.h), interpolated by the sixth-order
 * Lagrange polynomial of six points (shear_weights), deltay advancing by -S
 * Lx each substep's time (shear_advance, as the Pencil Code's advance_shear).
 */
#ifndef ASTAROTH_TERMS_SHEAR_H
#define ASTAROTH_TERMS_SHEAR_H

#include "term.h"

/* u0 d/dy of every field, S ux of u, S Ay of A (the gradient along y is the
 * advection's, eq. 6). */
AC_TERM_INLINE unsigned shear_needs(int row)
{
    return (unsigned)AC_NEEDS_FIRST | ((row == AC_FIELD_ux || row == AC_FIELD_ay) ? (unsigned)AC_NEEDS_VALUE : 0u);
}

/* The terms at a point where the background flow is uy0 = S (x - x0), in
 * the Pencil Code's order: the advection of every field, then u, then A. */
AC_INLINE void shear_add(unsigned modules, real shear, real uy0, const ac_point_derivatives *d, real rhs[])
{
    const int fields = ac_field_count(modules);
    for (int f = 0; f < fields; ++f)
        rhs[f] = rhs[f] - uy0 * d->grad[f][1];
    const int u = ac_field_index(modules, AC_FIELD_ux);
    rhs[u + 1] = rhs[u + 1] - shear * d->value[u];
    if (modules & AC_MODULE_MAGNETIC) {
        const int a = ac_field_index(modules, AC_FIELD_ax);
        rhs[a] = rhs[a] - shear * d->value[a + 1];
    }
}

/* The background flow's parameters in double, for code that holds no
 * ac_grid (the GPU's kernels): S, x0 and whether the flow carries signals
 * (shear_signal_speed: the grid has more than one point along y). */
typedef struct {
    double shear, x0;
    int signals;
} ac_shear_flow;

static inline ac_shear_flow shear_flow_of(const ac_grid *g)
{
    const ac_shear_flow f = {g->shear, g->x0_shear, g->bc.shear.ny > 1};
    return f;
}

/* The background flow uy0 = S (x - x0) at coordinate x, in double (the
 * Pencil Code's uy0 of initialize_shear). */
AC_INLINE double shear_flow(const ac_shear_flow *f, double x)
{
    return f->shear * (x - f->x0);
}

/* ... at x index i of grid g. */
static inline double shear_flow_at(const ac_grid *g, int i)
{
    const ac_shear_flow f = shear_flow_of(g);
    return shear_flow(&f, ac_coordinate(g, 0, i));
}

/* Whether grid g asks of the shearing box what neither backend runs yet
 * (each refuses it when the grid is made): fewer x points than AC_GHOST
 * (the shifted ghosts copy AC_GHOST planes of the opposite face), no y
 * extent to shift along, walls across x or y.  (Shock viscosity on a grid
 * whose x faces other ranks shift: astaroth/parallel.py shifts what each of
 * its profile's passes writes, on the CPU; the GPU runs no split grid with
 * shock viscosity.) */
static inline int shear_grid_unsupported(const ac_grid *g)
{
    return g->n[0] < AC_GHOST || g->bc.shear.ny < 1 || ac_boundaries_wall_axis(&g->bc, 0) ||
           ac_boundaries_wall_axis(&g->bc, 1);
}

/* The time step: the background flow carries signals at |u0| where the
 * grid has more than one point along y, added to the point's own flow speed
 * (the Pencil Code adds advec_shear = |uy0| / dy to maxadvec point by point
 * where nygrid > 1, calc_pencils_shear); it depends on the position only,
 * so timestep.h adds it apart (ac_position_speed). */
AC_TERM_NO_TIME_STEP(shear)

AC_INLINE double shear_signal_speed(const ac_shear_flow *f, double x)
{
    return f->signals ? fabs(shear_flow(f, x)) : 0.0;
}

/* The weights of the shearing-periodic ghost zones for a shift deltay on a
 * y spacing dy: the ghost at y takes sum_m c[m] f(y -/+ (displs + 2 - m) dy)
 * of the opposite face (the lower face's ghosts -, the upper's +); the
 * sixth-order Lagrange polynomial through the six points around the shifted
 * position, in double as the Pencil Code computes them (rkind8). */
static inline void shear_weights(double deltay, double dy, int *displs, double c[6])
{
    const double deltay_dy = deltay / dy;
    *displs = (int)deltay_dy; /* towards zero, as Fortran's int */
    const double frac = deltay_dy - *displs;
    c[0] = -(frac + 1.) * frac * (frac - 1.) * (frac - 2.) * (frac - 3.) / 120.;
    c[1] = +(frac + 2.) * frac * (frac - 1.) * (frac - 2.) * (frac - 3.) / 24.;
    c[2] = -(frac + 2.) * (frac + 1.) * (frac - 1.) * (frac - 2.) * (frac - 3.) / 12.;
    c[3] = +(frac + 2.) * (frac + 1.) * frac * (frac - 2.) * (frac - 3.) / 12.;
    c[4] = -(frac + 2.) * (frac + 1.) * frac * (frac - 1.) * (frac - 3.) / 24.;
    c[5] = +(frac + 2.) * (frac + 1.) * frac * (frac - 1.) * (frac - 2.) / 120.;
}

/* One shifted ghost value: sum_m c[m] line[sy Y_m], Y_m = (y + toward m)
 * mod ny over the whole grid's ny rows of `line` (the opposite face's x
 * plane), y the first row of the six (the ghost's global y index + toward
 * (displs - 2)), toward -1 for the lower face's ghosts and +1 for the
 * upper's; the sum in double, in the Pencil Code's order (finalize_shearing
 * of src/nompicomm.f90).  With one point along y, the Pencil Code's
 * periodic copy.  The CPU's and the GPU's ghosts both take it. */
AC_INLINE real shear_ghost_value(const real *line, ptrdiff_t sy, int ny, int y, int toward, const double c[6])
{
    if (ny == 1)
        return line[0];
    double sum = 0.0;
    for (int m = 0; m < 6; ++m) {
        const int at = ((y + toward * m) % ny + ny) % ny;
        const double term = c[m] * (double)line[sy * at];
        sum = m == 0 ? term : sum + term;
    }
    return (real)sum;
}

/* deltay after substep s (0, 1, 2) of a step dt: the Pencil Code's
 * advance_shear with its substep length dtsub = ds dt beta_s of the 2N RK3
 * (src/timestep.f90: ds = alpha_s ds + 1), kept in (-Ly, Ly) (0 <= deltay <
 * Ly for S < 0). */
static inline void shear_advance(ac_shear_boundary *b, double shear, int s, double dt)
{
    static const double alpha[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0}, beta[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
    double ds = 0.0;
    for (int q = 0; q <= s; ++q) {
        ds = alpha[q] * ds;
        ds = ds + 1.0;
    }
    const double dt_beta = dt * beta[s];
    const double dtsub = ds * dt_beta;
    b->deltay = b->deltay - shear * b->length[0] * dtsub;
    b->deltay = b->deltay - (double)(long long)(b->deltay / b->length[1]) * b->length[1];
}

#endif
