package tensor_test

import (
	"slices"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// A consumed tensor keeps up to four dimensions inside the Tensor and more in
// memory of its own; either way it reports the producer's shape and strides
// (derived ones for a legacy producer's NULL strides), and every element.
func TestConsumeEveryNDim(t *testing.T) {
	for ndim := 0; ndim <= 7; ndim++ {
		shape := make([]int64, ndim)
		n := int64(1)
		for i := range shape {
			shape[i] = int64(1 + i%3) // 1, 2, 3, 1, 2, ...
			n *= shape[i]
		}
		contiguous := dlpack.ContiguousStrides(shape)
		for _, versioned := range []bool{true, false} {
			spec := ctensor.Spec{Versioned: versioned, Version: v13, Device: dlpack.CPU,
				DType: dlpack.DLDataType{Code: dlpack.CodeInt, Bits: 8, Lanes: 1}, Shape: shape, Strides: contiguous}
			if !versioned {
				spec.Strides = nil // NULL: C-contiguous for a legacy producer
			}
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i + 1)
			}
			m, id := ctensor.Produce(spec, data)
			tt, err := consumeAny(m, versioned)
			if err != nil {
				t.Fatalf("ndim %d versioned=%v: %v", ndim, versioned, err)
			}
			if !slices.Equal(tt.Shape(), shape) || !slices.Equal(tt.Strides(), contiguous) || tt.Len() != n {
				t.Errorf("ndim %d versioned=%v: shape %v strides %v len %d; want %v %v %d",
					ndim, versioned, tt.Shape(), tt.Strides(), tt.Len(), shape, contiguous, n)
			}
			v, err := tensor.As[int8](tt)
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for _, x := range v.All() {
				if x != int8(data[i]) {
					t.Fatalf("ndim %d: element %d = %d, want %d", ndim, i, x, data[i])
				}
				i++
			}
			tt.Close()
			if calls := ctensor.DeleterCalls(id); calls != 1 || i != int(n) {
				t.Errorf("ndim %d: %d elements read, deleter ran %d times", ndim, i, calls)
			}
		}
	}
}

// Consuming a C producer's tensor of up to four dimensions allocates the Tensor
// alone: the validator writes shape and strides into it.
func TestConsumeAllocatesOnlyTheTensor(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		tt, err := tensor.FromManaged(ctensor.ProduceFloat32(16, 16))
		if err != nil {
			t.Fatal(err)
		}
		tt.Close()
	}); n > 1 {
		t.Errorf("FromManaged + Close: %v allocations; want 1", n)
	}
}
