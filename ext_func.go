package godlpack

// ext_func.go: Function, its parameters and their rules (no build tag and no C:
// go doc shows them from a plain checkout, and Check applies the rules in a go
// test with no Python; ext_module_cpython.go makes the C table).

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
)

// A Function is one Python function of an extension module, made from an
// ordinary Go function by Func (any signature) or Func0 to Func4 (up to four
// tensors and scalars, called with no reflection) and refined by its methods
// (Doc, Default, Where, HoldGIL) before it is passed to Module.
//
// The Go function's parameters say what Python may pass: Tensor[E] and
// MutTensor[E] take any DLPack tensor (E: its dtypes), int64 or int a Python int,
// float64 a float (or int), bool a bool, string a str. Its first result becomes
// the Python result: *tensor.Tensor (a new godlpack.Array owning it; nil is
// None), None, int64, int, float64, bool, string, Tuple, or any of these as an
// any. A non-nil error raises instead (ValueError, or the Exception wrapping it),
// and so does a panic (RuntimeError with its message).
//
// Everything about a parameter is worked out once, here; a call converts each
// argument with a converter chosen then, with no reflection.
type Function struct {
	name   string
	doc    string
	params []*param
	result reflect.Type // the Go function's first result (the Python result's type, for stubs)
	kwOnly int          // the index of the first keyword-only parameter ("*" in Func's names); len(params): none
	// varArgs is the *args parameter (a variadic Go function's last: its element
	// type, converted per element), varKw the **kwargs one (a map[string]T named
	// "**name"); -1: none. kwOnly is at most either: they take no position.
	varArgs, varKw int
	// resultLike is ResultLike's parameter (-1: none), resultFw ResultIn's GD_EXT_FW_*.
	resultLike int
	resultFw   cInt32
	gil        cInt32   // extGil*: what a call does with the GIL (HoldGIL, ReleaseGIL)
	errs       []string // registration errors, raised as ImportError by the module
	// classTypes are the *T of bound classes among its parameters and results,
	// checked when the module is imported (Class may come after Func).
	classTypes []reflect.Type
	overloads  []*Function // an overload set's alternatives (Overload)
	// methodKind: how its class binds it (extMethod; extStaticMethod and
	// extClassMethod: StaticMethod's and ClassMethod's)
	methodKind cInt32
	call       func(args []extArg, res *extResult) error
	cfunc      *cExtFunc // made at the first module exec
	id         int32
	// makesInstance: its result is a bound class's *T, so a call keeps a released
	// id for the instance it makes (ext_class_cpython.go); set with cfunc.
	makesInstance bool
}

// param is one parameter: its name, the kind C converts, and a tensor's constraints.
type param struct {
	name       string
	kind       cInt32
	goType     reflect.Type
	hasDefault bool
	def        any
	// lends: a callback or a value holding *Objects, which the call lends the Go
	// function until it returns (ext_lend.go)
	lends bool
	// slice: Slices's element type name ("float64"), which a list or tuple
	// argument is copied as; "" for a tensor that stands for no Go slice.
	slice string

	dtypes     []*dlpack.DType // nil: any
	dtypeKeys  []uint32        // the same as (code, bits, lanes) keys, for the check
	writable   bool
	ndim       int     // -1: any
	shape      []int64 // nil: any; -1: any extent in that dimension
	contiguous bool
	// allowOverlap: the author's AllowOverlap, a MutTensor that may alias itself.
	allowOverlap bool

	// For the tensor converters' path with no call (arg, holds), set by finish at
	// the first module exec, when Where and Default have had their say.
	quickKey uint32  // a tensor with one dtype and no shape or layout constraint: that dtype's key; else 0
	refuse   cUint64 // the flags a tensor must not have: READ_ONLY for a MutTensor
	mut      cInt32  // gd_ext_arg.mut, set by every tensor converter: 1 for a MutTensor
	noAlias  bool    // a MutTensor without AllowOverlap: refuse one whose elements alias

	// word: an int64 or float64 parameter's, the offset in gd_ext_arg of the
	// field (i, f) whose bits are its Go value (0: none; no such field is first):
	// arg reads it with no call, where the converter's call was a nanosecond or two
	// of a 4x4 clip_'s body.
	word uintptr
	// defStr: where C keeps a string parameter's default (ext_call.c passes those
	// bytes, def_s, whenever the argument is left out), for which the converter
	// returns defGo, the Go string they were made from, instead of copying them
	// (an allocation a call); nil where there is none.
	defStr *byte
	defGo  string
}

func newFunction(name string, n int, names []string) *Function {
	f := &Function{name: name, id: -1, gil: extGilAuto, kwOnly: n, resultLike: -1, varArgs: -1, varKw: -1}
	if name == "" || !validIdentifier(name) {
		f.fail("%q is not a valid Python function name", name)
	}
	if len(names) != n {
		f.fail("the Go function has %d parameters but %d names were given (%s)", n, len(names), strings.Join(names, ", "))
	}
	seen := map[string]bool{}
	for i := range n {
		p := &param{name: fmt.Sprintf("arg%d", i), ndim: -1}
		if i < len(names) {
			p.name = names[i]
			if !validIdentifier(p.name) || seen[p.name] {
				f.fail("parameter name %q is not a valid, unique Python identifier", p.name)
			}
			seen[p.name] = true
		}
		f.params = append(f.params, p)
	}
	return f
}

// newTypedFunction is newFunction for Func1..Func4, whose params may hold a "*"
// starting the keyword-only parameters, as Func's: every parameter form has the
// typed path (*args and **kwargs need a variadic function or a map, so Func).
func newTypedFunction(name string, n int, params []string) *Function {
	names, kwOnly, starred, varKw := splitNames(params)
	f := newFunction(name, n, names)
	checkStars(f, params)
	if starred >= 0 || varKw >= 0 {
		f.fail("*args and **kwargs need a variadic Go function or a map[string]T parameter: declare %s with Func", name)
	}
	if kwOnly >= 0 {
		f.kwOnly = kwOnly
	}
	return f
}

func validIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && '0' <= r && r <= '9')) {
			return false
		}
	}
	return s != ""
}

func (f *Function) fail(format string, a ...any) {
	f.errs = append(f.errs, f.name+"(): "+fmt.Sprintf(format, a...))
}

func (f *Function) param(name string) *param {
	for _, p := range f.params {
		if p.name == name {
			return p
		}
	}
	f.fail("no parameter named %q", name)
	return nil
}

// paramOf is the parameter of a call's argument i: *args's for its elements, the last.
func (f *Function) paramOf(i int) *param { return f.params[min(i, len(f.params)-1)] }

// isVar reports whether parameter i is *args or **kwargs, which take no position
// and no default.
func (f *Function) isVar(i int) bool { return i == f.varArgs || i == f.varKw }

// elementError names, in err (a conversion error of *args's element j), the
// element: "argument hists[2]: ..." where the converter said "argument hists: ...".
func elementError(err error, p *param, j int) error {
	ee, ok := err.(*exceptionError)
	if !ok {
		return err
	}
	named := "argument " + p.name + ":"
	msg := strings.Replace(ee.Error(), named, "argument "+p.name+"["+strconv.Itoa(j)+"]:", 1)
	return &exceptionError{ee.kind, errors.New(msg)}
}

// Call calls the function from Go as Python would call it, for a go test of an
// extension: a build without Python (no godlpack_python build tag, go test's
// default), in which the package's init functions declared the module. Each
// argument is what Python would pass, in Go: a *tensor.Tensor for a tensor
// parameter (lent for the call without a copy: a MutTensor's writes are seen in
// it; nil for an absent optional one), a Go integer, float, bool or string for a
// scalar, a value of the parameter's type for the others (a list's []float64, a
// class's *T). A last argument of type Kw holds keyword arguments, f(x, Kw{"k": 2})
// for Python's f(x, k=2), bound by Python's rules with its TypeErrors: keyword-only
// parameters (after "*") by keyword only, no parameter given twice, no unknown
// name (but into **kwargs); positional arguments past the others go to *args.
// Arguments left out take their defaults. The result is what Python
// would get, in Go: nil for None, a *tensor.Tensor for an array (the caller's to
// Close), int64, float64, bool, string, a Tuple of these, or the Go value itself
// for an object or an instance. The error is what would raise: a wrong argument's
// TypeError (the same converters and constraints run), or the function's own,
// unchanged: errors.Is and errors.As find what it wraps, since the exception class
// ExceptionFor maps it to exists only in Python. What needs an interpreter (Keep,
// Object) returns ErrNoPython. In a build with Python (the extension itself) it
// returns an error: Python calls the function there.
func (f *Function) Call(args ...any) (any, error) {
	if f == nil {
		return nil, errors.New("godlpack: Call of a nil *Function (Lookup found no such function)")
	}
	return f.goCall(args)
}

// Doc sets the function's docstring (its signature line is added for help() and
// inspect.signature).
func (f *Function) Doc(doc string) *Function {
	f.doc = doc
	return f
}

// HoldGIL keeps the GIL held while the Go function runs, for functions that need
// Python (none written with this package's API do).
//
// By default the GIL is released while the Go function runs whenever another
// thread could take it: when a thread other than the caller has a Python thread
// state (any Python thread, running or idle). In a program with one thread nobody
// could, and the release and retake (~36 ns, a third of a short call) are skipped.
// Then a thread that comes to Python only during the call (a C library's callback
// thread calling PyGILState_Ensure; the release of a kept NumPy tensor on another
// goroutine, which takes the GIL) waits until the call returns, as during any C
// function holding the GIL. A function whose Go code waits for such a thread
// must release the GIL always: ReleaseGIL. A function taking callbacks or
// *Objects does by default, so that goroutines of its own may call back while it
// waits for them; declared HoldGIL, such an argument used from another goroutine
// during the call returns a RuntimeError naming ReleaseGIL, where waiting for the
// GIL would wait for ever.
func (f *Function) HoldGIL() *Function {
	f.gil = extGilHold
	return f
}

// GILReleases returns how many calls of this extension's functions, made from the
// calling OS thread, have released the GIL around their Go function so far.
//
// Deprecated: use godlpacktest.GILReleases.
func GILReleases() int64 { return gilReleases() }

// ReleaseGIL releases the GIL while the Go function runs on every call, even
// when no other Python thread exists (see HoldGIL for the default), for
// functions whose Go code waits for threads that need the GIL: goroutines that
// call Keep (allowed only in such functions) or close kept tensors of producers
// whose release takes the GIL (NumPy's), C libraries calling back into Python.
func (f *Function) ReleaseGIL() *Function {
	f.gil = extGilRelease
	return f
}

// Default gives a parameter a default value, making it optional in Python: an
// int/int64 for an int, a float64 (or int) for a float, a bool, a string, and
// nil for a Tensor or MutTensor: Python may then pass None or leave it out, and
// the function gets a tensor whose IsNone is true (its constraints apply only to
// a tensor passed). Parameters after it must have defaults too.
func (f *Function) Default(name string, value any) *Function {
	p := f.param(name)
	if p == nil {
		return f
	}
	p.hasDefault, p.def = true, value
	return f
}

// A Constraint is a rule a tensor argument must meet: package constraint's C.
//
// Deprecated: use constraint.C, the rules' own package.
type Constraint = constraint.C

// NDim requires n dimensions.
//
// Deprecated: use constraint.NDim.
func NDim(n int) Constraint { return constraint.NDim(n) }

// Shape requires these extents; -1 accepts any extent in its dimension.
//
// Deprecated: use constraint.Shape.
func Shape(dims ...int64) Constraint { return constraint.Shape(dims...) }

// Contiguous requires C-contiguous elements.
//
// Deprecated: use constraint.Contiguous.
func Contiguous() Constraint { return constraint.Contiguous() }

// AllowOverlap accepts, for a MutTensor, a view whose elements alias each other.
//
// Deprecated: use constraint.AllowOverlap.
func AllowOverlap() Constraint { return constraint.AllowOverlap() }

// DTypes narrows the dtypes a Tensor[Any] (or any Tensor) accepts.
//
// Deprecated: use constraint.DTypes.
func DTypes(dts ...*dlpack.DType) Constraint { return constraint.DTypes(dts...) }

// Where adds constraints (package constraint's) to a tensor parameter, checked
// before the function runs: an argument that breaks one raises TypeError (an
// aliasing MutTensor ValueError) naming the function, the parameter and the rule.
func (f *Function) Where(name string, cs ...constraint.C) *Function {
	p := f.param(name)
	if p == nil {
		return f
	}
	if p.kind != extTensor && p.kind != extMutTensor {
		f.fail("parameter %s is not a tensor: it takes no constraints", name)
		return f
	}
	for _, c := range cs {
		p.apply(c)
	}
	if p.allowOverlap && p.kind != extMutTensor {
		f.fail("parameter %s: AllowOverlap applies to a MutTensor (a Tensor is only read)", name)
	}
	if p.shape != nil && p.ndim != len(p.shape) {
		f.fail("parameter %s: NDim(%d) and a Shape of %d extents disagree: give one", name, p.ndim, len(p.shape))
	}
	return f
}

// apply sets what c requires of p's arguments.
func (p *param) apply(c constraint.C) {
	if n, ok := c.NDim(); ok {
		p.ndim = n
	}
	if dims, ok := c.Shape(); ok {
		p.shape = dims
	}
	p.contiguous = p.contiguous || c.Contiguous()
	p.allowOverlap = p.allowOverlap || c.AllowOverlap()
	if dts, ok := c.DTypes(); ok {
		p.setDTypes(dts)
	}
}

func (p *param) setDTypes(dts []*dlpack.DType) {
	p.dtypes, p.dtypeKeys = dts, nil
	for _, d := range dts {
		p.dtypeKeys = append(p.dtypeKeys, dtypeKey(uint8(d.DL.Code), uint8(d.DL.Bits), uint16(d.DL.Lanes)))
	}
}

func dtypeKey(code, bits uint8, lanes uint16) uint32 {
	return uint32(code) | uint32(bits)<<8 | uint32(lanes)<<16
}

// converter chooses, once, how argument i of f becomes a Go A.
func converter[A any](f *Function, i int) func(*extArg) (A, error) {
	p := f.params[i]
	var zero A
	p.goType = reflect.TypeFor[A]()
	var c any
	switch v := any(zero).(type) {
	case int64:
		p.kind = extInt
		p.word = unsafe.Offsetof(extArg{}.i)
		c = func(a *extArg) (int64, error) { return int64(a.i), nil }
	case int:
		p.kind = extInt
		c = func(a *extArg) (int, error) { return int(a.i), nil }
	case int8:
		c = narrowInt[int8](f, p)
	case int16:
		c = narrowInt[int16](f, p)
	case int32:
		c = narrowInt[int32](f, p)
	case uint8:
		c = narrowInt[uint8](f, p)
	case uint16:
		c = narrowInt[uint16](f, p)
	case uint32:
		c = narrowInt[uint32](f, p)
	case float64:
		p.kind = extFloat
		p.word = unsafe.Offsetof(extArg{}.f)
		c = func(a *extArg) (float64, error) { return float64(a.f), nil }
	case bool:
		p.kind = extBool
		c = func(a *extArg) (bool, error) { return a.i != 0, nil }
	case string:
		p.kind = extStr
		c = func(a *extArg) (string, error) {
			if p.defStr != nil && (*byte)(unsafe.Pointer(a.s)) == p.defStr {
				return p.defGo, nil
			}
			return argString(a), nil
		}
	case tensorParam:
		p.kind = extTensor
		dts, ok := dtypesOf(v.elementType())
		if !ok {
			f.fail("parameter %s: %v: the type argument must be a DLPack element type or a godlpack.DTypeSet", p.name, p.goType)
		}
		p.setDTypes(dts)
		c = v.converter(f, p)
	default:
		f.fail("parameter %s: unsupported type %v (use Tensor, MutTensor, int64, int, a narrower integer, float64, bool or string)", p.name, p.goType)
		return func(*extArg) (A, error) {
			return zero, RuntimeError.Errorf("%s(): unsupported parameter", f.name)
		}
	}
	return c.(func(*extArg) (A, error))
}

// narrowInt converts an int argument to N, out of N's range an OverflowError (the
// rule of Func's reflective converter).
func narrowInt[N int8 | int16 | int32 | uint8 | uint16 | uint32](f *Function, p *param) func(*extArg) (N, error) {
	p.kind = extInt
	lo, hi := intRange(p.goType)
	return func(a *extArg) (N, error) {
		v := int64(a.i)
		if v < lo || v > hi {
			return 0, outOfRange(f, p, v)
		}
		return N(v), nil
	}
}

// unfitError is an argument's conversion error, met before the Go function runs:
// of an overload set's alternative, a TypeError or OverflowError makes way for the
// next alternative (ext_call.c's unfit_error; passesOver without Python).
type unfitError struct{ err error }

func (e *unfitError) Error() string { return e.err.Error() }
func (e *unfitError) Unwrap() error { return e.err }

// unfit marks err, an argument's conversion error, as an unfitError.
func unfit(err error) error { return &unfitError{err} }

// finish works out what the tensor fast path needs, once the constraints are final.
func (p *param) finish() {
	tensor := p.kind == extTensor || p.kind == extMutTensor
	if tensor && len(p.dtypeKeys) == 1 && p.shape == nil && !p.contiguous {
		p.quickKey = p.dtypeKeys[0] // never 0: lanes >= 1
	}
	if p.writable {
		p.refuse, p.mut = flagReadOnly, 1
		p.noAlias = !p.allowOverlap
	}
}

// selfOverlapWork bounds the offsets SelfOverlap lists for layouts it cannot
// decide in one pass (as_strided's only): ~1 ms at most; beyond, the view is
// refused as one that may alias.
const selfOverlapWork = 1 << 16

// aliased reports whether the elements of a MutTensor argument may alias each
// other (p.noAlias's refusal). One pass over the dimensions for the layouts
// producers make.
func aliased(a *extArg) bool {
	x := Tensor[Any]{a}
	return dlpack.SelfOverlap(x.shape(), x.strides(), selfOverlapWork) != dlpack.NoAliasing
}

// rowsApart reports, of a matrix, that each row's elements lie apart and
// within less than the distance between rows (C order: contiguous, stepped, a
// window, reversed), so that no element has two indices: SelfOverlap's first
// answer for most MutTensors, asked inline (arg) in a few compares where the
// calls, loops and overflow checks were ~4 ns of a 4x4 clip_
// (bench/bench_vec.py). false is no answer. A matrix of one row or none, or of
// one column, aliases nothing either, so the extents need no other test.
// Extents and strides under 2**31 keep every product and the reach exact, where
// SelfOverlap's overflow would answer MayAlias.
func rowsApart(t *cDLTensor) bool {
	if t.ndim != 2 {
		return false
	}
	dims, steps := (*[2]int64)(unsafe.Pointer(t.shape)), (*[2]int64)(unsafe.Pointer(t.strides))
	row, col := max(steps[0], -steps[0]), max(steps[1], -steps[1]) // MinInt64 stays negative: false below
	return col > 0 && uint64(dims[0]|dims[1]|row|col) < 1<<31 && row > (dims[1]-1)*col
}

// holds reports, with no call, whether a tensor argument meets the constraints of
// p, a quick parameter (quickKey: one dtype, and at most ndim and writability
// besides). false sends the argument to check, which decides and names what is
// wrong.
func (p *param) holds(a *extArg) bool {
	dt := a.m.dl_tensor.dtype
	return dtypeKey(uint8(dt.code), uint8(dt.bits), uint16(dt.lanes)) == p.quickKey &&
		(p.ndim < 0 || int(a.m.dl_tensor.ndim) == p.ndim) && a.m.flags&p.refuse == 0
}

// arg converts argument a of parameter p with no call where it can (a call
// costs ~1-2 ns, a tenth of what a call of a short function spends in Go): an
// int64 or float64 read where it lies, a present tensor that holds right here;
// anything else through p's converter c (chosen by converter).
func arg[A any](p *param, c func(*extArg) (A, error), a *extArg) (A, error) {
	if p.word != 0 { // A is int64 or float64: the C field's bits are its value
		return *(*A)(unsafe.Add(unsafe.Pointer(a), p.word)), nil
	}
	// holds and rowsApart stay small enough to inline (the Go compiler's budget);
	// the aliasing rule's other layouts, a call, are asked apart, of a MutTensor only.
	if p.quickKey != 0 && a.obj != nil && p.holds(a) && !(p.noAlias && !rowsApart(&a.m.dl_tensor) && aliased(a)) { // only a tensor's argument has obj set
		a.mut = p.mut
		// A is Tensor[E] or MutTensor[E] (quickKey says so), whose one field is a.
		return *(*A)(unsafe.Pointer(&a)), nil
	}
	return c(a)
}

// check applies p's constraints to a tensor argument.
func (p *param) check(f *Function, a *extArg) error {
	t := &a.m.dl_tensor
	if p.dtypeKeys != nil {
		key := dtypeKey(uint8(t.dtype.code), uint8(t.dtype.bits), uint16(t.dtype.lanes))
		ok := false
		for _, k := range p.dtypeKeys {
			ok = ok || k == key
		}
		if !ok {
			return p.mismatch(f, "a "+p.dtypeNames()+" tensor", Tensor[Any]{a}.DType().Name)
		}
	}
	if p.writable && a.m.flags&flagReadOnly != 0 {
		return p.mismatch(f, "a writable tensor", "a read-only one")
	}
	if p.ndim >= 0 && int(t.ndim) != p.ndim {
		return p.mismatch(f, fmt.Sprintf("a %d-d tensor", p.ndim), fmt.Sprintf("a %d-d one", t.ndim))
	}
	x := Tensor[Any]{a}
	if p.shape != nil {
		for i, d := range p.shape {
			if d >= 0 && x.Dim(i) != d {
				return p.mismatch(f, "shape "+shapeString(p.shape), shapeString(x.shape()))
			}
		}
	}
	if p.contiguous && !x.Contiguous() {
		return p.mismatch(f, "a C-contiguous tensor", "strides "+intsString(x.strides()))
	}
	if p.noAlias {
		if how := dlpack.SelfOverlap(x.shape(), x.strides(), selfOverlapWork); how != dlpack.NoAliasing {
			return p.aliasedError(f, x, how)
		}
	}
	return nil
}

// aliasedError refuses a MutTensor whose elements alias: ValueError, as NumPy's
// for a write it cannot make (to a read-only array); the tensor is of the right
// type, its layout is what cannot be written.
func (p *param) aliasedError(f *Function, x Tensor[Any], how dlpack.Aliasing) error {
	share := "share memory"
	if how == dlpack.MayAlias {
		share = fmt.Sprintf("may share memory (a layout too costly to rule it out over more than %d elements)", selfOverlapWork)
	}
	return ValueError.Errorf("%s(): argument %s: it is written in place, but its elements %s "+
		"(shape %s, strides %s), so a shared one would be written once per index; pass a copy "+
		"(NumPy: x.copy(), PyTorch: x.clone())",
		f.name, p.name, share, intsString(x.shape()), intsString(x.strides()))
}

func (p *param) mismatch(f *Function, want, got string) error {
	return TypeError.Errorf("%s(): argument %s: expected %s, got %s", f.name, p.name, want, got)
}

func (p *param) dtypeNames() string {
	names := make([]string, len(p.dtypes))
	for i, d := range p.dtypes {
		names[i] = d.Name
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// shapeString is a Shape constraint's extents as Python prints a tuple, -1 (any
// extent) as *, or a tensor's shape.
func shapeString(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		if d < 0 {
			parts[i] = "*"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return tupleString(parts)
}

// intsString is numbers as Python prints a tuple of them: strides, negative ones too.
func intsString(v []int64) string {
	parts := make([]string, len(v))
	for i, d := range v {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return tupleString(parts)
}

func tupleString(parts []string) string {
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Func0 makes a Function of a Go function with no parameters.
func Func0[R any](name string, fn func() (R, error)) *Function {
	f := newFunction(name, 0, nil)
	w := resultWriter[R](f)
	f.call = func(_ []extArg, res *extResult) error {
		r, err := fn()
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
	return f
}

// Func1 makes a Function of a Go function of one parameter, named by params.
func Func1[A, R any](name string, fn func(A) (R, error), params ...string) *Function {
	f := newTypedFunction(name, 1, params)
	ca := converter[A](f, 0)
	pa := f.params[0]
	w := resultWriter[R](f)
	f.call = func(args []extArg, res *extResult) error {
		a, err := arg(pa, ca, &args[0])
		if err != nil {
			return unfit(err)
		}
		r, err := fn(a)
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
	return f
}

// Func2 makes a Function of a Go function of two parameters, named by params.
func Func2[A, B, R any](name string, fn func(A, B) (R, error), params ...string) *Function {
	f := newTypedFunction(name, 2, params)
	ca, cb := converter[A](f, 0), converter[B](f, 1)
	pa, pb := f.params[0], f.params[1]
	w := resultWriter[R](f)
	f.call = func(args []extArg, res *extResult) error {
		a, err := arg(pa, ca, &args[0])
		if err != nil {
			return unfit(err)
		}
		b, err := arg(pb, cb, &args[1])
		if err != nil {
			return unfit(err)
		}
		r, err := fn(a, b)
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
	return f
}

// Func3 makes a Function of a Go function of three parameters, named by params.
func Func3[A, B, C, R any](name string, fn func(A, B, C) (R, error), params ...string) *Function {
	f := newTypedFunction(name, 3, params)
	ca, cb, cc := converter[A](f, 0), converter[B](f, 1), converter[C](f, 2)
	pa, pb, pc := f.params[0], f.params[1], f.params[2]
	w := resultWriter[R](f)
	f.call = func(args []extArg, res *extResult) error {
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
		r, err := fn(a, b, c)
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
	return f
}

// Func4 makes a Function of a Go function of four parameters, named by params.
func Func4[A, B, C, D, R any](name string, fn func(A, B, C, D) (R, error), params ...string) *Function {
	f := newTypedFunction(name, 4, params)
	ca, cb, cc, cd := converter[A](f, 0), converter[B](f, 1), converter[C](f, 2), converter[D](f, 3)
	pa, pb, pc, pd := f.params[0], f.params[1], f.params[2], f.params[3]
	w := resultWriter[R](f)
	f.call = func(args []extArg, res *extResult) error {
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
		d, err := arg(pd, cd, &args[3])
		if err != nil {
			return unfit(err)
		}
		r, err := fn(a, b, c, d)
		if err != nil {
			return err
		}
		return write(w, r, res)
	}
	return f
}
