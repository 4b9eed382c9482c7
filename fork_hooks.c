//go:build godlpack_python

/* fork_hooks.c: os.register_at_fork of this library's hooks (fork_hooks.go says
 * why every Go runtime registers its own): the before hook in C (fork_wait.c), the
 * after hooks through the extension API's call path. */
#include "ext.h"

#include <errno.h>

PyObject *gd_before_fork(PyObject *self, PyObject *unused); /* fork_wait.c */
PyObject *gd_ext_function(PyObject *module, gd_ext_func *f); /* ext_module.c */
int gd_fork_register_prepare(void);                          /* fork_wait.c */

static PyMethodDef before_fork_def = {"_before_fork", gd_before_fork, METH_NOARGS,
                                      "Internal: os.fork hook (fork.go)."};

/* Registers the hooks (GIL held, at module exec): 0, or -1 with an exception. */
int gd_fork_register(PyObject *module, gd_ext_func *after_parent, gd_ext_func *after_child) {
    PyObject *modname = PyModule_GetNameObject(module);
    if (modname == NULL) {
        return -1;
    }
    PyObject *before = PyCFunction_NewEx(&before_fork_def, NULL, modname);
    Py_DECREF(modname);
    PyObject *parent = gd_ext_function(module, after_parent);
    PyObject *child = gd_ext_function(module, after_child);
    PyObject *os = PyImport_ImportModule("os");
    PyObject *reg = os != NULL ? PyObject_GetAttrString(os, "register_at_fork") : NULL;
    PyObject *kw = PyDict_New();
    int rc = -1;
    if (before != NULL && parent != NULL && child != NULL && reg != NULL && kw != NULL &&
        PyDict_SetItemString(kw, "before", before) == 0 &&
        PyDict_SetItemString(kw, "after_in_parent", parent) == 0 &&
        PyDict_SetItemString(kw, "after_in_child", child) == 0) {
        PyObject *empty = PyTuple_New(0);
        PyObject *r = empty != NULL ? PyObject_Call(reg, empty, kw) : NULL;
        Py_XDECREF(empty);
        rc = r != NULL ? 0 : -1;
        Py_XDECREF(r);
    }
    /* fork()'s own last look (fork_wait.c), after every Python before hook. */
    int err = rc == 0 ? gd_fork_register_prepare() : 0;
    if (err != 0) {
        errno = err;
        PyErr_SetFromErrno(PyExc_OSError);
        rc = -1;
    }
    Py_XDECREF(kw);
    Py_XDECREF(reg);
    Py_XDECREF(os);
    Py_XDECREF(child);
    Py_XDECREF(parent);
    Py_XDECREF(before);
    return rc;
}
