// Command fromgo exchanges DLPack tensors between Go and C with package
// dlpack/tensor: a Go slice goes to a C consumer without a copy, and a C
// producer's tensor is read in Go without a copy. docs/arrays-and-dlpack.md
// shows it whole.
package main

/*
#include <stdlib.h>
#include "dlpack.h" // the DLPack v1.3 structs, beside this file (any dlpack.h will do)

static int deleted; // how many times the producer's deleter ran

static void free_tensor(DLManagedTensorVersioned *m) { deleted++; free(m); }
static int deleter_calls(void) { return deleted; }

// A C producer: a 2x2 float64 tensor in one malloc, released by its deleter.
static DLManagedTensorVersioned *make_tensor(void) {
    struct block { DLManagedTensorVersioned m; int64_t dims[4]; double data[4]; };
    struct block *b = calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    b->dims[0] = 2; b->dims[1] = 2; b->dims[2] = 2; b->dims[3] = 1;  // shape, strides
    for (int i = 0; i < 4; i++) b->data[i] = 0.5 * i;
    b->m.version.major = 1; b->m.version.minor = 3;
    b->m.deleter = free_tensor;
    b->m.dl_tensor.data = b->data;
    b->m.dl_tensor.device.device_type = 1;  // kDLCPU
    b->m.dl_tensor.ndim = 2;
    b->m.dl_tensor.dtype.code = 2; b->m.dl_tensor.dtype.bits = 64; b->m.dl_tensor.dtype.lanes = 1;
    b->m.dl_tensor.shape = b->dims;
    b->m.dl_tensor.strides = b->dims + 2;
    return &b->m;
}

// A C consumer: sums a 1-d float32 tensor through its stride, then releases it.
static double sum_and_release(DLManagedTensorVersioned *m) {
    const DLTensor *t = &m->dl_tensor;
    const float *x = (const float *)((char *)t->data + t->byte_offset);
    double s = 0;
    for (int64_t i = 0; i < t->shape[0]; i++) s += x[i * t->strides[0]];
    m->deleter(m);  // releases the Go slice's pin, whatever thread this is
    return s;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

func main() {
	// Produce: a Go slice, pinned (not copied) until the consumer's deleter runs.
	t, err := tensor.FromSlice([]float32{1, 2, 3, 4})
	if err != nil {
		panic(err)
	}
	m, err := t.Export() // a DLManagedTensorVersioned*, now the consumer's
	if err != nil {
		panic(err)
	}
	fmt.Println("C consumer's sum:", C.sum_and_release((*C.DLManagedTensorVersioned)(m)))

	// Consume: validate and own a C producer's tensor; Close calls its deleter once.
	in, err := tensor.FromManaged(unsafe.Pointer(C.make_tensor()))
	if err != nil {
		panic(err) // a malformed tensor: the error names the field; it was released
	}
	defer func() { in.Close(); fmt.Println("deleter calls:", C.deleter_calls()) }()
	v, err := tensor.As[float64](in) // an error, not a panic, if the dtype differs
	if err != nil {
		panic(err)
	}
	for i, x := range v.All() {
		fmt.Print(i, ":", x, " ")
	}
	fmt.Println(in.Shape(), in.Strides())
}
