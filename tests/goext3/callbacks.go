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
		godlpack.Func("row_elsewhere", rowElsewhere, "fn", "x").
			Doc("fn(1, x kept) called from another goroutine (tests: the callback's general path)."),
		godlpack.Func("row_elsewhere_like", rowElsewhere, "fn", "x").ResultLike("x").
			Doc("row_elsewhere, its callback's tensor in x's framework (ResultLike)."),
		godlpack.Func("row_here_like", func(fn func(int64, *tensor.Tensor) (float64, error), x godlpack.Tensor[float64]) (float64, error) {
			t, err := x.Keep()
			if err != nil {
				return 0, err
			}
			return fn(1, t)
		}, "fn", "x").ResultLike("x").Doc("fn(1, x kept) on the call's thread, in x's framework (ResultLike)."),
		godlpack.Func("five_rows_in_numpy", func(fn func(a, b, c, d, e *tensor.Tensor) error) error {
			rows := make([]*tensor.Tensor, 5)
			for i := range rows {
				var err error
				if rows[i], err = tensor.FromSlice([]float64{float64(i)}, 1); err != nil {
					return err
				}
			}
			return fn(rows[0], rows[1], rows[2], rows[3], rows[4])
		}, "fn").ResultIn(godlpack.NumPy).
			Doc("fn of five 1-element tensors [0.], ..., [4.], in NumPy (ResultIn): more than a callback frame holds."),
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

// rowElsewhere calls fn(1, x) from a goroutine of its own, another thread than
// the call's: the callback's general path.
func rowElsewhere(fn func(int64, *tensor.Tensor) (float64, error), x godlpack.Tensor[float64]) (float64, error) {
	t, err := x.Keep() // holds x's producer until the callback's Array lets it go
	if err != nil {
		return 0, err
	}
	var r float64
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err = fn(1, t)
	}()
	<-done
	return r, err
}
