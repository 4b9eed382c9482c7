// Package dlpack is godlpack's pure-Go core: the DLPack v1.3 ABI mirrored as Go
// types, the dtype table and scalar conversions, shape/stride arithmetic, and the
// validation of tensors that foreign producers hand us. It has no cgo and no
// Python, so `go test ./dlpack` covers it on any machine.
//
// The ABI mirrors keep the header's names (DLTensor, DLManagedTensorVersioned,
// DLDataType, ...): each is that C type, field for field. Their layouts are
// written from the facts stated in dlpack.h v1.3; abi_test.go pins every size and
// offset so a layout slip fails a test rather than corrupting a consumer's memory.
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

// DLPackVersion mirrors DLPackVersion.
type DLPackVersion struct {
	Major uint32
	Minor uint32
}

// DLDeviceType mirrors DLDeviceType (an int32-sized C enum).
type DLDeviceType int32

// Device types of dlpack.h v1.3.
const (
	CPU         DLDeviceType = 1
	CUDA        DLDeviceType = 2
	CUDAHost    DLDeviceType = 3
	OpenCL      DLDeviceType = 4
	Vulkan      DLDeviceType = 7
	Metal       DLDeviceType = 8
	VPI         DLDeviceType = 9
	ROCM        DLDeviceType = 10
	ROCMHost    DLDeviceType = 11
	ExtDev      DLDeviceType = 12
	CUDAManaged DLDeviceType = 13
	OneAPI      DLDeviceType = 14
	WebGPU      DLDeviceType = 15
	Hexagon     DLDeviceType = 16
	MAIA        DLDeviceType = 17
	Trn         DLDeviceType = 18
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
func DeviceTypes() iter.Seq[DLDeviceType] {
	return func(yield func(DLDeviceType) bool) {
		for code, name := range deviceTypeNames {
			if name != "" && !yield(DLDeviceType(code)) {
				return
			}
		}
	}
}

// known reports whether t is a device type of v1.3.
func (t DLDeviceType) known() bool {
	return t >= 0 && int(t) < len(deviceTypeNames) && deviceTypeNames[t] != ""
}

// String returns the header name of t ("kDLCPU", ...), or a description with its
// code when t is not a device type of v1.3.
func (t DLDeviceType) String() string {
	if !t.known() {
		return "unknown device type " + strconv.Itoa(int(t))
	}
	return deviceTypeNames[t]
}

// HostAccessible reports whether memory of this device type can be read by the CPU
// through its plain address: CPU memory, and pinned or managed host memory.
func (t DLDeviceType) HostAccessible() bool {
	return t == CPU || t == CUDAHost || t == ROCMHost || t == CUDAManaged
}

// DLDevice mirrors DLDevice.
type DLDevice struct {
	Type DLDeviceType
	ID   int32
}

// DLDataType mirrors DLDataType.
type DLDataType struct {
	Code  uint8
	Bits  uint8
	Lanes uint16
}

// DLTensor mirrors DLTensor. Pointers are unsafe.Pointer because the memory behind
// them belongs to C or to a foreign producer, never to the Go heap.
type DLTensor struct {
	Data       unsafe.Pointer
	Device     DLDevice
	NDim       int32
	DType      DLDataType
	Shape      *int64
	Strides    *int64
	ByteOffset uint64
}

// DLManagedTensor mirrors the legacy DLManagedTensor.
type DLManagedTensor struct {
	DLTensor   DLTensor
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer // void (*)(DLManagedTensor*)
}

// DLManagedTensorVersioned mirrors DLManagedTensorVersioned.
type DLManagedTensorVersioned struct {
	Version    DLPackVersion
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer // void (*)(DLManagedTensorVersioned*)
	Flags      uint64
	DLTensor   DLTensor
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
func (t *DLTensor) ShapeSlice() []int64 { return int64s(t.Shape, t.NDim) }

// StridesSlice views t.Strides as a Go slice (nil for ndim 0 or a NULL pointer).
func (t *DLTensor) StridesSlice() []int64 { return int64s(t.Strides, t.NDim) }

func int64s(p *int64, n int32) []int64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice(p, int(n))
}
