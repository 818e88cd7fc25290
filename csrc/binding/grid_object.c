/*
 * grid_object.c -- the Grid type of astaroth._core: a backend object owning
 * the fields of one simulation, created from a configuration (a bit mask of
 * modules, csrc/fields.h) and its parameters by name (csrc/parameters.def),
 * stepped and reduced here; its arrays (array_export.c) and forcing
 * (forcing_binding.c) have their own files.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"
#include "../reach.h"
#include "../split_steps.h"
#include "../timeseries.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int boundaries_fill(ac_grid *g, PyObject *seq);

static int Grid_init(GridObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"backend", "precision", "method", "shape", "spacing", "origin", "offset", "modules",
                             "params", "boundaries", "shearing", NULL};
    const char *backend, *precision, *method;
    int n[3], offset[3] = {0, 0, 0};
    double spacing[3], origin[3] = {0.0, 0.0, 0.0};
    unsigned long modules = AC_MODULE_HYDRO;
    PyObject *params = NULL, *boundaries = NULL;
    ac_shear_boundary shearing = {0.0, {0.0, 0.0}, 0, 0};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sss(iii)(ddd)|(ddd)(iii)kO!O(ddii)", kwlist, &backend, &precision,
                                     &method, &n[0], &n[1], &n[2], &spacing[0], &spacing[1], &spacing[2], &origin[0],
                                     &origin[1], &origin[2], &offset[0], &offset[1], &offset[2], &modules, &PyDict_Type,
                                     &params, &boundaries, &shearing.length[0], &shearing.length[1], &shearing.ny,
                                     &shearing.local))
        return -1;
    if (parameters_check_modules(modules) < 0)
        return -1;
    const ac_backend_ops *ops = ac_find_backend(backend);
    if (!ops) {
        PyErr_Format(PyExc_ValueError, "backend '%s' is not built in this installation", backend);
        return -1;
    }
    ac_precision prec;
    if (strcmp(precision, "float32") == 0)
        prec = AC_FLOAT32;
    else if (strcmp(precision, "float64") == 0)
        prec = AC_FLOAT64;
    else {
        PyErr_Format(PyExc_ValueError, "precision must be 'float32' or 'float64', not '%s'", precision);
        return -1;
    }
    ac_method meth;
    if (strcmp(method, "55p") == 0)
        meth = AC_METHOD_55P;
    else if (strcmp(method, "19p") == 0)
        meth = AC_METHOD_19P;
    else {
        PyErr_Format(PyExc_ValueError, "method must be '55p' or '19p', not '%s'", method);
        return -1;
    }
    for (int a = 0; a < 3; ++a)
        if (n[a] < 1 || !(spacing[a] > 0.0)) {
            PyErr_SetString(PyExc_ValueError, "shape and spacing must be positive");
            return -1;
        }
    if (self->self) {
        PyErr_SetString(PyExc_RuntimeError, "Grid is already initialised");
        return -1;
    }
    ac_grid grid = ac_grid_make(n, spacing, origin, (unsigned)modules, prec == AC_FLOAT64 ? 8 : 4, ops->row_align_bytes);
    for (int a = 0; a < 3; ++a)
        grid.offset[a] = offset[a]; /* a subdomain's place in the global grid */
    if (params && parameters_fill(&grid, params) < 0)
        return -1;
    if (boundaries && boundaries != Py_None && boundaries_fill(&grid, boundaries) < 0)
        return -1;
    grid.bc.shear = shearing; /* the box and y points of the whole grid: Python's Simulation gives them */
    if ((ac_grid_terms(&grid) & AC_TERM_SHEAR) && !(shearing.length[0] > 0.0 && shearing.length[1] > 0.0 &&
                                                    shearing.ny >= grid.n[1])) {
        PyErr_SetString(PyExc_ValueError, "shear needs shearing=(Lx, Ly, ny, local) of the whole box");
        return -1;
    }
    if (ac_choose_path(&grid, meth) == AC_PATH_NONE && ac_path_missing_term(&grid) < 0) {
        PyErr_Format(PyExc_ValueError, "method='%s' does not read the parameter %s: it needs method='55p'", method,
                     ac_hydro_path_unread(&grid));
        return -1;
    }
    if (ac_choose_path(&grid, meth) == AC_PATH_NONE) { /* a term that only the 55-point loops run */
        char term[256];
        term_phrase(ac_term_names[ac_path_missing_term(&grid)], term, sizeof term);
        PyErr_Format(PyExc_ValueError,
                     "method='%s' runs plain hydrodynamics only (continuity, advection, pressure, viscosity); the "
                     "term %s needs method='55p'",
                     method, term);
        return -1;
    }
    for (int t = 0; t < AC_TERM_ROWS; ++t)
        if (ac_grid_terms(&grid) & ops->terms_missing & (1u << t)) {
            char term[256];
            term_phrase(ac_term_names[t], term, sizeof term);
            PyErr_Format(PyExc_ValueError, "the term %s does not run on the %s backend yet: use backend='cpu'", term,
                         ops->name);
            return -1;
        }
    char configuration[160];
    unsigned kernel_terms = 0u;
    if (ops->configuration_missing &&
        ops->configuration_missing(&grid, meth, configuration, sizeof configuration, &kernel_terms)) {
        char terms[600] = "";
        size_t at = 0;
        for (int t = 0; t < AC_TERM_ROWS && at < sizeof terms; ++t)
            if (kernel_terms & (1u << t)) {
                char term[256];
                term_phrase(ac_term_names[t], term, sizeof term);
                at += (size_t)snprintf(terms + at, sizeof terms - at, " %s %s", at ? "and" : "with the term", term);
            }
        PyErr_Format(PyExc_ValueError,
                     "this build holds no %s kernel for the configuration %s%s: csrc/cuda/instances.def lists those "
                     "it holds (add a row and install again), or use backend='cpu'",
                     ops->name, configuration, terms);
        return -1;
    }
    self->ops = ops;
    self->grid = grid;
    self->precision = prec;
    void *backend_self = NULL;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ops->create(&self->grid, prec, meth, &backend_self);
    Py_END_ALLOW_THREADS
    if (st != AC_OK) {
        raise_status(st, self, "creating the simulation");
        return -1;
    }
    self->self = backend_self;
    return 0;
}

static void Grid_dealloc(GridObject *self)
{
    if (self->self)
        self->ops->destroy(self->self);
    PyMem_Free(self->forcing.k);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int check_ready(GridObject *self)
{
    if (!self->self) {
        PyErr_SetString(PyExc_RuntimeError, "Grid is not initialised");
        return 0;
    }
    return 1;
}

int check_field(const GridObject *self, int field)
{
    if (field < 0 || field >= self->grid.fields) {
        PyErr_Format(PyExc_IndexError, "field index %d out of range 0..%d", field, self->grid.fields - 1);
        return 0;
    }
    return 1;
}

int numpy_type(const GridObject *self)
{
    return self->precision == AC_FLOAT64 ? NPY_FLOAT64 : NPY_FLOAT32;
}

static PyObject *Grid_step(GridObject *self, PyObject *args)
{
    double dt;
    long count = 1;
    int profile_current = 0;
    if (!PyArg_ParseTuple(args, "d|lp", &dt, &count, &profile_current) || !check_ready(self))
        return NULL;
    if (!(dt > 0.0) || count < 0) {
        PyErr_SetString(PyExc_ValueError, "dt must be positive and count non-negative");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->forcing.count == 0 ? self->ops->step(self->self, dt, count, profile_current)
                                  : forced_steps(self, dt, count, profile_current);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "step");
    Py_RETURN_NONE;
}

/* Whether `periodic` is a mask of the axes (bit a: axis a); else a
 * ValueError naming `method`. */
static int axis_mask(unsigned periodic, const char *method)
{
    if (periodic <= 7u)
        return 1;
    PyErr_Format(PyExc_ValueError, "%s: periodic is a mask of the axes x, y, z (0 to 7)", method);
    return 0;
}

/* substep_region(s, dt, lo, hi, periodic=0, stream=0): substep s of the
 * 55-point method over the interior box lo <= index < hi, ghost zones
 * filled by the caller (the halo exchange of astaroth/parallel.py) but for
 * those of the axes in `periodic` that region_wraps names, queued on the
 * CUDA stream `stream` (0: the grid's own).  Does not wait for the GPU. */
static PyObject *Grid_substep_region(GridObject *self, PyObject *args)
{
    int s;
    double dt;
    ac_region r;
    unsigned long long stream = 0;
    r.periodic = 0u;
    if (!PyArg_ParseTuple(args, "id(iii)(iii)|IK", &s, &dt, &r.lo[0], &r.lo[1], &r.lo[2], &r.hi[0], &r.hi[1],
                          &r.hi[2], &r.periodic, &stream) ||
        !check_ready(self) || !axis_mask(r.periodic, "substep_region"))
        return NULL;
    for (int a = 0; a < 3; ++a)
        if (r.lo[a] < 0 || r.hi[a] > self->grid.n[a] || r.lo[a] > r.hi[a]) {
            PyErr_SetString(PyExc_ValueError, "substep_region: the region must lie inside the grid");
            return NULL;
        }
    if (s < 0 || s > 2 || !(dt > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "substep_region: substep must be 0, 1 or 2 and dt positive");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->substep_region(self->self, s, dt, &r, (void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "substep_region (decomposed grids need the 55-point method)");
    Py_RETURN_NONE;
}

/* copy_boxes(arrays, array_count, boxes, buffers, box_count, largest,
 * unpack, stream=0): the boxes of a split grid's messages between padded
 * arrays and their buffers (backend.h ac_box_copies; the tables' addresses
 * in the backend's memory), on the GPU queued on a CUDA stream. */
static PyObject *Grid_copy_boxes(GridObject *self, PyObject *args)
{
    unsigned long long arrays, boxes, buffers, stream = 0;
    ac_box_copies c;
    int unpack;
    if (!PyArg_ParseTuple(args, "KiKKiLp|K", &arrays, &c.array_count, &boxes, &buffers, &c.box_count, &c.largest,
                          &unpack, &stream) ||
        !check_ready(self))
        return NULL;
    if (!self->ops->copy_boxes)
        return raise_status(AC_ERR_UNSUPPORTED, self, "copy_boxes");
    c.arrays = (void *const *)(uintptr_t)arrays;
    c.boxes = (const long long *)(uintptr_t)boxes;
    c.buffers = (void *const *)(uintptr_t)buffers;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->copy_boxes(self->self, &c, unpack, (void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "copy_boxes");
    Py_RETURN_NONE;
}

/* Whether set s of fill_ghost_axis and shear_ghosts names one of the shock
 * profile's arrays (backend.h's AC_SHOCK_SET) that the grid has. */
static int is_shock_set(GridObject *self, int s)
{
    return s >= AC_SHOCK_SET && s <= AC_SHOCK_SET + 1 && self->ops->shock_data &&
           self->ops->shock_data(self->self, s - AC_SHOCK_SET);
}

/* region_wraps(periodic): the axes among `periodic` (bit a: axis a) whose
 * ghost values substep_region reads from periodic images in place. */
static PyObject *Grid_region_wraps(GridObject *self, PyObject *args)
{
    unsigned periodic;
    if (!PyArg_ParseTuple(args, "I", &periodic) || !check_ready(self) || !axis_mask(periodic, "region_wraps"))
        return NULL;
    return PyLong_FromUnsignedLong(self->ops->region_wraps ? self->ops->region_wraps(self->self, periodic) : 0u);
}

/* fill_ghost_axis(s, axis, stream=0): ghost zones of one axis of set s (an
 * axis a split grid does not split, or this subdomain's wall faces of a
 * split wall axis), queued on a CUDA stream. */
static PyObject *Grid_fill_ghost_axis(GridObject *self, PyObject *args)
{
    int s, axis;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "ii|K", &s, &axis, &stream) || !check_ready(self))
        return NULL;
    if (((s < 0 || s > 2) && !is_shock_set(self, s)) || axis < 0 || axis > 2) {
        PyErr_SetString(PyExc_ValueError, "fill_ghost_axis: set and axis must be 0, 1 or 2 (the set 3 or 4: the "
                                          "shock profile's arrays, where the grid has them)");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->fill_ghost_axis(self->self, s, axis, (void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "fill_ghost_axis");
    Py_RETURN_NONE;
}

/* set_walls(s): the wall values ('a', 'set') of set s, before its ghosts. */
static PyObject *Grid_set_walls(GridObject *self, PyObject *args)
{
    int s;
    if (!PyArg_ParseTuple(args, "i", &s) || !check_ready(self))
        return NULL;
    if (s < 0 || s > 2) {
        PyErr_SetString(PyExc_ValueError, "set_walls: set must be 0, 1 or 2");
        return NULL;
    }
    if (!self->grid.bc.walls)
        Py_RETURN_NONE;
    if (!self->ops->set_walls)
        return raise_status(AC_ERR_UNSUPPORTED, self, "set_walls");
    const ac_status st = self->ops->set_walls(self->self, s);
    if (st != AC_OK)
        return raise_status(st, self, "set_walls");
    Py_RETURN_NONE;
}

/* The `boundaries` argument: (axis, face, field, kind, value) tuples, one
 * per wall face and field (astaroth/boundaries.py makes them). */
static int boundaries_fill(ac_grid *g, PyObject *seq)
{
    PyObject *fast = PySequence_Fast(seq, "boundaries must be a sequence of (axis, face, field, kind, value)");
    if (!fast)
        return -1;
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < count; ++i) {
        int axis, face, field, kind;
        double value;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iiiid", &axis, &face, &field, &kind, &value)) {
            Py_DECREF(fast);
            return -1;
        }
        if (axis < 0 || axis > 2 || face < 0 || face > 1 || field < 0 || field >= g->fields || kind <= AC_BC_PERIODIC ||
            kind > AC_BC_SET) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "boundaries: entry %zd (%d, %d, %d, %d) is out of range", i, axis, face,
                         field, kind);
            return -1;
        }
        g->bc.kind[axis][face][field] = (unsigned char)kind;
        g->bc.value[axis][face][field] = value;
        g->bc.walls |= 1u << (2 * axis + face);
    }
    Py_DECREF(fast);
    for (int a = 0; a < 3; ++a)
        for (int face = 0; face < 2; ++face)
            for (int f = 0; f < g->fields; ++f)
                if (ac_boundaries_wall(&g->bc, a, face) && g->bc.kind[a][face][f] == AC_BC_PERIODIC) {
                    PyErr_Format(PyExc_ValueError, "boundaries: field %d has no kind on face %d of axis %d", f, face,
                                 a);
                    return -1;
                }
    return 0;
}

static PyObject *Grid_rhs(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->rhs(self->self);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "rhs");
    Py_RETURN_NONE;
}

/* The number a backend operation finds (the GIL released meanwhile), or
 * the exception of its status, naming `what`. */
static PyObject *number_of(GridObject *self, ac_status (*op)(void *, double *), const char *what)
{
    double v = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = op(self->self, &v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, what);
    return PyFloat_FromDouble(v);
}

static PyObject *Grid_max_speed(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    return number_of(self, self->ops->max_speed, "max_speed");
}

/* A run of CFL steps as Python sees it: (t, steps, dt, nonfinite). */
PyObject *cfl_run_result(const ac_cfl_run *run)
{
    return Py_BuildValue("dLdO", run->t, run->taken, run->dt, run->nonfinite ? Py_True : Py_False);
}

/* run_cfl(t, until, cdt, cdtv, max_steps) -> (t, steps, dt, nonfinite): up
 * to max_steps CFL steps with dt found on the device (the backend's
 * run_cfl); None where the backend has none or the step's limits change
 * within the run.  The forcing's random parts are drawn ahead for the
 * steps, and the generator left where the steps taken leave it. */
static PyObject *Grid_run_cfl(GridObject *self, PyObject *args)
{
    ac_cfl_run run = {0};
    double cdt = 0.0, cdtv = 0.0;
    long max_steps = 0;
    if (!PyArg_ParseTuple(args, "ddddl", &run.t, &run.until, &cdt, &cdtv, &max_steps) || !check_ready(self))
        return NULL;
    if (self->ops->run_cfl == NULL || !grid_cfl_run_limits(&self->grid, cdt, cdtv, &run))
        Py_RETURN_NONE;
    if (max_steps < 1) {
        PyErr_SetString(PyExc_ValueError, "run_cfl: max_steps must be positive");
        return NULL;
    }
    ac_forcing_batch batch;
    if (forcing_draw_ahead(self, &max_steps, &batch) < 0)
        return NULL;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->run_cfl(self->self, &run, max_steps, batch.samples ? &batch : NULL);
    Py_END_ALLOW_THREADS
    forcing_keep_taken(self, &batch, run.taken, st == AC_OK);
    if (st == AC_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    if (st != AC_OK)
        return raise_status(st, self, "run");
    return cfl_run_result(&run);
}

static PyObject *Grid_first_nonfinite_field(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    int f = -1;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->first_nonfinite_field(self->self, &f);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "first_nonfinite_field");
    return PyLong_FromLong(f);
}

/* shock_profile() -> the shock viscosity zeta of the fields now (docs/guide/hyperdiffusion.md),
 * dense, x fastest; None where the grid has no shock viscosity. */
static PyObject *Grid_shock_profile(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    if (self->ops->shock_profile == NULL || !(ac_grid_terms(&self->grid) & AC_TERM_SHOCK))
        Py_RETURN_NONE;
    npy_intp dims[3] = {self->grid.n[0], self->grid.n[1], self->grid.n[2]};
    PyObject *out = PyArray_EMPTY(3, dims, numpy_type(self), 1);
    if (!out)
        return NULL;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->shock_profile(self->self, PyArray_DATA((PyArrayObject *)out));
    Py_END_ALLOW_THREADS
    if (st != AC_OK) {
        Py_DECREF(out);
        return raise_status(st, self, "shock profile");
    }
    return out;
}

/* shock_max(made=False) */
static PyObject *Grid_shock_max(GridObject *self, PyObject *args)
{
    int made = 0;
    if (!PyArg_ParseTuple(args, "|p", &made) || !check_ready(self))
        return NULL;
    if (self->ops->shock_max == NULL || !(ac_grid_terms(&self->grid) & AC_TERM_SHOCK))
        Py_RETURN_NONE;
    double v = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->shock_max(self->self, made, &v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "shock profile maximum");
    return PyFloat_FromDouble(v);
}

/* timeseries() -> {name: value}: a time-series row's means and extrema of the
 * fields now (csrc/timeseries.h), those of the grid's modules; on a grid
 * with walls not those of second derivatives (J), which are not the
 * analysis functions' there. */
static PyObject *Grid_timeseries(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    double v[AC_TS_VALUES];
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->timeseries(self->self, v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "time-series row");
    PyObject *out = PyDict_New();
    if (!out)
        return NULL;
    for (int q = 0; q < AC_TS_VALUES; ++q) {
        static const char *const names[AC_TS_VALUES] = {
#define AC_TS_NAME(name, module, kind, reach) #name,
            AC_TIMESERIES_TABLE(AC_TS_NAME)
#undef AC_TS_NAME
        };
        static const unsigned modules[AC_TS_VALUES] = {
#define AC_TS_MODULE(name, module, kind, reach) (unsigned)(module),
            AC_TIMESERIES_TABLE(AC_TS_MODULE)
#undef AC_TS_MODULE
        };
        static const int reaches[AC_TS_VALUES] = {
#define AC_TS_REACH(name, module, kind, reach) reach,
            AC_TIMESERIES_TABLE(AC_TS_REACH)
#undef AC_TS_REACH
        };
        if (!(self->grid.modules & modules[q]) || (reaches[q] == 2 && self->grid.bc.walls))
            continue;
        PyObject *x = PyFloat_FromDouble(v[q]);
        if (!x || PyDict_SetItemString(out, names[q], x) < 0) {
            Py_XDECREF(x);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(x);
    }
    return out;
}

static PyObject *Grid_poison_scratch(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    ac_status st = self->ops->poison_scratch(self->self);
    if (st != AC_OK)
        return raise_status(st, self, "poison_scratch");
    Py_RETURN_NONE;
}

/* The backend's shearing box (boundaries.h), or NULL with an exception. */
static ac_shear_boundary *shear_boundary(GridObject *self)
{
    if (!check_ready(self))
        return NULL;
    if (!self->ops->boundaries) {
        raise_status(AC_ERR_UNSUPPORTED, self, "the shearing box's deltay");
        return NULL;
    }
    return &self->ops->boundaries(self->self)->shear;
}

static PyObject *Grid_get_deltay(GridObject *self, void *Py_UNUSED(closure))
{
    const ac_shear_boundary *b = shear_boundary(self);
    return b ? PyFloat_FromDouble(b->deltay) : NULL;
}

static int Grid_set_deltay(GridObject *self, PyObject *value, void *Py_UNUSED(closure))
{
    ac_shear_boundary *b = shear_boundary(self);
    const double v = value ? PyFloat_AsDouble(value) : NAN;
    if (!b || (v == -1.0 && PyErr_Occurred()))
        return -1;
    if (!isfinite(v)) {
        PyErr_SetString(PyExc_ValueError, "deltay must be a finite number");
        return -1;
    }
    b->deltay = v;
    return 0;
}

/* shear_advance(s, dt): deltay after substep s of a step dt (terms/shear.h),
 * for a grid split over MPI ranks, whose substeps Python sequences. */
static PyObject *Grid_shear_advance(GridObject *self, PyObject *args)
{
    int s;
    double dt;
    if (!PyArg_ParseTuple(args, "id", &s, &dt))
        return NULL;
    ac_shear_boundary *b = shear_boundary(self);
    if (!b)
        return NULL;
    if (s < 0 || s > 2 || !(dt > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "shear_advance: substep must be 0, 1 or 2 and dt positive");
        return NULL;
    }
    if (ac_grid_terms(&self->grid) & AC_TERM_SHEAR)
        ac_shear_advance(b, self->grid.shear, s, dt);
    Py_RETURN_NONE;
}

/* shear_ghosts(s, face, source): the shifted x ghosts of one face of set s
 * from the opposite face's planes (backend.h), a C-ordered array (fields,
 * nz, ny, 3) of the grid's dtype, ny the whole grid's; set 3 or 4: the shock
 * profile's array 0 or 1 (shock_address), one field. */
static PyObject *Grid_shear_ghosts(GridObject *self, PyObject *args)
{
    int s, face;
    PyArrayObject *source;
    if (!PyArg_ParseTuple(args, "iiO!", &s, &face, &PyArray_Type, &source) || !shear_boundary(self))
        return NULL;
    const ac_grid *g = &self->grid;
    const int shock = s >= AC_SHOCK_SET, fields = shock ? 1 : g->fields;
    const npy_intp expected = (npy_intp)fields * g->n[2] * self->ops->boundaries(self->self)->shear.ny * AC_GHOST;
    if (s < 0 || s > AC_SHOCK_SET + 1 || face < 0 || face > 1 || !self->ops->shear_ghosts ||
        (shock && !is_shock_set(self, s)) ||
        PyArray_TYPE(source) != numpy_type(self) || !PyArray_IS_C_CONTIGUOUS(source) ||
        PyArray_SIZE(source) != expected) {
        PyErr_SetString(PyExc_ValueError, "shear_ghosts(set, face, source): set 0-2 (or 3-4, the shock profile's "
                                          "arrays where the grid has them), face 0 or 1, source C-contiguous "
                                          "(fields, nz, ny, 3) of the grid's dtype");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->shear_ghosts(self->self, s, face, PyArray_DATA(source));
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "shear_ghosts");
    Py_RETURN_NONE;
}

static void backend_handle_free(PyObject *capsule)
{
    PyMem_Free(PyCapsule_GetPointer(capsule, AC_BACKEND_HANDLE_CAPSULE));
}

/* backend_handle() -> a capsule of this grid's backend (split_steps.h), for
 * astaroth._split, which holds the grid while it holds the capsule. */
static PyObject *Grid_backend_handle(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    ac_backend_handle *handle = PyMem_Malloc(sizeof *handle);
    if (!handle)
        return PyErr_NoMemory();
    handle->ops = self->ops;
    handle->self = self->self;
    handle->grid = &self->grid;
    handle->shear_advance = ac_shear_advance;
    PyObject *capsule = PyCapsule_New(handle, AC_BACKEND_HANDLE_CAPSULE, backend_handle_free);
    if (!capsule)
        PyMem_Free(handle);
    return capsule;
}

static PyObject *Grid_get_backend(GridObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(self->ops ? self->ops->name : "");
}

static PyObject *Grid_get_padded_shape(GridObject *self, void *Py_UNUSED(closure))
{
    return Py_BuildValue("(iii)", self->grid.m[0], self->grid.m[1], self->grid.m[2]);
}

static PyObject *Grid_get_interior_start(GridObject *self, void *Py_UNUSED(closure))
{
    return Py_BuildValue("(iii)", self->grid.lo[0], self->grid.lo[1], self->grid.lo[2]);
}

static PyMethodDef Grid_methods[] = {
    {"step", (PyCFunction)Grid_step, METH_VARARGS,
     "step(dt, count=1, profile_current=False): count full RK3 steps of length dt; profile_current: no field has "
     "changed since the last shock_profile or shock_max (views included), whose shock profile the first step may "
     "then take."},
    {"rhs", (PyCFunction)Grid_rhs, METH_NOARGS, "rhs(): time derivatives of the current fields into buffer 1."},
    {"substep_region", (PyCFunction)Grid_substep_region, METH_VARARGS,
     "substep_region(s, dt, lo, hi, periodic=0, stream=0): substep s over an interior box; ghost zones filled by the "
     "caller, but for those of the axes of the mask `periodic` that region_wraps(periodic) names; queued on a CUDA "
     "stream (0: the grid's own)."},
    {"region_wraps", (PyCFunction)Grid_region_wraps, METH_VARARGS,
     "region_wraps(periodic) -> the axes among the mask `periodic` (unsplit axes) whose ghost values substep_region "
     "reads from periodic images in place, so that the caller need not fill them (0 on the CPU)."},
    {"add_forcing", (PyCFunction)Grid_add_forcing, METH_VARARGS, "add_forcing(dt): the forcing of one step."},
    {"copy_boxes", (PyCFunction)Grid_copy_boxes, METH_VARARGS,
     "copy_boxes(arrays, array_count, boxes, buffers, box_count, largest, unpack, stream=0): the boxes of a split "
     "grid's messages between its padded arrays and their buffers, on the GPU in one launch (the tables' addresses "
     "in the backend's memory: csrc/backend.h ac_box_copies)."},
    {"fill_ghost_axis", (PyCFunction)Grid_fill_ghost_axis, METH_VARARGS,
     "fill_ghost_axis(set, axis, stream=0): ghost zones of one axis (periodic, or its wall faces), queued on a CUDA "
     "stream; set 3, 4: the shock profile's arrays."},
    {"shear_advance", (PyCFunction)Grid_shear_advance, METH_VARARGS,
     "shear_advance(s, dt): the shearing box's deltay after substep s of a step dt (a split grid's substeps)."},
    {"shear_ghosts", (PyCFunction)Grid_shear_ghosts, METH_VARARGS,
     "shear_ghosts(set, face, source): the shifted x ghosts of one face of set s (3, 4: the shock profile's "
     "arrays) from the opposite face's 3 interior x planes at every y, source (fields, nz, ny, 3)."},
    {"set_walls", (PyCFunction)Grid_set_walls, METH_VARARGS,
     "set_walls(set): the wall values ('a': 0, 'set': its value) of set s, before its ghost zones are filled."},
    {"shock_address", (PyCFunction)Grid_shock_address, METH_VARARGS,
     "shock_address(which) -> address of the shock profile's padded array (0: zeta, 1: scratch), or None."},
    {"shock_profile_pass", (PyCFunction)Grid_shock_profile_pass, METH_VARARGS,
     "shock_profile_pass(pass) -> which: one of the shock profile's passes, from 0, for a split grid's exchanges "
     "between them: the padded array it wrote (shock_address), None after the last."},
    {"shock_pass_reads", (PyCFunction)Grid_shock_pass_reads, METH_VARARGS,
     "shock_pass_reads(pass) -> the axes (bit a: axis a) whose ghost zones that pass reads of what the pass before "
     "wrote, which a split grid exchanges between them (csrc/terms/shock.h)."},
    {"padded_address", (PyCFunction)Grid_padded_address, METH_VARARGS,
     "padded_address(s, field) -> address of the padded array that RK3 substep s reads (0: the fields)."},
    {"max_speed", (PyCFunction)Grid_max_speed, METH_NOARGS, "max_speed() -> max |u| (NaN if not finite)."},
    {"timeseries", (PyCFunction)Grid_timeseries, METH_NOARGS,
     "timeseries() -> {name: value}: a time-series row's means and extrema of the fields now (csrc/timeseries.h), "
     "those of the grid's modules (with walls, not J's)."},
    {"shock_profile", (PyCFunction)Grid_shock_profile, METH_NOARGS,
     "shock_profile() -> the shock viscosity zeta of the fields now (dense), or None without shock viscosity."},
    {"shock_max", (PyCFunction)Grid_shock_max, METH_VARARGS,
     "shock_max(made=False) -> max of the shock viscosity zeta of the fields now, found where they are (made: of "
     "the profile shock_profile_pass left, a split grid's, not made again); None where the backend has no such "
     "reduction (then shock_profile().max()) or without shock viscosity."},
    {"run_cfl", (PyCFunction)Grid_run_cfl, METH_VARARGS,
     "run_cfl(t, until, cdt, cdtv, max_steps) -> (t, steps, dt, nonfinite), or None where the backend cannot find "
     "dt on the device (the CPU, shock viscosity, 19p): CFL steps without waiting between them."},
    {"signal_speed", (PyCFunction)Grid_signal_speed, METH_VARARGS,
     "signal_speed(fill_ghosts=True) -> max over the grid of the CFL step's signal speed (csrc/timestep.h; NaN if not "
     "finite); fill_ghosts=False where the ghost zones of the fields were exchanged (split grids)."},
    {"time_step_rates", (PyCFunction)Grid_time_step_rates, METH_VARARGS,
     "time_step_rates(max_zeta=0) -> (dxmin, diffusion, hyper, (field, parameter) or None, (field, parameter) or "
     "None): the rates of the CFL step's limits and the field and parameter of the largest diffusivity of each "
     "order."},
    {"thermodynamics", (PyCFunction)Grid_thermodynamics, METH_VARARGS,
     "thermodynamics(lnrho, ss=None) -> (lnTT, cs2, p) as float64 arrays: the equation of state (csrc/eos/) of "
     "this grid's gas at the given points (lnTT NaN for the isothermal gas)."},
    {"run_steps", (PyCFunction)Grid_run_steps, METH_VARARGS,
     "run_steps(t, until, cdt, cdtv, max_steps, taken, check_every, seconds=inf, stop_file=None, split=None) -> (t, "
     "steps, dt, nonfinite): CFL steps toward until taken in C on the host (dt, forcing, NaN checks), bit for bit "
     "those of Simulation.run's loop, returning after the step that ends past `seconds` or in which stop_file "
     "appears; split: the steps of a grid split over MPI ranks (astaroth._split), which agree on all of it."},
    {"backend_handle", (PyCFunction)Grid_backend_handle, METH_NOARGS,
     "backend_handle() -> a capsule of the grid's backend for astaroth._split (csrc/split_steps.h)."},
    {"cfl_dt", (PyCFunction)Grid_cfl_dt, METH_VARARGS,
     "cfl_dt(speed, max_zeta, cdt, cdtv) -> (dt, limit): the CFL step and what limits it ('advective', "
     "'diffusive', 'hyper'), or (inf, None)."},
    {"first_nonfinite_field", (PyCFunction)Grid_first_nonfinite_field, METH_NOARGS,
     "first_nonfinite_field() -> index of the first field with NaN/Inf, or -1."},
    {"read", (PyCFunction)Grid_read, METH_VARARGS, "read(which, field) -> dense copy (which: 0 fields, 1 rhs)."},
    {"write", (PyCFunction)Grid_write, METH_VARARGS, "write(field, array): set a field's interior."},
    {"host_view", (PyCFunction)Grid_host_view, METH_VARARGS, "host_view(which, field) -> zero-copy NumPy view."},
    {"interior_address", (PyCFunction)Grid_interior_address, METH_VARARGS,
     "interior_address(which, field) -> address of the first interior point."},
    {"poison_scratch", (PyCFunction)Grid_poison_scratch, METH_NOARGS,
     "poison_scratch(): fill every scratch array with NaN (for tests)."},
    {"dlpack", (PyCFunction)Grid_dlpack, METH_VARARGS, "dlpack(which, field) -> DLPack capsule of the interior."},
    {"dlpack_device", (PyCFunction)Grid_dlpack_device, METH_NOARGS, "dlpack_device() -> (device_type, id)."},
    {"set_forcing", (PyCFunction)Grid_set_forcing, METH_VARARGS,
     "set_forcing(k, f0, seed) or set_forcing(None): the forcing applied after every step."},
    {"draw_forcing", (PyCFunction)Grid_draw_forcing, METH_VARARGS,
     "draw_forcing(dt) -> (k, amplitude, phase): the next forcing term (advances the generator)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Grid_getset[] = {
    {"backend", (getter)Grid_get_backend, NULL, "name of the backend", NULL},
    {"padded_shape", (getter)Grid_get_padded_shape, NULL, "shape including ghost zones", NULL},
    {"interior_start", (getter)Grid_get_interior_start, NULL, "padded index of interior point 0 per axis", NULL},
    {"signal_reads_neighbours", (getter)Grid_get_signal_reads_neighbours, NULL,
     "whether the signal speed reads gradients (B from A): a split grid exchanges ghost zones first", NULL},
    {"deltay", (getter)Grid_get_deltay, (setter)Grid_set_deltay,
     "the shearing box's shift of the x faces along y (terms/shear.h), advanced by every step", NULL},
    {"forcing_state", (getter)Grid_get_forcing_state, (setter)Grid_set_forcing_state,
     "state of the forcing's random generator (64-bit integer)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject GridType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "astaroth._core.Grid",
    .tp_doc = "Grid(backend, precision, method, shape, spacing, origin=(0, 0, 0), offset=(0, 0, 0), modules, "
              "params={}, boundaries=None, shearing=(Lx, Ly, ny, local)): the fields of one simulation on one backend; modules a bit mask of "
              "module_table()'s bits, params a dict {name: value} of parameter_table()'s parameters (the others keep "
              "their defaults), boundaries (axis, face, field, kind, value) tuples of its wall faces "
              "(astaroth/boundaries.py). "
              "Use astaroth.Simulation instead.",
    .tp_basicsize = sizeof(GridObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Grid_init,
    .tp_dealloc = (destructor)Grid_dealloc,
    .tp_methods = Grid_methods,
    .tp_getset = Grid_getset,
};

