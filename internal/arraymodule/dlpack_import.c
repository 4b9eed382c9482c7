//go:build godlpack_python

/* dlpack_import.c: godlpack.from_dlpack's import flow, in C because the import of a
 * plain tensor must cost no more than NumPy's own and a C->Go crossing alone costs
 * ~90 ns: raw capsules, objects with __dlpack__ (called with keywords through
 * vectorcall), and types with the C exchange API (torch.Tensor), imported with no
 * capsule. gd_import_foreign is the one description of that flow; Go parses the
 * keywords and handles our own Arrays (import.go), and validates whatever the C
 * check of fast_import.h declines (capsule.go). */
#include "arraymodule.h"
#include "_cgo_export.h"

static PyObject *s_dlpack, *s_exchange_attr, *s_sycl_queue, *s_wait, *kwn_mv, *kwn_mv_dev, *kwn_mv_copy, *kwn_mv_dev_copy;
static PyObject *max_version_13;

int gd_import_init(void) {
    s_dlpack = PyUnicode_InternFromString("__dlpack__");
    s_exchange_attr = PyUnicode_InternFromString("__dlpack_c_exchange_api__");
    s_sycl_queue = PyUnicode_InternFromString("sycl_queue");
    s_wait = PyUnicode_InternFromString("wait");
    kwn_mv = Py_BuildValue("(s)", "max_version");
    kwn_mv_dev = Py_BuildValue("(ss)", "max_version", "dl_device");
    kwn_mv_copy = Py_BuildValue("(ss)", "max_version", "copy");
    kwn_mv_dev_copy = Py_BuildValue("(sss)", "max_version", "dl_device", "copy");
    max_version_13 = Py_BuildValue("(ii)", GD_DLPACK_MAJOR, GD_DLPACK_MINOR);
    return (gd_lazy_view_init() == 0 && s_dlpack && s_exchange_attr && s_sycl_queue && s_wait && kwn_mv && kwn_mv_dev && kwn_mv_copy && kwn_mv_dev_copy &&
            max_version_13)
               ? 0
               : -1;
}

/* obj.__dlpack__(max_version=(1, 3)[, dl_device=...][, copy=...]); NULL args are left out. */
static PyObject *gd_call_dlpack(PyObject *obj, PyObject *dl_device, PyObject *copy) {
    PyObject *args[4] = {obj, max_version_13, NULL, NULL};
    PyObject *kwnames = kwn_mv;
    size_t n = 2;
    if (dl_device != NULL && copy != NULL) {
        args[2] = dl_device;
        args[3] = copy;
        kwnames = kwn_mv_dev_copy;
        n = 4;
    } else if (dl_device != NULL) {
        args[2] = dl_device;
        kwnames = kwn_mv_dev;
        n = 3;
    } else if (copy != NULL) {
        args[2] = copy;
        kwnames = kwn_mv_copy;
        n = 3;
    }
    return PyObject_VectorcallMethod(s_dlpack, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
}

/* obj.__dlpack__() as producers that predate max_version understand it. */
static PyObject *gd_call_dlpack_legacy(PyObject *obj) {
    return PyObject_CallMethodNoArgs(obj, s_dlpack);
}

/* Whether obj has a __dlpack__ at all (on its type or, as NumPy also accepts, on
 * the instance). Any error of the lookup means no: it is cleared here, where
 * PyObject_HasAttr would print it (3.13+); calling __dlpack__ reports it. */
int gd_has_dlpack(PyObject *obj) {
    PyObject *m = PyObject_GetAttr(obj, s_dlpack);
    if (m == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(m);
    return 1;
}

/* The producer's DLPackExchangeAPI for type tp, or NULL (no error set) if the type
 * has none or it is of another major version. *capsule is set to a new reference
 * to the capsule holding it: the table may live in memory the capsule owns, so the
 * capsule must be held for as long as the table is used. */
static const DLPackExchangeAPI *gd_exchange_api_of(PyTypeObject *tp, PyObject **capsule) {
    *capsule = NULL;
    PyObject *cap = PyObject_GetAttr((PyObject *)tp, s_exchange_attr);
    if (cap == NULL) {
        PyErr_Clear();
        return NULL;
    }
    const DLPackExchangeAPI *api = NULL;
    if (PyCapsule_IsValid(cap, gd_name_exchange_api)) {
        api = PyCapsule_GetPointer(cap, gd_name_exchange_api);
        if (api != NULL && (api->header.version.major != GD_DLPACK_MAJOR ||
                            api->managed_tensor_from_py_object_no_sync == NULL)) {
            api = NULL;
        }
    }
    if (api == NULL) {
        Py_DECREF(cap);
        return NULL;
    }
    *capsule = cap;
    return api;
}

int gd_error_is_buffer_error(void) { return PyErr_ExceptionMatches(PyExc_BufferError); }
/* ---- the fast path of godlpack.from_dlpack(x) with no keywords ---- */

gd_dtype_slot_table gd_dtype_slots; /* filled by Go at module init (dtypes.go) */

/* A few producer types, with their exchange APIs and how to ask their instances
 * for lazy-view bits (lazy_view.c), looked up once per type as the spec allows.
 * Each cached type is kept alive by a reference we hold, so its address cannot be
 * reused by another type, and so is the capsule holding its table, so the table
 * cannot be freed under us if the type's attribute is replaced. Types past the
 * cache's size are looked up each time, and *hold gets the capsule for the caller
 * to release after its call through the table (the call runs the producer's code,
 * which could drop the attribute). With the GIL, no Python code runs between a
 * slot's check and its write. On a free-threaded build two threads may fill the
 * same slot at once: an entry is written under cache_lock and published by its
 * type, stored last (release) and read first (acquire), so a reader that finds its
 * type finds the rest of the entry written; entries never change once published. */
#define GD_API_CACHE 16
typedef struct {
    PyTypeObject *type;
    PyObject *capsule;
    const DLPackExchangeAPI *api;
    gd_lazy_probes probes;
    int buffer_lends; /* a DLPack producer with the buffer protocol (NumPy): gd_lend_foreign */
    int numpy_fields; /* numpy.ndarray itself: gd_lend_foreign reads its fields (internal/cpython/numpy_lend.c) */
    int sycl_queue;   /* a SYCL array (dpnp, dpctl): its queue is waited for (sycl_wait) */
} type_entry;
static type_entry api_cache[GD_API_CACHE];
#ifdef Py_GIL_DISABLED
static PyMutex cache_lock; /* PyMutex: a thread waiting for it detaches from Python */
#endif

static inline PyTypeObject *cached_type(int i) {
    return __atomic_load_n(&api_cache[i].type, __ATOMIC_ACQUIRE);
}

/* Publishes scratch (tp's entry) in slot i if it is still empty: 1, else 0. */
static int entry_publish(int i, const type_entry *scratch) {
    int done = 0;
#ifdef Py_GIL_DISABLED
    PyMutex_Lock(&cache_lock);
#endif
    if (api_cache[i].type == NULL) {
        type_entry *e = &api_cache[i]; /* every field but type (readers load it): add new ones here */
        e->capsule = scratch->capsule;
        e->api = scratch->api;
        e->probes = scratch->probes;
        e->buffer_lends = scratch->buffer_lends;
        e->numpy_fields = scratch->numpy_fields;
        e->sycl_queue = scratch->sycl_queue;
        Py_INCREF(scratch->type);
        __atomic_store_n(&api_cache[i].type, scratch->type, __ATOMIC_RELEASE);
        done = 1;
    }
#ifdef Py_GIL_DISABLED
    PyMutex_Unlock(&cache_lock);
#endif
    return done;
}

/* Fills e for tp (e->capsule: a new reference or NULL); runs the type's Python code. */
static void entry_fill(type_entry *e, PyTypeObject *tp) {
    e->api = gd_exchange_api_of(tp, &e->capsule);
    gd_lazy_probes_init(&e->probes, tp);
    e->buffer_lends = tp->tp_as_buffer != NULL && tp->tp_as_buffer->bf_getbuffer != NULL &&
                      gd_has_dlpack((PyObject *)tp);
    e->numpy_fields = e->buffer_lends && gd_numpy_type_is(tp);
    PyObject *q = PyObject_GetAttr((PyObject *)tp, s_sycl_queue);
    e->sycl_queue = q != NULL;
    Py_XDECREF(q);
    PyErr_Clear();
    e->type = tp;
}

/* A SYCL array's kernels run asynchronously on its queue, and its __dlpack__ with
 * stream=None (all a CPU consumer can pass: it has no queue) exports without waiting
 * for them: x.sycl_queue.wait() first, so the CPU reads what the kernels wrote
 * (dpnp.ones(3) otherwise reads as garbage). -1 with the wait's exception set. */
static int sycl_wait(PyObject *x) {
    PyObject *q = PyObject_GetAttr(x, s_sycl_queue);
    PyObject *r = q != NULL ? PyObject_CallMethodNoArgs(q, s_wait) : NULL;
    Py_XDECREF(q);
    Py_XDECREF(r);
    return r != NULL ? 0 : -1;
}

/* tp's entry: a cached one (*hold NULL), or scratch filled for this call (*hold its
 * capsule, for the caller to release after its call through the table). */
static const type_entry *type_entry_of(PyTypeObject *tp, type_entry *scratch, PyObject **hold) {
    *hold = NULL;
    for (int i = 0; i < GD_API_CACHE; i++) {
        PyTypeObject *t = cached_type(i);
        if (t == tp) {
            return &api_cache[i];
        }
        if (t == NULL) {
            entry_fill(scratch, tp);
            if (!entry_publish(i, scratch)) {
                /* The lookups ran Python code (or another thread) that filled it. */
                *hold = scratch->capsule;
                return scratch;
            }
            return &api_cache[i];
        }
    }
    entry_fill(scratch, tp);
    *hold = scratch->capsule;
    return scratch;
}

PyObject *gd_array_from_fast(const gd_fast_view *v, void *managed, int versioned) {
    gd_owner *o = gd_owner_new_foreign(managed, versioned);
    if (o == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *a = gd_array_from_fast_owned(v, o);
    if (a == NULL) {
        free(o); /* the managed tensor stays the caller's: it calls the deleter */
        gd_live_add(-1);
    }
    return a;
}

PyObject *gd_array_from_fast_owned(const gd_fast_view *v, gd_owner *owner) {
    gd_array *a = gd_array_alloc(v->ndim);
    if (a == NULL) {
        return NULL;
    }
    a->owner = owner;
    a->data = v->data;
    a->dtype = v->dtype;
    a->dtype_index = v->dtype_index;
    a->flags = v->flags;
    a->device_type = v->device.device_type;
    a->device_id = v->device.device_id;
    if (v->ndim > 0) {
        memcpy(a->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim);
        memcpy(a->strides, v->strides, sizeof(int64_t) * (size_t)v->ndim);
    }
    return (PyObject *)a;
}

/* x, a numpy.ndarray (the type itself), imported from its own fields as
 * gd_lend_foreign lends one, into an Array whose owner holds x (released under the
 * GIL it takes, from any thread, as NumPy's own DLPack deleter releases the array):
 * NumPy's __dlpack__, its capsule and the managed tensor's deleter cost more than the
 * rest of an import (~290 ns of a Go program's 1M float32 round trip through NumPy).
 * NULL with no exception where its fields do not fit (a byte order, dtype or stride
 * of its own): __dlpack__ then says what is wrong, if anything. */
static PyObject *numpy_adopt(PyObject *x) {
    DLManagedTensorVersioned m;
    int64_t dims[2 * GD_MAX_NDIM];
    gd_fast_view v;
    if (!gd_numpy_lend(x, &m, dims, GD_MAX_NDIM) || !gd_fast_check(&m, 1, gd_dtype_slots, &v)) {
        return NULL;
    }
    gd_owner *o = gd_owner_new_pyobject(x);
    PyObject *a = o != NULL ? gd_array_from_fast_owned(&v, o) : NULL;
    if (a == NULL && o != NULL) {
        gd_owner_decref(o); /* x's reference: the GIL is held */
    }
    return a;
}

/* Consumes a capsule on the fast path; declines (NULL, no error) to Go. */
static PyObject *fast_consume(PyObject *cap) {
    const char *name = PyCapsule_GetName(cap);
    int versioned;
    if (name == gd_name_versioned || (name != NULL && strcmp(name, gd_name_versioned) == 0)) {
        versioned = 1;
    } else if (name == gd_name_legacy || (name != NULL && strcmp(name, gd_name_legacy) == 0)) {
        versioned = 0;
    } else {
        PyErr_Clear();
        return NULL;
    }
    void *m = PyCapsule_GetPointer(cap, name);
    gd_fast_view v;
    if (m == NULL || !gd_fast_check(m, versioned, gd_dtype_slots, &v)) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *a = gd_array_from_fast(&v, m, versioned);
    if (a != NULL) {
        /* Consumed: the capsule's destructor must leave the tensor to us now. */
        PyCapsule_SetName(cap, versioned ? gd_name_used_versioned : gd_name_used_legacy);
    }
    return a;
}

/* The import of anything but our own Array: the one description of from_dlpack's
 * flow, for the call with no keywords (gd_from_dlpack) and with them (import.go,
 * which parses the keywords, then relabels or copies what this returns). dl_device
 * and copy (NULL: not given) are passed to __dlpack__; an explicit dl_device skips
 * the exchange API, which cannot hear it. thorough asks both lazy-view questions
 * always (the keyword paths, where they cost little against the whole: lazy_view.c);
 * otherwise the exchange API's tensors are asked only what their layout allows.
 * Returns a new Array, or NULL with an exception set. */
PyObject *gd_import_foreign(PyObject *x, PyObject *dl_device, PyObject *copy, int thorough) {
    PyTypeObject *tp = Py_TYPE(x);
    if (tp == &PyCapsule_Type) {
        PyObject *a = fast_consume(x);
        return (a != NULL || PyErr_Occurred()) ? a : goConsumeCapsule(x);
    }
    type_entry scratch;
    PyObject *hold;
    const type_entry *te = type_entry_of(tp, &scratch, &hold);
    const DLPackExchangeAPI *api = te->api;
    if (te->sycl_queue && sycl_wait(x) < 0) {
        Py_XDECREF(hold);
        return NULL;
    }
    if (dl_device != NULL) {
        Py_XDECREF(hold);
        api = NULL;
    }
    /* copy=True asks NumPy for a copy: its __dlpack__ makes it. */
    if (te->numpy_fields && dl_device == NULL &&
        (copy == NULL || copy == Py_None || copy == Py_False)) {
        PyObject *a = numpy_adopt(x);
        if (a != NULL || PyErr_Occurred()) {
            Py_XDECREF(hold);
            return a;
        }
    }
    if (api != NULL) {
        DLManagedTensorVersioned *m = NULL;
        int rc = api->managed_tensor_from_py_object_no_sync(x, &m);
        Py_XDECREF(hold); /* the table is not used past this call */
        if (rc == 0 && m != NULL) {
            gd_fast_view v;
            PyObject *a;
            int questions = GD_ASK_ALL;
            if (gd_fast_check(m, 1, gd_dtype_slots, &v)) {
                if (!thorough) {
                    questions = gd_lazy_questions(&m->dl_tensor); /* validated */
                }
                a = gd_array_from_fast(&v, m, 1);
                if (a == NULL) {
                    gd_call_deleter_keep_error(m, 1);
                }
            } else {
                a = goAdoptVersioned(m); /* Go validates, or rejects and deletes */
            }
            /* The exchange API drops PyTorch's lazy-view bits and requires_grad:
             * ask for them. A refused Array's release calls the producer's deleter. */
            if (a != NULL && te->probes.any && questions != 0 &&
                gd_refuse_hidden_state(x, &te->probes, questions) < 0) {
                gd_decref_keep_error(a); /* runs the producer's deleter: keep the BufferError */
                a = NULL;
            }
            return a;
        }
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_BufferError,
                         "the DLPack exchange API of %s failed without an exception", tp->tp_name);
            return NULL;
        }
        if (!PyErr_ExceptionMatches(PyExc_BufferError)) {
            gd_explain_unsupported(x, &te->probes); /* PyTorch's RuntimeError for sparse... */
            return NULL;
        }
        PyErr_Clear(); /* BufferError: __dlpack__ may do better */
    }
    /* PyTorch's __dlpack__ refuses the conjugate bit but exports the negative one;
     * it refuses requires_grad too, but godlpack's words are the same on each path. */
    if (te->probes.any && gd_refuse_hidden_state(x, &te->probes, GD_ASK_ALL) < 0) {
        return NULL;
    }
    /* __dlpack__ is called once, or twice when a TypeError says the producer
     * predates max_version; any other exception is the producer's to report. */
    PyObject *cap = gd_call_dlpack(x, dl_device, copy);
    if (cap == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        /* Is __dlpack__ missing, or did it raise AttributeError itself? The lookup
         * must not run with the exception pending (CPython may lose it), so stash it. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (!gd_has_dlpack(x)) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            return PyErr_Format(PyExc_TypeError,
                                "from_dlpack(): %.200s does not support the DLPack protocol (no "
                                "__dlpack__ method) and is not a DLPack capsule",
                                tp->tp_name);
        }
        PyErr_Restore(type, value, tb);
    }
    if (cap == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        if (dl_device != NULL || copy != NULL) {
            return NULL; /* a producer that cannot hear them: let its TypeError speak */
        }
        PyErr_Clear();
        cap = gd_call_dlpack_legacy(x);
    }
    if (cap == NULL) {
        gd_explain_unsupported(x, &te->probes);
        return NULL;
    }
    PyObject *a = NULL;
    if (Py_TYPE(cap) != &PyCapsule_Type) {
        PyErr_Format(PyExc_TypeError, "%.200s.__dlpack__() returned %.200s, not a DLPack capsule",
                     tp->tp_name, Py_TYPE(cap)->tp_name);
    } else if ((a = fast_consume(cap)) == NULL && !PyErr_Occurred()) {
        a = goConsumeCapsule(cap);
    }
    if (a == NULL) {
        gd_decref_keep_error(cap); /* a rejected capsule: its destructor frees the tensor */
    } else {
        Py_DECREF(cap);
    }
    return a;
}

/* (code, bits) of a buffer's struct format, native byte order only; 0 if unknown. */
static int buffer_dtype(const char *fmt, Py_ssize_t itemsize, DLDataType *dt) {
    if (fmt == NULL) {
        fmt = "B";
    }
    if (*fmt == '@' || *fmt == '=' || (*fmt == '<' && PY_LITTLE_ENDIAN)) {
        fmt++;
    }
    int code;
    switch (fmt[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': code = 0; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': code = 1; break;
    case 'e': case 'f': case 'd': code = 2; break;
    case '?': code = 6; break;
    case 'Z': code = 5; fmt++; if (*fmt != 'e' && *fmt != 'f' && *fmt != 'd') return 0; break;
    default: return 0;
    }
    if (fmt[1] != '\0' || itemsize <= 0 || itemsize > 16) {
        return 0;
    }
    dt->code = (uint8_t)code;
    dt->bits = (uint8_t)(itemsize * 8);
    dt->lanes = 1;
    return 1;
}

/* x's tensor lent for the length of a call to a function of an extension written in
 * Go (the C-API's lend, capi.c), with no allocation and nothing to delete:
 *  - through its type's dltensor_from_py_object_no_sync (PyTorch), for parameters
 *    the function does not write (a bare DLTensor cannot say read-only): PyTorch's
 *    import through the managed path costs ~260 ns, mostly the allocation and its
 *    deleter;
 *  - a numpy.ndarray (the type itself) from its own fields (internal/cpython/numpy_lend.c): NumPy's
 *    __dlpack__ alone costs more than a whole call, and its buffer export builds
 *    and frees a record each time (~30 ns);
 *  - through the buffer protocol, for other DLPack producers that have it (NumPy
 *    subclasses); *view then holds the buffer, which the caller releases after the
 *    call.
 * Each way *out is filled (version 1.3, no deleter, READ_ONLY as the producer says;
 * data is element 0) and checked by the import's C check (and, for the exchange
 * API, asked the import's lazy-view questions); shape and strides are copied into
 * dims (2 * max_ndim), so another thread changing x's metadata meanwhile cannot move
 * them. Returns 1 when lent, 0 when not (the caller imports x through
 * gd_import_foreign, which decides and writes any error), -1 with an exception. */
int gd_lend_foreign(PyObject *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim,
                    int writes, Py_buffer *view) {
    type_entry scratch;
    PyObject *hold;
    const type_entry *te = type_entry_of(Py_TYPE(x), &scratch, &hold);
    const DLPackExchangeAPI *api = te->api;
    int buffer_lends = te->buffer_lends;
    memset(out, 0, sizeof *out);
    out->version.major = GD_DLPACK_MAJOR;
    out->version.minor = GD_DLPACK_MINOR;
    view->obj = NULL;
    gd_fast_view v;
    if (api != NULL) {
        int rc = -1;
        if (!writes && api->dltensor_from_py_object_no_sync != NULL) {
            rc = api->dltensor_from_py_object_no_sync(x, &out->dl_tensor);
            if (rc != 0 && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_BufferError)) {
                gd_explain_unsupported(x, &te->probes);
                Py_XDECREF(hold);
                return -1;
            }
            PyErr_Clear();
        }
        if (rc != 0 || out->dl_tensor.ndim > max_ndim || !gd_fast_check(out, 1, gd_dtype_slots, &v)) {
            Py_XDECREF(hold);
            return 0;
        }
        /* The exchange API drops PyTorch's lazy-view bits and requires_grad: ask, as
         * the import does. */
        if (te->probes.any &&
            gd_refuse_hidden_state(x, &te->probes, gd_lazy_questions(&out->dl_tensor)) < 0) {
            Py_XDECREF(hold);
            return -1;
        }
        Py_XDECREF(hold);
    } else {
        Py_XDECREF(hold);
        if (!buffer_lends) {
            return 0;
        }
        if (te->numpy_fields && gd_numpy_lend(x, out, dims, max_ndim)) {
            return 1;
        }
        if (PyObject_GetBuffer(x, view, PyBUF_RECORDS_RO) < 0) {
            PyErr_Clear(); /* __dlpack__ will say what is wrong, if anything */
            view->obj = NULL;
            return 0;
        }
        DLTensor *t = &out->dl_tensor;
        int ok = view->ndim <= max_ndim && buffer_dtype(view->format, view->itemsize, &t->dtype);
        for (int i = 0; ok && i < view->ndim; i++) {
            ok = view->strides[i] % view->itemsize == 0;
            dims[i] = view->shape[i];
            dims[max_ndim + i] = view->strides[i] / view->itemsize;
        }
        t->data = view->buf;
        t->device.device_type = GD_KDLCPU;
        t->ndim = view->ndim;
        t->shape = dims;
        t->strides = dims + max_ndim;
        out->flags = view->readonly ? GD_FLAG_READ_ONLY : 0;
        if (!ok || !gd_fast_check(out, 1, gd_dtype_slots, &v)) {
            PyBuffer_Release(view);
            view->obj = NULL;
            return 0;
        }
    }
    if (v.ndim > 0 && v.shape != dims) {
        memcpy(dims, v.shape, sizeof(int64_t) * (size_t)v.ndim);
        memcpy(dims + max_ndim, v.strides, sizeof(int64_t) * (size_t)v.ndim);
    }
    out->dl_tensor.data = v.data;
    out->dl_tensor.byte_offset = 0;
    out->dl_tensor.shape = v.ndim > 0 ? dims : NULL;
    out->dl_tensor.strides = v.ndim > 0 ? dims + max_ndim : NULL;
    return 1;
}

int gd_refusal_is_final(PyObject *x) {
    /* Called with the refusal pending; a type past the cache is looked up again,
     * which runs Python code and clears errors: keep the refusal aside meanwhile. */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    type_entry scratch;
    PyObject *hold;
    int final = type_entry_of(Py_TYPE(x), &scratch, &hold)->probes.any;
    Py_XDECREF(hold);
    PyErr_Restore(type, value, tb);
    return final;
}

/* from_dlpack(x): the call with no keywords of anything but our own Array is
 * imported here with no C->Go crossing on the plain path; the rest is Go's. */
PyObject *gd_from_dlpack(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs != 1 || kwnames != NULL || Py_TYPE(args[0]) == gd_ArrayType) {
        return goFromDLPack(mod, (PyObject **)args, nargs, kwnames);
    }
    return gd_import_foreign(args[0], NULL, NULL, 0);
}
