//go:build godlpack_python

package cpython

// exception.go: a pending Python exception taken apart for Go (godlpack's
// PythonError is made from it).

// #include "gd_python.h"
// int gd_take_exception(char **type_name, char **message, char **traceback, PyObject **keep);
import "C"

import (
	"errors"
	"sync/atomic"
	"unsafe"
)

// Exception is a Python exception as Go reads it.
type Exception struct {
	Type      string         // "ValueError", or module.QualName outside builtins
	Message   string         // str() of the exception
	Traceback string         // traceback.format_exception's lines, joined
	Object    unsafe.Pointer // the exception object (a new reference) when asked for, else nil
}

// TakeException takes the pending exception (GIL held), clearing it; keep asks for
// the exception object too. ok is false when none was set.
func TakeException(keep bool) (e Exception, ok bool) {
	var tn, msg, tb *C.char
	var exc *C.PyObject
	var into **C.PyObject
	if keep {
		into = &exc
	}
	if C.gd_take_exception(&tn, &msg, &tb, into) == 0 {
		return Exception{}, false
	}
	return Exception{Type: takeCString(tn), Message: takeCString(msg), Traceback: takeCString(tb),
		Object: unsafe.Pointer(exc)}, true
}

// TakeError takes the pending exception (GIL held) as the error Go code sees: the
// root package's *godlpack.PythonError once it has set its maker (SetErrorMaker, at
// its init: every program of godlpack links it), else "Type: Message".
func TakeError() error {
	if mk := errorMaker.Load(); mk != nil {
		return (*mk)()
	}
	e, ok := TakeException(false)
	if !ok {
		return errors.New("godlpack: internal error: a Python call failed without an exception")
	}
	return errors.New(e.Type + ": " + e.Message)
}

var errorMaker atomic.Pointer[func() error]

// SetErrorMaker makes mk what TakeError returns.
func SetErrorMaker(mk func() error) { errorMaker.Store(&mk) }
