//go:build !godlpack_python

package godlpack

// ext_ctypes_nopython.go: Go stand-ins for ext_ctypes.go's C types, so that the
// extension API (its declarations and rules) builds with no Python headers: go
// doc, gopls, go vet, and an extension's own go test, which checks its module
// (Check) and calls its functions with tensors made in Go. The fields are those
// of ext.h's structs that the untagged files use, with the same names; the
// tensor is laid out as DLPack's DLManagedTensorVersioned, which dlpack/tensor
// reads.

import "unsafe"

type (
	cInt32   = int32
	cInt64   = int64
	cUint64  = uint64
	cUintptr = uintptr
	cDouble  = float64
)

// pyObject and pyTypeObject are opaque: without Python there are none.
type (
	pyObject     struct{}
	pyTypeObject struct{}
)

type cDLDataType struct {
	code, bits uint8
	lanes      uint16
}

type cDLTensor struct {
	data        unsafe.Pointer
	device      struct{ device_type, device_id int32 }
	ndim        int32
	dtype       cDLDataType
	shape       *int64
	strides     *int64
	byte_offset uint64
}

type cManagedTensorVersioned struct {
	version     struct{ major, minor uint32 }
	manager_ctx unsafe.Pointer
	deleter     unsafe.Pointer
	flags       uint64
	dl_tensor   cDLTensor
}

// extArg is one argument of a call: a tensor (m, obj) or a scalar (i, f, s).
type extArg struct {
	m         cManagedTensorVersioned
	obj       *pyObject // a tensor argument's producer object; nil: an absent optional tensor
	go_tensor uintptr
	mut       int32
	i         int64
	f         float64
	s         *byte
	slen      int
}

// extResult is what a call returns.
type extResult struct {
	kind, exc int32
	i         int64
	f         float64
	p         unsafe.Pointer
	n         int64
	fw        int32  // set before the call: the framework of its arrays (ext.h)
	spare_id  uint32 // a released id the call's new instance may take (ext.h); 0 here
}

// cExtFunc is a function's C table, which only a Python build makes.
type cExtFunc struct{}
