//go:build godlpack_python

/* array_buffer.c: godlpack.Array's PEP 3118 buffer protocol (memoryview(a),
 * NumPy's buffer path, PickleBuffer). C, because a consumer asks for a buffer on
 * every np.asarray(a) and the request is a few field writes.
 *
 * The Py_buffer holds a reference to the Array (view->obj), and the Array holds
 * its owner, so the memory outlives every buffer. Byte shape and strides live in
 * one malloc'd block in view->internal, freed by the release slot. */
#include "arraymodule.h"

#include <stdlib.h>

/* The struct-module format of a dtype, or NULL for the types PEP 3118 has no
 * code for (bfloat16, the float8/float6/float4 families). */
static const char *buffer_format(DLDataType t) {
    switch (t.code) {
    case 0: /* kDLInt */
        return t.bits == 8 ? "b" : t.bits == 16 ? "h" : t.bits == 32 ? "i" : t.bits == 64 ? "q" : NULL;
    case 1: /* kDLUInt */
        return t.bits == 8 ? "B" : t.bits == 16 ? "H" : t.bits == 32 ? "I" : t.bits == 64 ? "Q" : NULL;
    case 2: /* kDLFloat */
        return t.bits == 16 ? "e" : t.bits == 32 ? "f" : t.bits == 64 ? "d" : NULL;
    case 5: /* kDLComplex */
        return t.bits == 64 ? "Zf" : t.bits == 128 ? "Zd" : NULL;
    case 6: /* kDLBool */
        return t.bits == 8 ? "?" : NULL;
    default:
        return NULL;
    }
}

/* Whether the elements are packed in C order (last axis fastest) or, with fortran
 * set, in Fortran order (dlpack.IsCContiguous's rule). Axes of extent 1 have no
 * stride that matters, and an array with no elements is both, whatever its strides
 * (NumPy gives np.zeros((0, 5)) strides (0, 0)): a zero extent anywhere decides,
 * not only one met before a stride that does not match. */
static int is_contiguous(const gd_array *a, int fortran) {
    uint64_t expect = 1; /* unsigned: with a zero extent further on, the product may wrap */
    int packed = 1;
    for (int32_t k = 0; k < a->ndim; k++) {
        int32_t i = fortran ? k : a->ndim - 1 - k;
        if (a->shape[i] == 0) {
            return 1;
        }
        if (a->shape[i] != 1 && (uint64_t)a->strides[i] != expect) {
            packed = 0;
        }
        expect *= (uint64_t)a->shape[i];
    }
    return packed;
}

int gd_array_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    gd_array *a = (gd_array *)self;
    const char *format = buffer_format(a->dtype);
    if (format == NULL || (a->flags & GD_FLAG_SUBBYTE_PADDED)) {
        PyObject *name = PyObject_GetAttrString(self, "dtype");
        PyErr_Format(PyExc_BufferError,
                     "godlpack.Array of dtype %S has no PEP 3118 buffer format; use "
                     "numpy.asarray(a), which views it zero-copy with an ml_dtypes dtype",
                     name != NULL ? name : Py_None);
        Py_XDECREF(name);
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && (a->flags & GD_FLAG_READ_ONLY)) {
        PyErr_SetString(PyExc_BufferError, "godlpack.Array is read-only: no writable buffer");
        return -1;
    }
    int c_contig = is_contiguous(a, 0);
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contig) {
        PyErr_SetString(PyExc_BufferError, "godlpack.Array is not C-contiguous");
        return -1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !is_contiguous(a, 1)) {
        PyErr_SetString(PyExc_BufferError, "godlpack.Array is not Fortran-contiguous");
        return -1;
    }
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contig && !is_contiguous(a, 1)) {
        PyErr_SetString(PyExc_BufferError, "godlpack.Array is not contiguous");
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig) {
        PyErr_SetString(PyExc_BufferError,
                        "godlpack.Array is strided: the consumer must accept strides");
        return -1;
    }
    Py_ssize_t itemsize = (Py_ssize_t)(a->dtype.bits / 8);
    Py_ssize_t *dims = NULL;
    if (a->ndim > 0) {
        dims = malloc(2 * (size_t)a->ndim * sizeof(Py_ssize_t));
        if (dims == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    Py_ssize_t n = 1, len = 0;
    int too_big = 0, empty = 0;
    for (int32_t i = 0; i < a->ndim; i++) {
        dims[i] = (Py_ssize_t)a->shape[i];
        dims[a->ndim + i] = (Py_ssize_t)(a->strides[i] * itemsize); /* the span fits */
        too_big |= __builtin_mul_overflow(n, dims[i], &n);
        empty |= dims[i] == 0;
    }
    /* A broadcast (stride-0) view may describe more bytes than Py_ssize_t counts;
     * a wrapped len would have consumers (memoryview.tobytes) copy that many
     * elements into a buffer of len bytes. NumPy cannot hold such an array either. */
    if (!empty && (too_big || __builtin_mul_overflow(n, itemsize, &len))) {
        free(dims);
        PyErr_SetString(PyExc_BufferError,
                        "godlpack.Array (a broadcast view) describes more than 2**63 bytes: no "
                        "buffer can span it; index a part of it first");
        return -1;
    }
    view->buf = a->data;
    view->obj = Py_NewRef(self);
    view->len = len;
    view->itemsize = itemsize;
    view->readonly = (a->flags & GD_FLAG_READ_ONLY) ? 1 : 0;
    view->ndim = (flags & PyBUF_ND) == PyBUF_ND ? a->ndim : 1; /* SIMPLE: one run of bytes */
    view->format = (flags & PyBUF_FORMAT) ? (char *)format : NULL;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? dims + a->ndim : NULL;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

void gd_array_releasebuffer(PyObject *self, Py_buffer *view) {
    (void)self;
    free(view->internal);
    view->internal = NULL;
}
