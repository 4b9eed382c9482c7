//go:build godlpack_python

package arraymodule

// pyapi.go: the thin layer between Go and CPython's C API: raising exceptions from
// Go errors, argument parsing (PyArg_Parse* is variadic, which cgo cannot call),
// and conversions between Python objects and Go values.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/cpython"
)

var (
	errPySet       = cpython.ErrPySet
	typeErrorf     = cpython.TypeErrorf
	valueErrorf    = cpython.ValueErrorf
	bufferErrorf   = cpython.BufferErrorf
	indexErrorf    = cpython.IndexErrorf
	overflowErrorf = cpython.OverflowErrorf
	memoryErrorf   = cpython.MemoryErrorf
	setError       = cpython.SetError
	pyCheck        = cpython.PyCheck
)

// fail sets err as the Python exception and returns NULL, for method bodies.
func fail(err error) *C.PyObject {
	setError(err)
	return nil
}

// parseArgs binds positional args and keywords to names, like a tiny
// PyArg_ParseTupleAndKeywords. The values are new references, dropped by
// release: a keyword's value is held only by the kwargs dict, which Python code
// run later in the call (an __index__) could reach and clear. nil means absent.
func parseArgs(fname string, args, kwargs *C.PyObject, names []string, required int) (
	out []*C.PyObject, release func(), err error) {
	out = make([]*C.PyObject, len(names))
	release = func() {
		for _, o := range out {
			if o != nil {
				C.gd_decref(o)
			}
		}
	}
	var n int
	if args != nil {
		n = int(C.PyTuple_Size(args))
	}
	if n > len(names) {
		return nil, func() {}, typeErrorf("%s() takes at most %d arguments (%d given)", fname, len(names), n)
	}
	for i := 0; i < n; i++ {
		out[i] = C.gd_seq_item_new(args, C.Py_ssize_t(i))
	}
	if kwargs != nil && C.PyDict_Size(kwargs) > 0 {
		var pos C.Py_ssize_t
		var key, val *C.PyObject
		// No Python code runs in this loop (keys are compared as UTF-8), so the
		// dict cannot change under PyDict_Next.
		for C.PyDict_Next(kwargs, &pos, &key, &val) != 0 {
			name, err := goString(key)
			if err != nil {
				release()
				return nil, func() {}, err
			}
			found := false
			for i, want := range names {
				if name == want {
					if out[i] != nil {
						release()
						return nil, func() {}, typeErrorf("%s() got multiple values for argument '%s'", fname, name)
					}
					C.gd_incref(val)
					out[i] = val
					found = true
				}
			}
			if !found {
				release()
				return nil, func() {}, typeErrorf("%s() got an unexpected keyword argument '%s'", fname, name)
			}
		}
	}
	for i := 0; i < required; i++ {
		if out[i] == nil {
			release()
			return nil, func() {}, typeErrorf("%s() missing required argument '%s'", fname, names[i])
		}
	}
	return out, release, nil
}

// maxGoString bounds what goString and typeName copy onto the Go heap: they
// serve names (keywords, dtypes, types) and error messages, and a hostile
// gigabyte string must not become a Go allocation that can only fail fatally.
const maxGoString = 4096

// goString copies a str into Go, cut to maxGoString bytes (with "..." added):
// no name godlpack compares against is that long, so a cut one matches nothing.
func goString(o *C.PyObject) (string, error) {
	if C.gd_unicode_check(o) == 0 {
		return "", typeErrorf("expected str, got %s", typeName(o))
	}
	var size C.Py_ssize_t
	p := C.PyUnicode_AsUTF8AndSize(o, &size)
	if p == nil {
		return "", errPySet
	}
	if size > maxGoString {
		return C.GoStringN(p, maxGoString) + "...", nil
	}
	return C.GoStringN(p, C.int(size)), nil
}

func typeName(o *C.PyObject) string { return cpython.TypeName(unsafe.Pointer(o)) }

// boundedCString copies a C string that Python code chose (a type's or a
// capsule's name) into Go, cut as goString cuts.
func boundedCString(p *C.char) string { return cpython.BoundedCString(unsafe.Pointer(p)) }

func asInt64(o *C.PyObject, what string) (int64, error) {
	return cpython.AsInt64(unsafe.Pointer(o), what)
}

func newInt(v int64) *C.PyObject { return C.PyLong_FromLongLong(C.longlong(v)) }

// int64Tuple builds a tuple of ints; nil on error with the exception set.
func int64Tuple(vals []int64) *C.PyObject {
	t := C.PyTuple_New(C.Py_ssize_t(len(vals)))
	if t == nil {
		return nil
	}
	for i, v := range vals {
		item := newInt(v)
		if item == nil {
			C.gd_decref(t)
			return nil
		}
		C.gd_tuple_set(t, C.Py_ssize_t(i), item)
	}
	return t
}

// isSequence reports a tuple or list, the containers godlpack reads as sequences.
func isSequence(o *C.PyObject) bool {
	return C.gd_tuple_check(o) != 0 || C.gd_list_check(o) != 0
}

// heldItems returns the items of a tuple or list of at most limit items, each as a
// new reference that release drops. Reading an item may run Python code
// (__index__, __float__) that changes the list and frees what it held: borrowed
// items would then dangle, held ones cannot. No Python code runs between reading
// the length and taking the references. A longer sequence yields no items, only
// its length n, so that nothing the size of a hostile input is allocated.
func heldItems(o *C.PyObject, limit int) (items []*C.PyObject, n int, release func()) {
	release = func() {}
	switch {
	case C.gd_tuple_check(o) != 0:
		n = int(C.PyTuple_Size(o))
	case C.gd_list_check(o) != 0:
		n = int(C.PyList_Size(o))
	default:
		return nil, -1, release
	}
	if n > limit {
		return nil, n, release
	}
	items = make([]*C.PyObject, n)
	for i := range items {
		// Another thread may shorten a list meanwhile (free-threaded builds): the
		// items held until then are the sequence read.
		if items[i] = C.gd_seq_item_new(o, C.Py_ssize_t(i)); items[i] == nil {
			C.PyErr_Clear()
			items, n = items[:i], i
			break
		}
	}
	release = func() {
		for _, it := range items {
			C.gd_decref(it)
		}
	}
	return items, n, release
}

// parseShape accepts an int or a tuple or list of ints.
func parseShape(o *C.PyObject) ([]int64, error) {
	items, n, release := heldItems(o, dlpack.MaxNDim)
	defer release()
	if n < 0 {
		if C.gd_index_check(o) == 0 {
			return nil, typeErrorf("shape must be an int or a tuple of ints, not %s", typeName(o))
		}
		items = []*C.PyObject{o}
	}
	if n > dlpack.MaxNDim {
		return nil, valueErrorf("shape has %d dimensions; at most %d are supported", n, dlpack.MaxNDim)
	}
	shape := make([]int64, len(items))
	for i, it := range items {
		v, err := asInt64(it, "shape entry")
		if err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, valueErrorf("negative dimensions are not allowed (shape entry %d is %d)", i, v)
		}
		shape[i] = v
	}
	return shape, nil
}

// scalarToPy converts a core scalar to a new Python object.
func scalarToPy(s dlpack.Scalar) *C.PyObject {
	switch s.Kind {
	case dlpack.KindBool:
		if s.B {
			return C.gd_bool(1)
		}
		return C.gd_bool(0)
	case dlpack.KindInt:
		return C.PyLong_FromLongLong(C.longlong(s.I))
	case dlpack.KindUint:
		return C.PyLong_FromUnsignedLongLong(C.ulonglong(s.U))
	case dlpack.KindFloat:
		return C.PyFloat_FromDouble(C.double(s.F))
	default:
		return C.PyComplex_FromDoubles(C.double(real(s.C)), C.double(imag(s.C)))
	}
}

// pyToScalar converts a Python number (or numpy scalar) to a core scalar.
func pyToScalar(o *C.PyObject) (dlpack.Scalar, error) {
	switch {
	case C.gd_bool_check(o) != 0:
		return dlpack.Scalar{Kind: dlpack.KindBool, B: C.gd_is_true(o) != 0}, nil
	case C.gd_long_check(o) != 0:
		return pyIntToScalar(o)
	case C.gd_index_check(o) != 0 && C.gd_float_check(o) == 0:
		// A 0-d float tensor (PyTorch) has an __index__ that refuses with TypeError;
		// its __float__ or __complex__ then gives the value, as NumPy finds it.
		numeric, err := hasEitherAttr(o, "__float__", "__complex__")
		if err != nil {
			return dlpack.Scalar{}, err
		}
		s, err := pyIntToScalar(o)
		if err != errPySet || !numeric || C.gd_error_is_type_error() == 0 {
			return s, err
		}
		C.PyErr_Clear()
	case C.gd_float_check(o) != 0:
		return dlpack.Scalar{Kind: dlpack.KindFloat, F: float64(C.PyFloat_AsDouble(o))}, nil
	case C.gd_complex_check(o) != 0:
		return dlpack.Scalar{Kind: dlpack.KindComplex,
			C: complex(float64(C.PyComplex_RealAsDouble(o)), float64(C.PyComplex_ImagAsDouble(o)))}, nil
	}
	// Other numbers (numpy floating/complex/bool scalars): via complex() or float().
	hasComplex, err := hasAttr(o, "__complex__")
	if err != nil {
		return dlpack.Scalar{}, err
	}
	hasFloat, err := hasAttr(o, "__float__")
	if err != nil {
		return dlpack.Scalar{}, err
	}
	if hasComplex && !hasFloat {
		c := C.PyComplex_AsCComplex(o)
		if err := pyCheck(); err != nil {
			return dlpack.Scalar{}, err
		}
		return dlpack.Scalar{Kind: dlpack.KindComplex, C: complex(float64(c.real), float64(c.imag))}, nil
	}
	if typeName(o) == "numpy.bool" || typeName(o) == "numpy.bool_" {
		t := C.PyObject_IsTrue(o)
		if t < 0 {
			return dlpack.Scalar{}, errPySet
		}
		return dlpack.Scalar{Kind: dlpack.KindBool, B: t == 1}, nil
	}
	if hasFloat {
		f := C.PyFloat_AsDouble(o)
		if err := pyCheck(); err != nil {
			return dlpack.Scalar{}, err
		}
		// By type name only: asking a 0-d PyTorch tensor for .imag raises.
		if hasComplex && isComplexNumber(o) {
			c := C.PyComplex_AsCComplex(o)
			if err := pyCheck(); err != nil {
				return dlpack.Scalar{}, err
			}
			return dlpack.Scalar{Kind: dlpack.KindComplex, C: complex(float64(c.real), float64(c.imag))}, nil
		}
		return dlpack.Scalar{Kind: dlpack.KindFloat, F: float64(f)}, nil
	}
	return dlpack.Scalar{}, typeErrorf("expected a number, got %s", typeName(o))
}

func isComplexNumber(o *C.PyObject) bool {
	n := typeName(o)
	return n == "numpy.complex64" || n == "numpy.complex128" || n == "numpy.clongdouble"
}

func pyIntToScalar(o *C.PyObject) (dlpack.Scalar, error) {
	idx := C.PyNumber_Index(o)
	if idx == nil {
		return dlpack.Scalar{}, errPySet
	}
	defer C.gd_decref(idx)
	var overflow C.int
	v := C.PyLong_AsLongLongAndOverflow(idx, &overflow)
	if overflow == 0 {
		if v == -1 {
			if err := pyCheck(); err != nil {
				return dlpack.Scalar{}, err
			}
		}
		return dlpack.Scalar{Kind: dlpack.KindInt, I: int64(v)}, nil
	}
	if overflow > 0 {
		u := C.PyLong_AsUnsignedLongLong(idx)
		if C.PyErr_Occurred() == nil {
			return dlpack.Scalar{Kind: dlpack.KindUint, U: uint64(u)}, nil
		}
		C.PyErr_Clear()
	}
	r := C.PyObject_Repr(idx)
	if r == nil {
		return dlpack.Scalar{}, errPySet
	}
	s, _ := goString(r)
	C.gd_decref(r)
	return dlpack.Scalar{}, overflowErrorf("Python integer %s out of bounds for any supported dtype", s)
}

// hasAttr reports whether o has the attribute; an error other than AttributeError
// raised looking it up is returned (gd_has_attr_string), not swallowed.
func hasAttr(o *C.PyObject, name string) (bool, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	switch C.gd_has_attr_string(o, cs) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, errPySet
}

// hasEitherAttr reports whether o has attribute a or b, asking b only if o has no a.
func hasEitherAttr(o *C.PyObject, a, b string) (bool, error) {
	if has, err := hasAttr(o, a); has || err != nil {
		return has, err
	}
	return hasAttr(o, b)
}
