//go:build godlpack_python

package arraymodule

// array_index.go: __getitem__/__setitem__ with NumPy's basic indexing (ints,
// slices with any step, Ellipsis, None) returning views that share memory.

// #include "arraymodule.h"
import "C"

import (
	"errors"
	"math"
	"math/bits"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/cpython"
)

// selection is the result of applying an index to an array.
type selection struct {
	offset  int64 // element offset of the first selected element
	shape   []int64
	strides []int64
	scalar  bool // every dimension was indexed by an integer
}

func selectIndex(a *C.gd_array, key *C.PyObject) (selection, error) {
	shape, strides := arrayShape(a), arrayStrides(a)
	items, isTuple := []*C.PyObject{key}, false
	if C.gd_tuple_check(key) != 0 {
		// An index takes at most ndim integers or slices, one Ellipsis, and Nones
		// up to the dimension limit; a longer tuple is refused before anything
		// its size is allocated.
		var n int
		var release func()
		items, n, release = heldItems(key, 2*dlpack.MaxNDim+1)
		defer release()
		if items == nil && n > 0 {
			return selection{}, indexErrorf("too many indices for array: an index of %d items", n)
		}
		isTuple = true
	}
	// Count the dimensions the index consumes, to expand a single Ellipsis.
	consumed, ellipses := 0, 0
	for _, it := range items {
		switch {
		case C.gd_is_ellipsis(it) != 0:
			ellipses++
		case C.gd_is_none(it) != 0:
		default:
			consumed++
		}
	}
	if ellipses > 1 {
		return selection{}, indexErrorf("an index can only have a single ellipsis ('...')")
	}
	if consumed > len(shape) {
		return selection{}, indexErrorf("too many indices for array: array is %d-dimensional, but %d were indexed",
			len(shape), consumed)
	}
	var sel selection
	dim := 0
	ints := 0
	for _, it := range items {
		switch {
		case C.gd_is_ellipsis(it) != 0:
			for n := len(shape) - consumed; n > 0; n-- {
				sel.shape = append(sel.shape, shape[dim])
				sel.strides = append(sel.strides, strides[dim])
				dim++
			}
		case C.gd_is_none(it) != 0:
			sel.shape = append(sel.shape, 1)
			sel.strides = append(sel.strides, 0)
		case C.gd_slice_check(it) != 0:
			var start, stop, step C.Py_ssize_t
			if C.PySlice_Unpack(it, &start, &stop, &step) < 0 {
				return selection{}, errPySet
			}
			n := C.PySlice_AdjustIndices(C.Py_ssize_t(shape[dim]), &start, &stop, step)
			if n > 0 {
				sel.offset += int64(start) * strides[dim]
			}
			sel.shape = append(sel.shape, int64(n))
			// stride*step fits when two or more elements are taken (the array spans
			// them); for one or none a huge step may overflow, and the stride of
			// such a dimension is never applied: keep the array's own then.
			st := strides[dim]
			if hi, lo := bits.Mul64(uint64(abs64(st)), uint64(abs64(int64(step)))); hi == 0 && lo <= math.MaxInt64 {
				st *= int64(step)
			}
			sel.strides = append(sel.strides, st)
			dim++
		case C.gd_index_check(it) != 0 && C.gd_bool_check(it) == 0:
			i, err := asInt64(it, "index")
			if err != nil {
				var pe *cpython.Error
				if errors.As(err, &pe) && pe.Kind == cpython.OverflowError {
					// NumPy too: an index past int64 is an IndexError, not an OverflowError.
					return selection{}, indexErrorf("cannot fit 'int' into an index-sized integer")
				}
				return selection{}, err
			}
			if i < -shape[dim] || i >= shape[dim] {
				return selection{}, indexErrorf("index %d is out of bounds for axis %d with size %d", i, dim, shape[dim])
			}
			if i < 0 {
				i += shape[dim]
			}
			sel.offset += i * strides[dim]
			dim++
			ints++
		default:
			return selection{}, indexErrorf("only integers, slices (`:`), ellipsis (`...`) and None "+
				"are valid indices; got %s", typeName(it))
		}
	}
	for ; dim < len(shape); dim++ {
		sel.shape = append(sel.shape, shape[dim])
		sel.strides = append(sel.strides, strides[dim])
	}
	if len(sel.shape) > dlpack.MaxNDim {
		// NumPy's limit and exception: no consumer takes more dimensions.
		return selection{}, indexErrorf("number of dimensions must be within [0, %d], indexing result would have %d",
			dlpack.MaxNDim, len(sel.shape))
	}
	sel.scalar = ints == len(shape) && len(sel.shape) == 0 && (isTuple || len(shape) > 0) && ellipses == 0
	return sel, nil
}

// viewOf makes the array a selection describes.
func viewOf(a *C.gd_array, sel selection) (*C.gd_array, error) {
	bits := int64(elemBits(a))
	if bits < 8 {
		// Packed sub-byte elements share bytes: only byte-aligned contiguous views exist.
		if (sel.offset*bits)%8 != 0 || !dlpack.IsCContiguous(sel.shape, sel.strides) {
			return nil, valueErrorf("cannot make a view of a packed %s array that is not contiguous "+
				"and byte-aligned; index element by element or copy first", arrayDType(a).Name)
		}
		strides := dlpack.ContiguousStrides(sel.shape)
		return newView(a, unsafe.Add(unsafe.Pointer(a.data), sel.offset*bits/8), sel.shape, strides)
	}
	return newView(a, unsafe.Add(unsafe.Pointer(a.data), sel.offset*bits/8), sel.shape, sel.strides)
}

//export goArrayGetItem
func goArrayGetItem(self, key *C.PyObject) *C.PyObject {
	a := toArray(self)
	sel, err := selectIndex(a, key)
	if err != nil {
		return fail(err)
	}
	if sel.scalar {
		return scalarToPy(getElement(a, sel.offset))
	}
	v, err := viewOf(a, sel)
	if err != nil {
		return fail(err)
	}
	return asObject(v)
}

//export goArrayItem
func goArrayItem(self *C.PyObject, i C.Py_ssize_t) *C.PyObject {
	if toArray(self).ndim == 0 {
		// iter() falls back to this slot; a 0-d array is not iterable, as in NumPy.
		return fail(typeErrorf("iteration over a 0-d array"))
	}
	key := C.PyLong_FromSsize_t(i)
	if key == nil {
		return nil
	}
	defer C.gd_decref(key)
	return goArrayGetItem(self, key)
}

//export goArraySetItem
func goArraySetItem(self, key, value *C.PyObject) C.int {
	if err := setItem(toArray(self), key, value); err != nil {
		setError(err)
		return -1
	}
	return 0
}

func setItem(a *C.gd_array, key, value *C.PyObject) error {
	if value == nil {
		return valueErrorf("cannot delete array elements")
	}
	if arrayReadOnly(a) {
		return valueErrorf("assignment destination is read-only")
	}
	sel, err := selectIndex(a, key)
	if err != nil {
		return err
	}
	src, err := assignedArray(value, arrayDType(a))
	if err != nil {
		return err
	}
	if src == nil {
		s, err := pyToScalar(value)
		if err != nil {
			return err
		}
		return fillSelection(a, sel, s)
	}
	defer releaseForeign(asObject(src))
	if mayOverlap(a, sel, src) {
		// Read the source fully before writing: an element written early may be
		// one the source still has to read.
		cp, err := copyArray(src)
		if err != nil {
			return err
		}
		defer C.gd_decref(asObject(cp))
		src = cp
	}
	srcStrides, err := broadcastStrides(arrayShape(src), arrayStrides(src), sel.shape)
	if err != nil {
		return err
	}
	return assign(a, sel, src, srcStrides)
}

// assignedArray is the value of a[key] = value as an array of dtype dt: a
// godlpack.Array, a DLPack producer (a PyTorch tensor, a JAX array: shared, as
// asarray shares it, then converted if its dtype differs), a buffer, or a nested
// sequence. nil with no error for anything else: a scalar, which fills the
// selection. The result may hold a producer's tensor: drop it with releaseForeign.
func assignedArray(value *C.PyObject, dt *dlpack.DType) (*C.gd_array, error) {
	if !isArray(value) && !isSequence(value) && C.PyObject_CheckBuffer(value) == 0 {
		if C.gd_may_share_dlpack(value) == 0 {
			return nil, nil
		}
		if a, done, err := asarrayShared(value, dt, importRequest{}); done {
			return a, err
		} // its __dlpack__ raised BufferError: converted as asarray converts it
	}
	return arrayFrom(value, dt)
}

// mayOverlap reports whether writing the selection sel of a could change src
// before it is read. It compares the address ranges the two views can touch, not
// their owners: the same memory reaches us under another owner through DLPack
// (from_dlpack of our own export, a NumPy or PyTorch view of an Array). A range
// that cannot be computed counts as overlapping: the copy is then merely unneeded.
func mayOverlap(a *C.gd_array, sel selection, src *C.gd_array) bool {
	dst, err := dlpack.ViewExtent(uintptr(unsafe.Pointer(a.data)), sel.offset, sel.shape, sel.strides, elemBits(a))
	if err != nil {
		return true
	}
	s, err := dlpack.ViewExtent(uintptr(unsafe.Pointer(src.data)), 0, arrayShape(src), arrayStrides(src), elemBits(src))
	return err != nil || dst.Overlaps(s)
}

// broadcastStrides gives src's strides for viewing it as shape, by NumPy's rules.
func broadcastStrides(srcShape, srcStrides, shape []int64) ([]int64, error) {
	if len(srcShape) > len(shape) {
		return nil, valueErrorf("could not broadcast input array from shape %v into shape %v", srcShape, shape)
	}
	out := make([]int64, len(shape))
	lead := len(shape) - len(srcShape)
	for i := range srcShape {
		switch {
		case srcShape[i] == shape[lead+i]:
			out[lead+i] = srcStrides[i]
		case srcShape[i] == 1:
			out[lead+i] = 0
		default:
			return nil, valueErrorf("could not broadcast input array from shape %v into shape %v", srcShape, shape)
		}
	}
	return out, nil
}

func assign(a *C.gd_array, sel selection, src *C.gd_array, srcStrides []int64) error {
	n, _ := dlpack.NumElements(sel.shape)
	if n == 0 {
		return nil
	}
	bits := elemBits(a)
	if bits >= 8 && !arrayPadded(a) && !arrayPadded(src) && src.dtype_index == a.dtype_index {
		dst := unsafe.Add(unsafe.Pointer(a.data), sel.offset*int64(bits/8))
		dlpack.CopyStrided(dst, sel.strides, unsafe.Pointer(src.data), srcStrides, sel.shape, bits/8)
		return nil
	}
	dit := newOffsetIter(sel.shape, sel.strides)
	sit := newOffsetIter(sel.shape, srcStrides)
	for i := int64(0); i < n; i++ {
		if err := setElement(a, sel.offset+dit.next(), getElement(src, sit.next())); err != nil {
			return err
		}
	}
	return nil
}

// abs64 is |v|, with MinInt64 left as is (its uint64 is then 2^63, still exact).
func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
