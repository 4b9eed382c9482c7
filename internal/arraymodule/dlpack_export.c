//go:build godlpack_python

/* dlpack_export.c: the producer side of the DLPack Python protocol, kept in C
 * because it is the hot path of numpy.from_dlpack / torch.from_dlpack on our
 * arrays: one call here makes no C->Go crossing unless copy=True is asked for.
 *
 * Each export is one malloc holding the managed tensor and its shape and strides,
 * so one free releases all. The managed tensor holds a reference on the array's
 * owner, not on the Python object, so its deleter needs no GIL and is safe from
 * any thread and after interpreter finalization. */
#include "arraymodule.h"
#include "_cgo_export.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>


static PyObject *kw_stream, *kw_max_version, *kw_dl_device, *kw_copy;
/* DLDeviceType, the IntEnum defined by the Python package; ints until it is set. */
static PyObject *device_enum;
/* (kDLCPU, 0) is by far the common answer of __dlpack_device__: cached. */
static PyObject *cpu0;

int gd_export_init(void) {
    kw_stream = PyUnicode_InternFromString("stream");
    kw_max_version = PyUnicode_InternFromString("max_version");
    kw_dl_device = PyUnicode_InternFromString("dl_device");
    kw_copy = PyUnicode_InternFromString("copy");
    return (kw_stream && kw_max_version && kw_dl_device && kw_copy) ? 0 : -1;
}

void gd_set_device_enum(PyObject *e) {
    Py_XINCREF(e);
    Py_XSETREF(device_enum, e);
    Py_CLEAR(cpu0);
}

/* The deleter of every managed tensor we make (exports here, the exchange API's
 * allocator in exchange.c): the block holds the tensor with its shape and strides,
 * and one reference on the owner of the data. No GIL, any thread. */
static void release_export(void *block, void *owner) {
    gd_owner_decref((gd_owner *)owner);
    gd_live_add(-1);
    free(block);
}

void gd_export_deleter(DLManagedTensorVersioned *m) {
    if (m != NULL) {
        release_export(m, m->manager_ctx);
    }
}

static void deleter_legacy(DLManagedTensor *m) {
    if (m != NULL) {
        release_export(m, m->manager_ctx);
    }
}

/* Fills t to view a, with shape and strides copied to dims (2*ndim int64). */
static void fill_tensor(DLTensor *t, gd_array *a, int64_t *dims) {
    t->data = a->data; /* element 0 itself: byte_offset 0, as today's consumers expect */
    t->device.device_type = a->device_type == GD_KDLCPU ? GD_KDLCPU : a->device_type;
    t->device.device_id = a->device_id;
    t->ndim = a->ndim;
    t->dtype = a->dtype;
    t->byte_offset = 0;
    if (a->ndim == 0) {
        t->shape = NULL;
        t->strides = NULL;
        return;
    }
    memcpy(dims, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    memcpy(dims + a->ndim, a->strides, sizeof(int64_t) * (size_t)a->ndim);
    t->shape = dims;
    t->strides = dims + a->ndim; /* never NULL for ndim > 0, as v1.2+ requires */
}

DLManagedTensorVersioned *gd_export_versioned(gd_array *a, uint64_t extra_flags, DLPackVersion v) {
    DLManagedTensorVersioned *m =
        malloc(sizeof *m + 2 * sizeof(int64_t) * (size_t)a->ndim);
    if (m == NULL) {
        return NULL;
    }
    gd_live_add(1);
    gd_owner_incref(a->owner);
    m->version = v;
    m->manager_ctx = a->owner;
    m->deleter = gd_export_deleter;
    m->flags = (a->flags & (GD_FLAG_READ_ONLY | GD_FLAG_SUBBYTE_PADDED)) | extra_flags;
    fill_tensor(&m->dl_tensor, a, (int64_t *)(m + 1));
    return m;
}

DLManagedTensor *gd_export_legacy(gd_array *a) {
    DLManagedTensor *m = malloc(sizeof *m + 2 * sizeof(int64_t) * (size_t)a->ndim);
    if (m == NULL) {
        return NULL;
    }
    gd_live_add(1);
    gd_owner_incref(a->owner);
    m->manager_ctx = a->owner;
    m->deleter = deleter_legacy;
    fill_tensor(&m->dl_tensor, a, (int64_t *)(m + 1));
    return m;
}

/* A capsule destructor calls the deleter only while the capsule still has its
 * unused name: a consumer that renamed it to used_* owns the tensor. */
static void capsule_destructor_versioned(PyObject *cap) {
    if (PyCapsule_IsValid(cap, gd_name_versioned)) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, gd_name_versioned);
        m->deleter(m);
    }
}

static void capsule_destructor_legacy(PyObject *cap) {
    if (PyCapsule_IsValid(cap, gd_name_legacy)) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, gd_name_legacy);
        m->deleter(m);
    }
}

/* __dlpack__(dl_device=(kDLOneAPI, id)): a copy in shared USM of that SYCL device's
 * default platform context (oneapi.c), which dpnp and dpctl import as their own USM.
 * One malloc holds the managed tensor, the context reference the free needs, shape and
 * strides; the deleter needs no GIL and runs on any thread, after finalization too. */
typedef struct {
    union {
        DLManagedTensorVersioned v;
        DLManagedTensor l;
    } m; /* first: the managed tensor's address is the block's */
    void *ctx;
} usm_export;

static void release_usm(void *block, void *data) {
    gd_oneapi_usm_free(data, ((usm_export *)block)->ctx);
    gd_live_add(-1);
    free(block);
}

static void usm_deleter_versioned(DLManagedTensorVersioned *m) {
    if (m != NULL) {
        release_usm(m, m->dl_tensor.data);
    }
}

static void usm_deleter_legacy(DLManagedTensor *m) {
    if (m != NULL) {
        release_usm(m, m->dl_tensor.data);
    }
}

static PyObject *usm_refusal(long did, const gd_oneapi_answer *ans) {
    const char *head = "__dlpack__: cannot export to kDLOneAPI device";
    switch (ans->status) {
    case GD_ONEAPI_NO_DPCTL:
        return PyErr_Format(PyExc_BufferError,
                            "%s %ld: the USM copy is allocated through dpctl's C interface, "
                            "and dpctl is not imported in this process (import dpctl or dpnp)",
                            head, did);
    case GD_ONEAPI_LOAD_FAILED:
        return PyErr_Format(PyExc_BufferError, "%s %ld: loading dpctl's C interface failed: %s", head,
                            did, ans->detail);
    case GD_ONEAPI_NO_DEVICE:
        return PyErr_Format(PyExc_BufferError,
                            "%s %ld: the SYCL runtime lists %lld root device(s), none of them "
                            "device_id %ld",
                            head, did, (long long)ans->ndevices, did);
    }
    return PyErr_Format(PyExc_MemoryError, "%s %ld: the SYCL runtime could not allocate shared USM on %s",
                        head, did, ans->detail);
}

static void fill_tensor(DLTensor *t, gd_array *a, int64_t *dims);
static void capsule_destructor_versioned(PyObject *cap);
static void capsule_destructor_legacy(PyObject *cap);

static PyObject *export_usm_copy(gd_array *self, long did, PyObject *copy, int versioned,
                                 DLPackVersion version) {
    if (copy == Py_False) {
        return PyErr_Format(PyExc_BufferError,
                            "__dlpack__: exporting to kDLOneAPI device %ld needs a copy (this "
                            "array is in CPU memory), and copy=False forbids it",
                            did);
    }
    if (self->dtype.bits % 8 != 0) {
        return PyErr_Format(PyExc_BufferError,
                            "__dlpack__: cannot export a sub-byte dtype to kDLOneAPI device %ld "
                            "(SYCL arrays have none)",
                            did);
    }
    gd_oneapi_answer ans = {.status = GD_ONEAPI_NO_DEVICE};
    if (did < 0 || did > INT32_MAX) {
        return usm_refusal(did, &ans);
    }
    gd_array *src = (gd_array *)goCopyArray((PyObject *)self); /* C-contiguous, ours alone */
    if (src == NULL) {
        return NULL;
    }
    size_t n = (size_t)(src->dtype.bits / 8);
    for (int i = 0; i < src->ndim; i++) {
        n *= (size_t)src->shape[i]; /* the copy exists: its size fits */
    }
    void *ctx = NULL;
    void *p = gd_oneapi_usm_alloc((int32_t)did, n, &ctx, &ans);
    usm_export *e = p != NULL ? malloc(sizeof *e + 2 * sizeof(int64_t) * (size_t)src->ndim) : NULL;
    if (e == NULL) {
        if (p != NULL) {
            gd_oneapi_usm_free(p, ctx);
            PyErr_NoMemory();
        } else {
            usm_refusal(did, &ans);
        }
        Py_DECREF(src);
        return NULL;
    }
    memcpy(p, src->data, n); /* shared USM: the CPU writes it, done before we return */
    e->ctx = ctx;
    gd_live_add(1);
    DLTensor *t;
    if (versioned) {
        e->m.v.version = version;
        e->m.v.manager_ctx = NULL;
        e->m.v.deleter = usm_deleter_versioned;
        e->m.v.flags = GD_FLAG_IS_COPIED;
        t = &e->m.v.dl_tensor;
    } else {
        e->m.l.manager_ctx = NULL;
        e->m.l.deleter = usm_deleter_legacy;
        t = &e->m.l.dl_tensor;
    }
    fill_tensor(t, src, (int64_t *)(e + 1));
    t->data = p;
    t->device = (DLDevice){GD_KDLONEAPI, (int32_t)did};
    Py_DECREF(src);
    PyObject *cap = versioned ? PyCapsule_New(e, gd_name_versioned, capsule_destructor_versioned)
                              : PyCapsule_New(e, gd_name_legacy, capsule_destructor_legacy);
    if (cap == NULL) {
        release_usm(e, p);
    }
    return cap;
}

static int parse_pair(PyObject *o, long *first, long *second) {
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
        return -1;
    }
    PyObject *a = PyTuple_GET_ITEM(o, 0), *b = PyTuple_GET_ITEM(o, 1);
    if (!PyLong_Check(a) || !PyLong_Check(b)) {
        return -1;
    }
    /* An int past a long saturates: a max_version minor of 2**70 is just "newer
     * than ours", and no device type or id is that large. */
    int over_a, over_b;
    *first = PyLong_AsLongAndOverflow(a, &over_a);
    *second = PyLong_AsLongAndOverflow(b, &over_b);
    if (over_a) {
        *first = over_a > 0 ? LONG_MAX : LONG_MIN;
    }
    if (over_b) {
        *second = over_b > 0 ? LONG_MAX : LONG_MIN;
    }
    return 0;
}

/* Which keyword of __dlpack__ name is: 0 stream, 1 max_version, 2 dl_device, 3 copy,
 * -1 none. Callers pass interned names, so pointers are compared against all four
 * before any string comparison (each PyUnicode_Compare costs ~5-10 ns). */
static int kw_index(PyObject *name) {
    PyObject *const kws[4] = {kw_stream, kw_max_version, kw_dl_device, kw_copy};
    for (int i = 0; i < 4; i++) {
        if (name == kws[i]) {
            return i;
        }
    }
    for (int i = 0; i < 4; i++) {
        if (PyUnicode_Compare(name, kws[i]) == 0) {
            return i;
        }
    }
    PyErr_Clear(); /* a non-str name compares with an error; it is just unknown */
    return -1;
}

PyObject *gd_array_dlpack(PyObject *self_, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    gd_array *self = (gd_array *)self_;
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (nargs != 0) {
        PyErr_SetString(PyExc_TypeError,
                        "__dlpack__() takes no positional arguments: stream, max_version, "
                        "dl_device and copy are keyword-only");
        return NULL;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        switch (kw_index(k)) {
        case 0: stream = args[i]; break;
        case 1: max_version = args[i]; break;
        case 2: dl_device = args[i]; break;
        case 3: copy = args[i]; break;
        default:
            PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%U'", k);
            return NULL;
        }
    }

    /* stream: CPU memory has no stream, so the array API allows only None; a SYCL
     * consumer's queue is accepted with dl_device=(kDLOneAPI, id): the USM copy is
     * complete before __dlpack__ returns, so every queue may use it. */
    long dl_type = -1, dl_id = 0;
    if (dl_device != Py_None && parse_pair(dl_device, &dl_type, &dl_id) != 0) {
        PyErr_SetString(PyExc_TypeError,
                        "__dlpack__: dl_device must be None or a (device_type, device_id) tuple of ints");
        return NULL;
    }
    int to_sycl = dl_type == GD_KDLONEAPI && !(dl_type == self->device_type && dl_id == self->device_id);
    if (stream != Py_None && !to_sycl) {
        PyErr_SetString(PyExc_ValueError,
                        "__dlpack__: stream must be None for CPU arrays (they have no stream)");
        return NULL;
    }
    int versioned = 0;
    DLPackVersion version = {GD_DLPACK_MAJOR, GD_DLPACK_MINOR};
    if (max_version != Py_None) {
        long major, minor;
        if (parse_pair(max_version, &major, &minor) != 0) {
            PyErr_SetString(PyExc_TypeError,
                             "__dlpack__: max_version must be None or a (major, minor) tuple of ints");
            return NULL;
        }
        /* major >= 1 asks for DLManagedTensorVersioned; report no newer minor than
         * the consumer knows (1.x share one ABI). */
        if (major >= 1) {
            versioned = 1;
            if (major == GD_DLPACK_MAJOR && minor >= 0 && minor < GD_DLPACK_MINOR) {
                version.minor = (uint32_t)minor;
            }
        }
    }
    /* dl_device=(kDLCPU, 0) for memory the CPU reads (an imported kDLCUDAHost,
     * kDLROCMHost or kDLCUDAManaged array): exported as it is, labelled CPU, as the
     * consumer asked; it would refuse the old label (torch does). */
    int label_cpu = 0;
    if (dl_device != Py_None) {
        long dtype = dl_type, did = dl_id;
        int same = dtype == self->device_type && did == self->device_id;
        int cpu = dtype == GD_KDLCPU && did == 0;
        if (!same && !cpu && !to_sycl) {
            PyErr_Format(PyExc_BufferError,
                         "__dlpack__: cannot export to device (%ld, %ld): this array is in CPU "
                         "memory (device (%d, %d)); import it with dl_device=None and copy it "
                         "to the device with the consumer's library (e.g. "
                         "torch.from_dlpack(a).to('cuda'))",
                         dtype, did, (int)self->device_type, (int)self->device_id);
            return NULL;
        }
        label_cpu = cpu && !same;
    }
    int want_copy = 0;
    if (copy == Py_True) {
        want_copy = 1;
    } else if (copy != Py_False && copy != Py_None) {
        PyErr_SetString(PyExc_TypeError, "__dlpack__: copy must be True, False or None");
        return NULL;
    }
    if (to_sycl) {
        return export_usm_copy(self, dl_id, copy, versioned, version);
    }

    gd_array *src = self;
    uint64_t extra = 0;
    if (want_copy) {
        /* copy=True: a fresh contiguous copy that the consumer owns alone. */
        src = (gd_array *)goCopyArray((PyObject *)self);
        if (src == NULL) {
            return NULL;
        }
        extra = GD_FLAG_IS_COPIED;
    }
    PyObject *cap = NULL;
    if (versioned) {
        DLManagedTensorVersioned *m = gd_export_versioned(src, extra, version);
        if (m != NULL && label_cpu) {
            m->dl_tensor.device = (DLDevice){GD_KDLCPU, 0};
        }
        if (m == NULL) {
            PyErr_NoMemory();
        } else if ((cap = PyCapsule_New(m, gd_name_versioned, capsule_destructor_versioned)) == NULL) {
            m->deleter(m);
        }
    } else if (src->flags & GD_FLAG_READ_ONLY) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: a read-only array cannot be exported as a legacy 'dltensor' "
                        "capsule, which has no read-only flag; pass max_version=(1, 0) or later");
    } else if (src->flags & GD_FLAG_SUBBYTE_PADDED) {
        PyErr_SetString(PyExc_BufferError,
                        "__dlpack__: a padded sub-byte array cannot be exported as a legacy "
                        "'dltensor' capsule, which has no padded flag; pass max_version=(1, 0) or later");
    } else {
        DLManagedTensor *m = gd_export_legacy(src);
        if (m != NULL && label_cpu) {
            m->dl_tensor.device = (DLDevice){GD_KDLCPU, 0};
        }
        if (m == NULL) {
            PyErr_NoMemory();
        } else if ((cap = PyCapsule_New(m, gd_name_legacy, capsule_destructor_legacy)) == NULL) {
            m->deleter(m);
        }
    }
    if (src != self) {
        Py_DECREF(src);
    }
    return cap;
}

PyObject *gd_device_tuple(int32_t device_type, int32_t device_id) {
    PyObject *t = PyLong_FromLong(device_type);
    if (t != NULL && device_enum != NULL) {
        PyObject *e = PyObject_CallOneArg(device_enum, t);
        Py_DECREF(t);
        t = e;
    }
    if (t == NULL) {
        return NULL;
    }
    PyObject *id = PyLong_FromLong(device_id);
    if (id == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, t, id);
    Py_DECREF(t);
    Py_DECREF(id);
    return r;
}

PyObject *gd_array_dlpack_device(PyObject *self_, PyObject *unused) {
    (void)unused;
    gd_array *self = (gd_array *)self_;
    if (self->device_type == GD_KDLCPU && self->device_id == 0) {
        if (cpu0 == NULL && (cpu0 = gd_device_tuple(GD_KDLCPU, 0)) == NULL) {
            return NULL;
        }
        return Py_NewRef(cpu0);
    }
    return gd_device_tuple(self->device_type, self->device_id);
}

