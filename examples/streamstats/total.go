package main

import (
	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// streamstats.total(x) is an overload set dispatching on x's dtype: one typed Go
// function per dtype (the Tensor[E] parameter's E), tried in order; a tensor of
// another dtype gives way to the next, and one of none of them is a TypeError
// listing the three signatures.

func totalFloat32(x godlpack.Tensor[float32]) (float64, error) { return sum[float32, float64](x) }
func totalFloat64(x godlpack.Tensor[float64]) (float64, error) { return sum[float64, float64](x) }
func totalInt64(x godlpack.Tensor[int64]) (int64, error)       { return sum[int64, int64](x) }

// sum adds x's elements (of Go type E, any layout) in S.
func sum[E float32 | float64 | int64, S float64 | int64](x godlpack.Tensor[E]) (S, error) {
	t, err := x.AsTensor()
	if err != nil {
		return 0, err
	}
	v, err := tensor.As[E](t)
	if err != nil {
		return 0, err
	}
	var s S
	for _, e := range v.All() {
		s += S(e)
	}
	return s, nil
}
