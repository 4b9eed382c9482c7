//go:build godlpack_python

package godlpack

// ext_value.go: arguments and results of a Func that C does not convert itself
// (GD_EXT_OBJECT, GD_EXT_R_OBJECT): lists, dicts, bytes, complex numbers, *T,
// any and *Object, converted in Go with the GIL taken for it (gil.go), by the
// same rules as Object's conversions (object_convert.go).

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include "gd_python.h"
import "C"

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// writeSeq writes an iterator result: C makes the Python iterator pulling p
// (goExtIterNext).
func writeSeq(p *pulledSeq, _ reflect.Value, r *C.gd_ext_result) error {
	r.kind, r.i = C.GD_EXT_R_ITER, C.int64_t(addPulledSeq(p))
	return nil
}

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
		return reflect.Value{}, errTooDeepArg
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
		switch {
		case err == errPySet: // the object's own exception (a str UTF-8 cannot encode): as raised
			return reflect.Value{}, err
		case err == errTooDeepForGo:
			return reflect.Value{}, errTooDeepArg
		case err != nil: // toGo's own refusal (no Go value for it): a TypeError, its message
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
		var out reflect.Value
		err := walkSeq(o, func(n int) { out = reflect.MakeSlice(t, 0, preallocItems(n)) }, func(i int, item *C.PyObject) error {
			v, err := fromPython(item, t.Elem(), depth+1)
			if err != nil {
				return itemError(fmt.Sprintf("item %d", i), err)
			}
			out = reflect.Append(out, v)
			return nil
		})
		if err != nil {
			return reflect.Value{}, err
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

// itemError names the item of a list or dict a conversion failed at (not for a
// value too deep, whose hundred levels would each name theirs).
func itemError(what string, err error) error {
	if ee, ok := err.(*exceptionError); ok && err != errTooDeepArg {
		return ee.kind.Errorf("%s: %w", what, ee.err)
	}
	return err
}

// mapFromPython converts a dict (walkDict: its items at one instant, which
// another thread changing it on a free-threaded build cannot tear).
func mapFromPython(o *C.PyObject, t reflect.Type, depth int) (reflect.Value, error) {
	out := reflect.MakeMap(t)
	err := walkDict(o, func(k, v *C.PyObject) error {
		if C.gd_unicode_check(k) == 0 {
			return TypeError.Errorf("expected %s, got a dict with a %s key", pyTypeName(t), typeName(k))
		}
		key, err := strValue(k)
		if err != nil {
			return err
		}
		item, err := fromPython(v, t.Elem(), depth+1)
		if err != nil {
			return itemError("key '"+key+"'", err)
		}
		out.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), item)
		return nil
	})
	if err != nil {
		return reflect.Value{}, err
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
			return reflect.Value{}, OverflowError.Errorf("int out of range for %s", intRangeName(t))
		}
		if t.Bits() < 64 && uint64(u) > 1<<32-1 {
			return reflect.Value{}, OverflowError.Errorf("%d is out of range for %s", uint64(u), intRangeName(t))
		}
		return reflect.ValueOf(uint64(u)).Convert(t), nil
	}
	var overflow C.int
	v := int64(C.PyLong_AsLongLongAndOverflow(idx, &overflow))
	if overflow != 0 {
		return reflect.Value{}, OverflowError.Errorf("int out of range for %s", intRangeName(t))
	}
	if lo, hi := intRange(t); v < lo || v > hi {
		return reflect.Value{}, OverflowError.Errorf("%d is out of range for %s", v, intRangeName(t))
	}
	return reflect.ValueOf(v).Convert(t), nil
}

// writeObject writes a result C does not build itself: a Python object made
// here with the GIL (GD_EXT_R_OBJECT), by toPython's rules.
func writeObject(v reflect.Value, r *C.gd_ext_result) error {
	plain, err := plainValue(v, 0)
	if err != nil {
		return err
	}
	var p *C.PyObject
	err = withGIL(func() (err error) {
		p, err = toPython(plain)
		return err
	})
	if err != nil {
		return err
	}
	r.kind, r.p = C.GD_EXT_R_OBJECT, unsafe.Pointer(p)
	return nil
}

// plainValue is v as toPython takes it: typed slices as []any, maps with string
// keys as map[string]any and others as a keyedDict, a pointer as what it points to
// (nil: None), named types as their underlying ones. A value holding itself (a
// map[string]any that is its own item) is refused at maxDepth, containers and
// pointers counted, with the TypeError toPython gives.
func plainValue(v reflect.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeepResult
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type() == reflect.TypeFor[*Object]() || v.Type() == reflect.TypeFor[*tensor.Tensor]() {
			return v.Interface(), nil
		}
		if v.IsNil() {
			return nil, nil
		}
		return plainValue(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return plainValue(v.Elem(), depth) // its dynamic value: never an interface itself
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes(), nil
		}
		out := make([]any, v.Len())
		for i := range out {
			item, err := plainValue(v.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = item
		}
		if v.Type() == reflect.TypeFor[Tuple]() {
			return Tuple(out), nil
		}
		return out, nil
	case reflect.Map:
		return plainMap(v, depth)
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.Complex64, reflect.Complex128:
		return v.Complex(), nil
	case reflect.String:
		return v.String(), nil
	}
	return v.Interface(), nil
}

// plainMap is plainValue of a map: string keys a map[string]any, other keys a
// keyedDict, each key of a Python dict key's type (a bool, number or str, or nil
// for None); any other key (an array, a struct, a pointer) is a TypeError, as
// FromGo's for a map it does not take.
func plainMap(v reflect.Value, depth int) (any, error) {
	if v.Type().Key().Kind() == reflect.String {
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			item, err := plainValue(it.Value(), depth+1)
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = item
		}
		return out, nil
	}
	out := make(keyedDict, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		k := it.Key()
		if k.Kind() == reflect.Interface && !k.IsNil() {
			k = k.Elem() // a map[any]T's key: its dynamic type decides
		}
		if why := dictKeyType(k.Type()); why != "" {
			return nil, TypeError.Errorf("cannot pass a Go %v to Python: %s", v.Type(), why)
		}
		key, err := plainValue(k, depth+1)
		if err != nil {
			return nil, err
		}
		item, err := plainValue(it.Value(), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, keyedItem{key, item})
	}
	return out, nil
}

// A []byte parameter's argument, any bytes-like object (the
// buffer protocol, as bytes(x) and hashlib take them): bytes, bytearray,
// memoryview, array.array, a C-contiguous NumPy array.
// bytesLike copies o's bytes (GIL held): ok false, with no exception, when o
// offers no buffer; err when it offers one it cannot lend as contiguous bytes
// (a strided memoryview: BufferError, its own message).
func bytesLike(o *C.PyObject) (b []byte, ok bool, err error) {
	if C.PyObject_CheckBuffer(o) == 0 {
		return nil, false, nil
	}
	var view C.Py_buffer // Go memory holding only C pointers, released below
	if C.PyObject_GetBuffer(o, &view, C.PyBUF_SIMPLE) != 0 {
		return nil, true, errPySet // the exporter's exception, raised as it is
	}
	defer C.PyBuffer_Release(&view)
	return C.GoBytes(view.buf, C.int(view.len)), true, nil
}
