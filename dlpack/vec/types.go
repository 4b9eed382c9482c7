package vec

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
)

// Float is the element types of the floating-point operations.
type Float interface{ float32 | float64 }

// Integer is the integer element types.
type Integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// Number is the element types of the arithmetic operations: integers wrap
// around as in NumPy and C.
type Number interface{ Integer | Float }

// Castable is the element types Cast converts between: the numbers and the two
// 16-bit floats (bits in dlpack.BFloat16 and dlpack.Float16).
type Castable interface {
	Number | dlpack.BFloat16 | dlpack.Float16
}

// sameLen is nil when every source operand is as long as dst, else an error
// naming the first that is not. Small enough to inline (the error is made out
// of line): a call costs ~2 ns of a 16-element Clip's ~15 (a 4x4 clip_).
func sameLen(dst int, lens ...int) error {
	for i, n := range lens {
		if n != dst {
			return lenError(dst, i, n)
		}
	}
	return nil
}

// lenError is sameLen's error: source operand i (from 0) has n elements, not
// dst.
func lenError(dst, i, n int) error {
	return fmt.Errorf("vec: dst has %d elements but source operand %d has %d: "+
		"pass slices of the same length", dst, i+1, n)
}
