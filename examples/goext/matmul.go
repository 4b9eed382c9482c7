package main

import (
	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/dlgonum"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
	"gonum.org/v1/gonum/mat"
)

// matmul multiplies two 2-d float32/float64 tensors of any strides in float64
// with gonum; the product's memory is gonum's, handed to Python without a copy.
func matmul(a, b godlpack.Tensor[godlpack.AnyFloat]) (*tensor.Tensor, error) {
	if a.Dim(1) != b.Dim(0) {
		return nil, godlpack.ValueError.Errorf("matmul(): shapes (%d, %d) and (%d, %d) do not align",
			a.Dim(0), a.Dim(1), b.Dim(0), b.Dim(1))
	}
	rows, cols := int(a.Dim(0)), int(b.Dim(1))
	if rows == 0 || cols == 0 || a.Dim(1) == 0 { // gonum has no empty matrices
		out, err := tensor.New[float64](int64(rows), int64(cols))
		return out, err
	}
	da, err := dense(a)
	if err != nil {
		return nil, err
	}
	db, err := dense(b)
	if err != nil {
		return nil, err
	}
	var prod mat.Dense
	prod.Mul(da, db)
	return dlgonum.FromDense(&prod)
}

// dense copies a 2-d float tensor of any layout into a gonum matrix.
func dense(x godlpack.Tensor[godlpack.AnyFloat]) (*mat.Dense, error) {
	rows, cols := int(x.Dim(0)), int(x.Dim(1))
	data := make([]float64, rows*cols)
	dst, err := vec.ViewOf(data, x.Dim(0), x.Dim(1))
	if err != nil {
		return nil, err
	}
	if x.DType() == dlpack.DTypeOf[float32]() {
		err = castInto[float32](dst, x)
	} else {
		err = castInto[float64](dst, x)
	}
	return mat.NewDense(rows, cols, data), err
}

// castInto writes x's elements (of Go type T), widened, into dst.
func castInto[T float32 | float64](dst vec.View[float64], x godlpack.Tensor[godlpack.AnyFloat]) error {
	src, err := view[T](x)
	if err != nil {
		return err
	}
	return vec.Map(dst, src, func(d []float64, s []T) error { return vec.Cast(d, s) })
}
