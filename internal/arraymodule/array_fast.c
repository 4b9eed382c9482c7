//go:build godlpack_python

/* array_fast.c: C fast paths for the per-call operations of godlpack.Array:
 * attribute getters, a[i, j] get and set, views by ints and simple slices, and
 * reshape. A Python call into Go costs ~70-90 ns more than into C, 2-10x NumPy's
 * whole operation (bench/bench_array.py), so the common forms are answered here.
 *
 * The Go code (array.go, array_index.go) keeps the authoritative rules and every
 * error message: each fast path either answers exactly what Go would answer or
 * DECLINES (returns 0 with no exception set) and the slot calls Go. It declines
 * whatever it does not fully understand: keys with Ellipsis, None, bools or
 * objects with __index__ (which could run Python code), out-of-range indices,
 * values other than exact int/float, read-only arrays, dtypes whose elements
 * C does not read (float16, bfloat16, float8...) or write (those and complex),
 * packed sub-byte arrays, and any arithmetic that
 * would overflow int64. Nothing here calls back into Python code, so no borrowed
 * reference is held across one. */
#include "arraymodule.h"
#include "_cgo_export.h"

/* DLDataTypeCode values (dlpack.h) of the dtypes with a fast element path. */
enum { CODE_INT = 0, CODE_UINT = 1, CODE_FLOAT = 2, CODE_BOOL = 6 };

PyObject *gd_dtype_objects[GD_MAX_DTYPES];

/* Bits one element takes in memory: dlpack.DType.StorageBits. */
static int elem_bits(const gd_array *a) {
    int bits = a->dtype.bits;
    return (bits < 8 && (a->flags & GD_FLAG_SUBBYTE_PADDED)) ? 8 : bits;
}

/* The element count; validated (no overflow) when the array was made. */
static int64_t elem_count(const gd_array *a) {
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++) {
        n *= a->shape[i];
    }
    return n;
}

static PyObject *int64_tuple(const int64_t *v, int32_t n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        return NULL;
    }
    for (int32_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* ---- attributes ---- */

PyObject *gd_array_get_shape(PyObject *self, void *c) {
    (void)c;
    gd_array *a = (gd_array *)self;
    return int64_tuple(a->shape, a->ndim);
}

PyObject *gd_array_get_strides(PyObject *self, void *c) {
    (void)c;
    gd_array *a = (gd_array *)self;
    return int64_tuple(a->strides, a->ndim);
}

PyObject *gd_array_get_ndim(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong(((gd_array *)self)->ndim);
}

PyObject *gd_array_get_size(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLongLong(elem_count((gd_array *)self));
}

PyObject *gd_array_get_itemsize(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromLong((elem_bits((gd_array *)self) + 7) / 8);
}

PyObject *gd_array_get_nbytes(PyObject *self, void *c) {
    gd_array *a = (gd_array *)self;
    int64_t bits;
    if (__builtin_mul_overflow(elem_count(a), (int64_t)elem_bits(a), &bits)) {
        return goArrayGet_nbytes(self, c);
    }
    return PyLong_FromLongLong(bits / 8 + (bits % 8 + 7) / 8);
}

PyObject *gd_array_get_dtype(PyObject *self, void *c) {
    int32_t i = ((gd_array *)self)->dtype_index;
    if (i < 0 || i >= GD_MAX_DTYPES || gd_dtype_objects[i] == NULL) {
        return goArrayGet_dtype(self, c); /* the extension used without its package */
    }
    return Py_NewRef(gd_dtype_objects[i]);
}

PyObject *gd_array_get_readonly(PyObject *self, void *c) {
    (void)c;
    return PyBool_FromLong((((gd_array *)self)->flags & GD_FLAG_READ_ONLY) != 0);
}

PyObject *gd_array_get_data_ptr(PyObject *self, void *c) {
    (void)c;
    return PyLong_FromVoidPtr(((gd_array *)self)->data);
}

/* ---- indexing ---- */

/* The result of a key the fast path understands (array_index.go's selection). */
typedef struct {
    int64_t offset; /* element offset of the first selected element */
    int32_t ndim;
    int32_t ints; /* dimensions indexed by an int */
    int64_t shape[GD_MAX_NDIM];
    int64_t strides[GD_MAX_NDIM];
} fast_sel;

/* An exact int (not bool, no __index__ to run) as int64; 0 if it does not fit. */
static int exact_int(PyObject *o, int64_t *out) {
    if (!PyLong_CheckExact(o)) {
        return 0;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) {
        return 0;
    }
    *out = v; /* an exact int cannot fail otherwise */
    return 1;
}

static int simple_slice_part(PyObject *o) { return o == Py_None || PyLong_CheckExact(o); }

/* select_fast applies key to a as array_index.go's selectIndex does, for keys made
 * of exact ints and slices of exact ints/None only, with every int in range. It
 * returns 1 with *sel filled, or 0 to decline (no exception set). */
static int select_fast(const gd_array *a, PyObject *key, fast_sel *sel) {
    int32_t nd = a->ndim;
    if (nd <= 0 || nd > GD_MAX_NDIM || elem_bits(a) < 8) {
        return 0; /* 0-d keys and packed sub-byte views have their own rules (Go) */
    }
    PyObject *const *items;
    Py_ssize_t nitems;
    if (PyTuple_CheckExact(key)) {
        items = &PyTuple_GET_ITEM(key, 0);
        nitems = PyTuple_GET_SIZE(key);
        if (nitems == 0 || nitems > nd) {
            return 0;
        }
    } else {
        items = &key;
        nitems = 1;
    }
    sel->offset = 0;
    sel->ndim = 0;
    sel->ints = 0;
    for (Py_ssize_t i = 0; i < nitems; i++) {
        PyObject *it = items[i];
        int64_t dim = a->shape[i], stride = a->strides[i], v, term;
        if (exact_int(it, &v)) {
            if (v < -dim || v >= dim) {
                return 0; /* Go raises the IndexError */
            }
            if (v < 0) {
                v += dim;
            }
            if (__builtin_mul_overflow(v, stride, &term) ||
                __builtin_add_overflow(sel->offset, term, &sel->offset)) {
                return 0;
            }
            sel->ints++;
            continue;
        }
        if (!PySlice_Check(it)) {
            return 0;
        }
        PySliceObject *s = (PySliceObject *)it;
        if (!simple_slice_part(s->start) || !simple_slice_part(s->stop) || !simple_slice_part(s->step)) {
            return 0;
        }
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(it, &start, &stop, &step) < 0) {
            PyErr_Clear(); /* a zero step: Go raises the same ValueError */
            return 0;
        }
        Py_ssize_t n = PySlice_AdjustIndices((Py_ssize_t)dim, &start, &stop, step);
        int64_t new_stride;
        if (__builtin_mul_overflow(stride, (int64_t)step, &new_stride)) {
            return 0;
        }
        if (n > 0 && (__builtin_mul_overflow((int64_t)start, stride, &term) ||
                      __builtin_add_overflow(sel->offset, term, &sel->offset))) {
            return 0;
        }
        sel->shape[sel->ndim] = n;
        sel->strides[sel->ndim] = new_stride;
        sel->ndim++;
    }
    for (int32_t d = (int32_t)nitems; d < nd; d++) {
        sel->shape[sel->ndim] = a->shape[d];
        sel->strides[sel->ndim] = a->strides[d];
        sel->ndim++;
    }
    return 1;
}

/* A view of a sharing its owner (array.go's newView). */
static PyObject *view_of(const gd_array *a, char *data, int32_t ndim, const int64_t *shape,
                         const int64_t *strides) {
    gd_array *v = gd_array_alloc(ndim);
    if (v == NULL) {
        return NULL;
    }
    gd_owner_incref(a->owner);
    v->owner = a->owner;
    v->data = data;
    v->dtype = a->dtype;
    v->dtype_index = a->dtype_index;
    v->flags = a->flags; /* read-only, padded and is-copied carry over to views */
    v->device_type = a->device_type;
    v->device_id = a->device_id;
    memcpy(v->shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(v->strides, strides, sizeof(int64_t) * (size_t)ndim);
    return (PyObject *)v;
}

/* Whether the dtype has a fast write path: bool, int/uint of 8-64 bits, float32,
 * float64 (whole bytes: elem_bits == dtype.bits). */
static int fast_element_dtype(const gd_array *a) {
    switch (a->dtype.code) {
    case CODE_INT:
    case CODE_UINT:
        return a->dtype.bits == 8 || a->dtype.bits == 16 || a->dtype.bits == 32 || a->dtype.bits == 64;
    case CODE_FLOAT:
        return a->dtype.bits == 32 || a->dtype.bits == 64;
    case CODE_BOOL:
        return a->dtype.bits == 8;
    }
    return 0;
}

/* Encodes value for a's dtype into out as dlpack.DType.Set does, for exact ints
 * into int/uint/float dtypes and exact floats into float dtypes; 0 to decline
 * (bools, other types, ints out of range: Go converts or raises). */
static int store_value(const gd_array *a, PyObject *value, unsigned char out[8]) {
    int bits = a->dtype.bits;
    if (PyFloat_CheckExact(value)) {
        if (a->dtype.code != CODE_FLOAT) {
            return 0; /* float into int: truncation and its errors are Go's */
        }
        double d = PyFloat_AS_DOUBLE(value);
        if (bits == 32) {
            float f = (float)d; /* EncodeFloat: float32(v) */
            memcpy(out, &f, 4);
        } else {
            memcpy(out, &d, 8);
        }
        return 1;
    }
    int64_t v;
    if (!exact_int(value, &v)) {
        return 0;
    }
    switch (a->dtype.code) {
    case CODE_FLOAT:
        if (bits == 32) {
            float f = (float)v; /* floatBits: an int rounds once, straight to float32 */
            memcpy(out, &f, 4);
        } else {
            double d = (double)v;
            memcpy(out, &d, 8);
        }
        return 1;
    case CODE_INT: {
        if (bits < 64) {
            int64_t lim = (int64_t)1 << (bits - 1);
            if (v < -lim || v >= lim) {
                return 0;
            }
        }
        memcpy(out, &v, (size_t)bits / 8); /* little-endian: the low bytes */
        return 1;
    }
    case CODE_UINT:
        if (v < 0 || (bits < 64 && (uint64_t)v >= ((uint64_t)1 << bits))) {
            return 0;
        }
        memcpy(out, &v, (size_t)bits / 8);
        return 1;
    }
    return 0; /* bool: Go's truth rules */
}

/* The Python scalar of the element at p, as Go's scalarToPy(Get(...)) gives it
 * (convert.c's reader), for whole-byte dtypes it knows; NULL without an exception
 * to decline the others. */
static PyObject *read_scalar(const gd_array *a, const char *p) {
    if (elem_bits(a) != a->dtype.bits) {
        return NULL; /* padded sub-byte elements: Go decodes them */
    }
    return gd_scalar_fast(a->dtype.code, a->dtype.bits, p);
}

PyObject *gd_array_subscript(PyObject *self, PyObject *key) {
    gd_array *a = (gd_array *)self;
    fast_sel sel;
    if (select_fast(a, key, &sel)) {
        int64_t item = elem_bits(a) / 8;
        if (sel.ndim == 0) { /* every dimension indexed by an int: a scalar */
            PyObject *x = read_scalar(a, a->data + sel.offset * item);
            if (x != NULL || PyErr_Occurred()) {
                return x;
            }
        } else {
            return view_of(a, a->data + sel.offset * item, sel.ndim, sel.shape, sel.strides);
        }
    }
    return goArrayGetItem(self, key);
}

PyObject *gd_array_item(PyObject *self, Py_ssize_t i) {
    gd_array *a = (gd_array *)self;
    /* iteration: i counts up from 0 and stops at the first IndexError (from Go) */
    if (a->ndim >= 1 && a->ndim <= GD_MAX_NDIM && elem_bits(a) >= 8 && i >= 0 && i < a->shape[0]) {
        int64_t item = elem_bits(a) / 8;
        char *p = a->data + (int64_t)i * a->strides[0] * item;
        if (a->ndim > 1) {
            return view_of(a, p, a->ndim - 1, a->shape + 1, a->strides + 1);
        }
        PyObject *x = read_scalar(a, p);
        if (x != NULL || PyErr_Occurred()) {
            return x;
        }
    }
    return goArrayItem(self, i);
}

int gd_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
    gd_array *a = (gd_array *)self;
    fast_sel sel;
    unsigned char elem[8];
    if (value != NULL && !(a->flags & GD_FLAG_READ_ONLY) && fast_element_dtype(a) &&
        store_value(a, value, elem) && select_fast(a, key, &sel)) {
        int64_t item = a->dtype.bits / 8;
        if (sel.ndim == 0) {
            memcpy(a->data + sel.offset * item, elem, (size_t)item);
            return 0;
        }
        int64_t n = 1;
        for (int32_t d = 0; d < sel.ndim; d++) {
            n *= sel.shape[d]; /* within the array's own count */
        }
        /* Small fills only: for large ones the crossing into Go's loops is noise. */
        if (n <= 4096) {
            int64_t idx[GD_MAX_NDIM] = {0};
            int64_t off = sel.offset;
            for (int64_t k = 0; k < n; k++) {
                memcpy(a->data + off * item, elem, (size_t)item);
                for (int32_t d = sel.ndim - 1; d >= 0; d--) {
                    off += sel.strides[d];
                    if (++idx[d] < sel.shape[d]) {
                        break;
                    }
                    off -= sel.strides[d] * sel.shape[d];
                    idx[d] = 0;
                }
            }
            return 0;
        }
    }
    return goArraySetItem(self, key, value);
}

/* ---- reshape ---- */

static int c_contiguous(const gd_array *a) { /* dlpack.IsCContiguous */
    int64_t want = 1;
    for (int32_t i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] == 0) {
            return 1;
        }
    }
    for (int32_t i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] == 1) {
            continue;
        }
        if (a->strides[i] != want) {
            return 0;
        }
        want *= a->shape[i];
    }
    return 1;
}

PyObject *gd_array_reshape(PyObject *self, PyObject *args) {
    gd_array *a = (gd_array *)self;
    PyObject *spec = args;
    if (PyTuple_GET_SIZE(args) == 1 && PyTuple_CheckExact(PyTuple_GET_ITEM(args, 0))) {
        spec = PyTuple_GET_ITEM(args, 0); /* reshape((2, 3)) as well as reshape(2, 3) */
    }
    Py_ssize_t nd = PyTuple_GET_SIZE(spec);
    if (nd > GD_MAX_NDIM || !c_contiguous(a)) {
        return goArrayReshape(self, args);
    }
    int64_t shape[GD_MAX_NDIM], strides[GD_MAX_NDIM], known = 1;
    Py_ssize_t infer = -1;
    for (Py_ssize_t i = 0; i < nd; i++) {
        if (!exact_int(PyTuple_GET_ITEM(spec, i), &shape[i]) || shape[i] < -1 ||
            (shape[i] == -1 && infer >= 0)) {
            return goArrayReshape(self, args);
        }
        if (shape[i] == -1) {
            infer = i;
        } else if (__builtin_mul_overflow(known, shape[i], &known)) {
            return goArrayReshape(self, args);
        }
    }
    int64_t size = elem_count(a);
    if (infer >= 0) {
        if (known == 0 || size % known != 0) {
            return goArrayReshape(self, args);
        }
        shape[infer] = size / known;
    } else if (known != size) {
        return goArrayReshape(self, args);
    }
    int64_t s = 1; /* dlpack.ContiguousStrides */
    for (Py_ssize_t i = nd - 1; i >= 0; i--) {
        strides[i] = s;
        if (shape[i] > 1) {
            s *= shape[i];
        }
    }
    return view_of(a, a->data, (int32_t)nd, shape, strides);
}

/* ---- tolist rows of the dtypes convert.c does not decode ---- */

/* Stores n Python floats (or complex numbers from n (re, im) pairs) that Go
 * decoded from a dtype C does not decode (float16, bfloat16, float8...) into
 * l[start:start+n], a new list whose items there are still unset. 0, or -1 with
 * MemoryError set (the caller drops the list: unset items are NULL, which
 * list_dealloc skips). */
int gd_doubles_into_list(PyObject *l, int64_t start, const double *v, int64_t n, int complex_pairs) {
    for (int64_t i = 0; i < n; i++) {
        PyObject *x = complex_pairs ? PyComplex_FromDoubles(v[2 * i], v[2 * i + 1]) : PyFloat_FromDouble(v[i]);
        if (x == NULL) {
            return -1;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)(start + i), x);
    }
    return 0;
}
