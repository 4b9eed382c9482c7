//go:build godlpack_python

package godlpack

// exchange.go: tensors handed between Go and Python by this package (a result or a
// callback argument made from a *tensor.Tensor, FromGo, Object.Tensor,
// TensorFromCapsule) cross through the godlpack module's DLPack C exchange API, which
// its C-API (internal/cheaders/godlpack_capi.h) hands every library: Go's tensor
// becomes a godlpack.Array owning it, and a Python producer's tensor (any framework,
// through from_dlpack's flow) a *tensor.Tensor whose deleter keeps the producer
// alive, with no copy either way (object.c).

// #include "ext.h"
// #include "gd_python.h"
// PyObject *gd_tensor_to_py(DLManagedTensorVersioned *m);
// DLManagedTensorVersioned *gd_py_to_tensor(PyObject *x);
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/cpython"
)

// tensorToPython moves t into a new godlpack.Array (GIL held).
func tensorToPython(t *tensor.Tensor) (*C.PyObject, error) {
	if t == nil {
		return C.gd_none(), nil
	}
	m, err := t.Export()
	if err != nil {
		return nil, err
	}
	a := C.gd_tensor_to_py((*C.DLManagedTensorVersioned)(m))
	if a == nil {
		return nil, errPySet
	}
	return a, nil
}

// pyTensor is Tensor (object_api.go), with Python.
func (o *Object) pyTensor() (*tensor.Tensor, error) {
	var m unsafe.Pointer
	err := o.with(func(p *C.PyObject) (err error) {
		m, err = pyToManaged(p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return tensor.FromManaged(m)
}

// pyToManaged imports p's tensor (GIL held): a DLManagedTensorVersioned for
// tensor.FromManaged, which needs no GIL.
func pyToManaged(p *C.PyObject) (unsafe.Pointer, error) {
	m := unsafe.Pointer(C.gd_py_to_tensor(p))
	if m == nil {
		return nil, errPySet
	}
	return m, nil
}

// pyCapsuleTensor is TensorFromCapsule (capsule.go), with Python: the capsule
// consumed by the protocol's rule (cpython.Claim), the tensor validated before and
// taken by dlpack/tensor after the rename.
func (o *Object) pyCapsuleTensor() (*tensor.Tensor, error) {
	if o == nil {
		return nil, TypeError.Errorf("godlpack.TensorFromCapsule: the capsule is a nil *Object")
	}
	var t *tensor.Tensor
	err := o.with(func(p *C.PyObject) error {
		if C.gd_capsule_check(p) == 0 {
			return typeErrorf("godlpack.TensorFromCapsule: expected a DLPack capsule (PyCapsule), got %s", typeName(p))
		}
		return cpython.Claim(unsafe.Pointer(p), func(f dlpack.Foreign) error {
			_, err := dlpack.Validate(f)
			return err
		}, func(managed unsafe.Pointer, versioned bool) (err error) {
			// On failure FromManaged has called the deleter, as take must.
			if versioned {
				t, err = tensor.FromManaged(managed)
			} else {
				t, err = tensor.FromManagedLegacy(managed)
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
