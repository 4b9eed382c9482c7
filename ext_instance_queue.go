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
// write barrier (docs/internals/classes.md, "The instance table").

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

// takeReleasedIDs empties the slots of the ids the deallocs queued, if any.
// Inlined where a call enters Go: one load when the stack is empty.
func takeReleasedIDs() {
	if atomic.LoadUint32(releasedHead) != 0 {
		takeQueuedIDs()
	}
}

func takeQueuedIDs() {
	instances.mu.Lock()
	emptyQueuedSlots()
	instances.mu.Unlock()
}

// emptyQueuedSlots takes the stack and empties its ids' slots, their ids freed
// for reuse; instances.mu is held. Each id's link is read before the id is
// freed: once free, a creation and a dealloc may reuse it and its link.
func emptyQueuedSlots() {
	if atomic.LoadUint32(releasedHead) == 0 {
		return
	}
	for id := atomic.SwapUint32(releasedHead, 0); id != 0; {
		links := (*[instanceChunkLen]uint32)(atomic.LoadPointer(
			(*unsafe.Pointer)(unsafe.Pointer(&C.gd_ext_released_next[id>>instanceChunkBits]))))
		next := atomic.LoadUint32(&links[id&(instanceChunkLen-1)])
		instances.chunks[id>>instanceChunkBits].Load()[id&(instanceChunkLen-1)] = nil
		instances.free = append(instances.free, id)
		id = next
	}
}
