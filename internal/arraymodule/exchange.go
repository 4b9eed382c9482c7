//go:build godlpack_python

package arraymodule

// exchange.go: the Go half of godlpack's DLPack C exchange API (DLPackExchangeAPI,
// DLPack v1.3), whose table and hot functions are C, in exchange.c and stream.go.
//
// At module init registerExchangeAPI fills the stream policy the C functions read
// (stream.go; the allocator's dtypes are dtypes.go's) and sets the class
// attributes on godlpack.Array:
//
//	__dlpack_c_exchange_api__  PyCapsule named "dlpack_exchange_api" (DLPack v1.3)
//	__c_dlpack_exchange_api__  the same address as an int, the convention before
//	                           the rename (docs/internals/exchange-api.md has the evidence)
//
// Go runs in only one of the five functions, managed_tensor_to_py_object_no_sync,
// and only for tensors that are not plain (the C check of fast_import.h declines
// them): goExchangeToPyObject below validates them with the core validator.

/*
#include "arraymodule.h"
int gd_xchg_register(void);
*/
import "C"

import (
	"fmt"
	"github.com/godlpack/godlpack/internal/cpython"
	"unsafe"
)

// registerExchangeAPI sets up the exchange API on godlpack.Array. Called once per
// process from module.c's exec function, with the GIL held, after the dtype tables
// (dtypes.go) are filled. On error a Python exception is set (errPySet).
func registerExchangeAPI() error {
	if C.gd_xchg_register() != 0 {
		return errPySet
	}
	return nil
}

// goExchangeToPyObject is managed_tensor_to_py_object_no_sync after exchange.c
// has checked its pointers (m and out are not NULL): it wraps the producer's
// DLManagedTensorVersioned in a new godlpack.Array that owns it (the deleter runs
// when the last Array or export viewing it is gone).
//
// It must be called with the GIL held: it creates a Python object and sets a
// Python exception on failure. The DLPack spec's consumers (TVM-FFI) call it with
// the GIL held, when they turn a returned tensor into the caller's array type.
//
// On failure it returns -1 with a Python exception set (BufferError naming the
// field the core validator rejected, MemoryError, ...), *out is NULL, and the
// tensor was NOT taken: its deleter has not been called, the caller still owns
// it. That matches PyTorch 2.15's implementation, and TVM-FFI 0.1.15 calls the
// deleter itself after a failure: calling it here too would free it twice. This
// is why adoptManaged (which calls the deleter on failure) is not used here.
//
//export goExchangeToPyObject
func goExchangeToPyObject(m *C.DLManagedTensorVersioned, out *unsafe.Pointer) (rc C.int) {
	// A Go panic must not unwind into the C caller. The tensor's fate is unknown
	// after one, so it is left to the caller (at worst a leak, never a double free).
	defer func() {
		if r := recover(); r != nil {
			*out = nil
			cpython.Raise(cpython.RuntimeError, fmt.Sprintf(
				"godlpack managed_tensor_to_py_object_no_sync: internal error: %v", r))
			rc = -1
		}
	}()
	a, err := adoptForExchange(unsafe.Pointer(m))
	if err != nil {
		*out = nil
		setError(err)
		return -1
	}
	*out = unsafe.Pointer(asObject(a))
	return 0
}

// adoptForExchange is adoptManaged without the deleter call on failure: the
// validated tensor becomes an Array that owns it, or nothing was taken.
func adoptForExchange(m unsafe.Pointer) (*C.gd_array, error) {
	view, err := validateManaged(m, true)
	if err != nil {
		return nil, err
	}
	return arrayFromView(view, m, true)
}
