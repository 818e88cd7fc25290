/*
 * ensemble_binding.c -- run_cfl_members: the CFL runs of an ensemble's grids
 * (astaroth/ensemble.py) in shared launches where the backend can.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <limits.h>
#include <stdlib.h>

/* run_cfl_members(grids, runs, max_steps) -> [(t, steps, dt, nonfinite), ...]:
 * Grid.run_cfl for an ensemble's grids at once, runs[i] = (t, until, cdt,
 * cdtv) of grid i, each grid's forcing drawn ahead from its own generator;
 * None where they cannot go together (the backend has no such op, or one
 * of them cannot step on the device), and then each runs alone. */
PyObject *core_run_cfl_members(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *grids_in = NULL, *runs_in = NULL, *grids = NULL, *result = NULL;
    long max_steps = 0;
    int together = 1;
    ac_status st = AC_ERR_UNSUPPORTED;
    if (!PyArg_ParseTuple(args, "OOl", &grids_in, &runs_in, &max_steps))
        return NULL;
    if (max_steps < 1) {
        PyErr_SetString(PyExc_ValueError, "run_cfl_members: max_steps must be positive");
        return NULL;
    }
    if (!(grids = PySequence_Tuple(grids_in))) /* holds the grids while the GIL is released */
        return NULL;
    const Py_ssize_t count = PyTuple_GET_SIZE(grids);
    void **selves = count > 0 ? (void **)calloc((size_t)count, sizeof *selves) : NULL;
    ac_cfl_run *runs = count > 0 ? (ac_cfl_run *)calloc((size_t)count, sizeof *runs) : NULL;
    ac_forcing_batch *batches = count > 0 ? (ac_forcing_batch *)calloc((size_t)count, sizeof *batches) : NULL;
    const ac_forcing_batch **forcings =
        count > 0 ? (const ac_forcing_batch **)calloc((size_t)count, sizeof *forcings) : NULL;
    const ac_backend_ops *ops = NULL;
    if (count < 1 || count > INT_MAX || !selves || !runs || !batches || !forcings) {
        if (count < 1)
            PyErr_SetString(PyExc_ValueError, "run_cfl_members: no grids");
        else
            PyErr_NoMemory();
        goto done;
    }
    if (!PySequence_Check(runs_in) || PySequence_Size(runs_in) != count) {
        PyErr_SetString(PyExc_ValueError, "run_cfl_members: one run per grid");
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; ++i) {
        PyObject *g = PyTuple_GET_ITEM(grids, i), *run = PySequence_GetItem(runs_in, i);
        if (!run)
            goto done;
        ac_cfl_run *r = &runs[i];
        double cdt = 0.0, cdtv = 0.0;
        const int ok = PyArg_ParseTuple(run, "dddd", &r->t, &r->until, &cdt, &cdtv);
        Py_DECREF(run);
        if (!ok)
            goto done;
        if (!PyObject_TypeCheck(g, &GridType)) {
            PyErr_Format(PyExc_TypeError, "run_cfl_members: grid %zd is not a Grid", i);
            goto done;
        }
        GridObject *grid = (GridObject *)g;
        if (!check_ready(grid))
            goto done;
        ops = i == 0 ? grid->ops : ops;
        if (grid->ops != ops || !ops->run_cfl_members || !grid_cfl_run_limits(&grid->grid, cdt, cdtv, r))
            together = 0;
        selves[i] = grid->self;
    }
    /* the first forced member's draw caps max_steps (forcing_draw_ahead); the later ones draw as many */
    for (Py_ssize_t i = 0; i < count && together; ++i) {
        if (forcing_draw_ahead((GridObject *)PyTuple_GET_ITEM(grids, i), &max_steps, &batches[i]) < 0)
            goto done;
        forcings[i] = batches[i].samples ? &batches[i] : NULL;
    }
    if (together) {
        Py_BEGIN_ALLOW_THREADS
        st = ops->run_cfl_members(selves, runs, forcings, (int)count, max_steps);
        Py_END_ALLOW_THREADS
    }
    for (Py_ssize_t i = 0; i < count && together; ++i)
        forcing_keep_taken((GridObject *)PyTuple_GET_ITEM(grids, i), &batches[i], runs[i].taken, st == AC_OK);
    if (st == AC_ERR_UNSUPPORTED) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    if (st != AC_OK) {
        raise_status(st, (GridObject *)PyTuple_GET_ITEM(grids, 0), "ensemble run");
        goto done;
    }
    if (!(result = PyList_New(count)))
        goto done;
    for (Py_ssize_t i = 0; i < count; ++i) {
        PyObject *item = cfl_run_result(&runs[i]);
        if (!item) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    for (Py_ssize_t i = 0; batches && i < count; ++i) /* where drawing ahead ran out of memory */
        forcing_keep_taken((GridObject *)PyTuple_GET_ITEM(grids, i), &batches[i], 0, 0);
    free(selves);
    free(runs);
    free(batches);
    free(forcings);
    Py_DECREF(grids);
    return result;
}

