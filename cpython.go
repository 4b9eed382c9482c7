//go:build godlpack_python

package godlpack

// cpython.go: this package's names for internal/cpython's errors and object helpers,
// which take the object as an unsafe.Pointer (cgo's C types are per package), and
// its C headers: the shared ones (internal/cheaders) are imported so that an edit to
// one of them rebuilds this package (cgo tracks only its own folder's files).

// #cgo CFLAGS: -I${SRCDIR}/internal/cheaders
// #include "gd_python.h"
import "C"

import (
	"unsafe"

	_ "github.com/godlpack/godlpack/internal/cheaders"
	"github.com/godlpack/godlpack/internal/cpython"
)

var (
	errPySet    = cpython.ErrPySet
	typeErrorf  = cpython.TypeErrorf
	valueErrorf = cpython.ValueErrorf
	pyCheck     = cpython.PyCheck
)

func typeName(o *C.PyObject) string { return cpython.TypeName(unsafe.Pointer(o)) }

func asInt64(o *C.PyObject, what string) (int64, error) {
	return cpython.AsInt64(unsafe.Pointer(o), what)
}
