/*
 * terms/coriolis.h -- the Coriolis force of a uniformly rotating frame,
 * du/dt -= 2 Omega x u (the Pencil Code's Omega and theta in
 * src/hydro.f90's coriolis_cartesian: omega = Omega (-sin theta, 0,
 * cos theta)).  A source without derivatives: it reads u at the point and
 * its parameter.  Accumulated with the sources after the Lorentz force
 * (physics_sources); the centrifugal force is left out, as the Pencil Code
 * leaves it out by default.
 */
#ifndef ASTAROTH_TERMS_CORIOLIS_H
#define ASTAROTH_TERMS_CORIOLIS_H

#include "term.h"

AC_TERM_INLINE unsigned coriolis_needs(int row)
{
    return ac_row_is_velocity(row) ? (unsigned)AC_NEEDS_VALUE : 0u;
}

/* du_i/dt -= 2 (omega x u)_i (rhs and d indexed like the fields of `modules`). */
AC_INLINE void coriolis_add(unsigned modules, const real omega[3], const ac_point_derivatives *d, real rhs[])
{
    const int u = ac_field_index(modules, AC_FIELD_ux);
    const real ux = d->value[u], uy = d->value[u + 1], uz = d->value[u + 2];
    rhs[u] -= 2 * (omega[1] * uz - omega[2] * uy);
    rhs[u + 1] -= 2 * (omega[2] * ux - omega[0] * uz);
    rhs[u + 2] -= 2 * (omega[0] * uy - omega[1] * ux);
}

/* The Pencil Code limits no time step by the rotation (its advec and diffus
 * sums in src/equ.f90 do not count Omega): an epicycle period 2 pi / (2
 * Omega) far above the step, as in any resolved run. */
AC_TERM_NO_TIME_STEP(coriolis)

#endif
