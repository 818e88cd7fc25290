/*
 * timestep_binding.c -- the CFL step of a Grid (csrc/timestep.h): its
 * signal speed, what limits the step and by how much, and the limits that a
 * backend's CFL loop on the device takes.  Simulation.cfl_dt calls these;
 * nothing about the time step is derived in Python.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <math.h>

#include "../reach.h"

static const char *const field_row_names[AC_FIELD_ROWS] = {
#define AC_FIELD_NAME(name, module, role) #name,
    AC_FIELD_TABLE(AC_FIELD_NAME)
#undef AC_FIELD_NAME
};

int grid_signal_uniform(const ac_grid *g)
{
    return ac_signal_speed_uniform(g->modules, ac_grid_terms(g));
}

double grid_uniform_wave_speed(const ac_grid *g)
{
    return ac_uniform_wave_speed(g);
}

/* signal_speed(fill_ghosts=True) -> max over the grid of the signal speed
 * (NaN if not finite): max |u| plus the uniform wave speed, or the
 * backend's pointwise reduction. */
PyObject *Grid_signal_speed(GridObject *self, PyObject *args)
{
    int fill_ghosts = 1;
    if (!PyArg_ParseTuple(args, "|p", &fill_ghosts) || !check_ready(self))
        return NULL;
    const int uniform = grid_signal_uniform(&self->grid);
    double v = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = uniform ? self->ops->max_speed(self->self, &v) : self->ops->max_signal_speed(self->self, fill_ghosts, &v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "the signal speed of the CFL step");
    return PyFloat_FromDouble(uniform ? v + grid_uniform_wave_speed(&self->grid) : v);
}

PyObject *Grid_get_signal_reads_neighbours(GridObject *self, void *closure)
{
    (void)closure;
    for (int r = 0; r < AC_FIELD_ROWS; ++r)
        if (physics_signal_needs(self->grid.modules, ac_grid_terms(&self->grid), r) & AC_NEEDS_FIRST)
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *name_or_none(const char *const *names, int i)
{
    if (i < 0)
        Py_RETURN_NONE;
    return PyUnicode_FromString(names[i]);
}

/* time_step_rates(max_zeta=0) -> (dxmin, diffusion, hyper, (field,
 * parameter) of the largest second-order diffusivity or None, the same of
 * the sixth order): a step dt has Courant number dt speed / dxmin, diffusion
 * number dt diffusion and hyperdiffusion number dt hyper. */
PyObject *Grid_time_step_rates(GridObject *self, PyObject *args)
{
    double max_zeta = 0.0;
    if (!PyArg_ParseTuple(args, "|d", &max_zeta))
        return NULL;
    const ac_time_step_rates r = ac_time_step_rates_of(&self->grid, ac_grid_terms(&self->grid), max_zeta);
    PyObject *diffusion = r.diffusion_row < 0 ? Py_NewRef(Py_None)
                                              : Py_BuildValue("(ss)", field_row_names[r.diffusion_row],
                                                              r.diffusion_parameter ? r.diffusion_parameter : "");
    PyObject *hyper = r.hyper_row < 0 ? Py_NewRef(Py_None)
                                      : Py_BuildValue("(ss)", field_row_names[r.hyper_row],
                                                      r.hyper_parameter ? r.hyper_parameter : "");
    if (!diffusion || !hyper) {
        Py_XDECREF(diffusion);
        Py_XDECREF(hyper);
        return NULL;
    }
    return Py_BuildValue("dddNN", r.dxmin, r.diffusion, r.hyper, diffusion, hyper);
}

/* cfl_dt(speed, max_zeta, cdt, cdtv) -> (dt, limit): the CFL step for the
 * signal speed max c = speed and limit "advective", "diffusive", "hyper",
 * or (inf, None) where nothing limits it. */
PyObject *Grid_cfl_dt(GridObject *self, PyObject *args)
{
    double speed = 0.0, max_zeta = 0.0, cdt = 0.0, cdtv = 0.0;
    if (!PyArg_ParseTuple(args, "dddd", &speed, &max_zeta, &cdt, &cdtv))
        return NULL;
    static const char *const limits[] = {"advective", "diffusive", "hyper"};
    const ac_time_step_rates r = ac_time_step_rates_of(&self->grid, ac_grid_terms(&self->grid), max_zeta);
    ac_limit which = AC_LIMIT_NONE;
    const double dt = ac_cfl_dt(&r, speed, cdt, cdtv, &which);
    return Py_BuildValue("dN", dt, name_or_none(limits, (int)which));
}

int grid_cfl_run_limits(const ac_grid *g, double cdt, double cdtv, ac_cfl_run *run)
{
    const unsigned terms = ac_grid_terms(g);
    if (terms & AC_TERM_SHOCK)
        return 0; /* the profile's maximum changes every step: the host finds dt */
    const ac_time_step_rates r = ac_time_step_rates_of(g, terms, 0.0);
    ac_limit which = AC_LIMIT_NONE;
    run->viscous_dt = ac_diffusive_dt(&r, cdtv, &which);
    run->cdt_dxmin = cdt * r.dxmin;
    run->full_reduction = !grid_signal_uniform(g);
    run->cs = run->full_reduction ? 0.0 : grid_uniform_wave_speed(g);
    return run->full_reduction || run->cs > 0.0 || which != AC_LIMIT_NONE; /* else no limit: cfl_dt refuses */
}
