//go:build godlpack_python

/* ext_constant.c: a module's IntEnum classes (godlpack.IntEnum, ext_constant.go),
 * made by enum's functional API as a Python module's own would be. */
#include "ext.h"

/* Adds to module m the class enum.IntEnum(name, [(names[i], values[i])...],
 * module=module) with docstring doc, and with export each member as a module
 * attribute too. 0, or -1 with an exception (GIL held). */
int gd_ext_add_intenum(PyObject *m, const char *module, const char *name, const char *doc, int n,
                       const char **names, const int64_t *values, int export) {
    PyObject *members = PyList_New(n), *cls = NULL;
    if (members == NULL) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue("(sL)", names[i], (long long)values[i]);
        if (item == NULL) {
            Py_DECREF(members);
            return -1;
        }
        PyList_SET_ITEM(members, i, item);
    }
    PyObject *enum_mod = PyImport_ImportModule("enum");
    PyObject *int_enum = enum_mod != NULL ? PyObject_GetAttrString(enum_mod, "IntEnum") : NULL;
    Py_XDECREF(enum_mod);
    if (int_enum != NULL) {
        PyObject *args = Py_BuildValue("(sO)", name, members);
        PyObject *kw = Py_BuildValue("{ss}", "module", module);
        if (args != NULL && kw != NULL) {
            cls = PyObject_Call(int_enum, args, kw);
        }
        Py_XDECREF(args);
        Py_XDECREF(kw);
        Py_DECREF(int_enum);
    }
    Py_DECREF(members);
    if (cls == NULL) {
        return -1;
    }
    PyObject *docstr = PyUnicode_FromString(doc);
    int rc = docstr == NULL ? -1 : PyObject_SetAttrString(cls, "__doc__", docstr);
    Py_XDECREF(docstr);
    for (int i = 0; rc == 0 && export && i < n; i++) {
        PyObject *v = PyObject_GetAttrString(cls, names[i]);
        rc = v == NULL ? -1 : PyModule_AddObjectRef(m, names[i], v);
        Py_XDECREF(v);
    }
    if (rc == 0) {
        rc = PyModule_AddObjectRef(m, name, cls);
    }
    Py_DECREF(cls);
    return rc;
}
