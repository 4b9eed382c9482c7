// Package fastcheck exposes the C fast-path check of foreign tensors
// (internal/cheaders/fast_import.h) to Go tests, with no Python, so that a
// fuzz test can hold it to the Go validator: whatever the C check accepts, the
// Go validator must accept with the same view.
package fastcheck

// #cgo CFLAGS: -I${SRCDIR}/../../internal/cheaders
// #include <stdlib.h>
// #include "fast_import.h"
// static void *fake_addr(uintptr_t u) { return (void *)u; }
// static gd_dtype_slot_table slots;
// static void set_slot(int code, int bits, int v) { slots[code][bits] = (int8_t)v; }
// static int check(const void *m, int versioned, gd_fast_view *out) {
//     return gd_fast_check(m, versioned, (const int8_t (*)[256])slots, out);
// }
import "C"

import (
	_ "github.com/godlpack/godlpack/internal/cheaders" // header edits rebuild this package
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

func init() {
	// The same filling as the godlpack module's (internal/arraymodule/import.go):
	// whole-byte dtypes only.
	for _, d := range dlpack.All() {
		if !d.SubByte() && int(d.DL.Code) < C.GD_DTYPE_CODES {
			C.set_slot(C.int(d.DL.Code), C.int(d.DL.Bits), C.int(d.Index+1))
		}
	}
}

// View is what the C check reports for an accepted tensor.
type View struct {
	Data       unsafe.Pointer
	Shape      []int64
	Strides    []int64
	DTypeIndex int
	Flags      uint64
}

// Check runs the C fast check on a managed tensor (DLManagedTensorVersioned when
// versioned, else DLManagedTensor). The memory must be C memory or pinned.
func Check(managed unsafe.Pointer, versioned bool) (View, bool) {
	var out C.gd_fast_view
	v := C.int(0)
	if versioned {
		v = 1
	}
	if C.check(managed, v, &out) == 0 {
		return View{}, false
	}
	n := int(out.ndim)
	view := View{Data: unsafe.Pointer(out.data), DTypeIndex: int(out.dtype_index), Flags: uint64(out.flags)}
	if n > 0 {
		view.Shape = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(out.shape)), n)...)
		view.Strides = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(out.strides)), n)...)
	}
	return view, true
}

// cAlloc returns n zeroed bytes of C memory, for tests that build tensors the
// way producers do (outside the Go heap).
func cAlloc(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }

func cFree(p unsafe.Pointer) { C.free(p) }

// fakeAddr makes a data address that is never dereferenced (the check only does
// arithmetic on it), outside the Go heap.
func fakeAddr(u uintptr) unsafe.Pointer { return C.fake_addr(C.uintptr_t(u)) }
