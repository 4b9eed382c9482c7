//go:build godlpack_python

package godlpack

// #include "godlpack.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_take_exception(char **type_name, char **message, char **traceback);
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
	if C.gd_take_exception(&tn, &msg, &tb) == 0 {
		return errors.New("godlpack: internal error: a Python call failed without an exception")
	}
	e := &PythonError{Type: takeCString(tn), Message: takeCString(msg), Traceback: takeCString(tb)}
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
