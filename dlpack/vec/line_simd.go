//go:build goexperiment.simd && amd64

package vec

import "unsafe"

// alignFrom is the length, in vectors, from which an element-wise kernel whose
// dst does not start on a cache line stores its first and last vectors
// unaligned and the ones between on whole lines (tools/gen_vec_kernels.py's
// line_head): shorter, the extra vector is not won back.
const alignFrom = 8

// lineHead is how many elements of s lie before its first 64-byte (cache line)
// boundary: 0 where s starts on one. A vector store that straddles two lines
// writes both: over a NumPy array (16-byte aligned) a 16 MiB in-place clip of
// g++ -O3's loop took 313 us, 243 at a line boundary (this machine, L3-sized).
func lineHead[T any](s []T) int {
	const line = 64
	size := uintptr(unsafe.Sizeof(*new(T)))
	return int((line - uintptr(unsafe.Pointer(unsafe.SliceData(s)))%line) % line / size)
}
