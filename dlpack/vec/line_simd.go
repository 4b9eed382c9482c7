//go:build goexperiment.simd && amd64

package vec

import "unsafe"

// alignFrom is the length, in vectors, from which an element-wise kernel
// stores its first elements up to dst's first cache line boundary in one
// masked store, then whole aligned lines: shorter, the few ns of the head are
// not won back.
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
