package tensor

import (
	"fmt"
	"iter"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// A View reads and writes the elements of a Tensor as Go values of type T, the
// Go type of the tensor's dtype (dlpack.DTypeOf[T]). Every method checks its
// indices and the tensor's state and returns an error rather than panic. A View
// keeps its Tensor reachable; it stops working (ErrClosed) once the tensor is
// closed or exported.
type View[T dlpack.Element] struct {
	t       *Tensor
	access  access
	subBuf  []byte // sub-byte tensors: the bytes of every element...
	subBase int64  // ...and the element number of element 0 in them
}

// access says how one element is loaded and stored.
type access uint8

const (
	accessPlain   access = iota // a whole-byte value of T's own layout
	accessBool                  // a byte, nonzero is true (a producer may send any byte)
	accessSubByte               // a float6/float4: bits within a byte, packed or padded
)

// As returns a view of t's elements as T; a *DTypeError when T is not the Go
// type of t's dtype.
func As[T dlpack.Element](t *Tensor) (*View[T], error) {
	c, err := t.open()
	if err != nil {
		return nil, err
	}
	if want := dlpack.DTypeOf[T](); want != c.dtype() {
		return nil, &DTypeError{Want: want, Got: c.dtype()}
	}
	v := &View[T]{t: t}
	switch {
	case c.dtype().SubByte():
		v.access = accessSubByte
		v.subBuf, v.subBase = c.subByteBytes()
	case c.dtype().Kind == dlpack.KindBool:
		v.access = accessBool
	}
	return v, nil
}

// subByteBytes returns the bytes holding a sub-byte tensor's elements and the
// element number of element 0 within them. Packed tensors are C-contiguous
// (Validate insists); padded ones take a byte per element and may be strided
// either way.
func (c *Tensor) subByteBytes() ([]byte, int64) {
	if c.n == 0 {
		return nil, 0
	}
	lo, hi, _ := dlpack.ElementSpan(c.shape(), c.strides()) // Validate checked it fits
	if c.padded {
		return unsafe.Slice((*byte)(unsafe.Add(c.data.ptr(), lo)), hi-lo+1), -lo
	}
	size, _ := dlpack.ByteSize(hi+1, int(c.dtype().DL.Bits))
	return unsafe.Slice((*byte)(c.data.ptr()), size), 0
}

// Shape returns a copy of the extents.
func (v *View[T]) Shape() []int64 { return v.tensor().Shape() }

// Strides returns a copy of the strides, in elements.
func (v *View[T]) Strides() []int64 { return v.tensor().Strides() }

// Len returns the number of elements.
func (v *View[T]) Len() int64 { return v.tensor().Len() }

// ReadOnly reports whether Set refuses to write.
func (v *View[T]) ReadOnly() bool { return v.tensor().ReadOnly() }

// tensor returns the viewed Tensor; nil for a zero View, whose methods act as
// on a closed tensor.
func (v *View[T]) tensor() *Tensor {
	if v == nil {
		return nil
	}
	return v.t
}

// At returns the element at idx, one index per dimension; indices are int64,
// as Shape's extents are.
func (v *View[T]) At(idx ...int64) (T, error) {
	off, err := v.offset(idx)
	if err != nil {
		var zero T
		return zero, err
	}
	return v.load(off), nil
}

// Set writes x at idx; ErrReadOnly for a read-only tensor.
func (v *View[T]) Set(x T, idx ...int64) error {
	off, err := v.offset(idx)
	if err != nil {
		return err
	}
	if v.t.ReadOnly() {
		return ErrReadOnly
	}
	v.store(off, x)
	return nil
}

// All yields every element with its position in C (row-major) order, whatever
// the strides. It yields nothing once the tensor is closed.
func (v *View[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if _, err := v.tensor().open(); err != nil {
			return
		}
		i := 0
		for off := range offsets(v.t.shape(), v.t.strides()) {
			if !yield(i, v.load(off)) {
				return
			}
			i++
		}
	}
}

// Slice returns the elements as a []T sharing the tensor's memory, without a
// copy: ErrNotContiguous unless the tensor is C-contiguous, ErrReadOnly for a
// read-only tensor (use ReadSlice), and an error for packed sub-byte
// elements, which share bytes. The slice does not keep the tensor reachable.
func (v *View[T]) Slice() ([]T, error) {
	if v.ReadOnly() {
		return nil, ErrReadOnly
	}
	return v.ReadSlice()
}

// ReadSlice is Slice for reading: it works on read-only tensors too, and the
// caller must not write through it (the producer may share the memory).
func (v *View[T]) ReadSlice() ([]T, error) {
	c, err := v.tensor().open()
	if err != nil {
		return nil, err
	}
	if !dlpack.IsCContiguous(c.shape(), c.strides()) {
		return nil, ErrNotContiguous
	}
	if v.access == accessSubByte && !c.padded {
		return nil, c.errPacked()
	}
	if c.n == 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(c.data.ptr()), c.n), nil
}

// Raw returns the memory the elements occupy as a []T that starts at element 0,
// without a copy, for strided code (what gonum's RawMatrix is to a mat.Dense):
// element (i, j, ...) is raw[i*strides[0] + j*strides[1] + ...]. It refuses
// negative strides, read-only tensors and packed sub-byte elements. Like Slice,
// it does not keep the tensor reachable.
func (v *View[T]) Raw() ([]T, error) {
	c, err := v.tensor().open()
	if err != nil {
		return nil, err
	}
	if c.ReadOnly() {
		return nil, ErrReadOnly
	}
	if v.access == accessSubByte && !c.padded {
		return nil, c.errPacked()
	}
	lo, hi, _ := dlpack.ElementSpan(c.shape(), c.strides()) // Validate or the producer checked it
	if lo < 0 {
		return nil, shapeError(c.shape(), "negative strides "+fmt.Sprint(c.strides())+" reach before element 0")
	}
	if hi < 0 {
		return []T{}, nil
	}
	return unsafe.Slice((*T)(c.data.ptr()), hi+1), nil
}

// offset checks idx and returns its element offset from element 0.
func (v *View[T]) offset(idx []int64) (int64, error) {
	c, err := v.tensor().open()
	if err != nil {
		return 0, err
	}
	if len(idx) != len(c.shape()) {
		return 0, &IndexError{Index: append([]int64(nil), idx...), Shape: v.Shape()}
	}
	var off int64
	for k, i := range idx {
		if i < 0 || i >= c.shape()[k] {
			return 0, &IndexError{Index: append([]int64(nil), idx...), Shape: v.Shape()}
		}
		off += i * c.strides()[k] // in range: Validate bounded every reachable offset
	}
	return off, nil
}

func (v *View[T]) load(off int64) T {
	var x T
	switch v.access {
	case accessPlain:
		x = *(*T)(unsafe.Add(v.t.data.ptr(), off*int64(unsafe.Sizeof(x))))
	case accessBool:
		*(*bool)(unsafe.Pointer(&x)) = *(*byte)(unsafe.Add(v.t.data.ptr(), off)) != 0
	case accessSubByte:
		*(*uint8)(unsafe.Pointer(&x)) = uint8(v.t.dtype().LoadBits(v.subBuf, off+v.subBase, v.t.padded))
	}
	return x
}

func (v *View[T]) store(off int64, x T) {
	switch v.access {
	case accessPlain, accessBool: // a Go bool is stored as 0 or 1, as DLPack wants
		*(*T)(unsafe.Add(v.t.data.ptr(), off*int64(unsafe.Sizeof(x)))) = x
	case accessSubByte:
		v.t.dtype().StoreBits(v.subBuf, off+v.subBase, v.t.padded, uint64(*(*uint8)(unsafe.Pointer(&x))))
	}
}

// offsets yields the element offset of every element of shape/strides in C order.
func offsets(shape, strides []int64) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for _, d := range shape {
			if d == 0 {
				return
			}
		}
		idx := make([]int64, len(shape))
		var off int64
		for {
			if !yield(off) {
				return
			}
			k := len(shape) - 1
			for ; k >= 0; k-- {
				idx[k]++
				off += strides[k]
				if idx[k] < shape[k] {
					break
				}
				off -= strides[k] * shape[k]
				idx[k] = 0
			}
			if k < 0 {
				return
			}
		}
	}
}

func (c *Tensor) errPacked() error {
	return shapeError(c.shape(), "packed "+c.dtype().Name+" elements share bytes; no []T can view them")
}
