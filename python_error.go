//go:build godlpack_python

package godlpack

// #include "gd_python.h"
import "C"

import (
	"errors"

	"github.com/godlpack/godlpack/internal/cpython"
)

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
