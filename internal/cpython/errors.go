//go:build godlpack_python

package cpython

// errors.go: Go errors that become Python exceptions. An error of a Kind raises
// that built-in exception with its message; the errors of the dlpack core map to
// the exception types the DLPack spec and NumPy use (SetError).

// #include "gd_python.h"
// #include <stdlib.h>
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// Kind is the built-in exception type an Error raises (gd_python.h's GD_ERR_*).
type Kind C.int

// The kinds.
const (
	TypeError     Kind = C.GD_ERR_TYPE
	ValueError    Kind = C.GD_ERR_VALUE
	BufferError   Kind = C.GD_ERR_BUFFER
	IndexError    Kind = C.GD_ERR_INDEX
	OverflowError Kind = C.GD_ERR_OVERFLOW
	MemoryError   Kind = C.GD_ERR_MEMORY
	RuntimeError  Kind = C.GD_ERR_RUNTIME
)

// Error is a Go error that becomes a Python exception of a given kind.
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// ErrPySet means a Python exception is already set and must simply propagate.
var ErrPySet = errors.New("python exception set")

// TypeErrorf and the others format an Error of their kind.
func TypeErrorf(format string, a ...any) error { return &Error{TypeError, fmt.Sprintf(format, a...)} }

// ValueErrorf formats a ValueError.
func ValueErrorf(format string, a ...any) error {
	return &Error{ValueError, fmt.Sprintf(format, a...)}
}

// BufferErrorf formats a BufferError.
func BufferErrorf(format string, a ...any) error {
	return &Error{BufferError, fmt.Sprintf(format, a...)}
}

// IndexErrorf formats an IndexError.
func IndexErrorf(format string, a ...any) error {
	return &Error{IndexError, fmt.Sprintf(format, a...)}
}

// OverflowErrorf formats an OverflowError.
func OverflowErrorf(format string, a ...any) error {
	return &Error{OverflowError, fmt.Sprintf(format, a...)}
}

// MemoryErrorf formats a MemoryError.
func MemoryErrorf(format string, a ...any) error {
	return &Error{MemoryError, fmt.Sprintf(format, a...)}
}

// SetError sets the Python exception that err stands for (GIL held).
func SetError(err error) {
	if err == ErrPySet {
		if C.PyErr_Occurred() == nil {
			Raise(RuntimeError, "godlpack: internal error: lost Python exception")
		}
		return
	}
	var pe *Error
	var re *dlpack.RangeError
	var te *dlpack.TypeError
	var ve *dlpack.ValidationError
	switch {
	case errors.As(err, &pe):
		Raise(pe.Kind, pe.Msg)
	case errors.As(err, &re) && re.NotANumber:
		Raise(ValueError, re.Msg) // int(float("nan")) is a ValueError too
	case errors.As(err, &re):
		Raise(OverflowError, re.Msg)
	case errors.As(err, &te):
		Raise(TypeError, te.Msg)
	case errors.As(err, &ve) && ve.Field == "device":
		// The fix that works from Python: the producer copies when asked (its
		// __dlpack__(dl_device=...)), which from_dlpack's device= does.
		Raise(BufferError, ve.Error()+"; godlpack.from_dlpack(x, device=(1, 0)) (or "+
			"asarray(x, device='cpu')) asks the producer x for that copy (a bare capsule "+
			"cannot be asked: take it from x.__dlpack__(dl_device=(1, 0)))")
	case errors.As(err, &ve):
		Raise(BufferError, ve.Error())
	default:
		Raise(RuntimeError, err.Error())
	}
}

// Raise sets a Python exception of kind with msg (GIL held).
func Raise(kind Kind, msg string) {
	cs := C.CString(msg)
	C.gd_raise(C.int(kind), cs)
	C.free(unsafe.Pointer(cs))
}

// PyCheck turns a pending Python exception into ErrPySet.
func PyCheck() error {
	if C.PyErr_Occurred() != nil {
		return ErrPySet
	}
	return nil
}
