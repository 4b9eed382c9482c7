// Command goext_bad is an extension written in Go whose module definition has a
// mistake of every kind godlpack.Module reports: importing it must raise
// ImportError naming each (tests/test_goext_import.py).
package main

import (
	"sync/atomic"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
)

// Loose is a struct no godlpack.Class binds; Thing is bound, with mistakes.
type (
	Loose    struct{}
	Thing    struct{ inner *Inner }
	Inner    struct{ n atomic.Int64 }
	ThingErr struct{}
)

func (*ThingErr) Error() string { return "thing" }

func init() {
	num := godlpack.Class[int]("Num", "")
	thing := godlpack.Class[Thing]("Thing", "")
	thing.Init(func() int { return 0 })
	thing.Def("method", func(x int) {}, "x")
	outside := new(atomic.Int64)
	thing.AtomicProperty("plain", "", func(t *Thing) *int64 { return nil })
	thing.AtomicProperty("outside", "", func(t *Thing) *atomic.Int64 { return outside })
	thing.AtomicProperty("through", "", func(t *Thing) *atomic.Int64 { return &t.inner.n })
	godlpack.Module("goext_bad", "Mistakes.",
		num, thing, godlpack.ExceptionFor[*ThingErr]("Thing", godlpack.ValueError, ""),
		godlpack.Func("kwargs_no_map", func(kw int) {}, "**kw"),
		godlpack.Func("two_stars", func(a, b int) {}, "*", "a", "*", "b"),
		godlpack.Func("chan_param", func(c chan int) {}, "c"),
		godlpack.Func("not_func", 3),
		godlpack.Func("unbound", func(*Loose) {}, "l"),
		godlpack.Func("bad_callback", func(f func(int) int) {}, "f"),
		godlpack.Func("like_nothing", func(x float64) {}, "x").ResultLike("nope"),
		godlpack.Overload("ov", godlpack.Func("a", func(int) {}, "x"), godlpack.Func("ov", func(string) {}, "x")),
		godlpack.Func1("slice_param", func([]int) (godlpack.None, error) { return godlpack.None{}, nil }, "x"),
		godlpack.Func2("one_name", func(a, b int64) (int64, error) { return a + b, nil }, "a"),
		godlpack.Func1("bad_default", func(s string) (string, error) { return s, nil }, "s").Default("s", 3),
		godlpack.Func1("where_scalar", func(n int64) (int64, error) { return n, nil }, "n").Where("n", constraint.NDim(1)),
		godlpack.Func1("bad_result", func(int64) (struct{ A int }, error) { return struct{ A int }{}, nil }, "n"),
		godlpack.Func1("bad_element", func(godlpack.Tensor[string]) (godlpack.None, error) { return godlpack.None{}, nil }, "x"),
		godlpack.Func1("bad name", func(int64) (int64, error) { return 0, nil }, "n"),
		godlpack.Func1("nil_default", func(n int64) (int64, error) { return n, nil }, "n").Default("n", nil),
		godlpack.Func1("tensor_default", func(godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "x").Default("x", 0.5),
		godlpack.Func1("overlap_read", func(godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "x").Where("x", constraint.AllowOverlap()),
		godlpack.Func2("optional_first", func(a, b godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "a", "b").Default("a", nil),
	)
}

func main() {}
