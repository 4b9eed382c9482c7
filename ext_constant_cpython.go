//go:build godlpack_python

package godlpack

// ext_constant_cpython.go: a module's constants and IntEnum classes
// (ext_constant.go) added to the module object at exec.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
// int gd_ext_add_intenum(PyObject *m, const char *module, const char *name, const char *doc, int n,
//                        const char **names, const int64_t *values, int export, int id);
import "C"

import "unsafe"

// addConstants adds m's constants and enumerations to the module object mod
// (GIL held): 0, or -1 with an exception.
func (m *moduleSpec) addConstants(mod *pyObject) C.int {
	for _, c := range m.consts {
		if c.addTo(mod) < 0 {
			return -1
		}
	}
	for _, e := range m.enums {
		if e.addTo(mod, m.name) < 0 {
			return -1
		}
	}
	return 0
}

func (c *Constant) addTo(mod *pyObject) C.int {
	var v *pyObject
	switch x := c.value.(type) {
	case int64:
		v = C.PyLong_FromLongLong(C.longlong(x))
	case uint64:
		v = C.PyLong_FromUnsignedLongLong(C.ulonglong(x))
	case float64:
		v = C.PyFloat_FromDouble(C.double(x))
	case bool:
		b := C.long(0)
		if x {
			b = 1
		}
		v = C.PyBool_FromLong(b)
	case string:
		b := cBytes(x)
		v = C.PyUnicode_FromStringAndSize((*C.char)(b), C.Py_ssize_t(len(x)))
		C.free(b)
	}
	if v == nil {
		return -1
	}
	name := C.CString(c.name)
	defer C.free(unsafe.Pointer(name))
	rc := C.PyModule_AddObjectRef(mod, name, v)
	C.Py_DecRef(v)
	return rc
}

func (e *Enum) addTo(mod *pyObject, module string) C.int {
	n := len(e.members)
	names := (**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	values := (*C.int64_t)(C.calloc(C.size_t(max(n, 1)), 8))
	cname, cmod, cdoc := C.CString(e.name), C.CString(module), C.CString(e.doc)
	defer func() {
		for _, s := range unsafe.Slice(names, n) {
			C.free(unsafe.Pointer(s))
		}
		for _, p := range []unsafe.Pointer{unsafe.Pointer(names), unsafe.Pointer(values),
			unsafe.Pointer(cname), unsafe.Pointer(cmod), unsafe.Pointer(cdoc)} {
			C.free(p)
		}
	}()
	for i, mb := range e.members {
		unsafe.Slice(names, n)[i] = C.CString(mb.name)
		unsafe.Slice(values, n)[i] = C.int64_t(mb.value)
	}
	export := C.int(0)
	if e.export {
		export = 1
	}
	return C.gd_ext_add_intenum(mod, cmod, cname, cdoc, C.int(n), names, values, export, C.int(e.id))
}
