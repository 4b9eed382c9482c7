//go:build godlpack_python

package arraymodule

// oneapi.go: the import of kDLOneAPI tensors (SYCL USM: dpnp, dpctl). Their memory is
// ours to use when the CPU can address it, which only the SYCL runtime knows: USM
// host and shared allocations, and any allocation on a CPU device. oneapi.c asks it
// through dpctl's C interface, as dpctl's DLPack document describes; such a tensor is
// then imported without a copy and labelled kDLCPU (docs/internals/capsules.md,
// "kDLOneAPI", says why). Any other answer refuses it as any non-CPU device is refused: a
// ValidationError on "device", which setError turns into the BufferError that names
// from_dlpack(x, device=(1, 0)).

// #cgo LDFLAGS: -ldl
// #include "arraymodule.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// validateOneAPI validates a kDLOneAPI tensor as CPU memory once the SYCL runtime
// says the CPU can address it. f's version has been found readable.
func validateOneAPI(f dlpack.Foreign) (*dlpack.Validated, error) {
	t := *f.Tensor
	if t.Data != nil { // NULL: no elements to read (the validator checks that)
		if err := oneAPICPUAccessible(t.Device.ID, t.Data); err != nil {
			return nil, err
		}
	}
	t.Device = dlpack.DLDevice{Type: dlpack.CPU}
	f.Tensor = &t
	return dlpack.Validate(f)
}

// oneAPICPUAccessible asks dpctl's runtime about data (the tensor's data field, as the
// protocol asks) on root device id: nil when the CPU may read and write it.
func oneAPICPUAccessible(id int32, data unsafe.Pointer) error {
	var ans C.gd_oneapi_answer
	C.gd_oneapi_cpu_accessible(C.int32_t(id), data, &ans)
	detail := C.GoString(&ans.detail[0])
	var why string
	switch ans.status {
	case C.GD_ONEAPI_OK:
		return nil
	case C.GD_ONEAPI_NO_DPCTL:
		why = "whether a SYCL USM pointer is host, shared or device memory is the SYCL " +
			"runtime's to say, which godlpack asks through dpctl, and dpctl is not imported " +
			"in this process"
	case C.GD_ONEAPI_LOAD_FAILED:
		why = "loading dpctl's C interface failed: " + detail
	case C.GD_ONEAPI_NO_DEVICE:
		why = fmt.Sprintf("the SYCL runtime lists %d root device(s), none of them device_id %d",
			int64(ans.ndevices), id)
	case C.GD_ONEAPI_UNKNOWN_POINTER:
		why = fmt.Sprintf("its data pointer %p is not a USM allocation of the default "+
			"platform context of SYCL device %d (%s)", data, id, detail)
	default: // C.GD_ONEAPI_DEVICE_USM
		why = fmt.Sprintf("it is device USM on %s, which is not a CPU device", detail)
	}
	return &dlpack.ValidationError{Field: "device", Msg: fmt.Sprintf(
		"device kDLOneAPI (device_type=%d, device_id=%d) is not CPU-accessible: %s; its "+
			"producer must copy it to CPU memory (DLPack: dl_device=(kDLCPU, 0))",
		int32(dlpack.OneAPI), id, why)}
}
