//go:build !godlpack_python

package godlpack

import (
	"math"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
)

// rowsApart is a shortcut of SelfOverlap: where it answers (true), SelfOverlap
// must say NoAliasing, for every matrix layout, hostile ones too; and it
// answers for the layouts producers make, so that a MutTensor argument's check
// takes it.
func TestRowsApartIsSelfOverlapsNoAliasing(t *testing.T) {
	values := []int64{0, 1, 2, 3, 4, 7, 8, -1, -2, -4, -8, 1 << 30, 1<<31 - 1, 1 << 31, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64}
	extents := []int64{0, 1, 2, 3, 4, 5, 1 << 20, 1 << 31, 1 << 40, math.MaxInt64}
	answered := 0
	for _, rows := range extents {
		for _, cols := range extents {
			for _, row := range values {
				for _, col := range values {
					shape, strides := []int64{rows, cols}, []int64{row, col}
					d := &cDLTensor{ndim: 2, shape: &shape[0], strides: &strides[0]}
					if !rowsApart(d) {
						continue
					}
					answered++
					if got := dlpack.SelfOverlap(shape, strides, selfOverlapWork); got != dlpack.NoAliasing {
						t.Errorf("shape %v strides %v: rowsApart, but SelfOverlap says %v", shape, strides, got)
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Fatal("rowsApart never answered")
	}
	for _, c := range []struct{ shape, strides []int64 }{
		{[]int64{4, 4}, []int64{4, 1}},  // C-contiguous
		{[]int64{4, 4}, []int64{8, 2}},  // [:, ::2]
		{[]int64{4, 4}, []int64{-4, 1}}, // rows reversed
		{[]int64{4, 4}, []int64{4, -1}}, // columns reversed
		{[]int64{4, 3}, []int64{10, 3}}, // a window of a larger array
		{[]int64{1, 4}, []int64{0, 1}},  // one row: no test of the rows
		{[]int64{4096, 1024}, []int64{2048, 2}},
	} {
		d := &cDLTensor{ndim: 2, shape: &c.shape[0], strides: &c.strides[0]}
		if c.shape[0] > 1 && !rowsApart(d) {
			t.Errorf("shape %v strides %v: no answer for a layout producers make", c.shape, c.strides)
		}
	}
	for _, nd := range []int32{0, 1, 3} { // not a matrix: no answer
		shape, strides := []int64{4, 4, 4}, []int64{16, 4, 1}
		if rowsApart(&cDLTensor{ndim: nd, shape: &shape[0], strides: &strides[0]}) {
			t.Errorf("%d dimensions: rowsApart answered", nd)
		}
	}
}
