//go:build godlpack_python

package arraymodule

// array_scalar.go: truth and Python-scalar conversions of an Array, as NumPy does
// them: bool(a) needs exactly one element, float/int/complex(a) take a one-element
// array, operator.index(a) a 0-d integer array.

// #include "arraymodule.h"
import "C"

import "github.com/godlpack/godlpack/dlpack"

// onlyElement returns a's one element as a new Python scalar; what names the
// conversion in the error for other sizes.
func onlyElement(a *C.gd_array, what string) (*C.PyObject, error) {
	if arraySize(a) != 1 {
		return nil, typeErrorf("only one-element arrays can be converted to Python scalars by %s() "+
			"(this one has %d elements)", what, arraySize(a))
	}
	s := scalarToPy(getElement(a, 0))
	if s == nil {
		return nil, errPySet
	}
	return s, nil
}

//export goArrayBool
func goArrayBool(self *C.PyObject) C.int {
	a := toArray(self)
	switch n := arraySize(a); {
	case n == 0:
		setError(valueErrorf("The truth value of an empty array is ambiguous. Use `array.size > 0` " +
			"to check that an array is not empty."))
		return -1
	case n > 1:
		setError(valueErrorf("The truth value of an array with more than one element is ambiguous "+
			"(this one has %d elements)", n))
		return -1
	}
	s, err := onlyElement(a, "bool")
	if err != nil {
		setError(err)
		return -1
	}
	defer C.gd_decref(s)
	return C.PyObject_IsTrue(s)
}

//export goArrayFloat
func goArrayFloat(self *C.PyObject) *C.PyObject {
	s, err := onlyElement(toArray(self), "float")
	if err != nil {
		return fail(err)
	}
	defer C.gd_decref(s)
	return C.PyNumber_Float(s)
}

//export goArrayInt
func goArrayInt(self *C.PyObject) *C.PyObject {
	s, err := onlyElement(toArray(self), "int")
	if err != nil {
		return fail(err)
	}
	defer C.gd_decref(s)
	return C.PyNumber_Long(s)
}

//export goArrayComplex
func goArrayComplex(self, _ *C.PyObject) *C.PyObject {
	s, err := onlyElement(toArray(self), "complex")
	if err != nil {
		return fail(err)
	}
	defer C.gd_decref(s)
	return C.PyObject_CallOneArg(C.gd_complex_type(), s)
}

//export goArrayIndex
func goArrayIndex(self *C.PyObject) *C.PyObject {
	a := toArray(self)
	if k := arrayDType(a).Kind; a.ndim != 0 || (k != dlpack.KindInt && k != dlpack.KindUint) {
		return fail(typeErrorf("only integer scalar arrays can be converted to a scalar index "+
			"(this one is %d-d %s)", a.ndim, arrayDType(a).Name))
	}
	s, err := onlyElement(a, "index")
	if err != nil {
		return fail(err)
	}
	return s
}
