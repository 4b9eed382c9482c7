package godlpack

// ext_slices.go: tensor parameters that stand for Go slice parameters
// (Function.Slices) and the []T a Go function gets from them (GoSlice): what
// a binding of a Go package's func(x []float64) takes (cmd/godlpack-bind).

import (
	"errors"
	"reflect"
	"slices"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// Slices makes the Tensor[E] parameters names take what a Go slice parameter
// would: any tensor of E (E one element type, such as float64), a list or tuple
// of numbers (copied into a new 1-D array of E by godlpack.asarray), or None
// (the Tensor's IsNone is true: a nil slice), with no default needed. GoSlice
// gives the function the []E.
func (f *Function) Slices(names ...string) *Function {
	for _, name := range names {
		p := f.param(name)
		if p == nil {
			continue
		}
		dts, _ := dtypesOf(elementOf(p))
		if p.kind != extTensor || len(dts) != 1 {
			f.fail("parameter %s: Slices takes a Tensor[E] parameter of one element type E (such as Tensor[float64])", name)
			continue
		}
		p.slice = dts[0].Name
	}
	return f
}

// elementOf is p's element type value (E of Tensor[E]), or nil for a parameter
// that is no tensor.
func elementOf(p *param) any {
	if p.goType == nil {
		return nil
	}
	if t, ok := reflect.Zero(p.goType).Interface().(tensorParam); ok {
		return t.elementType()
	}
	return nil
}

// GoSlice returns x's elements as a []T for a Go function that takes a slice
// (Slices): x's own memory, with no copy, when x is C-contiguous and writable,
// so that the Go function's writes are seen by the caller as a Go caller would
// see them; a copy when x is read-only or strided. nil when x is None. The
// slice is valid for the call only: a function that keeps it must copy it.
func GoSlice[T dlpack.Element](x TensorArg) ([]T, error) {
	a := x.arg()
	if a == nil {
		return nil, nil
	}
	s, err := readSlice[T](a)
	switch {
	case err == nil && a.m.flags&flagReadOnly == 0:
		return s, nil
	case err == nil:
		return slices.Clone(s), nil
	case errors.Is(err, tensor.ErrNotContiguous):
		return copyStrided[T](a), nil
	}
	return nil, err
}

// copyStrided copies a's elements, in C order, into a new []T (T its element
// type, checked by the caller).
func copyStrided[T dlpack.Element](a *extArg) []T {
	x := Tensor[Any]{a}
	shape, strides := x.shape(), x.strides()
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	out := make([]T, n)
	if n == 0 {
		return out
	}
	base := unsafe.Pointer(a.m.dl_tensor.data)
	size := unsafe.Sizeof(*new(T))
	idx := make([]int64, len(shape))
	for i := range out {
		off := int64(0)
		for d, k := range idx {
			off += k * strides[d]
		}
		out[i] = *(*T)(unsafe.Add(base, uintptr(off)*size))
		for d := len(idx) - 1; d >= 0; d-- { // the next index, in C order
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
