//go:build godlpack_python

/* numpy_lend.c: a numpy.ndarray argument of a function of an extension written in Go,
 * read from the array's own fields: by the extension's own call path (the root
 * package's ext_call.c, convert_tensor), and by the godlpack module's C-API lend
 * (internal/arraymodule's gd_lend_foreign, its first way for NumPy) for its other
 * callers.
 *
 * Why: NumPy's buffer export is the largest part of the per-call cost of a NumPy
 * argument (~40 ns of a ~160 ns call, against ~3 ns of a godlpack.Array's): every
 * PyObject_GetBuffer builds a new buffer-info record (PyObject_Malloc, and with
 * PyBUF_FORMAT the format string, which itself allocates), compares it with the one
 * cached on the array and frees it; PyBuffer_Release is another call. The fields it
 * reads are NumPy's public ABI: PyArrayObject_fields and the head of PyArray_Descr
 * (what NumPy's own accessor macros, PyArray_DATA, PyArray_DIMS, PyArray_DESCR, read
 * in every compiled extension), unchanged from NumPy 1.x through 2.x. So the type is
 * trusted only when it is exactly the ndarray of an imported NumPy 1.x or 2.x whose
 * instances are at least as large as the mirror (gd_numpy_type_is, once per type);
 * subclasses and other types keep the buffer protocol. NumPy's headers are not
 * needed: the mirror below holds the fields read, by the names NumPy gives them. */
#include "gd_python.h"
#include "fast_import.h"

#include <string.h>

typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions; /* npy_intp */
    Py_ssize_t *strides;    /* in bytes */
    PyObject *base;
    PyObject *descr; /* PyArray_Descr * */
    int flags;
} np_array_fields;

typedef struct {
    PyObject_HEAD
    PyTypeObject *typeobj;
    char kind;
    char type;
    char byteorder; /* '=' native, '|' not applicable, '<' or '>' */
    char flags_1x;  /* NumPy 1.x's flags, 2.x's _former_flags */
    int type_num;
} np_descr_head;

#define NP_ARRAY_WRITEABLE 0x0400

/* Whether tp is exactly the ndarray of an imported NumPy 1.x or 2.x (see above).
 * Runs Python (attribute lookups); never raises. */
int gd_numpy_type_is(PyTypeObject *tp) {
    if (strcmp(tp->tp_name, "numpy.ndarray") != 0 ||
        tp->tp_basicsize < (Py_ssize_t)sizeof(np_array_fields)) {
        return 0;
    }
    int is = 0;
    PyObject *name = PyUnicode_FromString("numpy");
    PyObject *np = name != NULL ? PyImport_GetModule(name) : NULL;
    PyObject *nd = np != NULL ? PyObject_GetAttrString(np, "ndarray") : NULL;
    PyObject *ver = np != NULL ? PyObject_GetAttrString(np, "__version__") : NULL;
    const char *v = ver != NULL && PyUnicode_Check(ver) ? PyUnicode_AsUTF8(ver) : NULL;
    if (nd == (PyObject *)tp && v != NULL && (v[0] == '1' || v[0] == '2') && v[1] == '.') {
        is = 1;
    }
    Py_XDECREF(ver);
    Py_XDECREF(nd);
    Py_XDECREF(np);
    Py_XDECREF(name);
    PyErr_Clear();
    return is;
}

/* DLPack's dtype of each NumPy type number (NPY_BOOL = 0 ... NPY_HALF = 23); bits 0
 * for those the buffer protocol would not lend either (long double, datetimes,
 * strings, objects, structured). Whole structs, copied with one store: the readers
 * (Go's constraint check) load the dtype as a word, and a word load of bytes just
 * stored one by one stalls (store forwarding fails: measured, ~10 ns a call). */
#define NP_TYPES 24
static const DLDataType np_dtypes[NP_TYPES] = {
    [0] = {6, 8, 1},                       /* NPY_BOOL */
    [1] = {0, 8, 1},                       /* NPY_BYTE */
    [2] = {1, 8, 1},                       /* NPY_UBYTE */
    [3] = {0, 16, 1},                      /* NPY_SHORT */
    [4] = {1, 16, 1},                      /* NPY_USHORT */
    [5] = {0, 8 * sizeof(int), 1},         /* NPY_INT */
    [6] = {1, 8 * sizeof(int), 1},         /* NPY_UINT */
    [7] = {0, 8 * sizeof(long), 1},        /* NPY_LONG */
    [8] = {1, 8 * sizeof(long), 1},        /* NPY_ULONG */
    [9] = {0, 64, 1},                      /* NPY_LONGLONG */
    [10] = {1, 64, 1},                     /* NPY_ULONGLONG */
    [11] = {2, 32, 1},                     /* NPY_FLOAT */
    [12] = {2, 64, 1},                     /* NPY_DOUBLE */
    [14] = {5, 64, 1},                     /* NPY_CFLOAT */
    [15] = {5, 128, 1},                    /* NPY_CDOUBLE */
    [23] = {2, 16, 1},                     /* NPY_HALF */
};

/* Lends x, an instance of a type gd_numpy_type_is accepted, as *out: version 1.3, no
 * deleter, READ_ONLY unless NumPy's WRITEABLE, shape and strides in elements copied
 * into dims (2 * max_ndim; NULL for 0-d), then checked by the import's extent rule
 * (gd_fast_extent_ok; the rest of gd_fast_check holds by construction: a known
 * whole-byte dtype, CPU, version 1, flags READ_ONLY at most). Returns 0 when x's
 * tensor is not one to lend this way (*out is then partly written; the buffer
 * protocol is asked). Reads only: no allocation, no reference, nothing to release;
 * the caller holds x for the call. */
int gd_numpy_lend(PyObject *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim) {
    const np_array_fields *a = (const np_array_fields *)x;
    const np_descr_head *d = (const np_descr_head *)a->descr;
    int nd = a->nd;
    if (nd < 0 || nd > max_ndim || a->data == NULL || d == NULL || (unsigned)d->type_num >= NP_TYPES ||
        d->byteorder == (PY_LITTLE_ENDIAN ? '>' : '<')) {
        return 0;
    }
    DLDataType dtype = np_dtypes[d->type_num];
    if (dtype.bits == 0) {
        return 0;
    }
    /* Byte strides to element strides by shifts: the item sizes are powers of two,
     * and a division per dimension would cost more than the rest of this. */
    int shift = __builtin_ctz(dtype.bits / 8);
    Py_ssize_t misaligned = 0;
    for (int i = 0; i < nd; i++) {
        misaligned |= a->strides[i] & (((Py_ssize_t)1 << shift) - 1);
        dims[i] = a->dimensions[i];
        dims[max_ndim + i] = a->strides[i] >> shift; /* arithmetic: negative strides too */
    }
    if (misaligned != 0 || !gd_fast_extent_ok(nd, dims, dims + max_ndim, a->data, 0, dtype.bits / 8)) {
        return 0;
    }
    DLTensor *t = &out->dl_tensor;
    out->version.major = GD_DLPACK_MAJOR;
    out->version.minor = GD_DLPACK_MINOR;
    out->manager_ctx = NULL;
    out->deleter = NULL;
    out->flags = (a->flags & NP_ARRAY_WRITEABLE) ? 0 : GD_FLAG_READ_ONLY;
    t->data = a->data;
    t->device = (DLDevice){GD_KDLCPU, 0};
    t->ndim = nd;
    t->dtype = dtype;
    t->shape = nd > 0 ? dims : NULL;
    t->strides = nd > 0 ? dims + max_ndim : NULL;
    t->byte_offset = 0;
    return 1;
}
