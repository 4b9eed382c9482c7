//go:build godlpack_python

package godlpack

// object_fastcall.go: the calls that convert their result in the same entry into
// Python (CallInt, CallFloat, CallTensor: gil_api.go), and the path of a call with no
// argument or one number in ONE cgo call (gd_fast_call, object_call.c), which Call and
// WithGIL's Call take too.

// #include "object_call.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
)

// callResult calls o with args and hands its result to take (GIL held), in one entry
// into Python; the result is released after take unless take took it (kept).
func (o *Object) callResult(args []any, take func(r *C.PyObject) (kept bool, err error)) error {
	return o.with(func(p *C.PyObject) error {
		r, err := callObject(p, args)
		if err != nil {
			return err
		}
		kept, err := take(r)
		if !kept {
			C.gd_decref(r)
		}
		return err
	})
}

// fastResult is what gd_fast_call made: the value of the kind asked, or its result
// to convert (convert: not the exact type asked, as a NumPy integer for CallInt).
type fastResult struct {
	i       int64
	f       float64
	obj     *C.PyObject // GD_FAST_OBJECT's result, or the one to convert: a new reference
	convert bool
}

// fastCall is the call of o with args in one cgo call (gd_fast_call, object_call.c),
// where it applies: no argument or one int or float64, an Object not lent by a
// running call (whose rules withGILFor checks), and no queued references to drop.
// handled false: the caller takes the general path. py: the GIL WithGIL holds
// (valid), or nil: the call takes it.
func (o *Object) fastCall(py *GIL, args []any, kind C.int) (v fastResult, handled bool, err error) {
	if o == nil || o.lease != nil || (py == nil && pendingDecrefs.n.Load() != 0) {
		return v, false, nil
	}
	argKind, ai, af, ok := fastArg(args)
	if !ok {
		return v, false, nil
	}
	held := C.int(0)
	if py != nil {
		held = 1
	} else {
		if err := cpython.EnterCall(); err != nil {
			return v, true, err
		}
		defer cpython.ExitCall()
	}
	var out C.gd_fast_out
	// o.p's one word is the PyObject*, read by C under the GIL (atomic.Pointer holds
	// only it): a Close racing with the call has either swapped it first (the call
	// sees NULL) or waits for the GIL to drop it.
	slot := (**C.PyObject)(unsafe.Pointer(&o.p))
	switch C.gd_fast_call(slot, held, argKind, ai, af, kind, &out) {
	case C.GD_FAST_DONE:
		return fastResult{i: int64(out.i), f: float64(out.f), obj: cObject(out.res)}, true, nil
	case C.GD_FAST_CLOSED:
		return v, true, ErrClosed
	case C.GD_FAST_CONVERT:
		return fastResult{obj: cObject(out.res), convert: true}, true, nil
	default: // GD_FAST_RAISED: the exception, taken under the GIL as every call's
		exc := out.exc
		return v, true, underGIL(py, func() error {
			C.PyErr_Restore(cObject(exc[0]), cObject(exc[1]), cObject(exc[2]))
			return errPySet
		})
	}
}

// cObject is a PyObject* that C handed back as an integer (gd_fast_out): C memory,
// never Go's, read back as the pointer it is.
func cObject(p C.uintptr_t) *C.PyObject { return *(**C.PyObject)(unsafe.Pointer(&p)) }

// underGIL runs f under py's hold (f's error made a Go error at once), or, py nil,
// in an entry of its own.
func underGIL(py *GIL, f func() error) error {
	if py != nil {
		return goError(f())
	}
	return withGIL(f)
}

// convertResult converts a fastResult's result that was not the exact type asked,
// and releases it.
func convertResult[T any](py *GIL, res *C.PyObject, conv func(*C.PyObject) (T, error)) (v T, err error) {
	err = underGIL(py, func() error {
		defer C.gd_decref(res)
		v, err = conv(res)
		return err
	})
	return v, err
}

// fastArg is args as gd_fast_call takes them; ok false for any other arguments.
func fastArg(args []any) (kind C.int, i C.longlong, f C.double, ok bool) {
	switch len(args) {
	case 0:
		return C.GD_FAST_NONE, 0, 0, true
	case 1:
		switch a := args[0].(type) {
		case int:
			return C.GD_FAST_INT, C.longlong(a), 0, true
		case int64:
			return C.GD_FAST_INT, C.longlong(a), 0, true
		case float64:
			return C.GD_FAST_FLOAT, 0, C.double(a), true
		}
	}
	return 0, 0, 0, false
}

// pyCallInt is CallInt (gil_api.go), with Python.
func (o *Object) pyCallInt(args []any) (int64, error) {
	if r, ok, err := o.fastCall(nil, args, C.GD_FAST_INT); ok {
		if err != nil || !r.convert {
			return r.i, err
		}
		return convertResult(nil, r.obj, resultInt64)
	}
	var v int64
	err := o.callResult(args, func(r *C.PyObject) (_ bool, err error) {
		var n C.longlong
		if C.gd_take_exact_int64(r, &n) == 0 { // the common result, in one cgo call
			v = int64(n)
			return true, nil
		}
		v, err = resultInt64(r)
		return false, err
	})
	return v, err
}

func resultInt64(r *C.PyObject) (int64, error) { return asInt64(r, "the result") }

// pyCallFloat is CallFloat (gil_api.go), with Python.
func (o *Object) pyCallFloat(args []any) (float64, error) {
	if r, ok, err := o.fastCall(nil, args, C.GD_FAST_FLOAT); ok {
		if err != nil || !r.convert {
			return r.f, err
		}
		return convertResult(nil, r.obj, asFloat64)
	}
	var v float64
	err := o.callResult(args, func(r *C.PyObject) (_ bool, err error) {
		v, err = asFloat64(r)
		return false, err
	})
	return v, err
}

// pyCallTensor is CallTensor (gil_api.go), with Python.
func (o *Object) pyCallTensor(args []any) (*tensor.Tensor, error) {
	var m unsafe.Pointer
	err := o.callResult(args, func(r *C.PyObject) (_ bool, err error) {
		m, err = pyToManaged(r)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return tensor.FromManaged(m)
}
