//go:build godlpack_python

package arraymodule

// array_item.go: Array.item(*index), one element as a Python scalar (NumPy's
// ndarray.item). The stubs type its result as Any, as NumPy's do: the dtype is not
// known statically, and `x: float = a.item()` must type check where `a[0, 0]` (typed
// as Array | bool | int | float | complex) cannot.

// #include "arraymodule.h"
import "C"

import "github.com/godlpack/godlpack/dlpack"

//export goArrayItemMethod
func goArrayItemMethod(self, args *C.PyObject) *C.PyObject {
	off, err := itemOffset(toArray(self), args)
	if err != nil {
		return fail(err)
	}
	return scalarToPy(getElement(toArray(self), off))
}

// itemOffset finds the element item(*index) names: no index for an array of size 1,
// one int as a flat index in C order, or one int per axis (as ints or one tuple).
func itemOffset(a *C.gd_array, args *C.PyObject) (int64, error) {
	index, n, release := heldItems(args, dlpack.MaxNDim)
	defer release()
	if n == 1 && C.gd_tuple_check(index[0]) != 0 {
		var releaseTuple func()
		index, n, releaseTuple = heldItems(index[0], dlpack.MaxNDim)
		defer releaseTuple()
	}
	if n > dlpack.MaxNDim {
		return 0, valueErrorf("item() got %d indices; an array has at most %d axes", n, dlpack.MaxNDim)
	}
	shape, strides := arrayShape(a), arrayStrides(a)
	size := arraySize(a)
	switch {
	case len(index) == 0:
		if size != 1 {
			return 0, valueErrorf("can only convert an array of size 1 to a Python scalar (size is %d)", size)
		}
		return 0, nil // every axis has length 1
	case len(index) == 1 && len(shape) != 1:
		i, err := asInt64(index[0], "index")
		if err != nil {
			return 0, err
		}
		if i < -size || i >= size {
			return 0, indexErrorf("index %d is out of bounds for size %d", i, size)
		}
		if i < 0 {
			i += size
		}
		var off int64
		for d := len(shape) - 1; d >= 0; d-- {
			off += (i % shape[d]) * strides[d]
			i /= shape[d]
		}
		return off, nil
	case len(index) != len(shape):
		return 0, valueErrorf("item() takes no index, one flat index or %d indices (one per axis); got %d",
			len(shape), len(index))
	}
	var off int64
	for d, it := range index {
		i, err := asInt64(it, "index")
		if err != nil {
			return 0, err
		}
		if i < -shape[d] || i >= shape[d] {
			return 0, indexErrorf("index %d is out of bounds for axis %d with size %d", i, d, shape[d])
		}
		if i < 0 {
			i += shape[d]
		}
		off += i * strides[d]
	}
	return off, nil
}
