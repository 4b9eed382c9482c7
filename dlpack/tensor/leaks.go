package tensor

import (
	"runtime"
	"sync/atomic"
)

// leaks.go: the safety net that releases a Tensor dropped while open, paying for
// a finalizer only on the Tensors that are still open at a sweep.
//
// A finalizer set on every Tensor when it opens and removed when it closes or is
// exported cost ~140 ns of an exchange's ~300 (bench/bench_go.sh: the span
// specials' locks and records of SetFinalizer, twice). Most Tensors are closed or
// exported right after they are made, so none gets one at first: wrap records the
// Tensor in the current batch of recent Tensors (two atomic adds), which holds it
// strongly, so it cannot be collected unseen. A batch is swept when it is full, and
// at every garbage collection (a finalizer that re-arms itself: see gcTick): each
// of its Tensors still open gets the finalizer then; the rest are forgotten. So a
// leaked Tensor is released as before, by its own finalizer, only a collection or
// two later, and each Tensor is judged on its own: a long-lived neighbour in the
// same batch keeps nothing alive past the sweep.
//
// The finalizer of a swept Tensor is never removed (Close and the exports do not
// touch it: that removal was half the cost); it runs once the Tensor is
// unreachable and does nothing if the Tensor was closed or exported meanwhile.

// batchSize is how many Tensors a batch holds: a sweep costs one atomic load per
// Tensor, and a batch (2 KiB of pointers) is the most a program that stops making
// tensors keeps alive of closed ones until the next collection.
const batchSize = 256

type batch struct {
	claimed atomic.Int64 // slots handed out; batchSize or more once full or sealed
	filled  atomic.Int64 // slots written, plus the unclaimed ones a seal gives up
	ts      [batchSize]*Tensor
}

// current is the batch that track fills; nil until a Tensor is made, and after a
// collection's sweep until the next.
var current atomic.Pointer[batch]

// gcArmed is set once the per-collection sweep is armed (by the first Tensor).
var gcArmed atomic.Bool

// track puts t, just opened, in the current batch. Whoever writes a batch's last
// slot (track or seal) sweeps it.
func track(t *Tensor) {
	if !gcArmed.Load() && gcArmed.CompareAndSwap(false, true) {
		armGCSweep()
	}
	for {
		b := current.Load()
		if b == nil {
			current.CompareAndSwap(nil, new(batch))
			continue
		}
		i := b.claimed.Add(1) - 1
		if i >= batchSize-1 { // this batch is full (or sealed): the next one takes over
			current.CompareAndSwap(b, new(batch))
			if i >= batchSize {
				continue
			}
		}
		b.ts[i] = t
		if b.filled.Add(1) == batchSize {
			sweep(b)
		}
		return
	}
}

// seal ends the current batch early (at a collection) and sweeps it once the
// slots already handed out are written.
func seal() {
	b := current.Load()
	if b == nil || !current.CompareAndSwap(b, nil) {
		return // none, or track just replaced it (a full batch is swept by track)
	}
	before := b.claimed.Add(batchSize) - batchSize // claims after this one fail
	if before >= batchSize {
		return
	}
	if b.filled.Add(batchSize-before) == batchSize {
		sweep(b)
	}
}

// sweep gives the finalizer to b's Tensors that are still open. A Tensor closed
// concurrently may get one too; it will do nothing.
func sweep(b *batch) {
	for _, t := range b.ts {
		if t != nil && t.state.Load() == stateOpen {
			runtime.SetFinalizer(t, (*Tensor).finalize)
		}
	}
}

// gcTick is garbage from birth: its finalizer runs after the next collection,
// seals the current batch and arms the next tick. (It holds a pointer so that it
// is not a tiny allocation, whose finalizer might wait for its neighbours.)
type gcTick struct{ _ *byte }

func armGCSweep() {
	runtime.SetFinalizer(&gcTick{}, func(*gcTick) {
		seal()
		sweepPins()
		armGCSweep()
	})
}
