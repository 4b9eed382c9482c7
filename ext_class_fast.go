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

import "github.com/godlpack/godlpack/dlpack/tensor"

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
