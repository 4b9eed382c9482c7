package tensor

// #cgo CFLAGS: -I${SRCDIR}/../../internal/cheaders
// #include "tensor_c.h"
import "C"

import (
	_ "github.com/godlpack/godlpack/internal/cheaders" // header edits rebuild this package
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// A Tensor owns one DLPack managed tensor; see the package documentation for who
// releases it and when. The zero Tensor is a closed one.
//
// A Tensor takes 48 bytes, its shape and strides kept elsewhere: its allocation
// and the collections it drives are the largest part of an exchange
// (bench/bench_go.sh: ~65 ns of CPU for a 128-byte object, ~42 for a 64-byte one,
// the collector's background work included, on this machine; a foreign 2-d
// tensor's 80 bytes with its shape and strides, side by side with 96, ~8 less).
type Tensor struct {
	// state is the lifecycle (lifeMask), readOnlyBit and dimsInBlockBit. It is
	// written plainly before the Tensor is published (an atomic store is a locked
	// instruction, ~5 ns) and atomically after.
	state     uint32
	ndim      int8  // at most dlpack.MaxNDim
	dt        uint8 // 1 + the dtype's Index in dlpack.All(); 0 in the zero Tensor
	seq       uint8 // leaks.go
	devType   uint8 // dlpack.DLDeviceType: the host-accessible ones are 1 to 13
	devID     int32
	versioned bool // managed's form
	produced  bool // managed is one of this package's blocks (either form can be exported)
	isCopied  bool
	padded    bool

	// The addresses the collector need not see are integers (addr): storing a
	// pointer while a collection marks costs a write barrier, and its buffer's
	// flush looks each one up (write barriers were ~16% of GoToGo's CPU profile;
	// these integers, with fillHeader's, measured 3-5 ns an exchange).
	managed addr // DLManagedTensorVersioned* or DLManagedTensor*, C memory
	data    addr // C memory, or a pinned slice's element 0 (pins.go keeps it alive)
	n       int64
	next    *Tensor // leaks.go
}

// dtIndex is what Tensor.dt holds for d (dlpack.All() has fewer than 255 dtypes).
func dtIndex(d *dlpack.DType) uint8 { return uint8(d.Index + 1) }

// addr is the address of memory that the collector does not manage or that is
// kept alive otherwise.
type addr uintptr

func addrOf(p unsafe.Pointer) addr { return addr(p) }

func (t *Tensor) dtype() *dlpack.DType {
	if t.dt == 0 {
		return nil
	}
	return dlpack.All()[t.dt-1]
}

// ptr returns a as a pointer (read through memory: vet rightly flags converting
// an integer, and a is not the collector's).
func (a addr) ptr() unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// withDims is a Tensor allocated together with room for the shape and strides of
// up to len(d)/2 dimensions, which then follow it in memory.
type withDims[D any] struct {
	t Tensor
	d D
}

// Lifecycle of a Tensor: open until exactly one of Close, the finalizer, Export or
// ExportLegacy ends it. The zero value is stateNone, which behaves as closed.
const (
	stateNone uint32 = iota
	stateOpen
	stateClosed
	stateExported

	lifeMask    uint32 = 3
	readOnlyBit uint32 = 4 // set for good by SetReadOnly or the producer's flag
	// dimsInBlockBit: shape and strides (allDims) are the arrays of the block
	// managed, one of this package's (C memory, released with the tensor, so read
	// only while t is open); without it they follow the Tensor in its allocation
	// (withDims: a pointer into t itself would keep a Tensor with a finalizer from
	// ever being collected). Set before the Tensor is published, never changed.
	dimsInBlockBit uint32 = 8
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
// (so it is never part of a cycle, which would keep it from being finalized: its
// next points only at older Tensors, and is cleared when it gets the finalizer).
func wrap(t *Tensor) *Tensor {
	t.state |= stateOpen // not yet published
	track(t)
	return t
}

// finalize runs only for a Tensor nobody can reach, so no Close or export can
// race with it.
func (t *Tensor) finalize() {
	if t.end(stateClosed) {
		release(t)
	}
}

// end moves an open t to state (closed or exported); false if t was not open
// (another Close or export won). A finalizer, if t has one, stays: it will find t
// no longer open.
func (t *Tensor) end(state uint32) bool {
	for {
		s := atomic.LoadUint32(&t.state)
		if s&lifeMask != stateOpen {
			return false
		}
		if atomic.CompareAndSwapUint32(&t.state, s, s&^lifeMask|state) {
			return true
		}
	}
}

// release releases t's managed tensor: one of this package's blocks in Go
// (cache.go), any other by its deleter.
func release(t *Tensor) {
	if t.produced {
		releaseProduced(t.managed.ptr(), t.versioned)
		return
	}
	releaseForeign(t.managed.ptr(), t.versioned)
}

// releaseForeign calls the deleter of m, a DLManagedTensorVersioned* or
// DLManagedTensor* in C memory (passed as an integer: cgo's check of a pointer
// argument costs ~5 ns and finds C memory anyway).
func releaseForeign(m unsafe.Pointer, versioned bool) {
	C.gdt_call_deleter(C.uintptr_t(uintptr(m)), boolInt(versioned))
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// withAllDims returns a copy of t, not yet published, with room after it for
// shape and strides (any count the validator accepts), holding copies of them.
func withAllDims(t *Tensor, shape, strides []int64) *Tensor {
	x := new(withDims[[2 * dlpack.MaxNDim]int64])
	x.t = *t
	x.t.ndim, x.t.state = int8(len(shape)), t.state&^dimsInBlockBit
	copy(x.d[:], shape)
	copy(x.d[len(shape):], strides)
	return &x.t
}

// allDims returns shape then strides; only for an open t (a produced block's
// arrays are released with it).
func (t *Tensor) allDims() []int64 {
	switch {
	case t.ndim == 0:
		return nil
	case atomic.LoadUint32(&t.state)&dimsInBlockBit != 0:
		return blockArrays(t.managed.ptr(), int(t.ndim))
	}
	return unsafe.Slice((*int64)(unsafe.Add(unsafe.Pointer(t), unsafe.Sizeof(Tensor{}))), 2*int(t.ndim)) // withDims
}

func (t *Tensor) shape() []int64 {
	n := int(t.ndim)
	return t.allDims()[:n:n]
}

func (t *Tensor) strides() []int64 {
	return t.allDims()[t.ndim:]
}

// Close releases the tensor: the producer's deleter runs once, on this goroutine.
// Closing a closed or exported tensor does nothing. Close always returns nil; it
// has an error result to satisfy io.Closer.
func (t *Tensor) Close() error {
	if t != nil && t.end(stateClosed) {
		release(t)
	}
	return nil
}

// open returns t if it may still be used, else ErrClosed.
func (t *Tensor) open() (*Tensor, error) {
	if t == nil || atomic.LoadUint32(&t.state)&lifeMask != stateOpen {
		return nil, ErrClosed
	}
	return t, nil
}

// DType returns the element type, or nil for a closed tensor.
func (t *Tensor) DType() *dlpack.DType {
	if t == nil {
		return nil
	}
	return t.dtype()
}

// Shape returns a copy of the extents (nil for a 0-d tensor, and once the tensor
// is closed or exported: the consumer may have freed them).
func (t *Tensor) Shape() []int64 {
	c, err := t.open()
	if err != nil {
		return nil
	}
	return append([]int64(nil), c.shape()...)
}

// Strides returns a copy of the strides, in elements (nil as for Shape).
func (t *Tensor) Strides() []int64 {
	c, err := t.open()
	if err != nil {
		return nil
	}
	return append([]int64(nil), c.strides()...)
}

// Data returns the address of element 0 (nil once the tensor is closed or
// exported), for code that lends the elements for a call without a copy
// (godlpack.Function.Call in a go test); the tensor must stay open meanwhile.
func (t *Tensor) Data() unsafe.Pointer {
	c, err := t.open()
	if err != nil {
		return nil
	}
	return c.data.ptr()
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
func (t *Tensor) Device() dlpack.DLDevice {
	if t == nil {
		return dlpack.DLDevice{}
	}
	return dlpack.DLDevice{Type: dlpack.DLDeviceType(t.devType), ID: t.devID}
}

// ReadOnly reports whether the tensor may not be written: the producer set
// READ_ONLY, or SetReadOnly was called.
func (t *Tensor) ReadOnly() bool { return t != nil && atomic.LoadUint32(&t.state)&readOnlyBit != 0 }

// IsCopied reports whether the producer said the data is a copy (IS_COPIED), as
// Clone's results do.
func (t *Tensor) IsCopied() bool { return t != nil && t.isCopied }

// SetReadOnly makes the tensor read-only for good: views refuse writes, and an
// export carries READ_ONLY. There is no way back.
func (t *Tensor) SetReadOnly() {
	if t != nil {
		atomic.OrUint32(&t.state, readOnlyBit)
	}
}
