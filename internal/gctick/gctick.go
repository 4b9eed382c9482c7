// Package gctick runs a function after every collection of the Go runtime it is
// linked into: the books that Go keeps for memory C or Python releases (Tensors
// left open, pins, ids that instances' deallocs queued) are swept there, so
// that what they hold is freed at most one collection later, whatever code runs.
package gctick

import "runtime"

// Each runs f after every collection from now on, on the runtime's finalizer
// goroutine (so f must not block for long). Call it once per f.
func Each(f func()) {
	runtime.SetFinalizer(&tick{}, func(*tick) {
		f()
		Each(f)
	})
}

// tick is garbage from birth: its finalizer runs after the next collection and
// arms the next tick. It holds a pointer so that it is not a tiny allocation,
// whose finalizer might wait for its neighbours.
type tick struct{ _ *byte }
