//go:build godlpack_python

/* exchange.c: tensors handed between Go and Python (exchange.go: Object.Tensor, FromGo
 * of a tensor, a callback's tensor argument) through the godlpack module's C-API: its
 * DLPack exchange API's functions, as a consumer in C would call them, and its
 * from_dlpack flow. */
#include "ext.h"
#include "gd_python.h"

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
