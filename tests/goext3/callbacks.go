package main

import (
	"reflect"
	"runtime"
	"strings"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// funcImpl names the code a Go func value runs: "reflect" for a reflect.MakeFunc
// (its stub is in package reflect), "typed" for a closure of godlpack's own.
func funcImpl(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	switch {
	case strings.HasPrefix(name, "reflect."):
		return "reflect"
	case strings.HasPrefix(name, "github.com/godlpack/godlpack."):
		return "typed"
	}
	return name
}

func init() {
	godlpack.Extend("goext3",
		godlpack.Func("float_of_int", func(fn func(int64) (float64, error), i int64) (float64, error) { return fn(i) }, "fn", "i").
			Doc("fn(i) through a func(int64) (float64, error) (a typed callback)."),
		godlpack.Func("int_of_int", func(fn func(int) (int, error), i int) (int, error) { return fn(i) }, "fn", "i").
			Doc("fn(i) through a func(int) (int, error) (a typed callback)."),
		godlpack.Func("float_of_row", func(fn func(int64, *tensor.Tensor) (float64, error), i int64, xs []float64) (float64, error) {
			row, err := tensor.FromSlice(xs, int64(len(xs)))
			if err != nil {
				return 0, err
			}
			return fn(i, row)
		}, "fn", "i", "xs").Doc("fn(i, a 1-D float64 tensor of xs) (a typed callback)."),
		godlpack.Func("row_elsewhere", func(fn func(int64, *tensor.Tensor) (float64, error), x godlpack.Tensor[float64]) (float64, error) {
			t, err := x.Keep() // holds x's producer until the callback's Array lets it go
			if err != nil {
				return 0, err
			}
			var r float64
			done := make(chan struct{})
			go func() { // another thread than the call's: the callback's general path
				defer close(done)
				r, err = fn(1, t)
			}()
			<-done
			return r, err
		}, "fn", "x").Doc("fn(1, x kept) called from another goroutine (tests: the callback's general path)."),
		godlpack.Func("closed_row", func(fn func(int64, *tensor.Tensor) (float64, error)) (float64, error) {
			t, err := tensor.New[float64](2)
			if err != nil {
				return 0, err
			}
			_ = t.Close()
			return fn(0, t) // refused before any call: its export fails
		}, "fn").Doc("fn(0, a closed tensor) (tests: a tensor argument that does not export)."),
		godlpack.Func("str_of_str", func(fn func(string) (string, error), s string) (string, error) { return fn(s) }, "fn", "s").
			Doc("fn(s) through a func(string) (string, error) (a reflective callback)."),
		godlpack.Func("callback_impls", func(a func(int64) (float64, error), b func(int64, *tensor.Tensor) (float64, error),
			c func(*tensor.Tensor) error, d func(string) (string, error)) []string {
			return []string{funcImpl(a), funcImpl(b), funcImpl(c), funcImpl(d)}
		}, "a", "b", "c", "d").Doc("How each callback argument is made: typed or reflect (tests)."),
	)
}
