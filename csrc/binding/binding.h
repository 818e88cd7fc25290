/*
 * binding.h -- what the files of the CPython binding (astaroth._core) share;
 * private to csrc/binding/.
 *
 *   module.c            PyInit__core and the module's functions (backends,
 *                       threads, CUDA devices)
 *   grid_object.c       the Grid type: creation, stepping, reductions
 *   parameters.c        parameters by name, and the tables of fields.h and
 *                       parameters.def as Python rows
 *   array_export.c      fields to and from NumPy, zero-copy views, DLPack
 *   forcing_binding.c   the forcing of a Grid
 *   ensemble_binding.c  run_cfl_members: an ensemble's grids at once
 *   timestep_binding.c  the CFL step (csrc/timestep.h) of a Grid
 *   eos_binding.c       the equation of state (csrc/eos/) on arrays
 *   ops_binding.c       astaroth.ops' derivatives
 *   errors.c            status codes as Python exceptions
 *
 * Argument checking with physicist-facing messages is done in Python
 * (astaroth/simulation.py, astaroth/parameters.py); this layer still
 * refuses what would crash, and knows no physics by name: fields, modules
 * and parameters come from csrc/fields.h and csrc/parameters.def.
 */
#ifndef ASTAROTH_BINDING_H
#define ASTAROTH_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL astaroth_core_ARRAY_API /* module.c imports it; the others define NO_IMPORT_ARRAY */
#include <numpy/arrayobject.h>

#include "backend.h"

typedef struct {
    PyObject_HEAD
    const ac_backend_ops *ops;
    void *self;
    ac_grid grid;
    ac_precision precision;
    ac_forcing forcing; /* count == 0: no forcing */
} GridObject;

extern PyTypeObject GridType;

/* backends compiled in (module.c) */
extern const ac_backend_ops *const ac_all_backends[];
extern const int ac_num_backends;
const ac_backend_ops *ac_find_backend(const char *name);

/* errors.c: raise the Python exception for a status code (g may be NULL);
 * returns NULL for chaining */
PyObject *raise_status(ac_status status, const GridObject *g, const char *what);

/* grid_object.c */
int check_ready(GridObject *self);
int check_field(const GridObject *self, int field);
int numpy_type(const GridObject *self);
PyObject *cfl_run_result(const ac_cfl_run *run);

/* parameters.c: the modules mask and the parameters dict of Grid(...) into
 * g (0), or a Python exception naming the parameter (-1) */
int parameters_check_modules(unsigned long modules);
int parameters_fill(ac_grid *g, PyObject *params);
/* "a, b)" : the parameters whose row names `term` (parameters.def), or "" */
/* "'term' (parameters a, b)": a term of terms.def and the parameters that switch it, for messages */
void term_phrase(const char *term, char *out, size_t size);
PyObject *core_parameter_table(PyObject *m, PyObject *ignored);
PyObject *core_field_table(PyObject *m, PyObject *ignored);
PyObject *core_term_table(PyObject *m, PyObject *ignored);
PyObject *core_module_table(PyObject *m, PyObject *ignored);
PyObject *core_switch_table(PyObject *m, PyObject *ignored);

/* array_export.c */
PyObject *Grid_read(GridObject *self, PyObject *args);
PyObject *Grid_write(GridObject *self, PyObject *args);
PyObject *Grid_host_view(GridObject *self, PyObject *args);
PyObject *Grid_interior_address(GridObject *self, PyObject *args);
PyObject *Grid_padded_address(GridObject *self, PyObject *args);
PyObject *Grid_shock_address(GridObject *self, PyObject *args);
PyObject *Grid_shock_profile_pass(GridObject *self, PyObject *args);
PyObject *Grid_shock_pass_reads(GridObject *self, PyObject *args);
PyObject *Grid_dlpack(GridObject *self, PyObject *args);
PyObject *Grid_dlpack_device(GridObject *self, PyObject *ignored);

/* forcing_binding.c */
PyObject *Grid_set_forcing(GridObject *self, PyObject *args);
PyObject *Grid_add_forcing(GridObject *self, PyObject *args);
PyObject *Grid_draw_forcing(GridObject *self, PyObject *args);
PyObject *Grid_get_forcing_state(GridObject *self, void *closure);
int Grid_set_forcing_state(GridObject *self, PyObject *value, void *closure);
/* count steps of length dt with the forcing after each (the GIL released) */
ac_status forced_steps(GridObject *self, double dt, long count, int profile_current);
/* the forcing of one step of length dt drawn and added (the GIL released);
 * add_drawn_forcing adds that of a draw already made (ac_forcing_draw's term) */
ac_status add_step_forcing(GridObject *self, double dt);
ac_status add_drawn_forcing(GridObject *self, const ac_forcing_sample *draw, double dt);
/* The forcing of a device run of up to *max_steps steps, drawn ahead
 * (*max_steps capped at AC_FORCING_SAMPLES_AHEAD); batch->samples NULL
 * without forcing.  -1 (a Python error) where memory runs out. */
int forcing_draw_ahead(GridObject *self, long *max_steps, ac_forcing_batch *batch);
/* After the run: the generator where its `taken` steps leave it (where the
 * run failed, as before it), and the samples freed. */
void forcing_keep_taken(GridObject *self, ac_forcing_batch *batch, long long taken, int ran);

/* ensemble_binding.c */
PyObject *core_run_cfl_members(PyObject *m, PyObject *args);

/* timestep_binding.c */
PyObject *Grid_signal_speed(GridObject *self, PyObject *args);
PyObject *Grid_get_signal_reads_neighbours(GridObject *self, void *closure);
PyObject *Grid_time_step_rates(GridObject *self, PyObject *args);
PyObject *Grid_cfl_dt(GridObject *self, PyObject *args);
PyObject *Grid_run_steps(GridObject *self, PyObject *args);
/* run's limits of grid g (cdt_dxmin, viscous_dt, cs, full_reduction): 0
 * where the step cannot be found on the device (shock viscosity; no limit) */
int grid_cfl_run_limits(const ac_grid *g, double cdt, double cdtv, ac_cfl_run *run);

/* eos_binding.c */
PyObject *Grid_thermodynamics(GridObject *self, PyObject *args);

/* ops_binding.c */
PyObject *core_derivative(PyObject *m, PyObject *args);
#ifdef ASTAROTH_WITH_CUDA
PyObject *core_derivative_device(PyObject *m, PyObject *args);
#endif

#endif /* ASTAROTH_BINDING_H */
