package vec

import "github.com/godlpack/godlpack/internal/walkplan"

// SumView is the sum of v's elements in float64, in the order of v's memory
// (walkplan.Plan keyed by v's strides: NumPy's sum reduces in that order too):
// each run of the planned walk (a contiguous line, or a strided one in
// pieces of a chunk) summed by Sum, and the runs' sums by Sum. A view whose
// elements are all of one span of memory (a transposed or reversed
// C-contiguous array) is one run: Sum of that memory, whatever its axes'
// order, so its bits are the contiguous array's. 0 for no elements.
func SumView[T Float](v View[T]) (float64, error) {
	shape := v.dims.shape()
	if err := check(shape, &v); err != nil {
		return 0, err
	}
	if s, ok := v.contiguous(); ok {
		return Sum(s), nil
	}
	var sumsOnStack [64]float64 // the runs' sums: a small view's allocate nothing
	sums := sumsOnStack[:0]
	var buf walkBuf[T]
	err := forLines(shape, dstOrder, [][]int{v.dims.strides()}, []int{v.offset},
		func(_ int, offs [maxOps]int, n int, steps [maxOps]int) error {
			if steps[0] == 1 {
				sums = append(sums, Sum(v.data[offs[0]:offs[0]+n]))
				return nil
			}
			for lo := 0; lo < n; lo += chunk {
				m := min(chunk, n-lo)
				sums = append(sums, Sum(lineOf(v.data, &buf, offs[0]+lo*steps[0], steps[0], m)))
			}
			return nil
		})
	buf.release()
	return Sum(sums), err
}

// StridesLike is the strides of a new dense array of v's shape laid out in
// v's memory order (NumPy's order="K", as NumPy and PyTorch lay out the result
// of an element-wise operation): a transposed v gives a transposed result, and
// an operation from v into it walks both as one run, where one into a
// C-contiguous array gathers v's transposed lines a tile at a time (several
// times slower). Positive strides: a reversed axis of v is not reversed in it.
// tensor.UninitializedStrided makes a result in C memory with them.
func StridesLike[T any](v View[T]) []int64 {
	shape, strides := v.Shape(), v.Strides()
	out := make([]int64, len(shape))
	walkplan.DenseStrides(shape, strides, out)
	return out
}
