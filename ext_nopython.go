//go:build !godlpack_python

package godlpack

// ext_nopython.go: the package built without Python (no godlpack_python tag: go
// doc, gopls, go vet, an extension's go test). The declarations and their rules
// are the same files as in the extension; here the C calls of ext_cpython.go and
// the Object methods have Go stand-ins: a call's arguments and results live in Go
// memory (Function.Call), and what needs an interpreter returns ErrNoPython.

import (
	"reflect"
	"runtime/cgo"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// argString is a str argument's text.
func argString(a *extArg) string { return unsafe.String(a.s, a.slen) }

// keepArg: Keep takes the producer's memory from Python, which there is none of.
func keepArg(*extArg) (unsafe.Pointer, error) { return nil, ErrNoPython }

// newTuple makes res a tuple of n items, zeroed (Go memory).
func newTuple(res *extResult, n int) ([]extResult, error) {
	items := make([]extResult, max(n, 1))
	res.kind, res.p, res.n = extRTuple, unsafe.Pointer(&items[0]), cInt64(n)
	return items[:n], nil
}

// cBytes is a copy of s (Go memory; nil for "").
func cBytes(s string) unsafe.Pointer { return unsafe.Pointer(unsafe.StringData(strings.Clone(s))) }

// writeStr writes s as a str result.
func writeStr(r *extResult, s string) { r.kind, r.p, r.n = extRStr, cBytes(s), cInt64(len(s)) }

// writeNumPySmall writes nothing: without Python an array result is a tensor.
func writeNumPySmall(*extResult, unsafe.Pointer, int, int, int64) bool { return false }

// writeError replaces r with an error result (Go memory: nothing to free).
func writeError(r *extResult, kind Exception, msg string) {
	r.kind, r.exc, r.p, r.n = extRError, cInt32(kind), cBytes(msg), cInt64(len(msg))
}

// writeObject keeps a result that Python would get as an object (a list, a dict,
// bytes, a complex, an *Object) as the Go value itself, by handle (Function.Call
// takes it back).
func writeObject(v reflect.Value, r *extResult) error {
	r.kind, r.i = extRObject, cInt64(cgo.NewHandle(v.Interface()))
	return nil
}

// writeSeq keeps an iterator result as the Go iterator itself (iter.Seq,
// iter.Seq2: Function.Call returns it to range over).
func writeSeq(_ *pulledSeq, v reflect.Value, r *extResult) error { return writeObject(v, r) }

// objectArg is the Go value Function.Call passed for an object parameter (a.i,
// its handle), as the parameter's type; absent (a.obj nil): the default.
func objectArg(f *Function, p *param, a *extArg) (reflect.Value, error) {
	if a.obj == nil {
		return p.defaultValue(), nil
	}
	v := reflect.ValueOf(cgo.Handle(a.i).Value())
	if w, ok := goValueAs(v, p.goType); ok {
		return w, nil
	}
	return reflect.Value{}, TypeError.Errorf("%s(): argument %s: expected %s, got a Go %v", f.name, p.name, pyTypeName(p.goType), v.Type())
}

// goValueAs is a Go test's argument v as a value of type t, the rule of objectArg
// (and of **kwargs's values): nil is t's zero value, a value assignable to t is
// itself, one of the same kind converts; false for any other.
func goValueAs(v reflect.Value, t reflect.Type) (reflect.Value, bool) {
	switch {
	case !v.IsValid():
		return reflect.Zero(t), true
	case v.Type().AssignableTo(t):
		return v, true
	case v.Type().ConvertibleTo(t) && v.Kind() == t.Kind():
		return v.Convert(t), true
	}
	return reflect.Value{}, false
}

// lendArg: a callback parameter's Go func, or a value holding *Objects, which
// Function.Call passes as it is (objectArg's rule); nothing is lent.
func lendArg(f *Function, p *param, a *extArg, _ *callScope) (reflect.Value, error) {
	return objectArg(f, p, a)
}

// openScope: a go test's call lends no Python objects.
func openScope(*Function, int32) *callScope { return nil }

func (s *callScope) close() {}

// keepForeignFunc: Function.Call passes the test's own funcs, which need no keeping.
func keepForeignFunc() error { return nil }

// The Object methods: there is no interpreter to hold objects of.
func (o *Object) pyClose()                                     {}
func importModuleObject(string) (*Object, error)               { return nil, ErrNoPython }
func (o *Object) pyAttr(string) (*Object, error)               { return nil, ErrNoPython }
func (o *Object) pySetAttr(string, any) error                  { return ErrNoPython }
func (o *Object) pyCall(...any) (*Object, error)               { return nil, ErrNoPython }
func (o *Object) pyCallMethod(string, ...any) (*Object, error) { return nil, ErrNoPython }
func (o *Object) pyItem(any) (*Object, error)                  { return nil, ErrNoPython }
func (o *Object) pySetItem(any, any) error                     { return ErrNoPython }
func (o *Object) pyString() string                             { return "<godlpack.Object: " + ErrNoPython.Error() + ">" }
func (o *Object) pyIsNone() bool                               { return false }
func fromGo(any) (*Object, error)                              { return nil, ErrNoPython }
func (o *Object) pyInt() (int64, error)                        { return 0, ErrNoPython }
func (o *Object) pyFloat() (float64, error)                    { return 0, ErrNoPython }
func (o *Object) pyBool() (bool, error)                        { return false, ErrNoPython }
func (o *Object) pyStr() (string, error)                       { return "", ErrNoPython }
func (o *Object) pyBytes() ([]byte, error)                     { return nil, ErrNoPython }
func (o *Object) pyTensor() (*tensor.Tensor, error)            { return nil, ErrNoPython }
func (o *Object) pyCapsuleTensor() (*tensor.Tensor, error)     { return nil, ErrNoPython }
func (o *Object) pyGo() (any, error)                           { return nil, ErrNoPython }

// WithGIL and the one-entry calls (object_api.go): there is no interpreter to enter.
func withGILScope(func(*GIL) error) error                          { return ErrNoPython }
func (py *GIL) call(*Object, []any) (*Object, error)               { return nil, ErrNoPython }
func (py *GIL) callMethod(*Object, string, []any) (*Object, error) { return nil, ErrNoPython }
func (py *GIL) attr(*Object, string) (*Object, error)              { return nil, ErrNoPython }
func (py *GIL) int(*Object) (int64, error)                         { return 0, ErrNoPython }
func (py *GIL) float(*Object) (float64, error)                     { return 0, ErrNoPython }
func (py *GIL) tensor(*Object) (*tensor.Tensor, error)             { return nil, ErrNoPython }
func (py *GIL) goValue(*Object) (any, error)                       { return nil, ErrNoPython }
func (py *GIL) close(*Object)                                      {}
func (o *Object) pyCallInt([]any) (int64, error)                   { return 0, ErrNoPython }
func (o *Object) pyCallFloat([]any) (float64, error)               { return 0, ErrNoPython }
func (o *Object) pyCallTensor([]any) (*tensor.Tensor, error)       { return nil, ErrNoPython }

// start and finalize: there is no libpython to start.
func start(Config) error { return ErrNoPython }
func finalize() error    { return ErrNoPython }

// gilReleases: no call has released a GIL.
func gilReleases() int64 { return 0 }
