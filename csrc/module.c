/*
 * module.c -- the CPython binding, astaroth._core.
 *
 * One type, Grid: a backend object owning the fields of one simulation.
 * It turns every status code into a Python exception and exposes the
 * fields as NumPy arrays (copies, or zero-copy views on the CPU backend).
 * Argument checking with physicist-facing messages is done in Python
 * (astaroth/simulation.py); this layer still refuses what would crash.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cpu/cpu_backend.h"
#include "cpu/ops.h"
#ifdef ASTAROTH_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

static const ac_backend_ops *const all_backends[] = {
    &ac_cpu_backend,
#ifdef ASTAROTH_WITH_CUDA
    &ac_cuda_backend,
#endif
};
enum { NUM_BACKENDS = sizeof all_backends / sizeof all_backends[0] };

typedef struct {
    PyObject_HEAD
    const ac_backend_ops *ops;
    void *self;
    ac_grid grid;
    ac_precision precision;
    ac_forcing forcing; /* count == 0: no forcing */
} GridObject;

/* Raise the Python exception for a status code; returns NULL for chaining. */
static PyObject *raise_status(ac_status status, const GridObject *g, const char *what)
{
    switch (status) {
    case AC_ERR_NO_MEMORY: {
        if (g) {
            /* the backend's sets of 4 fields (the 19-point method adds div u) */
            char need[64];
            snprintf(need, sizeof need, "%.2f",
                     (double)ac_grid_padded_count(&g->grid) * (g->precision == AC_FLOAT64 ? 8 : 4) *
                         (g->grid.fields * g->ops->field_sets) / (1 << 30));
            PyErr_Format(PyExc_MemoryError, "%s: not enough %s memory for a %d x %d x %d grid (about %s GiB needed)",
                         what, g->ops->name, g->grid.n[0], g->grid.n[1], g->grid.n[2], need);
        } else {
            PyErr_Format(PyExc_MemoryError, "%s: out of memory", what);
        }
        break;
    }
    case AC_ERR_ARGUMENT:
        PyErr_Format(PyExc_ValueError, "%s: invalid argument", what);
        break;
    case AC_ERR_DEVICE:
#ifdef ASTAROTH_WITH_CUDA
        PyErr_Format(PyExc_RuntimeError, "%s: CUDA error: %s", what, ac_cuda_last_error());
#else
        PyErr_Format(PyExc_RuntimeError, "%s: device error", what);
#endif
        break;
    case AC_ERR_UNSUPPORTED:
        PyErr_Format(PyExc_NotImplementedError, "%s: not supported by this backend", what);
        break;
    default:
        PyErr_Format(PyExc_RuntimeError, "%s: unknown error %d", what, (int)status);
    }
    return NULL;
}

static const ac_backend_ops *find_backend(const char *name)
{
    for (int b = 0; b < NUM_BACKENDS; ++b)
        if (strcmp(all_backends[b]->name, name) == 0)
            return all_backends[b];
    return NULL;
}

static int Grid_init(GridObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"backend", "precision", "method", "shape", "spacing", "nu", "cs", "origin", "offset",
                             "physics", "eta", "mu0", "b_ext", "nu_hyper3", "diff_hyper3", "nu_shock", NULL};
    const char *backend, *precision, *method, *physics = "hydro";
    int n[3], offset[3] = {0, 0, 0};
    double spacing[3], nu, cs, origin[3] = {0.0, 0.0, 0.0}, eta = 0.0, mu0 = 1.0, b_ext[3] = {0.0, 0.0, 0.0};
    double nu_hyper3 = 0.0, diff_hyper3 = 0.0, nu_shock = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sss(iii)(ddd)dd|(ddd)(iii)sdd(ddd)ddd", kwlist, &backend, &precision,
                                     &method, &n[0], &n[1], &n[2], &spacing[0], &spacing[1], &spacing[2], &nu, &cs,
                                     &origin[0], &origin[1], &origin[2], &offset[0], &offset[1], &offset[2], &physics,
                                     &eta, &mu0, &b_ext[0], &b_ext[1], &b_ext[2], &nu_hyper3, &diff_hyper3, &nu_shock))
        return -1;
    if (strcmp(physics, "hydro") != 0 && strcmp(physics, "mhd") != 0) {
        PyErr_Format(PyExc_ValueError, "physics must be 'hydro' or 'mhd', not '%s'", physics);
        return -1;
    }
    const ac_backend_ops *ops = find_backend(backend);
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
    self->ops = ops;
    self->grid = ac_grid_make(n, spacing, origin, nu, cs, prec == AC_FLOAT64 ? 8 : 4, ops->row_align_bytes);
    for (int a = 0; a < 3; ++a)
        self->grid.offset[a] = offset[a]; /* a subdomain's place in the global grid */
    self->grid.nu_hyper3 = nu_hyper3;
    self->grid.diff_hyper3 = diff_hyper3;
    self->grid.nu_shock = nu_shock;
    if (strcmp(physics, "mhd") == 0) {
        self->grid.fields = AC_MAX_FIELDS;
        self->grid.eta = eta;
        self->grid.mu0 = mu0;
        for (int a = 0; a < 3; ++a)
            self->grid.b_ext[a] = b_ext[a];
    }
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

static int check_ready(GridObject *self)
{
    if (!self->self) {
        PyErr_SetString(PyExc_RuntimeError, "Grid is not initialised");
        return 0;
    }
    return 1;
}

static int check_field(const GridObject *self, int field)
{
    if (field < 0 || field >= self->grid.fields) {
        PyErr_Format(PyExc_IndexError, "field index %d out of range 0..%d", field, self->grid.fields - 1);
        return 0;
    }
    return 1;
}

static int numpy_type(const GridObject *self)
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
    ac_status st = AC_OK;
    Py_BEGIN_ALLOW_THREADS
    if (self->forcing.count == 0) {
        st = self->ops->step(self->self, dt, count, profile_current);
    } else {
        /* the forcing acts after the third substep of every step (DESIGN 1) */
        for (long s = 0; s < count && st == AC_OK; ++s) {
            ac_forcing_term term;
            st = self->ops->step(self->self, dt, 1, s == 0 && profile_current);
            ac_forcing_draw(&self->forcing, dt, &term);
            if (st == AC_OK)
                st = self->ops->add_forcing(self->self, &term, dt);
        }
    }
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "step");
    Py_RETURN_NONE;
}

/* substep_region(s, dt, lo, hi): substep s of the 55-point method over the
 * interior box lo <= index < hi, ghost zones filled by the caller (the
 * halo exchange of astaroth/parallel.py).  Does not wait for the GPU. */
static PyObject *Grid_substep_region(GridObject *self, PyObject *args)
{
    int s;
    double dt;
    ac_region r;
    if (!PyArg_ParseTuple(args, "id(iii)(iii)", &s, &dt, &r.lo[0], &r.lo[1], &r.lo[2], &r.hi[0], &r.hi[1], &r.hi[2]) ||
        !check_ready(self))
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
    st = self->ops->substep_region(self->self, s, dt, &r);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "substep_region (decomposed grids need the 55-point method)");
    Py_RETURN_NONE;
}

/* add_forcing(dt): draw the forcing term of one step and add it (no-op
 * without forcing); what step() does after the third substep. */
static PyObject *Grid_add_forcing(GridObject *self, PyObject *args)
{
    double dt;
    if (!PyArg_ParseTuple(args, "d", &dt) || !check_ready(self))
        return NULL;
    if (self->forcing.count == 0)
        Py_RETURN_NONE;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    ac_forcing_term term;
    ac_forcing_draw(&self->forcing, dt, &term);
    st = self->ops->add_forcing(self->self, &term, dt);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "add_forcing");
    Py_RETURN_NONE;
}

/* fill_ghost_axis(s, axis, stream=0): periodic ghost zones of one axis of
 * set s (an axis a split grid does not split), queued on a CUDA stream. */
static PyObject *Grid_fill_ghost_axis(GridObject *self, PyObject *args)
{
    int s, axis;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "ii|K", &s, &axis, &stream) || !check_ready(self))
        return NULL;
    if (s < 0 || s > 2 || axis < 0 || axis > 2) {
        PyErr_SetString(PyExc_ValueError, "fill_ghost_axis: set and axis must be 0, 1 or 2");
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

/* padded_address(s, field) -> address of the whole padded array of one
 * field of the set substep s (0, 1, 2) reads, in the backend's memory. */
static PyObject *Grid_padded_address(GridObject *self, PyObject *args)
{
    int s, field;
    if (!PyArg_ParseTuple(args, "ii", &s, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    if (s < 0 || s > 2) {
        PyErr_SetString(PyExc_ValueError, "padded_address: set must be 0, 1 or 2");
        return NULL;
    }
    return PyLong_FromVoidPtr(self->ops->padded_data(self->self, s, field));
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
static PyObject *cfl_run_result(const ac_cfl_run *run)
{
    return Py_BuildValue("dLdO", run->t, run->taken, run->dt, run->nonfinite ? Py_True : Py_False);
}

/* run_cfl(t, until, cdt_dxmin, viscous_dt, cs, max_steps) -> (t, steps, dt,
 * nonfinite): up to max_steps CFL steps with dt found on the device (the
 * backend's run_cfl); None where the backend has none or forcing is on. */
static PyObject *Grid_run_cfl(GridObject *self, PyObject *args)
{
    ac_cfl_run run = {0};
    long max_steps = 0;
    if (!PyArg_ParseTuple(args, "dddddl", &run.t, &run.until, &run.cdt_dxmin, &run.viscous_dt, &run.cs, &max_steps) ||
        !check_ready(self))
        return NULL;
    if (self->ops->run_cfl == NULL || self->forcing.count != 0)
        Py_RETURN_NONE; /* the forcing is drawn on the host from each step's dt */
    if (max_steps < 1) {
        PyErr_SetString(PyExc_ValueError, "run_cfl: max_steps must be positive");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->run_cfl(self->self, &run, max_steps);
    Py_END_ALLOW_THREADS
    if (st == AC_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    if (st != AC_OK)
        return raise_status(st, self, "run");
    return cfl_run_result(&run);
}

static PyObject *Grid_max_signal_speed(GridObject *self, PyObject *args)
{
    int fill_ghosts = 1;
    if (!PyArg_ParseTuple(args, "|p", &fill_ghosts) || !check_ready(self))
        return NULL;
    if (!self->ops->max_signal_speed || self->grid.fields != AC_MAX_FIELDS)
        return raise_status(AC_ERR_UNSUPPORTED, self, "max_signal_speed (MHD)");
    double v = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->max_signal_speed(self->self, fill_ghosts, &v);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "max_signal_speed (MHD)");
    return PyFloat_FromDouble(v);
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

/* read(which, field) -> new dense array of shape n, Fortran order */
static PyObject *Grid_read(GridObject *self, PyObject *args)
{
    int which, field;
    if (!PyArg_ParseTuple(args, "ii", &which, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    npy_intp dims[3] = {self->grid.n[0], self->grid.n[1], self->grid.n[2]};
    PyObject *out = PyArray_EMPTY(3, dims, numpy_type(self), 1);
    if (!out)
        return NULL;
    ac_status st = self->ops->read(self->self, which ? AC_BUFFER_RHS : AC_BUFFER_FIELDS, field,
                                   PyArray_DATA((PyArrayObject *)out));
    if (st != AC_OK) {
        Py_DECREF(out);
        return raise_status(st, self, "reading a field");
    }
    return out;
}

/* shock_profile() -> the shock viscosity zeta of the fields now (DESIGN 9),
 * dense, x fastest; None where the grid has no shock viscosity. */
static PyObject *Grid_shock_profile(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    if (self->ops->shock_profile == NULL || self->grid.nu_shock == 0.0)
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

static PyObject *Grid_shock_max(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    if (self->ops->shock_max == NULL || self->grid.nu_shock == 0.0)
        Py_RETURN_NONE;
    return number_of(self, self->ops->shock_max, "shock profile maximum");
}

/* write(field, array): array must be Fortran-contiguous, shape n, our dtype */
static PyObject *Grid_write(GridObject *self, PyObject *args)
{
    int field;
    PyArrayObject *arr;
    if (!PyArg_ParseTuple(args, "iO!", &field, &PyArray_Type, &arr) || !check_ready(self) || !check_field(self, field))
        return NULL;
    if (PyArray_NDIM(arr) != 3 || PyArray_TYPE(arr) != numpy_type(self) || !PyArray_IS_F_CONTIGUOUS(arr) ||
        PyArray_DIM(arr, 0) != self->grid.n[0] || PyArray_DIM(arr, 1) != self->grid.n[1] ||
        PyArray_DIM(arr, 2) != self->grid.n[2]) {
        PyErr_SetString(PyExc_ValueError, "write needs a Fortran-ordered array of the grid's shape and dtype");
        return NULL;
    }
    ac_status st = self->ops->write(self->self, field, PyArray_DATA(arr));
    if (st != AC_OK)
        return raise_status(st, self, "writing a field");
    Py_RETURN_NONE;
}

/* host_view(which, field) -> zero-copy NumPy view of the interior (CPU only) */
static PyObject *Grid_host_view(GridObject *self, PyObject *args)
{
    int which, field;
    if (!PyArg_ParseTuple(args, "ii", &which, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    if (self->ops != &ac_cpu_backend) {
        PyErr_SetString(PyExc_TypeError, "host_view is only available on the cpu backend");
        return NULL;
    }
    const npy_intp es = self->precision == AC_FLOAT64 ? 8 : 4;
    npy_intp dims[3] = {self->grid.n[0], self->grid.n[1], self->grid.n[2]};
    npy_intp strides[3] = {es, es * self->grid.m[0], es * self->grid.m[0] * self->grid.m[1]};
    void *data = self->ops->interior_data(self->self, which ? AC_BUFFER_RHS : AC_BUFFER_FIELDS, field);
    PyObject *view = PyArray_New(&PyArray_Type, 3, dims, numpy_type(self), strides, data, (int)es,
                                 NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED, NULL);
    if (!view)
        return NULL;
    Py_INCREF(self); /* the view keeps the grid (and its memory) alive */
    if (PyArray_SetBaseObject((PyArrayObject *)view, (PyObject *)self) < 0) {
        Py_DECREF(view);
        return NULL;
    }
    return view;
}

/* device_pointer(which, field) -> int address of the interior (any backend) */
static PyObject *Grid_interior_address(GridObject *self, PyObject *args)
{
    int which, field;
    if (!PyArg_ParseTuple(args, "ii", &which, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    void *data = self->ops->interior_data(self->self, which ? AC_BUFFER_RHS : AC_BUFFER_FIELDS, field);
    return PyLong_FromVoidPtr(data);
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

/* ---- DLPack (v0.x ABI): the capsule holds a DLManagedTensor whose manager
 * context keeps the Grid alive until the consumer calls the deleter. */
typedef struct {
    int32_t device_type; /* 1 CPU, 2 CUDA */
    int32_t device_id;
} dl_device;
typedef struct {
    uint8_t code; /* 2 float */
    uint8_t bits;
    uint16_t lanes;
} dl_data_type;
typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_data_type dtype;
    int64_t *shape;
    int64_t *strides; /* in elements */
    uint64_t byte_offset;
} dl_tensor;
typedef struct dl_managed_tensor {
    dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_tensor *self);
} dl_managed_tensor;

typedef struct {
    dl_managed_tensor managed;
    int64_t shape[3], strides[3];
    PyObject *owner;
} dl_export;

static void dl_export_delete(dl_managed_tensor *managed)
{
    dl_export *e = (dl_export *)managed->manager_ctx;
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(e->owner);
    PyGILState_Release(gil);
    PyMem_RawFree(e);
}

static void dl_capsule_destructor(PyObject *capsule)
{
    /* a capsule never consumed still owns its tensor */
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        dl_managed_tensor *managed = (dl_managed_tensor *)PyCapsule_GetPointer(capsule, "dltensor");
        if (managed && managed->deleter)
            managed->deleter(managed);
    }
}

static int dl_device_of(GridObject *self, dl_device *dev)
{
#ifdef ASTAROTH_WITH_CUDA
    if (self->ops == &ac_cuda_backend) {
        dev->device_type = 2;
        dev->device_id = ac_cuda_current_device();
        return 0;
    }
#endif
    dev->device_type = 1;
    dev->device_id = 0;
    return 0;
}

/* dlpack(which, field) -> "dltensor" capsule of the live interior */
static PyObject *Grid_dlpack(GridObject *self, PyObject *args)
{
    int which, field;
    if (!PyArg_ParseTuple(args, "ii", &which, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    dl_export *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    for (int a = 0; a < 3; ++a)
        e->shape[a] = self->grid.n[a];
    e->strides[0] = 1;
    e->strides[1] = self->grid.m[0];
    e->strides[2] = (int64_t)self->grid.m[0] * self->grid.m[1];
    dl_tensor *t = &e->managed.dl_tensor;
    t->data = self->ops->interior_data(self->self, which ? AC_BUFFER_RHS : AC_BUFFER_FIELDS, field);
    dl_device_of(self, &t->device);
    t->ndim = 3;
    t->dtype.code = 2;
    t->dtype.bits = self->precision == AC_FLOAT64 ? 64 : 32;
    t->dtype.lanes = 1;
    t->shape = e->shape;
    t->strides = e->strides;
    t->byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = dl_export_delete;
    Py_INCREF(self);
    e->owner = (PyObject *)self;
    PyObject *capsule = PyCapsule_New(&e->managed, "dltensor", dl_capsule_destructor);
    if (!capsule) {
        dl_export_delete(&e->managed);
        return NULL;
    }
    return capsule;
}

static PyObject *Grid_dlpack_device(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    dl_device dev;
    dl_device_of(self, &dev);
    return Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
}

/* set_forcing(k, f0, seed, relhel=0, kav=0): k an (n, 3) float64 array of
 * physical wave vectors, or None to switch the forcing off; kav > 0 scales
 * every step by that |k| (the Pencil Code's mean |k| of the set) in place of
 * the drawn vector's own (forcing.h) */
static PyObject *Grid_set_forcing(GridObject *self, PyObject *args)
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
    self->forcing.cs = self->grid.cs;
    self->forcing.state = seed;
    self->forcing.relhel = relhel;
    self->forcing.kav = kav > 0.0 ? kav : 0.0;
    Py_RETURN_NONE;
}

static PyObject *Grid_get_forcing_state(GridObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLongLong(self->forcing.state);
}

static int Grid_set_forcing_state(GridObject *self, PyObject *value, void *Py_UNUSED(closure))
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
static PyObject *Grid_draw_forcing(GridObject *self, PyObject *args)
{
    double dt;
    if (!PyArg_ParseTuple(args, "d", &dt))
        return NULL;
    if (self->forcing.count == 0 || !(dt > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "no forcing set, or dt not positive");
        return NULL;
    }
    ac_forcing_term t;
    ac_forcing_draw(&self->forcing, dt, &t);
    return Py_BuildValue("((ddd)(ddd)d)", t.k[0], t.k[1], t.k[2], t.amplitude[0], t.amplitude[1], t.amplitude[2],
                         t.phase);
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
     "substep_region(s, dt, lo, hi): substep s over an interior box; ghost zones filled by the caller."},
    {"add_forcing", (PyCFunction)Grid_add_forcing, METH_VARARGS, "add_forcing(dt): the forcing of one step."},
    {"fill_ghost_axis", (PyCFunction)Grid_fill_ghost_axis, METH_VARARGS,
     "fill_ghost_axis(set, axis, stream=0): periodic ghost zones of one axis, queued on a CUDA stream."},
    {"padded_address", (PyCFunction)Grid_padded_address, METH_VARARGS,
     "padded_address(s, field) -> address of the padded array that RK3 substep s reads (0: the fields)."},
    {"max_speed", (PyCFunction)Grid_max_speed, METH_NOARGS, "max_speed() -> max |u| (NaN if not finite)."},
    {"shock_profile", (PyCFunction)Grid_shock_profile, METH_NOARGS,
     "shock_profile() -> the shock viscosity zeta of the fields now (dense), or None without nu_shock."},
    {"shock_max", (PyCFunction)Grid_shock_max, METH_NOARGS,
     "shock_max() -> max of the shock viscosity zeta of the fields now, found where they are; None where the "
     "backend has no such reduction (then shock_profile().max()) or without nu_shock."},
    {"run_cfl", (PyCFunction)Grid_run_cfl, METH_VARARGS,
     "run_cfl(t, until, cdt_dxmin, viscous_dt, cs, max_steps) -> (t, steps, dt, nonfinite), or None where the "
     "backend cannot find dt on the device (the CPU, forcing): CFL steps without waiting between them."},
    {"max_signal_speed", (PyCFunction)Grid_max_signal_speed, METH_VARARGS,
     "max_signal_speed(fill_ghosts=True) -> MHD: max |u| + sqrt(cs^2 + |B|^2 / (mu0 rho)) (NaN if not finite); "
     "fill_ghosts=False where the ghost zones of the fields were exchanged (split grids)."},
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
    {"forcing_state", (getter)Grid_get_forcing_state, (setter)Grid_set_forcing_state,
     "state of the forcing's random generator (64-bit integer)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GridType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "astaroth._core.Grid",
    .tp_doc = "Grid(backend, precision, method, shape, spacing, nu, cs): the fields of one simulation on one "
              "backend. Use astaroth.Simulation instead.",
    .tp_basicsize = sizeof(GridObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Grid_init,
    .tp_dealloc = (destructor)Grid_dealloc,
    .tp_methods = Grid_methods,
    .tp_getset = Grid_getset,
};

/* run_cfl_members(grids, runs, max_steps) -> [(t, steps, dt, nonfinite), ...]:
 * Grid.run_cfl for an ensemble's grids at once, runs[i] = (t, until,
 * cdt_dxmin, viscous_dt, cs) of grid i; None where they cannot go together
 * (the backend has no such op, forcing is on, or they differ in what one
 * launch needs), and then each runs alone. */
static PyObject *core_run_cfl_members(PyObject *Py_UNUSED(m), PyObject *args)
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
    const ac_backend_ops *ops = NULL;
    if (count < 1 || count > INT_MAX || !selves || !runs) {
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
        const int ok = PyArg_ParseTuple(run, "ddddd", &r->t, &r->until, &r->cdt_dxmin, &r->viscous_dt, &r->cs);
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
        if (grid->ops != ops || !ops->run_cfl_members || grid->forcing.count != 0)
            together = 0;
        selves[i] = grid->self;
    }
    if (together) {
        Py_BEGIN_ALLOW_THREADS
        st = ops->run_cfl_members(selves, runs, (int)count, max_steps);
        Py_END_ALLOW_THREADS
    }
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
    free(selves);
    free(runs);
    Py_DECREF(grids);
    return result;
}

static PyObject *core_backends(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (int b = 0; b < NUM_BACKENDS; ++b) {
        PyObject *name = PyUnicode_FromString(all_backends[b]->name);
        if (!name || PyList_Append(list, name) < 0) {
            Py_XDECREF(name);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(name);
    }
    return list;
}

static PyObject *core_openmp_threads(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
#ifdef _OPENMP
    extern int omp_get_max_threads(void);
    return PyLong_FromLong(omp_get_max_threads());
#else
    return PyLong_FromLong(1);
#endif
}

/* set_openmp_threads(n): OpenMP threads for the CPU work this Python thread
 * starts from now on (each thread has its own count: an ensemble shares the
 * cores out among the members it runs at once). */
static PyObject *core_set_openmp_threads(PyObject *Py_UNUSED(m), PyObject *arg)
{
    const long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 1) {
        PyErr_Format(PyExc_ValueError, "set_openmp_threads: the thread count must be at least 1, got %ld", n);
        return NULL;
    }
#ifdef _OPENMP
    extern void omp_set_num_threads(int);
    omp_set_num_threads(n > 1 << 20 ? 1 << 20 : (int)n);
#endif
    Py_RETURN_NONE;
}

static PyObject *core_cuda_device_count(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
#ifdef ASTAROTH_WITH_CUDA
    return PyLong_FromLong(ac_cuda_device_count());
#else
    return PyLong_FromLong(0);
#endif
}

#ifdef ASTAROTH_WITH_CUDA
static PyObject *core_cuda_memory_info(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    size_t free_bytes = 0, total_bytes = 0;
    ac_status st = ac_cuda_memory_info(&free_bytes, &total_bytes);
    if (st != AC_OK)
        return raise_status(st, NULL, "cuda_memory_info");
    return Py_BuildValue("(nn)", (Py_ssize_t)free_bytes, (Py_ssize_t)total_bytes);
}

static PyObject *core_cuda_set_device(PyObject *Py_UNUSED(m), PyObject *args)
{
    int device;
    if (!PyArg_ParseTuple(args, "i", &device))
        return NULL;
    const int count = ac_cuda_device_count();
    if (device < 0 || device >= count) {
        PyErr_Format(PyExc_ValueError, "cuda_set_device: device %d does not exist (%d visible)", device, count);
        return NULL;
    }
    ac_status st = ac_cuda_set_device(device);
    if (st != AC_OK)
        return raise_status(st, NULL, "cuda_set_device");
    Py_RETURN_NONE;
}

static PyObject *core_cuda_copy_bandwidth(PyObject *Py_UNUSED(m), PyObject *args)
{
    Py_ssize_t bytes;
    int repeats = 10;
    if (!PyArg_ParseTuple(args, "n|i", &bytes, &repeats))
        return NULL;
    if (bytes <= 0 || repeats < 1) {
        PyErr_SetString(PyExc_ValueError, "bytes and repeats must be positive");
        return NULL;
    }
    double bw = 0.0;
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = ac_cuda_copy_bandwidth((size_t)bytes, repeats, &bw);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, NULL, "cuda_copy_bandwidth");
    return PyFloat_FromDouble(bw);
}
#endif

/* derivative(array, axis, derivative, accuracy, spacing) -> new array: the
 * periodic central difference along `axis` of a float32/float64 array */
static PyObject *core_derivative(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *obj;
    int axis, derivative, accuracy;
    double h;
    if (!PyArg_ParseTuple(args, "Oiiid", &obj, &axis, &derivative, &accuracy, &h))
        return NULL;
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_NOTYPE, 1, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (!a)
        return NULL;
    const int type = PyArray_TYPE(a), ndim = PyArray_NDIM(a);
    if ((type != NPY_FLOAT32 && type != NPY_FLOAT64) || axis < 0 || axis >= ndim || (derivative != 1 && derivative != 2) ||
        (accuracy != 2 && accuracy != 4 && accuracy != 6 && accuracy != 8) || !(h > 0.0)) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_ValueError, "derivative: needs a float32/float64 array, a valid axis, n in {1, 2}, "
                                          "accuracy in {2, 4, 6, 8} and a positive spacing");
        return NULL;
    }
    npy_intp outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d)
        outer *= PyArray_DIM(a, d);
    for (int d = axis + 1; d < ndim; ++d)
        inner *= PyArray_DIM(a, d);
    PyObject *out = PyArray_EMPTY(ndim, PyArray_DIMS(a), type, 0);
    if (!out) {
        Py_DECREF(a);
        return NULL;
    }
    const npy_intp n = PyArray_DIM(a, axis);
    void *src = PyArray_DATA(a), *dst = PyArray_DATA((PyArrayObject *)out);
    Py_BEGIN_ALLOW_THREADS
    if (type == NPY_FLOAT64)
        periodic_derivative_f64(src, dst, outer, n, inner, derivative, accuracy, h);
    else
        periodic_derivative_f32(src, dst, outer, n, inner, derivative, accuracy, h);
    Py_END_ALLOW_THREADS
    Py_DECREF(a);
    return out;
}

#ifdef ASTAROTH_WITH_CUDA
#include "cuda/ops.h"

/* A shape or a stride tuple of 1 to 3 integers into 3 entries, padded with `pad`. */
static int device_array_axes(PyObject *seq, Py_ssize_t ndim, ptrdiff_t out[3], ptrdiff_t pad, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, "derivative_device: shape and strides must be sequences of integers");
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != ndim) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "derivative_device: %s needs %zd entries, one per axis", what, ndim);
        return -1;
    }
    for (int a = 0; a < 3; ++a) {
        out[a] = pad;
        if (a < ndim) {
            const long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, a));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(fast);
                return -1;
            }
            out[a] = (ptrdiff_t)v;
        }
    }
    Py_DECREF(fast);
    return 0;
}

/* derivative_device(src, dst, shape, src_strides, dst_strides, float64, axis, n, accuracy, spacing, stream):
 * astaroth.ops' periodic central difference of a 1-, 2- or 3-D device array
 * at address src into the array at dst (strides in elements), queued on the
 * CUDA stream `stream` (0: the legacy default stream, the backend's) without
 * waiting for it, as CuPy's own kernels are. */
static PyObject *core_derivative_device(PyObject *Py_UNUSED(m), PyObject *args)
{
    unsigned long long src, dst, stream;
    PyObject *shape_obj, *src_strides_obj, *dst_strides_obj;
    int is_float64, axis, derivative, accuracy;
    double h;
    if (!PyArg_ParseTuple(args, "KKOOOpiiidK", &src, &dst, &shape_obj, &src_strides_obj, &dst_strides_obj,
                          &is_float64, &axis, &derivative, &accuracy, &h, &stream))
        return NULL;
    const Py_ssize_t ndim = PySequence_Check(shape_obj) ? PySequence_Size(shape_obj) : -1;
    if (ndim < 1 || ndim > 3) {
        PyErr_SetString(PyExc_ValueError, "derivative_device: the array must have 1, 2 or 3 dimensions");
        return NULL;
    }
    ptrdiff_t shape[3], src_strides[3], dst_strides[3];
    if (device_array_axes(shape_obj, ndim, shape, 1, "shape") < 0 ||
        device_array_axes(src_strides_obj, ndim, src_strides, 0, "src_strides") < 0 ||
        device_array_axes(dst_strides_obj, ndim, dst_strides, 0, "dst_strides") < 0)
        return NULL;
    for (int a = 0; a < 3; ++a)
        if (shape[a] < 1 || shape[a] > (1 << 30)) {
            PyErr_Format(PyExc_ValueError, "derivative_device: axis %d has %lld points; 1 to 2^30 are supported", a,
                         (long long)shape[a]);
            return NULL;
        }
    if (src == 0 || dst == 0 || axis < 0 || axis >= ndim || (derivative != 1 && derivative != 2) ||
        (accuracy != 2 && accuracy != 4 && accuracy != 6 && accuracy != 8) || !(h > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "derivative_device: needs device addresses, a valid axis, n in {1, 2}, "
                                          "accuracy in {2, 4, 6, 8} and a positive spacing");
        return NULL;
    }
    ac_status st;
    Py_BEGIN_ALLOW_THREADS
    st = (is_float64 ? cuda_periodic_derivative_f64 : cuda_periodic_derivative_f32)(
        (const void *)(uintptr_t)src, (void *)(uintptr_t)dst, shape, src_strides, dst_strides, axis, derivative,
        accuracy, h, (void *)(uintptr_t)stream);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, NULL, "derivative on the GPU");
    Py_RETURN_NONE;
}
#endif

static PyMethodDef core_methods[] = {
    {"derivative", core_derivative, METH_VARARGS,
     "derivative(array, axis, n, accuracy, spacing) -> periodic central difference along axis."},
    {"cuda_device_count", core_cuda_device_count, METH_NOARGS, "CUDA GPUs visible (0 without a CUDA build)."},
#ifdef ASTAROTH_WITH_CUDA
    {"cuda_memory_info", core_cuda_memory_info, METH_NOARGS, "(free, total) device memory in bytes."},
    {"cuda_set_device", core_cuda_set_device, METH_VARARGS, "cuda_set_device(i): later simulations run on GPU i."},
    {"cuda_copy_bandwidth", core_cuda_copy_bandwidth, METH_VARARGS,
     "cuda_copy_bandwidth(bytes, repeats=10) -> device-to-device copy bytes/s (read + written), best of repeats."},
    {"derivative_device", core_derivative_device, METH_VARARGS,
     "derivative_device(src, dst, shape, src_strides, dst_strides, float64, axis, n, accuracy, spacing, stream): "
     "periodic central difference of a device array into another (strides in elements), queued on stream."},
#endif
    {"compiled_backends", core_backends, METH_NOARGS, "Backends compiled into this build."},
    {"run_cfl_members", core_run_cfl_members, METH_VARARGS,
     "run_cfl_members(grids, runs, max_steps) -> [(t, steps, dt, nonfinite), ...] or None: Grid.run_cfl for an "
     "ensemble's grids in shared launches, runs[i] = (t, until, cdt_dxmin, viscous_dt, cs)."},
    {"openmp_threads", core_openmp_threads, METH_NOARGS, "OpenMP threads the CPU backend will use."},
    {"set_openmp_threads", core_set_openmp_threads, METH_O,
     "set_openmp_threads(n): OpenMP threads for the CPU work this Python thread starts."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "astaroth._core", "astaroth's C core: backends and their fields.", -1, core_methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    if (PyType_Ready(&GridType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    Py_INCREF(&GridType);
    if (PyModule_AddObject(m, "Grid", (PyObject *)&GridType) < 0) {
        Py_DECREF(&GridType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "GHOST_WIDTH", AC_GHOST);
    return m;
}
