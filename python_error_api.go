package godlpack

// python_error_api.go: the error a Python exception becomes in Go. No build tag
// and no C: go doc shows it from a plain checkout
// (docs/decisions/untagged-go-api.md); cpython.go takes the exception, with
// Python.

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
