//go:build godlpack_python

// Package cpython is the raw CPython glue that godlpack's cgo packages share, as
// pyo3-ffi is pyo3's: Go errors raised as Python exceptions (errors.go), small
// helpers over objects (objects.go), the interpreter's state and the GIL taken from
// any goroutine (interp.go), an interpreter embedded in a Go program (embed.go), a
// pending exception taken apart for Go (exception.go), the DLPack capsule protocol's
// consume rule (capsule.go), NumPy arrays lent by their fields (numpy_lend.c) and
// immortal objects (immortal.c).
//
// cgo gives every package its own C types (C.PyObject here is not the root
// package's C.PyObject), so what crosses a package boundary is an unsafe.Pointer
// to the C object, never a C.* type; the C functions other packages' C code calls
// are declared in internal/cheaders/gd_python.h.
//
// Built without the godlpack_python tag (no Python's headers), the package holds
// only doc.go.
package cpython

// #cgo CFLAGS: -I${SRCDIR}/../cheaders
// #include "gd_python.h"
import "C"

import _ "github.com/godlpack/godlpack/internal/cheaders" // header edits rebuild this package
