// Command goext_bad is an extension written in Go whose module definition has a
// mistake of every kind godlpack.Module reports: importing it must raise
// ImportError naming each (tests/test_goext_import.py).
package main

import "github.com/godlpack/godlpack"

func init() {
	godlpack.Module("goext_bad", "Mistakes.",
		godlpack.Func1("slice_param", func([]int) (godlpack.None, error) { return godlpack.None{}, nil }, "x"),
		godlpack.Func2("one_name", func(a, b int64) (int64, error) { return a + b, nil }, "a"),
		godlpack.Func1("bad_default", func(s string) (string, error) { return s, nil }, "s").Default("s", 3),
		godlpack.Func1("where_scalar", func(n int64) (int64, error) { return n, nil }, "n").Where("n", godlpack.NDim(1)),
		godlpack.Func1("bad_result", func(int64) (struct{ A int }, error) { return struct{ A int }{}, nil }, "n"),
		godlpack.Func1("bad_element", func(godlpack.Tensor[string]) (godlpack.None, error) { return godlpack.None{}, nil }, "x"),
		godlpack.Func1("bad name", func(int64) (int64, error) { return 0, nil }, "n"),
		godlpack.Func1("nil_default", func(n int64) (int64, error) { return n, nil }, "n").Default("n", nil),
		godlpack.Func1("tensor_default", func(godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "x").Default("x", 0.5),
		godlpack.Func1("overlap_read", func(godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "x").Where("x", godlpack.AllowOverlap()),
		godlpack.Func2("optional_first", func(a, b godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }, "a", "b").Default("a", nil),
	)
}

func main() {}
