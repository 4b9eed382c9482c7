/* exchange_bench.c: C loops over the DLPack C exchange API, for bench_exchange.py.
 *
 * Built by bench_exchange.py with gcc -O2 against the upstream dlpack.h v1.3 that
 * TVM-FFI ships, loaded with ctypes.PyDLL (the GIL is held, as the functions that
 * take a Python object require). Each bx_* function finds the table on type(obj)
 * the way a consumer does, runs `iters` calls in a tight loop and returns the mean
 * nanoseconds per iteration (a float), or raises if any call fails. The same loop
 * runs on godlpack.Array and on torch.Tensor, so the two are measured alike. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlpack/dlpack.h>

#include <time.h>

static const DLPackExchangeAPI *api_of(PyObject *obj) {
    PyObject *cap = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__dlpack_c_exchange_api__");
    if (cap == NULL) {
        return NULL;
    }
    const DLPackExchangeAPI *api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
    Py_DECREF(cap);
    return api;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static PyObject *result(double t0, long long iters) {
    return PyFloat_FromDouble((now_ns() - t0) / (double)iters);
}

static PyObject *failed(const char *what) {
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "bench: %s failed without an exception", what);
    }
    return NULL;
}

/* dltensor_from_py_object_no_sync: fill a stack DLTensor. */
PyObject *bx_dltensor(PyObject *obj, long long iters) {
    const DLPackExchangeAPI *api = api_of(obj);
    if (api == NULL) {
        return NULL;
    }
    DLTensor t;
    volatile uintptr_t sink = 0;
    double t0 = now_ns();
    for (long long i = 0; i < iters; i++) {
        if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) {
            return failed("dltensor_from_py_object_no_sync");
        }
        sink += (uintptr_t)t.data;
    }
    (void)sink;
    return result(t0, iters);
}

/* managed_tensor_from_py_object_no_sync, then the tensor's deleter. */
PyObject *bx_managed(PyObject *obj, long long iters) {
    const DLPackExchangeAPI *api = api_of(obj);
    if (api == NULL) {
        return NULL;
    }
    double t0 = now_ns();
    for (long long i = 0; i < iters; i++) {
        DLManagedTensorVersioned *m = NULL;
        if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) {
            return failed("managed_tensor_from_py_object_no_sync");
        }
        m->deleter(m);
    }
    return result(t0, iters);
}

/* current_work_stream(kDLCPU, 0). */
PyObject *bx_stream(PyObject *obj, long long iters) {
    const DLPackExchangeAPI *api = api_of(obj);
    if (api == NULL) {
        return NULL;
    }
    void *s = NULL;
    double t0 = now_ns();
    for (long long i = 0; i < iters; i++) {
        if (api->current_work_stream(kDLCPU, 0, &s) != 0) {
            return failed("current_work_stream");
        }
    }
    return result(t0, iters);
}

/* managed_tensor_allocator (obj's dtype/shape/device as the prototype), then the deleter. */
static void ignore_error(void *ctx, const char *kind, const char *msg) {
    (void)kind;
    (void)msg;
    (*(int *)ctx)++;
}

PyObject *bx_alloc(PyObject *obj, long long iters) {
    const DLPackExchangeAPI *api = api_of(obj);
    if (api == NULL) {
        return NULL;
    }
    DLTensor proto;
    if (api->dltensor_from_py_object_no_sync(obj, &proto) != 0) {
        return failed("dltensor_from_py_object_no_sync");
    }
    int errors = 0;
    double t0 = now_ns();
    for (long long i = 0; i < iters; i++) {
        DLManagedTensorVersioned *m = NULL;
        if (api->managed_tensor_allocator(&proto, &m, &errors, ignore_error) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "bench: managed_tensor_allocator failed");
            return NULL;
        }
        m->deleter(m);
    }
    return result(t0, iters);
}

/* managed_tensor_from_py_object_no_sync, managed_tensor_to_py_object_no_sync (a new
 * array viewing the tensor), then dropping that array. */
PyObject *bx_roundtrip(PyObject *obj, long long iters) {
    const DLPackExchangeAPI *api = api_of(obj);
    if (api == NULL) {
        return NULL;
    }
    double t0 = now_ns();
    for (long long i = 0; i < iters; i++) {
        DLManagedTensorVersioned *m = NULL;
        void *out = NULL;
        if (api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) {
            return failed("managed_tensor_from_py_object_no_sync");
        }
        if (api->managed_tensor_to_py_object_no_sync(m, &out) != 0) {
            m->deleter(m);
            return failed("managed_tensor_to_py_object_no_sync");
        }
        Py_DECREF((PyObject *)out);
    }
    return result(t0, iters);
}
