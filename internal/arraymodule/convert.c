//go:build godlpack_python

/* convert.c: the element loops between nested Python lists/tuples and array memory
 * (asarray, a[...] = list, tolist). They are C because they run once per element:
 * a Go loop that asked CPython for each item crossed cgo two or three times per
 * element (asarray of 1M floats took 41x NumPy's time). Go keeps every rule that is
 * not trivially the same in both languages: items C does not recognise are handed
 * to Go one at a time (goScalarKind, goStoreItem in convert.go), which converts
 * them with the one copy of the conversion rules (dlpack.DType.Set). Exact floats
 * bound for a dtype C does not encode (bfloat16, float16, float8...) are read here
 * and handed to Go a bounded chunk at a time (goStoreFloats), not one per crossing.
 *
 * Memory safety: converting an item may run Python code (__float__, __index__,
 * and, whenever it releases the GIL, any other thread), and that code may change
 * the very lists being read. So every item is read with a strong reference taken
 * before anything can run, and each list's length is checked again before each
 * read: an item is never used through a borrowed pointer across a call that can
 * run Python (docs/internals/python-safety.md, rule 1). */
#include "arraymodule.h"
#include "_cgo_export.h"

#include <math.h>
#include <unistd.h>

/* DLDataTypeCode values of dlpack.h that these loops convert (dlpack/dtype.go). */
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

static inline int is_seq(PyObject *o) { return PyList_Check(o) || PyTuple_Check(o); }

/* Reads shape[0..ndim) from the first item of each nesting level. Only type
 * checks and sizes are read and no Python code runs, but each level is held while
 * it is read (gd_seq_item_new): on a free-threaded build another thread may empty a
 * list meanwhile. Returns ndim, or -1 with ValueError set. */
int gd_nested_shape(PyObject *obj, int64_t *shape) {
    int nd = 0;
    PyObject *o = Py_NewRef(obj);
    while (is_seq(o)) {
        if (nd == GD_MAX_NDIM) {
            Py_DECREF(o);
            PyErr_Format(PyExc_ValueError, "nested sequences are deeper than %d dimensions",
                         GD_MAX_NDIM);
            return -1;
        }
        Py_ssize_t n = Py_SIZE(o);
        shape[nd++] = n;
        PyObject *first = n > 0 ? gd_seq_item_new(o, 0) : NULL;
        Py_DECREF(o);
        if (first == NULL) {
            PyErr_Clear(); /* emptied meanwhile: the walk finds the shape changed */
            return nd;
        }
        o = first;
    }
    Py_DECREF(o);
    return nd;
}

/* obj with every list in it, at any depth up to GD_MAX_NDIM, replaced by a tuple of
 * its items as they were at one instant (a new reference), or NULL with an exception.
 * The conversion reads a nested list three times (shape, kinds, values): with the GIL
 * no other thread runs between them, as no Python code runs in C's walk, but on a
 * free-threaded build another thread may change a list meanwhile, and the walk then
 * refused a flat list of floats as "inhomogeneous" or "changed size". Each list is
 * copied under its own lock (a critical section), as list(l) is, so the result is one
 * that a GIL build could have given. A GIL build returns obj itself: no copy. The
 * caller has checked the element count (fromNested), so the copies are bounded by the
 * array they precede. */
PyObject *gd_nested_snapshot(PyObject *obj, int depth) {
#ifdef Py_GIL_DISABLED
    if (!is_seq(obj) || depth > GD_MAX_NDIM) {
        return Py_NewRef(obj);
    }
    PyObject *t;
    if (PyList_Check(obj)) {
        Py_BEGIN_CRITICAL_SECTION(obj);
        Py_ssize_t n = PyList_GET_SIZE(obj);
        t = PyTuple_New(n);
        for (Py_ssize_t i = 0; t != NULL && i < n; i++) {
            PyTuple_SET_ITEM(t, i, Py_NewRef(PyList_GET_ITEM(obj, i)));
        }
        Py_END_CRITICAL_SECTION();
    } else { /* a new tuple all the same: its lists are replaced below */
        t = PyTuple_New(PyTuple_GET_SIZE(obj));
        for (Py_ssize_t i = 0; t != NULL && i < PyTuple_GET_SIZE(obj); i++) {
            PyTuple_SET_ITEM(t, i, Py_NewRef(PyTuple_GET_ITEM(obj, i)));
        }
    }
    if (t == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
        PyObject *item = PyTuple_GET_ITEM(t, i);
        if (is_seq(item)) {
            PyObject *inner = gd_nested_snapshot(item, depth + 1);
            if (inner == NULL) {
                Py_DECREF(t);
                return NULL;
            }
            PyTuple_SET_ITEM(t, i, inner);
            Py_DECREF(item);
        }
    }
    return t;
#else
    (void)depth;
    return Py_NewRef(obj);
#endif
}

enum { WALK_KIND, WALK_FILL };

typedef struct {
    const int64_t *shape;
    int ndim;
    int mode;
    /* WALK_KIND: the largest kind seen (GD_KIND_*) and whether an int64 was seen. */
    int kind, any_signed;
    /* WALK_FILL: the destination and the C-order number of the next element. */
    gd_array *dst;
    int64_t next;
    /* WALK_FILL into a dtype C does not encode (goStagesFloats): the values of the
     * exact floats of elements stage_start.. wait here, n_staged of them, and Go
     * encodes them a chunk per crossing (goStoreFloats). NULL: every such item
     * goes to goStoreItem. Bounded (STAGE_CAP), so no input size amplifies memory. */
    double *stage;
    int64_t stage_start, n_staged, stage_cap;
} walk;

enum { STAGE_CAP = 4096 };

static int inhomogeneous(void) {
    PyErr_SetString(PyExc_ValueError,
                    "setting an array element with a sequence: the nested sequences have an "
                    "inhomogeneous shape");
    return -1;
}

/* Exact int that fits int64: 1 and *v; else 0 (bool, subclasses and big ints go to Go). */
static inline int exact_int64(PyObject *o, long long *v) {
    if (!PyLong_CheckExact(o)) {
        return 0;
    }
    int overflow;
    *v = PyLong_AsLongLongAndOverflow(o, &overflow);
    return overflow == 0; /* an exact int never raises here */
}

static int leaf_kind(walk *w, PyObject *o) {
    long long v;
    int k;
    if (PyFloat_CheckExact(o)) {
        k = GD_KIND_FLOAT;
    } else if (exact_int64(o, &v)) {
        k = GD_KIND_INT;
    } else if (PyBool_Check(o)) {
        k = GD_KIND_BOOL;
    } else if (PyComplex_CheckExact(o)) {
        k = GD_KIND_COMPLEX;
    } else if ((k = goScalarKind(o)) < 0) {
        return -1;
    }
    if (k == GD_KIND_INT) {
        w->any_signed = 1;
    }
    if (k > w->kind) {
        w->kind = k;
    }
    return 0;
}

/* An integer value into an integer dtype of bits (8..64), when it fits. */
static inline int store_int(char *p, int code, int bits, long long v) {
    if (code == kDLInt) {
        long long lim = bits == 64 ? 0 : (1LL << (bits - 1));
        if (bits < 64 && (v < -lim || v >= lim)) {
            return 0;
        }
    } else if (v < 0 || (bits < 64 && v >= (1LL << bits))) {
        return 0;
    }
    switch (bits) {
    case 8: *(int8_t *)p = (int8_t)v; return 1;
    case 16: *(int16_t *)p = (int16_t)v; return 1;
    case 32: *(int32_t *)p = (int32_t)v; return 1;
    case 64: *(int64_t *)p = (int64_t)v; return 1;
    }
    return 0;
}

/* Stores o as element p when the conversion is one C does exactly as dlpack.Set
 * does (exact float/int/bool/complex into float32/64, ints, bool, complex64/128).
 * Returns 0, with nothing written and no error, for everything else: Go decides. */
static int store_fast(const gd_array *a, char *p, PyObject *o) {
    const int code = a->dtype.code, bits = a->dtype.bits;
    long long v;
    double re, im = 0;
    if (PyFloat_CheckExact(o)) {
        re = PyFloat_AS_DOUBLE(o);
        if (code == kDLInt || code == kDLUInt) {
            /* Truncate toward zero, as Set does; NaN, inf and |t| >= 2^63 go to Go. */
            double t = trunc(re);
            if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
                return 0;
            }
            return store_int(p, code, bits, (long long)t);
        }
        if (code == kDLBool && bits == 8) {
            *(uint8_t *)p = re != 0; /* NaN is true, as in Python */
            return 1;
        }
    } else if (exact_int64(o, &v)) {
        if (code == kDLInt || code == kDLUInt) {
            return store_int(p, code, bits, v);
        }
        if (code == kDLBool && bits == 8) {
            *(uint8_t *)p = v != 0;
            return 1;
        }
        /* Rounded once, straight to the target width. */
        if (code == kDLFloat && bits == 32) {
            *(float *)p = (float)v;
            return 1;
        }
        if (code == kDLComplex && bits == 64) {
            ((float *)p)[0] = (float)v;
            ((float *)p)[1] = 0;
            return 1;
        }
        re = (double)v;
    } else if (PyBool_Check(o)) {
        v = o == Py_True;
        if (code == kDLInt || code == kDLUInt) {
            return store_int(p, code, bits, v);
        }
        if (code == kDLBool && bits == 8) {
            *(uint8_t *)p = (uint8_t)v;
            return 1;
        }
        re = (double)v;
    } else if (PyComplex_CheckExact(o)) {
        if (code != kDLComplex) {
            return 0; /* Set's TypeError */
        }
        Py_complex c = ((PyComplexObject *)o)->cval;
        re = c.real;
        im = c.imag;
    } else {
        return 0;
    }
    if (code == kDLFloat && bits == 64) {
        *(double *)p = re;
    } else if (code == kDLFloat && bits == 32) {
        *(float *)p = (float)re;
    } else if (code == kDLComplex && bits == 128) {
        ((double *)p)[0] = re;
        ((double *)p)[1] = im;
    } else if (code == kDLComplex && bits == 64) {
        ((float *)p)[0] = (float)re;
        ((float *)p)[1] = (float)im;
    } else {
        return 0;
    }
    return 1;
}

/* Hands the staged floats to Go. 0, or -1 with an exception set. */
static int flush_stage(walk *w) {
    if (w->n_staged == 0) {
        return 0;
    }
    int64_t n = w->n_staged;
    w->n_staged = 0;
    return goStoreFloats(w->dst, w->stage_start, w->stage, n);
}

static int leaf_fill(walk *w, PyObject *o) {
    int64_t i = w->next++;
    gd_array *a = w->dst;
    if (a->dtype.bits >= 8 && !(a->flags & GD_FLAG_SUBBYTE_PADDED) &&
        store_fast(a, a->data + i * (a->dtype.bits / 8), o)) {
        return 0;
    }
    if (w->stage != NULL && PyFloat_CheckExact(o)) {
        /* Reading an exact float's value runs no Python; Go encodes it later
         * exactly as goStoreItem would (dlpack.DType.Set of the same double). */
        if (w->n_staged == w->stage_cap && flush_stage(w) < 0) {
            return -1;
        }
        if (w->n_staged == 0) {
            w->stage_start = i;
        }
        w->stage[w->n_staged++] = PyFloat_AS_DOUBLE(o);
        return 0;
    }
    /* Staged runs stay contiguous: elements before i are written first. */
    if (flush_stage(w) < 0) {
        return -1;
    }
    return goStoreItem(a, i, o);
}

static int walk_level(walk *w, PyObject *seq, int dim) {
    const Py_ssize_t n = (Py_ssize_t)w->shape[dim];
    const int last = dim + 1 == w->ndim;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* Python code run by an earlier item may have resized seq: check again. */
        if (Py_SIZE(seq) != n) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a list changed size while it was being converted to an array");
            return -1;
        }
        /* Held: converting it may run Python that drops it from seq. */
        PyObject *item = gd_seq_item_new(seq, i);
        if (item == NULL) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a list changed size while it was being converted to an array");
            return -1;
        }
        int rc;
        if (!last) {
            rc = is_seq(item) && Py_SIZE(item) == w->shape[dim + 1] ? walk_level(w, item, dim + 1)
                                                                    : inhomogeneous();
        } else if (is_seq(item)) {
            rc = inhomogeneous();
        } else {
            rc = w->mode == WALK_KIND ? leaf_kind(w, item) : leaf_fill(w, item);
        }
        Py_DECREF(item);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}

/* Checks obj against shape[0..ndim) (ndim >= 1, shape from gd_nested_shape) and
 * reports the largest kind of its scalars and whether any was an int64. 0 or -1
 * with an exception set. */
int gd_nested_kind(PyObject *obj, const int64_t *shape, int ndim, int *kind, int *any_signed) {
    walk w = {.shape = shape, .ndim = ndim, .mode = WALK_KIND, .kind = GD_KIND_BOOL};
    if (!is_seq(obj) || Py_SIZE(obj) != shape[0]) {
        return inhomogeneous();
    }
    int rc = walk_level(&w, obj, 0);
    *kind = w.kind;
    *any_signed = w.any_signed;
    return rc;
}

/* Converts obj's scalars into dst, a new C-contiguous array of obj's shape
 * (ndim >= 1). 0, or -1 with an exception set (dst is then partly written). */
int gd_nested_fill(PyObject *obj, gd_array *dst) {
    walk w = {.shape = dst->shape, .ndim = dst->ndim, .mode = WALK_FILL, .dst = dst};
    if (!is_seq(obj) || Py_SIZE(obj) != dst->shape[0]) {
        return inhomogeneous();
    }
    if (goStagesFloats(dst)) {
        int64_t n = 1;
        for (int d = 0; d < dst->ndim && n < STAGE_CAP; d++) {
            n = dst->shape[d] < STAGE_CAP ? n * dst->shape[d] : STAGE_CAP;
        }
        w.stage_cap = n < STAGE_CAP ? n : STAGE_CAP;
        /* Without the buffer every item still converts, one crossing each. */
        w.stage = w.stage_cap > 0 ? PyMem_RawMalloc((size_t)w.stage_cap * sizeof(double)) : NULL;
    }
    int rc = walk_level(&w, obj, 0);
    if (rc == 0) {
        rc = flush_stage(&w);
    }
    PyMem_RawFree(w.stage);
    return rc;
}

/* ---- tolist ---- */

/* One element as a Python scalar, for the dtypes whose Python value C can make
 * exactly; NULL without an exception for the others (Go converts those). */
PyObject *gd_scalar_fast(int code, int bits, const char *p) {
    switch (code) {
    case kDLBool:
        return bits == 8 ? PyBool_FromLong(*(const uint8_t *)p != 0) : NULL;
    case kDLInt:
        switch (bits) {
        case 8: return PyLong_FromLong(*(const int8_t *)p);
        case 16: return PyLong_FromLong(*(const int16_t *)p);
        case 32: return PyLong_FromLong(*(const int32_t *)p);
        case 64: return PyLong_FromLongLong(*(const int64_t *)p);
        }
        return NULL;
    case kDLUInt:
        switch (bits) {
        case 8: return PyLong_FromLong(*(const uint8_t *)p);
        case 16: return PyLong_FromLong(*(const uint16_t *)p);
        case 32: return PyLong_FromUnsignedLong(*(const uint32_t *)p);
        case 64: return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
        }
        return NULL;
    case kDLFloat:
        if (bits == 64) {
            return PyFloat_FromDouble(*(const double *)p);
        }
        return bits == 32 ? PyFloat_FromDouble(*(const float *)p) : NULL;
    case kDLComplex:
        if (bits == 128) {
            return PyComplex_FromDoubles(((const double *)p)[0], ((const double *)p)[1]);
        }
        return bits == 64 ? PyComplex_FromDoubles(((const float *)p)[0], ((const float *)p)[1])
                           : NULL;
    }
    return NULL;
}

/* 1 if tolist can be done here: a whole-byte dtype gd_scalar_fast knows. */
int gd_tolist_fast_ok(const gd_array *a) {
    if (a->dtype.bits < 8 || (a->flags & GD_FLAG_SUBBYTE_PADDED)) {
        return 0;
    }
    char zero[16] = {0};
    PyObject *probe = gd_scalar_fast(a->dtype.code, a->dtype.bits, zero);
    if (probe == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(probe);
    return 1;
}

/* ---- lists sized by a shape (tolist) ---- */

/* This machine's memory in bytes (0 if unknown): tolist refuses lists whose item
 * pointers alone would not fit in it (convert.go, tolistFits). */
int64_t gd_physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (int64_t)pages * size : 0;
}

/* Rows at least this long are probed before PyList_New on a free-threaded build. */
#define GD_LIST_PROBE_ITEMS (1 << 16)

/* PyList_New(n) for a length taken from a shape (NULL with MemoryError). On a
 * free-threaded build, CPython 3.13's PyList_New, when its item array cannot be
 * allocated, drops a list object recycled from its free list whose stale item
 * pointer it never cleared: the old array is freed a second time and the heap is
 * corrupt (a crash later, at exit: CPython gh-152125, still open). So a long row's
 * array is allocated once here first; when that fails, MemoryError is ours and
 * PyList_New is never asked. The GIL build's PyList_New fails cleanly. */
PyObject *gd_list_new(Py_ssize_t n) {
#ifdef Py_GIL_DISABLED
    if (n >= GD_LIST_PROBE_ITEMS) {
        void *probe = (size_t)n <= (PY_SSIZE_T_MAX - 64) / sizeof(PyObject *)
                          ? PyMem_Malloc((size_t)n * sizeof(PyObject *) + 64)
                          : NULL;
        if (probe == NULL) {
            return PyErr_Format(PyExc_MemoryError,
                                "cannot allocate a list of %zd items; convert a slice of the array",
                                n);
        }
        PyMem_Free(probe);
    }
#endif
    return PyList_New(n);
}

static PyObject *tolist_level(const gd_array *a, int dim, const char *p) {
    const int64_t item = a->dtype.bits / 8;
    if (dim == a->ndim) {
        return gd_scalar_fast(a->dtype.code, a->dtype.bits, p);
    }
    const Py_ssize_t n = (Py_ssize_t)a->shape[dim];
    const int64_t step = a->strides[dim] * item;
    PyObject *list = gd_list_new(n);
    if (list == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++, p += step) {
        PyObject *v = tolist_level(a, dim + 1, p);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

/* a.tolist() for arrays gd_tolist_fast_ok accepts. The array holds its memory for
 * the call (no Python code runs between reads: only allocations of ints, floats
 * and lists, whose failure is MemoryError). */
PyObject *gd_tolist(const gd_array *a) { return tolist_level(a, 0, a->data); }
