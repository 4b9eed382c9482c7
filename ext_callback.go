//go:build godlpack_python

package godlpack

// ext_callback.go: Python callables passed as Go func parameters (callbacks).

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "gd_python.h"
import "C"

import (
	"reflect"
)

// callbackArg makes a Go func of p's type calling the Python callable a.obj, an
// argument of s, released when the call returns unless kept (KeepFunc).
// Each call takes the GIL (from any goroutine: in a HoldGIL function only from
// the function's own, so that its caller's thread does not hold the GIL the
// goroutine waits for: ext_lend_cpython.go), converts the arguments as results
// are (writeObject's rules), calls, and converts the result to the func's first
// result type. A Python exception is a *PythonError holding the exception
// itself: returned by the Go function, it is raised again, unchanged, to the
// extension function's caller (raiseAgain).
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
	t := p.goType
	v := reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		out := make([]reflect.Value, t.NumOut())
		for i := range out {
			out[i] = reflect.Zero(t.Out(i))
		}
		args := make([]any, len(in))
		var err error
		for i, v := range in {
			if args[i], err = plainValue(v, 0); err != nil {
				err = TypeError.Errorf("%s(): callback %s: argument %d: %w", f.name, p.name, i, err)
				break
			}
		}
		var r *Object
		if err == nil {
			r, err = fn.Call(args...)
		}
		if err == nil && t.NumOut() == 2 {
			err = r.with(func(o *C.PyObject) error {
				v, err := fromPython(o, t.Out(0), 0)
				if err == nil {
					out[0] = v
				} else if ee, ok := err.(*exceptionError); ok {
					err = ee.kind.Errorf("%s(): the result of callback %s: %w", f.name, p.name, ee.err)
				}
				return err
			})
		}
		if r != nil {
			r.Close()
		}
		if err != nil {
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
		}
		return out
	})
	s.lendFunc(v, fn)
	return v, nil
}
