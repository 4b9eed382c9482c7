//go:build godlpack_python

package arraymodule

// #include "arraymodule.h"
// PyObject *gd_module_def_init(void);
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/internal/cpython"
)

// ModuleDef is what the godlpack._godlpack extension's PyInit__godlpack returns
// (pyext/extension, the module's main package): the module definition, a
// PyObject* for CPython's multi-phase init. module.c's exec function makes the
// module, in the main interpreter only. The result is C memory (a static
// PyModuleDef), so it may cross to C as it is.
func ModuleDef() unsafe.Pointer {
	return unsafe.Pointer(C.gd_module_def_init())
}

// goProcessInit makes the Go side's process-wide state, once, from module.c's
// exec function: the C copies of the dtype table and the exchange API on the type.
// It returns -1 with a Python exception set on failure.
//
//export goProcessInit
func goProcessInit() C.int {
	if err := fillDTypeTables(); err != nil {
		setError(err)
		return -1
	}
	if registerExchangeAPI() != nil {
		return -1
	}
	cpython.MarkHosted()
	return 0
}

//export goNoop
func goNoop(_, _unused *C.PyObject) *C.PyObject { return C.gd_none() }
