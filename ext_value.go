//go:build godlpack_python

package godlpack

// ext_value.go: arguments and results of a Func that C does not convert itself
// (GD_EXT_OBJECT, GD_EXT_R_OBJECT): lists, dicts, bytes, complex numbers, *T,
// any and *Object, converted in Go with the GIL taken for it (gil.go), by the
// same rules as Object's conversions (object_convert.go).

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "godlpack.h"
import "C"

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// objectArg converts a GD_EXT_OBJECT argument: absent (NULL), the default.
func objectArg(f *Function, p *param, a *C.gd_ext_arg) (reflect.Value, error) {
	if a.obj == nil {
		return p.defaultValue(), nil
	}
	var v reflect.Value
	err := withGIL(func() (err error) {
		v, err = fromPython(a.obj, p.goType, 0)
		return err
	})
	if err != nil {
		if ee, ok := err.(*exceptionError); ok {
			return reflect.Value{}, ee.kind.Errorf("%s(): argument %s: %w", f.name, p.name, ee.err)
		}
		return reflect.Value{}, err
	}
	return v, nil
}

// fromPython converts o to a Go value of type t (GIL held). A mismatch is a
// TypeError saying what was expected (pyTypeName) and what came, an integer out
// of t's range an OverflowError, as CPython's for C integers.
func fromPython(o *C.PyObject, t reflect.Type, depth int) (reflect.Value, error) {
	return fromPythonAs(o, t, t, depth)
}

// fromPythonAs is fromPython naming want in a mismatch: *T's type for its T.
func fromPythonAs(o *C.PyObject, t, want reflect.Type, depth int) (reflect.Value, error) {
	if depth > maxDepth {
		return reflect.Value{}, ValueError.Errorf("nested more than %d deep (or a container holding itself)", maxDepth)
	}
	mismatch := func() (reflect.Value, error) {
		return reflect.Value{}, TypeError.Errorf("expected %s, got %s", pyTypeName(want), typeName(o))
	}
	if t == reflect.TypeFor[*Object]() {
		C.gd_incref(o)
		return reflect.ValueOf(newObject(o)), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		if C.gd_is_none(o) != 0 {
			return reflect.Zero(t), nil
		}
		v, err := fromPythonAs(o, t.Elem(), want, depth)
		if err != nil {
			return v, err
		}
		ptr := reflect.New(t.Elem())
		ptr.Elem().Set(v)
		return ptr, nil
	case reflect.Interface:
		v, err := toGo(o, depth)
		if err != nil { // toGo's own error (a Python error kind of the core): its message
			return reflect.Value{}, TypeError.Errorf("%v", err)
		}
		if v == nil {
			return reflect.Zero(t), nil
		}
		return reflect.ValueOf(v), nil
	case reflect.Bool:
		if C.gd_bool_check(o) == 0 {
			return mismatch()
		}
		return reflect.ValueOf(C.gd_is_true(o) != 0).Convert(t), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return intFromPython(o, t, want)
	case reflect.Float32, reflect.Float64:
		if C.gd_float_check(o) == 0 && C.gd_long_check(o) == 0 {
			return mismatch()
		}
		d := float64(C.PyFloat_AsDouble(o))
		if d == -1 && C.PyErr_Occurred() != nil {
			C.PyErr_Clear()
			return reflect.Value{}, OverflowError.Errorf("int too large to convert to float")
		}
		return reflect.ValueOf(d).Convert(t), nil
	case reflect.Complex64, reflect.Complex128:
		if C.gd_complex_check(o) == 0 && C.gd_float_check(o) == 0 && C.gd_long_check(o) == 0 {
			return mismatch()
		}
		re, im := float64(C.PyComplex_RealAsDouble(o)), float64(C.PyComplex_ImagAsDouble(o))
		if C.PyErr_Occurred() != nil {
			return reflect.Value{}, errPySet
		}
		return reflect.ValueOf(complex(re, im)).Convert(t), nil
	case reflect.String:
		if C.gd_unicode_check(o) == 0 {
			return mismatch()
		}
		s, err := strValue(o)
		return reflect.ValueOf(s).Convert(t), err
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b, ok, err := bytesLike(o)
			if !ok {
				return mismatch()
			}
			return reflect.ValueOf(b).Convert(t), err
		}
		if C.gd_list_check(o) == 0 && C.gd_tuple_check(o) == 0 {
			return mismatch()
		}
		n := int(C.PySequence_Size(o))
		out := reflect.MakeSlice(t, n, n)
		for i := range n {
			item := C.gd_seq_item_new(o, C.Py_ssize_t(i))
			if item == nil {
				return reflect.Value{}, errPySet
			}
			v, err := fromPython(item, t.Elem(), depth+1)
			C.gd_decref(item)
			if err != nil {
				return v, itemError(fmt.Sprintf("item %d", i), err)
			}
			out.Index(i).Set(v)
		}
		return out, nil
	case reflect.Map:
		if C.gd_dict_check(o) == 0 {
			return mismatch()
		}
		return mapFromPython(o, t, depth)
	}
	return mismatch()
}

// itemError names the item of a list or dict a conversion failed at.
func itemError(what string, err error) error {
	if ee, ok := err.(*exceptionError); ok {
		return ee.kind.Errorf("%s: %w", what, ee.err)
	}
	return err
}

func mapFromPython(o *C.PyObject, t reflect.Type, depth int) (reflect.Value, error) {
	out := reflect.MakeMap(t)
	var pos C.Py_ssize_t
	var k, v *C.PyObject
	for C.PyDict_Next(o, &pos, &k, &v) != 0 { // borrowed: held by the dict, GIL held
		if C.gd_unicode_check(k) == 0 {
			return reflect.Value{}, TypeError.Errorf("expected %s, got a dict with a %s key", pyTypeName(t), typeName(k))
		}
		key, err := strValue(k)
		if err != nil {
			return reflect.Value{}, err
		}
		C.gd_incref(v) // converting an item may run Python code that changes the dict
		item, err := fromPython(v, t.Elem(), depth+1)
		C.gd_decref(v)
		if err != nil {
			return item, itemError("key '"+key+"'", err)
		}
		out.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), item)
	}
	return out, nil
}

// intFromPython converts an int (or an object with __index__, not a float) to
// the integer type t: out of t's range is an OverflowError.
func intFromPython(o *C.PyObject, t, want reflect.Type) (reflect.Value, error) {
	if C.gd_float_check(o) != 0 || C.gd_index_check(o) == 0 {
		return reflect.Value{}, TypeError.Errorf("expected %s, got %s", pyTypeName(want), typeName(o))
	}
	idx := C.PyNumber_Index(o)
	if idx == nil {
		return reflect.Value{}, errPySet
	}
	defer C.gd_decref(idx)
	switch t.Kind() {
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		u := C.PyLong_AsUnsignedLongLong(idx)
		if C.PyErr_Occurred() != nil {
			C.PyErr_Clear()
			return reflect.Value{}, OverflowError.Errorf("int out of range for %v", t)
		}
		if t.Bits() < 64 && uint64(u) > 1<<32-1 {
			return reflect.Value{}, OverflowError.Errorf("%d is out of range for %v", uint64(u), t)
		}
		return reflect.ValueOf(uint64(u)).Convert(t), nil
	}
	var overflow C.int
	v := int64(C.PyLong_AsLongLongAndOverflow(idx, &overflow))
	if overflow != 0 {
		return reflect.Value{}, OverflowError.Errorf("int out of range for %v", t)
	}
	if lo, hi := intRange(t); v < lo || v > hi {
		return reflect.Value{}, OverflowError.Errorf("%d is out of range for %v (%d to %d)", v, t, lo, hi)
	}
	return reflect.ValueOf(v).Convert(t), nil
}

// writeObject writes a result C does not build itself: a Python object made
// here with the GIL (GD_EXT_R_OBJECT), by toPython's rules.
func writeObject(v reflect.Value, r *C.gd_ext_result) error {
	var p *C.PyObject
	err := withGIL(func() (err error) {
		p, err = toPython(plainValue(v))
		return err
	})
	if err != nil {
		return err
	}
	r.kind, r.p = C.GD_EXT_R_OBJECT, unsafe.Pointer(p)
	return nil
}

// plainValue is v as toPython takes it: typed slices as []any, maps as
// map[string]any, a pointer as what it points to (nil: None), named types as
// their underlying ones.
func plainValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*Object]() || v.Type() == reflect.TypeFor[*tensor.Tensor]() {
			return v.Interface()
		}
		if v.IsNil() {
			return nil
		}
		return plainValue(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plainValue(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		if v.Type() == reflect.TypeFor[Tuple]() {
			return v.Interface()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(v.Index(i))
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = plainValue(it.Value())
		}
		return out
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Complex64, reflect.Complex128:
		return v.Complex()
	case reflect.String:
		return v.String()
	}
	return v.Interface()
}
