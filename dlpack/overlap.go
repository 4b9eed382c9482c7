package dlpack

// Extent is the half-open range of addresses [Lo, Hi) that the elements of a
// strided view can touch. Whether two views may share memory is decided by their
// extents, never by who owns the memory: one buffer can reach Go under several
// owners (an array, its re-import through DLPack, a NumPy or PyTorch view of it).
// Disjoint extents cannot share a byte; overlapping ones may (a[::2] and a[1::2]
// overlap as extents although they share no element), so a caller that must not
// read what it has already written copies the source through a temporary first.
type Extent struct{ Lo, Hi uintptr }

// Empty reports whether the extent holds no byte (a view with no elements).
func (e Extent) Empty() bool { return e.Hi <= e.Lo }

// Overlaps reports whether e and o may share a byte. An empty extent overlaps
// nothing, wherever it points.
func (e Extent) Overlaps(o Extent) bool {
	return !e.Empty() && !o.Empty() && e.Lo < o.Hi && o.Lo < e.Hi
}

// ViewExtent returns the extent of the view whose element 0 is element number
// first counted from address data (first is 0 unless the view is a selection
// inside a larger array), with shape and strides in elements and elemBits bits of
// storage per element. Packed sub-byte elements share bytes: a partial byte at
// either end counts as touched. It returns ErrOverflow if the byte offsets do not
// fit in int64 or the range wraps the address space.
func ViewExtent(data uintptr, first int64, shape, strides []int64, elemBits int) (Extent, error) {
	lo, hi, err := ElementSpan(shape, strides)
	if err != nil {
		return Extent{}, err
	}
	if hi < lo {
		return Extent{Lo: data, Hi: data}, nil
	}
	var ok bool
	if lo, ok = addInt64(lo, first); !ok {
		return Extent{}, ErrOverflow
	}
	if hi, ok = addInt64(hi, first); !ok {
		return Extent{}, ErrOverflow
	}
	if hi, ok = addInt64(hi, 1); !ok { // one past the last element
		return Extent{}, ErrOverflow
	}
	loBit, ok1 := mulInt64(lo, int64(elemBits))
	hiBit, ok2 := mulInt64(hi, int64(elemBits))
	if !ok1 || !ok2 {
		return Extent{}, ErrOverflow
	}
	start, ok1 := addOffset(data, floorDiv8(loBit))
	end, ok2 := addOffset(data, -floorDiv8(-hiBit)) // hiBit > loBit >= MinInt64: -hiBit fits
	if !ok1 || !ok2 {
		return Extent{}, ErrOverflow
	}
	return Extent{Lo: start, Hi: end}, nil
}

// addOffset returns p+off, and false if that leaves the address space.
func addOffset(p uintptr, off int64) (uintptr, bool) {
	q := p + uintptr(off) // two's complement: a negative offset goes down
	if off < 0 {
		return q, q < p
	}
	return q, q >= p
}

// floorDiv8 is bits/8 rounded towards minus infinity.
func floorDiv8(bits int64) int64 {
	q := bits / 8
	if bits%8 < 0 {
		q--
	}
	return q
}
