//go:build godlpack_python

package godlpack

// stream.go: the stream policy of the DLPack C exchange API, i.e. what
// current_work_stream (DLPackExchangeAPI) answers for each device type: the rule of
// every exchange-API table a library built with godlpack publishes (the godlpack
// module's, internal/arraymodule/exchange.c, points at gd_xchg_current_work_stream
// here), kept with the rest of the DLPack protocol this package speaks (capsule.go,
// exchange.go).
//
// godlpack never launches work on a device, so it has no work stream of its own.
// The policy, per DLPack device type:
//
//   - kDLCPU: NULL, success. The header says a CPU-only framework may always
//     answer NULL for the CPU, and consumers need not even ask.
//   - the other host-accessible types an Array can carry after an import
//     (kDLCUDAHost, kDLROCMHost, kDLCUDAManaged, see dlpack.DLDeviceType.HostAccessible):
//     NULL, success. Such an Array keeps its producer's device type in the tensors
//     it exports, and a consumer (TVM-FFI) asks for the stream of every non-CPU
//     tensor it receives: failing there would fail the consumer's whole call. We
//     enqueue no work, so there is nothing to order against: NULL (the legacy
//     default stream) is the truthful answer.
//   - every other type (kDLCUDA, kDLROCM, kDLOneAPI, ...) and unknown codes:
//     -1 with a ValueError naming the device type. godlpack has no such device, so
//     no stream can be current on it for godlpack, and answering NULL would let a
//     consumer believe it is synchronized with us.
//
// current_work_stream is a hot path (TVM-FFI may call it on every call), so it is
// C, in the preamble below, with no C->Go crossing; Go only fills its table once,
// at module init, from the device table of the dlpack core package (the single
// source of truth for device names and host accessibility).

/*
#include "gd_python.h"

#define GD_STREAM_NTYPES 64

// Filled once by initStreamPolicy (module init, GIL held), read-only afterwards.
static const char *device_names[GD_STREAM_NTYPES];   // "kDLCUDA", ...; NULL: no such type
static unsigned char null_stream_ok[GD_STREAM_NTYPES]; // 1: memory we can hold; stream NULL

static void gd_stream_policy_set(int32_t t, const char *name, int null_ok) {
	if (t >= 0 && t < GD_STREAM_NTYPES) {
		device_names[t] = name;
		null_stream_ok[t] = (unsigned char)(null_ok != 0);
	}
}

const char *gd_device_type_name(int32_t t) {
	if (t >= 0 && t < GD_STREAM_NTYPES && device_names[t] != NULL) {
		return device_names[t];
	}
	return "<unknown device type>";
}

// DLPackCurrentWorkStream for godlpack. GIL held (it may set a Python exception).
int gd_xchg_current_work_stream(int32_t device_type, int32_t device_id, void **out) {
	if (out == NULL) {
		PyErr_SetString(PyExc_ValueError, "godlpack current_work_stream: out_current_stream is NULL");
		return -1;
	}
	if (device_type == GD_KDLCPU ||
	    (device_type >= 0 && device_type < GD_STREAM_NTYPES && null_stream_ok[device_type])) {
		*out = NULL;
		return 0;
	}
	*out = NULL;
	PyErr_Format(PyExc_ValueError,
	             "godlpack current_work_stream: godlpack has no %s device (device_type=%d, "
	             "device_id=%d) and so no work stream on it; its arrays live in host memory",
	             gd_device_type_name(device_type), (int)device_type, (int)device_id);
	return -1;
}
*/
import "C"

import "github.com/godlpack/godlpack/dlpack"

// init writes the device names and the NULL-stream policy into the C table read
// by current_work_stream, before any module's exec can publish a table that calls
// it. The name strings are C strings kept for the life of the process (about
// twenty of them, allocated once).
func init() {
	for d := range dlpack.DeviceTypes() {
		ok := C.int(0)
		if d.HostAccessible() {
			ok = 1
		}
		C.gd_stream_policy_set(C.int32_t(d), C.CString(d.String()), ok)
	}
}
