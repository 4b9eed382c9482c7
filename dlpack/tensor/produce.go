package tensor

// #include "tensor_c.h"
import "C"

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/walkplan"
)

// New returns a zeroed tensor of shape in C memory, 256-byte aligned as DLPack
// asks, owned by Go until Export hands it to a consumer. Sub-byte elements
// (float6, float4) take a byte each (IS_SUBBYTE_TYPE_PADDED), so that a []T can
// view them.
func New[T dlpack.Element](shape ...int64) (*Tensor, error) {
	return newC(dlpack.DTypeOf[T](), shape, true)
}

// Empty is New and the tensor's elements as a []T in one call, as np.empty is
// one: the tensor (to return or Export) and a slice of its memory in C order,
// valid until the tensor is released (the slice does not keep it reachable). The
// elements start at zero; sub-byte ones take a byte each, as New makes them.
func Empty[T dlpack.Element](shape ...int64) (*Tensor, []T, error) {
	return withSlice[T](newC(dlpack.DTypeOf[T](), shape, true))
}

// Uninitialized is Empty without clearing the elements: they hold whatever the
// memory held, as np.empty's do. For a result every element of which the caller
// writes before the tensor leaves its hands (an element-wise op's output): a
// large tensor's memory then costs no pass of clearing (glibc hands back heap
// memory that a calloc would clear again), which is a third of a memory-bound
// x*k+c's time. The last block of 1 MiB to 32 MiB released is kept for the next
// Uninitialized of about its size (a loop's results of one shape), whose pages
// are then not faulted in again; one such block at most.
func Uninitialized[T dlpack.Element](shape ...int64) (*Tensor, []T, error) {
	return withSlice[T](newC(dlpack.DTypeOf[T](), shape, false))
}

// UninitializedStrided is Uninitialized laid out by strides, a dense order of
// shape's axes: each stride of an axis longer than one is the product of the
// extents of the axes with smaller strides, as vec.StridesLike gives them. So a
// result can keep its source's memory order (NumPy's order="K", the layout of
// NumPy's and PyTorch's element-wise results), and an operation from a
// transposed or permuted source into it walks both as one run. The slice holds
// the elements in memory order, n of them: element (i, j, ...) is
// s[i*strides[0] + j*strides[1] + ...].
func UninitializedStrided[T dlpack.Element](shape, strides []int64) (*Tensor, []T, error) {
	if len(strides) != len(shape) {
		return nil, nil, shapeError(shape, itoa(len(strides))+" strides")
	}
	if !denseOrder(shape, strides) {
		return nil, nil, shapeError(shape, "strides "+fmt.Sprint(strides)+
			" are not a dense order of its axes (each the product of the extents of the axes with smaller strides: vec.StridesLike)")
	}
	t, s, err := withSlice[T](newC(dlpack.DTypeOf[T](), shape, false))
	if err == nil {
		copy(blockArrays(t.managed.ptr(), len(shape))[len(shape):], strides)
	}
	return t, s, err
}

// denseOrder reports whether strides lay shape out with no gap and no overlap:
// the dense strides of their own order (walkplan.DenseStrides) on every axis
// longer than one, where a stride is read (an axis of one has any stride, and
// so has every axis of a tensor of no elements).
func denseOrder(shape, strides []int64) bool {
	if slices.Contains(shape, 0) {
		return true
	}
	var buf [dlpack.MaxNDim]int64
	dense := buf[:len(shape)]
	walkplan.DenseStrides(shape, strides, dense)
	for i, d := range shape {
		if d > 1 && strides[i] != dense[i] {
			return false
		}
	}
	return true
}

// withSlice is Empty's and Uninitialized's tensor t with its elements as a []T,
// or err. t is newC's: open, writable, C-contiguous, of T's dtype, sub-byte
// elements padded (a byte each), so the slice is read from t with no View: As's
// allocation and Slice's checks were ~25 ns of a 4x4 result's ~500
// (docs/performance.md, Classes: scale from NumPy).
func withSlice[T dlpack.Element](t *Tensor, err error) (*Tensor, []T, error) {
	if err != nil {
		return nil, nil, err
	}
	if t.n == 0 {
		return t, []T{}, nil
	}
	return t, unsafe.Slice((*T)(t.data.ptr()), t.n), nil
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
	return fromSlice(data, shape, nil, n)
}

// FromSliceStrided is FromSlice for a strided layout: element (i, j, ...) is
// data[i*strides[0] + j*strides[1] + ...]. Every element must lie inside data.
func FromSliceStrided[T dlpack.Element](data []T, shape, strides []int64) (*Tensor, error) {
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if len(strides) != len(shape) {
		return nil, shapeError(shape, itoa(len(strides))+" strides")
	}
	lo, hi, err := dlpack.ElementSpan(shape, strides)
	if err != nil || lo < 0 || hi >= int64(len(data)) {
		return nil, shapeError(shape, "strides "+fmt.Sprint(strides)+" reach outside a slice of "+itoa(len(data))+" elements")
	}
	return fromSlice(data, shape, strides, n)
}

// fromSlice makes the tensor of a checked shape of n elements and strides (nil:
// contiguous).
func fromSlice[T dlpack.Element](data []T, shape, strides []int64, n int64) (*Tensor, error) {
	dt := dlpack.DTypeOf[T]()
	if len(data) == 0 {
		return newC(dt, shape, true) // nothing to pin; C memory gives a non-NULL address
	}
	p := unsafe.Pointer(&data[0])
	t := new(Tensor)
	m, _, count := newBlock(t, headerSize(len(shape)), 0, pinKey(data), true)
	if m == nil {
		return nil, errNoMemory
	}
	return fillHeader(t, m, dt, shape, strides, n, p, uintptr(unsafe.Pointer(count))), nil
}

var errNoMemory = errors.New("tensor: out of C memory")

func newC(dt *dlpack.DType, shape []int64, zero bool) (*Tensor, error) {
	n, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	if n > math.MaxInt64/int64(dt.ItemSize()) || uint64(n)*uint64(dt.ItemSize()) > uint64(^C.size_t(0)>>1) {
		return nil, shapeError(shape, "the byte size overflows")
	}
	t := new(Tensor)
	m, data, _ := newBlock(t, headerSize(len(shape)), uint64(n*int64(dt.ItemSize())), nil, zero)
	if m == nil {
		return nil, errNoMemory
	}
	return fillHeader(t, m, dt, shape, nil, n, data, 0), nil
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

func headerSize(ndim int) uint64 { return C.GDT_ARRAYS + uint64(16*ndim) }

// blockArrays returns the shape and strides room (2*ndim values) of the block
// whose managed struct is m.
func blockArrays(m unsafe.Pointer, ndim int) []int64 {
	return unsafe.Slice((*int64)(unsafe.Add(m, C.GDT_ARRAYS)), 2*ndim)
}

// fillHeader writes a versioned managed tensor (version 1.3, on the CPU) of n
// elements into the block m and fills in t, newBlock's (open, tracked: the
// sweeps read only its state, and write only next), whose shape and strides are
// the block's. strides nil means C-contiguous. ctx is a pinned slice's counter
// address (pins.go), or 0 for data inside the block.
func fillHeader(t *Tensor, m unsafe.Pointer, dt *dlpack.DType, shape, strides []int64, n int64, data unsafe.Pointer, ctx uintptr) *Tensor {
	ndim := len(shape)
	t.managed, t.versioned, t.produced, t.dt, t.data, t.n, t.ndim = addrOf(m), true, true, dtIndex(dt), addrOf(data), n, int8(ndim)
	t.padded, t.devType = dt.SubByte(), uint8(dlpack.CPU)
	blockNode(m).ndim = C.int32_t(ndim)
	arrays := blockArrays(m, ndim)
	copy(arrays, shape)
	if strides == nil {
		// The caller checked the count; strides that overflow (an empty shape's) stay 0.
		dlpack.FillContiguousStrides(arrays[ndim:], shape)
	} else {
		copy(arrays[ndim:], strides)
	}
	// The struct's addresses are stored as integers, never with a pointer store:
	// the block is C memory, which the collector does not scan, and a pointer
	// store's write barrier (while a collection marks) shades the slot's old value
	// as a Go pointer. A reused block's slot, or malloc's leftovers, may hold the
	// address of a slice freed since: shading it marks a free object ("fatal
	// error: found pointer to free object", TestCacheConcurrent). A pinned slice
	// is kept alive by its pin (pins.go), not by this store.
	mv := (*dlpack.DLManagedTensorVersioned)(m)
	mv.Version = dlpack.DLPackVersion{Major: dlpack.MajorVersion, Minor: dlpack.MinorVersion}
	storeAddr(&mv.ManagerCtx, ctx) // C memory or 0, never a Go pointer
	storeAddr(&mv.Deleter, uintptr(deleterVersioned))
	mv.Flags = 0
	if t.padded {
		mv.Flags = dlpack.FlagSubbyteTypePadded
	}
	dl := &mv.DLTensor
	storeAddr(&dl.Data, uintptr(data))
	dl.Device, dl.NDim, dl.DType, dl.ByteOffset = dlpack.DLDevice{Type: dlpack.CPU}, int32(ndim), dt.DL, 0
	storeAddr((*unsafe.Pointer)(unsafe.Pointer(&dl.Shape)), 0)
	storeAddr((*unsafe.Pointer)(unsafe.Pointer(&dl.Strides)), 0)
	if ndim > 0 {
		storeAddr((*unsafe.Pointer)(unsafe.Pointer(&dl.Shape)), uintptr(unsafe.Pointer(&arrays[0])))
		storeAddr((*unsafe.Pointer)(unsafe.Pointer(&dl.Strides)), uintptr(unsafe.Pointer(&arrays[ndim])))
	}
	return t
}

// storeAddr writes a into *p, a field in C memory, as an integer.
func storeAddr(p *unsafe.Pointer, a uintptr) { *(*uintptr)(unsafe.Pointer(p)) = a }

var (
	deleterVersioned = unsafe.Pointer(C.gdt_deleter_versioned)
	deleterLegacy    = unsafe.Pointer(C.gdt_deleter_legacy)
)

// isProduced reports whether m is one of this package's blocks, which may be
// exported in either form.
func isProduced(m unsafe.Pointer, versioned bool) bool {
	if versioned {
		return (*dlpack.DLManagedTensorVersioned)(m).Deleter == deleterVersioned
	}
	return (*dlpack.DLManagedTensor)(m).Deleter == deleterLegacy
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
	if c.ReadOnly() {
		(*dlpack.DLManagedTensorVersioned)(c.managed.ptr()).Flags |= dlpack.FlagReadOnly
	}
	return c.managed.ptr(), nil
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
	case c.ReadOnly():
		return nil, errors.New("tensor: a read-only tensor cannot be exported as a legacy DLManagedTensor (it has no READ_ONLY flag)")
	case c.dtype().SubByte():
		return nil, errors.New("tensor: a sub-byte " + c.dtype().Name + " tensor cannot be exported as a legacy DLManagedTensor (it has no padding flag)")
	case c.versioned && !c.produced:
		return nil, errors.New("tensor: a tensor from a versioned producer can only be exported with Export")
	}
	if !t.claim() {
		return nil, ErrClosed
	}
	if c.versioned {
		toLegacy(c)
	}
	return c.managed.ptr(), nil
}

// claim moves t from open to exported; false if Close or another export won.
func (t *Tensor) claim() bool {
	return t.end(stateExported)
}

// toLegacy rewrites one of this package's blocks from the versioned form to the
// legacy one in place (both start at the block's first byte; shape and strides
// stay where they are).
func toLegacy(c *Tensor) {
	mv := (*dlpack.DLManagedTensorVersioned)(c.managed.ptr())
	dl, ctx := mv.DLTensor, *(*uintptr)(unsafe.Pointer(&mv.ManagerCtx))
	ml := (*dlpack.DLManagedTensor)(c.managed.ptr())
	copyDLTensor(&ml.DLTensor, &dl)
	*(*uintptr)(unsafe.Pointer(&ml.ManagerCtx)) = ctx
	storeAddr(&ml.Deleter, uintptr(deleterLegacy)) // as in fillHeader
	c.versioned = false
}

// toVersioned is toLegacy's inverse; flags are rebuilt from the Tensor.
func toVersioned(c *Tensor) {
	ml := (*dlpack.DLManagedTensor)(c.managed.ptr())
	dl, ctx := ml.DLTensor, *(*uintptr)(unsafe.Pointer(&ml.ManagerCtx))
	mv := (*dlpack.DLManagedTensorVersioned)(c.managed.ptr())
	mv.Version = dlpack.DLPackVersion{Major: dlpack.MajorVersion, Minor: dlpack.MinorVersion}
	*(*uintptr)(unsafe.Pointer(&mv.ManagerCtx)) = ctx
	storeAddr(&mv.Deleter, uintptr(deleterVersioned)) // as in fillHeader
	mv.Flags = 0
	if c.isCopied {
		mv.Flags |= dlpack.FlagIsCopied
	}
	if c.padded {
		mv.Flags |= dlpack.FlagSubbyteTypePadded
	}
	copyDLTensor(&mv.DLTensor, &dl)
	c.versioned = true
}

// copyDLTensor copies src into *dst, C memory, as bytes: no write barrier (see
// fillHeader).
func copyDLTensor(dst, src *dlpack.DLTensor) {
	const n = unsafe.Sizeof(dlpack.DLTensor{})
	*(*[n]byte)(unsafe.Pointer(dst)) = *(*[n]byte)(unsafe.Pointer(src))
}

func itoa[I int | int64](n I) string { return strconv.FormatInt(int64(n), 10) }
