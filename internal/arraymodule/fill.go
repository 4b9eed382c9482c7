//go:build godlpack_python

package arraymodule

// fill.go: writing one value, or an arithmetic progression, into many elements
// (full/ones, a[...] = scalar, arange). The value is converted once, with the
// dtype's rules (dlpack.DType.Set), and its bytes are replicated by the strided
// loops of dlpack; only packed sub-byte elements, which share bytes, are set one
// at a time.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// fillSelection writes s into every element that sel selects in a.
func fillSelection(a *C.gd_array, sel selection, s dlpack.Scalar) error {
	bits := elemBits(a)
	// Convert once, on a scratch element: this also range-checks the value when
	// nothing is selected, as NumPy does.
	elem := make([]byte, max((bits+7)/8, 1))
	if err := arrayDType(a).Set(elem, 0, arrayPadded(a), s); err != nil {
		return err
	}
	n, _ := dlpack.NumElements(sel.shape)
	if n == 0 {
		return nil
	}
	if bits < 8 {
		it := newOffsetIter(sel.shape, sel.strides)
		for i := int64(0); i < n; i++ {
			if err := setElement(a, sel.offset+it.next(), s); err != nil {
				return err
			}
		}
		return nil
	}
	dst := unsafe.Add(unsafe.Pointer(a.data), sel.offset*int64(bits/8))
	if dlpack.IsCContiguous(sel.shape, sel.strides) && fillBlock(dst, n, elem) {
		return nil
	}
	dlpack.FillStrided(dst, sel.strides, sel.shape, elem)
	return nil
}

// fillAll writes s into every element of a.
func fillAll(a *C.gd_array, s dlpack.Scalar) error {
	return fillSelection(a, selection{shape: arrayShape(a), strides: arrayStrides(a)}, s)
}

// fillArange writes start + i*step into the n elements of the new contiguous
// array a; start and step are both KindInt or both KindFloat.
func fillArange(a *C.gd_array, n int64, start, step dlpack.Scalar) error {
	if !arrayPadded(a) && dlpack.Arange(unsafe.Pointer(a.data), arrayDType(a), n, start, step) {
		return nil
	}
	for i := int64(0); i < n; i++ {
		v := dlpack.Scalar{Kind: dlpack.KindInt, I: start.I + i*step.I}
		if start.Kind == dlpack.KindFloat {
			v = dlpack.Scalar{Kind: dlpack.KindFloat, F: start.F}
			if i > 0 { // not 0*step for element 0: an infinite step would make it NaN
				v.F += float64(i) * step.F
			}
		}
		if err := setElement(a, i, v); err != nil {
			return err
		}
	}
	return nil
}
