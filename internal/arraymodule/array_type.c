//go:build godlpack_python

/* array_type.c: the static tables of godlpack.Array (type spec, slots, methods,
 * getters), which cgo cannot express. Each entry points either at a C hot path
 * (dlpack_export.c) or at a method implemented in Go (array*.go), exported
 * through cgo as go*. */
#include "arraymodule.h"
#include "_cgo_export.h"

PyTypeObject *gd_ArrayType;

/* Freed Arrays of up to FREE_NDIM dimensions wait on a list per ndim for the next
 * Array of theirs, as CPython keeps its floats and tuples: an Array made and dropped
 * per call (a view, an import) went to pymalloc and back (a[1:] 89 -> 70 ns with the
 * lists). With the GIL only: it guards the lists (the module is not for
 * sub-interpreters); a free-threaded CPython allocates with mimalloc per thread. */
#ifndef Py_GIL_DISABLED
#define FREE_NDIM 4
#define FREE_PER_NDIM 16
static gd_array *free_arrays[FREE_NDIM + 1][FREE_PER_NDIM];
static int free_count[FREE_NDIM + 1];
#endif

/* A freed Array of ndim dimensions made a new one (its memory zeroed, as tp_alloc's),
 * or NULL where none waits. */
static gd_array *reuse_freed(int32_t ndim) {
#ifndef Py_GIL_DISABLED
    if (ndim <= FREE_NDIM && free_count[ndim] > 0) {
        gd_array *a = free_arrays[ndim][--free_count[ndim]];
        memset(a, 0, (size_t)gd_ArrayType->tp_basicsize + 2 * (size_t)ndim * sizeof(int64_t));
        PyObject_InitVar((PyVarObject *)a, gd_ArrayType, 2 * (Py_ssize_t)ndim); /* refs the type */
        return a;
    }
#endif
    (void)ndim;
    return NULL;
}

/* Whether a, being deallocated, went on its free list (its type's reference dropped). */
static int keep_freed(gd_array *a) {
#ifndef Py_GIL_DISABLED
    int32_t ndim = a->ndim;
    if (ndim >= 0 && ndim <= FREE_NDIM && free_count[ndim] < FREE_PER_NDIM) {
        free_arrays[ndim][free_count[ndim]++] = a;
        Py_DECREF(gd_ArrayType);
        return 1;
    }
#endif
    (void)a;
    return 0;
}

gd_array *gd_array_alloc(int32_t ndim) {
    gd_array *a = reuse_freed(ndim);
    if (a == NULL) {
        a = (gd_array *)gd_ArrayType->tp_alloc(gd_ArrayType, 2 * (Py_ssize_t)ndim);
    }
    if (a == NULL) {
        return NULL;
    }
    a->owner = NULL;
    a->data = NULL;
    a->ndim = ndim;
    a->shape = a->dims;
    a->strides = a->dims + ndim;
    a->flags = 0;
    a->dtype_index = 0;
    a->device_type = GD_KDLCPU;
    a->device_id = 0;
    return a;
}

int gd_array_check(PyObject *o) { return Py_TYPE(o) == gd_ArrayType; }

static void array_dealloc(PyObject *self) {
    gd_array *a = (gd_array *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (a->owner != NULL) {
        gd_owner_decref(a->owner);
    }
    if (keep_freed(a)) {
        return;
    }
    tp->tp_free(self);
    Py_DECREF(tp); /* instances of heap types own a reference to their type */
}

static Py_ssize_t array_length(PyObject *self) {
    gd_array *a = (gd_array *)self;
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d array");
        return -1;
    }
    return (Py_ssize_t)a->shape[0];
}

/* iter(a) walks the first axis through sq_item; a 0-d array refuses at iter()
 * time, as NumPy's does, rather than yielding nothing. */
static PyObject *array_iter(PyObject *self) {
    if (((gd_array *)self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    return PySeqIter_New(self);
}

static PyObject *array_new(PyTypeObject *tp, PyObject *args, PyObject *kwargs) {
    (void)tp;
    return goArrayNew(args, kwargs);
}


static PyGetSetDef array_getset[] = {
    {"shape", gd_array_get_shape, NULL, "Tuple of the array's dimensions.", NULL},
    {"strides", gd_array_get_strides, NULL,
     "Tuple of strides in elements (not bytes), as in DLPack.", NULL},
    {"dtype", gd_array_get_dtype, NULL,
     "Element type; compares equal to its name, e.g. 'float32'.", NULL},
    {"ndim", gd_array_get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", gd_array_get_size, NULL, "Number of elements.", NULL},
    {"itemsize", gd_array_get_itemsize, NULL,
     "Bytes per element (1 for the packed sub-byte float6/float4 types).", NULL},
    {"nbytes", gd_array_get_nbytes, NULL, "Bytes the elements occupy.", NULL},
    {"readonly", gd_array_get_readonly, NULL, "True if writes are refused.", NULL},
    {"flags", (getter)goArrayGet_flags, NULL,
     "Dict of flags: readonly, is_copied, c_contiguous, owndata, subbyte_padded.", NULL},
    {"data_ptr", gd_array_get_data_ptr, NULL, "Address of element 0, as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))gd_array_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export the array as a DLPack capsule (array API standard).\n\n"
     "Consumers call this for you: numpy.from_dlpack(a), torch.from_dlpack(a), JAX, TVM-FFI.\n"
     "All keywords are keyword-only.\n\n"
     "stream: must be None (CPU memory has no stream); anything else raises ValueError.\n"
     "max_version: None or a (major, minor) tuple of ints; major >= 1 gives a\n"
     "    'dltensor_versioned' capsule (DLManagedTensorVersioned, version reported as\n"
     "    (1, min(3, minor)), for ints of any size); None or major < 1 gives a legacy\n"
     "    'dltensor' capsule.\n"
     "dl_device: None, the array's own device or (kDLCPU, 0); (kDLCPU, 0) exports an\n"
     "    imported pinned or managed array (CPU-readable) labelled CPU. Another device\n"
     "    raises BufferError (godlpack cannot move memory to it).\n"
     "copy: None or False share the array's memory (never a copy); True exports a fresh\n"
     "    contiguous copy and sets the IS_COPIED flag.\n\n"
     "The capsule holds a reference on the memory, not on the Array: the memory stays\n"
     "alive until the consumer's deleter runs, or until the capsule is collected unused.\n\n"
     "Errors: BufferError for an export that cannot be made: a device other than the\n"
     "array's, or the legacy format (max_version None or major < 1) for a read-only array\n"
     "(no READ_ONLY flag there) or a padded sub-byte array (no padded flag there).\n"
     "ValueError for a stream other than None. TypeError for positional arguments,\n"
     "unknown keywords, and max_version, dl_device or copy of the wrong type."},
    {"__dlpack_device__", gd_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n"
     "Return the array's device as (DLDeviceType, device_id), for DLPack consumers.\n\n"
     "(DLDeviceType.kDLCPU, 0) for arrays godlpack made; an imported array keeps its\n"
     "producer's host-accessible device (kDLCUDAHost, kDLROCMHost or kDLCUDAManaged)."},
    {"tolist", (PyCFunction)goArrayTolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nReturn the elements as nested Python lists of Python scalars."},
    {"item", (PyCFunction)goArrayItemMethod, METH_VARARGS,
     "item($self, /, *index)\n--\n\nOne element as a Python scalar (bool, int, float or complex): "
     "no index for an array of size 1, one flat index (C order), or one index per axis."},
    {"copy", (PyCFunction)goArrayCopyMethod, METH_NOARGS,
     "copy($self, /)\n--\n\nReturn a C-contiguous, writable, Go-owned copy."},
    {"reshape", gd_array_reshape, METH_VARARGS,
     "reshape($self, *shape)\n--\n\nReturn a view with a new shape (one -1 is inferred); "
     "raises ValueError if the sizes differ or the array is not contiguous."},
    {"toreadonly", (PyCFunction)goArrayToReadonly, METH_NOARGS,
     "toreadonly($self, /)\n--\n\nReturn a read-only view of the same memory."},
    {"__complex__", (PyCFunction)goArrayComplex, METH_NOARGS,
     "__complex__($self, /)\n--\n\ncomplex(a) of a one-element array."},
    /* For pickling and NumPy's protocol (godlpack/_pickling.py, _numpy.py). */
    {"_bytes", (PyCFunction)goArrayBytes, METH_NOARGS,
     "Internal: a 1-D uint8 view of a C-contiguous unpadded array's bytes."},
    {"_bits_as", (PyCFunction)goArrayBitsAs, METH_O,
     "Internal: a view with another dtype of the same width (same shape and strides)."},
    {"_keep", (PyCFunction)goArrayKeep, METH_NOARGS,
     "Internal: the object kept alive with a wrapped Python buffer, the numpy.ndarray "
     "whose memory an import from its fields views, or None."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot array_slots[] = {
    {Py_tp_doc, "Array(obj, dtype=None)\n--\n\n"
                "An n-dimensional array whose memory is owned by godlpack (Go) or borrowed\n"
                "zero-copy from another DLPack producer. Array(obj) is asarray(obj)."},
    {Py_tp_new, array_new},
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_repr, goArrayRepr},
    {Py_tp_iter, array_iter},
    {Py_tp_methods, array_methods},
    {Py_tp_getset, array_getset},
    {Py_mp_length, array_length},
    {Py_sq_length, array_length},
    {Py_mp_subscript, gd_array_subscript},
    {Py_mp_ass_subscript, gd_array_ass_subscript},
    {Py_sq_item, gd_array_item},
    {Py_bf_getbuffer, gd_array_getbuffer},
    {Py_bf_releasebuffer, gd_array_releasebuffer},
    {Py_nb_bool, goArrayBool},
    {Py_nb_float, goArrayFloat},
    {Py_nb_int, goArrayInt},
    {Py_nb_index, goArrayIndex},
    {0, NULL},
};

static PyType_Spec array_spec = {
    .name = "godlpack.Array",
    .basicsize = offsetof(gd_array, dims),
    .itemsize = sizeof(int64_t),
    /* Not a base type: the exchange API table on this type must describe every
     * instance exactly, which a subclass could not promise. */
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = array_slots,
};

int gd_array_type_init(void) {
#ifndef Py_GIL_DISABLED
    /* An interpreter initialized again (an embedding program's) starts with empty
     * lists: the memory of the finalized one's is not reused, only left. */
    memset(free_count, 0, sizeof free_count);
#endif
    gd_ArrayType = (PyTypeObject *)PyType_FromSpec(&array_spec);
    return gd_ArrayType == NULL ? -1 : 0; /* our reference lasts for the process */
}
