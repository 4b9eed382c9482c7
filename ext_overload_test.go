//go:build !godlpack_python

package godlpack

// ext_overload_test.go: an overload set's alternatives tried past the arguments that
// do not fit them, and the binding rules of the types that cross into Python (Check's
// messages, the Python names of signatures), in a build without Python.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

type leaf struct{ n int }

// loop is a type holding itself: its Python type has no end.
type loop []loop

var (
	leafC  = Class[leaf]("Leaf", "")
	fitSet = Overload("fit",
		Func("fit", func(x int8) string { return fmt.Sprint("int8 ", x) }, "x"),
		Func("fit", func(x int64) string { return fmt.Sprint("int64 ", x) }, "x"),
		Func("fit", func(x float64) string { return fmt.Sprint("float64 ", x) }, "x"),
	)
	leafSet = Overload("leaf",
		Func("leaf", func(l *leaf, k int) int { return l.n + k }, "l", "k"),
		Func("leaf", func(l *leaf) int { return -1 }, "l").Default("l", nil),
	)
)

func init() {
	Module("overload_fit", "", leafC, fitSet, leafSet,
		Func("int_keys", func() map[int]string { return map[int]string{1: "one"} }),
		Func("any_keys", func(fn func(map[any]bool) error) error { return nil }, "fn"))
	Module("callback_alternatives", "",
		Func("tensor_back", func(fn func() (*tensor.Tensor, error)) error { return nil }, "fn"),
		Func("leaf_back", func(fn func() (*leaf, error)) error { return nil }, "fn"),
		Func("leaf_in_list", func(ls []*leaf) int { return len(ls) }, "ls"),
		Func("loop", func(l loop) int { return len(l) }, "l"),
		Func("int_keys_in", func(m map[int]string) int { return len(m) }, "m"),
		Func("array_keys_out", func() map[[2]int]string { return nil }),
	)
}

// The first alternative whose arguments convert runs: 128 does not fit int8, 2**63
// not int64 (a uint64 argument), 1.5 no integer. Before: the int8 alternative's
// OverflowError for 128.
func TestOverloadFallsThroughArgumentsThatDoNotFit(t *testing.T) {
	if err := Check("overload_fit"); err != nil {
		t.Fatalf("Check(overload_fit): %v", err)
	}
	for _, c := range []struct {
		arg  any
		want string
	}{{int64(1), "int8 1"}, {int64(128), "int64 128"}, {uint64(1 << 63), "float64 9.223372036854776e+18"}, {1.5, "float64 1.5"}} {
		if got, err := fitSet.Call(c.arg); err != nil || got != c.want {
			t.Errorf("fit(%v) = %v, %v; want %q", c.arg, got, err, c.want)
		}
	}
	_, err := fitSet.Call("x")
	want := "fit(): incompatible arguments. The supported signatures are:\n" +
		"    1. fit(x: int)\n        argument x: expected int, got string\n" +
		"    2. fit(x: int)\n        argument x: expected int, got string\n" +
		"    3. fit(x: float)\n        argument x: expected float, got string\n" +
		"Invoked with types: string"
	if err == nil || err.Error() != want {
		t.Errorf("fit(\"x\"): %v\nwant:\n%s", err, want)
	}
}

// totalSet dispatches on a tensor's dtype: one typed Go function per dtype.
var totalSet = Overload("total",
	Func1("total", func(x Tensor[float32]) (string, error) { return "float32", nil }, "x"),
	Func1("total", func(x Tensor[float64]) (string, error) { return "float64", nil }, "x"),
	Func("total", func(x Tensor[int64]) (string, error) { return "int64", nil }, "x"),
)

func init() { Module("overload_dtype", "", totalSet) }

// A tensor of an alternative's dtype runs it, whichever comes first; a tensor of none
// of them is the TypeError listing every signature (its dtype included) with why each
// refused, as Python's (tests/test_streamstats_args.py).
func TestOverloadDispatchesOnDtype(t *testing.T) {
	if err := Check("overload_dtype"); err != nil {
		t.Fatalf("Check(overload_dtype): %v", err)
	}
	f32, _ := tensor.FromSlice([]float32{1}, 1)
	f64, _ := tensor.FromSlice([]float64{1}, 1)
	i64, _ := tensor.FromSlice([]int64{1}, 1)
	i32, _ := tensor.FromSlice([]int32{1}, 1)
	for _, x := range []*tensor.Tensor{f32, f64, i64, i32} {
		defer x.Close()
	}
	for x, want := range map[*tensor.Tensor]string{f32: "float32", f64: "float64", i64: "int64"} {
		if got, err := totalSet.Call(x); err != nil || got != want {
			t.Errorf("total(%s tensor) = %v, %v", want, got, err)
		}
	}
	if got, err := totalSet.Call(Kw{"x": f64}); err != nil || got != "float64" {
		t.Errorf("total(x=float64 tensor) = %v, %v", got, err)
	}
	_, err := totalSet.Call(i32)
	want := "total(): incompatible arguments. The supported signatures are:\n" +
		"    1. total(x: SupportsDLPack[float32])\n        argument x: expected a float32 tensor, got int32\n" +
		"    2. total(x: SupportsDLPack[float64])\n        argument x: expected a float64 tensor, got int32\n" +
		"    3. total(x: SupportsDLPack[int64])\n        argument x: expected a int64 tensor, got int32\n" +
		"Invoked with types: *tensor.Tensor"
	var ee *exceptionError
	if !errors.As(err, &ee) || ee.kind != TypeError || err.Error() != want {
		t.Errorf("total(int32 tensor): %v\nwant:\n%s", err, want)
	}
}

// Signatures name a bound class by its Python name, with "| None" only where None
// is taken (a Default of nil); dict keys by their Python type. Before: "main.leaf |
// None" for both.
func TestOverloadSignaturesUsePythonNames(t *testing.T) {
	got := leafSet.overloadSignatures(false)
	want := "    1. leaf(l: Leaf, k: int)\n    2. leaf(l: Leaf | None = None)"
	if got != want {
		t.Errorf("signatures:\n%s\nwant:\n%s", got, want)
	}
	if got := pyTypeName(reflect.TypeFor[map[int]string]()); got != "dict[int, str]" {
		t.Errorf("pyTypeName(map[int]string) = %q", got)
	}
}

// A callback's type that cannot cross names what can, instead of listing what it
// just refused ("use a tensor" for *tensor.Tensor, "*T" for a bound class's *T); a
// type holding itself is refused, not walked until the stack overflows.
func TestCheckNamesTheSupportedAlternative(t *testing.T) {
	err := Check("callback_alternatives")
	if err == nil {
		t.Fatal("Check(callback_alternatives): no error")
	}
	msg := err.Error()
	lines := map[string][]string{
		"tensor_back(): parameter fn: callback result a *tensor.Tensor goes from Go to Python only": {
			"*godlpack.Object and call its Tensor method"},
		"leaf_back(): parameter fn: callback result unsupported type *godlpack.leaf: a bound class's *T": {
			"use *godlpack.Object there"},
		"leaf_in_list(): parameter ls: unsupported type *godlpack.leaf: a bound class's *T":      {},
		"loop(): parameter l: unsupported type godlpack.loop: a type holding itself":             {},
		"int_keys_in(): parameter m: unsupported type map[int]string: a dict's keys must be str": {},
		"array_keys_out(): result: unsupported type map[[2]int]string: its keys of type [2]int":  {},
	}
	for start, more := range lines {
		i := strings.Index(msg, start)
		if i < 0 {
			t.Errorf("Check: %q missing from\n%s", start, msg)
			continue
		}
		line, _, _ := strings.Cut(msg[i:], "\n")
		for _, w := range more {
			if !strings.Contains(line, w) {
				t.Errorf("Check: %q lacks %q", line, w)
			}
		}
		if strings.Contains(line, "use a tensor, a number") {
			t.Errorf("Check contradicts itself: %q", line)
		}
	}
}
