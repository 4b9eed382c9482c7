package godlpack

// ext_class_fast.go: the call path of a class's methods, property getters and
// setters with no reflection. Func checks every signature by reflection and its
// call runs reflect.Value.Call (~200-300 ns and several allocations a call, more
// than the rest of a property read together); Class[T] knows T at compile time,
// so the common member shapes (the instance and at most one argument: a number,
// a str, a bool, an instance, a tensor of the built-in dtype sets; a scalar,
// tensor, []E or no result, with or without an error) are matched here by a type
// switch and called as Func1 calls its function: converters chosen once, no
// allocation. Anything else keeps Func's reflection path (same behaviour, slower).

import (
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// callFunc is Function.call's type.
type callFunc = func(args []extArg, res *extResult) error

// memberBinder makes the reflection-free call of a member of class T
// (classBinder[T], kept by Class[T] in its ClassDef).
type memberBinder interface {
	// fastCall returns the call of fn, a member of the class whose Function f
	// Func made (parameters already described), or nil for a shape not matched
	// here.
	fastCall(f *Function, fn any) callFunc
	// atomicField matches an AtomicProperty's field function
	// (ext_class_atomic.go).
	atomicField(field any) (getter any, af *atomicField, err error)
}

type classBinder[T any] struct{}

func (classBinder[T]) fastCall(f *Function, fn any) callFunc {
	if len(f.errs) != 0 { // Func refused it: the module's import says why
		return nil
	}
	if c := method0Of[T](f, fn); c != nil {
		return c
	}
	// The argument types matched, tried in turn: each a type switch over the
	// result shapes, at registration only.
	for _, try := range []func(*Function, any) callFunc{
		method1Of[T, float64], method1Of[T, int64], method1Of[T, int], method1Of[T, bool],
		method1Of[T, string], method1Of[T, *T],
		method1Of[T, Tensor[Any]], method1Of[T, Tensor[AnyFloat]], method1Of[T, Tensor[AnyInt]],
		method1Of[T, Tensor[float32]], method1Of[T, Tensor[float64]],
		method1Of[T, Tensor[int32]], method1Of[T, Tensor[int64]],
		method1Of[T, MutTensor[Any]], method1Of[T, MutTensor[AnyFloat]],
		method1Of[T, MutTensor[float32]], method1Of[T, MutTensor[float64]],
	} {
		if c := try(f, fn); c != nil {
			return c
		}
	}
	return nil
}

// useFast replaces f's reflective call with b's, where b matches fn's shape.
func useFast(b memberBinder, f *Function, fn any) {
	if b == nil {
		return
	}
	if c := b.fastCall(f, fn); c != nil {
		f.call = c
	}
}

// self is the receiver of a member call: C has checked the instance's class and
// that it holds a Go value (ext_call.c's GD_EXT_INSTANCE conversion).
func self[T any](a *extArg) *T {
	return (*T)(instanceValue(uintptr(a.i)))
}

// instanceArg converts an argument of a *T parameter (0: None, a nil *T).
func instanceArg[T any](a *extArg) (*T, error) {
	if a.i == 0 {
		return nil, nil
	}
	return self[T](a), nil
}

// writerOf is resultWriter's writer for R, leaving f.result (the stubs' result
// type) as Func set it.
func writerOf[R any](f *Function) func(R, *extResult) error {
	keep := f.result
	w := resultWriter[R](f)
	f.result = keep
	return w
}

// method0Of matches a member with only the instance: a getter or a method.
func method0Of[T any](f *Function, fn any) callFunc {
	switch fn := fn.(type) {
	case func(*T):
		return method0(f, func(t *T) (None, error) { fn(t); return None{}, nil })
	case func(*T) error:
		return method0(f, func(t *T) (None, error) { return None{}, fn(t) })
	case func(*T) int64:
		return method0(f, noError(fn))
	case func(*T) (int64, error):
		return method0(f, fn)
	case func(*T) int:
		return method0(f, noError(fn))
	case func(*T) (int, error):
		return method0(f, fn)
	case func(*T) float64:
		return method0(f, noError(fn))
	case func(*T) (float64, error):
		return method0(f, fn)
	case func(*T) bool:
		return method0(f, noError(fn))
	case func(*T) (bool, error):
		return method0(f, fn)
	case func(*T) string:
		return method0(f, noError(fn))
	case func(*T) (string, error):
		return method0(f, fn)
	case func(*T) (*tensor.Tensor, error):
		return method0(f, fn)
	}
	return sliceMethod0Of[T, float64](f, fn, sliceMethod0Of[T, float32](f, fn,
		sliceMethod0Of[T, int64](f, fn, sliceMethod0Of[T, int32](f, fn, nil))))
}

// sliceMethod0Of matches a member with only the instance returning a []E (a
// list, or an array in the function's framework: sliceArray), else returns
// other: the slice results a getter or a method gives most.
func sliceMethod0Of[T, E any](f *Function, fn any, other callFunc) callFunc {
	switch fn := fn.(type) {
	case func(*T) []E:
		return method0(f, noError(fn))
	case func(*T) ([]E, error):
		return method0(f, fn)
	}
	return other
}

func noError[T, R any](fn func(*T) R) func(*T) (R, error) {
	return func(t *T) (R, error) { return fn(t), nil }
}

func method0[T, R any](f *Function, fn func(*T) (R, error)) callFunc {
	w := writerOf[R](f)
	return func(args []extArg, res *extResult) error {
		r, err := fn(self[T](&args[0]))
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
}

// method1Of matches a member with the instance and one argument of type A: a
// setter or a method.
func method1Of[T, A any](f *Function, fn any) callFunc {
	switch fn := fn.(type) {
	case func(*T, A):
		return method1(f, func(t *T, a A) (None, error) { fn(t, a); return None{}, nil })
	case func(*T, A) error:
		return method1(f, func(t *T, a A) (None, error) { return None{}, fn(t, a) })
	case func(*T, A) (float64, error):
		return method1(f, fn)
	case func(*T, A) float64:
		return method1(f, noError1(fn))
	case func(*T, A) (int64, error):
		return method1(f, fn)
	case func(*T, A) int64:
		return method1(f, noError1(fn))
	case func(*T, A) (int, error):
		return method1(f, fn)
	case func(*T, A) (bool, error):
		return method1(f, fn)
	case func(*T, A) bool:
		return method1(f, noError1(fn))
	case func(*T, A) (string, error):
		return method1(f, fn)
	case func(*T, A) (*tensor.Tensor, error):
		return method1(f, fn)
	}
	return nil
}

func noError1[T, A, R any](fn func(*T, A) R) func(*T, A) (R, error) {
	return func(t *T, a A) (R, error) { return fn(t, a), nil }
}

func method1[T, A, R any](f *Function, fn func(*T, A) (R, error)) callFunc {
	var ca func(*extArg) (A, error)
	if c, ok := any(instanceArg[T]).(func(*extArg) (A, error)); ok { // A is *T
		ca = c
	} else {
		ca = converter[A](f, 1) // describes parameter 1 as Func did
	}
	pa := f.params[1]
	w := writerOf[R](f)
	return func(args []extArg, res *extResult) error {
		a, err := arg(pa, ca, &args[1])
		if err != nil {
			return err
		}
		r, err := fn(self[T](&args[0]), a)
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
}

// The constructors Init takes as plain Go functions, called with no reflection
// where their shape is one of ctorShapes': up to three parameters, each int64,
// int, float64, string or bool (a "*" and defaults change nothing here), returning
// the *T or (*T, error). Reflection's call was ~500 ns of a ~800 ns creation with
// keyword-only parameters (bench_crossings.py, Opts(3, scale=2.0)); a constructor
// of any other parameter types has the same path through Init(Func1..Func4(...)).
//
// The table is one for all classes: a constructor is called as a function of the
// same parameters returning an unsafe.Pointer, which a *T result is in Go's calling
// convention (every pointer type has one shape, the one Go's generic code is
// compiled for), so 312 shapes are compiled once, not once a class.

// ctorKey is a constructor's parameter types (nil past its arity) and whether it
// returns an error.
type ctorKey struct {
	in      [3]reflect.Type
	withErr bool
}

// ctorMaker makes the call of the constructor at fp (a pointer to a variable of
// its func type) for f, writing its result with w.
type ctorMaker func(f *Function, fp unsafe.Pointer, w func(unsafe.Pointer, *extResult) error) callFunc

var ctorShapes = func() map[ctorKey]ctorMaker {
	m := map[ctorKey]ctorMaker{}
	for _, withErr := range []bool{true, false} {
		m[ctorKey{withErr: withErr}] = ctor0(withErr)
		addCtors1[int64](m, withErr)
		addCtors1[int](m, withErr)
		addCtors1[float64](m, withErr)
		addCtors1[string](m, withErr)
		addCtors1[bool](m, withErr)
	}
	return m
}()

func addCtors1[A any](m map[ctorKey]ctorMaker, withErr bool) {
	m[ctorKey{[3]reflect.Type{reflect.TypeFor[A]()}, withErr}] = ctor1[A](withErr)
	addCtors2[A, int64](m, withErr)
	addCtors2[A, int](m, withErr)
	addCtors2[A, float64](m, withErr)
	addCtors2[A, string](m, withErr)
	addCtors2[A, bool](m, withErr)
}

func addCtors2[A, B any](m map[ctorKey]ctorMaker, withErr bool) {
	m[ctorKey{[3]reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[B]()}, withErr}] = ctor2[A, B](withErr)
	addCtors3[A, B, int64](m, withErr)
	addCtors3[A, B, int](m, withErr)
	addCtors3[A, B, float64](m, withErr)
	addCtors3[A, B, string](m, withErr)
	addCtors3[A, B, bool](m, withErr)
}

func addCtors3[A, B, C any](m map[ctorKey]ctorMaker, withErr bool) {
	m[ctorKey{[3]reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C]()}, withErr}] = ctor3[A, B, C](withErr)
}

// constructorCall is the typed call of fn, a constructor returning the pointer
// type ptr, for f (made of it by Func), or nil for a shape not in ctorShapes.
func constructorCall(f *Function, fn any, ptr reflect.Type) callFunc {
	ft := reflect.TypeOf(fn)
	if len(f.errs) != 0 || ft.NumIn() > 3 || ft.IsVariadic() || ft.NumOut() == 0 || ft.Out(0) != ptr {
		return nil
	}
	var k ctorKey
	k.withErr = ft.NumOut() == 2
	for i := range ft.NumIn() {
		k.in[i] = ft.In(i)
	}
	mk, ok := ctorShapes[k]
	if !ok {
		return nil
	}
	v := reflect.New(ft) // a variable holding fn, read as the erased func type
	v.Elem().Set(reflect.ValueOf(fn))
	keep := f.result
	c := mk(f, v.UnsafePointer(), instancePointerWriter(ptr))
	f.result = keep
	return c
}

// writeMade writes a constructor's result: nil is None (Cls(...) then raises).
func writeMade(w func(unsafe.Pointer, *extResult) error, p unsafe.Pointer, err error, res *extResult) error {
	if err != nil || p == nil {
		return err
	}
	return w(p, res)
}

func ctor0(withErr bool) ctorMaker {
	return func(f *Function, fp unsafe.Pointer, w func(unsafe.Pointer, *extResult) error) callFunc {
		call := erased(withErr, fp, func(fn func() unsafe.Pointer) func() (unsafe.Pointer, error) {
			return func() (unsafe.Pointer, error) { return fn(), nil }
		})
		return func(_ []extArg, res *extResult) error {
			p, err := call()
			return writeMade(w, p, err, res)
		}
	}
}

func ctor1[A any](withErr bool) ctorMaker {
	return func(f *Function, fp unsafe.Pointer, w func(unsafe.Pointer, *extResult) error) callFunc {
		ca, pa := converter[A](f, 0), f.params[0]
		call := erased(withErr, fp, func(fn func(A) unsafe.Pointer) func(A) (unsafe.Pointer, error) {
			return func(a A) (unsafe.Pointer, error) { return fn(a), nil }
		})
		return func(args []extArg, res *extResult) error {
			a, err := arg(pa, ca, &args[0])
			if err != nil {
				return unfit(err)
			}
			p, err := call(a)
			return writeMade(w, p, err, res)
		}
	}
}

func ctor2[A, B any](withErr bool) ctorMaker {
	return func(f *Function, fp unsafe.Pointer, w func(unsafe.Pointer, *extResult) error) callFunc {
		ca, cb := converter[A](f, 0), converter[B](f, 1)
		pa, pb := f.params[0], f.params[1]
		call := erased(withErr, fp, func(fn func(A, B) unsafe.Pointer) func(A, B) (unsafe.Pointer, error) {
			return func(a A, b B) (unsafe.Pointer, error) { return fn(a, b), nil }
		})
		return func(args []extArg, res *extResult) error {
			a, err := arg(pa, ca, &args[0])
			if err != nil {
				return unfit(err)
			}
			b, err := arg(pb, cb, &args[1])
			if err != nil {
				return unfit(err)
			}
			p, err := call(a, b)
			return writeMade(w, p, err, res)
		}
	}
}

func ctor3[A, B, C any](withErr bool) ctorMaker {
	return func(f *Function, fp unsafe.Pointer, w func(unsafe.Pointer, *extResult) error) callFunc {
		ca, cb, cc := converter[A](f, 0), converter[B](f, 1), converter[C](f, 2)
		pa, pb, pc := f.params[0], f.params[1], f.params[2]
		call := erased(withErr, fp, func(fn func(A, B, C) unsafe.Pointer) func(A, B, C) (unsafe.Pointer, error) {
			return func(a A, b B, c C) (unsafe.Pointer, error) { return fn(a, b, c), nil }
		})
		return func(args []extArg, res *extResult) error {
			a, err := arg(pa, ca, &args[0])
			if err != nil {
				return unfit(err)
			}
			b, err := arg(pb, cb, &args[1])
			if err != nil {
				return unfit(err)
			}
			c, err := arg(pc, cc, &args[2])
			if err != nil {
				return unfit(err)
			}
			p, err := call(a, b, c)
			return writeMade(w, p, err, res)
		}
	}
}

// erased reads the constructor at fp as E, a func of its parameters returning
// (unsafe.Pointer, error), or, one returning no error, as N, wrapped by noErr.
func erased[E, N any](withErr bool, fp unsafe.Pointer, noErr func(N) E) E {
	if withErr {
		return *(*E)(fp)
	}
	return noErr(*(*N)(fp))
}
