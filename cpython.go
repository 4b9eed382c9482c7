//go:build godlpack_python

package godlpack

// cpython.go: this package's names for internal/cpython's errors and object helpers,
// which take the object as an unsafe.Pointer (cgo's C types are per package), the
// PythonError a failed Python call becomes, the deprecated Start and Finalize's
// Python side (embed_api.go), and
// its C headers: the shared ones (internal/cheaders) are imported so that an edit to
// one of them rebuilds this package (cgo tracks only its own folder's files).

// #cgo CFLAGS: -I${SRCDIR}/internal/cheaders
// #include "gd_python.h"
import "C"

import (
	"errors"
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

// The errors of pyembed.Start are PythonErrors, as this package's calls' are.
func init() { cpython.SetErrorMaker(takePythonError) }

// start and finalize are the deprecated Start and Finalize (embed_api.go) with Python.
func start(cfg Config) error { return cpython.Start(cfg.Python) }
func finalize() error        { return cpython.Finalize() }

// takePythonError takes the pending Python exception (GIL held) as a *PythonError.
func takePythonError() error {
	// The exception object is kept (PythonError.raised) only where Python hosts this
	// library: the call raises that very exception again (ext_call.go).
	e, ok := cpython.TakeException(cpython.CurrentState() == cpython.Hosted)
	if !ok {
		return errors.New("godlpack: internal error: a Python call failed without an exception")
	}
	pe := &PythonError{Type: e.Type, Message: e.Message, Traceback: e.Traceback,
		raised: newObject((*C.PyObject)(e.Object))}
	if pe.Type == "" {
		pe.Type = "Exception"
	}
	return pe
}
