//go:build godlpack_python

/* object.c: the C half of an Object (object.go, gil.go, exchange.go), where a cgo call
 * costs about what the Python work itself does:
 * - a call made in one entry into Python: the call and the common result's conversion
 *   each in one cgo call;
 * - tensors handed between Go and Python (exchange.go: Object.Tensor, FromGo of a
 *   tensor, a callback's tensor argument) through the godlpack module's C-API: its
 *   DLPack exchange API's functions, as a consumer in C would call them, and its
 *   from_dlpack flow. */
#include "ext.h"
#include "gd_python.h"
#include "object_call.h"

/* f(arg), or f() where arg is NULL: a new reference, or NULL with an exception set.
 * arg is stolen; f is held by a reference of the call's own (Python code run by the
 * call may release the GIL, and a racing Close drop the Object's). */
PyObject *gd_call_one(PyObject *f, PyObject *arg) {
    Py_INCREF(f);
    PyObject *r = arg != NULL ? PyObject_CallOneArg(f, arg) : PyObject_CallNoArgs(f);
    Py_XDECREF(arg);
    Py_DECREF(f);
    return r;
}

/* An exact int that fits in int64: its value in *out, 0 (r kept); anything else 1,
 * no exception set. No Python code runs: the caller need not hold a reference. */
int gd_exact_int64(PyObject *r, long long *out) {
    if (!PyLong_CheckExact(r)) {
        return 1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(r, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 1;
    }
    *out = v;
    return 0;
}

/* gd_exact_int64, r released on success. Anything else
 * (a NumPy integer, an int beyond int64): 1, r kept, no exception set, for the general
 * conversion (cpython.AsInt64) to convert or refuse with its message. */
int gd_take_exact_int64(PyObject *r, long long *out) {
    if (gd_exact_int64(r, out) != 0) {
        return 1;
    }
    Py_DECREF(r);
    return 0;
}

/* internal/cpython's GIL entry (embed.c): the calling OS thread's state, made once. */
int gd_gil_enter(void);
void gd_gil_leave(int state);

PyObject *gd_tensor_to_py(DLManagedTensorVersioned *m);
DLManagedTensorVersioned *gd_py_to_tensor(PyObject *x);

/* gd_fast_call: a call from Go of an Object with no argument, one number or one
 * tensor, and its result converted, in ONE cgo call that takes and gives back the GIL
 * itself: a cgo
 * call costs about what the Python call does, and the general path makes seven.
 * slot is the Object's reference (read under the GIL: a racing Close swaps it to
 * NULL first and drops it under the GIL, so a non-NULL one read here stays alive
 * while the call holds it); arg_kind and res_kind are GD_FAST_*.
 * Returns GD_FAST_DONE with the result in out's i, f or res (a new reference);
 * GD_FAST_CLOSED (slot NULL); GD_FAST_CONVERT (a result that is not the exact int
 * or float asked: out->res holds it, for the general conversion); GD_FAST_RAISED
 * (the exception in out->exc, as PyErr_Fetch gave it, for Go to restore and take).
 * out is one Go allocation (with no pointers) where four pointers would be four.
 * held: the caller holds the GIL already (WithGIL's GIL), which the call keeps. */
int gd_fast_call(PyObject **slot, int held, int arg_kind, long long ai, double af, int res_kind,
                 gd_fast_out *out) {
    int g = held ? 0 : gd_gil_enter();
    int status = GD_FAST_DONE;
    PyObject *f = __atomic_load_n(slot, __ATOMIC_SEQ_CST);
    if (f == NULL) {
        if (arg_kind == GD_FAST_TENSOR) { /* exported for the call: the call's to release */
            gd_call_deleter_keep_error((void *)(uintptr_t)ai, 1);
        }
        if (!held) {
            gd_gil_leave(g);
        }
        return GD_FAST_CLOSED;
    }
    PyObject *a = NULL;
    if (arg_kind == GD_FAST_INT) {
        a = PyLong_FromLongLong(ai);
    } else if (arg_kind == GD_FAST_FLOAT) {
        a = PyFloat_FromDouble(af);
    } else if (arg_kind == GD_FAST_TENSOR) { /* its deleter run on failure */
        a = gd_tensor_to_py((DLManagedTensorVersioned *)(uintptr_t)ai);
    }
    PyObject *r = NULL;
    if (arg_kind == GD_FAST_NONE || a != NULL) {
        r = gd_call_one(f, a);
    }
    if (r != NULL && res_kind == GD_FAST_TENSOR) {
        DLManagedTensorVersioned *m = gd_py_to_tensor(r);
        Py_DECREF(r);
        r = m != NULL ? Py_None : NULL; /* borrowed: only its being NULL is read */
        out->res = (uintptr_t)m;
    }
    if (r == NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        out->exc[0] = (uintptr_t)type;
        out->exc[1] = (uintptr_t)value;
        out->exc[2] = (uintptr_t)tb;
        status = GD_FAST_RAISED;
    } else if (res_kind == GD_FAST_INT) {
        status = gd_take_exact_int64(r, &out->i) == 0 ? GD_FAST_DONE : GD_FAST_CONVERT;
    } else if (res_kind == GD_FAST_FLOAT && PyFloat_CheckExact(r)) {
        out->f = PyFloat_AS_DOUBLE(r);
        Py_DECREF(r);
    } else if (res_kind == GD_FAST_FLOAT) {
        status = GD_FAST_CONVERT;
    }
    if (status == GD_FAST_CONVERT || (status == GD_FAST_DONE && res_kind == GD_FAST_OBJECT)) {
        out->res = (uintptr_t)r;
    }
    if (!held) {
        gd_gil_leave(g);
    }
    return status;
}

/* ---- Tensors through the godlpack module's C-API (exchange.go). */

/* The godlpack module's C-API (ext_call.c), loaded by gd_capi_load. */
extern const gd_capi *gd_ext_capi;

/* A godlpack.Array owning m (a versioned tensor Go exported), made by the exchange
 * API's managed_tensor_to_py_object_no_sync, as a consumer in C would make it. On
 * failure that function leaves m to the caller: its deleter runs here. GIL held. */
PyObject *gd_tensor_to_py(DLManagedTensorVersioned *m) {
    void *out = NULL;
    if (gd_capi_load("godlpack.FromGo") < 0 ||
        gd_ext_capi->exchange->managed_tensor_to_py_object_no_sync(m, &out) != 0) {
        gd_call_deleter_keep_error(m, 1);
        return NULL;
    }
    return out;
}

/* A new managed tensor over x's memory that keeps x's producer alive until its
 * deleter runs (from any thread, GIL or not): x's own owner for a godlpack.Array,
 * else the owner of the Array that from_dlpack(x)'s flow makes (capsules, the
 * exchange API, __dlpack__, validation, PyTorch's lazy views refused). Read-only
 * producers give a READ_ONLY tensor. GIL held; NULL with an exception set. */
DLManagedTensorVersioned *gd_py_to_tensor(PyObject *x) {
    if (gd_capi_load("godlpack.Object.Tensor") < 0) {
        return NULL;
    }
    DLManagedTensorVersioned *m = NULL;
    PyObject *arr = (void *)Py_TYPE(x) == gd_ext_capi->array_type ? Py_NewRef(x)
                                                                  : gd_ext_capi->from_dlpack(x);
    if (arr != NULL && gd_ext_capi->exchange->managed_tensor_from_py_object_no_sync(arr, &m) != 0) {
        m = NULL;
    }
    Py_XDECREF(arr);
    return m;
}
