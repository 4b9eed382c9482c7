//go:build godlpack_python

/* exchange.c: godlpack's DLPackExchangeAPI (DLPack v1.3 C exchange API), the table
 * that godlpack.Array.__dlpack_c_exchange_api__ points to.
 *
 * The three hot functions (managed_tensor_from_py_object_no_sync,
 * dltensor_from_py_object_no_sync and current_work_stream, the latter in stream.go)
 * are pure C with no call into Go: a C->Go crossing (~90 ns) would cost more than
 * the whole call. managed_tensor_to_py_object_no_sync builds plain tensors in C
 * too, and crosses into Go once for the others, to the core validator
 * (goExchangeToPyObject, exchange.go). The allocator is pure C: the dtypes it
 * accepts come from a table that Go fills once at module init from dlpack.All(),
 * the single source of truth.
 *
 * Threads and the GIL (what a consumer must know):
 *  - managed_tensor_allocator touches no Python state: it may be called from any
 *    thread, with or without the GIL (TVM-FFI calls it with the GIL released). It
 *    reports failure only through the caller's SetError, exactly once.
 *  - the four other functions report failure with a Python exception, so they must
 *    be called with the GIL held, as the spec says (it is in their contract: "-1 on
 *    failure with a Python exception set").
 *  - the deleter of every tensor made here needs no GIL and may run on any thread,
 *    even after interpreter finalization: it only drops a gd_owner reference.
 *
 * Failure never leaves a half-made result: *out is NULL after a failed call of any
 * function that has an out pointer. */
#include "arraymodule.h"
#include "_cgo_export.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the dtypes the allocator accepts, written once by Go (dtypes.go) ----
 * dtype_index1[code][bits] is the dtype's index in dlpack.All() plus one; 0 means
 * the (code, bits) pair is not a dtype godlpack supports. Lanes must be 1. */
static uint8_t dtype_index1[256][256];

void gd_xchg_set_dtype(uint8_t code, uint8_t bits, int32_t index) {
    dtype_index1[code][bits] = (uint8_t)(index + 1);
}

/* current_work_stream and device names live in stream.go's preamble (the stream
 * policy is stream.go's). */
/* The stream policy (the root package's stream.go, filled at its init). */
int gd_xchg_current_work_stream(int32_t device_type, int32_t device_id, void **out);
const char *gd_device_type_name(int32_t device_type);

static const DLPackVersion version_13 = {GD_DLPACK_MAJOR, GD_DLPACK_MINOR};

/* ---- managed_tensor_allocator ---- */

typedef void (*set_error_fn)(void *error_ctx, const char *kind, const char *message);

static int alloc_fail(set_error_fn set_error, void *error_ctx, const char *kind, const char *msg) {
    if (set_error != NULL) {
        set_error(error_ctx, kind, msg);
    }
    return -1;
}

static int xchg_allocator(DLTensor *proto, DLManagedTensorVersioned **out, void *error_ctx,
                          set_error_fn set_error) {
    char msg[320];
    if (out != NULL) {
        *out = NULL;
    }
    if (proto == NULL) {
        return alloc_fail(set_error, error_ctx, "ValueError",
                          "godlpack managed_tensor_allocator: prototype is NULL");
    }
    if (out == NULL) {
        return alloc_fail(set_error, error_ctx, "ValueError",
                          "godlpack managed_tensor_allocator: out is NULL");
    }
    int32_t dev = proto->device.device_type;
    if (dev != GD_KDLCPU) {
        snprintf(msg, sizeof msg,
                 "godlpack managed_tensor_allocator: cannot allocate on device %s "
                 "(device_type=%d, device_id=%d): godlpack allocates CPU memory only; ask for "
                 "(kDLCPU, 0) and copy the result to the device with its library",
                 gd_device_type_name(dev), (int)dev, (int)proto->device.device_id);
        return alloc_fail(set_error, error_ctx, "ValueError", msg);
    }
    DLDataType dt = proto->dtype;
    if (dt.lanes != 1 || dtype_index1[dt.code][dt.bits] == 0) {
        snprintf(msg, sizeof msg,
                 "godlpack managed_tensor_allocator: unsupported dtype (code=%u, bits=%u, "
                 "lanes=%u)%s",
                 (unsigned)dt.code, (unsigned)dt.bits, (unsigned)dt.lanes,
                 dt.lanes != 1 ? ": vector dtypes (lanes != 1) are not supported" : "");
        return alloc_fail(set_error, error_ctx, "ValueError", msg);
    }
    int32_t ndim = proto->ndim;
    if (ndim < 0 || ndim > GD_MAX_NDIM) {
        snprintf(msg, sizeof msg,
                 "godlpack managed_tensor_allocator: ndim %d is out of range (0..%d)", (int)ndim,
                 GD_MAX_NDIM);
        return alloc_fail(set_error, error_ctx, "ValueError", msg);
    }
    if (ndim > 0 && proto->shape == NULL) {
        snprintf(msg, sizeof msg,
                 "godlpack managed_tensor_allocator: shape is NULL for ndim %d", (int)ndim);
        return alloc_fail(set_error, error_ctx, "ValueError", msg);
    }
    /* Element count: exactly 0 if any extent is 0, even if the others overflow. */
    int64_t n = 1;
    int zero = 0;
    for (int32_t i = 0; i < ndim; i++) {
        if (proto->shape[i] < 0) {
            snprintf(msg, sizeof msg,
                     "godlpack managed_tensor_allocator: shape[%d] is negative (%lld)", (int)i,
                     (long long)proto->shape[i]);
            return alloc_fail(set_error, error_ctx, "ValueError", msg);
        }
        zero |= proto->shape[i] == 0;
    }
    int64_t bits_total = 0;
    if (zero) {
        n = 0;
    } else {
        for (int32_t i = 0; i < ndim; i++) {
            if (__builtin_mul_overflow(n, proto->shape[i], &n)) {
                return alloc_fail(set_error, error_ctx, "ValueError",
                                  "godlpack managed_tensor_allocator: the number of elements "
                                  "overflows int64");
            }
        }
        if (__builtin_mul_overflow(n, (int64_t)dt.bits, &bits_total)) {
            snprintf(msg, sizeof msg,
                     "godlpack managed_tensor_allocator: %lld elements of %u bits overflow "
                     "int64 bytes",
                     (long long)n, (unsigned)dt.bits);
            return alloc_fail(set_error, error_ctx, "ValueError", msg);
        }
    }
    /* Packed storage: sub-byte elements (float6, float4) share bytes. */
    int64_t nbytes = bits_total / 8 + (bits_total % 8 + 7) / 8;

    DLManagedTensorVersioned *m = malloc(sizeof *m + 2 * sizeof(int64_t) * (size_t)ndim);
    if (m == NULL) {
        return alloc_fail(set_error, error_ctx, "MemoryError",
                          "godlpack managed_tensor_allocator: out of memory");
    }
    char *data = NULL;
    gd_owner *owner = gd_owner_new_owned(nbytes, 0, &data);
    if (owner == NULL) {
        free(m);
        snprintf(msg, sizeof msg,
                 "godlpack managed_tensor_allocator: cannot allocate %lld bytes", (long long)nbytes);
        return alloc_fail(set_error, error_ctx, "MemoryError", msg);
    }
    gd_live_add(1); /* the tensor block, released by gd_export_deleter */
    int64_t *shape = (int64_t *)(m + 1);
    int64_t *strides = shape + ndim;
    int64_t s = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        shape[i] = proto->shape[i];
        strides[i] = s;
        if (shape[i] > 1) {
            s *= shape[i];
        }
    }
    m->version = version_13;
    m->manager_ctx = owner;
    m->deleter = gd_export_deleter; /* as an export's: to_py of it behaves alike */
    m->flags = 0;
    m->dl_tensor.data = data; /* 256-byte aligned (gd_owner_new_owned) */
    m->dl_tensor.device = proto->device;
    m->dl_tensor.ndim = ndim;
    m->dl_tensor.dtype = dt;
    m->dl_tensor.shape = ndim > 0 ? shape : NULL;
    m->dl_tensor.strides = ndim > 0 ? strides : NULL;
    m->dl_tensor.byte_offset = 0;
    *out = m;
    return 0;
}

/* ---- the *_from_py_object_no_sync pair (GIL held) ---- */

static int not_an_array(const char *fn, PyObject *o) {
    if (o == NULL) {
        PyErr_Format(PyExc_ValueError, "godlpack %s: py_object is NULL", fn);
    } else {
        PyErr_Format(PyExc_TypeError, "godlpack %s: expected a godlpack.Array, got %.200s", fn,
                     Py_TYPE(o)->tp_name);
    }
    return -1;
}

static int xchg_managed_from_py(void *py_object, DLManagedTensorVersioned **out) {
    PyObject *o = py_object;
    if (out == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "godlpack managed_tensor_from_py_object_no_sync: out is NULL");
        return -1;
    }
    *out = NULL;
    if (o == NULL || Py_TYPE(o) != gd_ArrayType) {
        return not_an_array("managed_tensor_from_py_object_no_sync", o);
    }
    /* One malloc; the tensor holds a reference on the array's owner, not on the
     * Python object, so the data outlives the Array until the deleter runs. */
    DLManagedTensorVersioned *m = gd_export_versioned((gd_array *)o, 0, version_13);
    if (m == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *out = m;
    return 0;
}

static int xchg_dltensor_from_py(void *py_object, DLTensor *out) {
    PyObject *o = py_object;
    if (out == NULL) {
        PyErr_SetString(PyExc_ValueError, "godlpack dltensor_from_py_object_no_sync: out is NULL");
        return -1;
    }
    if (o == NULL || Py_TYPE(o) != gd_ArrayType) {
        return not_an_array("dltensor_from_py_object_no_sync", o);
    }
    gd_array *a = (gd_array *)o;
    /* A bare DLTensor has no flags: it cannot say "read-only" (a consumer would
     * feel free to write) nor "padded" (a consumer would read padded sub-byte
     * elements as packed ones). Such arrays go through the managed path. */
    if (a->flags & (GD_FLAG_READ_ONLY | GD_FLAG_SUBBYTE_PADDED)) {
        PyErr_SetString(PyExc_BufferError,
                        (a->flags & GD_FLAG_READ_ONLY)
                            ? "godlpack dltensor_from_py_object_no_sync: a read-only array cannot "
                              "be described by a bare DLTensor, which has no read-only flag; use "
                              "managed_tensor_from_py_object_no_sync"
                            : "godlpack dltensor_from_py_object_no_sync: a padded sub-byte array "
                              "cannot be described by a bare DLTensor, which has no padded flag; "
                              "use managed_tensor_from_py_object_no_sync");
        return -1;
    }
    /* No allocation: shape and strides point into the Array object itself, valid
     * while the caller keeps py_object alive. */
    out->data = a->data;
    out->device.device_type = a->device_type;
    out->device.device_id = a->device_id;
    out->ndim = a->ndim;
    out->dtype = a->dtype;
    out->shape = a->ndim > 0 ? a->shape : NULL;
    out->strides = a->ndim > 0 ? a->strides : NULL;
    out->byte_offset = 0;
    return 0;
}

/* ---- managed_tensor_to_py_object_no_sync (GIL held) ----
 * On success the new Array owns the tensor. On failure the tensor is NOT taken:
 * its deleter has not been called and the caller still owns it. That is what
 * PyTorch 2.15 does and what TVM-FFI 0.1.15 relies on (it calls the deleter itself
 * when this function fails): see docs/internals/exchange-api.md.
 *
 * A plain tensor (CPU, whole-byte dtype, strides, nothing overflowing: the check
 * of fast_import.h, which the Go validator is fuzzed against) becomes an Array
 * here in C; anything else crosses into Go once, where the core validator accepts
 * it or rejects it naming the field (goExchangeToPyObject, exchange.go). */
static int xchg_to_py(DLManagedTensorVersioned *m, void **out) {
    if (out == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "godlpack managed_tensor_to_py_object_no_sync: out_py_object is NULL "
                        "(the tensor was not taken)");
        return -1;
    }
    *out = NULL;
    if (m == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "godlpack managed_tensor_to_py_object_no_sync: tensor is NULL");
        return -1;
    }
    gd_fast_view v;
    if (gd_fast_check(m, 1, gd_dtype_slots, &v)) {
        PyObject *a = gd_array_from_fast(&v, m, 1);
        if (a == NULL) {
            return -1; /* not taken: the owner was never made */
        }
        *out = a;
        return 0;
    }
    return goExchangeToPyObject(m, out);
}

/* ---- the table: process lifetime, read-only ---- */
static const DLPackExchangeAPI exchange_api = {
    .header = {.version = {GD_DLPACK_MAJOR, GD_DLPACK_MINOR}, .prev_api = NULL},
    .managed_tensor_allocator = xchg_allocator,
    .managed_tensor_from_py_object_no_sync = xchg_managed_from_py,
    .managed_tensor_to_py_object_no_sync = xchg_to_py,
    .dltensor_from_py_object_no_sync = xchg_dltensor_from_py,
    .current_work_stream = gd_xchg_current_work_stream,
};

/* The table, for the C-API of extensions written in Go (capi.c). */
const DLPackExchangeAPI *gd_exchange_api(void) { return &exchange_api; }

/* Sets the two class attributes on godlpack.Array (GIL held, at module init):
 *   __dlpack_c_exchange_api__: PyCapsule "dlpack_exchange_api" (DLPack v1.3)
 *   __c_dlpack_exchange_api__: the same address as an int (the convention before
 *                              the rename; see docs/internals/exchange-api.md)
 * Through the type's dict, so it works whether or not the type is immutable. */
int gd_xchg_register(void) {
    PyTypeObject *tp = gd_ArrayType;
    if (tp == NULL || tp->tp_dict == NULL) {
        PyErr_SetString(PyExc_SystemError, "godlpack: Array type not ready for the exchange API");
        return -1;
    }
    PyObject *cap = PyCapsule_New((void *)&exchange_api, gd_name_exchange_api, NULL);
    if (cap == NULL) {
        return -1;
    }
    PyObject *addr = PyLong_FromVoidPtr((void *)&exchange_api);
    if (addr == NULL) {
        Py_DECREF(cap);
        return -1;
    }
    int rc = PyDict_SetItemString(tp->tp_dict, "__dlpack_c_exchange_api__", cap);
    if (rc == 0) {
        rc = PyDict_SetItemString(tp->tp_dict, "__c_dlpack_exchange_api__", addr);
    }
    Py_DECREF(cap);
    Py_DECREF(addr);
    PyType_Modified(tp);
    return rc;
}
