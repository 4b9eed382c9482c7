//go:build godlpack_python

package arraymodule

// walk_pairs.go: the element-by-element conversions' walk (a dtype change, padded
// sub-byte elements) over a source and a new C-contiguous result, in the source's
// memory order (internal/walkplan, the rule of dlpack.CopyStrided and package vec):
// a transposed source is read along its memory, not one element a row.

import (
	"slices"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/walkplan"
)

// eachPairInSourceOrder calls fn with the element offsets of every index of shape in
// a source with strides src and in a C-contiguous result of shape, in the source's
// memory order; fn's first error stops the walk. The result is new: the order of its
// writes is nobody else's to see.
func eachPairInSourceOrder(shape, src []int64, fn func(srcOff, outOff int64) error) error {
	if slices.Contains(shape, 0) {
		return nil
	}
	dims, s, o := slices.Clone(shape), slices.Clone(src), dlpack.ContiguousStrides(shape)
	offs := []int64{0, 0}
	nd := walkplan.Plan(dims, [][]int64{s, o}, offs, 0, true)
	idx := make([]int64, nd)
	for {
		if err := fn(offs[0], offs[1]); err != nil {
			return err
		}
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			offs[0] += s[k]
			offs[1] += o[k]
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
			offs[0] -= s[k] * dims[k]
			offs[1] -= o[k] * dims[k]
		}
		if k < 0 {
			return nil
		}
	}
}
