/*
 * errors.c -- status codes (grid.h) as Python exceptions.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <stdio.h>

#ifdef ASTAROTH_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

PyObject *raise_status(ac_status status, const GridObject *g, const char *what)
{
    switch (status) {
    case AC_ERR_NO_MEMORY: {
        if (g) {
            /* the backend's sets of the grid's fields (the 19-point method adds div u) */
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
    case AC_ERR_COMMUNICATION:
        PyErr_Format(PyExc_RuntimeError, "%s: a message between the MPI ranks failed (the MPI library's or CUDA's "
                                         "reason is on standard error)", what);
        break;
    default:
        PyErr_Format(PyExc_RuntimeError, "%s: unknown error %d", what, (int)status);
    }
    return NULL;
}
