package main

import (
	"fmt"
	"math"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
)

// scale returns x * k in a new tensor of x's dtype and shape (ResultLike("x"):
// in x's framework).
func scale(x godlpack.Tensor[godlpack.AnyFloat], k float64) (*tensor.Tensor, error) {
	if x.DType() == dlpack.DTypeOf[float32]() {
		return scaled(x, float32(k))
	}
	return scaled(x, k)
}

func scaled[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat], k T) (*tensor.Tensor, error) {
	var dims [8]int64 // most tensors' dimensions: the shape with no allocation
	shape := dims[:0]
	for i := range x.NDim() {
		shape = append(shape, x.Dim(i))
	}
	out, dst, err := tensor.Uninitialized[T](shape...) // every element is written below
	if err != nil {
		return nil, err
	}
	if s, err := godlpack.ReadSlice[T](x); err == nil { // contiguous: one slice, no view to build
		for i, e := range s {
			dst[i] = e * k
		}
		return out, nil
	}
	src, err := vec.FromTensor[T](x) // shape and strides read in place: no copies
	if err != nil {
		_ = out.Close()
		return nil, err
	}
	i := 0
	return out, vec.Lines(src, func(_ int, line []T) error {
		for _, e := range line {
			dst[i] = e * k
			i++
		}
		return nil
	})
}

// applyRows calls fn(i, row) for each row of x, row a new 1-D array (a copy) of
// x's framework (ResultLike("x"): a numpy.ndarray for a NumPy x, a godlpack.Array
// for a producer of no known framework); fn is a Python callable bound to a Go
// func type: its call takes
// the GIL, and an exception it raises is this function's error, raised again
// unchanged to apply_rows's caller.
func applyRows(x godlpack.Tensor[float64], fn func(int64, *tensor.Tensor) (float64, error)) ([]float64, error) {
	rows, cols := x.Dim(0), x.Dim(1)
	v, err := vec.FromPointer[float64](x.Data(), x.Shape(), x.Strides())
	if err != nil {
		return nil, err
	}
	// Every row is copied before fn first runs: fn is Python code, which may
	// change or free the memory x views (a torch.Tensor's resize_). One copy of
	// x, each row a slice of it: the rows' tensors pin that one array once.
	all := make([]float64, 0, rows*cols)
	if err := vec.Lines(v, func(_ int, line []float64) error {
		all = append(all, line...)
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]float64, 0, rows)
	for i := range rows { // a call per row, rows of no columns included
		row, err := tensor.FromSlice(all[i*cols:(i+1)*cols], cols)
		if err != nil {
			return nil, err
		}
		r, err := fn(i, row)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// moments returns n, mean, var, min and max of y = x*scale + shift, clipped
// to [-clip, clip] when clip is given.
func moments(x godlpack.Tensor[godlpack.AnyFloat], ddof int, center bool, scale, shift float64, clip *float64) (map[string]any, error) {
	ys, err := values(x)
	if err != nil {
		return nil, err
	}
	n := len(ys)
	if n-ddof <= 0 {
		return nil, fmt.Errorf("moments(): %d values with ddof=%d: need more values than ddof", n, ddof)
	}
	if clip != nil && !(*clip >= 0) {
		return nil, fmt.Errorf("moments(): clip must be >= 0, got %v", *clip)
	}
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for i, v := range ys {
		y := v*scale + shift
		if clip != nil {
			y = min(max(y, -*clip), *clip)
		}
		ys[i] = y
		sum += y
		lo, hi = min(lo, y), max(hi, y)
	}
	mean := sum / float64(n)
	ss := 0.0
	for _, y := range ys {
		if center {
			ss += (y - mean) * (y - mean)
		} else {
			ss += y * y
		}
	}
	return map[string]any{"n": n, "mean": mean, "var": ss / float64(n-ddof), "min": lo, "max": hi}, nil
}

// values copies x's elements to float64s, any layout.
func values(x godlpack.Tensor[godlpack.AnyFloat]) ([]float64, error) {
	out := make([]float64, 0, x.Len())
	if x.DType() == dlpack.DTypeOf[float32]() {
		return appendValues[float32](x, out)
	}
	return appendValues[float64](x, out)
}

func appendValues[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat], out []float64) ([]float64, error) {
	v, err := vec.FromPointer[T](x.Data(), x.Shape(), x.Strides())
	if err != nil {
		return nil, err
	}
	err = vec.Lines(v, func(_ int, line []T) error {
		for _, e := range line {
			out = append(out, float64(e))
		}
		return nil
	})
	return out, err
}

// clipTensor clips a float tensor to [lo, hi] in place (clip's first overload).
func clipTensor(x godlpack.MutTensor[godlpack.AnyFloat], lo, hi float64) error {
	if !(lo <= hi) {
		return fmt.Errorf("clip(): lo must be <= hi, got lo=%v, hi=%v", lo, hi)
	}
	if x.DType() == dlpack.DTypeOf[float32]() {
		return vec.ClipTensor(x, float32(lo), float32(hi)) // any layout, in memory order
	}
	return vec.ClipTensor(x, lo, hi)
}

// clipList returns a new list of xs clipped to [lo, hi] (clip's second overload).
func clipList(xs []float64, lo, hi float64) ([]float64, error) {
	if !(lo <= hi) {
		return nil, fmt.Errorf("clip(): lo must be <= hi, got lo=%v, hi=%v", lo, hi)
	}
	out := make([]float64, len(xs))
	return out, vec.Clip(out, xs, lo, hi) // the tensor overload's rule, element for element
}
