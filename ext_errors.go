//go:build godlpack_python

package godlpack

// #include "ext.h"
import "C"

import "errors"

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
