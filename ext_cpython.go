//go:build godlpack_python

package godlpack

// ext_cpython.go: the C calls of the extension API's untagged files (ext_func.go,
// ext_tensor.go, ext_result.go...): C strings and C memory of a call's arguments
// and results. ext_nopython.go has their stand-ins for a build without Python.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// argString is a str argument's text (a copy: the UTF-8 is the argument's).
func argString(a *extArg) string { return C.GoStringN(a.s, C.int(a.slen)) }

// keepArg keeps a tensor argument's producer memory alive past the call
// (Tensor.Keep): a DLManagedTensorVersioned whose deleter releases it.
func keepArg(a *extArg) (unsafe.Pointer, error) {
	var cerr *C.char
	m := C.gd_ext_keep(a, &cerr)
	if m == nil {
		msg := "godlpack: Keep failed"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.free(unsafe.Pointer(cerr))
		}
		return nil, errors.New(msg)
	}
	return unsafe.Pointer(m), nil
}

// newTuple makes res a tuple of n items, zeroed (C memory that C frees).
func newTuple(res *extResult, n int) ([]extResult, error) {
	items := (*extResult)(C.calloc(C.size_t(max(n, 1)), C.size_t(C.sizeof_gd_ext_result)))
	if items == nil {
		return nil, MemoryError.Errorf("out of memory for a tuple of %d items", n)
	}
	res.kind, res.p, res.n = extRTuple, unsafe.Pointer(items), cInt64(n)
	return unsafe.Slice(items, n), nil
}

// cBytes copies s into C memory (malloc) that C frees.
func cBytes(s string) unsafe.Pointer {
	if len(s) == 0 {
		return C.malloc(1)
	}
	return C.CBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// writeStr writes s as a str result: in r itself when it fits (C frees nothing
// then), else a copy in C memory.
func writeStr(r *extResult, s string) {
	r.kind, r.n = extRStr, cInt64(len(s))
	if len(s) <= len(r.small) {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&r.small[0])), len(s)), s)
		r.p = unsafe.Pointer(&r.small[0])
		return
	}
	r.p = cBytes(s)
}

// writeNumPySmall writes the n elements of bytes bytes at p as a new NumPy array
// inside r (GD_EXT_R_NUMPY_SMALL, of the dtype numpy: ext.h) where r's call
// returns NumPy arrays and they fit, so that C makes the ndarray with NumPy's
// memory and copies them in: no tensor, export or owner for a few elements. False,
// r untouched, otherwise.
func writeNumPySmall(r *extResult, p unsafe.Pointer, bytes, n int, numpy int64) bool {
	if r.fw != C.GD_EXT_FW_NUMPY || numpy < 0 || bytes > len(r.small) {
		return false
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r.small[0])), bytes), unsafe.Slice((*byte)(p), bytes))
	r.kind, r.i, r.n = extRNumPySmall, C.int64_t(numpy), cInt64(n)
	return true
}

// writeError replaces r with an error result.
func writeError(r *extResult, kind Exception, msg string) {
	C.gd_ext_result_free(r)
	r.kind, r.exc, r.p, r.n = extRError, cInt32(kind), cBytes(msg), cInt64(len(msg))
}

// goCall: in the extension, Python calls its functions (Function.Call is for a
// go test, built without Python).
func (f *Function) goCall([]any) (any, error) {
	return nil, fmt.Errorf("godlpack: %s.Call is for a go test (a build without the godlpack_python tag); in the extension, call it from Python", f.name)
}
