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

// streamFrom is the length, in bytes, from which an element-wise kernel walks
// the rest of its dst as four quarters at once (tools/gen_vec_kernels.py's
// streams): one stream's next lines come from memory one by one behind the
// hardware prefetcher, which stops at each 4 KiB page; four come together. Over
// 32 MiB of 4 KiB pages (Go's heap; L3 here) an in-place scale went 34 → 40
// GB/s; on 2 MiB pages and at L2 sizes it is even, so shorter lines keep one.
const streamFrom = 1 << 20

// apart is whether dst is src itself (in place) or does not meet it: a kernel
// may then do its elements in any order, the result being each one's op.
func apart[T any](dst, src []T) bool {
	d, s := uintptr(unsafe.Pointer(unsafe.SliceData(dst))), uintptr(unsafe.Pointer(unsafe.SliceData(src)))
	size := unsafe.Sizeof(*new(T))
	return d == s || d+uintptr(len(dst))*size <= s || s+uintptr(len(src))*size <= d
}
