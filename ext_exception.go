package godlpack

// ext_exception.go: the exception types an extension function's error raises.
// No build tag and no C: go doc shows them from a plain checkout
// (docs/decisions/untagged-go-api.md); ext_errors.go maps them for the CPython
// glue, in the order of ext.h's GD_EXT_EXC_*.

import "fmt"

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
