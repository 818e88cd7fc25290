/*
 * eos_binding.c -- the equation of state of a Grid (csrc/eos/eos.h) on
 * arrays, for astaroth/thermo.py: the temperature, sound speed and pressure
 * of given lnrho and ss, in double, by the same functions the solver uses.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include "../reach.h"

/* thermodynamics(lnrho, ss=None) -> (lnTT, cs2, p): float64 arrays of
 * lnrho's shape (lnTT NaN for the isothermal gas); ss: the entropy of each
 * point with the entropy module. */
PyObject *Grid_thermodynamics(GridObject *self, PyObject *args)
{
    PyObject *lnrho_in = NULL, *ss_in = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &lnrho_in, &ss_in))
        return NULL;
    const int entropy = (self->grid.modules & AC_MODULE_ENTROPY) != 0;
    if (entropy == (ss_in == Py_None)) {
        PyErr_SetString(PyExc_ValueError, entropy ? "thermodynamics: the entropy module needs ss"
                                                  : "thermodynamics: ss is given without the entropy module");
        return NULL;
    }
    PyArrayObject *lnrho = (PyArrayObject *)PyArray_FROMANY(lnrho_in, NPY_FLOAT64, 0, 0, NPY_ARRAY_CARRAY_RO);
    PyArrayObject *ss = entropy ? (PyArrayObject *)PyArray_FROMANY(ss_in, NPY_FLOAT64, 0, 0, NPY_ARRAY_CARRAY_RO) : NULL;
    PyObject *out[3] = {NULL, NULL, NULL};
    PyObject *result = NULL;
    if (!lnrho || (entropy && !ss))
        goto done;
    const npy_intp count = PyArray_SIZE(lnrho);
    if (entropy && PyArray_SIZE(ss) != count) {
        PyErr_SetString(PyExc_ValueError, "thermodynamics: lnrho and ss differ in size");
        goto done;
    }
    for (int i = 0; i < 3; ++i)
        if (!(out[i] = PyArray_SimpleNew(PyArray_NDIM(lnrho), PyArray_DIMS(lnrho), NPY_FLOAT64)))
            goto done;
    const ac_physics_params p = make_physics_params(&self->grid);
    const unsigned modules = self->grid.modules;
    const double *l = (const double *)PyArray_DATA(lnrho), *s = entropy ? (const double *)PyArray_DATA(ss) : NULL;
    double *lntt = PyArray_DATA((PyArrayObject *)out[0]), *cs2 = PyArray_DATA((PyArrayObject *)out[1]),
           *pressure = PyArray_DATA((PyArrayObject *)out[2]);
    for (npy_intp n = 0; n < count; ++n) {
        const double ssn = s ? s[n] : 0.0;
        lntt[n] = eos_log_temperature(modules, &p, l[n], ssn);
        cs2[n] = eos_sound_speed2(modules, &p, l[n], ssn);
        pressure[n] = eos_pressure(modules, &p, l[n], ssn);
    }
    result = Py_BuildValue("(OOO)", out[0], out[1], out[2]);
done:
    for (int i = 0; i < 3; ++i)
        Py_XDECREF(out[i]);
    Py_XDECREF(lnrho);
    Py_XDECREF(ss);
    return result;
}
