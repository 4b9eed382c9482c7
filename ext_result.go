//go:build godlpack_python

package godlpack

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
import "C"

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// resultWriter chooses, once, how f's result R is written for C to build: nil
// for None, which needs nothing written (write makes no call then).
func resultWriter[R any](f *Function) func(R, *C.gd_ext_result) error {
	var zero R
	var w any
	f.result = reflect.TypeFor[R]()
	switch any(zero).(type) {
	case None:
		return nil
	case *tensor.Tensor:
		w = writeTensor
	case float64:
		w = func(v float64, r *C.gd_ext_result) error {
			r.kind, r.f = C.GD_EXT_R_FLOAT, C.double(v)
			return nil
		}
	case int64:
		w = func(v int64, r *C.gd_ext_result) error {
			r.kind, r.i = C.GD_EXT_R_INT, C.int64_t(v)
			return nil
		}
	case int:
		w = func(v int, r *C.gd_ext_result) error {
			r.kind, r.i = C.GD_EXT_R_INT, C.int64_t(v)
			return nil
		}
	case bool, string, Tuple:
		w = func(v R, r *C.gd_ext_result) error { return writeValue(any(v), r) }
	default:
		if t := reflect.TypeFor[R](); t.Kind() != reflect.Interface || t.NumMethod() != 0 {
			f.fail("unsupported result type %v (use *tensor.Tensor, None, int64, int, float64, bool, string, Tuple or any)", t)
		}
		w = func(v R, r *C.gd_ext_result) error { return writeValue(any(v), r) }
	}
	return w.(func(R, *C.gd_ext_result) error)
}

// write writes r with w, a resultWriter's (nil: None, nothing to write).
func write[R any](w func(R, *C.gd_ext_result) error, r R, res *C.gd_ext_result) error {
	if w == nil {
		return nil
	}
	return w(r, res)
}

func writeTensor(t *tensor.Tensor, r *C.gd_ext_result) error {
	if t == nil {
		return nil // None
	}
	m, err := t.Export() // C memory, handed to the new godlpack.Array
	if err != nil {
		return err
	}
	r.kind, r.p = C.GD_EXT_R_ARRAY, m
	return nil
}

// writeValue writes a result whose type is known only now (Tuple items, any).
func writeValue(v any, r *C.gd_ext_result) error {
	switch v := v.(type) {
	case nil, None:
		return nil
	case *tensor.Tensor:
		return writeTensor(v, r)
	case float64:
		r.kind, r.f = C.GD_EXT_R_FLOAT, C.double(v)
	case float32:
		r.kind, r.f = C.GD_EXT_R_FLOAT, C.double(v)
	case int:
		r.kind, r.i = C.GD_EXT_R_INT, C.int64_t(v)
	case int64:
		r.kind, r.i = C.GD_EXT_R_INT, C.int64_t(v)
	case int32:
		r.kind, r.i = C.GD_EXT_R_INT, C.int64_t(v)
	case bool:
		r.kind, r.i = C.GD_EXT_R_BOOL, 0
		if v {
			r.i = 1
		}
	case string:
		r.kind, r.p, r.n = C.GD_EXT_R_STR, cBytes(v), C.int64_t(len(v))
	case Tuple:
		items := (*C.gd_ext_result)(C.calloc(C.size_t(max(len(v), 1)), C.size_t(unsafe.Sizeof(C.gd_ext_result{}))))
		if items == nil {
			return MemoryError.Errorf("out of memory for a tuple of %d items", len(v))
		}
		r.kind, r.p, r.n = C.GD_EXT_R_TUPLE, unsafe.Pointer(items), C.int64_t(len(v))
		for i, item := range v {
			if err := writeValue(item, &unsafe.Slice(items, len(v))[i]); err != nil {
				return err // the caller frees r, the items written so far included
			}
		}
	default:
		if _, ok := boundClasses[reflect.TypeOf(v)]; ok { // a bound class's *T: its instance
			return instanceWriter(reflect.TypeOf(v))(reflect.ValueOf(v), r)
		}
		// complex, []byte, []any, map[string]any, *Object: made in Go with the GIL
		return writeObject(reflect.ValueOf(v), r)
	}
	return nil
}

// cBytes copies s into C memory (malloc) that C frees.
func cBytes(s string) unsafe.Pointer {
	if len(s) == 0 {
		return C.malloc(1)
	}
	return C.CBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// writeError replaces r with an error result.
func writeError(r *C.gd_ext_result, kind Exception, msg string) {
	C.gd_ext_result_free(r)
	r.kind, r.exc, r.p, r.n = C.GD_EXT_R_ERROR, C.int32_t(kind), cBytes(msg), C.int64_t(len(msg))
}

// refuseBorrowed turns a result that is one of the call's borrowed tensors (an
// argument's AsTensor(), exported) into an error: its memory is the call's.
func refuseBorrowed(f *Function, args []C.gd_ext_arg, r *C.gd_ext_result) {
	switch r.kind {
	case C.GD_EXT_R_ARRAY:
		for i := range args {
			if r.p == unsafe.Pointer(&args[i].m) {
				r.p = nil // not ours to delete
				writeError(r, ValueError, fmt.Sprintf("%s(): returned its borrowed argument %s; return a copy (Clone) or the tensor of Keep", f.name, f.params[i].name))
				return
			}
		}
	case C.GD_EXT_R_TUPLE:
		items := unsafe.Slice((*C.gd_ext_result)(r.p), int(r.n))
		for i := range items {
			refuseBorrowed(f, args, &items[i])
			if items[i].kind == C.GD_EXT_R_ERROR {
				msg := C.GoStringN((*C.char)(items[i].p), C.int(items[i].n))
				writeError(r, ValueError, msg)
				return
			}
		}
	}
}
