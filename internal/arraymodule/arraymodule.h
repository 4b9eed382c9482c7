/* arraymodule.h: the C-side declarations shared by the cgo binding (Go) and the few C
 * files that hold what cgo cannot express (static type/method tables, CPython
 * macros) and the hot paths that must not cross into Go (export, deleters,
 * exchange-API functions: a C->Go crossing costs ~90 ns, more than the whole
 * budget of those calls; see docs/decisions/c-hot-paths.md).
 *
 * Memory model: every byte an Array views lives in C memory behind a gd_owner, a
 * small atomically reference-counted record. Arrays, views and exported managed
 * tensors each hold one reference; the last one to let go releases the memory
 * (free for Go-owned buffers, the producer's deleter for imported ones). An owner
 * can be released from any thread, without the GIL, and after interpreter
 * finalization: only the Python-buffer kind touches Python, taking the GIL itself. */
#ifndef GD_ARRAYMODULE_H
#define GD_ARRAYMODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "immortal.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "dlpack_abi.h"
#include "fast_import.h"
#include "gd_python.h"

/* ---- owners: who keeps an Array's bytes alive ---- */
enum gd_owner_kind {
    GD_OWNER_OWNED = 0,          /* our aligned allocation; data follows the header */
    GD_OWNER_FOREIGN_VERSIONED,  /* a producer's DLManagedTensorVersioned */
    GD_OWNER_FOREIGN_LEGACY,     /* a producer's DLManagedTensor */
    GD_OWNER_PYBUFFER,           /* a Python buffer (owner_pybuffer.c): takes the GIL */
    GD_OWNER_PYOBJECT,           /* a Python object whose memory it is (a numpy.ndarray's,
                                    read from its fields): takes the GIL, as PYBUFFER */
};
typedef struct gd_owner {
    _Atomic int64_t refs;
    int32_t kind;
    void *foreign;   /* the producer's managed tensor, for the FOREIGN kinds */
    int64_t nbytes;  /* bytes of data for OWNED */
    void *block;     /* OWNED: the allocation free() releases (others free the owner) */
} gd_owner;

/* The owned allocation puts the owner header in the GD_ALIGN bytes before the
 * data, which starts 256-byte aligned, and one free() releases both. zero asks for
 * zeroed memory (calloc: pages fresh from the kernel are not cleared again). */
gd_owner *gd_owner_new_owned(int64_t nbytes, int zero, char **data_out);
gd_owner *gd_owner_new_foreign(void *managed, int versioned);
static inline void gd_owner_incref(gd_owner *o) {
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}
void gd_owner_decref(gd_owner *o);
/* Whether o's memory was made in Go by package dlpack/tensor and handed over (owner.c). */
int gd_owner_made_by_go(const gd_owner *o);
/* Owners of a Python buffer (owner_pybuffer.c). Unlike the others, releasing one
 * touches Python: it takes the GIL itself, and leaks once the interpreter is gone. */
gd_owner *gd_owner_new_pybuffer(PyObject *obj, int writable, PyObject *keep);
Py_buffer *gd_owner_pybuffer_view(gd_owner *o);
PyObject *gd_owner_keep(gd_owner *o); /* borrowed; NULL for other kinds than these two */
void gd_owner_release_pybuffer(gd_owner *o);
/* An owner holding a new reference to obj, whose memory an Array views (NULL with
 * MemoryError); released as a buffer's, under the GIL it takes. */
gd_owner *gd_owner_new_pyobject(PyObject *obj);
void gd_owner_release_pyobject(gd_owner *o);
/* Live-allocation counting, for tests and the leak benchmark: owners and export
 * blocks. It costs two atomic read-modify-writes per exchange (~9% of an export to
 * NumPy), so it is on only when GODLPACK_COUNT_ALLOCATIONS=1 is set at import. */
extern int gd_counting;
extern _Atomic int64_t gd_live_count;
static inline void gd_live_add(int64_t delta) {
    if (gd_counting) {
        atomic_fetch_add_explicit(&gd_live_count, delta, memory_order_relaxed);
    }
}
int64_t gd_live_allocations(void);

/* ---- the Array object ---- */
typedef struct {
    PyObject_VAR_HEAD        /* ob_size = ndim; the var part holds shape then strides */
    gd_owner *owner;
    char *data;              /* address of element 0 */
    int64_t *shape;          /* -> dims[0..ndim) */
    int64_t *strides;        /* -> dims[ndim..2ndim), in elements */
    uint64_t flags;          /* GD_FLAG_* (READ_ONLY, IS_COPIED, SUBBYTE_PADDED) */
    int32_t ndim;
    DLDataType dtype;
    int32_t dtype_index;     /* index into the dtype table (dlpack.All()) */
    int32_t device_type;     /* kDLCPU, or the host-accessible type it was imported as */
    int32_t device_id;
    int64_t dims[1];
} gd_array;

extern PyTypeObject *gd_ArrayType;
int gd_array_type_init(void);
/* A new, empty Array of ndim dims (NULL with MemoryError): no owner and no data yet,
 * a CPU device, flags 0. The caller sets owner (handing it one reference, which
 * array_dealloc drops), data, dtype, shape and strides before the Array is seen. */
gd_array *gd_array_alloc(int32_t ndim);
int gd_array_check(PyObject *o);
/* PEP 3118 buffer protocol (array_buffer.c). */
int gd_array_getbuffer(PyObject *self, Py_buffer *view, int flags);
void gd_array_releasebuffer(PyObject *self, Py_buffer *view);

/* ---- per-call fast paths (array_fast.c): each answers as the Go slot would, or
 * calls it ---- */
#define GD_MAX_DTYPES 64
extern PyObject *gd_dtype_objects[GD_MAX_DTYPES]; /* by dtype index; written by Go (_set_dtypes) */
PyObject *gd_array_get_shape(PyObject *self, void *c);
PyObject *gd_array_get_strides(PyObject *self, void *c);
PyObject *gd_array_get_ndim(PyObject *self, void *c);
PyObject *gd_array_get_size(PyObject *self, void *c);
PyObject *gd_array_get_itemsize(PyObject *self, void *c);
PyObject *gd_array_get_nbytes(PyObject *self, void *c);
PyObject *gd_array_get_dtype(PyObject *self, void *c);
PyObject *gd_array_get_readonly(PyObject *self, void *c);
PyObject *gd_array_get_data_ptr(PyObject *self, void *c);
PyObject *gd_array_subscript(PyObject *self, PyObject *key);
int gd_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value);
PyObject *gd_array_item(PyObject *self, Py_ssize_t i);
PyObject *gd_array_reshape(PyObject *self, PyObject *args);
PyObject *gd_scalar_fast(int code, int bits, const char *p); /* convert.c */
int gd_doubles_into_list(PyObject *l, int64_t start, const double *v, int64_t n, int complex_pairs);
PyObject *gd_list_new(Py_ssize_t n);
int64_t gd_physical_memory(void);
/* constructors_fast.c: empty/zeros for plain arguments; the dtype table by index,
 * written once by Go (dtypes.go) */
extern DLDataType gd_dtype_dl[GD_MAX_DTYPES];
extern int32_t gd_dtype_count, gd_default_dtype_index;
PyObject *gd_empty(PyObject *mod, PyObject *args, PyObject *kwargs);
PyObject *gd_zeros(PyObject *mod, PyObject *args, PyObject *kwargs);
PyObject *gd_asarray(PyObject *mod, PyObject *args, PyObject *kwargs);
/* Whether asarray may share obj by DLPack: not a list, tuple or number, and has
 * __dlpack__ (constructors_fast.c). */
int gd_may_share_dlpack(PyObject *obj);

/* ---- export (dlpack_export.c) ---- */
PyObject *gd_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_array_dlpack_device(PyObject *self, PyObject *unused);
DLManagedTensorVersioned *gd_export_versioned(gd_array *a, uint64_t extra_flags, DLPackVersion v);
DLManagedTensor *gd_export_legacy(gd_array *a);
/* The deleter of the versioned tensors we make (exports, the exchange API's allocator). */
void gd_export_deleter(DLManagedTensorVersioned *m);

/* ---- hidden tensor state (lazy_view.c): what PyTorch's exchange API drops ----
 * The conjugate and negative bits (lazy views) and requires_grad. */
typedef struct {
    int present;        /* the type has the method */
    PyCFunction direct; /* its C function (a METH_NOARGS method), or NULL: call it */
} gd_bit_probe;
typedef struct {
    int present; /* the type has the attribute */
    getter get;  /* its getset descriptor's C getter, or NULL: getattr */
    void *closure;
} gd_attr_probe;
typedef struct {
    int any; /* any probe present: whether to call gd_refuse_hidden_state */
    gd_bit_probe conj, neg;
    gd_attr_probe grad;
} gd_lazy_probes;
int gd_lazy_view_init(void);
void gd_lazy_probes_init(gd_lazy_probes *p, PyTypeObject *tp);
/* Which of x's states to ask about (lazy_view.c says why): */
#define GD_ASK_NEG 1
#define GD_ASK_CONJ 2
#define GD_ASK_GRAD 4
#define GD_ASK_ALL (GD_ASK_NEG | GD_ASK_CONJ | GD_ASK_GRAD)
/* ... for a tensor x exported through the exchange API, validated: requires_grad
 * unless its dtype is an integer or bool one (PyTorch lets only floating-point and
 * complex tensors require grad; no layout tells it); complex tensors about the
 * conjugate bit; others about the negative bit only if they have elements and their
 * layout could be .imag of complex memory: every dimension longer than 1 with an
 * even stride, or (floating point) element 0 at an odd multiple of the element size,
 * where every element of .imag of 2-element-aligned complex memory lies, and so
 * element 0 of every view of it made without an explicit storage offset.
 * Inline: it is the whole cost of the check for a plain tensor. */
static inline int gd_lazy_questions(const DLTensor *t) {
    const int code = t->dtype.code;
    const int grad = (code == 0 || code == 1 || code == 6) ? 0 : GD_ASK_GRAD; /* int, uint, bool */
    if (code == 5 /* kDLComplex */) {
        return grad | GD_ASK_CONJ;
    }
    for (int32_t i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0) {
            return grad; /* no elements: no value can be wrong */
        }
    }
    if (code == 2 /* kDLFloat */ && t->dtype.bits >= 8) {
        uintptr_t at = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
        if ((at / (t->dtype.bits / 8)) & 1) {
            return grad | GD_ASK_NEG;
        }
    }
    for (int32_t i = 0; i < t->ndim; i++) {
        /* NULL strides (DLPack < 1.2) are C-contiguous: the innermost dimension
         * longer than 1 has stride 1. */
        if (t->shape[i] > 1 && (t->strides == NULL || t->strides[i] % 2 != 0)) {
            return grad;
        }
    }
    return grad | GD_ASK_NEG;
}
/* 0 if x can be imported as its memory says, -1 with BufferError if one of the
 * questions finds requires_grad or a lazy negative or conjugate view, -1 with the
 * producer's error if asking failed. */
int gd_refuse_hidden_state(PyObject *x, const gd_lazy_probes *p, int questions);
/* With the producer's exception pending: if x is a tensor of a kind DLPack cannot
 * carry (sparse, quantized, meta, nested, MKL-DNN), replaces it with BufferError
 * naming the kind and the fix, chained to it (__cause__). */
void gd_explain_unsupported(PyObject *x, const gd_lazy_probes *p);
/* Whether a BufferError of x's import is final: x's type answers the questions
 * above (PyTorch's), and what they or it refuse a copy would not fix (asarray). */
int gd_refusal_is_final(PyObject *x);

/* ---- import (dlpack_import.c) ---- */
int gd_import_init(void);
/* Whether obj has a __dlpack__ (on its type or the instance); never raises. */
int gd_has_dlpack(PyObject *obj);
int gd_error_is_buffer_error(void);
/* An Array owning a managed tensor that passed gd_fast_check (the import's fast
 * path and the exchange API's to_py): shape, strides, flags and the device, type
 * and id, all from the view. NULL with an exception set on allocation failure (the
 * tensor is then not taken over). */
PyObject *gd_array_from_fast(const gd_fast_view *v, void *managed, int versioned);
/* The same Array over v, owned by owner (taken; the caller's still on failure). */
PyObject *gd_array_from_fast_owned(const gd_fast_view *v, gd_owner *owner);
extern gd_dtype_slot_table gd_dtype_slots;
PyObject *gd_import_foreign(PyObject *x, PyObject *dl_device, PyObject *copy, int thorough);
int gd_lend_foreign(PyObject *x, DLManagedTensorVersioned *out, int64_t *dims, int max_ndim,
                    int writes, Py_buffer *view);
PyObject *gd_from_dlpack(PyObject *mod, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *gd_device_tuple(int32_t device_type, int32_t device_id);

/* kDLOneAPI (SYCL USM, dpnp/dpctl) through dpctl's C interface, loaded at run time
 * (oneapi.c). The answer to "may the CPU use this tensor's address?": status OK, or
 * why not; usm_kind is DPCTLSyclUSMType's value; detail is the device's name (or
 * what failed to load); ndevices is how many SYCL root devices the runtime lists. */
enum { GD_USM_UNKNOWN = 0, GD_USM_DEVICE = 1, GD_USM_SHARED = 2, GD_USM_HOST = 3 };
enum {
    GD_ONEAPI_OK = 0,
    GD_ONEAPI_NO_DPCTL,         /* dpctl is not imported: no SYCL runtime to ask */
    GD_ONEAPI_LOAD_FAILED,      /* its libDPCTLSyclInterface.so did not load (detail) */
    GD_ONEAPI_NO_DEVICE,        /* device_id is not a root device (ndevices) */
    GD_ONEAPI_UNKNOWN_POINTER,  /* not USM of that device's default platform context */
    GD_ONEAPI_DEVICE_USM,       /* device USM on a device that is not a CPU */
};
typedef struct {
    int32_t status;
    int32_t usm_kind;
    int64_t ndevices;
    char detail[256];
} gd_oneapi_answer;
void gd_oneapi_cpu_accessible(int32_t device_id, const void *ptr, gd_oneapi_answer *out);
void *gd_oneapi_usm_alloc(int32_t device_id, size_t n, void **ctx, gd_oneapi_answer *out);
void gd_oneapi_usm_free(void *p, void *ctx);

/* ---- nested sequences <-> array memory (convert.c) ---- */
/* Element kinds as Python sees them: dlpack.Kind's values (convert.go checks). */
enum { GD_KIND_BOOL = 0, GD_KIND_INT, GD_KIND_UINT, GD_KIND_FLOAT, GD_KIND_COMPLEX };
int gd_nested_shape(PyObject *obj, int64_t *shape);
PyObject *gd_nested_snapshot(PyObject *obj, int depth);
int gd_nested_kind(PyObject *obj, const int64_t *shape, int ndim, int *kind, int *any_signed);
int gd_nested_fill(PyObject *obj, gd_array *dst);
int gd_tolist_fast_ok(const gd_array *a);
PyObject *gd_tolist(const gd_array *a);

#endif
