//go:build godlpack_python

package godlpack

// ext_callback.go: Python callables passed as Go func parameters (callbacks).

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "gd_python.h"
import "C"

import (
	"fmt"
	"reflect"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
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
	want := wantOf((*R)(nil))
	return func(a A) (R, error) {
		if k, i, d, ok := scalarArg(a); ok && want != C.GD_CB_OBJ {
			return callScalar[R](c, want, k, i, d)
		}
		var fr C.gd_cb_frame
		var objs [C.GD_CB_MAX_ARGS]any
		setArg(&fr, &objs, 0, a)
		return callTyped[R](c, &fr, &objs)
	}
}

func typed1E[A any](c *callback) func(A) error {
	return func(a A) error {
		if k, i, d, ok := scalarArg(a); ok {
			_, err := callScalar[noResult](c, C.GD_CB_NONE, k, i, d)
			return err
		}
		var fr C.gd_cb_frame
		var objs [C.GD_CB_MAX_ARGS]any
		setArg(&fr, &objs, 0, a)
		_, err := callTyped[noResult](c, &fr, &objs)
		return err
	}
}

func typed2[A, B, R any](c *callback) func(A, B) (R, error) {
	return func(a A, b B) (R, error) {
		var fr C.gd_cb_frame
		var objs [C.GD_CB_MAX_ARGS]any
		setArg(&fr, &objs, 0, a)
		setArg(&fr, &objs, 1, b)
		return callTyped[R](c, &fr, &objs)
	}
}

// noResult is the R of a callback returning only an error.
type noResult struct{}

// setArg makes a the frame's argument i: int, int64 and float64 cross to C as they
// are, the others (plain values) are in objs[i] for toPython.
func setArg[A any](fr *C.gd_cb_frame, objs *[C.GD_CB_MAX_ARGS]any, i int, a A) {
	fr.n = C.int(i + 1)
	if k, n, d, ok := scalarArg(a); ok {
		fr.args[i].kind, fr.args[i].i, fr.args[i].d = k, n, d
	} else { // a conversion of its own: scalarArg's stays on the stack
		fr.args[i].kind, objs[i] = C.GD_CB_OBJ, any(a)
	}
}

// scalarArg is a as an argument that crosses to C by value: an int64 or int
// (GD_CB_INT, in i) or a float64 (GD_CB_FLOAT, in d); ok false for any other type.
func scalarArg[A any](a A) (kind C.int, i C.longlong, d C.double, ok bool) {
	switch v := any(a).(type) {
	case int64:
		return C.GD_CB_INT, C.longlong(v), 0, true
	case int:
		return C.GD_CB_INT, C.longlong(v), 0, true
	case float64:
		return C.GD_CB_FLOAT, 0, C.double(v), true
	}
	return 0, 0, 0, false
}

// callScalar is callTyped of one argument crossing by value (scalarArg's kind, i,
// d) for a result that gd_cb_call reads in C (want, not GD_CB_OBJ): the call
// made with them as they are, with no frame to zero, fill and read back (typed1's
// ~180 bytes a callback); a frame is made only for what the call did not finish.
func callScalar[R any](c *callback, want, kind C.int, i C.longlong, d C.double) (R, error) {
	o := notRun
	if s, p := c.fastScope(); s != nil {
		o = s.callScalar(p, want, kind, i, d)
		cpython.ExitCall()
		if o.rc == 0 {
			var r R
			storeScalar(o.i, o.d, &r)
			return r, nil
		}
	}
	fr := C.gd_cb_frame{n: 1, want: want}
	fr.args[0].kind, fr.args[0].i, fr.args[0].d = kind, i, d
	takeOut(&fr, o)
	var r R // a variable of its own: the one above stays on the stack
	err := c.slow(fr, [C.GD_CB_MAX_ARGS]any{}, o.rc, &r)
	return r, err
}

// callTyped calls with the frame's arguments and returns the result as an R, with
// no allocation when no argument needs toPython and the result is read in C.
func callTyped[R any](c *callback, fr *C.gd_cb_frame, objs *[C.GD_CB_MAX_ARGS]any) (R, error) {
	var want *R
	fr.want = wantOf(want)
	if hasObjs(fr) { // tensors among them cross as GD_CB_TENSOR
		if err := c.exportTensorArgs(fr, objs); err != nil {
			var r R
			return r, err
		}
	}
	rc := C.int(C.GD_CB_SLOW)
	if !hasObjs(fr) {
		rc = c.invoke(fr)
		if rc == 0 {
			var r R
			storeResult(fr, &r)
			return r, nil
		}
	}
	var r R // a variable of its own: the one above stays on the stack
	err := c.slow(*fr, *objs, rc, &r)
	return r, err
}

// wantOf is what gd_cb_call reads of a result stored through result's type.
func wantOf(result any) C.int {
	switch result.(type) {
	case nil, *noResult:
		return C.GD_CB_NONE
	case *float64:
		return C.GD_CB_FLOAT
	case *int64, *int:
		return C.GD_CB_INT
	}
	return C.GD_CB_OBJ
}

// storeResult stores the value gd_cb_call read (gd_cb_call returned 0) in result.
func storeResult(fr *C.gd_cb_frame, result any) { storeScalar(fr.i, fr.d, result) }

// storeScalar stores a result gd_cb_call read (i or d, as result's type wants).
func storeScalar(i C.longlong, d C.double, result any) {
	switch r := result.(type) {
	case *float64:
		*r = float64(d)
	case *int64:
		*r = int64(i)
	case *int:
		*r = int(i)
	}
}

func hasObjs(fr *C.gd_cb_frame) bool {
	for i := range int(fr.n) {
		if fr.args[i].kind == C.GD_CB_OBJ {
			return true
		}
	}
	return false
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

// call calls the callable with args (plain values, at most GD_CB_MAX_ARGS) and
// stores its result through result (a pointer to the func's first result; nil:
// none wanted) with fromPython's rules: typed1's call, with interfaces.
func (c *callback) call(result any, args ...any) error {
	if len(args) > C.GD_CB_MAX_ARGS {
		return c.callTuple(result, args)
	}
	var fr C.gd_cb_frame
	var objs [C.GD_CB_MAX_ARGS]any
	for i, a := range args {
		setArg(&fr, &objs, i, a)
	}
	fr.want = wantOf(result)
	if hasObjs(&fr) { // tensors among them cross as GD_CB_TENSOR
		if err := c.exportTensorArgs(&fr, &objs); err != nil {
			return err
		}
	}
	rc := C.int(C.GD_CB_SLOW)
	if !hasObjs(&fr) {
		if rc = c.invoke(&fr); rc == 0 {
			storeResult(&fr, result)
			return nil
		}
	}
	return c.slow(fr, objs, rc, result)
}

// invoke is the common case in one crossing (gd_cb_fast): the callback called on
// its call's own thread while the call runs (no Close or return can release the
// callable meanwhile: only that thread does), no reference queued for release.
// It returns gd_cb_fast's answer: GD_CB_SLOW with nothing done otherwise.
func (c *callback) invoke(fr *C.gd_cb_frame) C.int {
	if fr.n > 2 {
		return C.GD_CB_SLOW
	}
	s, p := c.fastScope()
	if s == nil {
		return C.GD_CB_SLOW
	}
	defer cpython.ExitCall()
	s.callFast(p, fr)
	return fr.rc
}

// fastScope is the call on whose thread the callable may be called in one
// crossing now (gd_cb_fast), and the callable, the entry counted until the
// caller's cpython.ExitCall; nil when withGILFor's path must take it: no lease,
// the call returned, a release queued, no interpreter, the callable closed.
func (c *callback) fastScope() (*callScope, *C.PyObject) {
	l := c.fn.lease
	if l == nil || !l.scope.running.Load() || pendingDecrefs.n.Load() != 0 || !cpython.EnterCallChecked() {
		return nil, nil
	}
	if p := c.fn.p.Load(); p != nil {
		return l.scope, p
	}
	cpython.ExitCall()
	return nil, nil
}

// slow finishes what invoke did not (rc, its answer): a call under withGILFor
// (GD_CB_SLOW: arguments for toPython, another thread, a queued release), its
// exception raised again (-1) or its result converted by fromPython (1).
func (c *callback) slow(fr C.gd_cb_frame, objs [C.GD_CB_MAX_ARGS]any, rc C.int, result any) error {
	defer releaseTensorArgs(&fr) // those of a call that did not run
	return withGILFor(c.fn.lease, func() error {
		switch rc {
		case -1:
			restoreFetched(&fr)
			return errPySet
		case 1:
			return c.finish(rc, &fr, result)
		}
		p, err := c.fn.ref()
		if err != nil {
			return err
		}
		for i := range int(fr.n) {
			if fr.args[i].kind != C.GD_CB_OBJ {
				continue
			}
			if fr.args[i].o, err = toPython(objs[i]); err != nil {
				for j := range i {
					C.gd_xdecref(fr.args[j].o)
				}
				return argError(i, err)
			}
		}
		convertTensorArgs(&fr, c.fn.lease)
		return c.finish(C.gd_cb_call(p, &fr), &fr, result)
	})
}

// finish stores the result of gd_cb_call (rc, fr) through result (GIL held): a
// result for fromPython (rc 1) has its reference dropped.
func (c *callback) finish(rc C.int, fr *C.gd_cb_frame, result any) error {
	switch rc {
	case -1:
		return errPySet
	case 1:
		defer C.gd_decref(fr.res)
		return c.convertResult(fr.res, reflect.ValueOf(result).Elem())
	}
	storeResult(fr, result)
	return nil
}

// callTuple is call for more arguments than a gd_cb_frame holds: a tuple of them.
func (c *callback) callTuple(result any, args []any) error {
	return withGILFor(c.fn.lease, func() error {
		p, err := c.fn.ref()
		if err != nil {
			return err
		}
		C.gd_incref(p)
		defer C.gd_decref(p)
		args, made, err := inCallFramework(args, c.fn.lease)
		if err != nil {
			if err != errPySet {
				err = fmt.Errorf("%s(): callback %s: %w", c.f.name, c.p.name, err)
			}
			return err
		}
		defer releaseMade(made)
		r, err := callObject(p, args)
		if err != nil {
			return err
		}
		defer C.gd_decref(r)
		if result == nil {
			return nil
		}
		return c.convertResult(r, reflect.ValueOf(result).Elem())
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

// inCallFramework returns args with their tensors made arrays of the framework of
// l's call (GIL held), as gd_cb_tensor_args makes a frame's: a callback of more
// arguments than a frame holds gets the same arrays; made lists the arrays, for
// releaseMade.
func inCallFramework(args []any, l *argLease) (out []any, made []*Object, err error) {
	if l == nil || l.scope.fw == 0 {
		return args, nil, nil
	}
	out = append([]any(nil), args...)
	for i, a := range out {
		t, ok := a.(*tensor.Tensor)
		if !ok || t == nil {
			continue
		}
		p, err := tensorToPython(t)
		if err == nil {
			if p = C.gd_ext_array_in(p, C.int(l.scope.fw)); p == nil {
				err = errPySet
			}
		}
		if err != nil {
			releaseMade(made)
			if err != errPySet {
				err = fmt.Errorf("argument %d: %w", i, err)
			}
			return nil, nil, err
		}
		o := newObject(p)
		made = append(made, o)
		out[i] = o
	}
	return out, made, nil
}

// releaseMade releases the arrays inCallFramework made (GIL held).
func releaseMade(made []*Object) {
	for _, o := range made {
		if p := o.p.Swap(nil); p != nil {
			o.cleanup.Stop()
			C.gd_decref(p)
		}
	}
}
