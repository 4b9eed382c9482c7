//go:build godlpack_python

/* ext_numpy_result.c: an array result returned as a numpy.ndarray (ResultIn(NumPy),
 * ResultLike of a NumPy argument) made by NumPy's own C-API, as nanobind's
 * nb::ndarray<nb::numpy> makes it: a view of the godlpack.Array's memory whose base
 * is that Array (it owns the memory). numpy.from_dlpack(array), the general path,
 * costs a Python call, the __dlpack__ protocol's keywords and a capsule: ~1 us of a
 * ~1.5 us call of a 4x4 scale. A dtype or device NumPy's API cannot take here goes
 * that way still (gd_ext_numpy_array returns NULL with no exception).
 *
 * NumPy's C-API is its _ARRAY_API capsule, a table of function pointers whose
 * indices NumPy keeps stable across 1.x and 2.x (numpy/__multiarray_api.h): read
 * here by index, with no NumPy header, as internal/cpython/numpy_lend.c reads its
 * fields. */
#include "ext.h"
#include "gd_python.h" /* gd_call_deleter, gd_decref_keep_error */

#include <string.h>

/* Indices in NumPy's PyArray_API table (numpy/__multiarray_api.h, NumPy >= 1.7). */
enum {
    NP_API_TYPE = 2,               /* PyArray_Type */
    NP_API_DESCR_FROM_TYPE = 45,   /* PyArray_Descr *(int typenum) */
    NP_API_NEW_FROM_DESCR = 94,    /* PyObject *(type, descr, nd, dims, strides, data, flags, obj) */
    NP_API_SET_BASE_OBJECT = 282,  /* int (PyArrayObject *, PyObject *base): steals base */
};
#define NP_ARRAY_WRITEABLE 0x0400

typedef PyObject *(*descr_from_type_fn)(int);
typedef PyObject *(*new_from_descr_fn)(PyTypeObject *, PyObject *, int, const Py_ssize_t *,
                                       const Py_ssize_t *, void *, int, PyObject *);
typedef int (*set_base_object_fn)(PyObject *, PyObject *);

/* NumPy's table, once NumPy is imported (NULL before: the caller passed a NumPy array
 * or asked for NumPy, so it is imported by then); read again until found. */
static void **numpy_api(void) {
    static void **api;
    void **a = __atomic_load_n(&api, __ATOMIC_ACQUIRE);
    if (a != NULL) {
        return a;
    }
    static const char *modules[] = {"numpy._core._multiarray_umath", "numpy.core._multiarray_umath"};
    for (size_t i = 0; a == NULL && i < sizeof modules / sizeof modules[0]; i++) {
        PyObject *m = PyImport_ImportModule(modules[i]);
        PyObject *c = m != NULL ? PyObject_GetAttrString(m, "_ARRAY_API") : NULL;
        a = c != NULL && PyCapsule_CheckExact(c) ? PyCapsule_GetPointer(c, NULL) : NULL;
        Py_XDECREF(c); /* the module keeps the capsule, and the table lives with it */
        Py_XDECREF(m);
        PyErr_Clear();
    }
    if (a != NULL) {
        __atomic_store_n(&api, a, __ATOMIC_RELEASE); /* the same table from any thread */
    }
    return a;
}

/* NumPy's type number of a DLPack dtype of one lane (-1: none here). Linux and macOS's
 * LP64: NPY_LONG is int64, NPY_ULONG uint64. */
static int numpy_typenum(DLDataType t) {
    if (t.lanes != 1) {
        return -1;
    }
    switch (t.code) {
    case 0: /* kDLInt */
        return t.bits == 8 ? 1 : t.bits == 16 ? 3 : t.bits == 32 ? 5 : t.bits == 64 && sizeof(long) == 8 ? 7 : -1;
    case 1: /* kDLUInt */
        return t.bits == 8 ? 2 : t.bits == 16 ? 4 : t.bits == 32 ? 6 : t.bits == 64 && sizeof(long) == 8 ? 8 : -1;
    case 2: /* kDLFloat */
        return t.bits == 16 ? 23 : t.bits == 32 ? 11 : t.bits == 64 ? 12 : -1;
    case 5: /* kDLComplex */
        return t.bits == 64 ? 14 : t.bits == 128 ? 15 : -1;
    case 6: /* kDLBool */
        return t.bits == 8 ? 0 : -1;
    }
    return -1;
}

/* NumPy's table where NumPy can view t (a CPU tensor of a dtype of its own, of at most
 * the dimensions read here), with its type number in *typenum; else NULL. */
static void **numpy_api_for(const DLTensor *t, int *typenum) {
    *typenum = numpy_typenum(t->dtype);
    return *typenum >= 0 && t->device.device_type == 1 /* kDLCPU */ &&
                   t->ndim <= GD_EXT_LEND_NDIM * 4
               ? numpy_api()
               : NULL;
}

/* An ndarray viewing t (writable unless dlflags say read-only) whose base is base
 * (stolen: released on failure). NULL with an exception set on failure. */
static PyObject *numpy_view(void **api, int typenum, const DLTensor *t, uint64_t dlflags,
                            PyObject *base) {
    Py_ssize_t dims[GD_EXT_LEND_NDIM * 4], strides[GD_EXT_LEND_NDIM * 4];
    Py_ssize_t itemsize = t->dtype.bits / 8;
    for (int i = 0; i < t->ndim; i++) {
        dims[i] = (Py_ssize_t)t->shape[i];
        if (t->strides != NULL) {
            strides[i] = (Py_ssize_t)t->strides[i] * itemsize; /* DLPack's are in elements */
        }
    }
    PyObject *descr = ((descr_from_type_fn)api[NP_API_DESCR_FROM_TYPE])(typenum);
    if (descr == NULL) {
        gd_decref_keep_error(base);
        return NULL;
    }
    int flags = (dlflags & GD_FLAG_READ_ONLY) ? 0 : NP_ARRAY_WRITEABLE;
    /* NewFromDescr steals descr; strides NULL: C-contiguous, as DLPack's NULL strides. */
    PyObject *nd = ((new_from_descr_fn)api[NP_API_NEW_FROM_DESCR])(
        (PyTypeObject *)api[NP_API_TYPE], descr, t->ndim, dims, t->strides != NULL ? strides : NULL,
        (char *)t->data + t->byte_offset, flags, NULL);
    if (nd == NULL) {
        gd_decref_keep_error(base);
        return NULL;
    }
    if (((set_base_object_fn)api[NP_API_SET_BASE_OBJECT])(nd, base) < 0) {
        Py_DECREF(nd); /* SetBaseObject stole the reference, even failing */
        return NULL;
    }
    return nd;
}

PyObject *gd_ext_numpy_array(PyObject *array) {
    DLManagedTensorVersioned m;
    if (gd_ext_capi->array_borrow(array, &m) != 0) {
        return NULL;
    }
    int typenum;
    void **api = numpy_api_for(&m.dl_tensor, &typenum);
    return api != NULL ? numpy_view(api, typenum, &m.dl_tensor, m.flags, Py_NewRef(array)) : NULL;
}

PyObject *gd_ext_numpy_small(const gd_ext_result *r) {
    DLDataType dt = {.code = (uint8_t)(r->i & 0xff), .bits = (uint8_t)(r->i >> 8), .lanes = 1};
    int typenum = numpy_typenum(dt);
    void **api = typenum >= 0 ? numpy_api() : NULL;
    Py_ssize_t n = (Py_ssize_t)r->n;
    size_t bytes = (size_t)n * (dt.bits / 8);
    if (api == NULL || n < 0 || bytes > sizeof r->small) { /* Go writes only what fits */
        PyErr_Format(PyExc_SystemError, "godlpack: a NumPy result of %zd elements of dtype "
                     "(%d, %d) that NumPy cannot make here", n, dt.code, dt.bits);
        return NULL;
    }
    PyObject *descr = ((descr_from_type_fn)api[NP_API_DESCR_FROM_TYPE])(typenum);
    if (descr == NULL) {
        return NULL;
    }
    /* data NULL: NumPy allocates (its small-block cache), C order, writable. */
    PyObject *nd = ((new_from_descr_fn)api[NP_API_NEW_FROM_DESCR])(
        (PyTypeObject *)api[NP_API_TYPE], descr, 1, &n, NULL, NULL, 0, NULL);
    if (nd != NULL && bytes > 0) {
        /* PyArray_DATA: the first field after the object's head in NumPy 1.x and 2.x
         * (internal/cpython/numpy_lend.c's mirror). */
        memcpy(*(char **)((char *)nd + sizeof(PyObject)), r->small, bytes);
    }
    return nd;
}

/* The base of an ndarray made of a managed tensor: a capsule whose destructor runs the
 * tensor's deleter when NumPy lets the array go (a Go tensor's deleter: any thread).
 * Unnamed: no code but this file's reads it, and a name costs each release a strcmp. */
static void owner_free(PyObject *capsule) {
    gd_call_deleter(PyCapsule_GetPointer(capsule, NULL), 1);
}

int gd_ext_numpy_from_managed(DLManagedTensorVersioned *m, PyObject **out) {
    int typenum;
    void **api = numpy_api_for(&m->dl_tensor, &typenum);
    if (api == NULL) {
        return 0;
    }
    PyObject *owner = PyCapsule_New(m, NULL, owner_free);
    if (owner == NULL) {
        gd_call_deleter_keep_error(m, 1);
        *out = NULL;
        return 1;
    }
    *out = numpy_view(api, typenum, &m->dl_tensor, m->flags, owner);
    return 1;
}
