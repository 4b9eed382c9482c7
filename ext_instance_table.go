package godlpack

// ext_instance_table.go: the table that keeps the Go values of bound classes'
// instances. An instance holds an id (a slot of this table, never 0), its Go
// value's *T is the slot's pointer: the collector sees it there, so the value
// lives as long as the slot holds it. It replaces cgo.Handle, whose sync.Map
// (an interface key boxed, a map entry allocated, a hash trie walked) was ~15 %
// of a creation and its lookup a tenth of a property read (docs/performance.md,
// Classes): here an id is an index, a lookup two atomic loads, a new id a
// free-list pop under a mutex (BenchmarkInstanceIDNewRelease).
//
// Slots are in chunks that never move, reached through a fixed directory, so a
// lookup (every method call, any thread, no GIL on a free-threaded build) needs
// no lock: it loads the chunk and the slot atomically. Making and freeing ids
// takes mu, and the slot's store is made under it, a plain store (Go's write
// barrier, no atomic exchange): no lookup can run at the same time as the store,
// since an id reaches a reader only through the instance made after newInstanceID
// returned (a synchronizing hand-over: the GIL, or the free-threaded build's own
// publication of the object) and is never read after its release. Two atomic
// exchanges (sync/atomic's StorePointer, out of line) made a creation and its
// dealloc's table share 14 ns, now ~10 (BenchmarkInstanceIDNewRelease). A freed
// id is reused (last freed first); the caller guarantees that nothing reads an id
// after releasing it (an instance clears its id at dealloc, and a call in flight
// holds a reference to its instance). An instance's dealloc does not call
// releaseInstanceIDs: it queues its id in C, and ext_class_cpython.go empties
// the queued slots under mu, but for the one a creation's call keeps, which no
// other goroutine can reach (newInstanceIDFor).

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/internal/hooks"
)

const (
	instanceChunkBits = 12
	instanceChunkLen  = 1 << instanceChunkBits
	// instanceChunks bounds the instances alive at once: 2^14 chunks of 2^12
	// slots, 64M (each is a Python object and a Go value, several GB); the
	// directory is 128 KiB of pointers.
	instanceChunks = 1 << 14
)

type instanceChunk [instanceChunkLen]unsafe.Pointer

var instances struct {
	mu   sync.Mutex
	free []uint32 // released ids, reused last-in first-out
	next uint32   // every id in [1, next) was handed out once
	// pins holds the pins of the values whose atomic fields C reads
	// (AtomicProperty: pinInstance), by id, until the id is released.
	pins map[uint32]*runtime.Pinner

	chunks [instanceChunks]atomic.Pointer[instanceChunk]
}

// emptyReleasedLocked empties the slots of the ids that C released without a
// call into Go (ext_class_cpython.go), mu held; nil in a build without Python,
// where every release is releaseInstanceIDs.
var emptyReleasedLocked func()

// instanceSlot is id's slot, in a chunk that exists (id handed out).
func instanceSlot(id uintptr) *unsafe.Pointer {
	return &instances.chunks[id>>instanceChunkBits].Load()[id&(instanceChunkLen-1)]
}

// newInstanceID stores p (a bound class's *T, not nil) in a free slot and
// returns its id; a MemoryError when every slot is in use.
func newInstanceID(p unsafe.Pointer) (uintptr, error) {
	instances.mu.Lock()
	var id uint32
	if n := len(instances.free); n > 0 {
		id = instances.free[n-1]
		instances.free = instances.free[:n-1]
	} else {
		id = max(instances.next, 1) // 0 is no instance
		if id >= instanceChunks*instanceChunkLen {
			instances.mu.Unlock()
			return 0, MemoryError.Errorf("more than %d instances of bound classes alive at once", instanceChunks*instanceChunkLen-1)
		}
		instances.next = id + 1
	}
	dir := &instances.chunks[id>>instanceChunkBits]
	chunk := dir.Load()
	if chunk == nil {
		chunk = new(instanceChunk)
		dir.Store(chunk)
	}
	chunk[id&(instanceChunkLen-1)] = p // under mu: see releaseInstanceIDs
	instances.mu.Unlock()
	return uintptr(id), nil
}

// newInstanceIDFor is newInstanceID for a call's result r: the id r's call kept
// (ext_class_cpython.go: a released id whose slot is empty, which no other
// goroutine holds, so its store takes no lock), else a new one.
func newInstanceIDFor(p unsafe.Pointer, r *extResult) (uintptr, error) {
	if id := r.spare_id; id != 0 {
		r.spare_id = 0
		*instanceSlot(uintptr(id)) = p
		return uintptr(id), nil
	}
	return newInstanceID(p)
}

// instanceValue is the pointer that id's slot holds (id made by newInstanceID and
// not released).
func instanceValue(id uintptr) unsafe.Pointer {
	return atomic.LoadPointer(instanceSlot(id))
}

// releaseInstanceIDs empties the slots of ids (each made by newInstanceID,
// released once) and frees them, under mu as newInstanceID stores: the collector
// may free their Go values.
func releaseInstanceIDs(ids []uintptr) {
	instances.mu.Lock()
	for _, id := range ids {
		*instanceSlot(id) = nil
		instances.free = append(instances.free, uint32(id))
	}
	instances.mu.Unlock()
}

// liveInstanceIDs counts the ids handed out and not released: read under mu
// from the free list, so that making and releasing an id pay no counter of
// their own (two atomic adds were ~4% of a creation: bench/bench_classes.py).
func liveInstanceIDs() int64 {
	instances.mu.Lock()
	defer instances.mu.Unlock()
	if emptyReleasedLocked != nil {
		emptyReleasedLocked()
	}
	return int64(max(instances.next, 1)-1) - int64(len(instances.free))
}

// unpinInstance undoes pinInstance of id, before id's release (an instance whose
// value C read: ext_class.c's dealloc knows, so that other releases look up nothing).
func unpinInstance(id uintptr) {
	instances.mu.Lock()
	defer instances.mu.Unlock()
	if pin := instances.pins[uint32(id)]; pin != nil {
		pin.Unpin()
		delete(instances.pins, uint32(id))
	}
}

// pinInstance pins the Go value of id (made by newInstanceID, not released) until
// id is released, so that C may keep its address and read its atomic fields
// (AtomicProperty), and returns that address. Pinned once: another call for the
// same id (two threads' first reads) returns the same address.
func pinInstance(id uintptr) unsafe.Pointer {
	p := instanceValue(id)
	instances.mu.Lock()
	defer instances.mu.Unlock()
	if instances.pins[uint32(id)] == nil {
		if instances.pins == nil {
			instances.pins = map[uint32]*runtime.Pinner{}
		}
		pin := new(runtime.Pinner)
		pin.Pin(p)
		instances.pins[uint32(id)] = pin
	}
	return p
}

// The counters package godlpacktest reads.
func init() {
	hooks.LiveInstances = liveInstanceIDs
	hooks.GILReleases = gilReleases
}
