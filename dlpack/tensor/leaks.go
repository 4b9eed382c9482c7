package tensor

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/godlpack/godlpack/internal/gctick"
)

// leaks.go: the safety net that releases a Tensor dropped while open, paying for
// a finalizer only on the Tensors that are still open at a sweep.
//
// A finalizer set on every Tensor when it opens and removed when it closes or is
// exported cost ~140 ns of an exchange's ~300 (bench/bench_go.sh: the span
// specials' locks and records of SetFinalizer, twice). Most Tensors are closed or
// exported right after they are made, so none gets one at first: wrap pushes the
// Tensor onto the list of recent Tensors (one compare-and-swap; the list links
// through Tensor.next), which holds it strongly, so it cannot be collected unseen.
// The list is taken whole and swept every batchSize Tensors, and after every
// garbage collection (gctick.Each): each of its Tensors still open gets the
// finalizer then; the rest are forgotten. So a leaked Tensor is released as
// before, by its own finalizer, only a collection or two later, and each Tensor
// is judged on its own: a long-lived neighbour on the same list keeps nothing
// alive past the sweep.
//
// The list replaced batches of 256 slots filled with two atomic adds per Tensor
// (a claim and a fill count) and a 2 KiB batch every 256: tracking cost ~14 ns of
// CPU per Tensor, the list ~7 (CToGo, side by side with no tracking at all; an
// atomic instruction costs ~8 ns on this machine). The Tensors that newBlock
// makes from cached blocks go on a second list under the lock it holds anyway
// (trackLocked), for no atomic instruction at all.
//
// The finalizer of a swept Tensor is never removed (Close and the exports do not
// touch it: that removal was half the cost); it runs once the Tensor is
// unreachable and does nothing if the Tensor was closed or exported meanwhile.

// batchSize is how many Tensors the list holds before it is swept: a sweep
// costs one atomic load per Tensor, and the list is the most a program that stops
// making tensors keeps alive of closed ones until the next collection. Tensor.seq
// (a byte) counts up to it.
const batchSize = math.MaxUint8

// recent is the newest Tensor of the list; nil when empty.
var recent atomic.Pointer[Tensor]

// gcArmed is set once the per-collection sweep is armed (by the first Tensor).
var gcArmed atomic.Bool

// track pushes t, just opened, onto the list. Each Tensor's seq is one more than
// that of the one below it (1 on an empty list); when the head's seq says the
// list holds batchSize, t starts a new list instead and its pusher sweeps the old
// one (t itself is not swept: it is open, and would get the finalizer). A pusher
// reads only seq of the head it saw, which never changes once pushed, so a sweep
// that took that head meanwhile is no race.
func track(t *Tensor) {
	armOnce()
	for {
		h := recent.Load()
		full := h != nil && h.seq == batchSize
		t.seq, t.next = 1, h
		if full {
			t.next = nil
		} else if h != nil {
			t.seq = h.seq + 1
		}
		if recent.CompareAndSwap(h, t) {
			if full {
				sweep(h) // t is published: read nothing of it now
			}
			return
		}
	}
}

// armOnce arms the per-collection sweep the first time a Tensor is made.
func armOnce() {
	if !gcArmed.Load() && gcArmed.CompareAndSwap(false, true) {
		armGCSweep()
	}
}

// tracked is the list of the Tensors that newBlock tracks while it holds mu
// anyway (saving track's atomic instruction), and trackedN its length.
var (
	tracked  *Tensor
	trackedN int
)

// trackLocked pushes t, open, onto the tracked list; mu is held. When the list
// is full it returns it, taken, for the caller to sweep once mu is released.
func trackLocked(t *Tensor) *Tensor {
	t.next, tracked = tracked, t
	if trackedN++; trackedN < batchSize {
		return nil
	}
	full := tracked
	tracked, trackedN = nil, 0
	return full
}

// seal takes both lists whole and sweeps them.
func seal() {
	mu.Lock()
	locked := tracked
	tracked, trackedN = nil, 0
	mu.Unlock()
	sweep(locked)
	sweep(recent.Swap(nil))
}

// sweep gives the finalizer to the list's Tensors that are still open and
// unlinks them, so that a Tensor with a finalizer points at no other. A Tensor
// closed concurrently may get one too; it will do nothing.
func sweep(t *Tensor) {
	for t != nil {
		next := t.next
		t.next = nil
		if atomic.LoadUint32(&t.state)&lifeMask == stateOpen {
			runtime.SetFinalizer(t, (*Tensor).finalize)
		}
		t = next
	}
}

func armGCSweep() {
	gctick.Each(func() {
		seal()
		sweepPins()
	})
}
