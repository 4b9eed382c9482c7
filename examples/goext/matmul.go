package main

import (
	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/dlgonum"
	"github.com/godlpack/godlpack/dlpack/tensor"
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
	var prod mat.Dense
	prod.Mul(dense(a), dense(b))
	return dlgonum.FromDense(&prod)
}

// dense copies a 2-d float tensor of any layout into a gonum matrix.
func dense(x godlpack.Tensor[godlpack.AnyFloat]) *mat.Dense {
	data := make([]float64, 0, x.Len())
	if x.DType() == dlpack.DTypeOf[float32]() {
		each(x.Data(), x.Shape(), x.Strides(), func(v *float32) { data = append(data, float64(*v)) })
	} else {
		each(x.Data(), x.Shape(), x.Strides(), func(v *float64) { data = append(data, *v) })
	}
	return mat.NewDense(int(x.Dim(0)), int(x.Dim(1)), data)
}
