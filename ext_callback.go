//go:build godlpack_python

package godlpack

// ext_callback.go: Python callables passed as Go func parameters (callbacks).

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "gd_python.h"
import "C"

import (
	"reflect"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// callbackArg makes a Go func of p's type calling the Python callable a.obj, an
// argument of s, released when the call returns unless kept (KeepFunc).
// Each call takes the GIL once (from any goroutine: in a HoldGIL function only
// from the function's own, so that its caller's thread does not hold the GIL the
// goroutine waits for: ext_lend_cpython.go), converts the arguments as results
// are (writeObject's rules), calls, and converts the result to the func's first
// result type (callback.call). A Python exception is a *PythonError holding the
// exception itself: returned by the Go function, it is raised again, unchanged,
// to the extension function's caller (raiseAgain).
// The func types typedCallbacks lists get a Go func of their own type, with no
// reflection per call; the others a reflect.MakeFunc.
func callbackArg(f *Function, p *param, a *C.gd_ext_arg, s *callScope) (reflect.Value, error) {
	if a.obj == nil {
		return p.defaultValue(), nil
	}
	var fn *Object
	if err := withGIL(func() error {
		C.gd_incref(a.obj)
		fn = newObject(a.obj)
		return nil
	}); err != nil {
		return reflect.Value{}, err
	}
	s.lend(fn, p.name)
	c := &callback{f: f, p: p, fn: fn}
	var v reflect.Value
	if typed, ok := typedCallbacks[p.goType]; ok {
		v = reflect.ValueOf(typed(c))
	} else {
		v = c.reflective(p.goType)
	}
	s.lendFunc(v, fn)
	return v, nil
}

// A callback is a Python callable (fn) passed for the func parameter p of f.
type callback struct {
	f  *Function
	p  *param
	fn *Object
}

// typedCallbacks makes, for the func types it lists (the common ones: scalars and
// tensors in, a scalar, a tensor or nothing but an error out), a Go func of that
// very type calling the callable with no reflection per call: the arguments and the
// float64 result cross to C with the call itself (gd_cb_call). What the types
// convert to and from is as for any other func type (tests/test_goext_func.py,
// test_typed_callbacks_*).
var typedCallbacks = map[reflect.Type]func(*callback) any{
	reflect.TypeFor[func(int64) (float64, error)]():   func(c *callback) any { return typed1[int64, float64](c) },
	reflect.TypeFor[func(int) (float64, error)]():     func(c *callback) any { return typed1[int, float64](c) },
	reflect.TypeFor[func(float64) (float64, error)](): func(c *callback) any { return typed1[float64, float64](c) },
	reflect.TypeFor[func(int64) (int64, error)]():     func(c *callback) any { return typed1[int64, int64](c) },
	reflect.TypeFor[func(int) (int, error)]():         func(c *callback) any { return typed1[int, int](c) },
	reflect.TypeFor[func(float64) (bool, error)]():    func(c *callback) any { return typed1[float64, bool](c) },
	reflect.TypeFor[func(int64) error]():              func(c *callback) any { return typed1E[int64](c) },
	reflect.TypeFor[func(int) error]():                func(c *callback) any { return typed1E[int](c) },
	reflect.TypeFor[func(float64) error]():            func(c *callback) any { return typed1E[float64](c) },
	reflect.TypeFor[func(*tensor.Tensor) error]():     func(c *callback) any { return typed1E[*tensor.Tensor](c) },
	reflect.TypeFor[func(*tensor.Tensor) (float64, error)](): func(c *callback) any {
		return typed1[*tensor.Tensor, float64](c)
	},
	reflect.TypeFor[func(*tensor.Tensor) (*tensor.Tensor, error)](): func(c *callback) any {
		return typed1[*tensor.Tensor, *tensor.Tensor](c)
	},
	reflect.TypeFor[func(int64, *tensor.Tensor) (float64, error)](): func(c *callback) any {
		return typed2[int64, *tensor.Tensor, float64](c)
	},
	reflect.TypeFor[func(int, *tensor.Tensor) (float64, error)](): func(c *callback) any {
		return typed2[int, *tensor.Tensor, float64](c)
	},
	reflect.TypeFor[func(float64, float64) (float64, error)](): func(c *callback) any {
		return typed2[float64, float64, float64](c)
	},
}

func typed1[A, R any](c *callback) func(A) (R, error) {
	return func(a A) (R, error) {
		var r R
		err := c.call(&r, a)
		return r, err
	}
}

func typed1E[A any](c *callback) func(A) error {
	return func(a A) error { return c.call(nil, a) }
}

func typed2[A, B, R any](c *callback) func(A, B) (R, error) {
	return func(a A, b B) (R, error) {
		var r R
		err := c.call(&r, a, b)
		return r, err
	}
}

// reflective is the Go func of type t for the func types typedCallbacks does not
// list: reflect.MakeFunc, each argument made plain (plainValue) first.
func (c *callback) reflective(t reflect.Type) reflect.Value {
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		out := make([]reflect.Value, t.NumOut())
		for i := range out {
			out[i] = reflect.Zero(t.Out(i))
		}
		args := make([]any, len(in))
		var err error
		for i, v := range in {
			if args[i], err = plainValue(v, 0); err != nil {
				err = TypeError.Errorf("%s(): callback %s: argument %d: %w", c.f.name, c.p.name, i, err)
				break
			}
		}
		if err == nil {
			var result any
			if t.NumOut() == 2 {
				out[0] = reflect.New(t.Out(0))
				result = out[0].Interface()
			}
			err = c.call(result, args...)
			if t.NumOut() == 2 {
				out[0] = out[0].Elem()
			}
		}
		if err != nil {
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
		}
		return out
	})
}

// call calls the callable with args (plain values: int, int64 and float64 cross to
// C as they are, the others as toPython converts them) under one GIL entry, and
// stores its result in *result (a pointer to the func's first result; nil: none
// wanted) with fromPython's rules. A float result of a *float64 is read in C.
func (c *callback) call(result any, args ...any) error {
	cargs := make([]C.gd_cb_arg, len(args)+1) // one more: &cargs[0] with no arguments
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			cargs[i].kind, cargs[i].i = C.GD_CB_INT, C.longlong(a)
		case int:
			cargs[i].kind, cargs[i].i = C.GD_CB_INT, C.longlong(a)
		case float64:
			cargs[i].kind, cargs[i].d = C.GD_CB_FLOAT, C.double(a)
		default:
			cargs[i].kind = C.GD_CB_OBJ
		}
	}
	f, wantFloat := result.(*float64)
	return withGILFor(c.fn.lease, func() error {
		p, err := c.fn.ref()
		if err != nil {
			return err
		}
		for i, a := range args {
			if cargs[i].kind != C.GD_CB_OBJ {
				continue
			}
			if cargs[i].o, err = toPython(a); err != nil {
				for j := range i {
					if cargs[j].kind == C.GD_CB_OBJ {
						C.gd_decref(cargs[j].o)
					}
				}
				return argError(i, err)
			}
		}
		var d C.double
		var res *C.PyObject
		resp := &res
		if result == nil {
			resp = nil
		}
		switch C.gd_cb_call(p, &cargs[0], C.int(len(args)), C.int(bool2int(wantFloat)), &d, resp) {
		case -1:
			return errPySet
		case 0:
			if wantFloat {
				*f = float64(d)
			}
			return nil
		}
		defer C.gd_decref(res)
		return c.convertResult(res, reflect.ValueOf(result).Elem())
	})
}

// convertResult stores the callable's result o in r (GIL held); a conversion's
// error names the function and the callback.
func (c *callback) convertResult(o *C.PyObject, r reflect.Value) error {
	v, err := fromPython(o, r.Type(), 0)
	if err == nil {
		r.Set(v)
	} else if ee, ok := err.(*exceptionError); ok {
		err = ee.kind.Errorf("%s(): the result of callback %s: %w", c.f.name, c.p.name, ee.err)
	}
	return err
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}
