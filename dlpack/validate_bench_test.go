package dlpack

import "testing"

// What validating a tensor costs into the caller's buffers (tensor.FromManaged's
// use): the common 2-d case with strides, and a legacy one whose strides are
// derived.
func BenchmarkValidateInto(b *testing.B) {
	for _, c := range []struct {
		name string
		f    Foreign
	}{
		{"2d", foreign([]int64{16, 16}, []int64{16, 1})},
		{"4d", foreign([]int64{2, 3, 4, 5}, []int64{60, 20, 5, 1})},
		{"legacy-3d", legacy([]int64{2, 3, 4}, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var v Validated
			var shape, strides [4]int64
			for b.Loop() {
				if err := ValidateInto(&v, c.f, shape[:], strides[:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
