// Package walkplan chooses the order in which a loop over strided operands
// visits their elements: the one rule that dlpack's strided copies and fills
// and dlpack/vec's walks share, NumPy's nditer and PyTorch's TensorIterator
// rule. The dimensions are sorted by the strides of one operand (the key: the
// destination of an element-wise operation), largest outermost, so that the
// innermost loop steps through the key's memory in order; a dimension where
// the key's stride is negative is walked backwards (flipped); and neighbouring
// dimensions that every operand lays out as one (outer stride = inner stride
// times inner extent) are merged into one. A transposed or otherwise permuted
// C-contiguous operand then walks as one contiguous run, not a line across
// whole rows per element (60-90x slower at 4096x2048).
//
// Reordering is only for operations whose elements are independent of each
// other, where the order of the visits cannot change a result: Plan keeps the
// logical (C) order unless asked, and also where the key's layout may visit
// one element twice (a self-overlapping destination, whose last write would
// then change).
package walkplan

// Plan rewrites, in place, the walk of shape over len(strides) operands whose
// strides (in elements) are strides[o] and whose first elements are at offs[o]:
// extents of 1 dropped, then (reorder true) the dimensions flipped where the
// key operand's stride is negative and sorted by the key's stride magnitudes,
// largest first, ties by the other operands' in turn, then neighbours merged
// where every operand allows. It returns nd: the walk is shape[:nd] with
// strides[o][:nd], outermost first, from the offsets offs (changed by a flip),
// the same elements paired as before. A shape with an extent of 0 is the
// caller's to skip (no element to walk). Without reorder, or for a key
// layout that is not one-to-one (checked on the sorted dimensions: each
// stride at least the span of those inside it), the order stays C order and
// only the extents of 1 and the merges change it.
func Plan[I int | int64](shape []I, strides [][]I, offs []I, key int, reorder bool) int {
	nd := 0
	for d, ext := range shape { // extents of 1: no step
		if ext == 1 {
			continue
		}
		shape[nd] = ext
		for o := range strides {
			strides[o][nd] = strides[o][d]
		}
		nd++
	}
	if reorder && nd > 1 && !InOrder(shape[:nd], strides[key][:nd]) {
		sortDims(shape[:nd], strides, offs, key)
	} else if reorder && nd == 1 && strides[key][0] < 0 {
		flip(shape, strides, offs, 0)
	}
	return merge(shape[:nd], strides)
}

// InOrder is whether strides, over the dimensions of shape whose extent is not
// 1, are positive and decreasing already (a C-contiguous array, or rows of one):
// Plan keyed by them keeps C order, so a caller may skip what a reordered walk
// would need (vec's overlap check), and Plan skips its sort.
func InOrder[I int | int64](shape, strides []I) bool {
	last := I(0)
	for d, ext := range shape {
		if ext == 1 {
			continue
		}
		s := strides[d]
		if s <= 0 || last != 0 && s > last {
			return false
		}
		last = s
	}
	return true
}

// sortDims flips the key's negative strides and sorts the dimensions by the
// key's stride magnitudes, largest first (insertion sort: a handful of
// dimensions, and stable: equal keys keep their order), unless the key's
// layout, so sorted, may reach an element twice; then it leaves all as it was.
func sortDims[I int | int64](shape []I, strides [][]I, offs []I, key int) {
	nd := len(shape)
	var permArr [16]int
	perm := sorted(permArr[:0], nd, strides, key)
	// One-to-one: every stride of the key at least the span of the dimensions
	// inside it, plus one.
	span := I(0)
	for i := nd - 1; i >= 0; i-- {
		d := perm[i]
		s := abs(strides[key][d])
		if s <= span {
			return
		}
		span += s * (shape[d] - 1)
	}
	for d := range nd {
		if strides[key][d] < 0 {
			flip(shape, strides, offs, d)
		}
	}
	permute(shape, perm)
	for o := range strides {
		permute(strides[o][:nd], perm)
	}
}

// sorted is the nd dimensions in the order of a walk (appended to perm, which
// grows where nd is more than its room): by the key's stride magnitudes,
// largest first, ties by the other operands' (outer); an insertion sort, for a
// handful of dimensions, and stable: equal ones keep their order.
func sorted[I int | int64](perm []int, nd int, strides [][]I, key int) []int {
	if nd > cap(perm) {
		perm = make([]int, 0, nd)
	}
	for d := range nd {
		perm = append(perm, d)
	}
	for i := 1; i < nd; i++ {
		for j := i; j > 0 && outer(strides, key, perm[j], perm[j-1]); j-- {
			perm[j], perm[j-1] = perm[j-1], perm[j]
		}
	}
	return perm
}

// outer is whether dimension a goes outside dimension b: the key's larger
// stride magnitude, or on a tie the first other operand's that differs.
func outer[I int | int64](strides [][]I, key, a, b int) bool {
	if sa, sb := abs(strides[key][a]), abs(strides[key][b]); sa != sb {
		return sa > sb
	}
	for o := range strides {
		if sa, sb := abs(strides[o][a]), abs(strides[o][b]); sa != sb {
			return sa > sb
		}
	}
	return false
}

// flip walks dimension d backwards: every operand starts at its last index
// along d and steps by minus its stride.
func flip[I int | int64](shape []I, strides [][]I, offs []I, d int) {
	for o := range strides {
		offs[o] += (shape[d] - 1) * strides[o][d]
		strides[o][d] = -strides[o][d]
	}
}

// permute sets s[i] = s[perm[i]] for all i.
func permute[I int | int64](s []I, perm []int) {
	var tmpArr [16]I
	tmp := tmpArr[:0]
	if len(s) > len(tmpArr) {
		tmp = make([]I, 0, len(s))
	}
	tmp = append(tmp, s...)
	for i, p := range perm {
		s[i] = tmp[p]
	}
}

// merge merges each dimension into the one outside it where every operand
// allows (the outer stride is the inner's times the inner extent) and returns
// the number of dimensions left.
func merge[I int | int64](shape []I, strides [][]I) int {
	nd := 0
	for d, ext := range shape {
		if k := nd - 1; k >= 0 && mergeable(strides, k, d, ext) {
			shape[k] *= ext
			for o := range strides {
				strides[o][k] = strides[o][d]
			}
			continue
		}
		shape[nd] = ext
		for o := range strides {
			strides[o][nd] = strides[o][d]
		}
		nd++
	}
	return nd
}

// mergeable is whether dimension d (extent ext) of every operand continues
// dimension k: k's stride is d's times ext.
func mergeable[I int | int64](strides [][]I, k, d int, ext I) bool {
	for o := range strides {
		if strides[o][k] != strides[o][d]*ext {
			return false
		}
	}
	return true
}

func abs[I int | int64](x I) I {
	if x < 0 {
		return -x
	}
	return x
}

// DenseStrides sets out to the strides of a new dense (gapless) array of shape
// whose memory order is that of an array with strides: its dimensions nested in
// the order Plan walks them (largest stride magnitude outermost, ties in
// order), each stride positive (NumPy's order="K"). An element-wise operation
// from such an array into the new one walks both in one run.
func DenseStrides[I int | int64](shape, strides, out []I) {
	nd := len(shape)
	var permArr [16]int
	perm := sorted(permArr[:0], nd, [][]I{strides}, 0)
	step := I(1)
	for i := nd - 1; i >= 0; i-- {
		out[perm[i]] = step
		step *= max(shape[perm[i]], 1)
	}
}
