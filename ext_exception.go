package godlpack

// ext_exception.go: the exception types an extension function's error raises,
// and a module's own exception classes, raised for the Go errors of a type
// (errors.As). No build tag and no C: go doc shows them from a plain checkout
// (docs/decisions/untagged-go-api.md); ext_errors.go maps them for the CPython
// glue, in the order of ext.h's GD_EXT_EXC_*.

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

// An ExceptionClass is a Python exception class of the module, made by
// ExceptionFor and passed to Module.
type ExceptionClass struct {
	name, doc string
	base      Exception
	matches   func(error) bool
	index     int // in exceptionClasses: GD_EXT_EXC_COUNT + index is its Exception
	errs      []string
}

// exceptionClasses are every ExceptionFor's, in order (filled by init functions).
var exceptionClasses []*ExceptionClass

// ExceptionFor declares the exception class name of the module, a subclass of
// base (ValueError, say) with docstring doc, raised when a function's error is,
// or wraps, an E (errors.As): a Go error type becomes a Python exception users
// catch by its class, importable from the module (from mod import EmptyError).
// It takes precedence over the Exception an error is wrapped in.
func ExceptionFor[E error](name string, base Exception, doc string) *ExceptionClass {
	e := &ExceptionClass{name: name, doc: doc, base: base, index: len(exceptionClasses),
		matches: func(err error) bool {
			var target E
			return errors.As(err, &target)
		}}
	if !validIdentifier(name) {
		e.errs = append(e.errs, name+": not a valid Python class name")
	}
	if base < 0 || int(base) >= int(extExcCount) {
		e.errs = append(e.errs, name+": the base must be one of godlpack's Exception constants")
	}
	if e.index >= extMaxExceptions {
		e.errs = append(e.errs, name+": too many exception classes")
	}
	exceptionClasses = append(exceptionClasses, e)
	return e
}

// classException is the module's exception class for err, if one matches.
func classException(err error) (Exception, bool) {
	for _, e := range exceptionClasses {
		if e.matches(err) {
			return Exception(int(extExcCount) + e.index), true
		}
	}
	return 0, false
}
