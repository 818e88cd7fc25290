/*
 * timestep_binding.c -- the CFL step of a Grid (csrc/timestep.h): its
 * signal speed, what limits the step and by how much, and the limits that a
 * backend's CFL loop on the device takes.  Simulation.cfl_dt calls these;
 * nothing about the time step is derived in Python.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#include "../reach.h"
#include "../split_steps.h"

static const char *const field_row_names[AC_FIELD_ROWS] = {
#define AC_FIELD_NAME(name, module, role) #name,
    AC_FIELD_TABLE(AC_FIELD_NAME)
#undef AC_FIELD_NAME
};

static int grid_signal_uniform(const ac_grid *g)
{
    return ac_signal_speed_uniform(g->modules, ac_grid_terms(g));
}

static double grid_uniform_wave_speed(const ac_grid *g)
{
    return ac_uniform_wave_speed(g);
}

/* The signal speed of a backend's reduction (max_speed, max_signal_speed,
 * step_reduction): plus the uniform wave speed where it is uniform. */
static double with_wave_speed(const ac_grid *g, double reduced)
{
    return grid_signal_uniform(g) ? reduced + grid_uniform_wave_speed(g) : reduced;
}

/* The largest signal speed over the grid (NaN if not finite): max |u| plus
 * the uniform wave speed, or the backend's pointwise reduction.  Without
 * the GIL. */
static ac_status signal_speed(GridObject *self, int fill_ghosts, double *out)
{
    const ac_status st = grid_signal_uniform(&self->grid) ? self->ops->max_speed(self->self, out)
                                                           : self->ops->max_signal_speed(self->self, fill_ghosts, out);
    *out = with_wave_speed(&self->grid, *out);
    return st;
}

/* signal_speed(fill_ghosts=True) -> max over the grid of the signal speed
 * (NaN if not finite). */
PyObject *Grid_signal_speed(GridObject *self, PyObject *args)
{
    int fill_ghosts = 1;
    if (!PyArg_ParseTuple(args, "|p", &fill_ghosts) || !check_ready(self))
        return NULL;
    double v = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = signal_speed(self, fill_ghosts, &v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "the signal speed of the CFL step");
    return PyFloat_FromDouble(v);
}

/* Whether the signal speed reads gradients (B from A), so that a split
 * grid exchanges its ghost zones first. */
static int signal_reads_neighbours(const ac_grid *g)
{
    return ac_signal_gradient_fields(g->modules, ac_grid_terms(g)) != 0u;
}

PyObject *Grid_get_signal_reads_neighbours(GridObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(signal_reads_neighbours(&self->grid));
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

/* max zeta of the fields now (0 without shock viscosity), where the backend
 * reduces it or from its profile on the host (scratch: n points or NULL). */
static ac_status max_zeta(GridObject *self, double *scratch, double *out)
{
    *out = 0.0;
    if (!(ac_grid_terms(&self->grid) & AC_TERM_SHOCK))
        return AC_OK;
    if (self->ops->shock_max)
        return self->ops->shock_max(self->self, 0, out);
    const ac_status st = self->ops->shock_profile(self->self, scratch);
    const size_t count = (size_t)self->grid.n[0] * self->grid.n[1] * self->grid.n[2];
    for (size_t i = 0; i < count && st == AC_OK; ++i) {
        const double z = self->precision == AC_FLOAT64 ? scratch[i] : (double)((const float *)scratch)[i];
        *out = z > *out || z != z ? z : *out; /* NaN wins, as NumPy's max */
    }
    return st;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One step of length dt of a grid split over ranks (split_steps.h) with
 * its forcing: where the backend's last substep can finish the step
 * (set_step_reduction), it adds the step's draw and leaves the next step's
 * speed and NaN flags, here in *speed and *field, *reduced 1; else the
 * forcing of that draw is added after the step, as forced_steps adds it. */
static ac_status split_step(GridObject *self, const ac_split_steps *split, double dt, int *reduced, double *speed,
                            int *field)
{
    const int forced = self->forcing.count != 0;
    ac_forcing_sample draw;
    if (forced)
        ac_forcing_sample_next(&self->forcing, &draw);
    const ac_forcing_batch batch = {&draw, 1, self->forcing.f0, self->grid.cs};
    int armed = 0;
    ac_status st = self->ops->set_step_reduction
                       ? self->ops->set_step_reduction(self->self, 1, dt, forced ? &batch : NULL, &armed)
                       : AC_OK;
    if (st == AC_OK)
        st = split->step(split->context, dt);
    if (st == AC_OK && armed) {
        st = self->ops->step_reduction(self->self, speed, field); /* (which disarms) */
        *reduced = st == AC_OK;
        return st;
    }
    if (armed) /* a step that failed: its regions reduce no more */
        self->ops->set_step_reduction(self->self, 0, 0.0, NULL, &armed);
    *reduced = 0;
    return st == AC_OK && forced ? add_drawn_forcing(self, &draw, dt) : st;
}

/* The largest signal speed and zeta of the fields now over the grid into
 * out[0], out[1]: a split grid's (split non-NULL) over every rank, +inf
 * where one is not finite, its ghost zones exchanged first where the speed
 * reads them, as Simulation._speed_and_shock finds them; out[2 .. count)
 * reduced over the ranks in the same message (the previous step's ends).
 * reduced: this rank's speed, as the last substep of the step before left
 * it (step_reduction), or NULL. */
static ac_status speed_and_zeta(GridObject *self, const ac_split_steps *split, double *scratch, double *out,
                                int count, const double *reduced)
{
    ac_status st = AC_OK;
    out[0] = out[1] = 0.0;
    if (self->grid.bc.walls && (st = self->ops->set_walls(self->self, 0)) != AC_OK)
        return st;
    if (!split) {
        st = signal_speed(self, 1, out);
        return st == AC_OK ? max_zeta(self, scratch, out + 1) : st;
    }
    if (reduced) {
        out[0] = with_wave_speed(&self->grid, *reduced);
    } else if (signal_reads_neighbours(&self->grid)) {
        if ((st = split->signal_speed(split->context, out)) != AC_OK)
            return st;
    } else if ((st = signal_speed(self, 0, out)) != AC_OK) {
        return st;
    }
    if ((ac_grid_terms(&self->grid) & AC_TERM_SHOCK) && (st = split->max_zeta(split->context, out + 1)) != AC_OK)
        return st;
    for (int i = 0; i < 2; ++i)
        out[i] = isfinite(out[i]) ? out[i] : INFINITY;
    return split->max_over_ranks(split->context, out, count);
}

/* run_steps(t, until, cdt, cdtv, max_steps, taken, check_every, seconds,
 * stop_file, split) -> (t, steps, dt, nonfinite): up to max_steps CFL steps toward until on the
 * host, without Python between them: each dt as Simulation.cfl_dt finds it
 * (the signal speed, max zeta, ac_cfl_dt), the last shortened to land on
 * until, the forcing drawn after each, the fields checked for NaN/Inf at
 * every step count (taken + steps) divisible by check_every.  Bit for bit
 * the steps of Simulation.run's host loop.  nonfinite: the run stopped
 * before a step whose signal speed, or after one whose fields, are not
 * finite.  It returns after the first step that ends past `seconds` of wall
 * time, so that Python looks in (progress, signals) that often, and after
 * the step in which the file stop_file (a path, or None) appears.
 * split: None on one process; on a grid split over MPI ranks the capsule of
 * its steps (split_steps.h), whose ranks reduce each
 * step's signal speed and zeta, and with them whether after the step before
 * any rank's fields are not finite, sees the stop file or is past `seconds`
 * (after the batch's last step in a reduction of its own), so that every
 * rank takes the same steps and returns after the same one. */
PyObject *Grid_run_steps(GridObject *self, PyObject *args)
{
    double t = 0.0, until = 0.0, cdt = 0.0, cdtv = 0.0;
    long max_steps = 0, taken = 0, check_every = 1;
    double seconds = INFINITY;
    PyObject *stop_path = Py_None, *stop_bytes = NULL, *split_capsule = Py_None;
    if (!PyArg_ParseTuple(args, "ddddlll|dOO", &t, &until, &cdt, &cdtv, &max_steps, &taken, &check_every, &seconds,
                          &stop_path, &split_capsule) ||
        !check_ready(self))
        return NULL;
    const ac_split_steps *split = NULL;
    if (split_capsule != Py_None && !(split = PyCapsule_GetPointer(split_capsule, AC_SPLIT_STEPS_CAPSULE)))
        return NULL;
    if (stop_path != Py_None && !PyUnicode_FSConverter(stop_path, &stop_bytes))
        return NULL;
    const char *stop_file = stop_bytes ? PyBytes_AS_STRING(stop_bytes) : NULL;
    if (max_steps < 1 || check_every < 1) {
        PyErr_SetString(PyExc_ValueError, "run_steps: max_steps and check_every must be positive");
        Py_XDECREF(stop_bytes);
        return NULL;
    }
    const int shock = (ac_grid_terms(&self->grid) & AC_TERM_SHOCK) && !self->ops->shock_max && !split;
    double *scratch = shock ? PyMem_RawMalloc(sizeof(double) * (size_t)self->grid.n[0] * self->grid.n[1] *
                                              self->grid.n[2])
                            : NULL;
    if (shock && !scratch) {
        Py_XDECREF(stop_bytes);
        return PyErr_NoMemory();
    }
    ac_status st = AC_OK;
    long steps = 0;
    double dt = 0.0;
    int nonfinite = 0, no_limit = 0, over = 0;
    /* what ends the batch after a step: its fields not finite, the stop file, the time; a split grid's ranks
     * agree on it in the next step's reduction (one a step), or after the last step in one of its own */
    double ends[3] = {0.0, 0.0, 0.0};
    int ends_agreed = 1;
    /* a split grid's last substep may leave the next step's speed and NaN flags, as the device loop's does
     * (split_step): no reduction launch, no NaN check of its own */
    int reduced = 0, reduced_field = -1;
    double reduced_speed = 0.0;
    Py_BEGIN_ALLOW_THREADS
    const double start = seconds_now();
    while (steps < max_steps && t < until && st == AC_OK && !over) {
        double rates[5] = {0.0, 0.0, ends[0], ends[1], ends[2]};
        if ((st = speed_and_zeta(self, split, scratch, rates, ends_agreed ? 2 : 5, reduced ? &reduced_speed : NULL)) !=
            AC_OK)
            break;
        reduced = 0;
        if (!ends_agreed) {
            ends_agreed = 1;
            nonfinite = rates[2] != 0.0;
            if (nonfinite || rates[3] != 0.0 || rates[4] != 0.0)
                break; /* after the previous step, as one process stops */
        }
        const double speed = rates[0], zeta = rates[1];
        if (!isfinite(speed)) {
            nonfinite = 1;
            break;
        }
        const ac_time_step_rates r = ac_time_step_rates_of(&self->grid, ac_grid_terms(&self->grid), zeta);
        ac_limit which = AC_LIMIT_NONE;
        double step_dt = ac_cfl_dt(&r, speed, cdt, cdtv, &which);
        if (which == AC_LIMIT_NONE) {
            no_limit = 1;
            break;
        }
        const int last = t + step_dt >= until;
        if (last)
            step_dt = until - t;
        st = split ? split_step(self, split, step_dt, &reduced, &reduced_speed, &reduced_field)
             : self->forcing.count == 0 ? self->ops->step(self->self, step_dt, 1, 1)
                                        : forced_steps(self, step_dt, 1, 1); /* the profile of the reduction above */
        if (st != AC_OK)
            break;
        t = last ? until : t + step_dt;
        dt = step_dt;
        steps += 1;
        ends[0] = 0.0;
        if ((taken + steps) % check_every == 0) {
            int field = reduced ? reduced_field : -1;
            if (!reduced && (st = self->ops->first_nonfinite_field(self->self, &field)) != AC_OK)
                break;
            ends[0] = field >= 0;
        }
        ends[1] = stop_file && access(stop_file, F_OK) == 0;
        ends[2] = seconds_now() - start >= seconds;
        if (split) {
            ends_agreed = 0;
            continue;
        }
        nonfinite = ends[0] != 0.0;
        over = nonfinite || ends[1] != 0.0 || ends[2] != 0.0;
    }
    if (!ends_agreed && st == AC_OK && (st = split->max_over_ranks(split->context, ends, 3)) == AC_OK)
        nonfinite = ends[0] != 0.0; /* the batch's last step, which every rank took */
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    Py_XDECREF(stop_bytes);
    if (st != AC_OK)
        return raise_status(st, self, "run");
    if (no_limit) {
        PyErr_SetString(PyExc_ValueError,
                        "no time-step limit: the fluid is at rest with cs = 0 and nu = 0; pass dt explicitly");
        return NULL;
    }
    ac_cfl_run done = {0}; /* as the device loop reports a run */
    done.t = t;
    done.taken = steps;
    done.dt = dt;
    done.nonfinite = nonfinite;
    return cfl_run_result(&done);
}

