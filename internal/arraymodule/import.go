//go:build godlpack_python

package arraymodule

// import.go: godlpack.from_dlpack, the consumer side of DLPack: raw capsules,
// objects with __dlpack__, and types with the C exchange API (torch.Tensor),
// which are imported with no capsule at all.

// #include "arraymodule.h"
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

//export goConsumeCapsule
func goConsumeCapsule(capsule *C.PyObject) *C.PyObject {
	a, err := consumeCapsule(capsule)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

//export goAdoptVersioned
func goAdoptVersioned(m *C.DLManagedTensorVersioned) *C.PyObject {
	a, err := adoptManaged(unsafe.Pointer(m), true)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

// importRequest is what from_dlpack's and asarray's device= and copy= keywords ask.
type importRequest struct {
	cpuDevice bool // device= asked explicitly for (kDLCPU, 0)
	copy      copyMode
}

// copyMode is the copy= keyword (array API standard): one name for it everywhere.
type copyMode int8

const (
	copyIfNeeded copyMode = iota // None: share the memory when possible
	copyAlways                   // True
	copyNever                    // False: an error rather than a copy
)

// object is copy= as __dlpack__ hears it: True or False (borrowed), or nil for None,
// which is not passed at all.
func (c copyMode) object() *C.PyObject {
	switch c {
	case copyAlways:
		return C.gd_true()
	case copyNever:
		return C.gd_false()
	}
	return nil
}

//export goFromDLPack
func goFromDLPack(_ *C.PyObject, args **C.PyObject, nargs C.Py_ssize_t, kwnames *C.PyObject) *C.PyObject {
	if nargs != 1 {
		return fail(typeErrorf("from_dlpack() takes exactly one positional argument (%d given)", nargs))
	}
	argv := unsafe.Slice(args, int(nargs)+kwCount(kwnames))
	x := argv[0]
	var device, copy *C.PyObject
	for i := 0; i < kwCount(kwnames); i++ {
		name, err := goString(C.gd_tuple_item(kwnames, C.Py_ssize_t(i)))
		if err != nil {
			return fail(err)
		}
		switch name {
		case "device":
			device = argv[1+i]
		case "copy":
			copy = argv[1+i]
		default:
			return fail(typeErrorf("from_dlpack() got an unexpected keyword argument '%s'", name))
		}
	}
	req, err := parseImportRequest("from_dlpack", device, copy)
	if err != nil {
		return fail(err)
	}
	a, err := importObject(x, req)
	if err != nil {
		return fail(err)
	}
	return asObject(a)
}

func kwCount(kwnames *C.PyObject) int {
	if kwnames == nil {
		return 0
	}
	return int(C.PyTuple_Size(kwnames))
}

// parseImportRequest reads the device= and copy= keywords of fname (from_dlpack, asarray).
func parseImportRequest(fname string, device, copy *C.PyObject) (importRequest, error) {
	var req importRequest
	if copy != nil && C.gd_is_none(copy) == 0 {
		switch {
		case C.gd_is_true(copy) != 0:
			req.copy = copyAlways
		case C.gd_is_false(copy) != 0:
			req.copy = copyNever
		default:
			return req, typeErrorf("%s(): copy must be True, False or None, not %s", fname, typeName(copy))
		}
	}
	if device == nil || C.gd_is_none(device) != 0 {
		return req, nil
	}
	if C.gd_unicode_check(device) != 0 {
		s, _ := goString(device)
		if s != "cpu" {
			return req, valueErrorf("%s(): unsupported device %q: godlpack arrays live in CPU memory: "+
				"use device=None, 'cpu' or (1, 0), and move the result to the device with that "+
				"device's library (e.g. torch.from_dlpack(a).to('cuda'))", fname, s)
		}
		req.cpuDevice = true
		return req, nil
	}
	items, n, release := heldItems(device, 2)
	defer release()
	if n != 2 {
		return req, typeErrorf("%s(): device must be None, 'cpu' or a (device_type, device_id) tuple", fname)
	}
	dt, err := asInt64(items[0], "device type")
	if err != nil {
		return req, err
	}
	id, err := asInt64(items[1], "device id")
	if err != nil {
		return req, err
	}
	if dt != int64(dlpack.CPU) || id != 0 {
		return req, valueErrorf("%s(): unsupported device (%d, %d): godlpack arrays live in CPU "+
			"memory: use device=None, 'cpu' or (1, 0), and move the result to the device with "+
			"that device's library (e.g. torch.from_dlpack(a).to('cuda'))", fname, dt, id)
	}
	req.cpuDevice = true
	return req, nil
}

func importObject(x *C.PyObject, req importRequest) (*C.gd_array, error) {
	if isArray(x) {
		// Our own array: the protocol would hand back the same memory and owner, so
		// share it directly, or copy it for copy=True whatever its flags say.
		src := toArray(x)
		if req.copy == copyAlways {
			cp, err := copyArray(src)
			if err != nil {
				return nil, err
			}
			cp.flags |= C.GD_FLAG_IS_COPIED
			return cp, nil
		}
		v, err := newView(src, unsafe.Pointer(src.data), arrayShape(src), arrayStrides(src))
		if err == nil && req.cpuDevice {
			v.device_type, v.device_id = C.int32_t(dlpack.CPU), 0 // as below
		}
		return v, err
	}
	// Capsules and producers: dlpack_import.c's flow, the one the fast path takes,
	// with the keywords passed on to __dlpack__ and both lazy-view questions asked.
	var dlDevice *C.PyObject
	if req.cpuDevice {
		if dlDevice = C.gd_device_tuple(C.int32_t(dlpack.CPU), 0); dlDevice == nil {
			return nil, errPySet
		}
		defer C.gd_decref(dlDevice)
	}
	obj := C.gd_import_foreign(x, dlDevice, req.copy.object(), 1)
	if obj == nil {
		return nil, errPySet
	}
	a := toArray(obj)
	if req.cpuDevice {
		// Asked for the CPU, the result says CPU: memory the validator let in is
		// host-readable, however the producer labelled it (kDLCUDAHost...).
		a.device_type, a.device_id = C.int32_t(dlpack.CPU), 0
	}
	// copy=True: unless the producer made this export a copy (IS_COPIED on a tensor
	// it produced for this call), make a Go-owned copy; dropping a releases the
	// producer's tensor now.
	if req.copy == copyAlways && a.flags&C.GD_FLAG_IS_COPIED == 0 {
		cp, err := copyArray(a)
		releaseForeign(asObject(a))
		if err != nil {
			return nil, err
		}
		cp.flags |= C.GD_FLAG_IS_COPIED
		return cp, nil
	}
	return a, nil
}

// releaseForeign drops a reference to an object whose release may run a producer's
// Python code (a capsule, an Array over a foreign tensor), keeping a pending exception.
func releaseForeign(o *C.PyObject) {
	C.gd_decref_keep_error(o)
}
