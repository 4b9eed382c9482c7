//go:build godlpack_python

package arraymodule

// capsule.go: a DLPack capsule imported as an Array that owns its tensor, through
// the protocol's consume rule (cpython.Claim): the producer's deleter is called
// exactly once, when the last Array viewing the tensor is gone (owner.c).
//
// The producer side (naming our exports, their destructors) is in
// dlpack_export.c: it is the hot path and makes no C->Go crossing.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/internal/cpython"
)

// consumeCapsule imports a DLPack capsule as an Array that owns its tensor.
func consumeCapsule(capsule *C.PyObject) (*C.gd_array, error) {
	var view *dlpack.Validated
	var a *C.gd_array
	err := cpython.Claim(unsafe.Pointer(capsule), func(f dlpack.Foreign) (err error) {
		view, err = validateForeign(f)
		return err
	}, func(managed unsafe.Pointer, versioned bool) (err error) {
		if a, err = arrayFromView(view, managed, versioned); err != nil {
			// Ours since the capsule was renamed: released here, once.
			vflag := C.int(0)
			if versioned {
				vflag = 1
			}
			C.gd_call_deleter_keep_error(managed, vflag)
		}
		return err
	})
	return a, err
}

// validateManaged reads a managed tensor through the core validator. For a
// versioned tensor of another major version only the version is read. A kDLOneAPI
// tensor is CPU memory when the SYCL runtime says so (oneapi.go).
func validateManaged(managed unsafe.Pointer, versioned bool) (*dlpack.Validated, error) {
	return validateForeign(dlpack.ForeignOf(managed, versioned))
}

// validateForeign is validateManaged of a tensor read as f.
func validateForeign(f dlpack.Foreign) (*dlpack.Validated, error) {
	if (!f.Versioned || f.Version.Major == dlpack.MajorVersion) && f.Tensor.Device.Type == dlpack.OneAPI {
		return validateOneAPI(f)
	}
	return dlpack.Validate(f)
}

// arrayFromView makes the Array for a validated foreign tensor, with a new owner
// that will call the producer's deleter. On error nothing was taken over.
func arrayFromView(v *dlpack.Validated, managed unsafe.Pointer, versioned bool) (*C.gd_array, error) {
	a := C.gd_array_alloc(C.int32_t(len(v.Shape)))
	if a == nil {
		return nil, errPySet
	}
	vflag := C.int(0)
	if versioned {
		vflag = 1
	}
	a.owner = C.gd_owner_new_foreign(managed, vflag)
	if a.owner == nil {
		C.gd_decref(asObject(a))
		return nil, memoryErrorf("out of memory importing a DLPack tensor")
	}
	a.data = (*C.char)(v.Data)
	setDType(a, v.DType)
	copy(arrayShape(a), v.Shape)
	copy(arrayStrides(a), v.Strides)
	if v.ReadOnly {
		a.flags |= C.GD_FLAG_READ_ONLY
	}
	if v.IsCopied {
		a.flags |= C.GD_FLAG_IS_COPIED
	}
	if v.Padded {
		a.flags |= C.GD_FLAG_SUBBYTE_PADDED
	}
	a.device_type = C.int32_t(v.Device.Type)
	a.device_id = C.int32_t(v.Device.ID)
	return a, nil
}

// adoptManaged takes ownership of a DLManagedTensorVersioned handed over outside
// any capsule (the exchange API): on success the Array owns it; on failure its
// deleter has been called, as the caller gave it to us.
func adoptManaged(m unsafe.Pointer, versioned bool) (*C.gd_array, error) {
	view, err := validateManaged(m, versioned)
	if err == nil {
		var a *C.gd_array
		if a, err = arrayFromView(view, m, versioned); err == nil {
			return a, nil
		}
	}
	callDeleter(m, versioned)
	return nil, err
}

// callDeleter calls a producer's deleter (GIL held) with any pending Python exception
// kept aside: the deleter may run the producer's Python code (gd_python.h says why).
func callDeleter(m unsafe.Pointer, versioned bool) {
	v := C.int(0)
	if versioned {
		v = 1
	}
	C.gd_call_deleter_keep_error(m, v)
}
