//go:build godlpack_python

/* constructors_fast.c: empty(shape, dtype) and zeros(shape, dtype) in C for the
 * plain spellings, and asarray(x) with no keywords of an Array or a DLPack
 * producer. Parsing the arguments in Go costs ~20 cgo calls (~0.8 us, 8x
 * NumPy's whole np.empty((4, 4))), more than the allocation of most arrays.
 *
 * As in array_fast.c, Go (constructors.go) keeps the rules and the errors: this
 * path takes a shape of exact non-negative ints (an int, or a tuple or list of
 * them) and a dtype given as None, a godlpack.dtype object or an exact str naming
 * one (positionally or as dtype=), and DECLINES anything else, any overflow and
 * any allocation failure to the Go function, which parses, allocates and raises as
 * before. No Python code runs here. */
#include "arraymodule.h"
#include "_cgo_export.h"

DLDataType gd_dtype_dl[GD_MAX_DTYPES];
int32_t gd_dtype_count;
int32_t gd_default_dtype_index;

/* {name: index} with exact-str keys, built once from the dtype objects: looking up
 * an exact str then compares str with str (godlpack.dtype's own __eq__, Python
 * code, is never called). */
static PyObject *dtype_names;

static int dtype_of(PyObject *o, int32_t *out) {
    if (gd_dtype_count <= 0 || gd_dtype_objects[0] == NULL) {
        return 0; /* the package has not registered its dtypes */
    }
    if (o == NULL || o == Py_None) {
        *out = gd_default_dtype_index;
        return 1;
    }
    for (int32_t i = 0; i < gd_dtype_count; i++) {
        if (o == gd_dtype_objects[i]) {
            *out = i;
            return 1;
        }
    }
    if (!PyUnicode_CheckExact(o)) {
        return 0;
    }
    if (__atomic_load_n(&dtype_names, __ATOMIC_ACQUIRE) == NULL) {
        PyObject *d = PyDict_New();
        for (int32_t i = 0; d != NULL && i < gd_dtype_count; i++) {
            PyObject *name = PyUnicode_FromObject(gd_dtype_objects[i]); /* an exact str */
            PyObject *idx = PyLong_FromLong(i);
            if (name == NULL || idx == NULL || PyDict_SetItem(d, name, idx) < 0) {
                Py_CLEAR(d);
            }
            Py_XDECREF(name);
            Py_XDECREF(idx);
        }
        if (d == NULL) {
            PyErr_Clear();
            return 0;
        }
        /* Kept for the life of the process, like the dtype objects. Published whole
         * (release; read with acquire): on a free-threaded build another thread may
         * have made one too, and keeps its own, this one is dropped. */
        PyObject *none = NULL;
        if (!__atomic_compare_exchange_n(&dtype_names, &none, d, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            Py_DECREF(d);
        }
    }
    PyObject *idx = PyDict_GetItemWithError(__atomic_load_n(&dtype_names, __ATOMIC_ACQUIRE), o);
    if (idx == NULL) {
        PyErr_Clear();
        return 0;
    }
    *out = (int32_t)PyLong_AsLong(idx);
    return 1;
}

/* One extent: an exact int >= 0 (reading it runs no Python code). */
static int extent_of(PyObject *o, int64_t *out) {
    if (!PyLong_CheckExact(o)) {
        return 0;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    *out = v;
    return overflow == 0 && v >= 0;
}

/* The shape: an exact int or an exact tuple/list of exact ints, each >= 0. A list's
 * items are read held (gd_seq_item_new): on a free-threaded build another thread
 * may change the list while it is read; a tuple's cannot change. */
static int shape_of(PyObject *o, int64_t *shape, int32_t *ndim) {
    if (PyList_CheckExact(o)) {
        Py_ssize_t n = PyList_GET_SIZE(o);
        if (n > GD_MAX_NDIM) {
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *item = gd_seq_item_new(o, i);
            int ok = item != NULL && extent_of(item, &shape[i]);
            Py_XDECREF(item);
            if (!ok) {
                PyErr_Clear(); /* declined: Go reads the list again and decides */
                return 0;
            }
        }
        *ndim = (int32_t)n;
        return 1;
    }
    PyObject *const *items = &o;
    Py_ssize_t n = 1;
    if (PyTuple_CheckExact(o)) {
        items = &PyTuple_GET_ITEM(o, 0);
        n = PyTuple_GET_SIZE(o);
    }
    if (n > GD_MAX_NDIM) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!extent_of(items[i], &shape[i])) {
            return 0;
        }
    }
    *ndim = (int32_t)n;
    return 1;
}

/* The array empty/zeros would make (array.go's newOwnedArray), or NULL with no
 * exception set to decline. */
static PyObject *new_fast(PyObject *args, PyObject *kwargs, int zero) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    PyObject *dtype = nargs == 2 ? PyTuple_GET_ITEM(args, 1) : NULL;
    if (nargs < 1 || nargs > 2) {
        return NULL;
    }
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        if (nargs != 1 || PyDict_GET_SIZE(kwargs) != 1 || !PyDict_Next(kwargs, &pos, &key, &value) ||
            !PyUnicode_CheckExact(key) || PyUnicode_CompareWithASCIIString(key, "dtype") != 0) {
            return NULL;
        }
        dtype = value;
    }
    int64_t shape[GD_MAX_NDIM];
    int32_t ndim, index;
    if (!shape_of(PyTuple_GET_ITEM(args, 0), shape, &ndim) || !dtype_of(dtype, &index)) {
        return NULL;
    }
    DLDataType dl = gd_dtype_dl[index];
    int64_t count = 1, bits;
    for (int32_t i = 0; i < ndim; i++) {
        if (__builtin_mul_overflow(count, shape[i], &count)) {
            return NULL;
        }
    }
    if (__builtin_mul_overflow(count, (int64_t)dl.bits, &bits)) {
        return NULL;
    }
    char *data;
    gd_owner *owner = gd_owner_new_owned(bits / 8 + (bits % 8 + 7) / 8, zero, &data);
    if (owner == NULL) {
        return NULL; /* Go tries again and raises MemoryError naming the array */
    }
    gd_array *a = gd_array_alloc(ndim);
    if (a == NULL) {
        PyErr_Clear(); /* declined: Go allocates (and raises) itself */
        gd_owner_decref(owner);
        return NULL;
    }
    a->owner = owner;
    a->data = data;
    a->dtype = dl;
    a->dtype_index = index;
    int64_t stride = 1; /* dlpack.ContiguousStrides */
    for (int32_t i = ndim - 1; i >= 0; i--) {
        a->shape[i] = shape[i];
        a->strides[i] = stride;
        if (shape[i] > 1) {
            stride *= shape[i];
        }
    }
    return (PyObject *)a;
}

PyObject *gd_empty(PyObject *mod, PyObject *args, PyObject *kwargs) {
    PyObject *a = new_fast(args, kwargs, 0);
    return a != NULL ? a : goEmpty(mod, args, kwargs);
}

PyObject *gd_zeros(PyObject *mod, PyObject *args, PyObject *kwargs) {
    PyObject *a = new_fast(args, kwargs, 1);
    return a != NULL ? a : goZeros(mod, args, kwargs);
}

/* Whether obj may be a DLPack producer: not for the types asarray converts itself
 * (lists, tuples, numbers), which have no __dlpack__ and whose lookup would cost
 * more than converting a small list. */
int gd_may_share_dlpack(PyObject *obj) {
    if (PyList_Check(obj) || PyTuple_Check(obj) || PyLong_Check(obj) || PyFloat_Check(obj) ||
        PyComplex_Check(obj)) {
        return 0;
    }
    return gd_has_dlpack(obj);
}

/* asarray(x) with no keywords shares what can be shared, as asarray_copy.go's
 * asarrayShared does for copy=None and no dtype: an Array is returned itself, a
 * producer imported by from_dlpack's flow (every hidden-state question asked); a
 * producer's BufferError leaves the copy to Go (goAsarrayConverted: the buffer
 * protocol or a conversion), unless it is final (a PyTorch tensor's: a lazy view,
 * requires_grad, a sparse tensor..., which a conversion would read wrongly or as
 * a scalar). Everything else, keywords included, is Go's. */
PyObject *gd_asarray(PyObject *mod, PyObject *args, PyObject *kwargs) {
    if (kwargs == NULL && PyTuple_GET_SIZE(args) == 1) {
        PyObject *x = PyTuple_GET_ITEM(args, 0);
        if (gd_array_check(x)) {
            Py_INCREF(x); /* like numpy.asarray: the same object */
            return x;
        }
        if (gd_may_share_dlpack(x)) {
            PyObject *a = gd_import_foreign(x, NULL, NULL, 1);
            if (a != NULL || !PyErr_ExceptionMatches(PyExc_BufferError) ||
                !gd_converts_after_refusal(x) || gd_refusal_is_final(x)) {
                return a;
            }
            PyErr_Clear();
            return goAsarrayConverted(x);
        }
    }
    return goAsarray(mod, args, kwargs);
}
