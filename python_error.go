//go:build godlpack_python

package godlpack

// #include "godlpack.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_take_exception(char **type_name, char **message, char **traceback, PyObject **keep);
import "C"

import (
	"errors"
	"unsafe"
)

// A PythonError is a Python exception raised by code Go called: its type, message
// and traceback, taken when it was raised (the exception object itself is not kept,
// so the error outlives the interpreter).
type PythonError struct {
	// Type is the exception's type as Python prints it: "ValueError", or
	// "module.QualName" for types outside builtins ("torch.OutOfMemoryError").
	Type string
	// Message is str() of the exception.
	Message string
	// Traceback is the whole report Python would print, "Traceback (most recent call
	// last):" to the last line, chained exceptions included.
	Traceback string

	// raised is the exception object itself, kept only in an extension (a Go
	// function called from Python), so that the call raises that very exception
	// again, with its traceback (ext_call.go); nil in a Go program embedding Python.
	raised *Object
}

// Error returns "Type: Message", as Python's last traceback line.
func (e *PythonError) Error() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// takePythonError takes the pending Python exception (GIL held) as a *PythonError.
func takePythonError() error {
	var tn, msg, tb *C.char
	var exc *C.PyObject
	keep := &exc
	if interpState.Load() != interpHosted {
		keep = nil
	}
	if C.gd_take_exception(&tn, &msg, &tb, keep) == 0 {
		return errors.New("godlpack: internal error: a Python call failed without an exception")
	}
	e := &PythonError{Type: takeCString(tn), Message: takeCString(msg), Traceback: takeCString(tb), raised: newObject(exc)}
	if e.Type == "" {
		e.Type = "Exception"
	}
	return e
}

// takeCString returns a malloc'd C string as a Go string and frees it ("" for NULL).
func takeCString(p *C.char) string {
	if p == nil {
		return ""
	}
	s := C.GoString(p)
	C.free(unsafe.Pointer(p))
	return s
}
