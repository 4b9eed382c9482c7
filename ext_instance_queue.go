//go:build godlpack_python

package godlpack

// ext_instance_queue.go: the ids that instances' deallocs released. A dealloc
// makes no call into Go (ext_class.c's gd_ext_instance_release pushes its id
// onto a lock-free stack in C memory); Go takes the stack whole and empties the
// ids' slots here: at the entry of every call Python makes into Go (goExtCall,
// goExtIterNext), when the live instances are counted, and after every
// collection (gctick). So no Go code that Python starts sees a released value
// still held, and a collection that a goroutine alone started finds it held at
// worst, freeing it one collection later. C cannot empty a slot itself: the slot
// is Go memory the collector scans, and dropping a pointer there needs Go's
// write barrier (docs/internals/classes.md, "The instance table"). A call that
// returns a bound class's *T keeps one of the ids, emptied, for its instance:
// while it runs, that id counts as live (LiveInstances), as the instance it is
// making will.

// #include "ext.h"
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/internal/gctick"
)

// releasedHead is the stack's newest id (0: empty), C memory read with Go's atomics.
var releasedHead = (*uint32)(unsafe.Pointer(&C.gd_ext_released_head))

// C's chunks of links are the table's chunks: the same ids, the same split.
const _ = uint(instanceChunkBits-C.GD_EXT_ID_CHUNK_BITS) + uint(C.GD_EXT_ID_CHUNK_BITS-instanceChunkBits) +
	uint(instanceChunks-C.GD_EXT_ID_CHUNKS) + uint(C.GD_EXT_ID_CHUNKS-instanceChunks)

func init() {
	emptyReleasedLocked = emptyQueuedSlots
	gctick.Each(takeQueuedIDs)
}

// releasedQueued reports whether deallocs have queued ids: one load, inlined
// where a call enters Go.
func releasedQueued() bool { return atomic.LoadUint32(releasedHead) != 0 }

// takeReleasedIDs takes the queue and empties its ids' slots. For a call that
// returns a bound class's *T (spare), the newest id is kept in res for the
// instance the call makes (newInstanceIDFor), with no lock: a creation whose
// entry finds the id of the instance dropped before it, the loop of making and
// dropping, takes no mutex, where it took the table's twice (~15% of a creation
// in perf). The rest are freed under the table's mutex.
func takeReleasedIDs(res *C.gd_ext_result, spare bool) {
	id := atomic.SwapUint32(releasedHead, 0)
	if spare && id != 0 {
		next := releasedNext(id)
		instances.chunks[id>>instanceChunkBits].Load()[id&(instanceChunkLen-1)] = nil // ours alone
		res.spare_id = C.uint32_t(id)
		id = next
	}
	if id != 0 {
		instances.mu.Lock()
		freeQueued(id)
		instances.mu.Unlock()
	}
}

// freeSpareID frees the id res's call kept and did not use (its call made no
// instance: an error, a nil *T, a *T it had already).
func freeSpareID(res *C.gd_ext_result) {
	instances.mu.Lock()
	instances.free = append(instances.free, uint32(res.spare_id))
	instances.mu.Unlock()
	res.spare_id = 0
}

// takeQueuedIDs takes the queue under the table's mutex: after every collection.
func takeQueuedIDs() {
	instances.mu.Lock()
	emptyQueuedSlots()
	instances.mu.Unlock()
}

// emptyQueuedSlots takes the queue, if any, and frees its ids; instances.mu is held.
func emptyQueuedSlots() {
	if releasedQueued() {
		freeQueued(atomic.SwapUint32(releasedHead, 0))
	}
}

// freeQueued empties the slots of the ids queued from id on and frees them;
// instances.mu is held. Each id's link is read before the id is freed: once
// free, a creation and a dealloc may reuse it and its link.
func freeQueued(id uint32) {
	for id != 0 {
		next := releasedNext(id)
		instances.chunks[id>>instanceChunkBits].Load()[id&(instanceChunkLen-1)] = nil
		instances.free = append(instances.free, id)
		id = next
	}
}

// releasedNext is the id queued before id (0: none), from C's link.
func releasedNext(id uint32) uint32 {
	links := (*[instanceChunkLen]uint32)(atomic.LoadPointer(
		(*unsafe.Pointer)(unsafe.Pointer(&C.gd_ext_released_next[id>>instanceChunkBits]))))
	return atomic.LoadUint32(&links[id&(instanceChunkLen-1)])
}
