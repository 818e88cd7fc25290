/*
 * ops_binding.c -- astaroth.ops' periodic central differences of any NumPy
 * array (csrc/cpu/ops.h) and of device arrays (csrc/cuda/ops.h).
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <stdint.h>

#include "cpu/ops.h"
#ifdef ASTAROTH_WITH_CUDA
#include "cuda/ops.h"
#endif

/* derivative(array, axis, derivative, accuracy, spacing) -> new array: the
 * periodic central difference along `axis` of a float32/float64 array */
PyObject *core_derivative(PyObject *Py_UNUSED(m), PyObject *args)
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
PyObject *core_derivative_device(PyObject *Py_UNUSED(m), PyObject *args)
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

