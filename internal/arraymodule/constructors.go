//go:build godlpack_python

package arraymodule

// constructors.go: the module functions that make Go-owned arrays: empty, zeros,
// ones, full, arange, and the Array(obj) constructor.

// #include "arraymodule.h"
import "C"

import (
	"math"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// resolveDType accepts a dtype name (or godlpack.dtype), the Python types
// bool/int/float/complex, PyTorch dtypes, or anything with a dtype-name attribute
// (NumPy and ml_dtypes dtypes and scalar types). nil or None gives def.
func resolveDType(o *C.PyObject, def *dlpack.DType) (*dlpack.DType, error) {
	if o == nil || C.gd_is_none(o) != 0 {
		return def, nil
	}
	switch o {
	case C.gd_bool_type():
		return mustDType("bool"), nil
	case C.gd_long_type():
		return mustDType("int64"), nil
	case C.gd_float_type():
		return mustDType("float64"), nil
	case C.gd_complex_type():
		return mustDType("complex128"), nil
	}
	name := ""
	if C.gd_unicode_check(o) != 0 {
		var err error
		if name, err = goString(o); err != nil {
			C.PyErr_Clear() // not UTF-8 ('\ud800'): no dtype's name; said below
		}
	} else if typeName(o) == "torch.dtype" {
		name = torchDTypeName(o) // torch.bfloat16 has no name attribute
	} else {
		attr := "name"
		if C.gd_type_check(o) != 0 {
			attr = "__name__"
		}
		if s, ok := stringAttr(o, attr); ok {
			name = s
		}
	}
	if name == "bool_" {
		name = "bool"
	}
	if d, ok := dlpack.ByName(name); ok {
		return d, nil
	}
	r := C.PyObject_Repr(o)
	if r == nil {
		return nil, errPySet
	}
	defer C.gd_decref(r)
	s, _ := goString(r)
	return nil, typeErrorf("data type %s not understood", s)
}

// torchDTypeName is the name of a torch.dtype: its str less "torch."
// (torch.bfloat16 -> "bfloat16"; aliases such as torch.half print their dtype's
// name). "" if str fails (the error is cleared: the caller says "not understood").
func torchDTypeName(o *C.PyObject) string {
	s := C.PyObject_Str(o)
	if s == nil {
		C.PyErr_Clear()
		return ""
	}
	defer C.gd_decref(s)
	name, _ := goString(s)
	return strings.TrimPrefix(name, "torch.")
}

func stringAttr(o *C.PyObject, name string) (string, bool) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	v := C.PyObject_GetAttrString(o, cs)
	if v == nil {
		C.PyErr_Clear()
		return "", false
	}
	defer C.gd_decref(v)
	if C.gd_unicode_check(v) == 0 {
		return "", false
	}
	s, err := goString(v)
	return s, err == nil
}

func makeFilled(fname string, args, kwargs *C.PyObject, fill *dlpack.Scalar) *C.PyObject {
	p, release, err := parseArgs(fname, args, kwargs, []string{"shape", "dtype"}, 1)
	if err != nil {
		return fail(err)
	}
	defer release()
	shape, err := parseShape(p[0])
	if err != nil {
		return fail(err)
	}
	dt, err := resolveDType(p[1], defaultDType)
	if err != nil {
		return fail(err)
	}
	a, err := newOwnedArray(dt, shape, fill != nil && isZero(*fill))
	if err != nil {
		return fail(err)
	}
	if fill != nil && !isZero(*fill) {
		if err := fillAll(a, *fill); err != nil {
			C.gd_decref(asObject(a))
			return fail(err)
		}
	}
	return asObject(a)
}

func isZero(s dlpack.Scalar) bool {
	return s.Kind == dlpack.KindInt && s.I == 0
}

//export goEmpty
func goEmpty(_, args, kwargs *C.PyObject) *C.PyObject {
	return makeFilled("empty", args, kwargs, nil)
}

//export goZeros
func goZeros(_, args, kwargs *C.PyObject) *C.PyObject {
	return makeFilled("zeros", args, kwargs, &dlpack.Scalar{Kind: dlpack.KindInt})
}

//export goOnes
func goOnes(_, args, kwargs *C.PyObject) *C.PyObject {
	return makeFilled("ones", args, kwargs, &dlpack.Scalar{Kind: dlpack.KindInt, I: 1})
}

//export goFull
func goFull(_, args, kwargs *C.PyObject) *C.PyObject {
	p, release, err := parseArgs("full", args, kwargs, []string{"shape", "fill_value", "dtype"}, 2)
	if err != nil {
		return fail(err)
	}
	defer release()
	shape, err := parseShape(p[0])
	if err != nil {
		return fail(err)
	}
	s, err := pyToScalar(p[1])
	if err != nil {
		return fail(err)
	}
	dt, err := resolveDType(p[2], inferScalarDType(s))
	if err != nil {
		return fail(err)
	}
	a, err := newOwnedArray(dt, shape, false)
	if err != nil {
		return fail(err)
	}
	if err := fillAll(a, s); err != nil {
		C.gd_decref(asObject(a))
		return fail(err)
	}
	return asObject(a)
}

// inferScalarDType is NumPy's default dtype for a Python scalar.
func inferScalarDType(s dlpack.Scalar) *dlpack.DType {
	switch s.Kind {
	case dlpack.KindBool:
		return mustDType("bool")
	case dlpack.KindInt:
		return mustDType("int64")
	case dlpack.KindUint:
		return mustDType("uint64")
	case dlpack.KindFloat:
		return mustDType("float64")
	default:
		return mustDType("complex128")
	}
}

//export goArange
func goArange(_, args, kwargs *C.PyObject) *C.PyObject {
	p, release, err := parseArgs("arange", args, kwargs, []string{"start", "stop", "step", "dtype"}, 1)
	if err != nil {
		return fail(err)
	}
	defer release()
	start, stop, step := p[0], p[1], p[2]
	if stop == nil || C.gd_is_none(stop) != 0 {
		start, stop = nil, start // arange(stop)
	}
	vals := make([]dlpack.Scalar, 3)
	defaults := []int64{0, 0, 1}
	allInt := true
	for i, o := range []*C.PyObject{start, stop, step} {
		if o == nil || C.gd_is_none(o) != 0 {
			vals[i] = dlpack.Scalar{Kind: dlpack.KindInt, I: defaults[i]}
			continue
		}
		s, err := pyToScalar(o)
		if err != nil {
			return fail(err)
		}
		switch s.Kind {
		case dlpack.KindInt, dlpack.KindBool:
			if s.Kind == dlpack.KindBool {
				s = dlpack.Scalar{Kind: dlpack.KindInt, I: map[bool]int64{false: 0, true: 1}[s.B]}
			}
		case dlpack.KindUint: // past int64: NumPy computes in float64 then
			s = dlpack.Scalar{Kind: dlpack.KindFloat, F: float64(s.U)}
			allInt = false
		case dlpack.KindFloat:
			allInt = false
		default:
			return fail(typeErrorf("arange() arguments must be real numbers"))
		}
		vals[i] = s
	}
	f := func(s dlpack.Scalar) float64 {
		if s.Kind == dlpack.KindFloat {
			return s.F
		}
		return float64(s.I)
	}
	var n int64
	if allInt {
		n, err = arangeIntLength(vals[0].I, vals[1].I, vals[2].I)
	} else {
		n, err = arangeFloatLength(f(vals[0]), f(vals[1]), f(vals[2]))
	}
	if err != nil {
		return fail(err)
	}
	def := mustDType("int64")
	if !allInt {
		def = mustDType("float64")
	}
	dt, err := resolveDType(p[3], def)
	if err != nil {
		return fail(err)
	}
	a, err := newOwnedArray(dt, []int64{n}, false)
	if err != nil {
		return fail(err)
	}
	first, by := dlpack.Scalar{Kind: dlpack.KindInt, I: vals[0].I}, dlpack.Scalar{Kind: dlpack.KindInt, I: vals[2].I}
	if !allInt {
		first, by = dlpack.Scalar{Kind: dlpack.KindFloat, F: f(vals[0])}, dlpack.Scalar{Kind: dlpack.KindFloat, F: f(vals[2])}
	}
	if err := fillArange(a, n, first, by); err != nil {
		C.gd_decref(asObject(a))
		return fail(err)
	}
	return asObject(a)
}

// arangeIntLength is ceil((stop-start)/step), or 0, computed in uint64: the
// distance between two int64 values always fits there, where stop-start and the
// usual (stop-start+step-1)/step overflow int64 near its limits. The values
// start+i*step are then exact in wrapping int64 arithmetic, as each lies in range.
func arangeIntLength(start, stop, step int64) (int64, error) {
	if step == 0 {
		return 0, valueErrorf("arange(): step must not be zero")
	}
	var span, by uint64
	switch {
	case step > 0 && stop > start:
		span, by = uint64(stop)-uint64(start), uint64(step)
	case step < 0 && stop < start:
		span, by = uint64(start)-uint64(stop), -uint64(step) // -uint64 is |step|, MinInt64 too
	default:
		return 0, nil
	}
	n := span / by
	if span%by != 0 {
		n++
	}
	if n > math.MaxInt64 {
		return 0, valueErrorf("arange(): %d elements are more than an array can hold", n)
	}
	return int64(n), nil
}

// arangeFloatLength is NumPy's length for float arguments: ceil((stop-start)/step),
// except that a quotient that underflows to +0 (an infinite step) still yields
// the start element, as NumPy's arange(0, 10, inf) gives [0.].
func arangeFloatLength(start, stop, step float64) (int64, error) {
	if step == 0 || math.IsNaN(start) || math.IsNaN(stop) || math.IsNaN(step) ||
		math.IsInf(start, 0) || math.IsInf(stop, 0) {
		return 0, valueErrorf("arange(): arguments must be finite and step non-zero")
	}
	delta := stop - start
	q := delta / step
	if q == 0 && delta != 0 {
		if math.Signbit(q) {
			return 0, nil
		}
		return 1, nil
	}
	c := math.Ceil(q)
	if math.IsNaN(c) || c <= 0 {
		return 0, nil
	}
	if c > maxElements {
		return 0, valueErrorf("arange(): %g elements are more than an array can hold", c)
	}
	return int64(c), nil
}

//export goAsarray
func goAsarray(_, args, kwargs *C.PyObject) *C.PyObject {
	obj, dtype, req, release, err := parseAsarrayArgs(args, kwargs) // asarray_copy.go
	if err != nil {
		return fail(err)
	}
	defer release()
	return asarray(obj, dtype, req)
}

// asarray is asarray(obj, dtype=..., device=..., copy=...) once parsed; Array(obj, dtype)
// is asarray(obj, dtype=dtype).
func asarray(obj, dtype *C.PyObject, req importRequest) *C.PyObject {
	var err error
	var dt *dlpack.DType
	if dtype != nil && C.gd_is_none(dtype) == 0 {
		if dt, err = resolveDType(dtype, nil); err != nil {
			return fail(err)
		}
	}
	if a, done, err := asarrayShared(obj, dt, req); done { // an Array or a DLPack producer
		if err != nil {
			return fail(err)
		}
		return asObject(a)
	}
	a, err := arrayFrom(obj, dt)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

//export goArrayNew
func goArrayNew(args, kwargs *C.PyObject) *C.PyObject {
	p, release, err := parseArgs("Array", args, kwargs, []string{"obj", "dtype"}, 1)
	if err != nil {
		return fail(err)
	}
	defer release()
	return asarray(p[0], p[1], importRequest{})
}
