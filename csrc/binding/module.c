/*
 * module.c -- astaroth._core, the CPython binding: PyInit__core and the
 * module's functions (backends, OpenMP threads, CUDA devices, the tables of
 * fields, modules and parameters).  csrc/binding/binding.h lists the other
 * files by concern.
 */
#include "binding.h"
#include "../reach.h"

#include "cpu/cpu_backend.h"
#ifdef ASTAROTH_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

#include <string.h>

const ac_backend_ops *const ac_all_backends[] = {
    &ac_cpu_backend,
#ifdef ASTAROTH_WITH_CUDA
    &ac_cuda_backend,
#endif
};
const int ac_num_backends = sizeof ac_all_backends / sizeof ac_all_backends[0];

const ac_backend_ops *ac_find_backend(const char *name)
{
    for (int b = 0; b < ac_num_backends; ++b)
        if (strcmp(ac_all_backends[b]->name, name) == 0)
            return ac_all_backends[b];
    return NULL;
}

static PyObject *core_backends(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (int b = 0; b < ac_num_backends; ++b) {
        PyObject *name = PyUnicode_FromString(ac_all_backends[b]->name);
        if (!name || PyList_Append(list, name) < 0) {
            Py_XDECREF(name);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(name);
    }
    return list;
}

/* terms_missing(backend) -> the names of the terms (terms/terms.def) the backend does not run yet */
static PyObject *core_terms_missing(PyObject *Py_UNUSED(m), PyObject *args)
{
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    const ac_backend_ops *ops = ac_find_backend(name);
    if (!ops) {
        PyErr_Format(PyExc_ValueError, "no backend '%s' in this build", name);
        return NULL;
    }
    PyObject *list = PyList_New(0);
    for (int t = 0; list && t < AC_TERM_ROWS; ++t) {
        if (!(ops->terms_missing & (1u << t)))
            continue;
        PyObject *term = PyUnicode_FromString(ac_term_names[t]);
        if (!term || PyList_Append(list, term) < 0)
            Py_CLEAR(list);
        Py_XDECREF(term);
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

static PyObject *core_cuda_shared_member_runs(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(args))
{
    return PyLong_FromUnsignedLongLong(ac_cuda_shared_member_runs());
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
    {"cuda_shared_member_runs", core_cuda_shared_member_runs, METH_NOARGS,
     "Ensemble member runs stepped in shared launches (one launch per substep for all) since the process began."},
    {"derivative_device", core_derivative_device, METH_VARARGS,
     "derivative_device(src, dst, shape, src_strides, dst_strides, float64, axis, n, accuracy, spacing, stream): "
     "periodic central difference of a device array into another (strides in elements), queued on stream."},
#endif
    {"compiled_backends", core_backends, METH_NOARGS, "Backends compiled into this build."},
    {"terms_missing", core_terms_missing, METH_VARARGS,
     "terms_missing(backend) -> the names of the terms (csrc/terms/terms.def) that backend does not run yet."},
    {"run_cfl_members", core_run_cfl_members, METH_VARARGS,
     "run_cfl_members(grids, runs, max_steps) -> [(t, steps, dt, nonfinite), ...] or None: Grid.run_cfl for an "
     "ensemble's grids in shared launches, runs[i] = (t, until, cdt, cdtv)."},
    {"parameter_table", core_parameter_table, METH_NOARGS,
     "parameter_table() -> the rows of csrc/parameters.def, as dicts (name, module, term, kind, components, "
     "default, lower, lower_open, upper, upper_open, restart, term_switch, needs_55p, unit, "
     "description); astaroth.parameters() is built on it."},
    {"module_table", core_module_table, METH_NOARGS,
     "module_table() -> the modules (name, bit, switch, value, needs_55p, description): a module is on when its switch has "
     "its value (switch '': always on)."},
    {"switch_table", core_switch_table, METH_NOARGS,
     "switch_table() -> the keywords that choose modules (keyword, kind 'choice', 'flag' or 'count', off, "
     "description)."},
    {"term_table", core_term_table, METH_NOARGS,
     "term_table() -> the rows of csrc/terms/terms.def (name, module, description), in the order of their bits."},
    {"field_table", core_field_table, METH_NOARGS,
     "field_table() -> the rows of csrc/fields.h as (name, module, role), role 'scalar', 'x', 'y' or 'z', in "
     "memory order."},
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
    PyModule_AddObject(m, "CDTV3", PyFloat_FromDouble(AC_CDTV3)); /* the del6 limit's Courant number (timestep.h) */
    return m;
}
