package godlpack

// gil_api.go: WithGIL, several calls into Python under one hold of the GIL, and the
// calls that convert their result in the same entry (CallInt, CallFloat,
// CallTensor). No build tag and no C (docs/decisions/untagged-go-api.md); the
// bodies are gil_scope.go's and object_fastcall.go's, with Python.

import "github.com/godlpack/godlpack/dlpack/tensor"

// A GIL is Python's global interpreter lock held by the goroutine running the
// function WithGIL was given: its methods do what Object's do, without taking the
// GIL again. It is valid only inside that function and on its goroutine; used
// after the function returns, its methods return an error.
type GIL struct {
	held bool
}

// WithGIL runs f with the GIL held, once, on the calling goroutine (locked to its
// OS thread meanwhile), as pyo3's Python::with_gil does: each of Object's methods
// takes and releases the GIL itself (~100-200 ns each), so a sequence of them
// (a call, its result's conversion, its Close) is faster under one hold through
// py's methods. f's error is WithGIL's; a Python exception raised in f's calls is a
// *PythonError, returned by the call that raised it. WithGIL may be nested, and
// called from a function of an extension or a callback; before pyembed.Start, or
// after Finalize, it returns ErrNotStarted without running f.
//
// Keep f short: while it runs, no other goroutine's call into Python proceeds
// (on a free-threaded Python, f holds the thread's attachment instead).
func WithGIL(f func(py *GIL) error) error { return withGILScope(f) }

// Call calls o, as o.Call does.
func (py *GIL) Call(o *Object, args ...any) (*Object, error) { return py.call(o, args) }

// CallMethod calls o's method name, as o.CallMethod does.
func (py *GIL) CallMethod(o *Object, name string, args ...any) (*Object, error) {
	return py.callMethod(o, name, args)
}

// Attr returns o's attribute name, as o.Attr does.
func (py *GIL) Attr(o *Object, name string) (*Object, error) { return py.attr(o, name) }

// Int returns o as an int64, as o.Int does.
func (py *GIL) Int(o *Object) (int64, error) { return py.int(o) }

// Float returns o as a float64, as o.Float does.
func (py *GIL) Float(o *Object) (float64, error) { return py.float(o) }

// Tensor returns o's tensor without a copy, as o.Tensor does.
func (py *GIL) Tensor(o *Object) (*tensor.Tensor, error) { return py.tensor(o) }

// Go converts o to a Go value, as o.Go does.
func (py *GIL) Go(o *Object) (any, error) { return py.goValue(o) }

// Close drops o's reference, as o.Close does, without taking the GIL again.
func (py *GIL) Close(o *Object) { py.close(o) }

// CallInt calls o and returns its result as an int64 (see Int), in one entry into
// Python: no Object is made for the result. The fast way to call a Python function
// for a number; errors are Call's and Int's.
func (o *Object) CallInt(args ...any) (int64, error) { return o.pyCallInt(args) }

// CallFloat calls o and returns its result as a float64 (see Float), in one entry
// into Python.
func (o *Object) CallFloat(args ...any) (float64, error) { return o.pyCallFloat(args) }

// CallTensor calls o and returns its result's tensor without a copy (see Tensor),
// in one entry into Python: the result (a torch.Tensor, a numpy.ndarray, any
// DLPack producer) lives on in the Tensor, whose Close releases it.
func (o *Object) CallTensor(args ...any) (*tensor.Tensor, error) { return o.pyCallTensor(args) }
