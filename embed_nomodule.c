//go:build godlpack_python && !godlpack_module

/* embed_nomodule.c: embed_module.c's functions in a build without the godlpack
 * module's files (an extension written in Go: the build tag godlpack_module unset).
 * Such a build reaches godlpack.Array through the module's C-API (gd_ext_capi) once
 * its module is imported; it cannot start an interpreter with godlpack in it. */
#include "godlpack.h"

static void no_module(void) {
    PyErr_SetString(PyExc_ImportError,
                    "this Go program was built without the godlpack module (the build tag "
                    "godlpack_module): build it with the settings of `python -m godlpack "
                    "go-env --embed`");
}

int gd_embed_register_module(void) {
    no_module();
    return -1;
}

const DLPackExchangeAPI *gd_embed_module_exchange_api(void) {
    no_module();
    return NULL;
}

DLManagedTensorVersioned *gd_embed_module_py_to_tensor(PyObject *x) {
    (void)x;
    no_module();
    return NULL;
}
