package godlpack

// object_api.go: Object, a Python object held from Go, and its methods; WithGIL and
// its GIL; PythonError, what a Python exception becomes in Go. No build tag and no
// C: go doc and gopls show them from a plain checkout
// (docs/decisions/untagged-go-api.md). The bodies are object.go's,
// object_convert.go's and gil.go's, with Python; built without it (ext_nopython.go),
// each returns ErrNoPython.

import (
	"errors"
	"runtime"
	"sync/atomic"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// An Object is a reference to a Python object, held from Go. Close drops it; an
// Object dropped without Close is released by a cleanup at the next call into
// Python after the collector finds it. Its methods may be called from any goroutine
// (each takes the GIL); Close may race with them: the calls that lose get ErrClosed.
//
// An Object that is an argument of an extension function (a *Object parameter, or
// one in a list or dict parameter) is the call's: it is released when the call
// returns, and its methods return an error wrapping ErrClosed afterwards, unless
// the function keeps it (Keep) to use it later.
//
// A module or attribute name holding a NUL (Import, Attr, SetAttr, CallMethod) is
// Python's ValueError "embedded null character", never the name cut at the NUL.
type Object struct {
	p       atomic.Pointer[pyObject] // nil once closed
	cleanup runtime.Cleanup
	lease   *argLease // an argument's (ext_lend.go); nil for every other Object
}

// ErrClosed is returned by the methods of a closed Object.
var ErrClosed = errors.New("godlpack: the Object was closed")

// Kw passes keyword arguments: as the last argument of Call or CallMethod,
// o.Call(x, godlpack.Kw{"dim": 1}) is Python's o(x, dim=1).
type Kw map[string]any

// Close drops the reference. Closing twice, a nil Object, or after Finalize, does nothing.
func (o *Object) Close() { o.pyClose() }

// Keep keeps o, an argument of the running call, alive after the call returns,
// until Close (or, dropped without Close, until the collector finds it). Without
// it an argument is released when its call returns, as a C extension releases its
// arguments, so that a Go value storing it must keep it:
//
//	func (n *Node) SetData(data *godlpack.Object) (err error) {
//		n.data, err = data.Keep()
//		return err
//	}
//
// Call it during the call, from any goroutine; afterwards it returns an error
// wrapping ErrClosed. Keep returns any other Object (Import's, Call's results,
// FromGo's, a kept one) as it is: those live until Close anyway.
func (o *Object) Keep() (*Object, error) { return o, o.keep() }

// Import imports a Python module, as Python's import statement does.
func Import(name string) (*Object, error) { return importModuleObject(name) }

// Attr returns the attribute name of o, as o.name in Python.
func (o *Object) Attr(name string) (*Object, error) { return o.pyAttr(name) }

// SetAttr sets the attribute name of o to value converted (see FromGo).
func (o *Object) SetAttr(name string, value any) error { return o.pySetAttr(name, value) }

// Call calls o with args converted from Go (see FromGo); a last argument of type
// Kw gives the keyword arguments. A *tensor.Tensor argument moves into Python (as
// Export does: the Go Tensor is ended, even if the call fails) and arrives as a
// godlpack.Array over its memory, without a copy.
func (o *Object) Call(args ...any) (*Object, error) { return o.pyCall(args...) }

// CallMethod calls o's method name, as o.name(*args, **kw) in Python.
func (o *Object) CallMethod(name string, args ...any) (*Object, error) {
	return o.pyCallMethod(name, args...)
}

// Item returns o[key].
func (o *Object) Item(key any) (*Object, error) { return o.pyItem(key) }

// SetItem sets o[key] = value.
func (o *Object) SetItem(key, value any) error { return o.pySetItem(key, value) }

// String returns str(o), or a description of why it could not be had.
func (o *Object) String() string { return o.pyString() }

// IsNone reports whether o is Python's None (false for a closed Object).
func (o *Object) IsNone() bool { return o.pyIsNone() }

// FromGo converts a Go value to a new Python object: nil and None to None; bool;
// the int and uint types to int; float32, float64 to float; complex64, complex128
// to complex; string to str (UTF-8); []byte to bytes; Tuple to tuple; []any to
// list; map[string]any and Kw to dict (values converted alike); *Object to itself;
// *tensor.Tensor to a godlpack.Array over its memory, without a copy: the Tensor
// moves into Python (as Export, it is ended here; its memory lives until Python
// drops the Array, a FromSlice tensor's slice pinned until then). A value nested
// more than 100 deep, as one holding itself is (a map[string]any that is its own
// item), is Python's TypeError.
func FromGo(v any) (*Object, error) { return fromGo(v) }

// Int returns o as an int64: anything with __index__ (int, NumPy integers);
// OverflowError beyond int64.
func (o *Object) Int() (int64, error) { return o.pyInt() }

// Float returns o as a float64: anything with __float__ (or __index__).
func (o *Object) Float() (float64, error) { return o.pyFloat() }

// Bool returns o as a bool: o must be True or False (TypeError otherwise, as an
// extension's bool parameter; Python's truth of other objects is not guessed).
func (o *Object) Bool() (bool, error) { return o.pyBool() }

// Str returns the value of a str (TypeError for other objects: String gives str(o)).
func (o *Object) Str() (string, error) { return o.pyStr() }

// Bytes returns a copy of a bytes object's contents.
func (o *Object) Bytes() ([]byte, error) { return o.pyBytes() }

// Tensor returns o's tensor, without a copy: o is a godlpack.Array or any DLPack
// producer (torch.Tensor, numpy.ndarray, JAX...), imported as godlpack.from_dlpack
// imports it. The Tensor keeps the producer's memory alive until Close (or its
// finalizer), which needs no GIL; dtype, shape, strides and the read-only flag are
// the producer's.
func (o *Object) Tensor() (*tensor.Tensor, error) { return o.pyTensor() }

// Go converts o to a Go value: None to nil, bool, int to int64, float to float64,
// str to string, bytes to []byte, tuple and list to []any, dict with str keys to
// map[string]any (items converted alike). Other objects: TypeError (hold them as
// *Object; Tensor takes a tensor).
func (o *Object) Go() (any, error) { return o.pyGo() }

// ErrNoPython is returned, in a build without Python (go test, go run: no
// godlpack_python build tag, which godlpack's build backend sets), by what needs
// an interpreter: Object's methods, Import, FromGo, Start, Tensor.Keep.
var ErrNoPython = errors.New("godlpack: built without Python (no godlpack_python build tag): " +
	"Objects, Start and Keep need an interpreter; in a go test, call an extension's functions with Function.Call")

// ---- WithGIL, several calls into Python under one hold of the GIL, and the calls
// that convert their result in the same entry (CallInt, CallFloat, CallTensor); the
// bodies are gil.go's and object.go's, with Python.

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

// ---- The error a Python exception becomes in Go; cpython.go takes the exception,
// with Python.

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
