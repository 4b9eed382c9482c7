package tensor

// #include "tensor_c.h"
import "C"

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// cache.go: this package's C blocks of up to 64 KiB are reused instead of freed,
// so that making a tensor and releasing it in Go need no cgo call (a cgo call
// costs about what the C malloc or free in it does; bench/bench_go.sh's baseline
// is two of them).
//
// Blocks come in GDT_CLASSES power-of-two sizes (256 B to 64 KiB). Each class has
// two lists, each holding at most gdt_class_cap[class] blocks (64 KiB of them, at
// least two), so the cache keeps at most ~1.3 MiB; a block given back beyond that
// is freed:
//   - the returned stack (tensor.c), where the C deleters put blocks: lock-free,
//     from any thread, in a fork child, after Go is gone;
//   - Go's own list (cache.own, under mu), where releaseProduced puts the
//     blocks of tensors closed in Go (no cgo call to the C deleter), and where
//     takeLocked moves a whole returned stack at once when its own list is empty.
// Only Go takes blocks, under mu, and only by exchanging a stack's head for
// NULL, so no block is popped from under a pusher and the head cannot go A-B-A;
// a pusher reads nothing of the blocks already on the stack (they may have been
// taken and freed meanwhile).

// mu guards the cache's own lists, the pins (pins.go) and the Tensors tracked
// under it (leaks.go): making a tensor takes it once for all three. (On this
// machine an atomic instruction costs ~8 ns, a lock and an unlock two of them;
// taking pins.go's lock, the cache's and leaks.go's list one after the other
// cost six.)
var mu sync.Mutex

var cache struct {
	own [C.GDT_CLASSES]struct {
		head *C.gdt_node
		n    int64
	}
}

const (
	nodeSize = C.sizeof_gdt_node
	// maxCached is the largest block the cache keeps.
	maxCached = 1 << (C.GDT_MIN_SHIFT + C.GDT_CLASSES - 1)
)

// classOf returns the size class of a block whose managed struct has header bytes
// and whose data, data bytes; -1 if it is too large to cache.
func classOf(header, data uint64) int {
	need := nodeSize + header + C.GD_ALIGN - 1 + data
	if data > maxCached || need > maxCached {
		return -1
	}
	return max(0, bits.Len64(need-1)-C.GDT_MIN_SHIFT)
}

// newBlock returns a block for t, a new Tensor, whose managed struct has header
// bytes, and data bytes (zeroes when zero) at its first 256-byte boundary past
// them (d then points there); nil when out of C memory or the size overflows. For a
// pinned slice's tensor, pinned is the address to pin (pins.go) and count its
// counter. On success t is open and tracked (leaks.go) and the caller fills it.
func newBlock(t *Tensor, header, data uint64, pinned unsafe.Pointer, zero bool) (m, d unsafe.Pointer, count *int64) {
	armOnce()
	cls := classOf(header, data)
	t.state = stateOpen | dimsInBlockBit // not yet published; fillHeader puts the dims there
	var n *C.gdt_node
	var full *Tensor
	mu.Lock()
	if pinned != nil {
		if count = pinLocked(pinned); count == nil {
			mu.Unlock()
			return nil, nil, nil
		}
	}
	if cls >= 0 {
		if n = takeLocked(cls); n != nil {
			full = trackLocked(t)
		}
	}
	mu.Unlock()
	sweep(full)
	if n != nil {
		m = unsafe.Add(unsafe.Pointer(n), nodeSize)
		// The data's address as gdt_alloc places it.
		d = unsafe.Add(m, (uintptr(m)+uintptr(header)+C.GD_ALIGN-1)&^(C.GD_ALIGN-1)-uintptr(m))
		if zero {
			clear(unsafe.Slice((*byte)(d), data))
		}
		return m, d, count
	}
	var b C.gdt_block
	if data <= uint64(^C.size_t(0)) {
		b = C.gdt_alloc(C.size_t(header), C.size_t(data), C.int(cls), boolInt(zero))
	}
	if b.block == nil {
		if count != nil {
			unpinUnused(count)
		}
		return nil, nil, nil
	}
	track(t)
	return b.block, b.data, count
}

// blockNode returns the node of the block whose managed struct is m.
func blockNode(m unsafe.Pointer) *C.gdt_node { return (*C.gdt_node)(unsafe.Add(m, -nodeSize)) }

// takeLocked returns a cached block of class cls, or nil if there is none; mu is
// held.
func takeLocked(cls int) *C.gdt_node {
	l := &cache.own[cls]
	if l.head == nil {
		s := &C.gdt_returned[cls]
		l.head = (*C.gdt_node)(atomic.SwapPointer((*unsafe.Pointer)(unsafe.Pointer(&s.head)), nil))
		if l.head == nil {
			return nil
		}
		for p := l.head; p != nil; p = p.next {
			l.n++
		}
		atomic.AddInt64((*int64)(unsafe.Pointer(&s.count)), -l.n)
	}
	n := l.head
	l.head, l.n = n.next, l.n-1
	return n
}

// releaseProduced does in Go what this package's C deleters do (tensor.c), for a
// tensor closed in Go: one of its blocks, whose manager_ctx is a pinned slice's
// counter or NULL. The block goes to Go's own list, or to free beyond the cap.
func releaseProduced(m unsafe.Pointer, versioned bool) {
	ctx := (*dlpack.DLManagedTensor)(m).ManagerCtx
	if versioned {
		ctx = (*dlpack.DLManagedTensorVersioned)(m).ManagerCtx
	}
	n := blockNode(m)
	if cls := int(n.cls); cls < 0 || !keepBlock(cls, n) {
		C.gdt_free(n)
	}
	if ctx != nil {
		// The consumer's reads of the slice happen before the unpin (pins.go).
		atomic.AddInt64((*int64)(ctx), -1)
	}
}

// keepBlock puts n on Go's own list of class cls; false if that is full.
func keepBlock(cls int, n *C.gdt_node) bool {
	mu.Lock()
	l := &cache.own[cls]
	ok := l.n < int64(C.gdt_class_cap[cls])
	if ok {
		n.next, l.head, l.n = l.head, n, l.n+1
	}
	mu.Unlock()
	return ok
}

// liveBlocks counts this package's C blocks handed out and not yet released, for
// the tests: every block there is, less the cached ones. Exact when no deleter is
// running.
func liveBlocks() int64 {
	mu.Lock()
	defer mu.Unlock()
	live := atomic.LoadInt64((*int64)(unsafe.Pointer(&C.gdt_blocks))) - largeSlotBlocks()
	for cls := range cache.own {
		live -= cache.own[cls].n + atomic.LoadInt64((*int64)(unsafe.Pointer(&C.gdt_returned[cls].count)))
	}
	return live
}

// For the tests (cgo cannot appear in _test.go files): every block malloc'd and
// not yet freed, the class of t's block, a class's cap, how many blocks of it
// Go's own list and the returned stack hold, and the large-block slot's.
func allBlocks() int64 { return atomic.LoadInt64((*int64)(unsafe.Pointer(&C.gdt_blocks))) }

// largeSlotBlocks is how many blocks tensor.c's large-block slot holds: 0 or 1.
func largeSlotBlocks() int64 {
	if atomic.LoadUintptr((*uintptr)(unsafe.Pointer(&C.gdt_large_slot))) != 0 {
		return 1
	}
	return 0
}

// dropLargeSlot frees the block tensor.c's large-block slot holds, if any.
func dropLargeSlot() { C.gdt_drop_large_slot() }

func blockClass(t *Tensor) int { return int(blockNode(t.managed.ptr()).cls) }

func classCap(cls int) int64 { return int64(C.gdt_class_cap[cls]) }

func cachedIn(cls int) (own, returned int64) {
	mu.Lock()
	defer mu.Unlock()
	return cache.own[cls].n, atomic.LoadInt64((*int64)(unsafe.Pointer(&C.gdt_returned[cls].count)))
}
