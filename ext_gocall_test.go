//go:build !godlpack_python

package godlpack

// ext_gocall_test.go: Check and Function.Call in a build without Python
// (docs/decisions/untagged-go-api.md): what an extension's own go test uses.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

type counter struct{ n int64 }

func newCounter(start int64) (*counter, error) { return &counter{n: start}, nil }
func (c *counter) add(k int64) (int64, error)  { c.n += k; return c.n, nil }

func double(x MutTensor[float64]) (None, error) {
	s, err := Slice[float64](x)
	for i := range s {
		s[i] *= 2
	}
	return None{}, err
}

func sumScaled(x Tensor[AnyFloat], k float64) (float64, error) {
	t, err := x.AsTensor()
	if err != nil {
		return 0, err
	}
	v, err := tensor.As[float64](t)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, e := range v.All() {
		total += e
	}
	return total * k, nil
}

var (
	doubleFn = Func1("double", double, "x")
	sumFn    = Func2("sum_scaled", sumScaled, "x", "k").Default("k", 1).Where("x", constraint.NDim(1))
	joinFn   = Func("join", func(parts []string, sep string) (string, error) { return strings.Join(parts, sep), nil }, "parts", "sep").Default("sep", ",")
	pairFn   = Func0("pair", func() (Tuple, error) { return Tuple{int64(1), "a"}, nil })
	// affine(x, k=2, *, offset, bias=0) = x*k + offset + bias: a default, a required
	// keyword-only parameter and an optional one
	affineFn = Func("affine", func(x, k, offset, bias float64) (float64, error) { return x*k + offset + bias, nil },
		"x", "k", "*", "offset", "bias").Default("k", 2.0).Default("bias", 0.0)
	// each(fn, n): fn(i) for i < n, its error wrapped with %w (a callback's, in Python)
	eachFn = Func("each", func(fn func(int) error, n int) (None, error) {
		for i := range n {
			if err := fn(i); err != nil {
				return None{}, fmt.Errorf("each(): at %d: %w", i, err)
			}
		}
		return None{}, nil
	}, "fn", "n")
	counterC = Class[counter]("Counter", "")
	initFn   = counterC.Init(newCounter, "start")
	addFn    = counterC.Def("add", (*counter).add, "k")
)

func init() {
	Module("gocall_ok", "", doubleFn, sumFn, joinFn, pairFn, affineFn, eachFn, counterC)
	Module("gocall_bad", "",
		Func1("f", double, "x").Default("x", 2.5), // a float default for a tensor
		Func1("f", double, "y"),                   // a second f
		Func1("g", func(x chan int) (None, error) { return None{}, nil }, "x"),
	)
}

func TestCheckReportsWhatImportWould(t *testing.T) {
	if err := Check("gocall_ok"); err != nil {
		t.Fatalf("Check(gocall_ok): %v", err)
	}
	err := Check("gocall_bad")
	if err == nil {
		t.Fatal("Check(gocall_bad): no error")
	}
	for _, want := range []string{`godlpack.Module("gocall_bad")`, "the default 2.5 does not suit parameter x",
		`two functions are named "f"`, "parameter x: unsupported type chan int"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check(gocall_bad) = %q, missing %q", err, want)
		}
	}
	if err := Check("gocall_none"); err == nil || !strings.Contains(err.Error(), `"gocall_ok"`) {
		t.Errorf("Check of an undeclared module = %v, want the declared ones listed", err)
	}
}

func TestCallWritesAMutTensorInPlace(t *testing.T) {
	x, err := tensor.FromSlice([]float64{1, 2, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if r, err := doubleFn.Call(x); err != nil || r != nil {
		t.Fatalf("double(x) = %v, %v; want None", r, err)
	}
	v, _ := tensor.As[float64](x)
	if got, _ := v.At(2); got != 6 {
		t.Errorf("x[2] after double = %v, want 6", got)
	}
	x.SetReadOnly()
	if _, err := doubleFn.Call(x); err == nil || !strings.Contains(err.Error(), "expected a writable tensor") {
		t.Errorf("double(read-only x): %v, want the TypeError of a read-only tensor", err)
	}
}

func TestCallChecksConstraintsAndTakesDefaults(t *testing.T) {
	x, _ := tensor.FromSlice([]float64{1, 2, 3, 4}, 4)
	defer x.Close()
	if r, err := sumFn.Call(x); err != nil || r != 10.0 {
		t.Errorf("sum_scaled(x) = %v, %v; want 10 (k's default 1)", r, err)
	}
	if r, err := sumFn.Call(x, 3); err != nil || r != 30.0 {
		t.Errorf("sum_scaled(x, 3) = %v, %v; want 30", r, err)
	}
	m, _ := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	defer m.Close()
	_, err := sumFn.Call(m)
	var ee *exceptionError
	if !errors.As(err, &ee) || ee.kind != TypeError || !strings.Contains(err.Error(), "expected a 1-d tensor, got a 2-d one") {
		t.Errorf("sum_scaled(2-d) = %v, want NDim's TypeError", err)
	}
	i32, _ := tensor.FromSlice([]int32{1}, 1)
	defer i32.Close()
	if _, err := sumFn.Call(i32); err == nil || !strings.Contains(err.Error(), "expected a float32 or float64 tensor") {
		t.Errorf("sum_scaled(int32) = %v, want the dtype's TypeError", err)
	}
	if _, err := sumFn.Call(); err == nil || !strings.Contains(err.Error(), "missing required argument 'x' (pos 1)") {
		t.Errorf("sum_scaled() = %v, want a missing argument", err)
	}
}

func TestCallTakesKeywordArguments(t *testing.T) {
	for _, c := range []struct {
		args []any
		want float64
	}{
		{[]any{1.0, Kw{"offset": 1.0}}, 3},                              // k's default
		{[]any{1.0, 3.0, Kw{"offset": 1.0, "bias": 0.5}}, 4.5},          // an optional keyword-only one
		{[]any{Kw{"x": 1.0, "k": 3.0, "offset": 1.0}}, 4},               // positional parameters by name
		{[]any{Kw{"offset": 1.0, "x": int64(2), "bias": 1}}, 6},         // converted as positional ones
		{[]any{1.0, Kw{"k": 4.0, "offset": 0.0, "bias": 0.0}}, 4},       // k by name after x by position
		{[]any{Kw{"offset": 1.0, "x": 1.0, "k": 1.0, "bias": -1.0}}, 1}, // any order
	} {
		if r, err := affineFn.Call(c.args...); err != nil || r != c.want {
			t.Errorf("affine%v = %v, %v; want %v", c.args, r, err, c.want)
		}
	}
}

// TestCallBindsAsPython: the TypeErrors of ext_call.c's bind, word for word.
func TestCallBindsAsPython(t *testing.T) {
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{1.0, 2.0, 3.0}, "affine() takes 2 positional arguments but 3 were given"}, // offset is keyword-only
		{[]any{1.0}, "affine() missing required keyword-only argument 'offset'"},
		{[]any{Kw{"offset": 1.0}}, "affine() missing required argument 'x' (pos 1)"},
		{[]any{1.0, Kw{"x": 2.0, "offset": 0.0}}, "affine() got multiple values for argument 'x'"},
		{[]any{1.0, Kw{"offset": 0.0, "scale": 1.0}}, "affine() got an unexpected keyword argument 'scale'"},
		{[]any{1.0, Kw{"offset": "1"}}, "affine(): argument offset: expected float, got string"},
		{[]any{1.0, Kw{"offset": 0.0, "*": 1.0}}, "affine() got an unexpected keyword argument '*'"},
	} {
		_, err := affineFn.Call(c.args...)
		var ee *exceptionError
		if !errors.As(err, &ee) || ee.kind != TypeError || err.Error() != c.want {
			t.Errorf("affine%v: %v; want the TypeError %q", c.args, err, c.want)
		}
	}
	if _, err := pairFn.Call(Kw{"x": 1}); err == nil || err.Error() != "pair() got an unexpected keyword argument 'x'" {
		t.Errorf("pair(x=1): %v", err)
	}
	if r, err := pairFn.Call(Kw{}); err != nil || len(r.(Tuple)) != 2 { // no keywords at all
		t.Errorf("pair(**{}) = %v, %v", r, err)
	}
}

// TestWrappedCallbackErrorStaysFindable: a callback's *PythonError wrapped with %w by
// the Go function is still found by errors.As, the same pointer (in Python the same
// exception is raised, the Go message as its note: tests/test_goext_func.py).
func TestWrappedCallbackErrorStaysFindable(t *testing.T) {
	raised := &PythonError{Type: "KeyError", Message: "'k'"}
	_, err := eachFn.Call(func(i int) error {
		if i == 2 {
			return raised
		}
		return nil
	}, 5)
	var pe *PythonError
	if !errors.As(err, &pe) || pe != raised || err.Error() != "each(): at 2: KeyError: 'k'" {
		t.Errorf("each(fn raising at 2) = %v (%T); want the wrapped *PythonError", err, err)
	}
}

func TestCallObjectsTuplesAndInstances(t *testing.T) {
	if r, err := joinFn.Call([]string{"a", "b"}); err != nil || r != "a,b" {
		t.Errorf("join([a b]) = %v, %v", r, err)
	}
	if r, err := pairFn.Call(); err != nil || len(r.(Tuple)) != 2 || r.(Tuple)[0] != int64(1) || r.(Tuple)[1] != "a" {
		t.Errorf("pair() = %#v, %v", r, err)
	}
	c, err := initFn.Call(5)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := addFn.Call(c, 2); err != nil || r != int64(7) {
		t.Errorf("Counter(5).add(2) = %v, %v; want 7", r, err)
	}
	if n := liveInstanceIDs(); n != 0 {
		t.Errorf("LiveInstances() = %d after Call gave the *counter back to Go", n)
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]*Function{"double": doubleFn, "Counter": initFn, "Counter.add": addFn, "nope": nil, "Counter.nope": nil} {
		if got := Lookup("gocall_ok", name); got != want {
			t.Errorf("Lookup(gocall_ok, %s) = %v, want %v", name, got, want)
		}
	}
	if _, err := Lookup("gocall_ok", "nope").Call(); err == nil {
		t.Error("Call on Lookup's nil: no error")
	}
}

func TestCallRefusesABorrowedResult(t *testing.T) {
	echo := Func1("echo", func(x Tensor[float64]) (*tensor.Tensor, error) { return x.AsTensor() }, "x")
	x, _ := tensor.FromSlice([]float64{1}, 1)
	defer x.Close()
	r, err := echo.Call(x)
	var ee *exceptionError
	if !errors.As(err, &ee) || ee.kind != ValueError || !strings.Contains(err.Error(), "returned its borrowed argument x") {
		t.Errorf("echo(x) = %v, %v; want the ValueError Python gets", r, err)
	}
}

// NDim and a Shape of another length cannot both hold: declaring them is a
// mistake Check and Call report, where a 1-d tensor of 3 passed NDim(1) and then
// had its second extent read (an index out of range).
func TestWhereNDimAndShapeDisagree(t *testing.T) {
	f := Func1("rgb", func(x Tensor[float64]) (None, error) { return None{}, nil }, "x").
		Where("x", constraint.Shape(-1, 3), constraint.NDim(1))
	x, _ := tensor.FromSlice([]float64{1, 2, 3}, 3)
	defer x.Close()
	if _, err := f.Call(x); err == nil || !strings.Contains(err.Error(), "NDim(1) and a Shape of 2 extents disagree") {
		t.Errorf("rgb(x) = %v, want the declaration's mistake", err)
	}
	agree := Func1("rgb", func(x Tensor[float64]) (None, error) { return None{}, nil }, "x").
		Where("x", constraint.NDim(2), constraint.Shape(-1, 3))
	if _, err := agree.Call(x); err == nil || !strings.Contains(err.Error(), "expected a 2-d tensor, got a 1-d one") {
		t.Errorf("rgb(1-d x) = %v, want the TypeError of NDim", err)
	}
}

// The deprecated names (Constraint and its five constructors, LiveInstances,
// GILReleases, PyInitTemplate) still compile, as an extension wrote them, and do
// what the new ones do.
func TestDeprecatedNames(t *testing.T) {
	var old []Constraint = []Constraint{NDim(2), Shape(-1, 2), Contiguous(), DTypes(dlpack.DTypeOf[float32]())}
	f := Func1("old", func(x MutTensor[float32]) (None, error) { return None{}, nil }, "x").
		Where("x", old...).Where("x", AllowOverlap())
	p := f.params[0]
	if p.ndim != 2 || !slices.Equal(p.shape, []int64{-1, 2}) || !p.contiguous || !p.allowOverlap || len(p.dtypes) != 1 || p.dtypes[0].Name != "float32" {
		t.Errorf("the old constraints set %+v", p)
	}
	m, _ := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	defer m.Close()
	if _, err := f.Call(m); err != nil {
		t.Errorf("old(3x2 float32) = %v", err)
	}
	v, _ := tensor.FromSlice([]float32{1, 2}, 2)
	defer v.Close()
	if _, err := f.Call(v); err == nil || !strings.Contains(err.Error(), "expected a 2-d tensor") {
		t.Errorf("old(1-d) = %v, want NDim's TypeError", err)
	}
	if LiveInstances() != liveInstanceIDs() || GILReleases() != gilReleases() {
		t.Error("LiveInstances or GILReleases is not its counter")
	}
	if !strings.Contains(PyInitTemplate, "PyMODINIT_FUNC PyInit_{name}(void)") {
		t.Errorf("PyInitTemplate lost its entry point: %s", PyInitTemplate)
	}
}

// What a call costs declared by Func and by FuncN (Func3, Func2), through
// Function.Call (binding the arguments included) and through the call path
// alone (what ext_call.c runs on Python's arguments): FuncN's typed path calls
// the Go function directly, Func's through reflect.Value.Call.
func clip3(x MutTensor[float32], lo, hi float64) (None, error) {
	s, err := Slice[float32](x)
	for i := range s {
		s[i] = min(max(s[i], float32(lo)), float32(hi))
	}
	return None{}, err
}

func add2(a, b int64) (int64, error) { return a + b, nil }

// clipErr is clip3 returning only its error: a shape Func calls with no
// reflection (ext_erased.go).
func clipErr(x MutTensor[float32], lo, hi float64) error {
	_, err := clip3(x, lo, hi)
	return err
}

// Func's error-only functions of tensors and scalars run as Func3's do: no
// reflection (its boxed arguments, argument and result slices: 7 allocations
// more), the same refusals, the function's own error.
func TestFuncCallsErrorOnlyShapesWithoutReflection(t *testing.T) {
	typed, erased := Func3("clip_", clip3, "x", "lo", "hi"), Func("clip_", clipErr, "x", "lo", "hi")
	picky := Func("picky", func(x Tensor[int64], n int) error {
		if n < 0 {
			return errors.New("n must be >= 0")
		}
		return nil
	}, "x", "n")
	for _, f := range []*Function{typed, erased, picky} {
		for _, p := range f.params {
			p.finish()
		}
	}
	x, _ := tensor.FromSlice([]float32{-1, 0.5, 2, 3}, 2, 2)
	defer x.Close()
	allocs := func(f *Function) float64 {
		argv, release, err := f.bind([]any{x, 0.0, 1.0})
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		return testing.AllocsPerRun(200, func() {
			var res extResult
			if err := f.call(argv, &res); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(typed), allocs(erased); a != b {
		t.Errorf("Func's error-only clip_: %v allocations a call, Func3's %v", b, a)
	}
	if v, _ := tensor.As[float32](x); fmt.Sprint(v.Slice()) != "[0 0.5 1 1] <nil>" {
		t.Errorf("clip_ through Func left %v", fmt.Sprint(v.Slice()))
	}
	_, errTyped := typed.Call(x, "a", 1.0)
	_, errErased := erased.Call(x, "a", 1.0)
	if errTyped == nil || errErased == nil || errTyped.Error() != errErased.Error() {
		t.Errorf("a str for lo: Func3 %v, Func %v; want the same TypeError", errTyped, errErased)
	}
	if _, err := picky.Call(x, 1); err == nil || !strings.Contains(err.Error(), "int64") {
		t.Errorf("picky(float32 tensor) = %v, want the dtype's refusal", err)
	}
	i, _ := tensor.FromSlice([]int64{1, 2}, 2)
	defer i.Close()
	if _, err := picky.Call(i, -1); err == nil || err.Error() != "n must be >= 0" {
		t.Errorf("picky(x, -1) = %v, want the function's error", err)
	}
}

func benchCall(b *testing.B, f *Function, args ...any) {
	b.Run("Call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Call(args...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("call", func(b *testing.B) {
		argv, release, err := f.bind(args)
		if err != nil {
			b.Fatal(err)
		}
		defer release()
		b.ReportAllocs()
		for b.Loop() {
			var res extResult
			if err := f.call(argv, &res); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkClipFunc3(b *testing.B) { benchCallClip(b, Func3("clip_", clip3, "x", "lo", "hi")) }
func BenchmarkClipFunc(b *testing.B)  { benchCallClip(b, Func("clip_", clip3, "x", "lo", "hi")) }
func BenchmarkClipFuncErrorOnly(b *testing.B) {
	benchCallClip(b, Func("clip_", clipErr, "x", "lo", "hi"))
}
func BenchmarkAddFunc2(b *testing.B) { benchCall(b, Func2("add", add2, "a", "b"), 1, 2) }
func BenchmarkAddFunc(b *testing.B)  { benchCall(b, Func("add", add2, "a", "b"), 1, 2) }

func benchCallClip(b *testing.B, f *Function) {
	x, _ := tensor.FromSlice(make([]float32, 16), 4, 4)
	defer x.Close()
	benchCall(b, f, x, 0.25, 0.75)
}

// *args and **kwargs: a variadic Go function's last parameter, a "**name" map[string]T.
var (
	concatFn = Func("concat", func(sep string, parts ...string) (string, error) { return strings.Join(parts, sep), nil },
		"sep", "*parts")
	narrowFn = Func("narrow", func(xs ...int8) (int, error) { return len(xs), nil }, "xs")
	labelFn  = Func("label", func(name string, kw map[string]int) (string, error) {
		parts := []string{name}
		for _, k := range slices.Sorted(maps.Keys(kw)) {
			parts = append(parts, fmt.Sprintf("%s=%d", k, kw[k]))
		}
		return strings.Join(parts, " "), nil
	}, "name", "**kw")
	bothFn = Func("both", func(a int, kw map[string]string, rest ...float64) (string, error) {
		return fmt.Sprint(a, rest, kw), nil
	}, "a", "**kw", "rest")
	countersFn = Func("total_of", func(cs ...*counter) (int64, error) {
		var n int64
		for _, c := range cs {
			n += c.n
		}
		return n, nil
	}, "*counters")
)

func init() {
	Module("gocall_var", "", concatFn, narrowFn, labelFn, bothFn, countersFn, counterC)
	Module("gocall_var_bad", "",
		Func("a", func(kw int) (None, error) { return None{}, nil }, "**kw"),                        // not a map
		Func("b", func(kw map[string]int, x int) (None, error) { return None{}, nil }, "**kw", "x"), // not last
		Func("c", func(x int) (None, error) { return None{}, nil }, "*x"),                           // not variadic
		Func("d", func(x int, xs ...int) (None, error) { return None{}, nil }, "*", "x", "xs"),
		Func("e", func(xs ...int) (None, error) { return None{}, nil }, "xs").Default("xs", 1),
	)
}

func TestCheckVarArgs(t *testing.T) {
	if err := Check("gocall_var"); err != nil {
		t.Fatalf("Check(gocall_var): %v", err)
	}
	err := Check("gocall_var_bad")
	for _, want := range []string{
		"a(): parameter **kw: **kwargs takes a map[string]T (the keywords no other parameter names), got int",
		"b(): parameter **kw: **kwargs must be the last parameter",
		"c(): parameter *x: *args is a variadic Go function's last parameter",
		`d(): a variadic Go function (*args) takes no keyword-only parameters: drop "*"`,
		"e(): parameter xs is *args or **kwargs: it takes no default",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(gocall_var_bad) = %v, missing %q", err, want)
		}
	}
	for f, want := range map[*Function]string{
		concatFn: "concat(sep, *parts)", labelFn: "label(name, **kw)", bothFn: "both(a, *rest, **kw)",
	} {
		if got := f.signature(); got != want {
			t.Errorf("signature = %q, want %q", got, want)
		}
	}
	if got := bothFn.typedSignature(); got != "both(a: int, *rest: float, **kw: str)" {
		t.Errorf("typed signature = %q", got)
	}
}

func TestCallBindsVarArgs(t *testing.T) {
	c1, c2 := &counter{n: 2}, &counter{n: 5}
	for _, c := range []struct {
		f    *Function
		args []any
		want any
	}{
		{concatFn, []any{"-", "a", "b", "c"}, "a-b-c"},
		{concatFn, []any{"-"}, ""}, // *args may be empty
		{concatFn, []any{Kw{"sep": "+"}}, ""},
		{narrowFn, []any{1, 2, 3}, int64(3)},
		{labelFn, []any{"n", Kw{"b": 2, "a": 1}}, "n a=1 b=2"},
		{labelFn, []any{Kw{"name": "n"}}, "n"}, // **kwargs may be empty
		{bothFn, []any{1, 2.0, 3, Kw{"k": "v"}}, "1 [2 3] map[k:v]"},
		{countersFn, []any{c1, c2, c1}, int64(9)},
	} {
		if r, err := c.f.Call(c.args...); err != nil || r != c.want {
			t.Errorf("%s%v = %v, %v; want %v", c.f.name, c.args, r, err, c.want)
		}
	}
	for _, c := range []struct {
		f    *Function
		args []any
		kind Exception
		want string
	}{
		{concatFn, []any{"-", "a", 3}, TypeError, "concat(): argument parts[1]: expected str, got int"},
		{narrowFn, []any{1, 300}, OverflowError, "narrow(): argument xs[1]: 300 is out of range for int8 (-128 to 127)"},
		{concatFn, []any{"-", Kw{"parts": "x"}}, TypeError, "concat() got an unexpected keyword argument 'parts'"},
		{labelFn, []any{"n", Kw{"name": "m"}}, TypeError, "label() got multiple values for argument 'name'"},
		{labelFn, []any{"n", Kw{"a": "x"}}, TypeError, "label(): argument kw: key 'a': expected int, got a Go string"},
		{labelFn, []any{"n", 1}, TypeError, "label() takes 1 positional argument but 2 were given"},
		{labelFn, []any{}, TypeError, "label() missing required argument 'name' (pos 1)"},
		{countersFn, []any{c1, 3}, TypeError, "total_of(): argument counters[1]: expected *godlpack.counter, got int"},
	} {
		_, err := c.f.Call(c.args...)
		var ee *exceptionError
		if !errors.As(err, &ee) || ee.kind != c.kind || err.Error() != c.want {
			t.Errorf("%s%v: %v; want the %v %q", c.f.name, c.args, err, c.kind, c.want)
		}
	}
}

// A []E result is a list, and a 1-D array of E viewing the slice where the
// function returns its arrays in a framework (ResultIn, ResultLike), by either
// call path (Func's reflection, Func0's typed writer); the stub types it with
// its dtype (resultDType; tests/test_goext_stubs.py checks the stub itself).
func TestASliceResultIsAnArrayInAFramework(t *testing.T) {
	counts := func() ([]int64, error) { return []int64{3, 1, 4}, nil }
	for _, f := range []*Function{Func("counts", counts), Func0("counts", counts)} {
		if r, err := f.Call(); err != nil || fmt.Sprint(r) != "[3 1 4]" || f.resultDType() != "" {
			t.Errorf("%s() with no framework = %#v, %v (dtype %q); want the list [3 1 4]", f.name, r, err, f.resultDType())
		}
		f.ResultIn(NumPy)
		r, err := f.Call()
		a, ok := r.(*tensor.Tensor)
		if err != nil || !ok {
			t.Fatalf("%s() with ResultIn(NumPy) = %#v, %v; want an array", f.name, r, err)
		}
		v, err := tensor.As[int64](a)
		if err != nil {
			t.Fatal(err)
		}
		s, err := v.ReadSlice()
		if err != nil || fmt.Sprint(s) != "[3 1 4]" || fmt.Sprint(a.Shape()) != "[3]" || f.resultDType() != "int64" {
			t.Errorf("the array: %v %v, %v (dtype %q)", s, a.Shape(), err, f.resultDType())
		}
		a.Close()
	}
}

// A str parameter left out is handed over as its default's bytes, which C keeps
// (def_s, recorded as defStr): the converter returns the Go default itself for
// them, no copy (GoStringN's allocation a call in a Python build), and still
// reads any other bytes, even equal ones.
func TestAStringDefaultIsNotCopied(t *testing.T) {
	f := newTypedFunction("opts", 1, []string{"name"})
	conv := converter[string](f, 0)
	p := f.params[0]
	held := []byte("x")
	p.defStr, p.defGo = &held[0], "x"
	got, err := conv(&extArg{s: &held[0], slen: 1})
	if err != nil || got != "x" || unsafe.StringData(got) != unsafe.StringData(p.defGo) {
		t.Errorf("the default's bytes: %q, %v; want the Go default itself", got, err)
	}
	other := []byte("x")
	if got, _ := conv(&extArg{s: &other[0], slen: 1}); got != "x" || unsafe.StringData(got) == unsafe.StringData(p.defGo) {
		t.Errorf("equal bytes passed in: %q, the default's string: want them read", got)
	}
}
