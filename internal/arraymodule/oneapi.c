//go:build godlpack_python

/* oneapi.c: kDLOneAPI tensors (SYCL USM allocations, dpnp/dpctl) recognized the way
 * dpctl's DLPack document describes, through dpctl's C interface
 * (libDPCTLSyclInterface.so). The library is loaded only when such a tensor arrives,
 * from the dpctl package the producer imported (sys.modules), so godlpack links to
 * no SYCL runtime and a user without one pays nothing. The declarations below are
 * ours, written from the facts of dpctl's headers (opaque references, enum values),
 * as the DLPack ABI is in dlpack_abi.h.
 *
 * The function table is filled once, under a mutex, and kept for the life of the
 * process (never dlclose'd): a USM copy's deleter (gd_oneapi_usm_free) may run on any
 * thread, without the GIL, after finalization. A failed load is not remembered: the
 * next tensor tries again (dpctl may have been installed or imported since). */
#include "arraymodule.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void *dref; /* DPCTLSycl{Device,Platform,Context,Queue,Event}Ref, DPCTLDeviceVectorRef */

/* DPCTLSyclUSMType (DPCTL_USM_UNKNOWN = 0, DEVICE, SHARED, HOST) is GD_USM_* in arraymodule.h.
 * DPCTLDeviceMgr_GetDevices' identifier for every root device of every backend:
 * DPCTL_ALL_BACKENDS (bits 16..20) | DPCTL_ALL (bits 0..5), the order of
 * sycl::device::get_devices() that kDLOneAPI's device_id indexes. */
#define DPCTL_EVERY_ROOT_DEVICE ((((1 << 5) - 1) << 16) | ((1 << 6) - 1))

static struct {
    dref (*get_devices)(int);
    size_t (*vector_size)(dref);
    dref (*vector_get_at)(dref, size_t);
    void (*vector_delete)(dref);
    dref (*device_platform)(dref);
    bool (*device_is_cpu)(dref);
    const char *(*device_name)(dref);
    void (*device_delete)(dref);
    dref (*platform_default_context)(dref);
    void (*platform_delete)(dref);
    void (*context_delete)(dref);
    int (*pointer_type)(const void *, dref);
    dref (*pointer_device)(const void *, dref);
    void (*cstring_delete)(const char *);
    dref (*queue_create)(dref, dref, void *, int);
    void (*queue_delete)(dref);
    void *(*malloc_shared)(size_t, dref);
    void (*free_with_context)(void *, dref);
} dpctl;
static int dpctl_loaded;
static pthread_mutex_t dpctl_mu = PTHREAD_MUTEX_INITIALIZER;

#define DPCTL_SYM(field, name) {(void **)&dpctl.field, name}
static const struct {
    void **slot;
    const char *name;
} dpctl_symbols[] = {
    DPCTL_SYM(get_devices, "DPCTLDeviceMgr_GetDevices"),
    DPCTL_SYM(vector_size, "DPCTLDeviceVector_Size"),
    DPCTL_SYM(vector_get_at, "DPCTLDeviceVector_GetAt"),
    DPCTL_SYM(vector_delete, "DPCTLDeviceVector_Delete"),
    DPCTL_SYM(device_platform, "DPCTLDevice_GetPlatform"),
    DPCTL_SYM(device_is_cpu, "DPCTLDevice_IsCPU"),
    DPCTL_SYM(device_name, "DPCTLDevice_GetName"),
    DPCTL_SYM(device_delete, "DPCTLDevice_Delete"),
    DPCTL_SYM(platform_default_context, "DPCTLPlatform_GetDefaultContext"),
    DPCTL_SYM(platform_delete, "DPCTLPlatform_Delete"),
    DPCTL_SYM(context_delete, "DPCTLContext_Delete"),
    DPCTL_SYM(pointer_type, "DPCTLUSM_GetPointerType"),
    DPCTL_SYM(pointer_device, "DPCTLUSM_GetPointerDevice"),
    DPCTL_SYM(cstring_delete, "DPCTLCString_Delete"),
    DPCTL_SYM(queue_create, "DPCTLQueue_Create"),
    DPCTL_SYM(queue_delete, "DPCTLQueue_Delete"),
    DPCTL_SYM(malloc_shared, "DPCTLmalloc_shared"),
    DPCTL_SYM(free_with_context, "DPCTLfree_with_context"),
};

/* The path of libDPCTLSyclInterface.so beside the imported dpctl package, into buf;
 * 0 if dpctl is not imported. GIL held; leaves no exception set (none is pending:
 * the import validates before anything else can fail). */
static int dpctl_library_path(char *buf, size_t n) {
    PyObject *name = PyUnicode_FromString("dpctl");
    PyObject *mod = name != NULL ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    PyObject *file = mod != NULL ? PyModule_GetFilenameObject(mod) : NULL;
    Py_XDECREF(mod);
    const char *s = file != NULL ? PyUnicode_AsUTF8(file) : NULL;
    int ok = 0;
    if (s != NULL) {
        const char *slash = strrchr(s, '/');
        int dir = slash != NULL ? (int)(slash - s + 1) : 0;
        int len = snprintf(buf, n, "%.*slibDPCTLSyclInterface.so", dir, s);
        ok = len > 0 && (size_t)len < n;
    }
    Py_XDECREF(file);
    PyErr_Clear();
    return ok;
}

/* Fills the table once; 0 on success, else the status with out->detail saying why. */
static int dpctl_load(gd_oneapi_answer *out) {
    if (__atomic_load_n(&dpctl_loaded, __ATOMIC_ACQUIRE)) {
        return GD_ONEAPI_OK;
    }
    char path[4096];
    if (!dpctl_library_path(path, sizeof path)) {
        return GD_ONEAPI_NO_DPCTL;
    }
    pthread_mutex_lock(&dpctl_mu);
    int status = GD_ONEAPI_OK;
    if (!dpctl_loaded) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            const char *why = dlerror();
            snprintf(out->detail, sizeof out->detail, "%s", why != NULL ? why : path);
            status = GD_ONEAPI_LOAD_FAILED;
        }
        for (size_t i = 0; status == GD_ONEAPI_OK && i < sizeof dpctl_symbols / sizeof dpctl_symbols[0]; i++) {
            *dpctl_symbols[i].slot = dlsym(lib, dpctl_symbols[i].name);
            if (*dpctl_symbols[i].slot == NULL) {
                snprintf(out->detail, sizeof out->detail, "%s has no %s", path, dpctl_symbols[i].name);
                status = GD_ONEAPI_LOAD_FAILED;
            }
        }
        if (status == GD_ONEAPI_OK) {
            __atomic_store_n(&dpctl_loaded, 1, __ATOMIC_RELEASE);
        } else if (lib != NULL) {
            dlclose(lib); /* nothing of it was used */
        }
    }
    pthread_mutex_unlock(&dpctl_mu);
    return status;
}

/* The root device device_id (a new reference) with its platform's default context
 * (*ctx, a new reference), or NULL with out filled. */
static dref root_device(int32_t device_id, dref *ctx, gd_oneapi_answer *out) {
    dref devices = dpctl.get_devices(DPCTL_EVERY_ROOT_DEVICE);
    size_t n = devices != NULL ? dpctl.vector_size(devices) : 0;
    out->ndevices = (int64_t)n;
    dref dev = device_id >= 0 && (size_t)device_id < n ? dpctl.vector_get_at(devices, (size_t)device_id) : NULL;
    if (devices != NULL) {
        dpctl.vector_delete(devices);
    }
    if (dev == NULL) {
        out->status = GD_ONEAPI_NO_DEVICE;
        return NULL;
    }
    dref platform = dpctl.device_platform(dev);
    *ctx = platform != NULL ? dpctl.platform_default_context(platform) : NULL;
    if (platform != NULL) {
        dpctl.platform_delete(platform);
    }
    if (*ctx == NULL) {
        dpctl.device_delete(dev);
        out->status = GD_ONEAPI_NO_DEVICE;
        return NULL;
    }
    return dev;
}

static void device_name(dref dev, gd_oneapi_answer *out) {
    const char *name = dpctl.device_name(dev);
    if (name != NULL) {
        snprintf(out->detail, sizeof out->detail, "%s", name);
        dpctl.cstring_delete(name);
    }
}

/* dpctl's protocol for recognizing a kDLOneAPI tensor, asked whether the CPU may
 * read and write ptr through its address: USM host and shared allocations are, and
 * so is any allocation made on a CPU device. GIL held (sys.modules). */
void gd_oneapi_cpu_accessible(int32_t device_id, const void *ptr, gd_oneapi_answer *out) {
    memset(out, 0, sizeof *out);
    if ((out->status = dpctl_load(out)) != GD_ONEAPI_OK) {
        return;
    }
    dref ctx;
    dref dev = root_device(device_id, &ctx, out);
    if (dev == NULL) {
        return;
    }
    out->usm_kind = dpctl.pointer_type(ptr, ctx);
    if (out->usm_kind == GD_USM_UNKNOWN) {
        device_name(dev, out);
        out->status = GD_ONEAPI_UNKNOWN_POINTER;
    } else {
        dref where = dpctl.pointer_device(ptr, ctx);
        int cpu = where != NULL && dpctl.device_is_cpu(where);
        device_name(where != NULL ? where : dev, out);
        if (where != NULL) {
            dpctl.device_delete(where);
        }
        if (out->usm_kind == GD_USM_DEVICE && !cpu) {
            out->status = GD_ONEAPI_DEVICE_USM;
        }
    }
    dpctl.context_delete(ctx);
    dpctl.device_delete(dev);
}

/* n bytes of shared USM (host-writable, readable by the device) in the default platform
 * context of root device device_id, for __dlpack__(dl_device=(kDLOneAPI, id)): dpctl's
 * protocol for exporting requires that context. *ctx gets a reference to it, which
 * gd_oneapi_usm_free needs. NULL with out filled (status OK and NULL: the allocation
 * failed). GIL held (sys.modules). */
void *gd_oneapi_usm_alloc(int32_t device_id, size_t n, void **ctx, gd_oneapi_answer *out) {
    memset(out, 0, sizeof *out);
    if ((out->status = dpctl_load(out)) != GD_ONEAPI_OK) {
        return NULL;
    }
    dref dev = root_device(device_id, ctx, out);
    if (dev == NULL) {
        return NULL;
    }
    device_name(dev, out);
    dref queue = dpctl.queue_create(*ctx, dev, NULL, 0);
    void *p = queue != NULL ? dpctl.malloc_shared(n > 0 ? n : 1, queue) : NULL;
    if (queue != NULL) {
        dpctl.queue_delete(queue);
    }
    dpctl.device_delete(dev);
    if (p == NULL) {
        dpctl.context_delete(*ctx);
        *ctx = NULL;
    }
    return p;
}

/* Frees what gd_oneapi_usm_alloc gave: no GIL, any thread, after finalization too (the
 * table is never emptied, the library never closed). */
void gd_oneapi_usm_free(void *p, void *ctx) {
    dpctl.free_with_context(p, ctx);
    dpctl.context_delete(ctx);
}
