//go:build godlpack_python

/* hooks.c: os.register_at_fork of this runtime's hooks (forksafe.go says why every
 * Go runtime registers its own): the before hook (wait.c), and the after hooks,
 * which call Go (AfterForkParent, AfterForkChild) with the GIL held. */
#include "gd_python.h"
#include "_cgo_export.h"

#include <errno.h>

PyObject *gd_before_fork(PyObject *self, PyObject *unused); /* wait.c */
int gd_fork_register_prepare(void);                          /* wait.c */

static PyObject *after_parent(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    goForkAfterParent();
    Py_RETURN_NONE;
}

static PyObject *after_child(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    goForkAfterChild();
    Py_RETURN_NONE;
}

static PyMethodDef hook_defs[] = {
    {"_before_fork", gd_before_fork, METH_NOARGS, "_before_fork()\n--\n\nInternal: os.fork hook."},
    {"_after_fork_parent", after_parent, METH_NOARGS,
     "_after_fork_parent()\n--\n\nInternal: os.fork hook."},
    {"_after_fork_child", after_child, METH_NOARGS,
     "_after_fork_child()\n--\n\nInternal: os.fork hook."},
};

/* Registers the hooks, named in module's name (GIL held, at module exec): 0, or -1
 * with an exception. */
int gd_fork_register(PyObject *module) {
    PyObject *modname = PyModule_GetNameObject(module);
    if (modname == NULL) {
        return -1;
    }
    PyObject *before = PyCFunction_NewEx(&hook_defs[0], NULL, modname);
    PyObject *parent = PyCFunction_NewEx(&hook_defs[1], NULL, modname);
    PyObject *child = PyCFunction_NewEx(&hook_defs[2], NULL, modname);
    Py_DECREF(modname);
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
    /* fork()'s own last look (wait.c), after every Python before hook. */
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
