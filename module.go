// Command godlpack is the c-shared CPython extension module godlpack._godlpack:
// the DLPack protocol for Go-owned arrays. Build it with build.py, which runs
// `go build -buildmode=c-shared` against the headers of the target interpreter.
// See docs/design.md for the layers and who owns which memory.
package main

// #include "godlpack.h"
// PyObject *gd_module_def_init(void);
import "C"

// A c-shared build needs a main function, which is never called.
func main() {}

// PyInit__godlpack only hands CPython the module definition (multi-phase init):
// module.c's exec function makes the module, in the main interpreter only.
//
//export PyInit__godlpack
func PyInit__godlpack() *C.PyObject {
	return C.gd_module_def_init()
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
	return 0
}

//export goNoop
func goNoop(_, _unused *C.PyObject) *C.PyObject { return C.gd_none() }
