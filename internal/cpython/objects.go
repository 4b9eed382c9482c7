//go:build godlpack_python

package cpython

// objects.go: small questions asked of any Python object. The object is a
// PyObject* as an unsafe.Pointer (see the package comment); the GIL is held.

// #include "gd_python.h"
// #include <string.h>
import "C"

import "unsafe"

// maxGoString bounds the strings copied from names Python code chose: no name
// godlpack compares against is that long, so a cut one matches nothing.
const maxGoString = 4096

// TypeName is the name of o's type, as its tp_name says.
func TypeName(o unsafe.Pointer) string {
	tp := (*C.PyTypeObject)(unsafe.Pointer(C.gd_type_of((*C.PyObject)(o))))
	return BoundedCString(unsafe.Pointer(tp.tp_name))
}

// BoundedCString copies a C string that Python code chose (a type's or a capsule's
// name) into Go, cut to 4096 bytes with "..." added.
func BoundedCString(p unsafe.Pointer) string {
	cs := (*C.char)(p)
	n := C.strnlen(cs, maxGoString+1)
	if n > maxGoString {
		return C.GoStringN(cs, maxGoString) + "..."
	}
	return C.GoStringN(cs, C.int(n))
}

// AsInt64 converts anything with __index__ (int, NumPy's integers) to an int64;
// what names the value in the error.
func AsInt64(o unsafe.Pointer, what string) (int64, error) {
	po := (*C.PyObject)(o)
	if C.gd_index_check(po) == 0 {
		return 0, TypeErrorf("%s must be an integer, not %s", what, TypeName(o))
	}
	idx := C.PyNumber_Index(po)
	if idx == nil {
		return 0, ErrPySet
	}
	var overflow C.int
	v := C.PyLong_AsLongLongAndOverflow(idx, &overflow)
	C.gd_decref(idx)
	if overflow != 0 {
		return 0, OverflowErrorf("%s does not fit in int64", what)
	}
	if v == -1 {
		if err := PyCheck(); err != nil {
			return 0, err
		}
	}
	return int64(v), nil
}
