/* ext.h: the C half of Python extensions written in Go with this library
 * (godlpack.Module, ext_*.go). These files are compiled into every c-shared
 * library that links the godlpack package: in an extension they are the live
 * call path; the godlpack module uses them for its own API-defined functions
 * (internal/arraymodule/module_funcs.go), not ext_module.c's init.
 *
 * A call: Python -> gd_ext_call (METH_FASTCALL, ext_call.c) matches the arguments
 * to the parameters and converts each to a gd_ext_arg (tensors through the godlpack
 * module's C-API: an Array is read in place, anything else imported by
 * from_dlpack's flow), releases the GIL, makes ONE cgo call into Go (goExtCall,
 * ext_call.go), which checks the constraints, runs the author's function and
 * writes a gd_ext_result in C memory; C takes the GIL back, builds the Python
 * result and releases what it imported. docs/internals/call-path.md. */
#ifndef GODLPACK_EXT_H
#define GODLPACK_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "immortal.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dlpack_abi.h"
#include "godlpack_capi.h"

/* A thread-local variable of a hot path, read and written with one %fs-relative access
 * (initial-exec) instead of a __tls_get_addr call each (a c-shared library's default, two
 * of them ~2% of a callback). The library is in the static TLS block already: Go's
 * runtime keeps its g there, so the linker marks it STATIC_TLS and the loader places its
 * whole TLS block there at dlopen; this takes no more of it. */
#define GD_HOT_TLS __thread __attribute__((tls_model("initial-exec")))

/* Parameters of one function whose arguments a call keeps on its stack; a function
 * with more (any number) takes a heap buffer per call (ext_call.c's invoke). */
#define GD_EXT_STACK_PARAMS 16

/* Parameter kinds, as Go's converters expect them (ext_consts.go has the same list, checked
 * against this one when ext_ctypes.go builds). */
enum {
    GD_EXT_TENSOR = 1, GD_EXT_INT, GD_EXT_FLOAT, GD_EXT_BOOL, GD_EXT_STR, GD_EXT_MUT_TENSOR,
    GD_EXT_UINT,   /* i: a uint64's bits (uint, uint64: beyond int64) */
    GD_EXT_OBJECT, /* obj: the argument itself, borrowed (NULL: absent, Go uses the default);
                      Go converts it with the GIL (lists, dicts, bytes, complex, Object) */
    GD_EXT_INSTANCE, /* an instance of bound class gd_ext_param.cls (ext_class.c): i its Go
                        value's handle (0: None, for a parameter with a default) */
};
/* Or'ed into TENSOR/MUT_TENSOR in the C table: an optional tensor (Default(name, nil)),
 * None or no argument giving Go an absent one (gd_ext_arg.obj NULL). */
#define GD_EXT_OPTIONAL 0x10
/* What a call does with the GIL around the Go function (Function.HoldGIL,
 * ReleaseGIL; ext_call.c's gil_wanted says why AUTO is the default). */
enum {
    GD_EXT_GIL_HOLD = 0, /* kept held */
    GD_EXT_GIL_AUTO,     /* released when another thread could take it */
    GD_EXT_GIL_RELEASE,  /* always released */
};
/* Dimensions of a lent tensor kept in its gd_ext_arg (more: imported as an Array). */
#define GD_EXT_LEND_NDIM 8

/* Result kinds (ext_result.go). */
enum {
    GD_EXT_R_NONE = 0,
    GD_EXT_R_ARRAY, /* p: a DLManagedTensorVersioned* for a new godlpack.Array */
    GD_EXT_R_INT,
    GD_EXT_R_FLOAT,
    GD_EXT_R_BOOL,
    GD_EXT_R_STR,   /* p: malloc'd UTF-8, n bytes */
    GD_EXT_R_TUPLE, /* p: malloc'd gd_ext_result[n] */
    GD_EXT_R_ERROR, /* exc: GD_EXT_EXC_*, p: malloc'd message, n bytes */
    GD_EXT_R_OBJECT, /* p: a new reference, made by Go with the GIL (lists, dicts, bytes...) */
    GD_EXT_R_INSTANCE, /* i: a Go value's instance id, for a new instance of class n */
    GD_EXT_R_RAISE,    /* p: a new reference to an exception Go met calling Python: raised again */
    GD_EXT_R_ENUM,     /* i: a value of the IntEnumFor enum n (gd_ext_enums[n]): its member */
    GD_EXT_R_ITER,     /* i: a Go iterator's id (goExtIterNext): a new go_iterator */
    GD_EXT_R_NUMPY_SMALL, /* a new numpy.ndarray of n elements (1-D) whose bytes Go wrote in
                             small, of the DLPack dtype i (code | bits << 8: lanes 1) */
};
/* Frameworks a function's arrays are returned in (Function.ResultIn, ResultLike). */
enum { GD_EXT_FW_GODLPACK = 0, GD_EXT_FW_NUMPY, GD_EXT_FW_TORCH, GD_EXT_FW_JAX, GD_EXT_FW_COUNT };
#define GD_EXT_FW_LIKE GD_EXT_FW_COUNT /* result_fw: the framework of parameter result_like */

/* Exception types an author may raise (ext_errors.go keeps the same order). */
enum {
    GD_EXT_EXC_VALUE = 0, GD_EXT_EXC_TYPE, GD_EXT_EXC_RUNTIME, GD_EXT_EXC_INDEX,
    GD_EXT_EXC_KEY, GD_EXT_EXC_OVERFLOW, GD_EXT_EXC_ZERO_DIVISION, GD_EXT_EXC_MEMORY,
    GD_EXT_EXC_BUFFER, GD_EXT_EXC_NOT_IMPLEMENTED, GD_EXT_EXC_OS, GD_EXT_EXC_COUNT
};

typedef struct {
    const char *name;   /* C memory, process lifetime */
    PyObject *name_obj; /* interned */
    int32_t kind;
    int32_t has_default;
    int64_t def_i;
    double def_f;
    const char *def_s;
    Py_ssize_t def_slen;
    int32_t cls; /* INSTANCE: the class's index in gd_ext_classes */
    int32_t accepts;       /* OBJECT: GD_EXT_ACCEPT_* bits, checked in C (0: anything) */
    const char *type_name; /* OBJECT: its Python type, for the TypeError ("list[float]");
                              INT: a Go type narrower than int64 and its range, for the
                              OverflowError of an int beyond int64 ("int8 (-128 to 127)"),
                              else NULL; an IntEnumFor's: its name and members */
    int32_t is_enum; /* INT: of an IntEnumFor type: an int beyond int64 is a ValueError */
} gd_ext_param;
/* What an OBJECT parameter takes, checked in C before Go converts it: a mismatch is a
 * TypeError there, so that an overload set tries its next alternative. */
enum {
    GD_EXT_ACCEPT_NONE = 1, GD_EXT_ACCEPT_SEQ = 2, GD_EXT_ACCEPT_DICT = 4, GD_EXT_ACCEPT_BYTES = 8,
    GD_EXT_ACCEPT_NUMBER = 16, GD_EXT_ACCEPT_CALLABLE = 32, GD_EXT_ACCEPT_STR = 64,
};

/* One Python-callable function of an extension: C memory, process lifetime. */
typedef struct gd_ext_func {
    PyMethodDef def; /* ml_meth = gd_ext_call; the function object's self points here */
    int32_t id;      /* its index in Go's table */
    int32_t nparams;
    int32_t npositional; /* the parameters before "*": the rest are keyword-only */
    int32_t fast_nargs;  /* nparams, or -1 with keyword-only ones: when nargs equals it and no
                            keywords are passed, the arguments are bound as they come */
    int32_t nrequired; /* the parameters before the first with a default */
    /* *args and **kwargs (a variadic Go function, a "**name" map[string]T): the index of
     * the parameter, -1 for none. *args is the last parameter and stands for its
     * elements: the positional arguments past npositional, each converted as it
     * describes (its name indexed in errors: "hists[1]"), are argv's last entries.
     * **kwargs is an OBJECT parameter given a new dict of the keywords that name no
     * other parameter. Either makes fast_nargs -1. */
    int32_t varargs;
    int32_t varkw;
    int32_t gil;       /* GD_EXT_GIL_* */
    int32_t result_fw;   /* GD_EXT_FW_*: the framework arrays are returned in (0: godlpack's),
                            or GD_EXT_FW_LIKE: result_like's */
    int32_t result_like; /* the parameter whose framework the arrays returned take */
    gd_ext_param *params; /* nparams of them, C memory (gd_ext_func_new) */
    /* An overload set (godlpack.Overload): no parameters of its own; each
     * alternative is tried in order until one's arguments bind and convert. */
    int32_t noverloads;
    struct gd_ext_func **overloads;
    const char *overload_sigs; /* "    1. f(x: float) -> None\n    2. ...", for the TypeError */
    /* A class method's (ClassDef.ClassMethod): an instance of its own bound class
     * that it returns is made an instance of its first argument, the class it was
     * called on (a Python subclass) */
    int32_t cls_result;
} gd_ext_func;

/* One argument as Go reads it. C memory (gd_ext_call's stack), valid for the call. */
typedef struct {
    DLManagedTensorVersioned m; /* TENSOR: a borrowed view (no deleter) */
    int64_t dims[2 * GD_EXT_LEND_NDIM]; /* TENSOR: a lent tensor's shape and strides */
    PyObject *array;            /* TENSOR: the godlpack.Array m views (the argument, or hold);
                                   NULL for a tensor lent by its producer (Keep imports it) */
    PyObject *obj;              /* TENSOR: the argument */
    Py_buffer view;             /* TENSOR: lent through the buffer protocol if view.obj */
    PyObject *hold;             /* TENSOR: an Array imported for the call, or NULL */
    uintptr_t go_tensor;        /* TENSOR: cgo.Handle of a borrowed *tensor.Tensor, or 0 */
    int32_t mut;                /* TENSOR: set by Go: a MutTensor parameter (writable views) */
    int32_t keep_anywhere;      /* Keep may run on any thread (GD_EXT_GIL_RELEASE) */
    pthread_t caller;           /* the calling thread, the only one Keep may run on
                                   otherwise: the call may hold the GIL while Go runs */
    int64_t i;                  /* INT, BOOL */
    double f;                   /* FLOAT */
    const char *s;              /* STR: UTF-8 owned by the argument */
    Py_ssize_t slen;
} gd_ext_arg;

/* The longest str result, and the largest NumPy array result's bytes, written inside
 * the result (gd_ext_result.small). */
#define GD_EXT_SMALL 256

typedef struct gd_ext_result {
    int32_t kind;
    int32_t exc;
    int64_t i;
    double f;
    void *p;
    int64_t n;
    int32_t unfit; /* set by Go with an error: an argument that did not convert (a
                      TypeError or OverflowError before the function ran), so that an
                      overload set tries its next alternative */
    int32_t fw;    /* set by C before the call: the GD_EXT_FW_* of the call's arrays
                      (ResultIn's, or ResultLike's argument's), which its callbacks'
                      tensor arguments take too */
    uint32_t spare_id; /* Go's: a released id, its slot empty, kept at the entry of a
                          call returning a bound class's *T for the instance it makes
                          (ext_class_cpython.go); 0: none */
    /* STR: a short str's UTF-8, p pointing here (not freed): Go writes it in place,
     * where C.CBytes's call and malloc, and the free, were ~50 ns of a repr.
     * NUMPY_SMALL: the array's elements, copied into the ndarray NumPy allocates, where
     * a godlpack.Array's tensor, its export and its owner were ~40% of h.counts(). */
    char small[GD_EXT_SMALL];
} gd_ext_result;

/* A call's result r, zeroed but for small, which only a str's bytes fill: zeroing
 * the whole struct was a rep stos (~10 ns on every call) where these fields are a
 * few vector stores. */
#define GD_EXT_RESULT_INIT(r)                                                             \
    gd_ext_result r;                                                                      \
    memset(&r, 0, offsetof(gd_ext_result, small))

extern const gd_capi *gd_ext_capi; /* the godlpack module's table, set at module exec */

/* ---- bound classes (ext_class.c, ext_class.go) ---- */

/* An instance of a bound class: its Go value is kept in Go's instance table
 * (ext_instance_table.go) under the id `handle`, released after dealloc
 * (gd_ext_instance_release; 0: none yet, before __init__, or none any more). */
typedef struct {
    PyObject_HEAD
    uintptr_t handle;
    PyObject *weaklist; /* weakref.ref(instance) works (tp_weaklistoffset) */
    void *pinned;       /* the Go value's address, pinned by Go until the handle's release
                           (goExtPinInstance), once an AtomicProperty was read; else NULL */
    int32_t initing;    /* 1 once the Go value is had or an __init__ is making it (claimed
                           atomically by ext_class.c's instance_init): one per instance */
} gd_ext_instance;

/* How an AtomicProperty's field is loaded (ext_class_atomic.go): sync/atomic's types. */
enum {
    GD_EXT_FIELD_INT64 = 1, GD_EXT_FIELD_UINT64, GD_EXT_FIELD_INT32, GD_EXT_FIELD_UINT32,
    GD_EXT_FIELD_BOOL,
};

/* A property's functions (NULL set: read-only). C memory, process lifetime. An
 * AtomicProperty's (field_kind not 0) value is read in C at field_offset in the Go
 * value; get is then called only for an instance with no Go value (its TypeError). */
typedef struct {
    PyObject *get, *set;
    /* Their C tables, which the getset slots call directly (gd_ext_call_func): the
     * function objects' own vectorcall is a layer a property read need not pay. */
    const gd_ext_func *get_func, *set_func;
    int64_t field_offset;
    int32_t field_kind; /* GD_EXT_FIELD_*, 0: a getter's call */
} gd_ext_property;

/* One bound class: C memory, process lifetime, made at the first module exec. */
typedef struct {
    PyTypeObject *type; /* a strong reference, kept for good */
    PyObject *init;     /* the constructor (returns a new instance), or NULL */
    const gd_ext_func *init_func; /* its C table, called directly by Cls(...) (no overloads) */
    PyObject *iter;     /* __iter__'s Go function (returns a sequence), or NULL */
    PyObject *eq;       /* __eq__'s Go function (returns a bool), or NULL */
    int32_t eq_other;   /* the class __eq__'s other must be (its id), -1: any object */
    const char *name;   /* the class's name, for TypeErrors */
    PyObject *setstate; /* Pickle's restore (returns a new instance from the state's items), or NULL */
    const char *buffer_format; /* ClassDef.Buffer's element code (C memory for good), or NULL */
    int32_t buffer_itemsize;
} gd_ext_class;

/* A view's slice as Go gives it (goExtGetBuffer): its address, pinned until
 * goExtReleaseBuffer(token) (0, with token 0, for an empty slice), its length in
 * elements; err (malloc'd) when the view's function failed. */
typedef struct {
    uintptr_t buf;
    int64_t len;
    uint64_t token;
    char *err;
} gd_ext_buffer_out;

/* Releases an instance's Go value (ext_class.c): queues its id, with no call into
 * Go, for Go to empty its slot before any Go code Python starts next runs
 * (ext_class_cpython.go). Any thread, with or without the GIL, after finalization
 * too. */
void gd_ext_instance_release(uintptr_t id);

/* The queue of released ids (ext_class.c pushes, ext_class_cpython.go takes it whole):
 * its newest id (0: empty), and each queued id's next older one, in chunks of
 * 1 << GD_EXT_ID_CHUNK_BITS ids (the instance table's chunks), allocated at the first
 * release in a chunk and kept. Read and written with atomics only. */
#define GD_EXT_ID_CHUNK_BITS 12
#define GD_EXT_ID_CHUNKS (1 << 14)
extern uint32_t gd_ext_released_head;
extern uint32_t *gd_ext_released_next[GD_EXT_ID_CHUNKS];

/* A new instance of bound class t (never a Python subclass) owning the Go value of
 * id (ext_class.c); NULL with MemoryError, id then still the caller's. */
PyObject *gd_ext_instance_new(PyTypeObject *t, uintptr_t id);

#define GD_EXT_MAX_CLASSES 256
#define GD_EXT_MAX_EXCEPTIONS 256
extern gd_ext_class gd_ext_classes[GD_EXT_MAX_CLASSES];
/* The module's own exception classes, by index (GD_EXT_EXC_COUNT + index in a result). */
extern PyObject *gd_ext_exceptions[GD_EXT_MAX_EXCEPTIONS];
/* The module's IntEnumFor classes, by id (GD_EXT_R_ENUM's n), set when made (ext_module.c). */
#define GD_EXT_MAX_ENUMS 256
extern PyObject *gd_ext_enums[GD_EXT_MAX_ENUMS];
/* A new instance of t, a Python subclass of a bound class (or the class itself),
 * owning the Go value of id (ext_class.c): a class method's result; NULL with an
 * exception, id then still the caller's. */
PyObject *gd_ext_instance_new_of(PyTypeObject *t, uintptr_t id);

/* Makes class id (GIL held, at exec): NULL with an exception. props: nprops closures
 * whose functions are set after, names and docs C memory for good. */
PyTypeObject *gd_ext_class_new(int32_t id, const char *qualname, const char *doc, int final,
                               int has_init, int has_iter, int has_eq, int has_buffer,
                               int has_pickle, int nprops,
                               const char **prop_names,
                               const char **prop_docs, gd_ext_property *props);
/* How gd_ext_class_set_method binds a function (ClassDef.Def, StaticMethod, ClassMethod). */
enum { GD_EXT_METHOD = 0, GD_EXT_STATIC_METHOD, GD_EXT_CLASS_METHOD };
/* Puts function fn in type's dict as a method of kind how (GD_EXT_METHOD: the
 * instance bound first; GD_EXT_STATIC_METHOD: nothing bound; GD_EXT_CLASS_METHOD:
 * the class it is called on bound first). */
int gd_ext_class_set_method(PyObject *type, PyObject *fn, int how, const gd_ext_func *f);
/* The exception type of GD_EXT_EXC_* k (ext_call.c). */
PyObject *gd_ext_exc_type(int32_t k);
/* A function object calling f as a function of module m (ext_module.c). */
PyObject *gd_ext_function(PyObject *m, gd_ext_func *f);

/* array, a godlpack.Array, as a numpy.ndarray viewing its memory (its base: array),
 * made with NumPy's C-API (ext_numpy_result.c); NULL with no exception when NumPy's API
 * cannot take it here (its dtype, device, NumPy not imported): use numpy.from_dlpack. */
PyObject *gd_ext_numpy_array(PyObject *array);
/* array (a godlpack.Array; stolen) as an array of framework fw (GD_EXT_FW_*, not LIKE),
 * zero-copy, as a result (ext_call.c); GIL held. A callback's tensor argument. */
PyObject *gd_ext_array_in(PyObject *array, int fw);
/* A numpy.ndarray owning m (a managed tensor Go exported: its deleter runs when NumPy
 * lets the array go), made by NumPy's C API with no godlpack.Array: 1 with *out the
 * array, or NULL with an exception set and m released; 0, m untouched, where NumPy
 * cannot view it (dtype, device: a godlpack.Array and from_dlpack then). GIL held. */
int gd_ext_numpy_from_managed(DLManagedTensorVersioned *m, PyObject **out);
/* r's GD_EXT_R_NUMPY_SMALL result: a new 1-D numpy.ndarray, NumPy's memory, holding
 * the elements in r->small (ext_numpy_result.c); NULL with an exception. GIL held. */
PyObject *gd_ext_numpy_small(const struct gd_ext_result *r);
PyObject *gd_ext_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* gd_ext_call of f itself, for a caller holding its table (a class's constructor). */
PyObject *gd_ext_call_func(const gd_ext_func *f, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames);
/* f, a property getter, called with self (ext_call.c: its own short path). */
PyObject *gd_ext_call_getter(const gd_ext_func *f, PyObject *self);
/* The ml_meth of an overload set (godlpack.Overload): gd_ext_call keeps no branch for it. */
PyObject *gd_ext_call_overloads(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *godlpack_ext_init(const char *name);
/* For Keep: a managed tensor of the argument's Array that owns a reference to its
 * memory (its deleter needs no GIL), or NULL with *err set (malloc'd message).
 * Takes the GIL itself; refuses a thread other than the caller's unless the
 * function always releases the GIL (waiting for it there could wait forever). */
DLManagedTensorVersioned *gd_ext_keep(gd_ext_arg *a, char **err);
/* A new gd_ext_func with nparams parameters (C memory), NULL if out of memory. */
gd_ext_func *gd_ext_func_new(int32_t nparams);
void gd_ext_result_free(gd_ext_result *r);
/* The Python value of r (NULL with an exception set); r's memory is released (ext_call.c). */
PyObject *gd_ext_build(gd_ext_result *r);
/* A go_iterator pulling the Go sequence id (GD_EXT_R_ITER), or NULL with an exception,
 * id then still the caller's; gd_ext_iter_release ends a sequence no iterator got
 * (ext_class.c). gd_ext_iter_ready makes their type, once, at a module's exec. */
PyObject *gd_ext_iter_new(int64_t id);
void gd_ext_iter_release(int64_t id);
int gd_ext_iter_ready(void);
/* Adds the UTF-8 note[:n] to the exception exc (PEP 678's add_note; left out if exc
 * refuses it). GIL held, no exception pending. */
void gd_ext_add_note(PyObject *exc, const char *note, Py_ssize_t n);
/* How many calls have released the GIL in this process (GILReleases, for tests). */
int64_t gd_ext_gil_releases(void);

/* ext_module.c: the C-API loaded once (an extension's exec, a Go program's first tensor
 * crossing), and the exec of a godlpack.Module (extensions, the godlpack module). */
int gd_capi_load(const char *who);
int godlpack_ext_exec(PyObject *m, const char *name);

#endif
