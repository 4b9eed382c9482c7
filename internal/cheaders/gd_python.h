/* gd_python.h: the CPython helpers that more than one cgo package of godlpack uses
 * (the extension API in the root package, the godlpack module in
 * internal/arraymodule, the embedding runtime in pyembed): wrappers for CPython
 * macros and variadic functions cgo cannot call, exceptions raised from Go, and the
 * C functions internal/cpython defines for the others (NumPy arrays lent by their
 * fields, immortal objects). Python.h comes first, as CPython requires. */
#ifndef GD_PYTHON_H
#define GD_PYTHON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "dlpack_abi.h"
#include "immortal.h"

/* Call a producer's deleter (a C function pointer), if it has one: the one
 * place a foreign tensor is released (internal/arraymodule/owner.c, and imports
 * that fail before an owner takes the tensor). A NULL deleter means the producer
 * keeps its memory itself. */
static inline void gd_call_deleter(void *m, int versioned) {
    if (m == NULL) {
        return;
    }
    if (versioned) {
        DLManagedTensorVersioned *v = m;
        if (v->deleter != NULL) {
            v->deleter(v);
        }
    } else {
        DLManagedTensor *l = m;
        if (l->deleter != NULL) {
            l->deleter(l);
        }
    }
}
/* Whether the interpreter is finalizing or gone: a release that would touch Python
 * then leaks instead (taking the GIL can hang or end the thread), and Go's calls into
 * an embedded or hosting interpreter are refused (gil.go). No GIL needed. */
static inline int gd_interpreter_gone(void) {
#if PY_VERSION_HEX >= 0x030D0000
    return !Py_IsInitialized() || Py_IsFinalizing();
#else
    return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}
/* Releasing what a producer gave us (its capsule, its tensor's deleter) may run the
 * producer's Python code: a destructor that runs Python with our exception pending can
 * lose it, and CPython then reports "returned NULL without setting an exception"
 * (SystemError) instead of our BufferError. So every release on an error path keeps the
 * pending exception aside while the producer's code runs. */
static inline void gd_decref_keep_error(PyObject *o) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_DECREF(o);
    PyErr_Restore(type, value, tb);
}
static inline void gd_call_deleter_keep_error(void *m, int versioned) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    gd_call_deleter(m, versioned);
    PyErr_Restore(type, value, tb);
}

static inline int gd_error_is_type_error(void) { return PyErr_ExceptionMatches(PyExc_TypeError); }

/* numpy.ndarray's own fields (internal/cpython/numpy_lend.c), for gd_lend_foreign and for an
 * extension's own argument conversion (ext_call.c). */
int gd_numpy_type_is(PyTypeObject *tp);
int gd_numpy_lend(PyObject *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim);

/* ---- errors raised from Go (Python's exception objects are C globals) ---- */
enum { GD_ERR_TYPE = 1, GD_ERR_VALUE, GD_ERR_BUFFER, GD_ERR_INDEX, GD_ERR_OVERFLOW,
       GD_ERR_MEMORY, GD_ERR_RUNTIME };
/* Inline, in this shared header: the extension API, the godlpack module and the
 * embedding runtime raise through it, each from its own package's C. */
static inline void gd_raise(int kind, const char *msg) {
    PyObject *exc;
    switch (kind) {
    case GD_ERR_TYPE: exc = PyExc_TypeError; break;
    case GD_ERR_VALUE: exc = PyExc_ValueError; break;
    case GD_ERR_BUFFER: exc = PyExc_BufferError; break;
    case GD_ERR_INDEX: exc = PyExc_IndexError; break;
    case GD_ERR_OVERFLOW: exc = PyExc_OverflowError; break;
    case GD_ERR_MEMORY: exc = PyExc_MemoryError; break;
    default: exc = PyExc_RuntimeError; break;
    }
    PyErr_SetString(exc, msg);
}

/* ---- small wrappers for CPython macros and variadics cgo cannot call ---- */
static inline void gd_incref(PyObject *o) { Py_INCREF(o); }
static inline void gd_decref(PyObject *o) { Py_DECREF(o); }
static inline void gd_xdecref(PyObject *o) { Py_XDECREF(o); }
/* Whether asarray may convert x (copy it) after its __dlpack__ refused with
 * BufferError: only through the buffer protocol or as a sequence; for anything
 * else the producer's refusal (a device, a dtype) is the answer. */
static inline int gd_converts_after_refusal(PyObject *x) {
    return PyObject_CheckBuffer(x) || PyList_Check(x) || PyTuple_Check(x);
}
static inline PyObject *gd_none(void) { Py_RETURN_NONE; }
static inline PyObject *gd_bool(int v) { return PyBool_FromLong(v); }
static inline PyObject *gd_true(void) { return Py_True; }   /* borrowed */
static inline PyObject *gd_false(void) { return Py_False; } /* borrowed */
static inline int gd_is_none(PyObject *o) { return o == Py_None; }
static inline int gd_is_true(PyObject *o) { return o == Py_True; }
static inline int gd_is_false(PyObject *o) { return o == Py_False; }
static inline int gd_is_ellipsis(PyObject *o) { return o == Py_Ellipsis; }
static inline int gd_tuple_check(PyObject *o) { return PyTuple_Check(o); }
static inline int gd_list_check(PyObject *o) { return PyList_Check(o); }
static inline int gd_long_check(PyObject *o) { return PyLong_Check(o); }
static inline int gd_float_check(PyObject *o) { return PyFloat_Check(o); }
static inline int gd_complex_check(PyObject *o) { return PyComplex_Check(o); }
static inline int gd_bool_check(PyObject *o) { return PyBool_Check(o); }
static inline int gd_unicode_check(PyObject *o) { return PyUnicode_Check(o); }
static inline int gd_bytes_check_exact(PyObject *o) { return PyBytes_CheckExact(o); }
static inline int gd_dict_check(PyObject *o) { return PyDict_Check(o); }
/* The dict a conversion walks with PyDict_Next (a new reference): a copy, made by
 * PyDict_Copy, which reads the dict under its lock on a free-threaded build (another
 * thread may resize it and free the table PyDict_Next reads). On every build the walk
 * then reads one instant's items: converting an item may run Python code (its
 * __index__, a callback's), which could otherwise change the dict under the walk,
 * and borrowed keys and values stay held by the copy. */
static inline PyObject *gd_dict_for_walk(PyObject *d) { return PyDict_Copy(d); }
/* The list or tuple a conversion walks (a new reference): a tuple itself (its items
 * cannot change), a list's items copied into a new list at one instant, by
 * PyList_GetSlice, under the list's lock on a free-threaded build. The copy reads the
 * list's own storage: a subclass's __len__ and __getitem__ are not asked (one whose
 * __len__ lies sized a Go allocation). Its items are then read with
 * gd_seq_snapshot_item, borrowed from the copy, which nothing else can change. */
static inline PyObject *gd_seq_snapshot(PyObject *s) {
    return PyTuple_Check(s) ? Py_NewRef(s) : PyList_GetSlice(s, 0, PY_SSIZE_T_MAX);
}
static inline Py_ssize_t gd_seq_snapshot_len(PyObject *s) { return Py_SIZE(s); }
static inline PyObject *gd_seq_snapshot_item(PyObject *s, Py_ssize_t i) {
    return PyTuple_Check(s) ? PyTuple_GET_ITEM(s, i) : PyList_GET_ITEM(s, i);
}
static inline int gd_slice_check(PyObject *o) { return PySlice_Check(o); }
static inline int gd_index_check(PyObject *o) { return PyIndex_Check(o); }
static inline int gd_type_check(PyObject *o) { return PyType_Check(o); }
static inline int gd_capsule_check(PyObject *o) { return PyCapsule_CheckExact(o); }
static inline PyObject *gd_type_of(PyObject *o) { return (PyObject *)Py_TYPE(o); }
static inline PyObject *gd_float_type(void) { return (PyObject *)&PyFloat_Type; }
static inline PyObject *gd_long_type(void) { return (PyObject *)&PyLong_Type; }
static inline PyObject *gd_bool_type(void) { return (PyObject *)&PyBool_Type; }
static inline PyObject *gd_complex_type(void) { return (PyObject *)&PyComplex_Type; }
static inline PyObject *gd_tuple_item(PyObject *t, Py_ssize_t i) { return PyTuple_GET_ITEM(t, i); }
/* Item i of a tuple or list as a new reference, or NULL with IndexError if a list is
 * shorter now. A tuple's items cannot change. A list's may, by another thread, even
 * between a length check and the read: on a free-threaded build nothing stops it, so
 * from CPython 3.13 the item is taken with PyList_GetItemRef, which reads and holds
 * it under the list's lock; before 3.13 the GIL is held and no Python code runs
 * between the check and Py_NewRef here. */
static inline PyObject *gd_seq_item_new(PyObject *s, Py_ssize_t i) {
    if (PyTuple_Check(s)) {
        return Py_NewRef(PyTuple_GET_ITEM(s, i));
    }
#if PY_VERSION_HEX >= 0x030D0000
    return PyList_GetItemRef(s, i);
#else
    if (i < 0 || i >= PyList_GET_SIZE(s)) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return NULL;
    }
    return Py_NewRef(PyList_GET_ITEM(s, i));
#endif
}
/* 1 if o has the attribute, 0 if not (its AttributeError cleared), -1 with the error
 * looking it up raised. PyObject_HasAttrString swallows such an error (and prints
 * "Exception ignored" from 3.13): a 0-d PyTorch tensor's .imag raises RuntimeError. */
static inline int gd_has_attr_string(PyObject *o, const char *name) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_HasAttrStringWithError(o, name);
#else
    PyObject *v = PyObject_GetAttrString(o, name);
    if (v != NULL) {
        Py_DECREF(v);
        return 1;
    }
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
#endif
}
static inline void gd_tuple_set(PyObject *t, Py_ssize_t i, PyObject *v) { PyTuple_SET_ITEM(t, i, v); }
static inline void gd_list_set(PyObject *t, Py_ssize_t i, PyObject *v) { PyList_SET_ITEM(t, i, v); }
/* A callback's call from Go (ext_callback.go, callback.call; the GIL held): f(args...)
 * by vectorcall, each argument an int (kind GD_CB_INT), a float (GD_CB_FLOAT) or an
 * object Go converted (GD_CB_OBJ: a reference the call takes over, made or not).
 * f is held for the call (its own code may drop the last other reference). Returns
 * -1 with the exception set; 0 when the result was what want asks and is now in
 * fr->i (GD_CB_INT: exactly an int that fits) or fr->d (GD_CB_FLOAT: exactly a
 * float), or was dropped (GD_CB_NONE); else 1 with the result in fr->res (a new
 * reference) for Go to convert with fromPython's rules (float subclasses, ints for
 * a float, other types, overflows). */
enum { GD_CB_OBJ, GD_CB_INT, GD_CB_FLOAT, GD_CB_NONE, GD_CB_MAX_ARGS = 4 };
enum { GD_CB_SLOW = 2 }; /* gd_cb_fast (ext_lend_cpython.go): nothing done */
typedef struct {
    int kind;
    long long i;
    double d;
    PyObject *o;
} gd_cb_arg;
typedef struct {
    gd_cb_arg args[GD_CB_MAX_ARGS];
    int n, want, rc; /* rc: gd_cb_fast's answer (ext_lend_cpython.go) */
    long long i;
    double d;
    PyObject *res;
    PyObject *exc_type, *exc_value, *exc_tb; /* gd_cb_fast's exception, fetched */
} gd_cb_frame;
static inline int gd_cb_call(PyObject *f, gd_cb_frame *fr) {
    PyObject *stack[1 + GD_CB_MAX_ARGS];
    int i, n = fr->n, failed = 0;
    for (i = 0; i < n; i++) {
        gd_cb_arg *a = &fr->args[i];
        PyObject *o = a->o;
        if (a->kind == GD_CB_INT) o = PyLong_FromLongLong(a->i);
        else if (a->kind == GD_CB_FLOAT) o = PyFloat_FromDouble(a->d);
        a->o = NULL;
        failed |= o == NULL;
        stack[1 + i] = o;
    }
    PyObject *r = NULL;
    if (!failed) {
        Py_INCREF(f);
        r = PyObject_Vectorcall(f, stack + 1, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(f);
    }
    for (i = 0; i < n; i++) Py_XDECREF(stack[1 + i]);
    if (r == NULL) return -1;
    if (fr->want == GD_CB_NONE) {
        Py_DECREF(r);
        return 0;
    }
    if (fr->want == GD_CB_FLOAT && PyFloat_CheckExact(r)) {
        fr->d = PyFloat_AS_DOUBLE(r);
        Py_DECREF(r);
        return 0;
    }
    if (fr->want == GD_CB_INT && PyLong_CheckExact(r)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(r, &overflow);
        if (!overflow && !(v == -1 && PyErr_Occurred())) {
            fr->i = v;
            Py_DECREF(r);
            return 0;
        }
        PyErr_Clear();
    }
    fr->res = r;
    return 1;
}
/* The capsule names of the protocol, defined once (internal/cpython/capsule.c) for
 * both sides and every package:
 * exports are named with these very pointers, so the import's fast path matches
 * our own capsules by address before any strcmp. */
extern const char *const gd_name_versioned, *const gd_name_legacy, *const gd_name_used_versioned,
    *const gd_name_used_legacy, *const gd_name_exchange_api;

#endif
