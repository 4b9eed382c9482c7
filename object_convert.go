//go:build godlpack_python

package godlpack

// object_convert.go: Go values to Python objects and back, for Object's calls. The
// Python-to-Go side follows the extension parameters' rules (ext_call.c): an int is
// anything with __index__, a float anything with __float__, a bool exactly True or
// False, a str is UTF-8; a tensor is anything with __dlpack__, without a copy.

// #include "godlpack.h"
// PyObject *gd_embed_tensor_to_py(DLManagedTensorVersioned *m);
// DLManagedTensorVersioned *gd_embed_py_to_tensor(PyObject *x);
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
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
func toPython(v any) (*C.PyObject, error) {
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
		return tupleOf(v)
	case []any:
		return listOf(v)
	case map[string]any:
		return dictOf(v)
	case Kw:
		return dictOf(v)
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

// tensorToPython moves t into a new godlpack.Array (GIL held).
func tensorToPython(t *tensor.Tensor) (*C.PyObject, error) {
	if t == nil {
		return C.gd_none(), nil
	}
	m, err := t.Export()
	if err != nil {
		return nil, err
	}
	a := C.gd_embed_tensor_to_py((*C.DLManagedTensorVersioned)(m))
	if a == nil {
		return nil, errPySet
	}
	return a, nil
}

func tupleOf(items []any) (*C.PyObject, error) {
	t := C.PyTuple_New(C.Py_ssize_t(len(items)))
	if t == nil {
		return nil, errPySet
	}
	for i, item := range items {
		v, err := toPython(item)
		if err != nil {
			C.gd_decref(t) // the items set so far with it; the rest are NULL
			return nil, argError(i, err)
		}
		C.gd_tuple_set(t, C.Py_ssize_t(i), v)
	}
	return t, nil
}

func listOf(items []any) (*C.PyObject, error) {
	l := C.PyList_New(C.Py_ssize_t(len(items)))
	if l == nil {
		return nil, errPySet
	}
	for i, item := range items {
		v, err := toPython(item)
		if err != nil {
			C.gd_decref(l)
			return nil, argError(i, err)
		}
		C.gd_list_set(l, C.Py_ssize_t(i), v)
	}
	return l, nil
}

func dictOf[M ~map[string]any](m M) (*C.PyObject, error) {
	d := C.PyDict_New()
	if d == nil {
		return nil, errPySet
	}
	for k, item := range m {
		v, err := toPython(item)
		if err != nil {
			C.gd_decref(d)
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		key, err := toPython(k)
		if err != nil {
			C.gd_decref(v)
			C.gd_decref(d)
			return nil, err
		}
		rc := C.PyDict_SetItem(d, key, v)
		C.gd_decref(key)
		C.gd_decref(v)
		if rc < 0 {
			C.gd_decref(d)
			return nil, errPySet
		}
	}
	return d, nil
}

// argError names the item a Go-side conversion error is about; a Python exception
// (errPySet) stays as it is, to be taken with its traceback.
func argError(i int, err error) error {
	if err == errPySet {
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
	err := o.with(func(p *C.PyObject) error {
		v = float64(C.PyFloat_AsDouble(p))
		if v == -1 {
			return pyCheck()
		}
		return nil
	})
	return v, err
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

// pyTensor is Tensor (object_api.go), with Python.
func (o *Object) pyTensor() (*tensor.Tensor, error) {
	var m unsafe.Pointer
	err := o.with(func(p *C.PyObject) error {
		m = unsafe.Pointer(C.gd_embed_py_to_tensor(p))
		if m == nil {
			return errPySet
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tensor.FromManaged(m)
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

// maxDepth bounds toGo's recursion: a self-containing list must not overflow.
const maxDepth = 100

func toGo(p *C.PyObject, depth int) (any, error) {
	if depth > maxDepth {
		return nil, valueErrorf("nested more than %d deep (or a container holding itself)", maxDepth)
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
		n := int(C.PySequence_Size(p))
		out := make([]any, n)
		for i := range n {
			item := C.gd_seq_item_new(p, C.Py_ssize_t(i))
			if item == nil { // the list is shorter now (another thread, or an item's code)
				return nil, errPySet
			}
			v, err := toGo(item, depth+1)
			C.gd_decref(item)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case C.gd_dict_check(p) != 0:
		return dictToGo(p, depth)
	}
	return nil, typeErrorf("no Go value for a Python %s: hold it as *godlpack.Object", typeName(p))
}

func dictToGo(p *C.PyObject, depth int) (any, error) {
	if p = C.gd_dict_for_walk(p); p == nil { // a copy on a free-threaded build
		return nil, errPySet
	}
	defer C.gd_decref(p)
	out := map[string]any{}
	var pos C.Py_ssize_t
	var k, v *C.PyObject
	for C.PyDict_Next(p, &pos, &k, &v) != 0 { // borrowed: held by the dict, GIL held
		key, err := strValue(k)
		if err != nil {
			return nil, typeErrorf("a dict key is a %s: only str keys convert to Go", typeName(k))
		}
		C.gd_incref(v) // converting an item may run Python code that changes the dict
		item, err := toGo(v, depth+1)
		C.gd_decref(v)
		if err != nil {
			return nil, err
		}
		out[key] = item
	}
	return out, nil
}
