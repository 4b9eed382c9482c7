//go:build !godlpack_python

package godlpack

// ext_gocall_nopython.go: Function.Call in a build without Python (an
// extension's go test). The arguments are put where ext_call.c would put
// Python's, in Go memory, and the function's own call (its converters, its
// constraints, the Go function, its result writer) runs on them, so a test
// exercises the declaration import would bind.

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"runtime/cgo"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// present marks an argument passed (extArg.obj), which Python's own object would.
var present pyObject

func (f *Function) goCall(args []any) (any, error) {
	if len(f.errs) > 0 {
		return nil, fmt.Errorf("godlpack: %s", f.errs[0])
	}
	if len(f.overloads) > 0 { // the first alternative the arguments bind and convert to, as in Python
		var reasons []string
		for _, alt := range f.overloads {
			r, err := alt.bindAndRun(args)
			if passesOver(err) {
				reasons = append(reasons, strings.TrimPrefix(err.Error(), alt.name+"(): "))
				continue
			}
			return r, err
		}
		types := make([]string, 0, len(args))
		for _, a := range args {
			if kw, ok := a.(Kw); ok {
				for _, k := range slices.Sorted(maps.Keys(kw)) {
					types = append(types, fmt.Sprintf("%s=%T", k, kw[k]))
				}
				continue
			}
			types = append(types, fmt.Sprintf("%T", a))
		}
		return nil, f.noneFits(reasons, strings.Join(types, ", "))
	}
	argv, release, err := f.bind(args)
	if err != nil {
		return nil, err
	}
	defer release()
	return f.run(argv)
}

// bindAndRun is an overload's alternative called: its binding's error is an
// unfitError, as its converters' are.
func (f *Function) bindAndRun(args []any) (any, error) {
	argv, release, err := f.bind(args)
	if err != nil {
		return nil, unfit(err)
	}
	defer release()
	return f.run(argv)
}

// noneFits is the TypeError of an overload set none of whose alternatives took
// the arguments, as ext_call.c's call_overloads words it for Python (checked
// alike: TestOverloadDispatchesOnDtype, tests/test_streamstats_args.py): every
// signature with why it refused (reasons, one per alternative) and the types
// passed.
func (f *Function) noneFits(reasons []string, types string) error {
	lines := strings.Split(f.overloadSignatures(false), "\n")
	for i := range lines {
		if i < len(reasons) {
			lines[i] += "\n        " + reasons[i]
		}
	}
	return TypeError.Errorf("%s(): incompatible arguments. The supported signatures are:\n%s\nInvoked with types: %s",
		f.name, strings.Join(lines, "\n"), types)
}

// passesOver reports whether err, an overload's alternative's, is an argument's that
// does not fit (a TypeError or OverflowError converting it), so that the next
// alternative is tried: ext_call.c's unfit_error, where Python's exceptions are
// matched; here no Python exception can occur.
func passesOver(err error) bool {
	var u *unfitError
	var ee *exceptionError
	return errors.As(err, &u) && errors.As(u.err, &ee) && (ee.kind == TypeError || ee.kind == OverflowError)
}

// run calls f on bound arguments and reads its result back.
func (f *Function) run(argv []extArg) (any, error) {
	var res extResult
	err := f.call(argv, &res)
	for i := range argv {
		releaseBorrowed(&argv[i])
	}
	if err != nil {
		return nil, err
	}
	refuseBorrowed(f, argv, &res) // a borrowed argument returned: the ValueError Python gets
	return readResult(&res)
}

// bind puts args where ext_call.c would put Python's arguments; release drops the
// handles it made. A last argument of type Kw holds the keyword arguments, bound by
// boundArgs as ext_call.c's bind binds Python's; *args's elements come last in
// argv, each bound as its parameter's, and **kwargs's map holds the keywords no
// other parameter names.
func (f *Function) bind(args []any) (argv []extArg, release func(), err error) {
	var kw Kw
	if n := len(args); n > 0 {
		if k, ok := args[n-1].(Kw); ok {
			kw, args = k, args[:n-1]
		}
	}
	b, err := f.boundArgs(args, kw)
	if err != nil {
		return nil, nil, err
	}
	nargv := len(f.params)
	if f.varArgs >= 0 {
		nargv += len(b.rest) - 1
	}
	argv = make([]extArg, nargv)
	var handles []cgo.Handle
	var ids []uintptr // instances' ids, as C reads them from their objects
	release = func() {
		for _, h := range handles {
			h.Delete()
		}
		releaseInstanceIDs(ids)
	}
	put := func(p *param, name string, a *extArg, v any) error {
		h, err := p.bindArg(a, v)
		if h != 0 {
			handles = append(handles, h)
		}
		if p.kind == extInstance && a.i != 0 {
			ids = append(ids, uintptr(a.i))
		}
		if err != nil {
			release()
			return TypeError.Errorf("%s(): argument %s: %v", f.name, name, err)
		}
		return nil
	}
	for i, p := range f.params {
		switch {
		case i == f.varArgs:
			continue
		case i == f.varKw:
			m, err := f.kwargsValue(p, b.extraKw)
			if err != nil {
				release()
				return nil, nil, err
			}
			b.vals[i], b.given[i] = m.Interface(), true
		case !b.given[i] && (p.def == nil || p.kind == extObject):
			continue // absent, as C passes it: the converter takes the default (objectArg) or none
		}
		v := p.def
		if b.given[i] {
			v = b.vals[i]
		}
		if err := put(p, p.name, &argv[i], v); err != nil {
			return nil, nil, err
		}
	}
	for j, v := range b.rest {
		p := f.params[f.varArgs]
		if err := put(p, p.name+"["+strconv.Itoa(j)+"]", &argv[f.varArgs+j], v); err != nil {
			return nil, nil, err
		}
	}
	return argv, release, nil
}

// kwargsValue is the keywords no other parameter named, as the map of **kwargs's
// parameter p: each value of its element type, else the TypeError naming the key
// (fromPython's for a dict).
func (f *Function) kwargsValue(p *param, extra Kw) (reflect.Value, error) {
	m := reflect.MakeMapWithSize(p.goType, len(extra))
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v, ok := goValueAs(reflect.ValueOf(extra[k]), p.goType.Elem())
		if !ok {
			return reflect.Value{}, TypeError.Errorf("%s(): argument %s: key '%s': expected %s, got a Go %T",
				f.name, p.name, k, pyTypeName(p.goType.Elem()), extra[k])
		}
		m.SetMapIndex(reflect.ValueOf(k).Convert(p.goType.Key()), v)
	}
	return m, nil
}

// boundCall is a call's arguments bound to f's parameters: vals[i] is parameter
// i's where given[i] (nil is Python's None), rest the positional ones *args
// takes, extraKw the keywords **kwargs takes.
type boundCall struct {
	vals    []any
	given   []bool
	rest    []any
	extraKw Kw
}

// boundArgs is ext_call.c's bind in Go, with its rules and TypeErrors: positional
// args fill the parameters before "*" (f.kwOnly), those past them go to *args,
// each keyword names a parameter not filled yet (else goes to **kwargs), and a
// parameter left out must have a default.
func (f *Function) boundArgs(args []any, kw Kw) (*boundCall, error) {
	if len(args) > f.kwOnly && f.varArgs < 0 {
		s := "s"
		if f.kwOnly == 1 {
			s = ""
		}
		return nil, TypeError.Errorf("%s() takes %d positional argument%s but %d were given", f.name, f.kwOnly, s, len(args))
	}
	b := &boundCall{vals: make([]any, len(f.params)), given: make([]bool, len(f.params)), extraKw: Kw{}}
	for i := range args {
		if i >= f.kwOnly {
			b.rest = args[i:]
			break
		}
		b.vals[i], b.given[i] = args[i], true
	}
	for _, name := range slices.Sorted(maps.Keys(kw)) { // sorted: the same error every run
		i := slices.IndexFunc(f.params, func(p *param) bool { return p.name == name })
		if i >= 0 && f.isVar(i) {
			i = -1 // *args and **kwargs take no keyword of their own names
		}
		switch {
		case i < 0 && f.varKw >= 0:
			b.extraKw[name] = kw[name]
			continue
		case i < 0:
			return nil, TypeError.Errorf("%s() got an unexpected keyword argument '%s'", f.name, name)
		case b.given[i]:
			return nil, TypeError.Errorf("%s() got multiple values for argument '%s'", f.name, name)
		}
		b.vals[i], b.given[i] = kw[name], true
	}
	for i, p := range f.params {
		switch {
		case b.given[i] || p.hasDefault || f.isVar(i):
		case i >= f.kwOnly: // after "*": it has no position to name
			return nil, TypeError.Errorf("%s() missing required keyword-only argument '%s'", f.name, p.name)
		default:
			return nil, TypeError.Errorf("%s() missing required argument '%s' (pos %d)", f.name, p.name, i+1)
		}
	}
	return b, nil
}

// bindArg puts v, an argument of parameter p, into a (a handle for the values Go
// keeps, to delete after the call).
func (p *param) bindArg(a *extArg, v any) (cgo.Handle, error) {
	rv := reflect.ValueOf(v)
	switch p.kind {
	case extTensor, extMutTensor:
		t, ok := v.(*tensor.Tensor)
		if v == nil || (ok && t == nil) {
			if !p.hasDefault && p.slice == "" {
				return 0, fmt.Errorf("expected a tensor, got nil")
			}
			return 0, nil // None for an optional tensor or a slice's (Slices): absent, obj stays nil
		}
		if !ok {
			return 0, fmt.Errorf("expected a *tensor.Tensor, got %T", v)
		}
		return 0, lendTensor(a, t)
	case extInt, extUint:
		switch {
		case rv.CanInt():
			if p.kind == extUint && rv.Int() < 0 {
				return 0, OverflowError.Errorf("can't convert negative int to unsigned")
			}
			a.i = rv.Int()
		case rv.CanUint():
			if p.kind == extInt && rv.Uint() > math.MaxInt64 {
				return 0, OverflowError.Errorf("int too big to convert")
			}
			a.i = int64(rv.Uint())
		default:
			return 0, fmt.Errorf("expected int, got %T", v)
		}
	case extFloat:
		switch {
		case rv.CanFloat():
			a.f = rv.Float()
		case rv.CanInt():
			a.f = float64(rv.Int())
		case rv.CanUint():
			a.f = float64(rv.Uint())
		default:
			return 0, fmt.Errorf("expected float, got %T", v)
		}
	case extBool:
		b, ok := v.(bool)
		if !ok {
			return 0, fmt.Errorf("expected bool, got %T", v)
		}
		a.i = 0
		if b {
			a.i = 1
		}
	case extStr:
		s, ok := v.(string)
		if !ok {
			return 0, fmt.Errorf("expected str, got %T", v)
		}
		a.s, a.slen = unsafe.StringData(s), len(s)
	case extInstance:
		if v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
			return 0, nil // None: handle 0
		}
		if rv.Type() != p.goType {
			return 0, fmt.Errorf("expected %v, got %T", p.goType, v)
		}
		id, err := newInstanceID(rv.UnsafePointer())
		a.i = int64(id)
		return 0, err // bind releases the id
	default: // an object or a callback: the Go value itself (objectArg)
		h := cgo.NewHandle(v)
		a.obj, a.i = &present, int64(h)
		return h, nil
	}
	a.obj = &present
	return 0, nil
}

// lendTensor lays t out in a as a borrowed DLManagedTensorVersioned, as ext_call.c
// lends a producer's tensor: no deleter, READ_ONLY if t is read-only.
func lendTensor(a *extArg, t *tensor.Tensor) error {
	dt := t.DType()
	if dt == nil {
		return tensor.ErrClosed
	}
	shape, strides := t.Shape(), t.Strides()
	d := &a.m.dl_tensor
	d.data, d.ndim = t.Data(), int32(len(shape))
	d.device.device_type, d.device.device_id = int32(t.Device().Type), t.Device().ID
	d.dtype = cDLDataType{code: uint8(dt.DL.Code), bits: dt.DL.Bits, lanes: dt.DL.Lanes}
	if len(shape) > 0 {
		d.shape, d.strides = &shape[0], &strides[0]
	}
	a.m.version.major, a.m.version.minor = dlpack.MajorVersion, dlpack.MinorVersion
	if t.ReadOnly() {
		a.m.flags |= flagReadOnly
	}
	a.obj = &present
	return nil
}

// readResult is what Python would get from r, in Go.
func readResult(r *extResult) (any, error) {
	switch r.kind {
	case extRNone:
		return nil, nil
	case extRArray:
		return tensor.FromManaged(r.p)
	case extRInt:
		return r.i, nil
	case extRFloat:
		return r.f, nil
	case extRBool:
		return r.i != 0, nil
	case extRStr:
		return string(unsafe.Slice((*byte)(r.p), r.n)), nil
	case extRTuple:
		items := unsafe.Slice((*extResult)(r.p), r.n)
		t := make(Tuple, len(items))
		for i := range items {
			v, err := readResult(&items[i])
			if err != nil {
				return nil, err
			}
			t[i] = v
		}
		return t, nil
	case extRError:
		return nil, Exception(r.exc).Errorf("%s", unsafe.String((*byte)(r.p), r.n))
	case extRObject:
		h := cgo.Handle(r.i)
		v := h.Value()
		h.Delete()
		return v, nil
	case extRInstance: // Python would get a new instance: Go gets its *T back
		v := reflect.NewAt(classList[r.n].ptrType.Elem(), instanceValue(uintptr(r.i))).Interface()
		releaseInstanceIDs([]uintptr{uintptr(r.i)})
		return v, nil
	}
	return nil, fmt.Errorf("godlpack: result kind %d", r.kind)
}
