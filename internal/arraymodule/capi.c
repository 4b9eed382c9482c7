//go:build godlpack_python

/* capi.c: the godlpack module's side of the C-API for extensions written in Go
 * (godlpack_capi.h): the table behind the capsule godlpack._godlpack._C_API. Each
 * entry is the module's own code: the Array type, its exchange API, and the import
 * flow of from_dlpack (gd_import_foreign), so an extension has no second copy. */
#include "arraymodule.h"
#include "godlpack_capi.h"

const DLPackExchangeAPI *gd_exchange_api(void);
extern const gd_capi *gd_ext_capi; /* ext_call.c: what the API's call path uses */

static int capi_array_borrow(void *obj, DLManagedTensorVersioned *out) {
    PyObject *o = obj;
    if (Py_TYPE(o) != gd_ArrayType) {
        return -1;
    }
    gd_array *a = (gd_array *)o;
    out->version.major = GD_DLPACK_MAJOR;
    out->version.minor = GD_DLPACK_MINOR;
    out->manager_ctx = NULL;
    out->deleter = NULL;
    out->flags = a->flags & (GD_FLAG_READ_ONLY | GD_FLAG_IS_COPIED | GD_FLAG_SUBBYTE_PADDED);
    out->dl_tensor.data = a->data;
    out->dl_tensor.device.device_type = a->device_type;
    out->dl_tensor.device.device_id = a->device_id;
    out->dl_tensor.ndim = a->ndim;
    out->dl_tensor.dtype = a->dtype;
    out->dl_tensor.shape = a->ndim > 0 ? a->shape : NULL;
    out->dl_tensor.strides = a->ndim > 0 ? a->strides : NULL;
    out->dl_tensor.byte_offset = 0;
    return 0;
}

static void *capi_from_dlpack(void *x) { return gd_import_foreign(x, NULL, NULL, 0); }

static int capi_lend(void *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim, int writes,
                     void *view) {
    return gd_lend_foreign(x, out, dims, max_ndim, writes, view);
}

/* Filled once, at the first module exec (the Array type exists by then); process
 * lifetime, like the exchange API table it points to. */
static gd_capi capi_table;

int gd_capi_publish(PyObject *m) {
    if (capi_table.version == 0) {
        capi_table.size = sizeof capi_table;
        capi_table.array_type = gd_ArrayType;
        capi_table.exchange = gd_exchange_api();
        capi_table.array_borrow = capi_array_borrow;
        capi_table.from_dlpack = capi_from_dlpack;
        capi_table.lend = capi_lend;
        capi_table.version = GD_CAPI_VERSION;
        /* The module's own functions written with the extension API
         * (module_funcs.go) reach this table directly, as an extension does
         * through the capsule. */
        gd_ext_capi = &capi_table;
    }
    PyObject *cap = PyCapsule_New(&capi_table, GD_CAPI_NAME, NULL);
    if (cap == NULL) {
        return -1;
    }
    int rc = PyModule_AddObjectRef(m, "_C_API", cap);
    Py_DECREF(cap);
    return rc;
}
