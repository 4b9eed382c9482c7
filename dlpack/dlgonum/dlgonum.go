// Package dlgonum converts between DLPack tensors (package tensor) and gonum's
// float64 matrices, both ways without copying. It lives apart from package
// tensor so that programs that do not use gonum do not link it.
//
// A tensor made from a matrix keeps the matrix's backing slice pinned until the
// tensor is released. A matrix made from a tensor aliases the tensor's memory and
// does not keep the tensor reachable: keep the tensor open while the matrix is
// in use.
package dlgonum

import (
	"errors"
	"fmt"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// FromGeneral returns a 2-d float64 tensor of shape (g.Rows, g.Cols) and strides
// (g.Stride, 1) viewing g.Data.
func FromGeneral(g blas64.General) (*tensor.Tensor, error) {
	if g.Rows < 0 || g.Cols < 0 || g.Stride < g.Cols || g.Stride < 1 {
		return nil, fmt.Errorf("dlgonum: malformed blas64.General: %d x %d with stride %d", g.Rows, g.Cols, g.Stride)
	}
	return tensor.FromSliceStrided(g.Data, []int64{int64(g.Rows), int64(g.Cols)}, []int64{int64(g.Stride), 1})
}

// FromDense returns a tensor viewing m's elements (see FromGeneral).
func FromDense(m *mat.Dense) (*tensor.Tensor, error) {
	return FromGeneral(m.RawMatrix())
}

// General returns a blas64.General viewing t's elements. t must be a writable
// 2-d float64 tensor with unit column stride and a row stride of at least its
// column count (a row-major matrix, possibly a window of a wider one); gonum
// cannot represent empty matrices.
func General(t *tensor.Tensor) (blas64.General, error) {
	v, err := tensor.As[float64](t)
	if err != nil {
		return blas64.General{}, err
	}
	if v.ReadOnly() {
		return blas64.General{}, tensor.ErrReadOnly
	}
	shape, strides := v.Shape(), v.Strides()
	if len(shape) != 2 {
		return blas64.General{}, fmt.Errorf("dlgonum: a %d-d tensor is not a matrix", len(shape))
	}
	rows, cols := shape[0], shape[1]
	if rows == 0 || cols == 0 {
		return blas64.General{}, errors.New("dlgonum: gonum matrices cannot be empty")
	}
	rowStride := strides[0]
	if rows == 1 {
		rowStride = cols // any stride is as good for one row
	}
	if (cols > 1 && strides[1] != 1) || rowStride < cols {
		return blas64.General{}, fmt.Errorf("dlgonum: strides %v of shape %v are not a row-major matrix's: %w", strides, shape, tensor.ErrNotContiguous)
	}
	raw, err := v.Raw()
	if err != nil {
		return blas64.General{}, err
	}
	// A single row's Raw ends at its last element, whatever its stride said.
	return blas64.General{Rows: int(rows), Cols: int(cols), Stride: int(rowStride), Data: raw[:(rows-1)*rowStride+cols]}, nil
}

// Dense returns a *mat.Dense viewing t's elements (see General).
func Dense(t *tensor.Tensor) (*mat.Dense, error) {
	g, err := General(t)
	if err != nil {
		return nil, err
	}
	var m mat.Dense
	m.SetRawMatrix(g)
	return &m, nil
}
