//go:build godlpack_python

package godlpack

// object.go: Python objects held from Go. One type for both directions: a Go program
// that embeds Python (package pyembed) and a Go extension calling back into the Python that
// loaded it use the same Object, the same calls and the same conversions
// (object_convert.go). Every method takes the GIL itself (gil.go), from any goroutine;
// the calls that convert their result in the same entry, and a call of no argument or
// one number in one cgo call (object.c).

// #include "object_call.h"
import "C"

import (
	"errors"
	"runtime"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
)

// newObject wraps a new reference (GIL held); nil stays nil.
func newObject(p *C.PyObject) *Object {
	if p == nil {
		return nil
	}
	o := &Object{}
	o.p.Store(p)
	o.cleanup = runtime.AddCleanup(o, pendingDecrefs.add, p)
	return o
}

// pyClose is Close (object_api.go), with Python.
func (o *Object) pyClose() {
	if o == nil {
		return
	}
	p := o.p.Swap(nil)
	if p == nil {
		return
	}
	o.cleanup.Stop()
	if withGIL(func() error { C.gd_decref(p); return nil }) != nil {
		return // the interpreter is gone, and its objects with it
	}
}

// errNilObject is what a nil *Object's methods return.
var errNilObject = errors.New("godlpack: nil *Object")

// ref returns the object (GIL held: it stays alive while the caller holds the GIL
// only if the Object is not closed meanwhile, so the caller takes a reference).
func (o *Object) ref() (*C.PyObject, error) {
	if o == nil {
		return nil, errNilObject
	}
	p := o.p.Load()
	if p == nil {
		if o.lease != nil && o.lease.state.Load() == leaseReturned {
			return nil, o.lease.returnedError()
		}
		return nil, ErrClosed
	}
	return p, nil
}

// with runs f with the object held (a reference taken for the call, so a racing
// Close cannot free it under f) and the GIL held; an argument's, on behalf of its
// call (withGILFor).
func (o *Object) with(f func(p *C.PyObject) error) error {
	if o == nil {
		return errNilObject // o.lease is not there to read (TestCallIntErrorsAreGoErrors)
	}
	return withGILFor(o.lease, func() error {
		p, err := o.ref()
		if err != nil {
			return err
		}
		C.gd_incref(p)
		defer C.gd_decref(p)
		return f(p)
	})
}

// importModuleObject is Import (object_api.go), with Python.
func importModuleObject(name string) (*Object, error) {
	var m *Object
	err := withGIL(func() error {
		p, err := importModule(name)
		m = newObject(p)
		return err
	})
	return m, err
}

func importModule(name string) (*C.PyObject, error) {
	cname, err := cName(name)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cname))
	p := C.PyImport_ImportModule(cname)
	if p == nil {
		return nil, errPySet
	}
	return p, nil
}

// cName is a module or attribute name as C reads it (the caller frees it): a Go
// string may hold a NUL, where C's would end, and Python's name would be another
// one; refused as Python refuses such a name ("embedded null character").
func cName(name string) (*C.char, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, valueErrorf("embedded null character")
	}
	return C.CString(name), nil
}

// pyAttr is Attr (object_api.go), with Python.
func (o *Object) pyAttr(name string) (*Object, error) {
	var r *Object
	err := o.with(func(p *C.PyObject) error {
		a, err := getAttr(p, name)
		r = newObject(a)
		return err
	})
	return r, err
}

func getAttr(p *C.PyObject, name string) (*C.PyObject, error) {
	cname, err := cName(name)
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cname))
	a := C.PyObject_GetAttrString(p, cname)
	if a == nil {
		return nil, errPySet
	}
	return a, nil
}

// pySetAttr is SetAttr (object_api.go), with Python.
func (o *Object) pySetAttr(name string, value any) error {
	return o.with(func(p *C.PyObject) error {
		cname, err := cName(name)
		if err != nil {
			return err
		}
		defer C.free(unsafe.Pointer(cname))
		v, err := toPython(value)
		if err != nil {
			return err
		}
		defer C.gd_decref(v)
		if C.PyObject_SetAttrString(p, cname, v) < 0 {
			return errPySet
		}
		return nil
	})
}

// pyCall is Call (object_api.go), with Python.
func (o *Object) pyCall(args ...any) (*Object, error) {
	if r, ok, err := o.fastCall(nil, args, C.GD_FAST_OBJECT); ok {
		return newObject(r.obj), err
	}
	var r *Object
	err := o.with(func(p *C.PyObject) error {
		res, err := callObject(p, args)
		r = newObject(res)
		return err
	})
	return r, err
}

// pyCallMethod is CallMethod (object_api.go), with Python.
func (o *Object) pyCallMethod(name string, args ...any) (*Object, error) {
	var r *Object
	err := o.with(func(p *C.PyObject) error {
		res, err := callMethod(p, name, args)
		r = newObject(res)
		return err
	})
	return r, err
}

// callMethod calls p's method name with the converted args (GIL held); a new reference.
func callMethod(p *C.PyObject, name string, args []any) (*C.PyObject, error) {
	m, err := getAttr(p, name)
	if err != nil {
		return nil, err
	}
	defer C.gd_decref(m)
	return callObject(m, args)
}

// callObject calls p with the converted args (GIL held); a new reference.
func callObject(p *C.PyObject, args []any) (*C.PyObject, error) {
	var kw Kw
	if n := len(args); n > 0 {
		if k, ok := args[n-1].(Kw); ok {
			kw, args = k, args[:n-1]
		}
	}
	if kw == nil && len(args) <= 1 {
		return callOne(p, args)
	}
	tuple, err := tupleOf(args, 0)
	if err != nil {
		return nil, err
	}
	defer C.gd_decref(tuple)
	var dict *C.PyObject
	if len(kw) > 0 {
		if dict, err = dictOf(kw, 0); err != nil {
			return nil, err
		}
		defer C.gd_decref(dict)
	}
	res := C.PyObject_Call(p, tuple, dict)
	if res == nil {
		return nil, errPySet
	}
	return res, nil
}

// callOne calls p with no argument or one, without a tuple (the common call, in one
// cgo call: object.c).
func callOne(p *C.PyObject, args []any) (*C.PyObject, error) {
	var a *C.PyObject
	if len(args) == 1 {
		var err error
		if a, err = toPythonAt(args[0], 1); err != nil { // as tupleOf converts its items
			return nil, argError(0, err)
		}
	}
	res := C.gd_call_one(p, a)
	if res == nil {
		return nil, errPySet
	}
	return res, nil
}

// pyItem is Item (object_api.go), with Python.
func (o *Object) pyItem(key any) (*Object, error) {
	var r *Object
	err := o.with(func(p *C.PyObject) error {
		k, err := toPython(key)
		if err != nil {
			return err
		}
		defer C.gd_decref(k)
		v := C.PyObject_GetItem(p, k)
		if v == nil {
			return errPySet
		}
		r = newObject(v)
		return nil
	})
	return r, err
}

// pySetItem is SetItem (object_api.go), with Python.
func (o *Object) pySetItem(key, value any) error {
	return o.with(func(p *C.PyObject) error {
		k, err := toPython(key)
		if err != nil {
			return err
		}
		defer C.gd_decref(k)
		v, err := toPython(value)
		if err != nil {
			return err
		}
		defer C.gd_decref(v)
		if C.PyObject_SetItem(p, k, v) < 0 {
			return errPySet
		}
		return nil
	})
}

// pyString is String (object_api.go), with Python.
func (o *Object) pyString() string {
	var s string
	err := o.with(func(p *C.PyObject) error {
		str := C.PyObject_Str(p)
		if str == nil {
			return errPySet
		}
		defer C.gd_decref(str)
		var err error
		s, err = strValue(str)
		return err
	})
	if err != nil {
		return "<godlpack.Object: " + err.Error() + ">"
	}
	return s
}

// pyIsNone is IsNone (object_api.go), with Python.
func (o *Object) pyIsNone() bool {
	p := o.p.Load()
	return p != nil && C.gd_is_none(p) != 0 // a pointer compare: no GIL needed
}

// ---- The calls that convert their result in the same entry into Python (CallInt,
// CallFloat, CallTensor: object_api.go), and the path of a call with no argument or one
// number in ONE cgo call (gd_fast_call, object.c), which Call and WithGIL's Call take
// too.

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
	m       C.uintptr_t // GD_FAST_TENSOR's: a managed tensor in C memory
	convert bool
}

// fastCall is the call of o with args in one cgo call (gd_fast_call, object.c),
// where it applies: no argument or one int, float64 or *tensor.Tensor (exported
// here, as tensorToPython does, and made a godlpack.Array in C; a GD_FAST_TENSOR
// result is made a managed tensor there too), an Object not lent by a
// running call (whose rules withGILFor checks), and no queued references to drop.
// handled false: the caller takes the general path. py: the GIL WithGIL holds
// (valid), or nil: the call takes it.
func (o *Object) fastCall(py *GIL, args []any, kind C.int) (v fastResult, handled bool, err error) {
	if o == nil || o.lease != nil || (py == nil && pendingDecrefs.n.Load() != 0) {
		return v, false, nil
	}
	argKind, ai, af, t, ok := fastArg(args)
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
	if t != nil { // the argument's Array owns it from here (tensorToPython's rule)
		m, err := t.Export()
		if err != nil {
			return v, true, err
		}
		ai = C.longlong(uintptr(m)) // C memory: an integer, which cgo's check skips
	}
	var out C.gd_fast_out
	// o.p's one word is the PyObject*, read by C under the GIL (atomic.Pointer holds
	// only it): a Close racing with the call has either swapped it first (the call
	// sees NULL) or waits for the GIL to drop it.
	slot := (**C.PyObject)(unsafe.Pointer(&o.p))
	switch C.gd_fast_call(slot, held, argKind, ai, af, kind, &out) {
	case C.GD_FAST_DONE:
		if kind == C.GD_FAST_TENSOR {
			return fastResult{m: out.res}, true, nil
		}
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

// fastArg is args as gd_fast_call takes them (a tensor exported by fastCall);
// ok false for any other arguments.
func fastArg(args []any) (kind C.int, i C.longlong, f C.double, t *tensor.Tensor, ok bool) {
	switch len(args) {
	case 0:
		return C.GD_FAST_NONE, 0, 0, nil, true
	case 1:
		switch a := args[0].(type) {
		case int:
			return C.GD_FAST_INT, C.longlong(a), 0, nil, true
		case int64:
			return C.GD_FAST_INT, C.longlong(a), 0, nil, true
		case float64:
			return C.GD_FAST_FLOAT, 0, C.double(a), nil, true
		case *tensor.Tensor:
			if a != nil { // nil is None: the general path
				return C.GD_FAST_TENSOR, 0, 0, a, true
			}
		}
	}
	return 0, 0, 0, nil, false
}

// pyCallInt is CallInt (object_api.go), with Python.
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

// pyCallFloat is CallFloat (object_api.go), with Python.
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

// pyCallTensor is CallTensor (object_api.go), with Python.
func (o *Object) pyCallTensor(args []any) (*tensor.Tensor, error) {
	if r, ok, err := o.fastCall(nil, args, C.GD_FAST_TENSOR); ok {
		if err != nil {
			return nil, err
		}
		return tensor.FromManaged(*(*unsafe.Pointer)(unsafe.Pointer(&r.m)))
	}
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
