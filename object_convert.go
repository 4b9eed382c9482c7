//go:build godlpack_python

package godlpack

// object_convert.go: Go values to Python objects and back, for Object's calls. The
// Python-to-Go side follows the extension parameters' rules (ext_call.c): an int is
// anything with __index__, a float anything with __float__, a bool exactly True or
// False, a str is UTF-8; a tensor is anything with __dlpack__, without a copy.

// #include "gd_python.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
)

// fromGo is FromGo (object_api.go), with Python.
func fromGo(v any) (*Object, error) {
	var r *Object
	err := withGIL(func() error {
		p, err := toPython(v)
		r = newObject(p)
		return err
	})
	return r, err
}

// toPython converts v (GIL held): a new reference, or an error.
func toPython(v any) (*C.PyObject, error) { return toPythonAt(v, 0) }

// toPythonAt is toPython of a value depth containers deep: a Go value holding
// itself (a map[string]any that is its own item) is refused at maxDepth, as
// Python's are the other way (toGo), instead of overflowing the goroutine's stack.
func toPythonAt(v any, depth int) (*C.PyObject, error) {
	if depth > maxDepth {
		return nil, errTooDeepForPython
	}
	var p *C.PyObject
	switch v := v.(type) {
	case nil, None:
		return C.gd_none(), nil
	case *Object:
		o, err := v.ref()
		if err != nil {
			return nil, err
		}
		C.gd_incref(o)
		return o, nil
	case *tensor.Tensor:
		return tensorToPython(v)
	case bool:
		p = C.gd_bool(boolInt(v))
	case int:
		p = C.PyLong_FromLongLong(C.longlong(v))
	case int8:
		p = C.PyLong_FromLongLong(C.longlong(v))
	case int16:
		p = C.PyLong_FromLongLong(C.longlong(v))
	case int32:
		p = C.PyLong_FromLongLong(C.longlong(v))
	case int64:
		p = C.PyLong_FromLongLong(C.longlong(v))
	case uint:
		p = C.PyLong_FromUnsignedLongLong(C.ulonglong(v))
	case uint8:
		p = C.PyLong_FromUnsignedLongLong(C.ulonglong(v))
	case uint16:
		p = C.PyLong_FromUnsignedLongLong(C.ulonglong(v))
	case uint32:
		p = C.PyLong_FromUnsignedLongLong(C.ulonglong(v))
	case uint64:
		p = C.PyLong_FromUnsignedLongLong(C.ulonglong(v))
	case float64:
		p = C.PyFloat_FromDouble(C.double(v))
	case float32:
		p = C.PyFloat_FromDouble(C.double(v))
	case complex128:
		p = C.PyComplex_FromDoubles(C.double(real(v)), C.double(imag(v)))
	case complex64:
		p = C.PyComplex_FromDoubles(C.double(real(v)), C.double(imag(v)))
	case string:
		p = C.PyUnicode_FromStringAndSize((*C.char)(unsafe.Pointer(unsafe.StringData(v))), C.Py_ssize_t(len(v)))
	case []byte:
		p = C.PyBytes_FromStringAndSize((*C.char)(unsafe.Pointer(unsafe.SliceData(v))), C.Py_ssize_t(len(v)))
	case Tuple:
		return tupleOf(v, depth)
	case []any:
		return listOf(v, depth)
	case map[string]any:
		return dictOf(v, depth)
	case Kw:
		return dictOf(v, depth)
	case keyedDict:
		return keyedDictOf(v, depth)
	default:
		return nil, typeErrorf("cannot pass a Go %T to Python (use a number, string, []byte, Tuple, []any, map[string]any, *tensor.Tensor or *godlpack.Object)", v)
	}
	if p == nil {
		return nil, errPySet
	}
	return p, nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func tupleOf(items []any, depth int) (*C.PyObject, error) {
	t := C.PyTuple_New(C.Py_ssize_t(len(items)))
	if t == nil {
		return nil, errPySet
	}
	for i, item := range items {
		v, err := toPythonAt(item, depth+1)
		if err != nil {
			C.gd_decref(t) // the items set so far with it; the rest are NULL
			return nil, argError(i, err)
		}
		C.gd_tuple_set(t, C.Py_ssize_t(i), v)
	}
	return t, nil
}

func listOf(items []any, depth int) (*C.PyObject, error) {
	l := C.PyList_New(C.Py_ssize_t(len(items)))
	if l == nil {
		return nil, errPySet
	}
	for i, item := range items {
		v, err := toPythonAt(item, depth+1)
		if err != nil {
			C.gd_decref(l)
			return nil, argError(i, err)
		}
		C.gd_list_set(l, C.Py_ssize_t(i), v)
	}
	return l, nil
}

func dictOf[M ~map[string]any](m M, depth int) (*C.PyObject, error) {
	d := C.PyDict_New()
	if d == nil {
		return nil, errPySet
	}
	for k, item := range m {
		if err := setDictItem(d, k, item, depth); err != nil {
			C.gd_decref(d)
			return nil, err
		}
	}
	return d, nil
}

// keyedDict is a Go map whose keys are not strings (map[int]string, map[any]T), as
// plainValue hands it to toPython: its keys (bool, numbers, strings, nil) and its
// values in plain form.
type keyedDict []keyedItem

type keyedItem struct{ key, value any }

func keyedDictOf(items keyedDict, depth int) (*C.PyObject, error) {
	d := C.PyDict_New()
	if d == nil {
		return nil, errPySet
	}
	for i, it := range items {
		err := setDictItem(d, it.key, it.value, depth)
		if err == nil && int(C.PyDict_Size(d)) != i+1 {
			// Distinct in Go, one key in Python (int64(1), uint8(1), 1.0 and true in a
			// map[any]T): an entry would be lost without a word.
			err = valueErrorf("cannot pass a Go %s to Python: its key %#v equals another of its keys as a dict key", mapTypeName(items), it.key)
		}
		if err != nil {
			C.gd_decref(d)
			return nil, err
		}
	}
	return d, nil
}

// mapTypeName names a keyedDict's map in an error: its keys' Go types.
func mapTypeName(items keyedDict) string {
	if len(items) == 0 {
		return "map"
	}
	return fmt.Sprintf("map with %T keys", items[0].key)
}

// setDictItem sets d[key] = value, both converted (GIL held); an error names the key.
func setDictItem(d *C.PyObject, key, value any, depth int) error {
	v, err := toPythonAt(value, depth+1)
	if err != nil {
		if err == errPySet || err == errTooDeepForPython {
			return err
		}
		return fmt.Errorf("%#v: %w", key, err)
	}
	k, err := toPython(key)
	if err != nil {
		C.gd_decref(v)
		return err
	}
	rc := C.PyDict_SetItem(d, k, v)
	C.gd_decref(k)
	C.gd_decref(v)
	if rc < 0 {
		return errPySet
	}
	return nil
}

// argError names the item a Go-side conversion error is about; a Python exception
// (errPySet) stays as it is, to be taken with its traceback, and so does a value
// too deep, which each of its hundred levels would otherwise name.
func argError(i int, err error) error {
	if err == errPySet || err == errTooDeepForPython {
		return err
	}
	return fmt.Errorf("item %d: %w", i, err)
}

// pyInt is Int (object_api.go), with Python.
func (o *Object) pyInt() (int64, error) {
	var v int64
	err := o.with(func(p *C.PyObject) (err error) {
		v, err = asInt64(p, "the object")
		return err
	})
	return v, err
}

// pyFloat is Float (object_api.go), with Python.
func (o *Object) pyFloat() (float64, error) {
	var v float64
	err := o.with(func(p *C.PyObject) (err error) {
		v, err = asFloat64(p)
		return err
	})
	return v, err
}

// asFloat64 is p's value as Python's float(p) has it (GIL held).
func asFloat64(p *C.PyObject) (float64, error) {
	v := float64(C.PyFloat_AsDouble(p))
	if v == -1 {
		return v, pyCheck()
	}
	return v, nil
}

// pyBool is Bool (object_api.go), with Python.
func (o *Object) pyBool() (bool, error) {
	var v bool
	err := o.with(func(p *C.PyObject) error {
		switch {
		case C.gd_is_true(p) != 0:
			v = true
		case C.gd_is_false(p) == 0:
			return typeErrorf("expected True or False, got %s", typeName(p))
		}
		return nil
	})
	return v, err
}

// pyStr is Str (object_api.go), with Python.
func (o *Object) pyStr() (string, error) {
	var v string
	err := o.with(func(p *C.PyObject) (err error) {
		v, err = strValue(p)
		return err
	})
	return v, err
}

func strValue(p *C.PyObject) (string, error) {
	if C.gd_unicode_check(p) == 0 {
		return "", typeErrorf("expected str, got %s", typeName(p))
	}
	var size C.Py_ssize_t
	s := C.PyUnicode_AsUTF8AndSize(p, &size)
	if s == nil {
		return "", errPySet
	}
	return C.GoStringN(s, C.int(size)), nil
}

// pyBytes is Bytes (object_api.go), with Python.
func (o *Object) pyBytes() ([]byte, error) {
	var v []byte
	err := o.with(func(p *C.PyObject) error {
		if C.gd_bytes_check_exact(p) == 0 {
			return typeErrorf("expected bytes, got %s", typeName(p))
		}
		v = C.GoBytes(unsafe.Pointer(C.PyBytes_AsString(p)), C.int(C.PyBytes_Size(p)))
		return nil
	})
	return v, err
}

// pyGo is Go (object_api.go), with Python.
func (o *Object) pyGo() (any, error) {
	var v any
	err := o.with(func(p *C.PyObject) (err error) {
		v, err = toGo(p, 0)
		return err
	})
	return v, err
}

// The Python TypeErrors of a value too deep (maxDepth, ext_result.go), for Object's
// calls and FromGo (a *PythonError), one value each, so that the levels it passes
// back through (argError, setDictItem) do not name their item a hundred times; an
// extension function's arguments and results have Exceptions of their own, which
// name the argument (errTooDeepArg, errTooDeepResult).
var (
	errTooDeepForPython = &cpython.Error{Kind: cpython.TypeError, Msg: "cannot pass a Go value " + tooDeep + " to Python"}
	errTooDeepForGo     = &cpython.Error{Kind: cpython.TypeError, Msg: "cannot convert a Python value " + tooDeep + " to Go"}
)

func toGo(p *C.PyObject, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeepForGo
	}
	switch {
	case C.gd_is_none(p) != 0:
		return nil, nil
	case C.gd_bool_check(p) != 0:
		return C.gd_is_true(p) != 0, nil
	case C.gd_long_check(p) != 0:
		return asInt64(p, "the int")
	case C.gd_float_check(p) != 0:
		return float64(C.PyFloat_AsDouble(p)), nil
	case C.gd_unicode_check(p) != 0:
		return strValue(p)
	case C.gd_bytes_check_exact(p) != 0:
		return C.GoBytes(unsafe.Pointer(C.PyBytes_AsString(p)), C.int(C.PyBytes_Size(p))), nil
	case C.gd_tuple_check(p) != 0 || C.gd_list_check(p) != 0:
		var out []any
		err := walkSeq(p, func(n int) { out = make([]any, 0, preallocItems(n)) }, func(_ int, item *C.PyObject) error {
			v, err := toGo(item, depth+1)
			out = append(out, v)
			return err
		})
		return out, err
	case C.gd_dict_check(p) != 0:
		return dictToGo(p, depth)
	}
	return nil, typeErrorf("no Go value for a Python %s: hold it as *godlpack.Object", typeName(p))
}

func dictToGo(p *C.PyObject, depth int) (any, error) {
	out := map[string]any{}
	err := walkDict(p, func(k, v *C.PyObject) error {
		if C.gd_unicode_check(k) == 0 {
			return typeErrorf("a dict key is a %s: only str keys convert to Go", typeName(k))
		}
		key, err := strValue(k) // a str UTF-8 cannot encode: its UnicodeEncodeError
		if err != nil {
			return err
		}
		item, err := toGo(v, depth+1)
		out[key] = item
		return err
	})
	return out, err
}

// walkSeq calls each with the items of s, a list or tuple (GIL held), as they were
// when the walk began (gd_seq_snapshot: the list's own storage, copied at one
// instant, so that neither another thread nor an item's own code changes what is
// walked, and a subclass's __len__ is not asked); size is told their number first.
// Each item is held for each's call, which may run Python code.
func walkSeq(s *C.PyObject, size func(n int), each func(i int, item *C.PyObject) error) error {
	snap := C.gd_seq_snapshot(s)
	if snap == nil {
		return errPySet // MemoryError: a list longer than memory can copy
	}
	defer C.gd_decref(snap)
	n := int(C.gd_seq_snapshot_len(snap))
	size(n)
	for i := range n {
		item := C.gd_seq_snapshot_item(snap, C.Py_ssize_t(i))
		C.gd_incref(item)
		err := each(i, item)
		C.gd_decref(item)
		if err != nil {
			return err
		}
	}
	return nil
}

// walkDict calls each with the keys and values of dict d (GIL held), as they were
// when the walk began (gd_dict_for_walk: a copy, so that another thread or an
// item's own code cannot change the table PyDict_Next reads). Both are held for
// each's call, which may run Python code.
func walkDict(d *C.PyObject, each func(k, v *C.PyObject) error) error {
	snap := C.gd_dict_for_walk(d)
	if snap == nil {
		return errPySet
	}
	defer C.gd_decref(snap)
	var pos C.Py_ssize_t
	var k, v *C.PyObject
	for C.PyDict_Next(snap, &pos, &k, &v) != 0 {
		C.gd_incref(k)
		C.gd_incref(v)
		err := each(k, v)
		C.gd_decref(v)
		C.gd_decref(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// preallocItems is how many items a Go slice converted from n Python items is
// made with: n up to a bound, beyond which it grows with the items converted, so
// that a long list whose first item does not convert costs no Go memory its size.
func preallocItems(n int) int { return min(n, 1<<16) }
