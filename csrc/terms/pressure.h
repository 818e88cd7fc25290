/*
 * terms/pressure.h -- the pressure force -grad p / rho in the momentum
 * equation, of the configuration's equation of state (csrc/eos/eos.h:
 * isothermal, -cs^2 grad lnrho, eq. 2 of Pekkila et al. 2017; or the ideal
 * gas with the entropy module).  Its sound speed is the wave speed of the
 * CFL step.
 */
#ifndef ASTAROTH_TERMS_PRESSURE_H
#define ASTAROTH_TERMS_PRESSURE_H

#include "term.h"
#include "../eos/eos.h"

AC_TERM_INLINE unsigned pressure_needs(int row)
{
    return eos_needs(row);
}

/* Component i (physics.h sums the momentum equation component by component). */
AC_INLINE void pressure_add_component(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p,
                                      int i, real rhs[])
{
    rhs[ac_field_index(modules, AC_FIELD_ux) + i] += eos_pressure_force(modules, d, p, i);
}

AC_INLINE void pressure_add(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p, real rhs[])
{
    AC_UNROLL
    for (int i = 0; i < 3; ++i)
        pressure_add_component(modules, d, p, i, rhs);
}

/* The time step: the sound speed carries signals. */
AC_TERM_INLINE unsigned pressure_signal_needs(unsigned modules, int row)
{
    return eos_signal_needs(modules, row);
}

AC_INLINE double pressure_flow_speed(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    (void)modules, (void)d, (void)p;
    return 0.0;
}

AC_INLINE double pressure_wave_speed2(unsigned modules, const ac_point_derivatives *d, const ac_physics_params *p)
{
    return eos_wave_speed2(modules, d, p);
}

AC_TERM_NO_DIFFUSION(pressure)

#endif
