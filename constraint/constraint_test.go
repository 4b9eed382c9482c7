package constraint_test

import (
	"slices"
	"testing"

	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
)

// Each constructor states its rule and no other; the zero C states none; what a
// C holds is its own copy, not the caller's slice.
func TestWhatEachRequires(t *testing.T) {
	f32 := dlpack.DTypeOf[float32]()
	dims := []int64{-1, 3}
	dts := []*dlpack.DType{f32}
	shape, dtypes := constraint.Shape(dims...), constraint.DTypes(dts...)
	dims[1], dts[0] = 4, nil
	for _, c := range []struct {
		name       string
		c          constraint.C
		ndim       int // -1: none
		shape      []int64
		contiguous bool
		overlap    bool
		dtypes     []*dlpack.DType // nil: none
	}{
		{"zero", constraint.C{}, -1, nil, false, false, nil},
		{"NDim(0)", constraint.NDim(0), 0, nil, false, false, nil},
		{"NDim(3)", constraint.NDim(3), 3, nil, false, false, nil},
		{"Shape", shape, 2, []int64{-1, 3}, false, false, nil},
		{"Shape()", constraint.Shape(), 0, []int64{}, false, false, nil},
		{"Contiguous", constraint.Contiguous(), -1, nil, true, false, nil},
		{"AllowOverlap", constraint.AllowOverlap(), -1, nil, false, true, nil},
		{"DTypes", dtypes, -1, nil, false, false, []*dlpack.DType{f32}},
		{"DTypes()", constraint.DTypes(), -1, nil, false, false, []*dlpack.DType{}},
	} {
		n, hasN := c.c.NDim()
		s, hasS := c.c.Shape()
		d, hasD := c.c.DTypes()
		if hasN != (c.ndim >= 0) || hasN && n != c.ndim {
			t.Errorf("%s: NDim() = %d, %v", c.name, n, hasN)
		}
		if hasS != (c.shape != nil) || !slices.Equal(s, c.shape) {
			t.Errorf("%s: Shape() = %v, %v", c.name, s, hasS)
		}
		if c.c.Contiguous() != c.contiguous || c.c.AllowOverlap() != c.overlap {
			t.Errorf("%s: Contiguous() = %v, AllowOverlap() = %v", c.name, c.c.Contiguous(), c.c.AllowOverlap())
		}
		if hasD != (c.dtypes != nil) || !slices.Equal(d, c.dtypes) {
			t.Errorf("%s: DTypes() = %v, %v", c.name, d, hasD)
		}
	}
	// What a reader gets is a copy too.
	s, _ := shape.Shape()
	s[0] = 7
	if again, _ := shape.Shape(); again[0] != -1 {
		t.Errorf("Shape() handed out the C's own extents: %v", again)
	}
}
