package main

// pyapi.go: the thin layer between Go and CPython's C API: raising exceptions from
// Go errors, argument parsing (PyArg_Parse* is variadic, which cgo cannot call),
// and conversions between Python objects and Go values.

// #include "godlpack.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// pyError is a Go error that becomes a Python exception of a given kind.
type pyError struct {
	kind C.int
	msg  string
}

func (e *pyError) Error() string { return e.msg }

// errPySet means a Python exception is already set and must simply propagate.
var errPySet = errors.New("python exception set")

func typeErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_TYPE, fmt.Sprintf(format, a...)}
}
func valueErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_VALUE, fmt.Sprintf(format, a...)}
}
func bufferErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_BUFFER, fmt.Sprintf(format, a...)}
}
func indexErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_INDEX, fmt.Sprintf(format, a...)}
}
func overflowErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_OVERFLOW, fmt.Sprintf(format, a...)}
}
func memoryErrorf(format string, a ...any) error {
	return &pyError{C.GD_ERR_MEMORY, fmt.Sprintf(format, a...)}
}

// setError sets the Python exception that err stands for. Errors of the core map
// to the exception types the DLPack spec and NumPy use.
func setError(err error) {
	if err == errPySet {
		if C.PyErr_Occurred() == nil {
			raiseString(C.GD_ERR_RUNTIME, "godlpack: internal error: lost Python exception")
		}
		return
	}
	var pe *pyError
	var re *dlpack.RangeError
	var te *dlpack.TypeError
	var ve *dlpack.ValidationError
	switch {
	case errors.As(err, &pe):
		raiseString(pe.kind, pe.msg)
	case errors.As(err, &re):
		raiseString(C.GD_ERR_OVERFLOW, re.Msg)
	case errors.As(err, &te):
		raiseString(C.GD_ERR_TYPE, te.Msg)
	case errors.As(err, &ve):
		raiseString(C.GD_ERR_BUFFER, ve.Error())
	default:
		raiseString(C.GD_ERR_RUNTIME, err.Error())
	}
}

func raiseString(kind C.int, msg string) {
	cs := C.CString(msg)
	C.gd_raise(kind, cs)
	C.free(unsafe.Pointer(cs))
}

// fail sets err as the Python exception and returns NULL, for method bodies.
func fail(err error) *C.PyObject {
	setError(err)
	return nil
}

// pyCheck turns a pending Python exception into errPySet.
func pyCheck() error {
	if C.PyErr_Occurred() != nil {
		return errPySet
	}
	return nil
}

// parseArgs binds positional args and keywords to names, like a tiny
// PyArg_ParseTupleAndKeywords. It returns borrowed references; nil means absent.
func parseArgs(fname string, args, kwargs *C.PyObject, names []string, required int) ([]*C.PyObject, error) {
	out := make([]*C.PyObject, len(names))
	var n int
	if args != nil {
		n = int(C.PyTuple_Size(args))
	}
	if n > len(names) {
		return nil, typeErrorf("%s() takes at most %d arguments (%d given)", fname, len(names), n)
	}
	for i := 0; i < n; i++ {
		out[i] = C.gd_tuple_item(args, C.Py_ssize_t(i))
	}
	if kwargs != nil && C.PyDict_Size(kwargs) > 0 {
		var pos C.Py_ssize_t
		var key, val *C.PyObject
		for C.PyDict_Next(kwargs, &pos, &key, &val) != 0 {
			name, err := goString(key)
			if err != nil {
				return nil, err
			}
			found := false
			for i, want := range names {
				if name == want {
					if out[i] != nil {
						return nil, typeErrorf("%s() got multiple values for argument '%s'", fname, name)
					}
					out[i] = val
					found = true
				}
			}
			if !found {
				return nil, typeErrorf("%s() got an unexpected keyword argument '%s'", fname, name)
			}
		}
	}
	for i := 0; i < required; i++ {
		if out[i] == nil {
			return nil, typeErrorf("%s() missing required argument '%s'", fname, names[i])
		}
	}
	return out, nil
}

func goString(o *C.PyObject) (string, error) {
	if C.gd_unicode_check(o) == 0 {
		return "", typeErrorf("expected str, got %s", typeName(o))
	}
	var size C.Py_ssize_t
	p := C.PyUnicode_AsUTF8AndSize(o, &size)
	if p == nil {
		return "", errPySet
	}
	return C.GoStringN(p, C.int(size)), nil
}

func typeName(o *C.PyObject) string {
	tp := (*C.PyTypeObject)(unsafe.Pointer(C.gd_type_of(o)))
	return C.GoString(tp.tp_name)
}

// asInt64 converts anything with __index__ (int, numpy integers) to int64.
func asInt64(o *C.PyObject, what string) (int64, error) {
	if C.gd_index_check(o) == 0 {
		return 0, typeErrorf("%s must be an integer, not %s", what, typeName(o))
	}
	idx := C.PyNumber_Index(o)
	if idx == nil {
		return 0, errPySet
	}
	var overflow C.int
	v := C.PyLong_AsLongLongAndOverflow(idx, &overflow)
	C.gd_decref(idx)
	if overflow != 0 {
		return 0, overflowErrorf("%s does not fit in int64", what)
	}
	if v == -1 {
		if err := pyCheck(); err != nil {
			return 0, err
		}
	}
	return int64(v), nil
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

// sequenceItems returns the items of a tuple or list as borrowed references.
func sequenceItems(o *C.PyObject) ([]*C.PyObject, bool) {
	switch {
	case C.gd_tuple_check(o) != 0:
		n := int(C.PyTuple_Size(o))
		items := make([]*C.PyObject, n)
		for i := range items {
			items[i] = C.gd_tuple_item(o, C.Py_ssize_t(i))
		}
		return items, true
	case C.gd_list_check(o) != 0:
		n := int(C.PyList_Size(o))
		items := make([]*C.PyObject, n)
		for i := range items {
			items[i] = C.gd_list_item(o, C.Py_ssize_t(i))
		}
		return items, true
	}
	return nil, false
}

// parseShape accepts an int or a sequence of ints.
func parseShape(o *C.PyObject) ([]int64, error) {
	items, isSeq := sequenceItems(o)
	if !isSeq {
		if C.gd_index_check(o) == 0 {
			return nil, typeErrorf("shape must be an int or a tuple of ints, not %s", typeName(o))
		}
		items = []*C.PyObject{o}
	}
	if len(items) > dlpack.MaxNDim {
		return nil, valueErrorf("shape has %d dimensions; at most %d are supported", len(items), dlpack.MaxNDim)
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
	case C.gd_long_check(o) != 0 || (C.gd_index_check(o) != 0 && C.gd_float_check(o) == 0):
		return pyIntToScalar(o)
	case C.gd_float_check(o) != 0:
		return dlpack.Scalar{Kind: dlpack.KindFloat, F: float64(C.PyFloat_AsDouble(o))}, nil
	case C.gd_complex_check(o) != 0:
		return dlpack.Scalar{Kind: dlpack.KindComplex,
			C: complex(float64(C.PyComplex_RealAsDouble(o)), float64(C.PyComplex_ImagAsDouble(o)))}, nil
	}
	// Other numbers (numpy floating/complex/bool scalars): via complex() or float().
	if hasAttr(o, "__complex__") && !hasAttr(o, "__float__") {
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
	if hasAttr(o, "__float__") {
		f := C.PyFloat_AsDouble(o)
		if err := pyCheck(); err != nil {
			return dlpack.Scalar{}, err
		}
		if hasAttr(o, "imag") && hasAttr(o, "__complex__") && isComplexNumber(o) {
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

func hasAttr(o *C.PyObject, name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.PyObject_HasAttrString(o, cs) == 1
}
