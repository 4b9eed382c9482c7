package vec

import (
	"sync"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// walkBuf is the buffer a walk gathers strided lines into. For the number
// types (no pointers, at most 8 bytes) its memory comes from walkPool and goes
// back when the walk ends (release), so a strided walk allocates nothing: a
// buffer a call was most of a 4x4 [:, ::2] clip's garbage, and the collector's
// preemptions a third of its time. Other element types, and lines longer than
// chunk (Lines), get their own allocation, once a walk.
type walkBuf[T any] struct {
	s      []T
	pooled *[chunk]uint64 // where s lies when it came from walkPool
}

// walkPool holds chunk 8-byte elements a buffer, 8 KiB: any number type's
// chunk.
var walkPool = sync.Pool{New: func() any { return new([chunk]uint64) }}

// get is the first m elements of the buffer, taken or grown as needed; its
// contents are not kept from an earlier get.
func (b *walkBuf[T]) get(m int) []T {
	if len(b.s) >= m {
		return b.s[:m]
	}
	if m <= chunk && b.pooled == nil && poolable[T]() {
		b.pooled = walkPool.Get().(*[chunk]uint64)
		b.s = unsafe.Slice((*T)(unsafe.Pointer(b.pooled)), chunk)
		return b.s[:m]
	}
	b.s = make([]T, m) // a pooled buffer, too short, still goes back at release
	return b.s
}

// release gives a pooled buffer back; the walk's operation has returned, and
// may not keep the slices it was given (Map's contract).
func (b *walkBuf[T]) release() {
	if b.pooled != nil {
		walkPool.Put(b.pooled)
		b.pooled, b.s = nil, nil
	}
}

// poolable is whether a T may live in walkPool's memory: a number type, no
// pointer in it for the collector to miss, at most 8 bytes.
func poolable[T any]() bool {
	switch any(*new(T)).(type) {
	case float32, float64, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
		dlpack.BFloat16, dlpack.Float16:
		return true
	}
	return false
}
