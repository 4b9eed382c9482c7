package godlpack

// ext_result.go: how a function's Go result is written for C to build the Python
// result. No build tag and no C (ext_cpython.go has the C memory).

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// None is the result type of a function that returns None to Python.
type None struct{}

// Tuple is a result returned to Python as a tuple; its items are any of the
// result types.
type Tuple []any

// resultWriter chooses, once, how f's result R is written for C to build: nil
// for None, which needs nothing written (write makes no call then).
func resultWriter[R any](f *Function) func(R, *extResult) error {
	var zero R
	var w any
	f.result = reflect.TypeFor[R]()
	switch any(zero).(type) {
	case None:
		return nil
	case *tensor.Tensor:
		w = writeTensor
	case float64:
		w = func(v float64, r *extResult) error {
			r.kind, r.f = extRFloat, cDouble(v)
			return nil
		}
	case int64:
		w = func(v int64, r *extResult) error {
			r.kind, r.i = extRInt, cInt64(v)
			return nil
		}
	case int:
		w = func(v int, r *extResult) error {
			r.kind, r.i = extRInt, cInt64(v)
			return nil
		}
	case bool, string, Tuple:
		w = func(v R, r *extResult) error { return writeValue(any(v), r) }
	default:
		if t := reflect.TypeFor[R](); isInstanceType(t) { // a bound class's *T: a new instance
			f.classTypes = append(f.classTypes, t) // its class is resolved at import
			iw := instancePointerWriter(t)
			w = func(v R, r *extResult) error {
				p := *(*unsafe.Pointer)(unsafe.Pointer(&v)) // R is a pointer type (isInstanceType)
				if p == nil {
					return nil // None
				}
				return iw(p, r)
			}
			break
		}
		if t := reflect.TypeFor[R](); t.Kind() != reflect.Interface || t.NumMethod() != 0 {
			f.fail("unsupported result type %v (use *tensor.Tensor, None, int64, int, float64, bool, string, Tuple, a bound class's *T or any)", t)
		}
		w = func(v R, r *extResult) error { return writeValue(any(v), r) }
	}
	return w.(func(R, *extResult) error)
}

// write writes r with w, a resultWriter's (nil: None, nothing to write).
func write[R any](w func(R, *extResult) error, r R, res *extResult) error {
	if w == nil {
		return nil
	}
	return w(r, res)
}

func writeTensor(t *tensor.Tensor, r *extResult) error {
	if t == nil {
		return nil // None
	}
	m, err := t.Export() // C memory, handed to the new godlpack.Array
	if err != nil {
		return err
	}
	r.kind, r.p = extRArray, m
	return nil
}

// writeValue writes a result whose type is known only now (Tuple items, any).
func writeValue(v any, r *extResult) error { return writeValueAt(v, r, 0) }

// writeValueAt is writeValue of a Tuple's item depth tuples deep: a Tuple holding
// itself is refused at maxDepth.
func writeValueAt(v any, r *extResult, depth int) error {
	if depth > maxDepth {
		return errTooDeepResult
	}
	switch v := v.(type) {
	case nil, None:
		return nil
	case *tensor.Tensor:
		return writeTensor(v, r)
	case float64:
		r.kind, r.f = extRFloat, cDouble(v)
	case float32:
		r.kind, r.f = extRFloat, cDouble(v)
	case int:
		r.kind, r.i = extRInt, cInt64(v)
	case int64:
		r.kind, r.i = extRInt, cInt64(v)
	case int32:
		r.kind, r.i = extRInt, cInt64(v)
	case bool:
		r.kind, r.i = extRBool, 0
		if v {
			r.i = 1
		}
	case string:
		r.kind, r.p, r.n = extRStr, cBytes(v), cInt64(len(v))
	case Tuple:
		items, err := newTuple(r, len(v))
		if err != nil {
			return err
		}
		for i, item := range v {
			if err := writeValueAt(item, &items[i], depth+1); err != nil {
				return err // the caller frees r, the items written so far included
			}
		}
	default:
		if _, ok := boundClasses[reflect.TypeOf(v)]; ok { // a bound class's *T: its instance
			return instanceWriter(reflect.TypeOf(v))(reflect.ValueOf(v), r)
		}
		// complex, []byte, []any, map[string]any, *Object: made in Go with the GIL
		return writeObject(reflect.ValueOf(v), r)
	}
	return nil
}

// maxDepth bounds the recursion of the conversions both ways (toGo, fromPython,
// toPython, plainValue, writeValueAt): a list or map holding itself must not
// overflow the stack.
const maxDepth = 100

// tooDeep says why a value nested past maxDepth is refused, either way.
var tooDeep = fmt.Sprintf("nested more than %d deep (or a container holding itself)", maxDepth)

// The TypeErrors of a value too deep for an extension function's results and
// arguments, one value each, so that the levels it passes back through (itemError)
// do not name their item a hundred times (object_convert.go has Object's).
var (
	errTooDeepResult = TypeError.Errorf("cannot pass a Go value %s to Python", tooDeep)
	errTooDeepArg    = TypeError.Errorf("cannot convert a Python value %s to Go", tooDeep)
)

// refuseBorrowed turns a result that is one of the call's borrowed tensors (an
// argument's AsTensor(), exported) into an error: its memory is the call's.
func refuseBorrowed(f *Function, args []extArg, r *extResult) {
	switch r.kind {
	case extRArray:
		for i := range args {
			if r.p == unsafe.Pointer(&args[i].m) {
				r.p = nil // not ours to delete
				writeError(r, ValueError, fmt.Sprintf("%s(): returned its borrowed argument %s; return a copy (Clone) or the tensor of Keep", f.name, f.paramOf(i).name))
				return
			}
		}
	case extRTuple:
		items := unsafe.Slice((*extResult)(r.p), int(r.n))
		for i := range items {
			refuseBorrowed(f, args, &items[i])
			if items[i].kind == extRError {
				msg := strings.Clone(unsafe.String((*byte)(items[i].p), int(items[i].n)))
				writeError(r, ValueError, msg)
				return
			}
		}
	}
}

// A Framework is an array library whose arrays a function may return
// (Function.ResultIn).
type Framework int32

// The frameworks (ext.h's GD_EXT_FW_*).
const (
	GodlpackArrays Framework = iota // godlpack.Array: the default
	NumPy                           // numpy.ndarray
	PyTorch                         // torch.Tensor
	JAX                             // jax.Array
)

// ResultIn returns the function's arrays (a *tensor.Tensor result, or those of
// a Tuple) as arrays of fw, made by its from_dlpack from the godlpack.Array:
// zero-copy (JAX may copy memory it cannot use in place), the memory owned by
// the result.
func (f *Function) ResultIn(fw Framework) *Function {
	if fw < GodlpackArrays || fw > JAX {
		f.fail("ResultIn(%d): not a Framework", fw)
	}
	f.resultFw = cInt32(fw)
	return f
}

// ResultLike returns the function's arrays in the framework of the argument of
// parameter name: a numpy.ndarray for NumPy's, a torch.Tensor for PyTorch's, a
// jax.Array for JAX's, else (a godlpack.Array, a capsule, another producer, an
// absent optional one) a godlpack.Array. As ResultIn, zero-copy.
func (f *Function) ResultLike(name string) *Function {
	for i, p := range f.params {
		if p.name == name {
			f.resultLike = i
			return f
		}
	}
	f.fail("ResultLike: no parameter named %q", name)
	return f
}
