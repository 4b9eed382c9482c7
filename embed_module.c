//go:build godlpack_python && godlpack_module

/* embed_module.c: what a Go program that embeds Python (embed.c) takes from the
 * godlpack module's own files, built into the program with the build tag
 * godlpack_module (python -m godlpack go-env --embed sets it): the module itself and
 * tensors through its Array type. An extension written in Go has no such files
 * (embed_nomodule.c): its tensors cross through the module's C-API (gd_ext_capi). */
#include "godlpack.h"

PyObject *gd_module_def_init(void);             /* module.c */
const DLPackExchangeAPI *gd_exchange_api(void); /* exchange.c */

/* Makes godlpack._godlpack from this program's own module definition and puts it in
 * sys.modules, so that `import godlpack` takes the Python package from sys.path but
 * never loads its extension .so: that is a Go c-shared library, a second Go runtime,
 * which cannot share a process with this one. GIL held; 0, or -1 with an exception. */
int gd_embed_register_module(void) {
    PyObject *def = gd_module_def_init();
    PyObject *machinery = PyImport_ImportModule("importlib.machinery");
    if (machinery == NULL) {
        return -1;
    }
    PyObject *spec =
        PyObject_CallMethod(machinery, "ModuleSpec", "sO", "godlpack._godlpack", Py_None);
    Py_DECREF(machinery);
    if (spec == NULL) {
        return -1;
    }
    PyObject *m = PyModule_FromDefAndSpec((PyModuleDef *)def, spec);
    Py_DECREF(spec);
    if (m == NULL) {
        return -1;
    }
    if (PyModule_ExecDef(m, (PyModuleDef *)def) < 0) {
        Py_DECREF(m);
        return -1;
    }
    int rc = PyDict_SetItemString(PyImport_GetModuleDict(), "godlpack._godlpack", m);
    Py_DECREF(m);
    return rc;
}

const DLPackExchangeAPI *gd_embed_module_exchange_api(void) { return gd_exchange_api(); }

/* gd_embed_py_to_tensor in the program that is the godlpack module. */
DLManagedTensorVersioned *gd_embed_module_py_to_tensor(PyObject *x) {
    PyObject *a = gd_array_check(x) ? Py_NewRef(x) : gd_import_foreign(x, NULL, NULL, 0);
    if (a == NULL) {
        return NULL;
    }
    DLPackVersion v = {GD_DLPACK_MAJOR, GD_DLPACK_MINOR};
    DLManagedTensorVersioned *m = gd_export_versioned((gd_array *)a, 0, v);
    Py_DECREF(a);
    if (m == NULL) {
        PyErr_NoMemory();
    }
    return m;
}
