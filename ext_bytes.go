//go:build godlpack_python

package godlpack

// ext_bytes.go: a []byte parameter's argument, any bytes-like object (the
// buffer protocol, as bytes(x) and hashlib take them): bytes, bytearray,
// memoryview, array.array, a C-contiguous NumPy array.

// #include "ext.h"
import "C"

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
