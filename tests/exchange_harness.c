/* exchange_harness.c: a C consumer of the DLPack C exchange API, for the tests.
 *
 * tests/test_exchange_api.py compiles this with gcc into a shared library and
 * loads it with ctypes.PyDLL (the GIL stays held during calls, and a NULL return
 * raises the Python exception that is set). It is written against the upstream
 * dlpack.h v1.3 (the copy TVM-FFI ships), not godlpack's own declarations, so it
 * also checks that the two agree on the ABI.
 *
 * Like a real consumer it finds the table on the TYPE:
 *     type.__dlpack_c_exchange_api__ -> PyCapsule "dlpack_exchange_api"
 * and calls each function pointer directly, on good inputs and on every error
 * path, reporting what it saw as a dict: return code, the exception the function
 * set (type name and message, then cleared), the fields it wrote, reference
 * counts, deleter calls and SetError calls. The Python tests assert on those. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlpack/dlpack.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static const DLPackExchangeAPI *get_api(PyObject *type) {
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "harness: expected a type");
        return NULL;
    }
    PyObject *cap = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
    if (cap == NULL) {
        return NULL;
    }
    const DLPackExchangeAPI *api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
    Py_DECREF(cap);
    return api; /* NULL with an exception set if the name is wrong */
}

static int put(PyObject *d, const char *key, PyObject *v) {
    if (v == NULL) {
        return -1;
    }
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static int put_i(PyObject *d, const char *key, long long v) {
    return put(d, key, PyLong_FromLongLong(v));
}

static int put_u(PyObject *d, const char *key, unsigned long long v) {
    return put(d, key, PyLong_FromUnsignedLongLong(v));
}

static int put_ptr(PyObject *d, const char *key, const void *p) {
    if (p == NULL) {
        return put(d, key, Py_NewRef(Py_None));
    }
    return put(d, key, PyLong_FromVoidPtr((void *)p));
}

static PyObject *i64_tuple(const int64_t *p, int n) {
    if (p == NULL) {
        return Py_NewRef(Py_None);
    }
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(p[i]));
    }
    return t;
}

/* Moves the pending exception, if any, into d as exc_type / exc_msg (None if none). */
static int grab_exception(PyObject *d) {
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    PyErr_Fetch(&type, &value, &tb);
    if (type == NULL) {
        return put(d, "exc_type", Py_NewRef(Py_None)) | put(d, "exc_msg", Py_NewRef(Py_None));
    }
    PyErr_NormalizeException(&type, &value, &tb);
    int rc = put(d, "exc_type", PyUnicode_FromString(((PyTypeObject *)type)->tp_name));
    rc |= put(d, "exc_msg", value != NULL ? PyObject_Str(value) : Py_NewRef(Py_None));
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return rc;
}

static int put_tensor(PyObject *d, const DLTensor *t) {
    int rc = put_ptr(d, "data", t->data);
    rc |= put_i(d, "device_type", t->device.device_type);
    rc |= put_i(d, "device_id", t->device.device_id);
    rc |= put_i(d, "ndim", t->ndim);
    rc |= put_i(d, "code", t->dtype.code);
    rc |= put_i(d, "bits", t->dtype.bits);
    rc |= put_i(d, "lanes", t->dtype.lanes);
    int n = t->ndim > 0 && t->ndim <= 64 ? t->ndim : 0;
    rc |= put(d, "shape", i64_tuple(t->shape, n));
    rc |= put(d, "strides", i64_tuple(t->strides, n));
    rc |= put_ptr(d, "shape_ptr", t->shape);
    rc |= put_ptr(d, "strides_ptr", t->strides);
    rc |= put_u(d, "byte_offset", t->byte_offset);
    return rc;
}

static int put_managed(PyObject *d, const DLManagedTensorVersioned *m) {
    int rc = put_ptr(d, "tensor", m);
    if (m == NULL) {
        return rc;
    }
    rc |= put_i(d, "version_major", m->version.major);
    rc |= put_i(d, "version_minor", m->version.minor);
    rc |= put_u(d, "flags", m->flags);
    rc |= put_i(d, "has_deleter", m->deleter != NULL);
    rc |= put_tensor(d, &m->dl_tensor);
    return rc;
}

static PyObject *done(PyObject *d, int rc) {
    if (rc != 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* ---- the table itself ---- */

PyObject *hx_api_info(PyObject *type) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int rc = put_ptr(d, "address", api);
    rc |= put_i(d, "major", api->header.version.major);
    rc |= put_i(d, "minor", api->header.version.minor);
    rc |= put_ptr(d, "prev_api", api->header.prev_api);
    rc |= put_i(d, "allocator", api->managed_tensor_allocator != NULL);
    rc |= put_i(d, "from_py", api->managed_tensor_from_py_object_no_sync != NULL);
    rc |= put_i(d, "to_py", api->managed_tensor_to_py_object_no_sync != NULL);
    rc |= put_i(d, "dltensor", api->dltensor_from_py_object_no_sync != NULL);
    rc |= put_i(d, "stream", api->current_work_stream != NULL);
    return done(d, rc);
}

/* ---- dltensor_from_py_object_no_sync ----
 * mode 0: normal; 1: py_object NULL; 2: out NULL. */
PyObject *hx_dltensor(PyObject *type, PyObject *obj, int mode) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    DLTensor t;
    memset(&t, 0xAB, sizeof t); /* garbage: everything read back must have been written */
    Py_ssize_t before = Py_REFCNT(obj);
    int r = api->dltensor_from_py_object_no_sync(mode == 1 ? NULL : obj, mode == 2 ? NULL : &t);
    Py_ssize_t after = Py_REFCNT(obj);
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int rc = put_i(d, "rc", r);
    rc |= put_i(d, "error_set", PyErr_Occurred() != NULL);
    rc |= grab_exception(d);
    rc |= put_i(d, "refcnt_delta", (long long)(after - before));
    if (r == 0 && mode == 0) {
        rc |= put_tensor(d, &t);
        /* Where shape/strides point: inside the object's own memory? */
        const char *lo = (const char *)obj;
        const char *hi = lo + Py_TYPE(obj)->tp_basicsize +
                         Py_SIZE(obj) * Py_TYPE(obj)->tp_itemsize;
        int inside = 1;
        if (t.ndim > 0) {
            inside = (const char *)t.shape >= lo && (const char *)(t.shape + t.ndim) <= hi &&
                     (const char *)t.strides >= lo && (const char *)(t.strides + t.ndim) <= hi;
        }
        rc |= put_i(d, "dims_inside_object", inside);
    }
    return done(d, rc);
}

/* ---- managed_tensor_from_py_object_no_sync ----
 * mode 0: normal; 1: py_object NULL; 2: out NULL. The tensor (if any) is now the
 * caller's: release it with hx_delete. */
PyObject *hx_managed_from_py(PyObject *type, PyObject *obj, int mode) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)(uintptr_t)0xdeadbeef;
    Py_ssize_t before = Py_REFCNT(obj);
    int r = api->managed_tensor_from_py_object_no_sync(mode == 1 ? NULL : obj,
                                                       mode == 2 ? NULL : &m);
    Py_ssize_t after = Py_REFCNT(obj);
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int rc = put_i(d, "rc", r);
    rc |= put_i(d, "error_set", PyErr_Occurred() != NULL);
    rc |= grab_exception(d);
    rc |= put_i(d, "refcnt_delta", (long long)(after - before));
    if (mode != 2) {
        rc |= put_i(d, "out_untouched", m == (DLManagedTensorVersioned *)(uintptr_t)0xdeadbeef);
        if (m != (DLManagedTensorVersioned *)(uintptr_t)0xdeadbeef) {
            rc |= put_managed(d, m);
        }
    }
    return done(d, rc);
}

/* Calls a managed tensor's deleter, as its owner. */
PyObject *hx_delete(PyObject *addr) {
    DLManagedTensorVersioned *m = PyLong_AsVoidPtr(addr);
    if (m == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    if (m->deleter != NULL) {
        m->deleter(m);
    }
    Py_RETURN_NONE;
}

/* ---- managed_tensor_allocator ---- */

typedef struct {
    int calls;
    char kind[64];
    char message[512];
} error_box;

static void set_error(void *ctx, const char *kind, const char *message) {
    error_box *b = ctx;
    b->calls++;
    snprintf(b->kind, sizeof b->kind, "%s", kind ? kind : "(null)");
    snprintf(b->message, sizeof b->message, "%s", message ? message : "(null)");
}

typedef struct {
    const DLPackExchangeAPI *api;
    DLTensor *proto;
    DLManagedTensorVersioned **out;
    error_box *box;
    int null_set_error;
    int rc;
    int had_gil;
} alloc_call;

static void *alloc_thread(void *p) {
    alloc_call *c = p;
    c->had_gil = PyGILState_Check();
    c->rc = c->api->managed_tensor_allocator(c->proto, c->out, c->box,
                                             c->null_set_error ? NULL : set_error);
    return NULL;
}

/* spec: (device_type, device_id, code, bits, lanes, ndim, shape tuple or None)
 * flags: 1 prototype NULL, 2 out NULL, 4 SetError NULL, 8 call without the GIL,
 *        16 call from a new thread that never had the GIL. */
PyObject *hx_alloc(PyObject *type, PyObject *spec, int flags) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    int dev_type, dev_id, code, bits, lanes, ndim;
    PyObject *shape_obj;
    if (!PyArg_ParseTuple(spec, "iiiiiiO", &dev_type, &dev_id, &code, &bits, &lanes, &ndim,
                          &shape_obj)) {
        return NULL;
    }
    int64_t shape[80];
    int64_t *shape_ptr = NULL;
    if (shape_obj != Py_None) {
        Py_ssize_t n = PyTuple_Size(shape_obj);
        if (n < 0 || n > 80) {
            PyErr_SetString(PyExc_ValueError, "harness: shape must be a tuple of at most 80");
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, i));
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
        shape_ptr = shape;
    }
    int64_t proto_shape_copy[80];
    if (shape_ptr != NULL) {
        memcpy(proto_shape_copy, shape, sizeof shape);
    }
    DLTensor proto;
    memset(&proto, 0, sizeof proto);
    proto.data = (void *)(uintptr_t)0x1234; /* must be ignored */
    proto.device.device_type = (DLDeviceType)dev_type;
    proto.device.device_id = dev_id;
    proto.ndim = ndim;
    proto.dtype.code = (uint8_t)code;
    proto.dtype.bits = (uint8_t)bits;
    proto.dtype.lanes = (uint16_t)lanes;
    proto.shape = shape_ptr;
    proto.strides = NULL;
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)(uintptr_t)0xdeadbeef;
    error_box box = {0};
    alloc_call c = {api, (flags & 1) ? NULL : &proto, (flags & 2) ? NULL : &m, &box,
                    (flags & 4) != 0, -99, -1};
    if (flags & 16) {
        pthread_t th;
        Py_BEGIN_ALLOW_THREADS;
        if (pthread_create(&th, NULL, alloc_thread, &c) == 0) {
            pthread_join(th, NULL);
        }
        Py_END_ALLOW_THREADS;
    } else if (flags & 8) {
        Py_BEGIN_ALLOW_THREADS;
        alloc_thread(&c);
        Py_END_ALLOW_THREADS;
    } else {
        alloc_thread(&c);
    }
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int rc = put_i(d, "rc", c.rc);
    rc |= put_i(d, "had_gil", c.had_gil);
    rc |= put_i(d, "python_error_set", PyErr_Occurred() != NULL); /* must stay 0 */
    PyErr_Clear();
    rc |= put_i(d, "seterror_calls", box.calls);
    rc |= put(d, "kind", box.calls ? PyUnicode_FromString(box.kind) : Py_NewRef(Py_None));
    rc |= put(d, "message", box.calls ? PyUnicode_FromString(box.message) : Py_NewRef(Py_None));
    rc |= put_i(d, "prototype_shape_kept",
                shape_ptr == NULL || memcmp(proto_shape_copy, shape, sizeof shape) == 0);
    if (!(flags & 2)) {
        rc |= put_i(d, "out_null", m == NULL);
        if (m != NULL && m != (DLManagedTensorVersioned *)(uintptr_t)0xdeadbeef) {
            rc |= put_managed(d, m);
            rc |= put_i(d, "shape_aliases_prototype", m->dl_tensor.shape == shape_ptr);
            rc |= put_i(d, "align256", ((uintptr_t)m->dl_tensor.data % 256) == 0);
        }
    }
    return done(d, rc);
}

/* Writes every byte of an allocated tensor's data (it must be writable), then
 * reads it back; returns the byte count. */
PyObject *hx_touch(PyObject *addr, PyObject *nbytes_obj) {
    DLManagedTensorVersioned *m = PyLong_AsVoidPtr(addr);
    long long nbytes = PyLong_AsLongLong(nbytes_obj);
    if (PyErr_Occurred()) {
        return NULL;
    }
    unsigned char *p = m->dl_tensor.data;
    for (long long i = 0; i < nbytes; i++) {
        p[i] = (unsigned char)(i * 7 + 1);
    }
    for (long long i = 0; i < nbytes; i++) {
        if (p[i] != (unsigned char)(i * 7 + 1)) {
            PyErr_SetString(PyExc_AssertionError, "harness: data did not read back");
            return NULL;
        }
    }
    return PyLong_FromLongLong(nbytes);
}

/* ---- managed_tensor_to_py_object_no_sync ----
 * The harness is the producer: each tensor is one malloc (struct, shape, strides,
 * data), and its deleter counts calls. */

static long long deleter_calls;

typedef struct {
    DLManagedTensorVersioned m;
    int64_t dims[2 * 8];
    float data[64];
} own_tensor;

static void own_deleter(DLManagedTensorVersioned *m) {
    deleter_calls++;
    free(m);
}

PyObject *hx_deleter_calls(PyObject *unused) {
    (void)unused;
    return PyLong_FromLongLong(deleter_calls);
}

/* spec: (major, minor, device_type, code, bits, lanes, shape, strides or None, flags,
 *        data_null). Elements are float32 i * 1.5 (as many as fit in 64). */
PyObject *hx_make_tensor(PyObject *spec) {
    unsigned major, minor;
    int dev, code, bits, lanes, data_null;
    unsigned long long flags;
    PyObject *shape_obj, *strides_obj;
    if (!PyArg_ParseTuple(spec, "IIiiiiOOKp", &major, &minor, &dev, &code, &bits, &lanes,
                          &shape_obj, &strides_obj, &flags, &data_null)) {
        return NULL;
    }
    own_tensor *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t n = PyTuple_Size(shape_obj);
    if (n < 0 || n > 8) {
        free(t);
        PyErr_SetString(PyExc_ValueError, "harness: shape must be a tuple of at most 8");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        t->dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, i));
        t->dims[8 + i] = strides_obj == Py_None ? 0 : PyLong_AsLongLong(PyTuple_GET_ITEM(strides_obj, i));
    }
    if (PyErr_Occurred()) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < 64; i++) {
        t->data[i] = (float)i * 1.5f;
    }
    t->m.version.major = major;
    t->m.version.minor = minor;
    t->m.manager_ctx = t;
    t->m.deleter = own_deleter;
    t->m.flags = flags;
    t->m.dl_tensor.data = data_null ? NULL : t->data;
    t->m.dl_tensor.device.device_type = (DLDeviceType)dev;
    t->m.dl_tensor.device.device_id = 0;
    t->m.dl_tensor.ndim = (int32_t)n;
    t->m.dl_tensor.dtype.code = (uint8_t)code;
    t->m.dl_tensor.dtype.bits = (uint8_t)bits;
    t->m.dl_tensor.dtype.lanes = (uint16_t)lanes;
    t->m.dl_tensor.shape = n > 0 ? t->dims : NULL;
    t->m.dl_tensor.strides = (n > 0 && strides_obj != Py_None) ? t->dims + 8 : NULL;
    t->m.dl_tensor.byte_offset = 0;
    return PyLong_FromVoidPtr(&t->m);
}

/* Calls to_py on the tensor at addr (or NULL if addr is None).
 * mode 0: normal; 2: out NULL. Returns {rc, exc, obj (or None), obj_refcnt,
 * deleter_calls_during}. */
PyObject *hx_to_py(PyObject *type, PyObject *addr, int mode) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    DLManagedTensorVersioned *m = NULL;
    if (addr != Py_None) {
        m = PyLong_AsVoidPtr(addr);
        if (m == NULL && PyErr_Occurred()) {
            return NULL;
        }
    }
    void *out = (void *)(uintptr_t)0xdeadbeef;
    long long calls_before = deleter_calls;
    int r = api->managed_tensor_to_py_object_no_sync(m, mode == 2 ? NULL : &out);
    long long calls_during = deleter_calls - calls_before;
    PyObject *d = PyDict_New();
    if (d == NULL) {
        Py_XDECREF(r == 0 ? (PyObject *)out : NULL);
        return NULL;
    }
    int rc = put_i(d, "rc", r);
    rc |= put_i(d, "error_set", PyErr_Occurred() != NULL);
    rc |= grab_exception(d);
    rc |= put_i(d, "deleter_calls_during", calls_during);
    if (mode != 2) {
        rc |= put_i(d, "out_null", out == NULL);
        if (r == 0 && out != NULL && out != (void *)(uintptr_t)0xdeadbeef) {
            PyObject *o = out;
            rc |= put_i(d, "obj_refcnt", (long long)Py_REFCNT(o));
            rc |= put(d, "obj", o); /* the dict takes our new reference */
        }
    }
    return done(d, rc);
}

/* ---- current_work_stream ---- */

PyObject *hx_stream(PyObject *type, int device_type, int device_id, int null_out) {
    const DLPackExchangeAPI *api = get_api(type);
    if (api == NULL) {
        return NULL;
    }
    void *stream = (void *)(uintptr_t)0xdeadbeef;
    int r = api->current_work_stream((DLDeviceType)device_type, device_id,
                                     null_out ? NULL : &stream);
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    int rc = put_i(d, "rc", r);
    rc |= put_i(d, "error_set", PyErr_Occurred() != NULL);
    rc |= grab_exception(d);
    if (!null_out) {
        rc |= put_i(d, "stream_untouched", stream == (void *)(uintptr_t)0xdeadbeef);
        rc |= put_ptr(d, "stream", stream == (void *)(uintptr_t)0xdeadbeef ? NULL : stream);
    }
    return done(d, rc);
}
