//go:build godlpack_python

package godlpack

// gil_scope.go: WithGIL and its GIL's methods (gil_api.go), with Python. Each is the
// body of an Object method (object.go, object_convert.go, exchange.go) run without
// entering Python again.

// #include "object_call.h"
import "C"

import (
	"errors"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// errGILNotHeld is what a GIL's methods return outside WithGIL's function.
var errGILNotHeld = errors.New("godlpack: a *GIL used after its WithGIL function returned: " +
	"use it only inside that function, or call the Object's own method (it takes the GIL)")

// withGILScope is WithGIL (gil_api.go), with Python.
func withGILScope(f func(py *GIL) error) error {
	py := &GIL{}
	return withGIL(func() error {
		py.held = true
		defer func() { py.held = false }()
		return f(py)
	})
}

// with runs f on o's object, held by a reference of its own (Python code f runs may
// release the GIL, and a racing Close drop o's), under py's hold. f's error is
// returned as a Go error at once (goError): py's holder goes on calling Python.
func (py *GIL) with(o *Object, f func(p *C.PyObject) error) error {
	if py == nil || !py.held {
		return errGILNotHeld
	}
	p, err := o.ref()
	if err != nil {
		return err
	}
	C.gd_incref(p)
	defer C.gd_decref(p)
	return goError(f(p))
}

func (py *GIL) call(o *Object, args []any) (r *Object, err error) {
	if py == nil || !py.held {
		return nil, errGILNotHeld
	}
	if res, ok, err := o.fastCall(py, args, C.GD_FAST_OBJECT); ok {
		return newObject(res.obj), err
	}
	err = py.with(o, func(p *C.PyObject) error {
		res, err := callObject(p, args)
		r = newObject(res)
		return err
	})
	return r, err
}

func (py *GIL) callMethod(o *Object, name string, args []any) (r *Object, err error) {
	err = py.with(o, func(p *C.PyObject) error {
		res, err := callMethod(p, name, args)
		r = newObject(res)
		return err
	})
	return r, err
}

func (py *GIL) attr(o *Object, name string) (r *Object, err error) {
	err = py.with(o, func(p *C.PyObject) error {
		a, err := getAttr(p, name)
		r = newObject(a)
		return err
	})
	return r, err
}

func (py *GIL) int(o *Object) (v int64, err error) {
	if py != nil && py.held && o != nil && o.lease == nil {
		// an exact int's value, in one cgo call and without a reference of its own:
		// no Python code runs in it, so no Close can drop o's meanwhile
		var n C.longlong
		if p := o.p.Load(); p != nil && C.gd_exact_int64(p, &n) == 0 {
			return int64(n), nil
		}
	}
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = asInt64(p, "the object")
		return err
	})
	return v, err
}

func (py *GIL) float(o *Object) (v float64, err error) {
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = asFloat64(p)
		return err
	})
	return v, err
}

func (py *GIL) tensor(o *Object) (*tensor.Tensor, error) {
	var m unsafe.Pointer
	err := py.with(o, func(p *C.PyObject) (err error) {
		m, err = pyToManaged(p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return tensor.FromManaged(m)
}

func (py *GIL) goValue(o *Object) (v any, err error) {
	err = py.with(o, func(p *C.PyObject) (err error) {
		v, err = toGo(p, 0)
		return err
	})
	return v, err
}

func (py *GIL) close(o *Object) {
	if py == nil || !py.held {
		o.Close() // it takes the GIL itself
		return
	}
	if o == nil {
		return
	}
	if p := o.p.Swap(nil); p != nil {
		o.cleanup.Stop()
		C.gd_decref(p)
	}
}
