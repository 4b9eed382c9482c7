//go:build godlpack_python

package godlpack

// #include "ext.h"
import "C"

import (
	"errors"
	"fmt"
)

// An Exception is the Python exception type an extension function's error
// becomes. A plain Go error becomes ValueError; wrap it to choose another:
//
//	return nil, godlpack.KeyError.Errorf("no column %q", name)
type Exception int32

// The exception types an error may carry (the order is ext.h's GD_EXT_EXC_*).
const (
	ValueError Exception = iota
	TypeError
	RuntimeError
	IndexError
	KeyError
	OverflowError
	ZeroDivisionError
	MemoryError
	BufferError
	NotImplementedError
	OSError
)

var exceptionNames = [...]string{"ValueError", "TypeError", "RuntimeError", "IndexError", "KeyError",
	"OverflowError", "ZeroDivisionError", "MemoryError", "BufferError", "NotImplementedError", "OSError"}

// String returns the Python name of the exception type.
func (e Exception) String() string {
	if e < 0 || int(e) >= len(exceptionNames) {
		return fmt.Sprintf("Exception(%d)", int32(e))
	}
	return exceptionNames[e]
}

// Wrap returns err as an error raising e in Python, with err's message; errors.Is
// and errors.As still see err. A nil err stays nil.
func (e Exception) Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &exceptionError{kind: e, err: err}
}

// Errorf formats an error raising e in Python (fmt.Errorf's verbs, %w included).
func (e Exception) Errorf(format string, a ...any) error {
	return &exceptionError{kind: e, err: fmt.Errorf(format, a...)}
}

type exceptionError struct {
	kind Exception
	err  error
}

func (e *exceptionError) Error() string { return e.err.Error() }
func (e *exceptionError) Unwrap() error { return e.err }

// exceptionOf is the exception type err raises: the module's exception class for
// its type (ExceptionFor), else the outermost Exception wrapping it, else ValueError.
func exceptionOf(err error) Exception {
	if e, ok := classException(err); ok {
		return e
	}
	var ee *exceptionError
	if errors.As(err, &ee) && ee.kind >= 0 && int(ee.kind) < int(C.GD_EXT_EXC_COUNT) {
		return ee.kind
	}
	// A Python exception met by Go (a conversion, a call into Python): its own type
	// when it is one of these.
	var pe *PythonError
	if errors.As(err, &pe) {
		for i, name := range exceptionNames {
			if name == pe.Type {
				return Exception(i)
			}
		}
	}
	return ValueError
}
