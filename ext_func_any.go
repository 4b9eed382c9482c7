package godlpack

// ext_func_any.go: Func, a Function of a Go function of any arity and signature,
// checked once by reflection. Func0..Func4 stay the fast path for up to four
// tensors and scalars: their type parameters give the converters and the call of
// the Go function at compile time, which Func, taking the function as an any,
// cannot reach (Go cannot take a func type apart into its parameter types to
// instantiate them). Func pays reflect.Value.Call and its boxing per call
// (BenchmarkClipFunc against BenchmarkClipFunc3, ext_gocall_test.go), except for
// the common shapes ext_erased.go calls with none (BenchmarkClipFuncErrorOnly).

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// argConv converts one argument of a Func for the Go function (reflection path).
type argConv func(a *extArg) (reflect.Value, error)

// resultWriter writes the Go function's results (the error left out) for C.
type resultsWriter func(out []reflect.Value, res *extResult) error

var errorType = reflect.TypeFor[error]()

// Func makes a Function of any Go function: params names its parameters in
// order, and a "*" among them starts the keyword-only ones, as in Python:
//
//	godlpack.Func("moments", moments, "x", "ddof", "*", "center", "scale")
//
// Parameters may be Tensor[E] and MutTensor[E] (as for Func1..Func4), every Go
// integer type (an int out of its range raises OverflowError), float32,
// float64, complex64, complex128, bool, string, []byte (bytes), slices
// (list), map[string]T (dict), *T (T or None: nil), any and *Object (any
// Python object), and a func returning error or (T, error) (a Python callable:
// a callback, each call taking the GIL). Callables and *Objects are lent for the
// call, as a C extension's arguments: released when it returns, unless the Go
// code keeps them (KeepFunc, Object.Keep). The function returns nothing, an
// error, one value, or several (a tuple), with or without a last error: the
// result types are the parameter types but tensors, plus *tensor.Tensor (a new
// godlpack.Array; nil is None), None and Tuple, and a Go iterator (iter.Seq[V],
// iter.Seq2[K, V]: a lazy Python iterator of V, of a struct V's fields as a
// tuple, of (k, v) pairs; docs/classes.md, Iterators). A non-nil error raises, a
// panic is RuntimeError.
//
// A variadic Go function's last parameter is Python's *args (its name may be
// written "*hists"): the positional arguments past the others, each converted as
// a parameter of the element type, a refusal naming its index ("hists[2]"). A
// map[string]T parameter named "**tags" is **kwargs: the keywords no other
// parameter names, as a dict of T; last, or before the variadic one.
//
// A mistake (an unsupported type, a name count that does not match) is raised
// as ImportError when Python imports the module, listing each.
//
// Func calls a function of up to three parameters, each int64, int, float64,
// string, bool or a tensor, returning only an error, with no reflection
// (ext_erased.go); any other through reflection, a few hundred ns a call more than
// Func0..Func4, which call it directly: declare a hot function of up to four
// tensors and scalars with those.
func Func(name string, fn any, params ...string) *Function {
	names, kwOnly, starred, varKw := splitNames(params)
	fv := reflect.ValueOf(fn)
	if fv.Kind() != reflect.Func || fv.IsNil() {
		f := newFunction(name, 0, nil)
		f.fail("Func needs a non-nil Go function, got %T", fn)
		return f
	}
	ft := fv.Type()
	n := ft.NumIn()
	f := newFunction(name, n, names)
	checkStars(f, params)
	f.declareVar(ft, kwOnly, starred, varKw)
	convs := make([]argConv, n)
	for i := range n {
		t := ft.In(i)
		if i == f.varArgs {
			t = t.Elem() // *args: each element converts as a parameter of its type
		}
		convs[i] = argConverter(f, i, t)
	}
	write := resultsWriterOf(f, ft)
	lends := f.lends()
	f.call = func(args []extArg, res *extResult) error {
		var s *callScope // the Python objects the call lends fn (ext_lend.go)
		if lends {
			s = openScope(f, res.fw)
			defer s.close()
		}
		in := make([]reflect.Value, len(args)) // *args's elements last, as Call takes them
		for i := range args {
			k := min(i, n-1) // an element of *args: its parameter's converter
			var v reflect.Value
			var err error
			if p := f.params[k]; p.lends {
				v, err = lendArg(f, p, &args[i], s)
			} else {
				v, err = convs[k](&args[i])
			}
			if err != nil {
				if k == f.varArgs {
					err = elementError(err, f.params[k], i-k)
				}
				return unfit(err)
			}
			in[i] = v
		}
		return write(fv.Call(in), res)
	}
	if c := erasedCall(f, fn, nil); c != nil { // a common shape: no reflection (ext_erased.go)
		f.call = c
	}
	return f
}

// checkStars refuses a "*" written more than once among params.
func checkStars(f *Function, params []string) {
	if strings.Count(strings.Join(params, "\x00")+"\x00", "*\x00") > 1 {
		f.fail(`"*" may appear once among the parameter names`)
	}
}

// splitNames returns the parameter names without "*" and the index of the first
// keyword-only one (-1: none), with the index of a name written "*name" (*args,
// as Python writes it) and of one written "**name" (**kwargs), -1 for none;
// those names are returned without their stars.
func splitNames(params []string) (names []string, kwOnly, starred, varKw int) {
	names = make([]string, 0, len(params))
	kwOnly, starred, varKw = -1, -1, -1
	for _, p := range params {
		switch {
		case p == "*":
			if kwOnly < 0 {
				kwOnly = len(names)
			}
			continue
		case strings.HasPrefix(p, "**"):
			varKw, p = len(names), p[2:]
		case strings.HasPrefix(p, "*"):
			starred, p = len(names), p[1:]
		}
		names = append(names, p)
	}
	return names, kwOnly, starred, varKw
}

// declareVar sets f's *args (a variadic Go function's last parameter) and
// **kwargs (the parameter named "**name": a map[string]T, last or before *args),
// and the positions they leave: the parameters before them, or before "*".
func (f *Function) declareVar(ft reflect.Type, kwOnly, starred, varKw int) {
	n := ft.NumIn()
	if ft.IsVariadic() {
		f.varArgs = n - 1
		if kwOnly >= 0 {
			f.fail(`a variadic Go function (*args) takes no keyword-only parameters: drop "*"`)
		}
	}
	if starred >= 0 && starred != f.varArgs {
		f.fail("parameter *%s: *args is a variadic Go function's last parameter (...T)", f.params[starred].name)
	}
	if varKw >= 0 {
		last := n - 1
		if f.varArgs >= 0 {
			last-- // Python's (*args, **kwargs): Go's func(..., kw map[string]T, args ...E)
		}
		t := ft.In(varKw)
		switch {
		case t.Kind() != reflect.Map || t.Key().Kind() != reflect.String:
			f.fail("parameter **%s: **kwargs takes a map[string]T (the keywords no other parameter names), got %v", f.params[varKw].name, t)
		case varKw != last:
			f.fail("parameter **%s: **kwargs must be the last parameter (before a variadic one's *args)", f.params[varKw].name)
		default:
			f.varKw = varKw
		}
	}
	for _, i := range []int{f.varKw, f.varArgs} {
		if i >= 0 && f.kwOnly > i {
			f.kwOnly = i // positional arguments stop there: *args takes the rest
		}
	}
	if kwOnly >= 0 {
		f.kwOnly = min(f.kwOnly, kwOnly)
	}
}

// argConverter chooses, once, how argument i of f becomes a Go value of type t.
func argConverter(f *Function, i int, t reflect.Type) argConv {
	p := f.params[i]
	p.goType = t
	if tp, ok := reflect.Zero(t).Interface().(tensorParam); ok {
		p.kind = extTensor // MutTensor's converter makes it GD_EXT_MUT_TENSOR
		dts, ok := dtypesOf(tp.elementType())
		if !ok {
			f.fail("parameter %s: %v: the type argument must be a DLPack element type or a godlpack.DTypeSet", p.name, t)
		}
		p.setDTypes(dts)
		return reflect.Zero(t).Interface().(tensorValueParam).valueConverter(f, p) // ext_tensor.go
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32:
		p.kind = extInt
		lo, hi := intRange(t)
		enum := enumOf(t) // an IntEnumFor type: its members only
		return func(a *extArg) (reflect.Value, error) {
			v := int64(a.i)
			if e := enum(); e != nil && e.memberName(v) == "" {
				return reflect.Value{}, e.notMember(f, p, v)
			}
			if v < lo || v > hi {
				return reflect.Value{}, outOfRange(f, p, v)
			}
			return reflect.ValueOf(v).Convert(t), nil
		}
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		p.kind = extUint // C checks the range: 0 to 2**64-1
		return func(a *extArg) (reflect.Value, error) {
			v := uint64(a.i)
			if t.Bits() < 64 && v > math.MaxUint32 {
				return reflect.Value{}, OverflowError.Errorf("%s(): argument %s: %d is out of range for %s", f.name, p.name, v, intRangeName(t))
			}
			return reflect.ValueOf(v).Convert(t), nil
		}
	case reflect.Float32, reflect.Float64:
		p.kind = extFloat
		return func(a *extArg) (reflect.Value, error) { return reflect.ValueOf(float64(a.f)).Convert(t), nil }
	case reflect.Bool:
		p.kind = extBool
		return func(a *extArg) (reflect.Value, error) { return reflect.ValueOf(a.i != 0).Convert(t), nil }
	case reflect.String:
		p.kind = extStr
		return func(a *extArg) (reflect.Value, error) {
			return reflect.ValueOf(argString(a)).Convert(t), nil
		}
	}
	if isInstanceType(t) { // a bound class's *T: its class is resolved at import (unboundClasses)
		p.kind = extInstance
		f.classTypes = append(f.classTypes, t)
		return instanceConverter(t)
	}
	if t.Kind() == reflect.Func { // a Python callable called as this Go func (ext_callback.go)
		if why := callbackType(t); why != "" {
			f.fail("parameter %s: %s", p.name, why)
		}
		p.kind, p.lends = extObject, true
		return nil // lendArg converts it
	}
	if err := convertible(t, false); err != "" {
		f.fail("parameter %s: %s", p.name, err)
		return func(*extArg) (reflect.Value, error) {
			return reflect.Value{}, RuntimeError.Errorf("%s(): unsupported parameter", f.name)
		}
	}
	p.kind, p.lends = extObject, lendsIn(t)
	return func(a *extArg) (reflect.Value, error) { return objectArg(f, p, a) }
}

// outOfRange is the OverflowError of an int argument v outside p's integer type.
func outOfRange(f *Function, p *param, v int64) error {
	return OverflowError.Errorf("%s(): argument %s: %d is out of range for %s", f.name, p.name, v, intRangeName(p.goType))
}

// intRangeName is an integer type with its values, as OverflowErrors name it:
// "int8 (-128 to 127)".
func intRangeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprintf("%v (0 to %d)", t, uint64(1)<<(t.Bits()-1)<<1-1)
	}
	lo, hi := intRange(t)
	return fmt.Sprintf("%v (%d to %d)", t, lo, hi)
}

// narrowIntName is intRangeName of an integer parameter type narrower than int64,
// for C's OverflowError of an int beyond int64 (ext_call.c's int64_arg); "" for
// int64 and int, whose message is C's own.
func narrowIntName(t reflect.Type) string {
	if lo, hi := intRange(t); lo == math.MinInt64 && hi == math.MaxInt64 {
		return ""
	}
	return intRangeName(t)
}

// intRange is the values of a signed or 32-bit-or-narrower unsigned integer type.
func intRange(t reflect.Type) (lo, hi int64) {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return 0, int64(1)<<bits - 1
	}
	if bits == 64 {
		return math.MinInt64, math.MaxInt64
	}
	return -(int64(1) << (bits - 1)), int64(1)<<(bits-1) - 1
}

// acceptsOf is what C checks of an OBJECT argument of type t before Go converts
// it (GD_EXT_ACCEPT_* bits; 0: anything): its Python type, so that a mismatch is a
// TypeError in C and an overload set tries its next alternative.
func acceptsOf(t reflect.Type) cInt32 {
	if t == reflect.TypeFor[*Object]() {
		return 0
	}
	switch t.Kind() {
	case reflect.Pointer:
		if inner := acceptsOf(t.Elem()); inner != 0 {
			return extAcceptNone | inner
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return extAcceptBytes
		}
		return extAcceptSeq
	case reflect.Map:
		return extAcceptDict
	case reflect.Func:
		return extAcceptCallable
	case reflect.String:
		return extAcceptStr
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return extAcceptNumber
	}
	return 0
}

// convertible says why values of t cannot cross between Go and Python ("":
// they can), as a parameter (result false) or a result.
func convertible(t reflect.Type, result bool) string { return convertibleAt(t, result, 0) }

// maxTypeDepth bounds convertibleAt's walk into a type: only a type that holds
// itself (type L []L) goes deeper, and is refused instead of overflowing the stack.
const maxTypeDepth = 64

func convertibleAt(t reflect.Type, result bool, depth int) string {
	if depth > maxTypeDepth {
		return "unsupported type " + t.String() + ": a type holding itself"
	}
	if t == reflect.TypeFor[*Object]() || (result && t == reflect.TypeFor[*tensor.Tensor]()) {
		return ""
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return ""
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return ""
		}
		return convertibleAt(t.Elem(), false, depth+1)
	case reflect.Map:
		switch {
		case t.Key().Kind() == reflect.String:
		case !result: // a dict's keys convert to Go as str only (fromPython)
			return "unsupported type " + t.String() + ": a dict's keys must be str (map[string]T)"
		case dictKeyType(t.Key()) != "":
			return "unsupported type " + t.String() + ": " + dictKeyType(t.Key())
		}
		return convertibleAt(t.Elem(), false, depth+1)
	case reflect.Pointer:
		switch {
		case t == reflect.TypeFor[*tensor.Tensor]():
			// From Python, a tensor is a Tensor[E] parameter, or an *Object's Tensor().
			return "a *tensor.Tensor goes from Go to Python only (a result, a callback's argument): " +
				"take a tensor as Tensor[E] (a parameter), or as *godlpack.Object and call its Tensor method"
		case isInstanceType(t):
			return "unsupported type " + t.String() + ": a bound class's *T is taken and returned only as " +
				"a function's own parameter or result, not inside a list, a dict or a callback's signature " +
				"(use *godlpack.Object there)"
		}
		return convertibleAt(t.Elem(), false, depth+1)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return ""
		}
	}
	return "unsupported type " + t.String() + " (use a tensor, a number, bool, string, []byte, a slice, map[string]T, *T, any or *godlpack.Object)"
}

// dictKeyType says why a Go map's keys of type t cannot be a Python dict's keys
// ("": they can): bools, numbers and strings can, each as its Python type; an
// interface's keys are checked one by one (plainMap).
func dictKeyType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return ""
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return ""
		}
	}
	return "its keys of type " + t.String() + " have no Python dict key to become (use bool, number or string keys)"
}

// resultsWriterOf chooses, once, how the results of a Go function of type ft
// are written: nothing (None), one value, or several (a tuple), a last error
// raised instead.
func resultsWriterOf(f *Function, ft reflect.Type) resultsWriter {
	nout := ft.NumOut()
	hasErr := nout > 0 && ft.Out(nout-1) == errorType
	if hasErr {
		nout--
	}
	switch nout { // the Python result's type, for stubs
	case 0:
		f.result = reflect.TypeFor[None]()
	case 1:
		f.result = ft.Out(0)
	default:
		f.result = reflect.TypeFor[Tuple]()
	}
	writers := make([]func(reflect.Value, *extResult) error, nout)
	for i := range nout {
		writers[i] = valueWriter(f, ft.Out(i))
	}
	return func(out []reflect.Value, res *extResult) error {
		if hasErr {
			if err, _ := out[nout].Interface().(error); err != nil {
				return err
			}
		}
		switch nout {
		case 0:
			return nil
		case 1:
			return writers[0](out[0], res)
		}
		items, err := newTuple(res, nout)
		if err != nil {
			return err
		}
		for i, w := range writers {
			if err := w(out[i], &items[i]); err != nil {
				return err // the caller frees res, the items written so far included
			}
		}
		return nil
	}
}

// valueWriter chooses, once, how a result of type t is written: the kinds C
// builds itself (numbers, str, tensors, tuples), else a Python object made in Go
// with the GIL (GD_EXT_R_OBJECT).
func valueWriter(f *Function, t reflect.Type) func(reflect.Value, *extResult) error {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32:
		enum := enumOf(t) // an IntEnumFor type: C makes the member (GD_EXT_R_ENUM)
		return func(v reflect.Value, r *extResult) error {
			r.kind, r.i = extRInt, cInt64(intOf(v))
			if e := enum(); e != nil {
				r.kind, r.n = extREnum, cInt64(e.id)
			}
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value, r *extResult) error {
			r.kind, r.f = extRFloat, cDouble(v.Float())
			return nil
		}
	case reflect.Bool, reflect.String:
		return func(v reflect.Value, r *extResult) error { return writeValue(v.Interface(), r) }
	}
	switch t {
	case reflect.TypeFor[*tensor.Tensor](), reflect.TypeFor[None](), reflect.TypeFor[Tuple](), reflect.TypeFor[any]():
		return func(v reflect.Value, r *extResult) error { return writeValue(v.Interface(), r) }
	}
	if isInstanceType(t) {
		f.classTypes = append(f.classTypes, t)
		return instanceWriter(t)
	}
	if elems := seqElems(t); elems != nil { // iter.Seq, iter.Seq2: a lazy Python iterator
		write := seqItemWriter(f, elems)
		return func(v reflect.Value, r *extResult) error {
			if v.IsNil() {
				return nil // None
			}
			return writeSeq(newPulledSeq(f, v, write), v, r)
		}
	}
	if sa, ok := sliceArrays[t]; ok { // []E: a list, or an array (sliceArray)
		return func(v reflect.Value, r *extResult) error { return sa.write(f, v.Interface(), r) }
	}
	if why := convertible(t, true); why != "" {
		f.fail("result: %s", why)
	}
	return writeObject
}

// callbackType says why a Go func type cannot be a callback parameter (""
// when it can): its parameters must convert to Python (as results do), and it
// returns an error last, which carries the Python exception, after at most one
// value converted from the callable's result.
func callbackType(t reflect.Type) string {
	if t.IsVariadic() {
		return "a callback type cannot be variadic"
	}
	n := t.NumOut()
	if n == 0 || n > 2 || t.Out(n-1) != errorType {
		return "a callback type must return error or (T, error): " + t.String()
	}
	for i := range t.NumIn() {
		if why := convertible(t.In(i), true); why != "" {
			return "callback parameter " + why
		}
	}
	if n == 2 {
		if why := convertible(t.Out(0), false); why != "" {
			return "callback result " + why
		}
	}
	return ""
}
