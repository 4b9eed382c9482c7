//go:build godlpack_python

// Command extension is the CPython extension module godlpack._godlpack:
// internal/arraymodule built with -buildmode=c-shared. build.py builds this
// package with the build tag godlpack_python and the target interpreter's headers,
// into pyext/godlpack/_godlpack*.so (in place) or a wheel. Its one job is the
// module's entry point; everything else, the //export functions and C of the
// packages it links included, comes from the import.
package main

import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/internal/arraymodule"
)

// A c-shared build needs a main function, which is never called.
func main() {}

// PyInit__godlpack only hands CPython the module definition (multi-phase init).
// It returns a PyObject*; void* in C is the same in the ABI.
//
//export PyInit__godlpack
func PyInit__godlpack() unsafe.Pointer {
	return arraymodule.ModuleDef()
}
