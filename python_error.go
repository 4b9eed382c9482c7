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
