package vec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// View is a strided tensor over a slice, as a DLPack tensor is over its
// memory: the element at index (i0, i1, ...) is data[offset + i0*strides[0] +
// i1*strides[1] + ...], strides in elements, any sign, 0 too (a broadcast
// source). Its shape and strides are its own copies, held in the View itself
// up to inlineDims dimensions: making, slabbing and permuting a small view
// allocates nothing. Map, Map2 and Lines walk views; the zero View is a 0-d
// view of nothing, an error to walk.
type View[T any] struct {
	data   []T
	offset int
	dims   viewDims
}

// inlineDims is the most dimensions a View holds without an allocation.
const inlineDims = 4

// viewDims is a view's shape and strides: shape in inline[:nd] and strides in
// inline[inlineDims:inlineDims+nd], or for more dimensions both in spill (one
// allocation, shared by copies: only a new view's own is written).
type viewDims struct {
	nd     int
	inline [2 * inlineDims]int
	spill  []int
}

// newDims is the dims of nd dimensions, zero.
func newDims(nd int) viewDims {
	d := viewDims{nd: nd}
	if nd > inlineDims {
		d.spill = make([]int, 2*nd)
	}
	return d
}

func (d *viewDims) shape() []int {
	if d.spill != nil {
		return d.spill[:d.nd:d.nd]
	}
	return d.inline[:d.nd:d.nd]
}

func (d *viewDims) strides() []int {
	if d.spill != nil {
		return d.spill[d.nd:]
	}
	return d.inline[inlineDims : inlineDims+d.nd]
}

// NewView is the view of data with shape and strides (nil: C-contiguous) whose
// first element is data[offset]; every element must lie in data.
func NewView[T any](data []T, offset int, shape, strides []int64) (View[T], error) {
	var onStack [walkDims]int64 // the C-contiguous strides of a small view: no allocation
	if strides == nil {
		strides = onStack[:]
		if len(shape) > len(strides) {
			strides = make([]int64, len(shape))
		}
		strides = strides[:len(shape)]
		dlpack.FillContiguousStrides(strides, shape) // an overflow is ElementSpan's to report
	}
	if len(strides) != len(shape) {
		return View[T]{}, fmt.Errorf("vec: %d strides for %d dimensions: pass one stride a dimension", len(strides), len(shape))
	}
	for i, d := range shape {
		if d < 0 {
			return View[T]{}, fmt.Errorf("vec: dimension %d is %d: pass non-negative dimensions", i, d)
		}
	}
	lo, hi, err := dlpack.ElementSpan(shape, strides)
	if _, nerr := dlpack.NumElements(shape); err == nil && nerr != nil { // Len's count, as Validate's rule 5
		err = nerr
	}
	if err != nil { // copies in the message: shape and strides stay the caller's
		return View[T]{}, fmt.Errorf("vec: shape %v, strides %v: %w", slices.Clone(shape), slices.Clone(strides), err)
	}
	if hi >= lo && (offset < 0 || offset >= len(data) || lo < -int64(offset) || hi >= int64(len(data)-offset)) {
		return View[T]{}, fmt.Errorf("vec: the view reaches elements %d..%d of a slice of %d: "+
			"pass an offset, shape and strides inside the slice", int64(offset)+lo, int64(offset)+hi, len(data))
	}
	dm := newDims(len(shape))
	if err := dm.set(shape, strides); err != nil {
		return View[T]{}, err
	}
	return View[T]{data, offset, dm}, nil
}

// set sets d's shape and strides (ints, what a walk indexes a Go slice with)
// from a view's int64 ones: an error where one does not fit an int (a 32-bit
// platform's), which a view over a Go slice cannot need.
func (d *viewDims) set(shape, strides []int64) error {
	shp, str := d.shape(), d.strides()
	for i := range shp {
		shp[i], str[i] = int(shape[i]), int(strides[i])
		if int64(shp[i]) != shape[i] || int64(str[i]) != strides[i] {
			return fmt.Errorf("vec: dimension %d: extent %d, stride %d: pass extents and strides that fit an int", i, shape[i], strides[i])
		}
	}
	return nil
}

// ViewOf is the C-contiguous view of s with shape (nil: 1-d, all of s); the
// shape's elements must be len(s).
func ViewOf[T any](s []T, shape ...int64) (View[T], error) {
	if shape == nil {
		shape = []int64{int64(len(s))}
	}
	switch n, err := dlpack.NumElements(shape); {
	case err != nil: // copies in the messages: shape stays on the caller's stack
		return View[T]{}, fmt.Errorf("vec: shape %v: %w: pass a shape of len(s) elements", slices.Clone(shape), err)
	case n != int64(len(s)):
		return View[T]{}, fmt.Errorf("vec: shape %v holds %d elements, the slice %d: pass a shape of len(s) elements",
			slices.Clone(shape), n, len(s))
	}
	if len(shape) > inlineDims {
		return NewView(s, 0, shape, nil)
	}
	// C-contiguous over all of s: every element lies in s, NewView's span check
	// has nothing to find (a 4x4 output's view in a few ns).
	v := View[T]{data: s, dims: viewDims{nd: len(shape)}}
	shp, str := v.dims.shape(), v.dims.strides()
	step := 1
	for i := len(shape) - 1; i >= 0; i-- {
		shp[i], str[i] = int(shape[i]), step
		if int64(shp[i]) != shape[i] { // an empty view's extent past a 32-bit int
			return NewView(s, 0, shape, nil) // which says so
		}
		step *= max(shp[i], 1)
	}
	return v, nil
}

// FromPointer is the view of the tensor whose first element is at data, with
// shape and strides (in elements; nil: C-contiguous) as a DLPack tensor has
// them: godlpack.Tensor's Data, Shape and Strides. The memory must hold every
// element, as a valid tensor's does, and stay alive while the view is used.
func FromPointer[T any](data unsafe.Pointer, shape, strides []int64) (View[T], error) {
	if strides == nil {
		strides = dlpack.ContiguousStrides(shape)
	}
	if len(strides) != len(shape) {
		return View[T]{}, fmt.Errorf("vec: %d strides for %d dimensions: pass one stride a dimension", len(strides), len(shape))
	}
	lo, hi, err := dlpack.ElementSpan(shape, strides)
	if err != nil { // copies in the message: shape and strides stay the caller's (FromTensor's on its stack)
		return View[T]{}, fmt.Errorf("vec: shape %v, strides %v: %w", slices.Clone(shape), slices.Clone(strides), err)
	}
	dm := newDims(len(shape))
	if err := dm.set(shape, strides); err != nil {
		return View[T]{}, err
	}
	if hi < lo { // no elements
		return View[T]{dims: dm}, nil
	}
	if data == nil {
		return View[T]{}, errors.New("vec: a nil data pointer for a tensor with elements: pass the tensor's data")
	}
	size := int64(unsafe.Sizeof(*new(T)))
	if hi-lo >= maxSpanBytes/size { // unsafe.Slice would panic: no memory is that large
		return View[T]{}, fmt.Errorf("vec: shape %v, strides %v reach %d elements of %d bytes, more than an address space: "+
			"pass the tensor's own strides", slices.Clone(shape), slices.Clone(strides), hi-lo+1, size)
	}
	base := (*T)(unsafe.Add(data, lo*size))
	return View[T]{unsafe.Slice(base, hi-lo+1), int(-lo), dm}, nil
}

// maxSpanBytes bounds the memory a view may span: the user half of a 64-bit
// address space (x86-64's and arm64's 47 bits), all of a 32-bit one's int.
const maxSpanBytes = 1 << min(47, strconv.IntSize-1)

// A Source is what FromTensor reads: a tensor's data, extents and strides
// where its producer holds them (godlpack.Tensor and MutTensor are Sources).
type Source interface {
	Data() unsafe.Pointer
	NDim() int
	Dim(i int) int64
	Stride(i int) int64 // in elements
}

// A LaidOutSource is a Source that hands its data, shape and strides over in
// one call (godlpack.Tensor and MutTensor are): FromTensor then makes one
// dynamic call, not one per dimension and field (most of a 4x4 tensor's view).
// shape and strides may be the tensor's own memory: FromTensor only reads them.
type LaidOutSource interface {
	Source
	Layout() (data unsafe.Pointer, shape, strides []int64)
}

// FromTensor is FromPointer of x's data, shape and strides, read in place
// (Layout) or one by one, not copied into new slices (Shape and Strides): a
// view of up to 4 dimensions then allocates nothing (view_alloc_test.go),
// where the copies were most of a 4x4 tensor's work.
func FromTensor[T any](x Source) (v View[T], err error) {
	if l, ok := x.(LaidOutSource); ok {
		data, shape, strides := l.Layout()
		if len(strides) == len(shape) && fromSmallTensor(&v, data, shape, strides) {
			return v, nil
		}
		return FromPointer[T](data, shape, strides)
	}
	nd := x.NDim()
	var onStack [2 * walkDims]int64
	both := onStack[:]
	if 2*nd > len(both) {
		both = make([]int64, 2*nd)
	}
	shape, strides := both[:nd:nd], both[nd:2*nd]
	for i := range nd {
		shape[i], strides[i] = x.Dim(i), x.Stride(i)
	}
	if fromSmallTensor(&v, x.Data(), shape, strides) {
		return v, nil
	}
	return FromPointer[T](x.Data(), shape, strides)
}

// smallExtent bounds the extents and strides fromSmallTensor takes: with at
// most inlineDims dimensions, no product or sum of the span overflows an int64
// (4 * 2**28 * 2**28 = 2**58).
const smallExtent = 1 << 28

// fromSmallTensor is FromTensor's view of a tensor of at most inlineDims
// dimensions (strides as many as shape) with elements and extents and strides
// under smallExtent (every bench_vec input): read straight into v, with none of
// FromPointer's overflow arithmetic (divisions) or copies. false (v's contents
// then undefined): FromPointer decides, errors and all.
func fromSmallTensor[T any](v *View[T], data unsafe.Pointer, shape, strides []int64) bool {
	nd := len(shape)
	if nd > inlineDims || data == nil {
		return false
	}
	v.dims.nd = nd
	shp, str := v.dims.inline[:nd:nd], v.dims.inline[inlineDims:inlineDims+nd]
	strides = strides[:nd]
	lo, hi := int64(0), int64(0) // int64: a 32-bit int would overflow
	for i, d := range shape {
		s := strides[i]
		if d <= 0 || d >= smallExtent || s <= -smallExtent || s >= smallExtent {
			return false
		}
		shp[i], str[i] = int(d), int(s)
		if r := (d - 1) * s; r < 0 {
			lo += r
		} else {
			hi += r
		}
	}
	size := int64(unsafe.Sizeof(*new(T)))
	if hi-lo >= maxSpanBytes/size {
		return false
	}
	v.data = unsafe.Slice((*T)(unsafe.Add(data, lo*size)), hi-lo+1)
	v.offset = int(-lo)
	return true
}

// Shape is v's shape (its own copy: changing it changes nothing).
func (v View[T]) Shape() []int64 { return int64s(v.dims.shape()) }

// Strides is v's strides in elements (a copy).
func (v View[T]) Strides() []int64 { return int64s(v.dims.strides()) }

// int64s is a copy of s as int64s, the shapes and strides of vec's API.
func int64s(s []int) []int64 {
	c := make([]int64, len(s))
	for i, x := range s {
		c[i] = int64(x)
	}
	return c
}

// Len is the number of elements of v.
func (v View[T]) Len() int {
	n := 1
	for _, d := range v.dims.shape() {
		n *= d
	}
	return n
}

// Slab is the view of v's indexes lo..hi-1 along its first dimension: the
// part of the work one goroutine takes (Parallel).
func (v View[T]) Slab(lo, hi int64) (View[T], error) {
	shape := v.dims.shape()
	if len(shape) == 0 || lo < 0 || hi < lo || hi > int64(shape[0]) {
		return View[T]{}, fmt.Errorf("vec: slab %d:%d of a view of shape %v: pass 0 <= lo <= hi <= shape[0]",
			lo, hi, slices.Clone(shape)) // a copy: v stays on the caller's stack
	}
	if lo == 0 && hi == int64(shape[0]) { // all of v (one goroutine's slab)
		return v, nil
	}
	s := v // dims copied with it, but for a spilled view's
	if s.dims.spill != nil {
		s.dims.spill = slices.Clone(v.dims.spill)
	}
	s.offset += int(lo) * v.dims.strides()[0]
	s.dims.shape()[0] = int(hi - lo)
	return s, nil
}

// Slice is v's elements as one slice, sharing v's memory, when v is
// C-contiguous (ok false otherwise): the fast path of a whole-array operation.
// A View has no read-only state (its memory is a Go slice, or a tensor the
// caller may write), so it has no ReadSlice: the slice is as writable as v.
func (v View[T]) Slice() (s []T, ok bool) { return v.contiguous() }

// contiguous is Slice without the copy of v (16 words) a value receiver makes:
// the walks ask it of every operand.
func (v *View[T]) contiguous() (s []T, ok bool) {
	n := 1 // one pass: a small tensor's Map costs little more than its op
	shape, strides := v.dims.shape(), v.dims.strides()
	for i := len(shape) - 1; i >= 0; i-- {
		d := shape[i]
		if d != 1 && strides[i] != n {
			return nil, n == 0 || slices.Contains(shape[:i+1], 0) // no elements: any layout is
		}
		n *= d
	}
	if n == 0 {
		return nil, true
	}
	return v.data[v.offset : v.offset+n], true
}

// Permute is v with its dimensions reordered: dimension i of the result is
// dimension axes[i] of v (NumPy's transpose(axes)); no element moves. An HxWxC
// image read as CxHxW is Permute(2, 0, 1).
func (v View[T]) Permute(axes ...int) (View[T], error) {
	if len(axes) != v.dims.nd {
		return View[T]{}, fmt.Errorf("vec: %d axes for a view of %d dimensions: name each once", len(axes), v.dims.nd)
	}
	p := View[T]{v.data, v.offset, newDims(len(axes))}
	shp, str := p.dims.shape(), p.dims.strides()
	shape, strides := v.dims.shape(), v.dims.strides()
	var seenOnStack [walkDims]bool // a small permute allocates nothing
	seen := seenOnStack[:]
	if len(axes) > len(seen) {
		seen = make([]bool, len(axes))
	}
	for i, a := range axes {
		if a < 0 || a >= len(axes) || seen[a] {
			return View[T]{}, fmt.Errorf("vec: axes %v are not a permutation of 0..%d", slices.Clone(axes), len(axes)-1)
		}
		seen[a] = true
		shp[i], str[i] = shape[a], strides[a]
	}
	return p, nil
}
