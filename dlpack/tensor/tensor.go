package tensor

// #cgo CFLAGS: -I${SRCDIR}/../..
// #include "tensor_c.h"
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// A Tensor owns one DLPack managed tensor; see the package documentation for who
// releases it and when. The zero Tensor is a closed one.
type Tensor struct {
	state     atomic.Uint32
	ndim      int32
	readOnly  atomic.Bool
	versioned bool // managed's form
	produced  bool // managed is one of this package's blocks (either form can be exported)
	isCopied  bool
	padded    bool

	managed unsafe.Pointer // DLManagedTensorVersioned* or DLManagedTensor*, C memory
	dtype   *dlpack.DType
	// shape() and strides() (in elements) are dims for tensors of up to
	// inlineDims dimensions, else the 2*ndim values at ext. Not slices of dims
	// stored in t: a Tensor pointing into itself would never be finalized. The
	// fields are packed so that a Tensor takes 128 bytes: its allocation and the
	// collections it causes are a measurable part of an exchange.
	ext    *int64
	dims   [2 * inlineDims]int64
	data   unsafe.Pointer
	n      int64
	device dlpack.Device
}

// Lifecycle of a Tensor: open until exactly one of Close, the finalizer, Export or
// ExportLegacy ends it. The zero value is stateNone, which behaves as closed.
const (
	stateNone uint32 = iota
	stateOpen
	stateClosed
	stateExported
)

// wrap opens t, a Tensor made by this package. If it is dropped while open, a
// finalizer releases it: leaks.go gives it one unless it is closed or exported
// first, which is the common case and then costs no finalizer at all.
//
// A finalizer rather than runtime.AddCleanup, measured (bench/bench_go.sh): an
// AddCleanup costs two allocations (the argument's box and a closure over the
// generic dictionary) and about 110 ns more per tensor than SetFinalizer. The
// finalizer's usual hazards do not apply: it only calls the deleter, never
// resurrects the Tensor, and a Tensor points at nothing that points back at it
// (so it is never part of a cycle, which would keep it from being finalized).
func wrap(t *Tensor) *Tensor {
	t.state.Store(stateOpen)
	track(t)
	return t
}

// finalize runs only for a Tensor nobody can reach, so no Close or export can
// race with it.
func (t *Tensor) finalize() {
	if t.state.CompareAndSwap(stateOpen, stateClosed) {
		release(t.managed, t.versioned)
	}
}

// end moves an open t to state (closed or exported); false if t was not open
// (another Close or export won). A finalizer, if t has one, stays: it will find t
// no longer open.
func (t *Tensor) end(state uint32) bool {
	return t.state.CompareAndSwap(stateOpen, state)
}

// release calls the deleter of m, a DLManagedTensorVersioned* or DLManagedTensor*.
func release(m unsafe.Pointer, versioned bool) { C.gdt_call_deleter(m, boolInt(versioned)) }

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// inlineDims is how many dimensions a produced tensor keeps inline, saving an
// allocation per tensor.
const inlineDims = 4

// setDims gives t copies of shape and strides (strides nil: C-contiguous).
func (t *Tensor) setDims(shape, strides []int64) {
	n := len(shape)
	t.ndim = int32(n)
	if n > inlineDims {
		t.ext = &make([]int64, 2*n)[0]
	}
	copy(t.shape(), shape)
	if strides == nil {
		// The caller checked the count; strides that overflow (an empty shape's) stay 0.
		dlpack.FillContiguousStrides(t.strides(), shape)
	} else {
		copy(t.strides(), strides)
	}
}

// setExtDims gives t, of more than inlineDims dimensions, copies of shape and
// strides.
func (t *Tensor) setExtDims(shape, strides []int64) {
	buf := make([]int64, 2*len(shape))
	copy(buf, shape)
	copy(buf[len(shape):], strides)
	t.ndim, t.ext = int32(len(shape)), &buf[0]
}

func (t *Tensor) shape() []int64 {
	n := int(t.ndim)
	if n <= inlineDims {
		return t.dims[:n:n]
	}
	return unsafe.Slice(t.ext, 2*n)[:n:n]
}

func (t *Tensor) strides() []int64 {
	n := int(t.ndim)
	if n <= inlineDims {
		return t.dims[inlineDims : inlineDims+n : inlineDims+n]
	}
	return unsafe.Slice(t.ext, 2*n)[n:]
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
	return append([]int64(nil), t.shape()...)
}

// Strides returns a copy of the strides, in elements.
func (t *Tensor) Strides() []int64 {
	if t == nil {
		return nil
	}
	return append([]int64(nil), t.strides()...)
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
