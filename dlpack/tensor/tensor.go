package tensor

// #cgo CFLAGS: -I${SRCDIR}/../..
// #include "tensor_c.h"
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// A Tensor owns one DLPack managed tensor; see the package documentation for who
// releases it and when. The zero Tensor is a closed one.
type Tensor struct {
	state     atomic.Uint32
	readOnly  atomic.Bool
	managed   unsafe.Pointer // DLManagedTensorVersioned* or DLManagedTensor*, C memory
	versioned bool           // managed's form
	produced  bool           // managed is one of this package's blocks (either form can be exported)
	isCopied  bool
	padded    bool

	dtype   *dlpack.DType
	shape   []int64
	strides []int64 // in elements, always ndim entries
	data    unsafe.Pointer
	n       int64
	device  dlpack.Device
	dims    [8]int64 // shape and strides of tensors of up to 4 dimensions, saving an allocation
	cleanup runtime.Cleanup
}

// Lifecycle of a Tensor: open until exactly one of Close, the cleanup, Export or
// ExportLegacy ends it. The zero value is stateNone, which behaves as closed.
const (
	stateNone uint32 = iota
	stateOpen
	stateClosed
	stateExported
)

// wrap opens t, a Tensor made by this package, with a cleanup that releases it
// if it is dropped while open. The cleanup's argument is the managed tensor's
// address with its form in bit 0 (managed structs are 8-aligned): no pointer to
// the Tensor (which would keep it reachable for ever), one word (one allocation
// fewer than a struct), and no shared state, since the cleanup runs only once
// the Tensor is unreachable, and Close and the exports, which need the Tensor,
// cancel it first.
func wrap(t *Tensor) *Tensor {
	t.state.Store(stateOpen)
	tagged := uintptr(t.managed)
	if t.versioned {
		tagged |= 1
	}
	t.cleanup = runtime.AddCleanup(t, releaseTagged, tagged)
	return t
}

func releaseTagged(tagged uintptr) { C.gdt_call_deleter_tagged(C.uintptr_t(tagged)) }

// release calls the deleter of m, a DLManagedTensorVersioned* or DLManagedTensor*.
func release(m unsafe.Pointer, versioned bool) { C.gdt_call_deleter(m, boolInt(versioned)) }

// end moves an open t to state (closed or exported), cancelling the cleanup; false
// if t was not open (another Close or export won).
func (t *Tensor) end(state uint32) bool {
	if !t.state.CompareAndSwap(stateOpen, state) {
		return false
	}
	t.cleanup.Stop()
	runtime.KeepAlive(t) // reachable until Stop returned, so the cleanup cannot have been queued
	return true
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// setDims points t.shape and t.strides at copies of shape and strides, inline
// when they fit.
func (t *Tensor) setDims(shape, strides []int64) {
	n := len(shape)
	var buf []int64
	if 2*n <= len(t.dims) {
		buf = t.dims[:2*n]
	} else {
		buf = make([]int64, 2*n)
	}
	copy(buf, shape)
	copy(buf[n:], strides)
	t.shape, t.strides = buf[:n:n], buf[n:]
}

// Close releases the tensor: the producer's deleter runs once, on this goroutine.
// Closing a closed or exported tensor does nothing. Close always returns nil; it
// has an error result to satisfy io.Closer.
func (t *Tensor) Close() error {
	if t != nil && t.end(stateClosed) {
		release(t.managed, t.versioned)
	}
	return nil
}

// open returns t if it may still be used, else ErrClosed.
func (t *Tensor) open() (*Tensor, error) {
	if t == nil || t.state.Load() != stateOpen {
		return nil, ErrClosed
	}
	return t, nil
}

// DType returns the element type, or nil for a closed tensor.
func (t *Tensor) DType() *dlpack.DType {
	if t == nil {
		return nil
	}
	return t.dtype
}

// Shape returns a copy of the extents (nil for a 0-d or zero tensor).
func (t *Tensor) Shape() []int64 {
	if t == nil {
		return nil
	}
	return append([]int64(nil), t.shape...)
}

// Strides returns a copy of the strides, in elements.
func (t *Tensor) Strides() []int64 {
	if t == nil {
		return nil
	}
	return append([]int64(nil), t.strides...)
}

// Len returns the number of elements.
func (t *Tensor) Len() int64 {
	if t == nil {
		return 0
	}
	return t.n
}

// Device returns where the elements live (a host-accessible device: Validate
// refuses others).
func (t *Tensor) Device() dlpack.Device {
	if t == nil {
		return dlpack.Device{}
	}
	return t.device
}

// ReadOnly reports whether the tensor may not be written: the producer set
// READ_ONLY, or SetReadOnly was called.
func (t *Tensor) ReadOnly() bool { return t != nil && t.readOnly.Load() }

// IsCopied reports whether the producer said the data is a copy (IS_COPIED), as
// Clone's results do.
func (t *Tensor) IsCopied() bool { return t != nil && t.isCopied }

// SetReadOnly makes the tensor read-only for good: views refuse writes, and an
// export carries READ_ONLY. There is no way back.
func (t *Tensor) SetReadOnly() {
	if t != nil {
		t.readOnly.Store(true)
	}
}

// liveBlocks counts this package's C blocks not yet released, for the tests.
func liveBlocks() int64 { return int64(C.gdt_live_blocks()) }
