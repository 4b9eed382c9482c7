//go:build godlpack_python

package cpython

// capsule.go: the consumer side of DLPack's capsule protocol. A capsule named
// "dltensor_versioned" (DLManagedTensorVersioned) or "dltensor" (legacy
// DLManagedTensor) is consumed by renaming it to "used_dltensor_versioned" /
// "used_dltensor": from then on its destructor leaves the tensor alone and the
// consumer calls the producer's deleter exactly once. A capsule the consumer rejects
// is left untouched, unused, so its destructor still calls the deleter when the
// capsule dies: no leak, no double free. The godlpack module's import of a capsule
// (internal/arraymodule) and godlpack.TensorFromCapsule both consume through Claim.
// pyembed/capsule_test.go (TestTensorFromCapsule) and the module's import tests
// (tests/test_import_malformed.py::test_already_consumed_capsule_is_refused_and_left_alone,
// test_capsule_with_a_foreign_name_is_refused_and_left_alone) hold it.

// #include "gd_python.h"
// #include <string.h>
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// Claim consumes the DLPack capsule capsule (a PyObject*, GIL held). check reads
// its managed tensor (f) without taking it: a refusal leaves the capsule as it was,
// and its destructor still calls the deleter. Then Claim renames the capsule used,
// and take takes the tensor over: it is take's from then on, and take must release
// it (call its deleter) if it fails. A capsule that is not a DLPack one, or is
// already used, is an error that leaves it as it was.
func Claim(capsule unsafe.Pointer, check func(f dlpack.Foreign) error,
	take func(managed unsafe.Pointer, versioned bool) error) error {
	c := (*C.PyObject)(capsule)
	name := C.PyCapsule_GetName(c)
	if name == nil && C.PyErr_Occurred() != nil {
		return ErrPySet
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
		return ValueErrorf("this DLPack capsule was already consumed (it is named %q); "+
			"a capsule can be imported only once", BoundedCString(unsafe.Pointer(name)))
	default:
		shown := "NULL"
		if name != nil {
			shown = "'" + BoundedCString(unsafe.Pointer(name)) + "'"
		}
		return ValueErrorf("not a DLPack capsule: its name is %s, expected 'dltensor_versioned' "+
			"or 'dltensor'", shown)
	}
	managed := C.PyCapsule_GetPointer(c, name)
	if managed == nil {
		if C.PyErr_Occurred() != nil {
			return ErrPySet
		}
		return BufferErrorf("DLPack capsule %q holds a NULL pointer", BoundedCString(unsafe.Pointer(name)))
	}
	if err := check(dlpack.ForeignOf(managed, versioned)); err != nil {
		return err // untouched: the capsule's destructor calls the deleter
	}
	if C.PyCapsule_SetName(c, used) != 0 {
		return ErrPySet // cannot fail for a capsule read above; nothing is taken yet
	}
	return take(managed, versioned)
}
