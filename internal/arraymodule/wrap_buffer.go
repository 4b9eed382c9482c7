//go:build godlpack_python

package arraymodule

// wrap_buffer.go: Arrays over memory that a Python buffer owns, without a copy
// (godlpack._godlpack._wrap_buffer), and the raw views pickling needs
// (Array._bytes, Array._bits_as, Array._keep). Loading a pickle runs this on
// whatever bytes the pickle holds, so every size and layout is checked against the
// buffer before an Array may read it.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// wrapBufferArgs are _wrap_buffer's arguments, in order.
var wrapBufferArgs = []string{"buffer", "dtype", "shape", "strides", "offset", "readonly", "keep", "own_bytes"}

// ownBytesMin is the smallest bytes object that own_bytes writes into: short bytes
// are copied instead (cheap), and CPython shares its empty and one-byte bytes objects.
const ownBytesMin = 1000

//export goWrapBuffer
func goWrapBuffer(_, args, kwargs *C.PyObject) *C.PyObject {
	a, err := wrapBuffer(args, kwargs)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

func wrapBuffer(args, kwargs *C.PyObject) (*C.gd_array, error) {
	v, release, err := parseArgs("_wrap_buffer", args, kwargs, wrapBufferArgs, 3)
	defer release()
	if err != nil {
		return nil, err
	}
	dt, err := requiredDType("_wrap_buffer", v[1])
	if err != nil {
		return nil, err
	}
	if C.gd_tuple_check(v[2]) == 0 {
		return nil, typeErrorf("_wrap_buffer(): shape must be a tuple of ints, not %s", typeName(v[2]))
	}
	shape, err := parseShape(v[2])
	if err != nil {
		return nil, err
	}
	var strides []int64
	if v[3] != nil && C.gd_is_none(v[3]) == 0 {
		if strides, err = parseStrides(v[3], len(shape)); err != nil {
			return nil, err
		}
	}
	offset := int64(0)
	if v[4] != nil {
		if offset, err = asInt64(v[4], "offset"); err != nil {
			return nil, err
		}
		if offset < 0 {
			return nil, valueErrorf("_wrap_buffer(): negative offset %d", offset)
		}
	}
	readonly := false
	if v[5] != nil {
		t := C.PyObject_IsTrue(v[5])
		if t < 0 {
			return nil, errPySet
		}
		readonly = t == 1
	}
	keep := v[6]
	if keep != nil && C.gd_is_none(keep) != 0 {
		keep = nil
	}
	writable := C.int(1)
	if readonly {
		writable = 0
	}
	owner := C.gd_owner_new_pybuffer(v[0], writable, keep)
	if owner == nil {
		return nil, errPySet
	}
	view := C.gd_owner_pybuffer_view(owner)
	if ownsBytes(v[7], v[0], int64(view.len)) {
		view.readonly = 0
	}
	if err := checkExtent(dt, shape, strides, offset, int64(view.len)); err != nil {
		C.gd_owner_decref(owner)
		return nil, err
	}
	if strides == nil {
		strides = dlpack.ContiguousStrides(shape)
	}
	a := C.gd_array_alloc(C.int32_t(len(shape)))
	if a == nil {
		C.gd_owner_decref(owner)
		return nil, errPySet
	}
	a.owner = owner
	a.data = (*C.char)(unsafe.Add(view.buf, offset))
	setDType(a, dt)
	if readonly || view.readonly != 0 {
		a.flags |= C.GD_FLAG_READ_ONLY
	}
	copy(arrayShape(a), shape)
	copy(arrayStrides(a), strides)
	return a, nil
}

// ownsBytes reports an own_bytes request that applies: a protocol 2-4 pickle carries
// an array's elements as a bytes object that the unpickler made and that only the
// new array uses, so the array may write into it rather than copy it, as NumPy's
// __setstate__ does for large bytes. Truthiness errors count as false.
func ownsBytes(flag, buf *C.PyObject, size int64) bool {
	if flag == nil || C.PyObject_IsTrue(flag) != 1 {
		C.PyErr_Clear()
		return false
	}
	return C.gd_bytes_check_exact(buf) != 0 && size >= ownBytesMin
}

// requiredDType is resolveDType for a dtype that has no default: a pickle's payload
// or a caller may hand None (or anything) where the dtype goes.
func requiredDType(fn string, o *C.PyObject) (*dlpack.DType, error) {
	if o == nil || C.gd_is_none(o) != 0 {
		return nil, typeErrorf("%s(): dtype must be a dtype or its name, not None", fn)
	}
	return resolveDType(o, nil)
}

func parseStrides(o *C.PyObject, ndim int) ([]int64, error) {
	items, n, release := heldItems(o, ndim)
	defer release()
	if n < 0 {
		return nil, typeErrorf("_wrap_buffer(): strides must be None or a tuple of ints, not %s", typeName(o))
	}
	if n != ndim {
		return nil, valueErrorf("_wrap_buffer(): strides must be a tuple of %d ints", ndim)
	}
	strides := make([]int64, ndim)
	for i, it := range items {
		s, err := asInt64(it, "stride")
		if err != nil {
			return nil, err
		}
		strides[i] = s
	}
	return strides, nil
}

// checkExtent proves that an array of dt/shape/strides whose element 0 sits at
// offset reads only bytes [0, size) of the buffer. Contiguous arrays (strides nil)
// must fill the rest of the buffer exactly: a pickle names its buffer's size, so a
// different size means the data was damaged.
func checkExtent(dt *dlpack.DType, shape, strides []int64, offset, size int64) error {
	n, err := dlpack.NumElements(shape)
	if err != nil {
		return valueErrorf("_wrap_buffer(): shape %v overflows", shape)
	}
	bits := dt.StorageBits(false)
	if strides == nil {
		need, err := dlpack.ByteSize(n, bits)
		if err != nil {
			return valueErrorf("_wrap_buffer(): shape %v of %s overflows", shape, dt.Name)
		}
		if offset > size || size-offset != need {
			return valueErrorf("buffer has %d bytes after offset %d; a %v %s array needs exactly %d",
				size, offset, shape, dt.Name, need)
		}
		return nil
	}
	if bits < 8 {
		return valueErrorf("_wrap_buffer(): packed %s arrays take no strides", dt.Name)
	}
	lo, hi, err := dlpack.ElementSpan(shape, strides)
	if err != nil {
		return valueErrorf("_wrap_buffer(): strides %v overflow for shape %v", strides, shape)
	}
	if offset > size {
		return valueErrorf("_wrap_buffer(): offset %d is past the buffer's %d bytes", offset, size)
	}
	if hi < lo {
		return nil // empty: no byte is read
	}
	item := int64(bits / 8)
	// offset <= size <= MaxInt64 and the span is checked, so only the products can
	// overflow: bound them by the buffer's size first.
	if lo < -offset/item || hi >= (size-offset)/item {
		return valueErrorf("buffer of %d bytes is too small for a %v %s array with strides %v at offset %d",
			size, shape, dt.Name, strides, offset)
	}
	return nil
}

//export goArrayBytes
func goArrayBytes(self, _ *C.PyObject) *C.PyObject {
	a := toArray(self)
	if arrayPadded(a) || !dlpack.IsCContiguous(arrayShape(a), arrayStrides(a)) {
		return fail(bufferErrorf("_bytes() needs a C-contiguous, unpadded array; copy() it first"))
	}
	nbytes, _ := dlpack.ByteSize(arraySize(a), elemBits(a)) // the array exists: no overflow
	v, err := newView(a, unsafe.Pointer(a.data), []int64{nbytes}, []int64{1})
	if err != nil {
		return fail(err)
	}
	setDType(v, mustDType("uint8"))
	v.flags &^= C.GD_FLAG_SUBBYTE_PADDED
	return asObject(v)
}

//export goArrayBitsAs
func goArrayBitsAs(self, arg *C.PyObject) *C.PyObject {
	a := toArray(self)
	dt, err := requiredDType("_bits_as", arg)
	if err != nil {
		return fail(err)
	}
	// A sub-byte dtype is taken one element a byte (padded, as ml_dtypes stores
	// float6/float4): packed elements share bytes and could not keep a's strides.
	if bits := elemBits(a); bits < 8 || dt.StorageBits(true) != bits {
		return fail(valueErrorf("_bits_as(): %s elements take %d bits in this array, %s takes %d",
			arrayDType(a).Name, bits, dt.Name, dt.StorageBits(true)))
	}
	v, err := newView(a, unsafe.Pointer(a.data), arrayShape(a), arrayStrides(a))
	if err != nil {
		return fail(err)
	}
	setDType(v, dt)
	v.flags &^= C.GD_FLAG_SUBBYTE_PADDED
	if dt.SubByte() {
		v.flags |= C.GD_FLAG_SUBBYTE_PADDED
	}
	return asObject(v)
}

//export goArrayKeep
func goArrayKeep(self, _ *C.PyObject) *C.PyObject {
	k := C.gd_owner_keep(toArray(self).owner)
	if k == nil {
		return C.gd_none()
	}
	C.gd_incref(k)
	return k
}
