package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// livePins counts pinned slices not yet released, for the tests.
var livePins atomic.Int64

// pins holds the Pinners of produced slices until their deleters run. A slot's
// number (plus one, so that 0 means "no pin") rides in manager_ctx. Slots and
// their Pinners are reused: a fresh runtime.Pinner allocates and registers a
// finalizer on its first Pin, which costs more than the rest of an export.
var pins struct {
	mu    sync.Mutex
	slots []*runtime.Pinner
	free  []uintptr // slot numbers (plus one) ready for reuse
}

// pin pins the object holding p and returns the ctx that unpin takes.
func pin(p any) uintptr {
	pins.mu.Lock()
	var ctx uintptr
	if n := len(pins.free); n > 0 {
		ctx = pins.free[n-1]
		pins.free = pins.free[:n-1]
	} else {
		pins.slots = append(pins.slots, new(runtime.Pinner))
		ctx = uintptr(len(pins.slots))
	}
	pins.slots[ctx-1].Pin(p) // under the lock, like Unpin: the slot's uses are ordered by it
	pins.mu.Unlock()
	livePins.Add(1)
	return ctx
}

// unpin releases the slot ctx; the deleter calls it exactly once per pin.
func unpin(ctx uintptr) {
	pins.mu.Lock()
	pins.slots[ctx-1].Unpin()
	pins.free = append(pins.free, ctx)
	pins.mu.Unlock()
	livePins.Add(-1)
}
