package main

import (
	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
)

// The bodies of scale, scale_ and sum, written with package vec: its SIMD
// kernels (AVX-512 or AVX2, in the GOEXPERIMENT=simd build that godlpack's
// build backend makes by default) or its Go loops do the elements; vec's
// Parallel splits a large tensor over goroutines; vec's views walk any strides.

// view is x's memory as a vec view of T elements, any strides: its shape and
// strides read where they lie (vec.FromTensor), not copied.
func view[T float32 | float64](x vec.Source) (vec.View[T], error) {
	return vec.FromTensor[T](x)
}

// scaled returns x * k in a new C-contiguous tensor.
func scaled[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat], k T) (*tensor.Tensor, error) {
	out, dst, err := tensor.Uninitialized[T](x.Shape()...) // every element written below
	if err != nil {
		return nil, err
	}
	src, err := view[T](x)
	if err != nil {
		return nil, err
	}
	if s, ok := src.Slice(); ok { // one flat pass, over the goroutines
		vec.ParallelOver(dst, func(lo, hi int) { _ = vec.Scale(dst[lo:hi], s[lo:hi], k) })
		return out, nil
	}
	dv, err := vec.ViewOf(dst, out.Shape()...)
	if err != nil {
		return nil, err
	}
	return out, vec.Map(dv, src, func(d, s []T) error { return vec.Scale(d, s, k) })
}

// scaleEach multiplies x by k in place.
func scaleEach[T float32 | float64](x godlpack.MutTensor[godlpack.AnyFloat], k T) error {
	v, err := view[T](x)
	if err != nil {
		return err
	}
	if s, ok := v.Slice(); ok {
		vec.ParallelOver(s, func(lo, hi int) { _ = vec.Scale(s[lo:hi], s[lo:hi], k) })
		return nil
	}
	return vec.Map(v, v, func(d, s []T) error { return vec.Scale(d, s, k) })
}

// parallelSum is the float64 sum of x's elements (of Go type T): vec's
// pairwise sum, by goroutines (the same bits as on one). Any other layout:
// vec.SumView, in the memory's order (a transposed array's sum is its
// memory's, the bits of the contiguous array's).
func parallelSum[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat]) (float64, error) {
	v, err := view[T](x)
	if err != nil {
		return 0, err
	}
	if s, ok := v.Slice(); ok {
		return vec.SumParallel(s), nil
	}
	return vec.SumView(v)
}
