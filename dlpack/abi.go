// Package dlpack is godlpack's pure-Go core: the DLPack v1.3 ABI mirrored as Go
// types, the dtype table and scalar conversions, shape/stride arithmetic, and the
// validation of tensors that foreign producers hand us. It has no cgo and no
// Python, so `go test ./dlpack` covers it on any machine.
//
// The struct layouts below are written from the facts stated in dlpack.h v1.3;
// abi_test.go pins every size and offset so a layout slip fails a test rather than
// corrupting a consumer's memory.
package dlpack

import (
	"iter"
	"strconv"
	"unsafe"
)

// The DLPack version this package speaks.
const (
	MajorVersion = 1
	MinorVersion = 3
)

// Version mirrors DLPackVersion.
type Version struct {
	Major uint32
	Minor uint32
}

// DeviceType mirrors DLDeviceType (an int32-sized C enum).
type DeviceType int32

// Device types of dlpack.h v1.3.
const (
	CPU         DeviceType = 1
	CUDA        DeviceType = 2
	CUDAHost    DeviceType = 3
	OpenCL      DeviceType = 4
	Vulkan      DeviceType = 7
	Metal       DeviceType = 8
	VPI         DeviceType = 9
	ROCM        DeviceType = 10
	ROCMHost    DeviceType = 11
	ExtDev      DeviceType = 12
	CUDAManaged DeviceType = 13
	OneAPI      DeviceType = 14
	WebGPU      DeviceType = 15
	Hexagon     DeviceType = 16
	MAIA        DeviceType = 17
	Trn         DeviceType = 18
)

// deviceTypeNames holds the header name of every device type of v1.3, indexed
// by code ("" for the codes the header skips). Unexported so that no importer
// can change what String and Validate see; DeviceTypes lists it.
var deviceTypeNames = [...]string{
	CPU: "kDLCPU", CUDA: "kDLCUDA", CUDAHost: "kDLCUDAHost", OpenCL: "kDLOpenCL",
	Vulkan: "kDLVulkan", Metal: "kDLMetal", VPI: "kDLVPI", ROCM: "kDLROCM",
	ROCMHost: "kDLROCMHost", ExtDev: "kDLExtDev", CUDAManaged: "kDLCUDAManaged",
	OneAPI: "kDLOneAPI", WebGPU: "kDLWebGPU", Hexagon: "kDLHexagon",
	MAIA: "kDLMAIA", Trn: "kDLTrn",
}

// DeviceTypes yields every device type of v1.3, in code order.
func DeviceTypes() iter.Seq[DeviceType] {
	return func(yield func(DeviceType) bool) {
		for code, name := range deviceTypeNames {
			if name != "" && !yield(DeviceType(code)) {
				return
			}
		}
	}
}

// known reports whether t is a device type of v1.3.
func (t DeviceType) known() bool {
	return t >= 0 && int(t) < len(deviceTypeNames) && deviceTypeNames[t] != ""
}

// String returns the header name of t ("kDLCPU", ...), or a description with its
// code when t is not a device type of v1.3.
func (t DeviceType) String() string {
	if !t.known() {
		return "unknown device type " + strconv.Itoa(int(t))
	}
	return deviceTypeNames[t]
}

// HostAccessible reports whether memory of this device type can be read by the CPU
// through its plain address: CPU memory, and pinned or managed host memory.
func (t DeviceType) HostAccessible() bool {
	return t == CPU || t == CUDAHost || t == ROCMHost || t == CUDAManaged
}

// Device mirrors DLDevice.
type Device struct {
	Type DeviceType
	ID   int32
}

// DataType mirrors DLDataType.
type DataType struct {
	Code  uint8
	Bits  uint8
	Lanes uint16
}

// Tensor mirrors DLTensor. Pointers are unsafe.Pointer because the memory behind
// them belongs to C or to a foreign producer, never to the Go heap.
type Tensor struct {
	Data       unsafe.Pointer
	Device     Device
	NDim       int32
	DType      DataType
	Shape      *int64
	Strides    *int64
	ByteOffset uint64
}

// ManagedTensor mirrors the legacy DLManagedTensor.
type ManagedTensor struct {
	DLTensor   Tensor
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer // void (*)(DLManagedTensor*)
}

// ManagedTensorVersioned mirrors DLManagedTensorVersioned.
type ManagedTensorVersioned struct {
	Version    Version
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer // void (*)(DLManagedTensorVersioned*)
	Flags      uint64
	DLTensor   Tensor
}

// Flag bits of DLManagedTensorVersioned.flags.
const (
	FlagReadOnly          uint64 = 1 << 0
	FlagIsCopied          uint64 = 1 << 1
	FlagSubbyteTypePadded uint64 = 1 << 2
	KnownFlags                   = FlagReadOnly | FlagIsCopied | FlagSubbyteTypePadded
	MaxNDim                      = 64 // the most dimensions we accept; NumPy's limit too
)

// ShapeSlice views t.Shape as a Go slice (nil for ndim 0 or a NULL pointer).
func (t *Tensor) ShapeSlice() []int64 { return int64s(t.Shape, t.NDim) }

// StridesSlice views t.Strides as a Go slice (nil for ndim 0 or a NULL pointer).
func (t *Tensor) StridesSlice() []int64 { return int64s(t.Strides, t.NDim) }

func int64s(p *int64, n int32) []int64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}
