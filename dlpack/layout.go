package dlpack

import (
	"errors"
	"math"
	"math/bits"
)

// ErrOverflow reports shape or stride arithmetic that does not fit in int64.
var ErrOverflow = errors.New("size overflows int64")

// NumElements returns the product of shape, or ErrOverflow. A negative entry is
// the caller's to reject first; here it is reported as an error too.
func NumElements(shape []int64) (int64, error) {
	for _, d := range shape {
		if d < 0 {
			return 0, errors.New("negative dimension")
		}
		if d == 0 {
			// The count is exactly 0 even if the other extents' product overflows.
			return 0, nil
		}
	}
	n := int64(1)
	for _, d := range shape {
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, ErrOverflow
		}
		n = int64(lo)
	}
	return n, nil
}

// ContiguousStrides returns the C-order strides, in elements, of shape (see
// FillContiguousStrides for a shape whose strides overflow).
func ContiguousStrides(shape []int64) []int64 {
	strides := make([]int64, len(shape))
	FillContiguousStrides(strides, shape)
	return strides
}

// FillContiguousStrides writes the C-order strides, in elements, of shape into
// strides (as long as shape) and reports false if they overflow int64; the
// dimensions before the overflowing one are then left as they were. The strides
// of a shape whose element count fits int64 always fit too: only an empty shape
// whose other extents multiply past int64 overflows.
func FillContiguousStrides(strides, shape []int64) bool {
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		if shape[i] > 1 && i > 0 {
			if shape[i] > math.MaxInt64/s {
				return false
			}
			s *= shape[i]
		}
	}
	return true
}

// IsCContiguous reports whether shape/strides describe row-major packed elements.
// Strides of dimensions of extent 1 do not matter, and an empty array is contiguous.
func IsCContiguous(shape, strides []int64) bool {
	if n, err := NumElements(shape); err != nil || n == 0 { // a negative or overflowing shape is not contiguous
		return err == nil
	}
	want := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] == 1 {
			continue
		}
		if strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}

// ElementSpan returns the lowest and highest element offsets (relative to the
// first element) that shape/strides reach, or ErrOverflow. For an empty array it
// returns (0, -1): no element is reached.
func ElementSpan(shape, strides []int64) (lo, hi int64, err error) {
	for _, d := range shape {
		if d == 0 {
			return 0, -1, nil
		}
	}
	for i, d := range shape {
		if d < 0 {
			return 0, 0, errors.New("negative dimension")
		}
		reach, ok := mulInt64(d-1, strides[i])
		if !ok {
			return 0, 0, ErrOverflow
		}
		if reach < 0 {
			if lo, ok = addInt64(lo, reach); !ok {
				return 0, 0, ErrOverflow
			}
		} else if hi, ok = addInt64(hi, reach); !ok {
			return 0, 0, ErrOverflow
		}
	}
	return lo, hi, nil
}

// ByteSize returns the bytes that n elements occupy when each takes elemBits bits,
// packed (sub-byte types share bytes), or ErrOverflow.
func ByteSize(n int64, elemBits int) (int64, error) {
	bitsTotal, ok := mulInt64(n, int64(elemBits))
	if !ok {
		return 0, ErrOverflow
	}
	return bitsTotal/8 + (bitsTotal%8+7)/8, nil // not (bitsTotal+7)/8: that wraps near MaxInt64
}

func mulInt64(a, b int64) (int64, bool) {
	// Factors within int32 cannot overflow: the common case (extents, strides,
	// item sizes) decided with two compares. The check below divides, ~20-40
	// cycles: in SelfOverlap of every MutTensor argument and ElementSpan of every
	// view, a few ns of a 4x4 call (bench/bench_vec.py).
	if uint64(a)+1<<31 < 1<<32 && uint64(b)+1<<31 < 1<<32 {
		return a * b, true
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}
