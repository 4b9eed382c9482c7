package godlpack

// ext_exception_class.go: a module's own exception classes, raised for the Go
// errors of a type (errors.As).

import (
	"errors"
)

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
