/*
 * terms/gravity.h -- a uniform gravitational acceleration in the momentum
 * equation, du/dt += g (the Pencil Code's gravity_simple with a constant
 * profile, src/gravity_simple.f90).  A source without derivatives: it needs
 * no field and reads only its parameter.  Accumulated after the Lorentz
 * force, as the Pencil Code adds it.
 */
#ifndef ASTAROTH_TERMS_GRAVITY_H
#define ASTAROTH_TERMS_GRAVITY_H

#include "term.h"

AC_TERM_INLINE unsigned gravity_needs(int row)
{
    (void)row;
    return 0u;
}

/* du_i/dt += g_i (rhs indexed like the fields of `modules`). */
AC_INLINE void gravity_add(unsigned modules, const real gravity[3], real rhs[])
{
    const int u = ac_field_index(modules, AC_FIELD_ux);
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        rhs[u + i] += gravity[i];
}

AC_TERM_NO_TIME_STEP(gravity) /* a uniform force limits no step (Pencil Code gravity_simple) */

#endif
