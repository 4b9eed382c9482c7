package vec

import "unsafe"

// ClipTensor clips x's elements to [lo, hi] in place: ClipView(v, v, lo, hi) of
// v = FromTensor(x), errors and all. A 1- or 2-d tensor whose rows are
// contiguous, or every other element ([:, ::2]), takes no View: one
// Layout call and the kernels, where a View's 128 bytes, copied out of FromTensor
// and into ClipView's arguments, cost a 4x4 tensor more than its clip (perf).
// x must be writable (a godlpack.MutTensor) and hold T's (FromTensor's rule).
func ClipTensor[T Number](x LaidOutSource, lo, hi T) error {
	if lo != lo || hi != hi {
		return errNaNBound
	}
	data, shape, strides := x.Layout()
	rows, n, step, next, span, ok := smallLines(data, shape, strides)
	if !ok || step > 2 {
		return clipTensorView(x, lo, hi)
	}
	s := unsafe.Slice((*T)(data), span)
	switch {
	case step == 1 && rows == 1:
		return Clip(s, s, lo, hi)
	case step == 1:
		for r := range rows {
			row := s[r*next : r*next+n]
			_ = Clip(row, row, lo, hi) // the bounds are numbers: no error
		}
	case rows == 1 || clipInStep2RowsKernel(s, 0, rows, n, next, lo, hi) == 0: // step 2: one line, or longer than a vector
		for r := range rows {
			clipStep2Line(s, r*next, n, lo, hi)
		}
	}
	return nil
}

// clipTensorView is ClipTensor through a View: a function of its own, so that
// ClipTensor's frame holds no View (its zeroing and copies).
func clipTensorView[T Number](x LaidOutSource, lo, hi T) error {
	v, err := FromTensor[T](x)
	if err != nil {
		return err
	}
	return ClipView(v, v, lo, hi)
}

// smallLines is the layout of a 1- or 2-d tensor of data, shape and strides as
// rows lines of n elements step apart, the first ones next apart, spanning span
// elements from data (rows 1 and the dimensions merged where the strides allow),
// when every extent and stride is at most smallExtent (no product overflows), the
// steps positive and the lines disjoint spans (an operation in place may then
// take them in any order): ok false otherwise (FromTensor's View decides, its
// errors too: a zero stride's several indexes of one element included).
func smallLines(data unsafe.Pointer, shape, strides []int64) (rows, n, step, next, span int, ok bool) {
	var r, c, s0, s1 int64 = 1, 1, 0, 1 // a 1-d tensor is one row
	switch {
	case data == nil || len(strides) != len(shape):
		return 0, 0, 0, 0, 0, false
	case len(shape) == 1:
		c, s1 = shape[0], strides[0]
	case len(shape) == 2:
		r, c, s0, s1 = shape[0], shape[1], strides[0], strides[1]
	default:
		return 0, 0, 0, 0, 0, false
	}
	// Extents positive, and the strides of those over 1 too (not 0: a dst's
	// several indexes of one element), all at most smallExtent (a power of 2):
	// nothing below overflows. An extent of 1's stride is unused, and may be
	// anything.
	if uint64(r-1)|uint64(c-1) >= smallExtent || c > 1 && uint64(s1-1) >= smallExtent || r > 1 && uint64(s0-1) >= smallExtent {
		return 0, 0, 0, 0, 0, false
	}
	if c == 1 { // a column: one line down it
		c, s1, r = r, s0, 1
	}
	if r == 1 || s0 == c*s1 { // one line
		c, r = r*c, 1
	}
	if c == 1 {
		s1 = 1
	}
	rows, n, step, next = int(r), int(c), int(s1), int(s0)
	span = (n-1)*step + 1
	if rows > 1 {
		if next < span { // lines that interleave or overlap
			return 0, 0, 0, 0, 0, false
		}
		span += (rows - 1) * next
	}
	return rows, n, step, next, span, true
}
