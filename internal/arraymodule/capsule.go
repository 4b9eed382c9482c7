//go:build godlpack_python

package arraymodule

// capsule.go: the consumer side of DLPack's capsule protocol. A capsule named
// "dltensor_versioned" (DLManagedTensorVersioned) or "dltensor" (legacy
// DLManagedTensor) is consumed by renaming it to "used_dltensor_versioned" /
// "used_dltensor": from then on its destructor leaves the tensor alone and we call
// the producer's deleter exactly once, when the last Array viewing it is gone
// (owner.c). A capsule we reject is left untouched, unused, so its destructor
// still calls the deleter when the capsule dies: no leak, no double free.
//
// The producer side (naming our exports, their destructors) is in
// dlpack_export.c: it is the hot path and makes no C->Go crossing.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// consumeCapsule imports a DLPack capsule as an Array that owns its tensor.
func consumeCapsule(capsule *C.PyObject) (*C.gd_array, error) {
	name := C.PyCapsule_GetName(capsule)
	if name == nil && C.PyErr_Occurred() != nil {
		return nil, errPySet
	}
	var versioned bool
	var used *C.char
	switch {
	case name != nil && C.strcmp(name, C.gd_name_versioned) == 0:
		versioned, used = true, C.gd_name_used_versioned
	case name != nil && C.strcmp(name, C.gd_name_legacy) == 0:
		versioned, used = false, C.gd_name_used_legacy
	case name != nil && (C.strcmp(name, C.gd_name_used_versioned) == 0 ||
		C.strcmp(name, C.gd_name_used_legacy) == 0):
		return nil, valueErrorf("this DLPack capsule was already consumed (it is named %q); "+
			"a capsule can be imported only once", boundedCString(name))
	default:
		shown := "NULL"
		if name != nil {
			shown = "'" + boundedCString(name) + "'"
		}
		return nil, valueErrorf("not a DLPack capsule: its name is %s, expected 'dltensor_versioned' "+
			"or 'dltensor'", shown)
	}
	managed := C.PyCapsule_GetPointer(capsule, name)
	if managed == nil {
		if C.PyErr_Occurred() != nil {
			return nil, errPySet
		}
		return nil, bufferErrorf("DLPack capsule %q holds a NULL pointer", boundedCString(name))
	}
	view, err := validateManaged(managed, versioned)
	if err != nil {
		return nil, err // untouched: the capsule's destructor calls the deleter
	}
	a, err := arrayFromView(view, managed, versioned)
	if err != nil {
		return nil, err
	}
	// From here on we own the tensor; renaming cannot fail for a valid capsule.
	if C.PyCapsule_SetName(capsule, used) != 0 {
		a.owner.foreign = nil // never call a deleter we do not own
		C.gd_decref(asObject(a))
		return nil, errPySet
	}
	return a, nil
}

// validateManaged reads a managed tensor through the core validator. For a
// versioned tensor of another major version only the version is read. A kDLOneAPI
// tensor is CPU memory when the SYCL runtime says so (oneapi.go).
func validateManaged(managed unsafe.Pointer, versioned bool) (*dlpack.View, error) {
	var f dlpack.Foreign
	if versioned {
		m := (*dlpack.ManagedTensorVersioned)(managed)
		f = dlpack.Foreign{Tensor: &m.DLTensor, Versioned: true, Version: m.Version, Flags: m.Flags}
	} else {
		f = dlpack.Foreign{Tensor: &((*dlpack.ManagedTensor)(managed)).DLTensor}
	}
	if (!versioned || f.Version.Major == dlpack.MajorVersion) && f.Tensor.Device.Type == dlpack.OneAPI {
		return validateOneAPI(f)
	}
	return dlpack.Validate(f)
}

// arrayFromView makes the Array for a validated foreign tensor, with a new owner
// that will call the producer's deleter. On error nothing was taken over.
func arrayFromView(v *dlpack.View, managed unsafe.Pointer, versioned bool) (*C.gd_array, error) {
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
// kept aside: the deleter may run the producer's Python code (godlpack.h says why).
func callDeleter(m unsafe.Pointer, versioned bool) {
	v := C.int(0)
	if versioned {
		v = 1
	}
	C.gd_call_deleter_keep_error(m, v)
}
