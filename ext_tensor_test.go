//go:build !godlpack_python

package godlpack

// ext_tensor_test.go: a tensor argument's elements as a slice (Slice, ReadSlice)
// and as a vec view (vec.FromTensor through Layout), the two ways an extension
// reads a tensor, through Function.Call.

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
)

// A Tensor hands vec its layout in one call.
var _ vec.LaidOutSource = MutTensor[float32]{}

// clipOrView clips x in place: a C-contiguous x as one slice, any other through
// its vec view; which path ran is recorded in took.
func clipOrView(took *string) func(MutTensor[float32]) (None, error) {
	return func(x MutTensor[float32]) (None, error) {
		s, err := Slice[float32](x)
		if err == nil {
			*took = "slice"
			return None{}, vec.Clip(s, s, 0, 1)
		}
		if !errors.Is(err, tensor.ErrNotContiguous) {
			return None{}, err
		}
		*took = "view"
		v, err := vec.FromTensor[float32](x)
		if err != nil {
			return None{}, err
		}
		return None{}, vec.ClipView(v, v, 0, 1)
	}
}

func TestSliceAndViewOfTensorArguments(t *testing.T) {
	var took string
	fn := Func1("clip01", clipOrView(&took), "x")
	Module("gocall_slice", "", fn)
	data := []float32{-1, 5, 0.5, 7, -3, 0.25, 9, 2}
	for _, c := range []struct {
		shape, strides []int64
		path           string
		want           []float32
	}{
		{[]int64{2, 4}, []int64{4, 1}, "slice", []float32{0, 1, 0.5, 1, 0, 0.25, 1, 1}},
		{[]int64{1, 4}, []int64{99, 1}, "slice", []float32{0, 1, 0.5, 1, -3, 0.25, 9, 2}}, // an extent of 1: any stride
		{[]int64{2, 2}, []int64{4, 2}, "view", []float32{0, 5, 0.5, 7, 0, 0.25, 1, 2}},    // [:, ::2]
		{[]int64{2, 4}, []int64{1, 2}, "view", []float32{0, 1, 0.5, 1, 0, 0.25, 1, 1}},    // column-major
		{[]int64{0, 4}, []int64{1, 7}, "slice", slices.Clone(data)},                       // no elements: any strides
	} {
		d := slices.Clone(data)
		x, err := tensor.FromSliceStrided(d, c.shape, c.strides)
		if err != nil {
			t.Fatal(c.shape, c.strides, err)
		}
		took = ""
		if _, err := fn.Call(x); err != nil || took != c.path || !slices.Equal(d, c.want) {
			t.Errorf("%v %v: %v, took %q, got %v, want %v by %q", c.shape, c.strides, err, took, d, c.want, c.path)
		}
	}
	f64, _ := tensor.FromSlice([]float64{1, 2}, 2)
	if _, err := fn.Call(f64); err == nil {
		t.Error("a float64 tensor for a MutTensor[float32]: no error")
	}
	any2 := Func1("first", func(x Tensor[Any]) (float64, error) {
		s, err := ReadSlice[float32](x)
		if err != nil {
			return 0, err
		}
		return float64(s[0]), nil
	}, "x")
	Module("gocall_slice_any", "", any2)
	var dtErr *tensor.DTypeError
	if _, err := any2.Call(f64); !errors.As(err, &dtErr) || dtErr.Want.Name != "float32" || dtErr.Got.Name != "float64" {
		t.Errorf("ReadSlice[float32] of a float64 tensor: %v, want a DTypeError naming both", err)
	}
	f32, _ := tensor.FromSlice([]float32{3, 4}, 2)
	if r, err := any2.Call(f32); err != nil || r != 3.0 {
		t.Errorf("ReadSlice[float32] of a float32 tensor: %v %v", r, err)
	}
}

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
