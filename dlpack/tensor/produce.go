package tensor

// #include "tensor_c.h"
import "C"

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// New returns a zeroed tensor of shape in C memory, 256-byte aligned as DLPack
// asks, owned by Go until Export hands it to a consumer. Sub-byte elements
// (float6, float4) take a byte each (IS_SUBBYTE_TYPE_PADDED), so that a []T can
// view them.
func New[T dlpack.Element](shape ...int64) (*Tensor, error) {
	return newC(dlpack.DTypeOf[T](), shape)
}

// FromSlice returns a tensor of shape viewing data without copying it (a 1-d one
// of len(data) when shape is empty). data's array stays pinned (runtime.Pinner)
// at least until the tensor is released: by Close, by the finalizer, or by a
// consumer's call of the deleter, from any thread (it is unpinned at the next
// collection after its last tensor is released). len(data) must equal the
// product of shape.
func FromSlice[T dlpack.Element](data []T, shape ...int64) (*Tensor, error) {
	if len(shape) == 0 {
		shape = []int64{int64(len(data))}
	}
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if n != int64(len(data)) {
		return nil, shapeError(shape, "holds "+itoa(n)+" elements, the slice "+itoa(len(data)))
	}
	return fromSlice(data, shape, nil)
}

// FromSliceStrided is FromSlice for a strided layout: element (i, j, ...) is
// data[i*strides[0] + j*strides[1] + ...]. Every element must lie inside data.
func FromSliceStrided[T dlpack.Element](data []T, shape, strides []int64) (*Tensor, error) {
	if _, err := checkShape(shape); err != nil {
		return nil, err
	}
	if len(strides) != len(shape) {
		return nil, shapeError(shape, itoa(len(strides))+" strides")
	}
	lo, hi, err := dlpack.ElementSpan(shape, strides)
	if err != nil || lo < 0 || hi >= int64(len(data)) {
		return nil, shapeError(shape, "strides "+fmt.Sprint(strides)+" reach outside a slice of "+itoa(len(data))+" elements")
	}
	return fromSlice(data, shape, strides)
}

// fromSlice makes the tensor of a checked shape and strides (nil: contiguous).
func fromSlice[T dlpack.Element](data []T, shape, strides []int64) (*Tensor, error) {
	dt := dlpack.DTypeOf[T]()
	if len(data) == 0 {
		return newC(dt, shape) // nothing to pin; C memory gives a non-NULL address
	}
	p := unsafe.Pointer(&data[0])
	count := pin(p)
	if count == nil {
		return nil, errNoMemory
	}
	m := C.gdt_alloc(headerSize(len(shape)), 0).block
	if m == nil {
		unpinUnused(count)
		return nil, errNoMemory
	}
	return wrap(fillHeader(unsafe.Pointer(m), dt, shape, strides, p, uintptr(unsafe.Pointer(count)))), nil
}

var errNoMemory = errors.New("tensor: out of C memory")

func newC(dt *dlpack.DType, shape []int64) (*Tensor, error) {
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if n > math.MaxInt64/int64(dt.ItemSize()) || uint64(n)*uint64(dt.ItemSize()) > uint64(^C.size_t(0)>>1) {
		return nil, shapeError(shape, "the byte size overflows")
	}
	b := C.gdt_alloc(headerSize(len(shape)), C.size_t(n*int64(dt.ItemSize())))
	if b.block == nil {
		return nil, errNoMemory
	}
	return wrap(fillHeader(b.block, dt, shape, nil, b.data, 0)), nil
}

// checkShape returns the element count of a shape that a tensor may have.
func checkShape(shape []int64) (int64, error) {
	if len(shape) > dlpack.MaxNDim {
		return 0, shapeError(shape, "more than "+itoa(dlpack.MaxNDim)+" dimensions")
	}
	for _, d := range shape {
		if d < 0 {
			return 0, shapeError(shape, "negative extent")
		}
	}
	n, err := dlpack.NumElements(shape)
	if err != nil {
		return 0, shapeError(shape, "the element count overflows int64")
	}
	return n, nil
}

func headerSize(ndim int) C.size_t { return C.GDT_ARRAYS + C.size_t(16*ndim) }

// fillHeader writes a versioned managed tensor (version 1.3, on the CPU) into the
// block m and returns its Tensor, not yet open. strides nil means C-contiguous.
// ctx is a pinned slice's counter address (pins.go), or 0 for data inside the block.
func fillHeader(m unsafe.Pointer, dt *dlpack.DType, shape, strides []int64, data unsafe.Pointer, ctx uintptr) *Tensor {
	ndim := len(shape)
	t := &Tensor{managed: m, versioned: true, produced: true, dtype: dt, data: data, padded: dt.SubByte()}
	t.n, _ = dlpack.NumElements(shape) // checked by the caller
	t.setDims(shape, strides)
	arrays := unsafe.Slice((*int64)(unsafe.Add(m, C.GDT_ARRAYS)), 2*ndim)
	copy(arrays, t.shape())
	copy(arrays[ndim:], t.strides())
	mv := (*dlpack.ManagedTensorVersioned)(m)
	mv.Version = dlpack.Version{Major: dlpack.MajorVersion, Minor: dlpack.MinorVersion}
	*(*uintptr)(unsafe.Pointer(&mv.ManagerCtx)) = ctx // C memory or 0, never a Go pointer
	mv.Deleter = deleterVersioned
	mv.Flags = 0
	if t.padded {
		mv.Flags = dlpack.FlagSubbyteTypePadded
	}
	mv.DLTensor = dlpack.Tensor{Data: data, Device: dlpack.Device{Type: dlpack.CPU}, NDim: int32(ndim), DType: dt.DL}
	if ndim > 0 {
		mv.DLTensor.Shape = &arrays[0]
		mv.DLTensor.Strides = &arrays[ndim]
	}
	t.device = mv.DLTensor.Device
	return t
}

var (
	deleterVersioned = unsafe.Pointer(C.gdt_deleter_versioned)
	deleterLegacy    = unsafe.Pointer(C.gdt_deleter_legacy)
)

// isProduced reports whether m is one of this package's blocks, which may be
// exported in either form.
func isProduced(m unsafe.Pointer, versioned bool) bool {
	if versioned {
		return (*dlpack.ManagedTensorVersioned)(m).Deleter == deleterVersioned
	}
	return (*dlpack.ManagedTensor)(m).Deleter == deleterLegacy
}

// Export hands the tensor to a C consumer as a DLManagedTensorVersioned*, with
// READ_ONLY set if the tensor is read-only. From then on the consumer owns it and
// must call its deleter once (from any thread); t is closed without releasing
// anything. A tensor consumed from a legacy producer cannot be exported this way.
func (t *Tensor) Export() (unsafe.Pointer, error) {
	c, err := t.open()
	if err != nil {
		return nil, err
	}
	if !c.versioned && !c.produced {
		return nil, errors.New("tensor: a tensor from a legacy producer can only be exported with ExportLegacy")
	}
	if !t.claim() {
		return nil, ErrClosed
	}
	if !c.versioned {
		toVersioned(c)
	}
	if c.readOnly.Load() {
		(*dlpack.ManagedTensorVersioned)(c.managed).Flags |= dlpack.FlagReadOnly
	}
	return c.managed, nil
}

// ExportLegacy hands the tensor to a C consumer as a legacy DLManagedTensor*. The
// legacy struct cannot say READ_ONLY or IS_SUBBYTE_TYPE_PADDED, so read-only and
// sub-byte tensors refuse it, and so does a tensor consumed from a versioned
// producer other than this package.
func (t *Tensor) ExportLegacy() (unsafe.Pointer, error) {
	c, err := t.open()
	if err != nil {
		return nil, err
	}
	switch {
	case c.readOnly.Load():
		return nil, errors.New("tensor: a read-only tensor cannot be exported as a legacy DLManagedTensor (it has no READ_ONLY flag)")
	case c.dtype.SubByte():
		return nil, errors.New("tensor: a sub-byte " + c.dtype.Name + " tensor cannot be exported as a legacy DLManagedTensor (it has no padding flag)")
	case c.versioned && !c.produced:
		return nil, errors.New("tensor: a tensor from a versioned producer can only be exported with Export")
	}
	if !t.claim() {
		return nil, ErrClosed
	}
	if c.versioned {
		toLegacy(c)
	}
	return c.managed, nil
}

// claim moves t from open to exported; false if Close or another export won.
func (t *Tensor) claim() bool {
	return t.end(stateExported)
}

// toLegacy rewrites one of this package's blocks from the versioned form to the
// legacy one in place (both start at the block's first byte; shape and strides
// stay where they are).
func toLegacy(c *Tensor) {
	mv := (*dlpack.ManagedTensorVersioned)(c.managed)
	dl, ctx := mv.DLTensor, *(*uintptr)(unsafe.Pointer(&mv.ManagerCtx))
	ml := (*dlpack.ManagedTensor)(c.managed)
	ml.DLTensor = dl
	*(*uintptr)(unsafe.Pointer(&ml.ManagerCtx)) = ctx
	ml.Deleter = deleterLegacy
	c.versioned = false
}

// toVersioned is toLegacy's inverse; flags are rebuilt from the Tensor.
func toVersioned(c *Tensor) {
	ml := (*dlpack.ManagedTensor)(c.managed)
	dl, ctx := ml.DLTensor, *(*uintptr)(unsafe.Pointer(&ml.ManagerCtx))
	mv := (*dlpack.ManagedTensorVersioned)(c.managed)
	mv.Version = dlpack.Version{Major: dlpack.MajorVersion, Minor: dlpack.MinorVersion}
	*(*uintptr)(unsafe.Pointer(&mv.ManagerCtx)) = ctx
	mv.Deleter = deleterVersioned
	mv.Flags = 0
	if c.isCopied {
		mv.Flags |= dlpack.FlagIsCopied
	}
	if c.padded {
		mv.Flags |= dlpack.FlagSubbyteTypePadded
	}
	mv.DLTensor = dl
	c.versioned = true
}

func itoa[I int | int64](n I) string { return strconv.FormatInt(int64(n), 10) }
