package godlpack

// ext_erased.go: the calls of Go functions that Func and Init take as an any,
// made with no reflection where their shape is a common one: up to three
// parameters, each int64, int, float64, string, bool or a tensor (Tensor[E],
// MutTensor[E]), and a function returning only an error (Func: an in-place
// operation) or a constructor returning the *T, with or without an error (Init).
// reflect.Value.Call and its boxing were ~300-500 ns a call (Opts(3, scale=2.0):
// 866 -> 243 ns; bench_crossings.py). Other shapes keep Func's reflective call;
// Func1..Func4 are typed for any parameter types.
//
// The table is compiled once for every function and class: a function is called
// as one of the same calling convention with its parameter and result types
// erased. A tensor parameter is one pointer (Tensor[E]'s one field) and is passed
// as an unsafe.Pointer, a constructor's *T is returned as one: every pointer-shaped
// type has Go's one pointer shape, the one its generic code is compiled for, so
// the erased function is called exactly as the author's would be. Scalar types are
// kept exact (their converters differ: narrow ranges, enums), so 6 kinds over up
// to three parameters make 259 shapes of each family.

import (
	"reflect"
	"unsafe"
)

// erasedFamily is the result shape: a constructor's (unsafe.Pointer, error) or
// unsafe.Pointer, or a function's error.
type erasedFamily uint8

const (
	erasedCtor erasedFamily = iota
	erasedErrOnly
)

// erasedKey is a function's erased parameter types (nil past its arity) and its
// family.
type erasedKey struct {
	in     [3]reflect.Type
	family erasedFamily
}

// erasedMaker makes the call of the function at fp (a pointer to a variable of
// its own func type) for f: a constructor's result written with w, or (nil w)
// none; withErr: a constructor that returns an error too.
type erasedMaker func(f *Function, fp unsafe.Pointer, withErr bool, w func(unsafe.Pointer, *extResult) error) callFunc

var erasedShapes = func() map[erasedKey]erasedMaker {
	m := map[erasedKey]erasedMaker{}
	m[erasedKey{family: erasedCtor}] = ctor0
	m[erasedKey{family: erasedErrOnly}] = proc0
	addErased1[int64](m)
	addErased1[int](m)
	addErased1[float64](m)
	addErased1[string](m)
	addErased1[bool](m)
	addErased1[unsafe.Pointer](m)
	return m
}()

func addErased1[A any](m map[erasedKey]erasedMaker) {
	in := [3]reflect.Type{reflect.TypeFor[A]()}
	m[erasedKey{in, erasedCtor}], m[erasedKey{in, erasedErrOnly}] = ctor1[A], proc1[A]
	addErased2[A, int64](m)
	addErased2[A, int](m)
	addErased2[A, float64](m)
	addErased2[A, string](m)
	addErased2[A, bool](m)
	addErased2[A, unsafe.Pointer](m)
}

func addErased2[A, B any](m map[erasedKey]erasedMaker) {
	in := [3]reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[B]()}
	m[erasedKey{in, erasedCtor}], m[erasedKey{in, erasedErrOnly}] = ctor2[A, B], proc2[A, B]
	addErased3[A, B, int64](m)
	addErased3[A, B, int](m)
	addErased3[A, B, float64](m)
	addErased3[A, B, string](m)
	addErased3[A, B, bool](m)
	addErased3[A, B, unsafe.Pointer](m)
}

func addErased3[A, B, C any](m map[erasedKey]erasedMaker) {
	in := [3]reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C]()}
	m[erasedKey{in, erasedCtor}], m[erasedKey{in, erasedErrOnly}] = ctor3[A, B, C], proc3[A, B, C]
}

// erasedParam is the type parameter t is passed as in an erased call, or nil.
func erasedParam(t reflect.Type) reflect.Type {
	switch t {
	case reflect.TypeFor[int64](), reflect.TypeFor[int](), reflect.TypeFor[float64](),
		reflect.TypeFor[string](), reflect.TypeFor[bool]():
		return t
	}
	if _, ok := reflect.Zero(t).Interface().(tensorParam); ok {
		return reflect.TypeFor[unsafe.Pointer]()
	}
	return nil
}

// erasedCall is the call of fn (Func made f of it) with no reflection, or nil for
// a shape not in erasedShapes: a constructor returning ptr (Init), or, ptr nil, a
// function returning only an error.
func erasedCall(f *Function, fn any, ptr reflect.Type) callFunc {
	ft := reflect.TypeOf(fn)
	if len(f.errs) != 0 || ft.NumIn() > 3 || ft.IsVariadic() || f.varKw >= 0 || f.lends() {
		return nil
	}
	k := erasedKey{family: erasedErrOnly}
	withErr := ft.NumOut() == 2
	switch {
	case ptr != nil && ft.NumOut() > 0 && ft.Out(0) == ptr:
		k.family = erasedCtor
	case ptr != nil || ft.NumOut() != 1 || ft.Out(0) != errorType:
		return nil
	}
	for i := range ft.NumIn() {
		if k.in[i] = erasedParam(ft.In(i)); k.in[i] == nil {
			return nil
		}
	}
	mk, ok := erasedShapes[k]
	if !ok {
		return nil
	}
	var w func(unsafe.Pointer, *extResult) error
	if ptr != nil {
		w = instancePointerWriter(ptr)
	}
	keep := f.result
	c := mk(f, funcVar(fn), withErr, w)
	f.result = keep
	return c
}

// funcVar is a pointer to a new variable holding fn, a func: read as another func
// type of the same calling convention (erasedCall's).
func funcVar(fn any) unsafe.Pointer {
	v := reflect.New(reflect.TypeOf(fn))
	v.Elem().Set(reflect.ValueOf(fn))
	return v.UnsafePointer()
}

// erasedConverter is how argument i of f becomes an A: a scalar's converter, or
// for unsafe.Pointer the tensor parameter's own converter (its Tensor[E] result
// is one pointer), chosen once.
func erasedConverter[A any](f *Function, i int) func(*extArg) (A, error) {
	if _, ok := any(*new(A)).(unsafe.Pointer); ok {
		p := f.params[i]
		c := reflect.Zero(p.goType).Interface().(tensorParam).converter(f, p)
		return *(*func(*extArg) (A, error))(funcVar(c))
	}
	return converter[A](f, i)
}

// writeMade writes a constructor's result: nil is None (Cls(...) then raises).
func writeMade(w func(unsafe.Pointer, *extResult) error, p unsafe.Pointer, err error, res *extResult) error {
	if err != nil || p == nil {
		return err
	}
	return w(p, res)
}

// ctorOf reads the constructor at fp as func(...) (unsafe.Pointer, error) (E),
// or, one returning no error, as N, wrapped by noErr.
func ctorOf[E, N any](withErr bool, fp unsafe.Pointer, noErr func(N) E) E {
	if withErr {
		return *(*E)(fp)
	}
	return noErr(*(*N)(fp))
}

func ctor0(f *Function, fp unsafe.Pointer, withErr bool, w func(unsafe.Pointer, *extResult) error) callFunc {
	call := ctorOf(withErr, fp, func(fn func() unsafe.Pointer) func() (unsafe.Pointer, error) {
		return func() (unsafe.Pointer, error) { return fn(), nil }
	})
	return func(_ []extArg, res *extResult) error {
		p, err := call()
		return writeMade(w, p, err, res)
	}
}

func ctor1[A any](f *Function, fp unsafe.Pointer, withErr bool, w func(unsafe.Pointer, *extResult) error) callFunc {
	ca, pa := erasedConverter[A](f, 0), f.params[0]
	call := ctorOf(withErr, fp, func(fn func(A) unsafe.Pointer) func(A) (unsafe.Pointer, error) {
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

func ctor2[A, B any](f *Function, fp unsafe.Pointer, withErr bool, w func(unsafe.Pointer, *extResult) error) callFunc {
	ca, cb := erasedConverter[A](f, 0), erasedConverter[B](f, 1)
	pa, pb := f.params[0], f.params[1]
	call := ctorOf(withErr, fp, func(fn func(A, B) unsafe.Pointer) func(A, B) (unsafe.Pointer, error) {
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

func ctor3[A, B, C any](f *Function, fp unsafe.Pointer, withErr bool, w func(unsafe.Pointer, *extResult) error) callFunc {
	ca, cb, cc := erasedConverter[A](f, 0), erasedConverter[B](f, 1), erasedConverter[C](f, 2)
	pa, pb, pc := f.params[0], f.params[1], f.params[2]
	call := ctorOf(withErr, fp, func(fn func(A, B, C) unsafe.Pointer) func(A, B, C) (unsafe.Pointer, error) {
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

// The functions returning only an error (the result None).

func proc0(f *Function, fp unsafe.Pointer, _ bool, _ func(unsafe.Pointer, *extResult) error) callFunc {
	fn := *(*func() error)(fp)
	return func([]extArg, *extResult) error { return fn() }
}

func proc1[A any](f *Function, fp unsafe.Pointer, _ bool, _ func(unsafe.Pointer, *extResult) error) callFunc {
	ca, pa := erasedConverter[A](f, 0), f.params[0]
	fn := *(*func(A) error)(fp)
	return func(args []extArg, _ *extResult) error {
		a, err := arg(pa, ca, &args[0])
		if err != nil {
			return unfit(err)
		}
		return fn(a)
	}
}

func proc2[A, B any](f *Function, fp unsafe.Pointer, _ bool, _ func(unsafe.Pointer, *extResult) error) callFunc {
	ca, cb := erasedConverter[A](f, 0), erasedConverter[B](f, 1)
	pa, pb := f.params[0], f.params[1]
	fn := *(*func(A, B) error)(fp)
	return func(args []extArg, _ *extResult) error {
		a, err := arg(pa, ca, &args[0])
		if err != nil {
			return unfit(err)
		}
		b, err := arg(pb, cb, &args[1])
		if err != nil {
			return unfit(err)
		}
		return fn(a, b)
	}
}

func proc3[A, B, C any](f *Function, fp unsafe.Pointer, _ bool, _ func(unsafe.Pointer, *extResult) error) callFunc {
	ca, cb, cc := erasedConverter[A](f, 0), erasedConverter[B](f, 1), erasedConverter[C](f, 2)
	pa, pb, pc := f.params[0], f.params[1], f.params[2]
	fn := *(*func(A, B, C) error)(fp)
	return func(args []extArg, _ *extResult) error {
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
		return fn(a, b, c)
	}
}
