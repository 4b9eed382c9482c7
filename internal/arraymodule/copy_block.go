//go:build godlpack_python

package arraymodule

// copy_block.go: copies into a freshly allocated array (copy(), asarray from a
// buffer). A large block that is contiguous on both sides goes to C's memcpy: into
// pages the kernel has just mapped, glibc's memcpy beat Go's memmove by ~30%
// (64 MiB: 6.5 ms against 8.9 ms, best of 40, interleaved in one process; NumPy's
// copy 6.3 ms). Everything else is dlpack.CopyStrided, whose copies into memory
// already in use run as fast as memcpy's (bench/bench_array.py, a[:] = b).

// #include <string.h>
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// memcpyMin is the size from which a cgo call (~40 ns) is noise next to the copy.
const memcpyMin = 1 << 20

func copyIntoFresh(dst unsafe.Pointer, dstStrides []int64, src unsafe.Pointer, srcStrides, shape []int64, itemSize int) {
	n, err := dlpack.NumElements(shape)
	if err == nil && n*int64(itemSize) >= memcpyMin &&
		dlpack.IsCContiguous(shape, dstStrides) && dlpack.IsCContiguous(shape, srcStrides) {
		C.memcpy(dst, src, C.size_t(n*int64(itemSize)))
		return
	}
	dlpack.CopyStrided(dst, dstStrides, src, srcStrides, shape, itemSize)
}
