package dlpack

import "slices"

// An Aliasing says whether two different indices of one strided view address the
// same element (SelfOverlap).
type Aliasing int

const (
	// NoAliasing: every index has an element of its own.
	NoAliasing Aliasing = iota
	// Aliased: some element has two indices or more (a zero stride over an extent
	// above 1, rows of an as_strided view that share elements).
	Aliased
	// MayAlias: the answer would cost more than the work allowed.
	MayAlias
)

// SelfOverlap reports whether the view with shape and strides (in elements)
// reaches some element through two different indices, as an in-place write
// would then write it once per index (NumPy answers the same question before a
// ufunc writes to its output; PyTorch refuses in-place writes to such views).
//
// It costs one pass over the dimensions for the layouts producers make (any
// permutation of packed strides, steps, windows of a larger array, negative
// strides): those whose strides, ordered by magnitude, each exceed the reach of
// the smaller ones. Other layouts (as_strided's) are decided by listing the
// offsets of their elements, if there are at most maxWork; beyond, MayAlias. A
// view with no elements aliases nothing. An overflowing reach answers MayAlias;
// validated views (Validate) have none.
func SelfOverlap(shape, strides []int64, maxWork int64) Aliasing {
	if nested(shape, strides) {
		return NoAliasing
	}
	return sortedOverlap(shape, strides, maxWork)
}

// sortedOverlap is SelfOverlap for the layouts nested has no answer for.
func sortedOverlap(shape, strides []int64, maxWork int64) Aliasing {
	var buf [16]int64
	// dims holds the (|stride|, extent) pairs of the extents above 1, which alone
	// can make two indices differ.
	dims := buf[:0]
	if len(shape) > len(buf)/2 {
		dims = make([]int64, 0, 2*len(shape))
	}
	zeroStride := false
	for i, d := range shape {
		if d <= 0 {
			return NoAliasing // no element (a negative extent is Validate's to refuse)
		}
		if d == 1 {
			continue
		}
		s := strides[i]
		if s == 0 {
			zeroStride = true // aliased, unless a later extent is 0
			continue
		}
		if s < 0 {
			if s == -s { // MinInt64
				return MayAlias
			}
			s = -s // a mirrored axis reaches the same offsets, shifted
		}
		dims = append(dims, s, d)
	}
	if zeroStride {
		return Aliased
	}
	n := len(dims) / 2
	for i := 1; i < n; i++ { // insertion sort by |stride|: a few dimensions
		for j := i; j > 0 && dims[2*j] < dims[2*j-2]; j-- {
			dims[2*j], dims[2*j-2] = dims[2*j-2], dims[2*j]
			dims[2*j+1], dims[2*j-1] = dims[2*j-1], dims[2*j+1]
		}
	}
	reach := int64(0) // the highest offset the smaller strides reach
	for i := range n {
		s, d := dims[2*i], dims[2*i+1]
		if s <= reach {
			return listedOverlap(dims, maxWork)
		}
		r, ok := mulInt64(d-1, s)
		if !ok {
			return MayAlias
		}
		if reach, ok = addInt64(reach, r); !ok {
			return MayAlias
		}
	}
	return NoAliasing
}

// nested reports, in one pass with no sorting, that each stride (innermost
// first) exceeds the reach of the ones inside it: the C-ordered layouts (packed,
// stepped, windows, reversed) have no aliasing, and most calls ask about one.
// false is no answer: SelfOverlap then sorts the strides.
func nested(shape, strides []int64) bool {
	reach := int64(0)
	for i := len(shape) - 1; i >= 0; i-- {
		d, s := shape[i], strides[i]
		if d <= 1 {
			if d < 1 {
				return d == 0 // no element
			}
			continue
		}
		if s < 0 {
			s = -s // MinInt64 stays negative: false below
		}
		if s <= reach {
			return false
		}
		r, ok1 := mulInt64(d-1, s)
		var ok2 bool
		reach, ok2 = addInt64(reach, r)
		if !ok1 || !ok2 {
			return false
		}
	}
	return true
}

// listedOverlap decides SelfOverlap for (|stride|, extent) pairs by listing the
// offsets of every element, if there are at most maxWork.
func listedOverlap(dims []int64, maxWork int64) Aliasing {
	count, reach := int64(1), int64(0)
	for i := 0; i < len(dims); i += 2 {
		var ok bool
		if count, ok = mulInt64(count, dims[i+1]); !ok || count > maxWork {
			return MayAlias
		}
		r, ok1 := mulInt64(dims[i+1]-1, dims[i])
		reach, ok = addInt64(reach, r)
		if !ok1 || !ok {
			return MayAlias
		}
	}
	offsets := make([]int64, 1, count)
	for i := 0; i < len(dims); i += 2 {
		s, d := dims[i], dims[i+1]
		m := len(offsets)
		for k := int64(1); k < d; k++ {
			for _, o := range offsets[:m] {
				offsets = append(offsets, o+k*s) // at most reach: no overflow
			}
		}
	}
	slices.Sort(offsets)
	for i := 1; i < len(offsets); i++ {
		if offsets[i] == offsets[i-1] {
			return Aliased
		}
	}
	return NoAliasing
}
