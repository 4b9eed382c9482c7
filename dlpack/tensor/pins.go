package tensor

// #include <stdlib.h>
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// pins.go: the Go slices that produced tensors point at stay pinned
// (runtime.Pinner) while any C consumer may read them, as cgo's rules ask.
//
// Each pinned object (keyed by the address FromSlice pins: pinKey's) has an
// entry with a count of the live tensors that point at it. The count lives in C
// memory and its address rides in the tensor's manager_ctx, so the C deleter
// releases its tensor with one atomic decrement, from any thread, calling no Go
// (a cgo callback into Go cost more than the rest of a deleter). A second export
// of the same slice, or of another slice of its array to the array's end, while
// the entry lives only adds to the count.
// Objects whose count is zero are unpinned at the sweep after the next collection
// (sweepPins: leaks.go), so the Pinner's own cost (span locks, ~75 ns a pin and
// unpin) is paid once per slice and collection rather than per export, and an
// object dropped by Go is freed a collection later than it would otherwise be.
// Entries and their counters are reused, never freed.

type pinEntry struct {
	pinner runtime.Pinner
	count  *int64 // C memory: live tensors pointing at the object; deleters decrement it
	key    unsafe.Pointer
}

// pins is guarded by mu (cache.go).
var pins struct {
	byAddr map[unsafe.Pointer]*pinEntry // live entries, by pinned address
	last   *pinEntry                    // the entry pinLocked found last: a slice exported again skips the map
	free   []*pinEntry                  // unpinned entries, their counters zero
	spare  []int64                      // C memory: counters not yet given to an entry
}

// pinCounterChunk is how many counters one C allocation holds.
const pinCounterChunk = 64

// pinKey is the address that stands for data's object in pins: the last
// element of its capacity, which every slice of one array up to the array's end
// shares (a matrix's rows, x[i*n:(i+1)*n]), so that tensors over the rows of one
// array pin it once; by its first element each row was a pin of its own (the
// Pinner's span lock and special, a map entry, a sweep's unpin: ~40% of a
// callback's time over 1000 rows of 4). Pinning any address in an object pins
// the whole object; a slice whose capacity was cut (x[a:b:b]) has a key of its
// own, the same object pinned twice, as before. cap(data) > 0.
func pinKey[T any](data []T) unsafe.Pointer {
	return unsafe.Pointer(&data[:cap(data)][cap(data)-1])
}

// pinLocked keeps the object holding p pinned until its count drops to zero and
// a sweep finds it so, counts one more tensor pointing at it, and returns the
// counter (C memory), which the tensor's deleter decrements (tensor.c); nil when
// out of C memory for counters. mu is held.
func pinLocked(p unsafe.Pointer) *int64 {
	e := pins.last
	if e == nil || e.key != p {
		if e = pins.byAddr[p]; e == nil {
			if e = newPinEntry(); e == nil {
				return nil
			}
			e.pinner.Pin(p)
			e.key = p
			if pins.byAddr == nil {
				pins.byAddr = make(map[unsafe.Pointer]*pinEntry)
			}
			pins.byAddr[p] = e
		}
		pins.last = e
	}
	atomic.AddInt64(e.count, 1) // under mu: a sweep never sees it mid-way
	return e.count
}

// unpinUnused takes back a pin whose tensor was never made (its block could not
// be allocated), as its deleter would have.
func unpinUnused(count *int64) { atomic.AddInt64(count, -1) }

// newPinEntry returns an unused entry, or nil when out of C memory; mu is held.
func newPinEntry() *pinEntry {
	if n := len(pins.free); n > 0 {
		e := pins.free[n-1]
		pins.free = pins.free[:n-1]
		return e
	}
	if len(pins.spare) == 0 {
		c := C.calloc(pinCounterChunk, 8) // never freed: entries are reused
		if c == nil {
			return nil
		}
		pins.spare = unsafe.Slice((*int64)(c), pinCounterChunk)
	}
	e := &pinEntry{count: &pins.spare[0]}
	pins.spare = pins.spare[1:]
	return e
}

// sweepPins unpins every object no live tensor points at. A count reaches zero
// only through deleters, after which nothing in C reads the object, and rises
// only in pinLocked, under the lock held here.
func sweepPins() {
	mu.Lock()
	for p, e := range pins.byAddr {
		if atomic.LoadInt64(e.count) == 0 {
			e.pinner.Unpin()
			e.key = nil
			delete(pins.byAddr, p)
			pins.free = append(pins.free, e)
		}
	}
	pins.last = nil
	mu.Unlock()
}

// livePins counts the tensors pointing at pinned slices whose deleters have not
// run, and pinnedObjects the objects still pinned, for the tests.
func livePins() int64 {
	mu.Lock()
	defer mu.Unlock()
	var n int64
	for _, e := range pins.byAddr {
		n += atomic.LoadInt64(e.count)
	}
	return n
}

func pinnedObjects() int {
	mu.Lock()
	defer mu.Unlock()
	return len(pins.byAddr)
}
