/* godlpack_capi.h: godlpack's C-API for Python extensions written in Go, as NumPy's
 * _ARRAY_API is for C extensions: one table of function pointers that
 * godlpack._godlpack publishes as the capsule godlpack._godlpack._C_API, so that
 * every extension returns the same godlpack.Array type and imports tensors through
 * the one import flow (internal/arraymodule/dlpack_import.c), in the godlpack
 * module's own .so.
 *
 * Why a table and not direct calls: an extension is a separate c-shared library
 * with its own Go runtime and its own copy of the godlpack library, C files
 * included, whose Array type is never made ready. Only the godlpack module's copy
 * is live; the extension reaches it through these pointers and never uses its own.
 *
 * Compatibility: an extension checks version == GD_CAPI_VERSION at import and
 * refuses to load otherwise (ImportError naming both numbers). Any change to this
 * struct, to gd_array's layout or to the meaning of a function bumps the version. */
#ifndef GODLPACK_CAPI_H
#define GODLPACK_CAPI_H

#include "dlpack_abi.h"

#define GD_CAPI_VERSION 1
#define GD_CAPI_NAME "godlpack._godlpack._C_API"

typedef struct gd_capi {
    uint32_t version; /* GD_CAPI_VERSION of the godlpack that made the table */
    uint32_t size;    /* sizeof(gd_capi) there */
    /* godlpack.Array (the exact type: Arrays are not subclassed). */
    void *array_type; /* PyTypeObject * */
    /* The DLPack exchange API of godlpack.Array: managed_tensor_to_py_object_no_sync
     * makes a new Array owning a managed tensor (leaving it with the caller when it
     * fails), managed_tensor_from_py_object_no_sync exports an Array as an owned
     * managed tensor whose deleter needs no GIL. GIL held for both. */
    const DLPackExchangeAPI *exchange;
    /* If o is a godlpack.Array: fills *out with a borrowed view of it (version 1.3,
     * no deleter, no manager_ctx, the Array's flags; shape and strides point into
     * the Array, valid while it lives) and returns 0. Otherwise -1, no exception.
     * Needs no GIL while the caller holds a reference to o. */
    int (*array_borrow)(void *o, DLManagedTensorVersioned *out);
    /* godlpack.from_dlpack(x) with no keywords, for anything but an Array: a new
     * Array (a PyObject *), or NULL with an exception set. GIL held. */
    void *(*from_dlpack)(void *x);
    /* x's tensor lent for a call with no allocation (gd_lend_foreign in
     * dlpack_import.c: PyTorch's dltensor_from_py_object_no_sync unless the function
     * writes, a NumPy array's fields, another producer's buffer): 1 with *out filled (no deleter; shape and strides
     * copied into dims[0..2*max_ndim)) and *view holding a buffer to release with
     * PyBuffer_Release after the call when view->obj is not NULL; 0 when not lent
     * (use from_dlpack); -1 with an exception. GIL held. */
    int (*lend)(void *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim, int writes,
                void *view /* Py_buffer * */);
} gd_capi;

#endif
