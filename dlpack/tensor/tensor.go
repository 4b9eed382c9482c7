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
	c       *core
	cleanup runtime.Cleanup
}

// Lifecycle of a core: open until exactly one of Close, the cleanup, Export or
// ExportLegacy moves it on.
const (
	stateOpen uint32 = iota
	stateClosed
	stateExported
)

// core is what the cleanup needs to release a tensor; it must not point back at
// the Tensor, or the Tensor would never become unreachable.
type core struct {
	state     atomic.Uint32
	readOnly  atomic.Bool
	managed   unsafe.Pointer // DLManagedTensorVersioned* or DLManagedTensor*, C memory
	versioned bool           // managed's form
	produced  bool           // managed is one of this package's blocks (either form can be exported)

	dtype    *dlpack.DType
	shape    []int64
	strides  []int64 // in elements, always ndim entries
	data     unsafe.Pointer
	n        int64
	isCopied bool
	padded   bool
	device   dlpack.Device
}

// wrap gives c to a new Tensor with a cleanup that releases it if the Tensor is
// dropped while open.
func wrap(c *core) *Tensor {
	t := &Tensor{c: c}
	t.cleanup = runtime.AddCleanup(t, (*core).release, c)
	return t
}

// release calls the deleter if c is still open; it runs once however many
// goroutines call it.
func (c *core) release() {
	if c.state.CompareAndSwap(stateOpen, stateClosed) {
		C.gdt_call_deleter(c.managed, boolInt(c.versioned))
	}
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Close releases the tensor: the producer's deleter runs once, on this goroutine.
// Closing a closed or exported tensor does nothing. Close always returns nil; it
// has an error result to satisfy io.Closer.
func (t *Tensor) Close() error {
	if t == nil || t.c == nil {
		return nil
	}
	if t.c.state.Load() == stateOpen {
		t.cleanup.Stop()
		t.c.release()
	}
	return nil
}

// open returns t's core if t may still be read, else ErrClosed.
func (t *Tensor) open() (*core, error) {
	if t == nil || t.c == nil || t.c.state.Load() != stateOpen {
		return nil, ErrClosed
	}
	return t.c, nil
}

// DType returns the element type, or nil for a closed tensor.
func (t *Tensor) DType() *dlpack.DType {
	if t == nil || t.c == nil {
		return nil
	}
	return t.c.dtype
}

// Shape returns a copy of the extents (nil for a 0-d or zero tensor).
func (t *Tensor) Shape() []int64 {
	if t == nil || t.c == nil {
		return nil
	}
	return append([]int64(nil), t.c.shape...)
}

// Strides returns a copy of the strides, in elements.
func (t *Tensor) Strides() []int64 {
	if t == nil || t.c == nil {
		return nil
	}
	return append([]int64(nil), t.c.strides...)
}

// Len returns the number of elements.
func (t *Tensor) Len() int64 {
	if t == nil || t.c == nil {
		return 0
	}
	return t.c.n
}

// Device returns where the elements live (a host-accessible device: Validate
// refuses others).
func (t *Tensor) Device() dlpack.Device {
	if t == nil || t.c == nil {
		return dlpack.Device{}
	}
	return t.c.device
}

// ReadOnly reports whether the tensor may not be written: the producer set
// READ_ONLY, or SetReadOnly was called.
func (t *Tensor) ReadOnly() bool { return t != nil && t.c != nil && t.c.readOnly.Load() }

// IsCopied reports whether the producer said the data is a copy (IS_COPIED), as
// Clone's results do.
func (t *Tensor) IsCopied() bool { return t != nil && t.c != nil && t.c.isCopied }

// SetReadOnly makes the tensor read-only for good: views refuse writes, and an
// export carries READ_ONLY. There is no way back.
func (t *Tensor) SetReadOnly() {
	if t != nil && t.c != nil {
		t.c.readOnly.Store(true)
	}
}

// liveBlocks counts this package's C blocks not yet released, for the tests.
func liveBlocks() int64 { return int64(C.gdt_live_blocks()) }
