/*
 * array_export.c -- a Grid's arrays for Python: dense NumPy copies in and
 * out, zero-copy NumPy views (CPU), raw addresses (the device views of
 * astaroth/device.py build __cuda_array_interface__ from them) and DLPack
 * capsules.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <stdint.h>

#include "../reach.h" /* terms/shock.h: the profile's passes */
#include "cpu/cpu_backend.h"
#ifdef ASTAROTH_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

/* padded_address(s, field) -> address of the whole padded array of one
 * field of the set substep s (0, 1, 2) reads, in the backend's memory. */
PyObject *Grid_padded_address(GridObject *self, PyObject *args)
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

/* shock_address(which) -> address of the padded array of the shock
 * profile (0: zeta, 1: its scratch array), or None without one */
PyObject *Grid_shock_address(GridObject *self, PyObject *args)
{
    int which;
    if (!PyArg_ParseTuple(args, "i", &which) || !check_ready(self))
        return NULL;
    void *data = self->ops->shock_data && (which == 0 || which == 1) ? self->ops->shock_data(self->self, which) : NULL;
    if (!data)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(data);
}

/* shock_profile_pass(pass) -> which: pass `pass` of the shock profile of the
 * fields (csrc/cpu/point_impl.h: shock_profile_pass), for a split grid that
 * exchanges between passes; which padded array it wrote (0: zeta, 1: the
 * scratch array: shock_address), or None after the last */
PyObject *Grid_shock_profile_pass(GridObject *self, PyObject *args)
{
    int pass;
    if (!PyArg_ParseTuple(args, "i", &pass) || !check_ready(self))
        return NULL;
    if (!self->ops->shock_profile_pass)
        return raise_status(AC_ERR_UNSUPPORTED, self, "shock_profile_pass");
    ac_status st;
    int written = -1;
    Py_BEGIN_ALLOW_THREADS
    st = self->ops->shock_profile_pass(self->self, pass, &written);
    Py_END_ALLOW_THREADS
    if (st != AC_OK)
        return raise_status(st, self, "shock_profile_pass");
    if (written < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(written);
}

/* shock_pass_reads(pass) -> the axes (bit a: axis a) whose ghost zones the
 * shock profile's pass `pass` reads of what the pass before wrote
 * (terms/shock.h), which a split grid exchanges between them */
PyObject *Grid_shock_pass_reads(GridObject *self, PyObject *args)
{
    int pass;
    if (!PyArg_ParseTuple(args, "i", &pass))
        return NULL;
    if (pass < 0 || pass >= AC_SHOCK_PASSES) {
        PyErr_Format(PyExc_ValueError, "shock_pass_reads: pass must be 0 to %d, got %d", AC_SHOCK_PASSES - 1, pass);
        return NULL;
    }
    return PyLong_FromUnsignedLong(shock_pass_reads(pass));
}

/* read(which, field) -> new dense array of shape n, Fortran order */
PyObject *Grid_read(GridObject *self, PyObject *args)
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

/* write(field, array): array must be Fortran-contiguous, shape n, our dtype */
PyObject *Grid_write(GridObject *self, PyObject *args)
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
PyObject *Grid_host_view(GridObject *self, PyObject *args)
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
PyObject *Grid_interior_address(GridObject *self, PyObject *args)
{
    int which, field;
    if (!PyArg_ParseTuple(args, "ii", &which, &field) || !check_ready(self) || !check_field(self, field))
        return NULL;
    void *data = self->ops->interior_data(self->self, which ? AC_BUFFER_RHS : AC_BUFFER_FIELDS, field);
    return PyLong_FromVoidPtr(data);
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
PyObject *Grid_dlpack(GridObject *self, PyObject *args)
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

PyObject *Grid_dlpack_device(GridObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!check_ready(self))
        return NULL;
    dl_device dev;
    dl_device_of(self, &dev);
    return Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
}

