// Package ctensor is a DLPack producer and consumer written in C, for the tests
// and benchmarks of package tensor: tensors cross between Go and real C code in
// both directions, and every deleter call is counted. (cgo cannot appear in
// _test.go files, hence a package.)
package ctensor

// #cgo CFLAGS: -I${SRCDIR}/../../internal/cheaders
// #include "ctensor.h"
import "C"

import (
	_ "github.com/godlpack/godlpack/internal/cheaders" // header edits rebuild this package
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// Spec describes a tensor for Produce. Strides nil means NULL strides.
type Spec struct {
	Versioned  bool
	Version    dlpack.DLPackVersion
	Flags      uint64
	Device     dlpack.DLDeviceType
	NDim       int32 // len(Shape) unless set (to make malformed tensors)
	DType      dlpack.DLDataType
	Shape      []int64
	Strides    []int64
	NullData   bool
	ByteOffset uint64
}

// Produce makes a managed tensor in C memory (versioned or legacy per s) whose
// data is a copy of data, and returns it with the id whose deleter calls
// DeleterCalls counts.
func Produce(s Spec, data []byte) (m unsafe.Pointer, id int64) {
	ndim := s.NDim
	if ndim == 0 {
		ndim = int32(len(s.Shape))
	}
	cs := C.ct_spec{
		versioned: boolInt(s.Versioned), major: C.uint32_t(s.Version.Major), minor: C.uint32_t(s.Version.Minor),
		flags: C.uint64_t(s.Flags), device_type: C.int32_t(s.Device), ndim: C.int32_t(ndim),
		code: C.uint8_t(s.DType.Code), bits: C.uint8_t(s.DType.Bits), lanes: C.uint16_t(s.DType.Lanes),
		has_strides: boolInt(s.Strides != nil), null_data: boolInt(s.NullData), byte_offset: C.uint64_t(s.ByteOffset),
	}
	shape := make([]int64, dlpack.MaxNDim)
	strides := make([]int64, dlpack.MaxNDim)
	copy(shape, s.Shape)
	copy(strides, s.Strides)
	var cid C.int64_t
	var dp unsafe.Pointer
	if len(data) > 0 {
		dp = unsafe.Pointer(&data[0])
	}
	p := C.ct_produce(&cs, (*C.int64_t)(&shape[0]), (*C.int64_t)(&strides[0]), dp, C.size_t(len(data)), &cid)
	return p, int64(cid)
}

// DeleterCalls returns how many times the deleter of tensor id has run.
func DeleterCalls(id int64) int { return int(C.ct_deleter_calls(C.int64_t(id))) }

// Seen is what the C consumer read from a tensor's struct.
type Seen struct {
	Version    dlpack.DLPackVersion
	Flags      uint64
	DType      dlpack.DLDataType
	Device     dlpack.DLDeviceType
	Shape      []int64
	Strides    []int64 // all zero when the tensor's strides were NULL
	DataAlign  int64   // data address modulo 256
	Bytes      []byte  // every element's storage bytes in C order (packed sub-byte: raw)
	GatherFail bool
}

// Consume reads m (a DLManagedTensorVersioned* or DLManagedTensor*) in C, every
// element through its strides, then calls its deleter from C unless keep is set.
func Consume(m unsafe.Pointer, versioned bool, keep bool) Seen {
	var seen C.ct_seen
	out := C.ct_malloc(1 << 20)
	defer C.ct_free(out)
	n := C.ct_consume(m, boolInt(versioned), &seen, (*C.uint8_t)(out), 1<<20)
	s := Seen{
		Version: dlpack.DLPackVersion{Major: uint32(seen.major), Minor: uint32(seen.minor)},
		Flags:   uint64(seen.flags), Device: dlpack.DLDeviceType(seen.device_type),
		DType:     dlpack.DLDataType{Code: uint8(seen.code), Bits: uint8(seen.bits), Lanes: uint16(seen.lanes)},
		DataAlign: int64(seen.data_align),
	}
	for i := 0; i < int(seen.ndim); i++ {
		s.Shape = append(s.Shape, int64(seen.shape[i]))
		s.Strides = append(s.Strides, int64(seen.strides[i]))
	}
	if n < 0 {
		s.GatherFail = true
	} else {
		s.Bytes = C.GoBytes(out, C.int(n))
	}
	if !keep {
		C.ct_delete(m, boolInt(versioned))
	}
	return s
}

// Delete calls m's deleter from C on the calling thread.
func Delete(m unsafe.Pointer, versioned bool) { C.ct_delete(m, boolInt(versioned)) }

// DeleteOnNewThread calls m's deleter from a pthread that Go did not create.
func DeleteOnNewThread(m unsafe.Pointer, versioned bool) bool {
	return C.ct_delete_on_new_thread(m, boolInt(versioned)) == 0
}

// ProduceFloat32 is the benchmarks' C producer: a rows x cols float32 tensor made
// with one malloc in one cgo call, freed by its deleter.
func ProduceFloat32(rows, cols int64) unsafe.Pointer {
	return C.ct_produce_f32(C.int64_t(rows), C.int64_t(cols))
}

// Alloc returns n bytes of C memory (for tests that need some); Free releases it.
func Alloc(n int) unsafe.Pointer { return C.ct_malloc(C.size_t(n)) }

// Free releases memory from Alloc.
func Free(p unsafe.Pointer) { C.ct_free(p) }

// MallocFree is the benchmark baseline: a C malloc of n bytes and its free, as a
// Go program that manages C memory itself would make them (two cgo calls).
func MallocFree(n int) {
	p := C.ct_malloc(C.size_t(n))
	C.ct_free(p)
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
