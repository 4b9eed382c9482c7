// Command godlpack is the c-shared CPython extension module godlpack._godlpack:
// the DLPack protocol for Go-owned arrays. Build it with build.py, which runs
// `go build -buildmode=c-shared` against the headers of the target interpreter.
// See docs/design.md for the layers and who owns which memory.
package main

// #include "godlpack.h"
// PyObject *gd_module_def_init(void);
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// A c-shared build needs a main function, which is never called.
func main() {}

// dtypeObjects holds the Python dtype objects (godlpack.dtype, a str subclass)
// by dlpack.DType.Index. They are created by the Python package at import and
// live for the life of the process, so Go keeps only their addresses. Only the
// main interpreter can import godlpack (module.c), so they are its objects.
var dtypeObjects []*C.PyObject

// PyInit__godlpack only hands CPython the module definition (multi-phase init):
// module.c's exec function makes the module, in the main interpreter only.
//
//export PyInit__godlpack
func PyInit__godlpack() *C.PyObject {
	return C.gd_module_def_init()
}

// goProcessInit makes the Go side's process-wide state, once, from module.c's
// exec function: the C fast path's dtype table and the exchange API on the type.
// It returns -1 with a Python exception set on failure.
//
//export goProcessInit
func goProcessInit() C.int {
	fillDTypeSlots()
	if registerExchangeAPI() != nil {
		return -1
	}
	return 0
}

//export goSetDtypes
func goSetDtypes(_, seq *C.PyObject) *C.PyObject {
	items, n, release := heldItems(seq, len(dlpack.All()))
	defer release()
	if n != len(dlpack.All()) || n > C.GD_MAX_DTYPES {
		return fail(typeErrorf("_set_dtypes expects a tuple of %d dtype objects", len(dlpack.All())))
	}
	objs := make([]*C.PyObject, len(items))
	for i, it := range items {
		C.gd_incref(it) // kept for the life of the process
		objs[i] = it
		C.gd_dtype_objects[i] = it // for the C fast paths (array_fast.c, constructors_fast.c)
		d := dlpack.All()[i]
		C.gd_dtype_dl[i] = C.DLDataType{code: C.uint8_t(d.DL.Code), bits: C.uint8_t(d.DL.Bits), lanes: C.uint16_t(d.DL.Lanes)}
	}
	C.gd_default_dtype_index = C.int32_t(defaultDType.Index)
	C.gd_dtype_count = C.int32_t(len(items))
	dtypeObjects = objs
	return C.gd_none()
}

//export goDtypeTable
func goDtypeTable(_, _unused *C.PyObject) *C.PyObject {
	all := dlpack.All()
	t := C.PyTuple_New(C.Py_ssize_t(len(all)))
	if t == nil {
		return nil
	}
	for i, d := range all {
		cname := C.CString(d.Name)
		row := C.gd_build_dtype_row(cname, C.int(d.DL.Code), C.int(d.DL.Bits), C.int(d.Kind))
		C.free(unsafe.Pointer(cname))
		if row == nil {
			C.gd_decref(t)
			return nil
		}
		C.gd_tuple_set(t, C.Py_ssize_t(i), row)
	}
	return t
}

//export goNoop
func goNoop(_, _unused *C.PyObject) *C.PyObject { return C.gd_none() }
