//go:build godlpack_python

/* module.c: the module's static method table and creation, which cgo cannot
 * express; PyInit__godlpack itself is exported from Go (module.go). The functions
 * written with the extension API (module_funcs.go) are added at exec, after the
 * table's. */
#include "arraymodule.h"
#include "_cgo_export.h"

int gd_export_init(void);
void gd_set_device_enum(PyObject *e);
int gd_capi_publish(PyObject *m);
PyObject *gd_before_fork(PyObject *self, PyObject *unused); /* internal/forksafe/wait.c */

static PyObject *mod_set_device_enum(PyObject *m, PyObject *e) {
    (void)m;
    gd_set_device_enum(e);
    Py_RETURN_NONE;
}

/* Two no-ops, one in C and one in Go, so bench/ can show the cost of a C->Go
 * crossing in the same run as the figures that motivate the C hot paths. */
static PyObject *mod_noop_c(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    Py_RETURN_NONE;
}

#define KW (METH_VARARGS | METH_KEYWORDS)
static PyMethodDef module_methods[] = {
    {"empty", (PyCFunction)(void (*)(void))gd_empty, KW,
     "empty(shape, dtype='float32')\n--\n\nA new array of the given shape and dtype, "
     "uninitialized (its memory is 256-byte aligned)."},
    {"zeros", (PyCFunction)(void (*)(void))gd_zeros, KW,
     "zeros(shape, dtype='float32')\n--\n\nA new array filled with zeros."},
    {"ones", (PyCFunction)(void (*)(void))goOnes, KW,
     "ones(shape, dtype='float32')\n--\n\nA new array filled with ones."},
    {"full", (PyCFunction)(void (*)(void))goFull, KW,
     "full(shape, fill_value, dtype=None)\n--\n\nA new array filled with fill_value; dtype None "
     "infers it from the value as NumPy does (bool, int64, float64 or complex128)."},
    {"arange", (PyCFunction)(void (*)(void))goArange, KW,
     "arange(start, stop=None, step=1, dtype=None)\n--\n\nEvenly spaced values in "
     "[start, stop), like range(); dtype defaults to int64 for ints, else float64."},
    {"asarray", (PyCFunction)(void (*)(void))gd_asarray, KW,
     "asarray(obj, /, *, dtype=None, device=None, copy=None)\n--\n\n"
     "An Array from obj (array API standard).\n\n"
     "obj: a godlpack.Array, an object with __dlpack__ (NumPy, PyTorch, JAX...), nested\n"
     "    lists/tuples of Python scalars, a scalar, or a buffer-protocol object.\n"
     "dtype: the result's dtype; None keeps obj's (or infers it as NumPy does).\n"
     "device: None, 'cpu' or (DLDeviceType.kDLCPU, 0).\n"
     "copy: None shares obj's memory when it can (an Array, or a DLPack producer, of the\n"
     "    wanted dtype) and copies otherwise; True always copies; False never copies and\n"
     "    raises ValueError when it would have to (lists, scalars, buffers, a dtype change).\n"
     "    An Array of the wanted dtype is returned itself unless copy=True."},
    {"from_dlpack", (PyCFunction)(void (*)(void))gd_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\n"
     "Import x zero-copy as a godlpack.Array (array API standard).\n\n"
     "x: an object with __dlpack__/__dlpack_device__ (NumPy, PyTorch, JAX, TVM-FFI...), or a\n"
     "    raw DLPack capsule ('dltensor' or 'dltensor_versioned'), which is consumed.\n"
     "device: None, 'cpu' or (DLDeviceType.kDLCPU, 0); a CPU device asks a non-CPU producer\n"
     "    for a CPU copy through dl_device.\n"
     "copy: None or False share the producer's memory (False raises BufferError if it\n"
     "    cannot); True asks the producer for a copy (__dlpack__(copy=True)) and, if it\n"
     "    hands back its own memory anyway, copies it into Go-owned memory; either way the\n"
     "    result owns its data and flags['is_copied'] is True.\n\n"
     "Types whose class has __dlpack_c_exchange_api__ (torch.Tensor) are imported through\n"
     "the DLPack C exchange API with no capsule. Every malformed tensor raises BufferError\n"
     "naming the field, and its deleter is still called exactly once."},
    {"_wrap_buffer", (PyCFunction)(void (*)(void))goWrapBuffer, KW,
     "_wrap_buffer(buffer, dtype, shape, strides=None, offset=0, readonly=False, keep=None,\n"
     "             own_bytes=False)\n"
     "--\n\nInternal: an Array over a C-contiguous Python buffer, no copy (pickle loads,\n"
     "shared memory). strides None: the array fills the buffer from offset exactly.\n"
     "keep lives as long as the memory. Read-only when asked or when the buffer is,\n"
     "except that own_bytes makes a large bytes object (one only this array uses: a\n"
     "protocol 2-4 pickle's) writable, as NumPy's unpickling does."},
    {"_set_device_enum", mod_set_device_enum, METH_O, "Internal: register DLDeviceType."},
    {"_set_dtypes", (PyCFunction)goSetDtypes, METH_O, "Internal: register the dtype objects."},
    {"_before_fork", gd_before_fork, METH_NOARGS, "Internal: os.fork hook (internal/forksafe)."},
    {"_noop_c", mod_noop_c, METH_NOARGS, "A no-op implemented in C (benchmarks)."},
    {"_noop_go", (PyCFunction)goNoop, METH_NOARGS, "A no-op implemented in Go (benchmarks)."},
    {NULL, NULL, 0, NULL},
};

/* The module refuses sub-interpreters (docs/decisions/sub-interpreters-refused.md): the Go
 * runtime, the dtype and device objects Go and C keep, the Array type and the static
 * exchange-API table are process-wide, and the table's functions are called with no
 * interpreter to look anything up in. Multi-phase init makes CPython run module_exec
 * in every interpreter that imports us (single-phase init copied the first module's
 * dict into later ones without asking), so the refusal cannot be bypassed. */
static int module_exec(PyObject *m) {
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        PyErr_SetString(PyExc_ImportError,
                        "godlpack cannot be imported in a subinterpreter: its state (the Go "
                        "runtime, the Array type, the DLPack exchange-API table) is shared by "
                        "the whole process; import it in the main interpreter only");
        return -1;
    }
    /* Process-wide state, made once: a second module object in the main interpreter
     * (the extension imported again after leaving sys.modules) shares it. */
    static int process_ready;
    if (!process_ready) {
        const char *count = getenv("GODLPACK_COUNT_ALLOCATIONS");
        gd_counting = count != NULL && strcmp(count, "1") == 0;
        if (gd_export_init() < 0 || gd_import_init() < 0 || gd_array_type_init() < 0 ||
            goProcessInit() < 0) {
            return -1;
        }
        process_ready = 1;
    }
    if (PyModule_AddObjectRef(m, "Array", (PyObject *)gd_ArrayType) < 0 ||
        PyModule_AddIntConstant(m, "DLPACK_MAJOR_VERSION", GD_DLPACK_MAJOR) < 0 ||
        PyModule_AddIntConstant(m, "DLPACK_MINOR_VERSION", GD_DLPACK_MINOR) < 0 ||
        gd_capi_publish(m) < 0 || goModuleExec(m) < 0) {
        return -1;
    }
    /* What every thread calls through (internal/cpython/immortal.c): the functions of the table above
     * (goModuleExec's are made so as they are made) and the Array type. */
    for (PyMethodDef *def = module_methods; def->ml_name != NULL; def++) {
        PyObject *fn = PyObject_GetAttrString(m, def->ml_name);
        if (fn == NULL) {
            return -1;
        }
        gd_immortalize(fn);
        Py_DECREF(fn);
    }
    gd_immortalize_type(gd_ArrayType);
    return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters /* 3.12+: CPython refuses sub-interpreters itself */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED /* free-threaded builds: safe without the GIL
                        * (docs/internals/free-threading.md); without this slot importing
                        * re-enables it */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "godlpack._godlpack",
    .m_doc = "godlpack's extension module, written in Go: see the godlpack package.",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyObject *gd_module_def_init(void) { return PyModuleDef_Init(&module_def); }
