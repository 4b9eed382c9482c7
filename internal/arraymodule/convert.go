//go:build godlpack_python

package arraymodule

// convert.go: arrays from Python data (nested sequences, scalars, buffer-protocol
// objects, other Arrays) and back to Python (tolist, repr).

// #include "arraymodule.h"
import "C"

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/godlpack/godlpack/arrayfmt"
	"github.com/godlpack/godlpack/dlpack"
)

// arrayFrom returns a new reference to an Array holding obj's values as dt (or the
// inferred dtype when dt is nil). An Array of the right dtype is returned itself.
func arrayFrom(obj *C.PyObject, dt *dlpack.DType) (*C.gd_array, error) {
	if isArray(obj) {
		a := toArray(obj)
		if dt == nil || int(a.dtype_index) == dt.Index {
			C.gd_incref(obj)
			return a, nil
		}
		return convertArray(a, dt)
	}
	if !isSequence(obj) && C.PyObject_CheckBuffer(obj) != 0 {
		a, err := fromBuffer(obj)
		if err != nil || dt == nil || int(a.dtype_index) == dt.Index {
			return a, err
		}
		defer C.gd_decref(asObject(a))
		return convertArray(a, dt)
	}
	return fromNested(obj, dt)
}

// convertArray copies a into a new contiguous array of dtype dt, element by element,
// in a's memory order.
func convertArray(a *C.gd_array, dt *dlpack.DType) (*C.gd_array, error) {
	out, err := newOwnedArray(dt, arrayShape(a), false)
	if err != nil {
		return nil, err
	}
	if err := eachPairInSourceOrder(arrayShape(a), arrayStrides(a), func(from, to int64) error {
		return setElement(out, to, getElement(a, from))
	}); err != nil {
		C.gd_decref(asObject(out))
		return nil, err
	}
	return out, nil
}

// bufferFormats maps struct-module format codes to dtype names.
var bufferFormats = map[string]string{
	"?": "bool", "b": "int8", "B": "uint8", "c": "uint8", "h": "int16", "H": "uint16",
	"i": "int32", "I": "uint32", "l": "int64", "L": "uint64", "q": "int64", "Q": "uint64",
	"n": "int64", "N": "uint64", "e": "float16", "f": "float32", "d": "float64",
	"Zf": "complex64", "Zd": "complex128",
}

// fromBuffer copies a buffer-protocol object (bytes, array.array, memoryview,
// NumPy arrays...) into a new Go-owned array.
func fromBuffer(obj *C.PyObject) (*C.gd_array, error) {
	// The Py_buffer lives in C memory: exporters may point its shape at its own
	// len field (PyBuffer_FillInfo does), which in Go memory would be a Go
	// pointer to a Go pointer handed to C.
	pview := (*C.Py_buffer)(C.calloc(1, C.sizeof_Py_buffer))
	if pview == nil {
		return nil, memoryErrorf("out of memory")
	}
	defer C.free(unsafe.Pointer(pview))
	if C.PyObject_GetBuffer(obj, pview, C.PyBUF_RECORDS_RO) < 0 {
		return nil, errPySet
	}
	defer C.PyBuffer_Release(pview)
	view := pview
	format := "B"
	if view.format != nil {
		format = C.GoString(view.format)
	}
	if len(format) > 1 && (format[0] == '@' || format[0] == '=' || format[0] == '<') {
		format = format[1:]
	}
	name, ok := bufferFormats[format]
	if !ok {
		return nil, bufferErrorf("unsupported buffer format %q (big-endian or structured data cannot be imported)", format)
	}
	dt := mustDType(name)
	if int(view.itemsize) != dt.ItemSize() {
		return nil, bufferErrorf("buffer format %q has itemsize %d, expected %d", format, view.itemsize, dt.ItemSize())
	}
	nd := int(view.ndim)
	if nd < 0 || nd > dlpack.MaxNDim { // an exporter in C may say anything
		return nil, bufferErrorf("buffer has %d dimensions; at most %d are supported", nd, dlpack.MaxNDim)
	}
	shape := make([]int64, nd)
	byteStrides := make([]int64, nd)
	for i := 0; i < nd; i++ {
		shape[i] = int64(*(*C.Py_ssize_t)(unsafe.Add(unsafe.Pointer(view.shape), i*C.sizeof_Py_ssize_t)))
		if view.strides != nil {
			byteStrides[i] = int64(*(*C.Py_ssize_t)(unsafe.Add(unsafe.Pointer(view.strides), i*C.sizeof_Py_ssize_t)))
		}
	}
	if view.strides == nil {
		for i, s := range dlpack.ContiguousStrides(shape) {
			byteStrides[i] = s * int64(view.itemsize)
		}
	}
	a, err := newOwnedArray(dt, shape, false)
	if err != nil {
		return nil, err
	}
	// Copy bytes with one more dimension for the bytes of an element, so any byte
	// strides work, aligned to the element size or not.
	item := int64(view.itemsize)
	dstStrides := append(dlpack.ContiguousStrides(shape), 1)
	for i := range shape {
		dstStrides[i] *= item
	}
	copyIntoFresh(unsafe.Pointer(a.data), dstStrides, unsafe.Pointer(view.buf),
		append(byteStrides, 1), append(shape, item), 1)
	return a, nil
}

// The C walker reports kinds with dlpack.Kind's values: these fail to compile if
// the two enumerations ever disagree.
var (
	_ [int(C.GD_KIND_BOOL) - int(dlpack.KindBool)]struct{}
	_ [int(dlpack.KindBool) - int(C.GD_KIND_BOOL)]struct{}
	_ [int(C.GD_KIND_INT) - int(dlpack.KindInt)]struct{}
	_ [int(dlpack.KindInt) - int(C.GD_KIND_INT)]struct{}
	_ [int(C.GD_KIND_UINT) - int(dlpack.KindUint)]struct{}
	_ [int(dlpack.KindUint) - int(C.GD_KIND_UINT)]struct{}
	_ [int(C.GD_KIND_FLOAT) - int(dlpack.KindFloat)]struct{}
	_ [int(dlpack.KindFloat) - int(C.GD_KIND_FLOAT)]struct{}
	_ [int(C.GD_KIND_COMPLEX) - int(dlpack.KindComplex)]struct{}
	_ [int(dlpack.KindComplex) - int(C.GD_KIND_COMPLEX)]struct{}
)

// maxElements bounds the elements of any array: more than 2^47 (of one byte or
// more) cannot fit in the 47-bit user address space of today's 64-bit machines.
const maxElements = 1 << 47

// fromNested converts nested lists/tuples of Python scalars (or one scalar). The
// shape is read first, the dtype inferred if dt is nil, and the values are then
// converted straight into the new array's C memory by convert.c: nothing the size
// of the input is allocated in Go, so a big list costs its result and no more.
func fromNested(obj *C.PyObject, dt *dlpack.DType) (*C.gd_array, error) {
	var shapeBuf [dlpack.MaxNDim]int64
	nd := int(C.gd_nested_shape(obj, (*C.int64_t)(unsafe.Pointer(&shapeBuf[0]))))
	if nd < 0 {
		return nil, errPySet
	}
	shape := shapeBuf[:nd]
	// Lists that hold the same list many times can describe more elements than
	// memory holds: refuse before walking them.
	n, err := dlpack.NumElements(shape)
	if err != nil || n > maxElements {
		return nil, memoryErrorf("cannot allocate an array of shape %v: more elements than memory can hold", shape)
	}
	// A free-threaded build converts a copy of obj's lists taken at one instant (the
	// GIL's guarantee, which the walks below rely on); a GIL build gets obj itself.
	snap := C.gd_nested_snapshot(obj, 0)
	if snap == nil {
		return nil, errPySet
	}
	defer C.gd_decref(snap)
	if snap != obj {
		obj = snap
		if nd = int(C.gd_nested_shape(obj, (*C.int64_t)(unsafe.Pointer(&shapeBuf[0])))); nd < 0 {
			return nil, errPySet
		}
		shape = shapeBuf[:nd]
		if n, err = dlpack.NumElements(shape); err != nil || n > maxElements {
			return nil, memoryErrorf("cannot allocate an array of shape %v: more elements than memory can hold", shape)
		}
	}
	if nd == 0 {
		s, err := pyToScalar(obj)
		if err != nil {
			return nil, err
		}
		if dt == nil {
			dt = inferDType(s.Kind, s.Kind == dlpack.KindInt, 1)
		}
		a, err := newOwnedArray(dt, nil, false)
		if err == nil {
			if err = setElement(a, 0, s); err != nil {
				C.gd_decref(asObject(a))
				return nil, err
			}
		}
		return a, err
	}
	if dt == nil {
		var kind, signed C.int
		if C.gd_nested_kind(obj, (*C.int64_t)(unsafe.Pointer(&shapeBuf[0])), C.int(nd), &kind, &signed) < 0 {
			return nil, errPySet
		}
		dt = inferDType(dlpack.Kind(kind), signed != 0, n)
	}
	a, err := newOwnedArray(dt, shape, false)
	if err != nil {
		return nil, err
	}
	if C.gd_nested_fill(obj, a) < 0 {
		C.gd_decref(asObject(a))
		return nil, errPySet
	}
	return a, nil
}

// goScalarKind is convert.c's way to ask for the kind of an item it does not
// recognise (numpy scalars, big ints, objects with __float__...). The caller holds
// item. It returns the dlpack.Kind, or -1 with a Python exception set.
//
//export goScalarKind
func goScalarKind(item *C.PyObject) C.int {
	s, err := pyToScalar(item)
	if err != nil {
		setError(err)
		return -1
	}
	return C.int(s.Kind)
}

// goStoreItem converts item (held by the caller) into element i of a, for the
// items and dtypes convert.c leaves to the Go rules. 0, or -1 with an exception set.
//
//export goStoreItem
func goStoreItem(a *C.gd_array, i C.int64_t, item *C.PyObject) C.int {
	s, err := pyToScalar(item)
	if err == nil {
		err = setElement(a, int64(i), s)
	}
	if err != nil {
		setError(err)
		return -1
	}
	return 0
}

// goStagesFloats reports whether convert.c should stage a's exact Python floats
// for goStoreFloats: the floating dtypes C does not encode itself (float16,
// bfloat16, the float8/6/4 formats), which otherwise cost one crossing per item.
//
//export goStagesFloats
func goStagesFloats(a *C.gd_array) C.int {
	d := arrayDType(a)
	if d.Kind != dlpack.KindFloat || (d.DL.Code == dlpack.CodeFloat && d.DL.Bits >= 32) {
		return 0
	}
	return 1
}

// goStoreFloats encodes vals[0..n), the values of exact Python floats read by
// convert.c, into elements start.. of a: one crossing per chunk, with the same
// rule (dlpack.DType.Set of a float) goStoreItem applies to each of them.
// vals is C memory. 0, or -1 with an exception set.
//
//export goStoreFloats
func goStoreFloats(a *C.gd_array, start C.int64_t, vals *C.double, n C.int64_t) C.int {
	for j, v := range unsafe.Slice((*float64)(unsafe.Pointer(vals)), int(n)) {
		if err := setElement(a, int64(start)+int64(j), dlpack.Scalar{Kind: dlpack.KindFloat, F: v}); err != nil {
			setError(err)
			return -1
		}
	}
	return 0
}

// inferDType picks NumPy's dtype for n Python scalars whose largest kind is kind
// (signed: some integer fit int64): bool, int64, uint64 when every integer only
// fits there, float64 (NumPy promotes int64 with uint64 to float64) or complex128.
func inferDType(kind dlpack.Kind, signed bool, n int64) *dlpack.DType {
	if n == 0 {
		return mustDType("float64")
	}
	switch kind {
	case dlpack.KindBool:
		return mustDType("bool")
	case dlpack.KindInt:
		return mustDType("int64")
	case dlpack.KindUint:
		if signed {
			return mustDType("float64")
		}
		return mustDType("uint64")
	case dlpack.KindFloat:
		return mustDType("float64")
	default:
		return mustDType("complex128")
	}
}

//export goArrayTolist
func goArrayTolist(self, _ *C.PyObject) *C.PyObject {
	a := toArray(self)
	if err := tolistFits(a); err != nil {
		return fail(err)
	}
	if C.gd_tolist_fast_ok(a) != 0 {
		return C.gd_tolist(a) // the common dtypes, without a crossing per element
	}
	return tolist(a, 0, 0, new(rowBuffer))
}

// tolistFits refuses, before any list is made, a tolist whose lists' item pointers
// alone (one per element, one per inner list) need more than this machine's memory:
// a broadcast view describes any number of elements. Left to the allocator, the
// free-threaded build's (mimalloc) reserves such an array without committing it and
// PyList_New's zeroing then runs the process into the OOM killer; NumPy raises
// MemoryError here too.
func tolistFits(a *C.gd_array) error {
	shape := arrayShape(a)
	items, lists := uint64(0), uint64(1) // item slots so far; lists at this depth
	for _, n := range shape {
		hi, lo := bits.Mul64(lists, uint64(n))
		if hi != 0 || lo > math.MaxInt64/8 {
			items = math.MaxUint64
			break
		}
		lists = lo
		if items += lo; items > math.MaxInt64/8 {
			break
		}
	}
	if items < 1<<27 { // 1 GiB of pointers or less: not worth a system call
		return nil
	}
	mem := uint64(C.gd_physical_memory())
	if mem == 0 || items <= mem/8 {
		return nil
	}
	return memoryErrorf("tolist() of a %v array needs more than %d item pointers, "+
		"more than this machine's %d bytes of memory; convert a slice of it", shape, items, mem)
}

func tolist(a *C.gd_array, dim int, off int64, buf *rowBuffer) *C.PyObject {
	shape, strides := arrayShape(a), arrayStrides(a)
	if dim == len(shape) {
		return scalarToPy(getElement(a, off))
	}
	if dim == len(shape)-1 {
		return rowToList(a, off, shape[dim], strides[dim], buf)
	}
	l := C.gd_list_new(C.Py_ssize_t(shape[dim]))
	if l == nil {
		return nil
	}
	for i := int64(0); i < shape[dim]; i++ {
		item := tolist(a, dim+1, off+i*strides[dim], buf)
		if item == nil {
			C.gd_decref(l)
			return nil
		}
		C.gd_list_set(l, C.Py_ssize_t(i), item)
	}
	return l
}

// rowToList converts the innermost row of n elements starting at offset off, for
// the dtypes convert.c's gd_tolist does not decode (float16, bfloat16, float8...,
// padded and packed sub-byte): Go decodes the row a chunk at a time into a fixed
// buffer of float64 that C turns into Python objects in one call, instead of two
// cgo calls an element (4x NumPy's tolist). The list is made first, so a row
// longer than memory (a broadcast view) is a MemoryError (tolistFits, gd_list_new), and the Go
// buffer never grows with the row (docs/internals/python-safety.md, rule 2).
func rowToList(a *C.gd_array, off, n, stride int64, buf *rowBuffer) *C.PyObject {
	kind := arrayDType(a).Kind
	if kind != dlpack.KindFloat && kind != dlpack.KindComplex {
		return rowToListByElement(a, off, n, stride)
	}
	l := C.gd_list_new(C.Py_ssize_t(n))
	if l == nil {
		return nil
	}
	complexPairs := C.int(0)
	if kind == dlpack.KindComplex {
		complexPairs = 1
	}
	for start := int64(0); start < n; start += rowChunk {
		m := min(rowChunk, n-start)
		for i := int64(0); i < m; i++ {
			e := getElement(a, off+(start+i)*stride)
			if kind == dlpack.KindFloat {
				buf[i] = e.F
			} else {
				buf[2*i], buf[2*i+1] = real(e.C), imag(e.C)
			}
		}
		if C.gd_doubles_into_list(l, C.int64_t(start), (*C.double)(unsafe.Pointer(&buf[0])), C.int64_t(m), complexPairs) < 0 {
			C.gd_decref(l)
			return nil
		}
	}
	return l
}

// rowChunk is how many elements rowToList decodes per crossing into C.
const rowChunk = 256

// rowBuffer holds one chunk of a row: floats, or (re, im) pairs. One serves a
// whole tolist call.
type rowBuffer [2 * rowChunk]float64

func rowToListByElement(a *C.gd_array, off, n, stride int64) *C.PyObject {
	l := C.gd_list_new(C.Py_ssize_t(n))
	if l == nil {
		return nil
	}
	for i := int64(0); i < n; i++ {
		item := scalarToPy(getElement(a, off+i*stride))
		if item == nil {
			C.gd_decref(l)
			return nil
		}
		C.gd_list_set(l, C.Py_ssize_t(i), item)
	}
	return l
}

// maxReprShown bounds the elements one repr prints (~200 bytes of Go heap each
// while it is made): only short axes are shown whole past NumPy's threshold, so
// only broadcast views and arrays of many short axes come near it.
const maxReprShown = 1 << 22

//export goArrayRepr
func goArrayRepr(self *C.PyObject) *C.PyObject {
	a := toArray(self)
	shape := arrayShape(a)
	strides := arrayStrides(a)
	if n := arrayfmt.Shown(shape); n > maxReprShown {
		// Repr holds every shown element and its text on the Go heap, whose
		// exhaustion is a fatal error: NumPy's repr is MemoryError here too.
		return fail(memoryErrorf("repr() of a %v array would print %d elements (at most %d); print a slice of it",
			shape, n, maxReprShown))
	}
	// get(flat) maps a C-order element number to its strided offset.
	get := func(flat int64) dlpack.Scalar {
		off := int64(0)
		for d := len(shape) - 1; d >= 0; d-- {
			off += (flat % shape[d]) * strides[d]
			flat /= shape[d]
		}
		return getElement(a, off)
	}
	s := arrayfmt.Repr("Array", arrayDType(a), shape, get)
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return C.PyUnicode_FromString(cs)
}
