//go:build godlpack_python

package arraymodule

// array.go: godlpack.Array's state as Go sees it, its constructors from Go, and
// the attribute getters. The object itself is a C struct (gd_array in arraymodule.h)
// so the C hot paths can read it without crossing into Go.

// #cgo linux LDFLAGS: -ldl
// #include "arraymodule.h"
import "C"

import (
	"math"
	"math/big"
	"math/bits"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

func toArray(o *C.PyObject) *C.gd_array { return (*C.gd_array)(unsafe.Pointer(o)) }

func asObject(a *C.gd_array) *C.PyObject { return (*C.PyObject)(unsafe.Pointer(a)) }

func isArray(o *C.PyObject) bool { return C.gd_array_check(o) != 0 }

func arrayShape(a *C.gd_array) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(a.shape)), int(a.ndim))
}

func arrayStrides(a *C.gd_array) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(a.strides)), int(a.ndim))
}

func arrayDType(a *C.gd_array) *dlpack.DType { return dlpack.All()[int(a.dtype_index)] }

func arrayPadded(a *C.gd_array) bool { return a.flags&C.GD_FLAG_SUBBYTE_PADDED != 0 }

func arrayReadOnly(a *C.gd_array) bool { return a.flags&C.GD_FLAG_READ_ONLY != 0 }

func arraySize(a *C.gd_array) int64 {
	n, _ := dlpack.NumElements(arrayShape(a)) // validated when the array was made
	return n
}

// elemBits is the bits one element takes in memory.
func elemBits(a *C.gd_array) int { return arrayDType(a).StorageBits(arrayPadded(a)) }

// packedSubByte reports elements that share bytes: such arrays are always C-contiguous.
func packedSubByte(a *C.gd_array) bool { return elemBits(a) < 8 }

// element returns a byte slice and an element number in it that address element
// off (counted in elements from element 0, strides applied by the caller).
func element(a *C.gd_array, off int64) ([]byte, int64) {
	bits := elemBits(a)
	if bits < 8 {
		nbytes, _ := dlpack.ByteSize(off+1, bits)
		return unsafe.Slice((*byte)(unsafe.Pointer(a.data)), nbytes), off
	}
	size := bits / 8
	p := unsafe.Add(unsafe.Pointer(a.data), off*int64(size))
	return unsafe.Slice((*byte)(p), size), 0
}

func getElement(a *C.gd_array, off int64) dlpack.Scalar {
	buf, i := element(a, off)
	return arrayDType(a).Get(buf, i, arrayPadded(a))
}

func setElement(a *C.gd_array, off int64, s dlpack.Scalar) error {
	buf, i := element(a, off)
	return arrayDType(a).Set(buf, i, arrayPadded(a), s)
}

// newOwnedArray allocates a C-contiguous Go-owned array (C memory, 256-byte aligned).
func newOwnedArray(dt *dlpack.DType, shape []int64, zero bool) (*C.gd_array, error) {
	if len(shape) > dlpack.MaxNDim {
		return nil, valueErrorf("%d dimensions requested; at most %d are supported", len(shape), dlpack.MaxNDim)
	}
	n, err := dlpack.NumElements(shape)
	if err != nil {
		return nil, valueErrorf("array is too big: %v elements overflow int64", shape)
	}
	nbytes, err := dlpack.ByteSize(n, dt.StorageBits(false))
	if err != nil {
		// Element offsets are counted in bits (dlpack.ByteSize's rule), which pass
		// int64 before the bytes do. As NumPy, a byte count that fits in int64 is a
		// size we cannot allocate (MemoryError); past that, ValueError.
		if hi, lo := bits.Mul64(uint64(n), uint64(dt.StorageBits(false))); hi == 0 && lo/8 <= math.MaxInt64 {
			return nil, memoryErrorf("cannot allocate %d bytes for a %v %s array", lo/8, shape, dt.Name)
		}
		return nil, valueErrorf("array is too big: %d elements of %s overflow int64 bytes", n, dt.Name)
	}
	var data *C.char
	zeroFlag := C.int(0)
	if zero {
		zeroFlag = 1
	}
	owner := C.gd_owner_new_owned(C.int64_t(nbytes), zeroFlag, &data)
	if owner == nil {
		return nil, memoryErrorf("cannot allocate %d bytes for a %v %s array", nbytes, shape, dt.Name)
	}
	a := C.gd_array_alloc(C.int32_t(len(shape)))
	if a == nil {
		C.gd_owner_decref(owner)
		return nil, errPySet
	}
	a.owner = owner
	a.data = data
	setDType(a, dt)
	copy(arrayShape(a), shape)
	copy(arrayStrides(a), dlpack.ContiguousStrides(shape))
	return a, nil
}

func setDType(a *C.gd_array, dt *dlpack.DType) {
	a.dtype_index = C.int32_t(dt.Index)
	a.dtype.code = C.uint8_t(dt.DL.Code)
	a.dtype.bits = C.uint8_t(dt.DL.Bits)
	a.dtype.lanes = C.uint16_t(dt.DL.Lanes)
}

// newView makes an array that shares base's memory and owner.
func newView(base *C.gd_array, data unsafe.Pointer, shape, strides []int64) (*C.gd_array, error) {
	if len(shape) > dlpack.MaxNDim { // callers refuse first, with their own exception
		return nil, valueErrorf("%d dimensions requested; at most %d are supported", len(shape), dlpack.MaxNDim)
	}
	a := C.gd_array_alloc(C.int32_t(len(shape)))
	if a == nil {
		return nil, errPySet
	}
	C.gd_owner_incref(base.owner)
	a.owner = base.owner
	a.data = (*C.char)(data)
	a.dtype = base.dtype
	a.dtype_index = base.dtype_index
	a.flags = base.flags // read-only, padded and is-copied carry over to views
	a.device_type = base.device_type
	a.device_id = base.device_id
	copy(arrayShape(a), shape)
	copy(arrayStrides(a), strides)
	return a, nil
}

// copyArray returns a new C-contiguous writable Go-owned copy of a.
func copyArray(a *C.gd_array) (*C.gd_array, error) {
	dt := arrayDType(a)
	shape := arrayShape(a)
	out, err := newOwnedArray(dt, shape, false)
	if err != nil {
		return nil, err
	}
	if bits := elemBits(a); bits < 8 {
		// Packed sub-byte arrays are always contiguous: one byte copy.
		nbytes, _ := dlpack.ByteSize(arraySize(a), bits)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(out.data)), nbytes),
			unsafe.Slice((*byte)(unsafe.Pointer(a.data)), nbytes))
	} else if arrayPadded(a) {
		// Padded sub-byte elements (one per byte) are repacked element by element.
		if err := eachPairInSourceOrder(shape, arrayStrides(a), func(from, to int64) error {
			return setElement(out, to, getElement(a, from))
		}); err != nil {
			C.gd_decref(asObject(out))
			return nil, err
		}
	} else {
		copyIntoFresh(unsafe.Pointer(out.data), arrayStrides(out), unsafe.Pointer(a.data),
			arrayStrides(a), shape, bits/8)
	}
	return out, nil
}

// offsetIter yields the element offsets of a strided array in C order.
type offsetIter struct {
	shape, strides, idx []int64
	off                 int64
	started             bool
}

func newOffsetIter(shape, strides []int64) *offsetIter {
	return &offsetIter{shape: shape, strides: strides, idx: make([]int64, len(shape))}
}

func (it *offsetIter) next() int64 {
	if !it.started {
		it.started = true
		return 0
	}
	for k := len(it.shape) - 1; k >= 0; k-- {
		it.idx[k]++
		it.off += it.strides[k]
		if it.idx[k] < it.shape[k] {
			return it.off
		}
		it.off -= it.strides[k] * it.shape[k]
		it.idx[k] = 0
	}
	return it.off
}

//export goCopyArray
func goCopyArray(self *C.PyObject) *C.PyObject {
	out, err := copyArray(toArray(self))
	if err != nil {
		return fail(err)
	}
	out.flags |= C.GD_FLAG_IS_COPIED
	return asObject(out)
}

//export goArrayCopyMethod
func goArrayCopyMethod(self, _ *C.PyObject) *C.PyObject {
	out, err := copyArray(toArray(self))
	if err != nil {
		return fail(err)
	}
	return asObject(out)
}

//export goArrayToReadonly
func goArrayToReadonly(self, _ *C.PyObject) *C.PyObject {
	a := toArray(self)
	v, err := newView(a, unsafe.Pointer(a.data), arrayShape(a), arrayStrides(a))
	if err != nil {
		return fail(err)
	}
	v.flags |= C.GD_FLAG_READ_ONLY
	return asObject(v)
}

//export goArrayReshape
func goArrayReshape(self, args *C.PyObject) *C.PyObject {
	a := toArray(self)
	var spec *C.PyObject = args
	if C.PyTuple_Size(args) == 1 {
		if first := C.gd_tuple_item(args, 0); C.gd_index_check(first) == 0 {
			spec = first // reshape((2, 3)) as well as reshape(2, 3)
		}
	}
	items, n, release := heldItems(spec, dlpack.MaxNDim)
	defer release()
	if n < 0 {
		return fail(typeErrorf("reshape() expects ints or a tuple of ints, not %s", typeName(spec)))
	}
	if n > dlpack.MaxNDim {
		return fail(valueErrorf("reshape(): %d dimensions requested; at most %d are supported", n, dlpack.MaxNDim))
	}
	shape := make([]int64, len(items))
	infer := -1
	known := int64(1)
	for i, it := range items {
		v, err := asInt64(it, "reshape() dimension")
		if err != nil {
			return fail(err)
		}
		switch {
		case v == -1 && infer < 0:
			infer = i
		case v == -1:
			return fail(valueErrorf("reshape(): can only specify one unknown dimension"))
		case v < 0:
			return fail(valueErrorf("reshape(): negative dimension %d", v))
		default:
			shape[i] = v
			if k, err := dlpack.NumElements([]int64{known, v}); err == nil {
				known = k
			} else {
				return fail(valueErrorf("reshape(): shape %v overflows", shape))
			}
		}
	}
	size := arraySize(a)
	if infer >= 0 {
		if known == 0 || size%known != 0 {
			return fail(valueErrorf("cannot reshape array of size %d into shape with %d unknown", size, 1))
		}
		shape[infer] = size / known
	} else if known != size {
		return fail(valueErrorf("cannot reshape array of size %d into shape %v", size, shape))
	}
	if !dlpack.IsCContiguous(arrayShape(a), arrayStrides(a)) {
		return fail(valueErrorf("reshape() of a non-contiguous array needs a copy: call .copy().reshape(...)"))
	}
	v, err := newView(a, unsafe.Pointer(a.data), shape, dlpack.ContiguousStrides(shape))
	if err != nil {
		return fail(err)
	}
	return asObject(v)
}

//export goArrayGet_dtype
func goArrayGet_dtype(self *C.PyObject, _ unsafe.Pointer) *C.PyObject {
	dt := arrayDType(toArray(self))
	if dtypeObjects == nil { // the extension used without its Python package
		cs := C.CString(dt.Name)
		defer C.free(unsafe.Pointer(cs))
		return C.PyUnicode_FromString(cs)
	}
	o := dtypeObjects[dt.Index]
	C.gd_incref(o)
	return o
}

//export goArrayGet_nbytes
func goArrayGet_nbytes(self *C.PyObject, _ unsafe.Pointer) *C.PyObject {
	a := toArray(self)
	if n, err := dlpack.ByteSize(arraySize(a), elemBits(a)); err == nil {
		return newInt(n)
	}
	// A broadcast (stride-0) view may describe more bytes than int64 counts: its
	// nbytes is still the exact product, as a Python int.
	nb := new(big.Int).Mul(big.NewInt(arraySize(a)), big.NewInt(int64(elemBits(a))))
	nb.Add(nb, big.NewInt(7)).Rsh(nb, 3)
	cs := C.CString(nb.String())
	defer C.free(unsafe.Pointer(cs))
	return C.PyLong_FromString(cs, nil, 10)
}

//export goArrayGet_flags
func goArrayGet_flags(self *C.PyObject, _ unsafe.Pointer) *C.PyObject {
	a := toArray(self)
	d := C.PyDict_New()
	if d == nil {
		return nil
	}
	set := func(name string, v bool) bool {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		b := C.gd_bool(0)
		if v {
			b = C.gd_bool(1)
		}
		rc := C.PyDict_SetItemString(d, cs, b)
		C.gd_decref(b)
		return rc == 0
	}
	ok := set("readonly", arrayReadOnly(a)) &&
		set("is_copied", a.flags&C.GD_FLAG_IS_COPIED != 0) &&
		set("c_contiguous", dlpack.IsCContiguous(arrayShape(a), arrayStrides(a))) &&
		set("owndata", a.owner.kind == C.GD_OWNER_OWNED || C.gd_owner_made_by_go(a.owner) != 0) &&
		set("subbyte_padded", arrayPadded(a))
	if !ok {
		C.gd_decref(d)
		return nil
	}
	return d
}
