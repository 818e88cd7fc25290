/*
 * parameters.c -- the physics parameters of a Grid, by name.
 *
 * The rows of csrc/parameters.def (switches, modules, parameters) and of
 * csrc/fields.h (fields) become C arrays here; Grid(...) fills each
 * parameter's ac_grid member (offsetof) from a dict {name: value}, refusing
 * unknown names, values out of bounds and values for modules that are off,
 * each naming the parameter; the *_table() functions hand the rows to
 * Python (astaroth/parameters.py), which derives everything else from them.
 */
#define NO_IMPORT_ARRAY
#include "binding.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    const char *keyword, *kind, *off, *description;
} switch_row;

typedef struct {
    const char *name;
    unsigned bit;
    const char *keyword, *value;
    int flags;
    const char *description;
} module_row;

typedef struct {
    const char *name, *module, *term, *kind, *unit, *description;
    int components; /* 1 (REAL) or 3 (VECTOR) */
    double dflt, lower, upper;
    int lower_open, upper_open, restart, flags;
    size_t offset; /* of the ac_grid member */
} parameter_row;

#define AC_COMPONENTS_REAL 1
#define AC_COMPONENTS_VECTOR 3

static const switch_row switches[] = {
#define AC_SWITCH(keyword, kind, off, description) {#keyword, #kind, off, description},
#include "parameters.def"
#undef AC_SWITCH
};

static const module_row modules[] = {
#define AC_MODULE(name, bit, keyword, value, flags, description)                                                     \
    {#name, (unsigned)(bit), #keyword, value, flags, description},
#include "parameters.def"
#undef AC_MODULE
};

static const parameter_row parameters[] = {
#define AC_PARAMETER(name, module, term, kind, dflt, lower, lower_open, upper, upper_open, restart, flags, unit,       \
                     description)                                                                                      \
    {#name, #module, #term, #kind, unit, description, AC_COMPONENTS_##kind, dflt, lower, upper, lower_open, upper_open, \
     restart, flags, offsetof(ac_grid, name)},
#include "parameters.def"
#undef AC_PARAMETER
};

enum {
    NUM_SWITCHES = sizeof switches / sizeof switches[0],
    NUM_MODULES = sizeof modules / sizeof modules[0],
    NUM_PARAMETERS = sizeof parameters / sizeof parameters[0],
};

static unsigned module_bit(const char *name)
{
    for (int i = 0; i < NUM_MODULES; ++i)
        if (strcmp(modules[i].name, name) == 0)
            return modules[i].bit;
    return 0u;
}

static const char *module_name(unsigned bit)
{
    for (int i = 0; i < NUM_MODULES; ++i)
        if (modules[i].bit == bit)
            return modules[i].name;
    return "";
}

/* The bits a module row's own switch does not choose: always on. */
static unsigned always_on(void)
{
    unsigned bits = 0u;
    for (int i = 0; i < NUM_MODULES; ++i)
        if (modules[i].keyword[0] == '\0')
            bits |= modules[i].bit;
    return bits;
}

int parameters_check_modules(unsigned long mask)
{
    unsigned known = 0u;
    for (int i = 0; i < NUM_MODULES; ++i)
        known |= modules[i].bit;
    if ((mask & ~(unsigned long)known) != 0 || (mask & always_on()) != always_on() ||
        !ac_modules_valid((unsigned)mask)) {
        PyErr_Format(PyExc_ValueError,
                     "modules = %lu is not a configuration: it must hold the modules that are always on (%u), "
                     "only modules of this build (%u), and a module's copy only with the copy before it (%u)",
                     mask, always_on(), known, (unsigned)AC_MODULE_COPIES);
        return -1;
    }
    return 0;
}

static const parameter_row *find_parameter(const char *name)
{
    for (int i = 0; i < NUM_PARAMETERS; ++i)
        if (strcmp(parameters[i].name, name) == 0)
            return &parameters[i];
    return NULL;
}

/* "nu, cs, eta, ...": the names, for messages */
static PyObject *parameter_names(void)
{
    PyObject *list = PyList_New(NUM_PARAMETERS), *sep = NULL, *joined = NULL;
    if (!list)
        return NULL;
    for (int i = 0; i < NUM_PARAMETERS; ++i) {
        PyObject *s = PyUnicode_FromString(parameters[i].name);
        if (!s)
            goto done;
        PyList_SET_ITEM(list, i, s);
    }
    if ((sep = PyUnicode_FromString(", ")))
        joined = PyUnicode_Join(sep, list);
done:
    Py_XDECREF(sep);
    Py_DECREF(list);
    return joined;
}

/* The short name of a parameter's description, the part before ':', into out. */
static const char *short_meaning(const parameter_row *p, char *out, size_t size)
{
    const char *colon = strchr(p->description, ':');
    const size_t n = colon ? (size_t)(colon - p->description) : strlen(p->description);
    PyOS_snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p->description);
    return out;
}

/* One number of parameter p (component c of a vector, -1 for a scalar),
 * checked: finite and within bounds. */
static int parameter_value(const parameter_row *p, PyObject *obj, int c, double *out)
{
    char where[16] = "";
    if (c >= 0)
        PyOS_snprintf(where, sizeof where, "[%d]", c);
    if (PyBool_Check(obj) || !PyNumber_Check(obj) || PyComplex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s%s must be a real number, not %R", p->name, where, obj);
        return -1;
    }
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    char meaning[128];
    short_meaning(p, meaning, sizeof meaning);
    if (!isfinite(v)) {
        PyErr_Format(PyExc_ValueError, "%s%s (%s) must be finite, got %R", p->name, where, meaning, obj);
        return -1;
    }
    const int below = p->lower_open ? !(v > p->lower) : !(v >= p->lower);
    const int above = p->upper_open ? !(v < p->upper) : !(v <= p->upper);
    if (below || above) {
        char bound[64];
        if (below)
            PyOS_snprintf(bound, sizeof bound, "%s %.17g", p->lower_open ? ">" : ">=", p->lower);
        else
            PyOS_snprintf(bound, sizeof bound, "%s %.17g", p->upper_open ? "<" : "<=", p->upper);
        PyErr_Format(PyExc_ValueError, "%s%s (%s) must be %s, got %R", p->name, where, meaning, bound, obj);
        return -1;
    }
    *out = v;
    return 0;
}

int parameters_fill(ac_grid *g, PyObject *params)
{
    if (!PyDict_Check(params)) {
        PyErr_Format(PyExc_TypeError, "params must be a dict {name: value}, not %.100s", Py_TYPE(params)->tp_name);
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "parameter names are strings, got %R", key);
            return -1;
        }
        const parameter_row *p = find_parameter(name);
        if (!p) {
            PyObject *names = parameter_names();
            if (names) {
                PyErr_Format(PyExc_ValueError, "unknown parameter '%s'; parameters are %U", name, names);
                Py_DECREF(names);
            }
            return -1;
        }
        double v[3];
        if (p->components == 1) {
            if (parameter_value(p, value, -1, &v[0]) < 0)
                return -1;
        } else {
            PyObject *seq = PySequence_Check(value) ? PySequence_Fast(value, "") : NULL;
            if (!seq || PySequence_Fast_GET_SIZE(seq) != p->components) {
                Py_XDECREF(seq);
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "%s must be a sequence of %d real numbers (x, y, z), not %R", p->name,
                             p->components, value);
                return -1;
            }
            for (int c = 0; c < p->components; ++c)
                if (parameter_value(p, PySequence_Fast_GET_ITEM(seq, c), c, &v[c]) < 0) {
                    Py_DECREF(seq);
                    return -1;
                }
            Py_DECREF(seq);
        }
        const unsigned bit = module_bit(p->module);
        for (int c = 0; c < p->components; ++c)
            if (!(g->modules & bit) && v[c] != p->dflt) {
                PyErr_Format(PyExc_ValueError, "%s belongs to the module '%s', which is off in this configuration",
                             p->name, p->module);
                return -1;
            }
        double *member = (double *)((char *)g + p->offset);
        for (int c = 0; c < p->components; ++c)
            member[c] = v[c];
    }
    return 0;
}

/* A dict built by Py_BuildValue's format, appended to list; -1 on failure. */
static int append_row(PyObject *list, PyObject *row)
{
    if (!row)
        return -1;
    const int r = PyList_Append(list, row);
    Py_DECREF(row);
    return r;
}

PyObject *core_parameter_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < NUM_PARAMETERS; ++i) {
        const parameter_row *p = &parameters[i];
        const char *kind = p->components == 1 ? "real" : "vector";
        if (append_row(list, Py_BuildValue("{s:s,s:s,s:s,s:s,s:i,s:d,s:d,s:O,s:d,s:O,s:O,s:O,s:O,s:s,s:s}",
                                           "name", p->name, "module", p->module, "term", p->term, "kind", kind,
                                           "components", p->components, "default", p->dflt, "lower", p->lower,
                                           "lower_open", p->lower_open ? Py_True : Py_False, "upper", p->upper,
                                           "upper_open", p->upper_open ? Py_True : Py_False, "restart",
                                           p->restart ? Py_True : Py_False, "term_switch",
                                           (p->flags & AC_PARAMETER_TERM_SWITCH) ? Py_True : Py_False, "needs_55p",
                                           (p->flags & AC_PARAMETER_55P) ? Py_True : Py_False, "unit",
                                           p->unit, "description", p->description)) < 0)
            Py_CLEAR(list);
    }
    return list;
}

PyObject *core_module_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < NUM_MODULES; ++i) {
        const module_row *r = &modules[i];
        if (append_row(list, Py_BuildValue("{s:s,s:I,s:s,s:s,s:O,s:s}", "name", r->name, "bit", r->bit, "switch",
                                           r->keyword, "value", r->value, "needs_55p",
                                           (r->flags & AC_PARAMETER_55P) ? Py_True : Py_False, "description",
                                           r->description)) < 0)
            Py_CLEAR(list);
    }
    return list;
}

PyObject *core_switch_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < NUM_SWITCHES; ++i) {
        const switch_row *r = &switches[i];
        const char *kind = strcmp(r->kind, "FLAG") == 0 ? "flag" : strcmp(r->kind, "COUNT") == 0 ? "count" : "choice";
        if (append_row(list, Py_BuildValue("{s:s,s:s,s:s,s:s}", "keyword", r->keyword, "kind", kind, "off", r->off,
                                           "description", r->description)) < 0)
            Py_CLEAR(list);
    }
    return list;
}

PyObject *core_field_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    static const char *const roles[] = {"scalar", "x", "y", "z"};
    PyObject *list = PyList_New(0);
#define AC_FIELD_ROW(name, module, role)                                                                              \
    if (list && append_row(list, Py_BuildValue("(sss)", #name, module_name((unsigned)(module)), roles[role])) < 0)    \
        Py_CLEAR(list);
    AC_FIELD_TABLE(AC_FIELD_ROW)
#undef AC_FIELD_ROW
    return list;
}

void term_phrase(const char *term, char *out, size_t size)
{
    int count = 0;
    char names[200];
    size_t used = 0;
    names[0] = '\0';
    for (int i = 0; i < NUM_PARAMETERS && used < sizeof names; ++i)
        if (strcmp(parameters[i].term, term) == 0)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", count++ ? ", " : "",
                                     parameters[i].name);
    if (count)
        snprintf(out, size, "'%s' (parameter%s %s)", term, count > 1 ? "s" : "", names);
    else
        snprintf(out, size, "'%s'", term);
}

/* The rows of csrc/terms/terms.def: name, module, description. */
PyObject *core_term_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
#define AC_TERM(name, NAME, module, description)                                                                       \
    if (list && append_row(list, Py_BuildValue("{s:s,s:s,s:s}", "name", #name, "module",                              \
                                               module_name((unsigned)(module)), "description", description)) < 0)     \
        Py_CLEAR(list);
#include "../terms/terms.def"
#undef AC_TERM
    return list;
}
