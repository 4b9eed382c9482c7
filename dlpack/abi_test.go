package dlpack

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// The offsets and sizes of dlpack.h v1.3 on LP64 platforms. A mismatch here would
// make every consumer read garbage, so each is pinned.
func TestABILayoutMatchesHeader(t *testing.T) {
	var tn DLTensor
	var mt DLManagedTensor
	var mv DLManagedTensorVersioned
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(DLPackVersion)", unsafe.Sizeof(DLPackVersion{}), 8},
		{"sizeof(DLDevice)", unsafe.Sizeof(DLDevice{}), 8},
		{"sizeof(DLDataType)", unsafe.Sizeof(DLDataType{}), 4},
		{"sizeof(DLTensor)", unsafe.Sizeof(tn), 48},
		{"DLTensor.device", unsafe.Offsetof(tn.Device), 8},
		{"DLTensor.ndim", unsafe.Offsetof(tn.NDim), 16},
		{"DLTensor.dtype", unsafe.Offsetof(tn.DType), 20},
		{"DLTensor.shape", unsafe.Offsetof(tn.Shape), 24},
		{"DLTensor.strides", unsafe.Offsetof(tn.Strides), 32},
		{"DLTensor.byte_offset", unsafe.Offsetof(tn.ByteOffset), 40},
		{"sizeof(DLManagedTensor)", unsafe.Sizeof(mt), 64},
		{"DLManagedTensor.manager_ctx", unsafe.Offsetof(mt.ManagerCtx), 48},
		{"DLManagedTensor.deleter", unsafe.Offsetof(mt.Deleter), 56},
		{"sizeof(DLManagedTensorVersioned)", unsafe.Sizeof(mv), 80},
		{"DLManagedTensorVersioned.manager_ctx", unsafe.Offsetof(mv.ManagerCtx), 8},
		{"DLManagedTensorVersioned.deleter", unsafe.Offsetof(mv.Deleter), 16},
		{"DLManagedTensorVersioned.flags", unsafe.Offsetof(mv.Flags), 24},
		{"DLManagedTensorVersioned.dl_tensor", unsafe.Offsetof(mv.DLTensor), 32},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestHostAccessibleDevices(t *testing.T) {
	for d := range DeviceTypes() {
		want := d == CPU || d == CUDAHost || d == ROCMHost || d == CUDAManaged
		if got := d.HostAccessible(); got != want {
			t.Errorf("%s.HostAccessible() = %v, want %v", d, got, want)
		}
	}
}

func TestDeviceTypes(t *testing.T) {
	want := []DLDeviceType{CPU, CUDA, CUDAHost, OpenCL, Vulkan, Metal, VPI, ROCM, ROCMHost,
		ExtDev, CUDAManaged, OneAPI, WebGPU, Hexagon, MAIA, Trn}
	if got := slices.Collect(DeviceTypes()); !slices.Equal(got, want) {
		t.Fatalf("DeviceTypes() = %v; want %v", got, want)
	}
	for code := DLDeviceType(-2); code <= Trn+2; code++ {
		listed := slices.Contains(want, code)
		if name := code.String(); strings.HasPrefix(name, "kDL") != listed || code.known() != listed {
			t.Errorf("DLDeviceType(%d): String() %q, known() %v; listed %v", code, name, code.known(), listed)
		}
	}
	for d := range DeviceTypes() { // stopping early must not panic
		if d == CUDA {
			break
		}
	}
}
