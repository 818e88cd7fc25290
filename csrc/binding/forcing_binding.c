/*
 * forcing_binding.c -- the random forcing of a Grid (csrc/forcing.h): its
 * wave vectors and generator, drawn on the host each step and added by the
 * backend after the third substep.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <string.h>

/* count steps of length dt, the forcing after the third substep of each
 * (docs/numerics.md); called with the GIL released */
ac_status forced_steps(GridObject *self, double dt, long count, int profile_current)
{
    ac_status st = AC_OK;
    for (long s = 0; s < count && st == AC_OK; ++s) {
        ac_forcing_term term;
        st = self->ops->step(self->self, dt, 1, s == 0 && profile_current);
        ac_forcing_draw(&self->forcing, self->grid.cs, dt, &term);
        if (st == AC_OK)
            st = self->ops->add_forcing(self->self, &term, dt);
    }
    return st;
}

ac_status add_drawn_forcing(GridObject *self, const ac_forcing_sample *draw, double dt)
{
    ac_forcing_term term;
    ac_forcing_term_of(draw, self->forcing.f0, self->grid.cs, dt, &term);
    return self->ops->add_forcing(self->self, &term, dt);
}

ac_status add_step_forcing(GridObject *self, double dt)
{
    ac_forcing_sample draw;
    ac_forcing_sample_next(&self->forcing, &draw);
    return add_drawn_forcing(self, &draw, dt);
}

/* The samples of a batch are followed in their allocation by the
 * generator's state after each draw, so that forcing_keep_taken moves the
 * generator past the steps taken without drawing them again (an ensemble's
 * batch draws a few thousand; a sample is doubles, so the states are
 * aligned). */
static uint64_t *states_after(const ac_forcing_batch *batch)
{
    return (uint64_t *)(void *)((ac_forcing_sample *)batch->samples + batch->count);
}

int forcing_draw_ahead(GridObject *self, long *max_steps, ac_forcing_batch *batch)
{
    batch->samples = NULL;
    batch->count = 0;
    batch->f0 = self->forcing.f0;
    batch->cs = self->grid.cs;
    if (self->forcing.count == 0)
        return 0;
    if (*max_steps > AC_FORCING_SAMPLES_AHEAD)
        *max_steps = AC_FORCING_SAMPLES_AHEAD;
    ac_forcing_sample *samples =
        PyMem_RawMalloc((sizeof *samples + sizeof(uint64_t)) * (size_t)*max_steps);
    if (!samples) {
        PyErr_NoMemory();
        return -1;
    }
    batch->samples = samples;
    batch->count = *max_steps;
    uint64_t *states = states_after(batch);
    ac_forcing state = self->forcing; /* the generator stays where it is until the run has taken its steps */
    for (long n = 0; n < *max_steps; ++n) {
        ac_forcing_sample_next(&state, samples + n);
        states[n] = state.state;
    }
    return 0;
}

void forcing_keep_taken(GridObject *self, ac_forcing_batch *batch, long long taken, int ran)
{
    if (!batch->samples)
        return;
    if (ran && taken > 0) { /* (a run takes no more steps than it has samples for; past them, drawn) */
        const long long kept = taken < batch->count ? taken : batch->count;
        self->forcing.state = states_after(batch)[kept - 1];
        ac_forcing_sample skipped;
        for (long long n = kept; n < taken; ++n)
            ac_forcing_sample_next(&self->forcing, &skipped);
    }
    PyMem_RawFree((void *)batch->samples);
    batch->samples = NULL;
}

/* add_forcing(dt): draw the forcing term of one step and add it (no-op
 * without forcing); what step() does after the third substep. */
PyObject *Grid_add_forcing(GridObject *self, PyObject *args)
{
    double dt;
    if (!PyArg_ParseTuple(args, "d", &dt) || !check_ready(self))
        return NULL;
    if (self->forcing.count == 0)
        Py_RETURN_NONE;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = add_step_forcing(self, dt);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "add_forcing");
    Py_RETURN_NONE;
}

/* set_forcing(k, f0, seed, relhel=0, kav=0): k an (n, 3) float64 array of
 * physical wave vectors, or None to switch the forcing off; kav > 0 scales
 * every step by that |k| (the Pencil Code's mean |k| of the set) in place of
 * the drawn vector's own (forcing.h) */
PyObject *Grid_set_forcing(GridObject *self, PyObject *args)
{
    PyObject *k_obj;
    double f0 = 0.0, relhel = 0.0, kav = 0.0;
    unsigned long long seed = 0;
    if (!PyArg_ParseTuple(args, "O|dKdd", &k_obj, &f0, &seed, &relhel, &kav) || !check_ready(self))
        return NULL;
    if (k_obj == Py_None) {
        PyMem_Free(self->forcing.k);
        memset(&self->forcing, 0, sizeof self->forcing);
        Py_RETURN_NONE;
    }
    PyArrayObject *k = (PyArrayObject *)PyArray_FROMANY(k_obj, NPY_FLOAT64, 2, 2, NPY_ARRAY_C_CONTIGUOUS);
    if (!k)
        return NULL;
    if (PyArray_DIM(k, 1) != 3 || PyArray_DIM(k, 0) < 1) {
        Py_DECREF(k);
        PyErr_SetString(PyExc_ValueError, "forcing wave vectors must be a non-empty (n, 3) array");
        return NULL;
    }
    const npy_intp count = PyArray_DIM(k, 0);
    double *copy = PyMem_Malloc(sizeof(double) * 3 * (size_t)count);
    if (!copy) {
        Py_DECREF(k);
        return PyErr_NoMemory();
    }
    memcpy(copy, PyArray_DATA(k), sizeof(double) * 3 * (size_t)count);
    Py_DECREF(k);
    PyMem_Free(self->forcing.k);
    self->forcing.k = copy;
    self->forcing.count = (int)count;
    self->forcing.f0 = f0;
    self->forcing.state = seed;
    self->forcing.relhel = relhel;
    self->forcing.kav = kav > 0.0 ? kav : 0.0;
    Py_RETURN_NONE;
}

PyObject *Grid_get_forcing_state(GridObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLongLong(self->forcing.state);
}

int Grid_set_forcing_state(GridObject *self, PyObject *value, void *Py_UNUSED(closure))
{
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete forcing_state");
        return -1;
    }
    unsigned long long state = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred())
        return -1;
    self->forcing.state = state;
    return 0;
}

/* draw_forcing(dt) -> (k, amplitude, phase) of the next step, advancing
 * the generator (for tests and diagnostics) */
PyObject *Grid_draw_forcing(GridObject *self, PyObject *args)
{
    double dt;
    if (!PyArg_ParseTuple(args, "d", &dt))
        return NULL;
    if (self->forcing.count == 0 || !(dt > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "no forcing set, or dt not positive");
        return NULL;
    }
    ac_forcing_term t;
    ac_forcing_draw(&self->forcing, self->grid.cs, dt, &t);
    return Py_BuildValue("((ddd)(ddd)d)", t.k[0], t.k[1], t.k[2], t.amplitude[0], t.amplitude[1], t.amplitude[2],
                         t.phase);
}

