package tensor_test

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// typed holds, for one dtype, the generic calls instantiated with its Go type,
// so that tests can loop over dlpack.All().
type typed struct {
	// values returns every element's storage bytes in C order, read through As[T].All.
	values func(t *tensor.Tensor) ([]byte, error)
	// newC and fromSlice make tensors of the dtype whose storage is data.
	newC      func(data []byte, shape ...int64) (*tensor.Tensor, error)
	fromSlice func(data []byte, shape ...int64) (*tensor.Tensor, error)
	// fromSliceStrided makes a strided tensor viewing a slice of data's elements.
	fromSliceStrided func(data []byte, shape, strides []int64) (*tensor.Tensor, error)
	// setFirst writes element (0, ..., 0) from a byte pattern through Set.
	setFirst func(t *tensor.Tensor, b byte) error
}

func entry[T dlpack.Element]() typed {
	size := int(unsafe.Sizeof(*new(T)))
	fromBytes := func(data []byte) []T {
		out := make([]T, len(data)/size)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*size), data)
		return out
	}
	return typed{
		values: func(t *tensor.Tensor) ([]byte, error) {
			v, err := tensor.As[T](t)
			if err != nil {
				return nil, err
			}
			var out []byte
			for _, x := range v.All() {
				out = append(out, unsafe.Slice((*byte)(unsafe.Pointer(&x)), size)...)
			}
			return out, nil
		},
		newC: func(data []byte, shape ...int64) (*tensor.Tensor, error) {
			t, err := tensor.New[T](shape...)
			if err != nil {
				return nil, err
			}
			v, _ := tensor.As[T](t)
			s, err := v.Slice()
			if err != nil {
				return nil, err
			}
			copy(s, fromBytes(data))
			return t, nil
		},
		fromSlice: func(data []byte, shape ...int64) (*tensor.Tensor, error) {
			return tensor.FromSlice(fromBytes(data), shape...)
		},
		fromSliceStrided: func(data []byte, shape, strides []int64) (*tensor.Tensor, error) {
			return tensor.FromSliceStrided(fromBytes(data), shape, strides)
		},
		setFirst: func(t *tensor.Tensor, b byte) error {
			v, err := tensor.As[T](t)
			if err != nil {
				return err
			}
			var x T
			*(*byte)(unsafe.Pointer(&x)) = b
			return v.Set(x, make([]int64, len(t.Shape()))...)
		},
	}
}

var byDType = map[string]typed{
	"bool": entry[bool](), "int8": entry[int8](), "int16": entry[int16](), "int32": entry[int32](),
	"int64": entry[int64](), "uint8": entry[uint8](), "uint16": entry[uint16](), "uint32": entry[uint32](),
	"uint64": entry[uint64](), "float16": entry[dlpack.Float16](), "float32": entry[float32](),
	"float64": entry[float64](), "bfloat16": entry[dlpack.BFloat16](), "complex64": entry[complex64](),
	"complex128": entry[complex128](), "float8_e3m4": entry[dlpack.Float8E3M4](),
	"float8_e4m3": entry[dlpack.Float8E4M3](), "float8_e4m3b11fnuz": entry[dlpack.Float8E4M3B11FNUZ](),
	"float8_e4m3fn": entry[dlpack.Float8E4M3FN](), "float8_e4m3fnuz": entry[dlpack.Float8E4M3FNUZ](),
	"float8_e5m2": entry[dlpack.Float8E5M2](), "float8_e5m2fnuz": entry[dlpack.Float8E5M2FNUZ](),
	"float8_e8m0fnu": entry[dlpack.Float8E8M0FNU](), "float6_e2m3fn": entry[dlpack.Float6E2M3FN](),
	"float6_e3m2fn": entry[dlpack.Float6E3M2FN](), "float4_e2m1fn": entry[dlpack.Float4E2M1FN](),
}

// pattern returns n elements' worth of storage bytes of d that are valid values
// (bools 0/1, sub-byte elements within their width).
func pattern(d *dlpack.DType, n int, seed byte) []byte {
	out := make([]byte, n*d.ItemSize())
	for i := range out {
		b := byte(i)*37 + seed*11 + 5
		switch {
		case d.Kind == dlpack.KindBool:
			b &= 1
		case d.SubByte():
			b &= 1<<d.DL.Bits - 1
		}
		out[i] = b
	}
	return out
}

// waitFor runs the collector until cond holds, for the cleanup tests.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// noLeaks checks at the end of a test that every block and pin this package
// made was released exactly once (a second release would drive a count negative)
// and that a collection's sweep then unpinned every object.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		waitFor(t, "blocks and pins to be released", func() bool {
			return tensor.LiveBlocks() == 0 && tensor.LivePins() == 0 && tensor.PinnedObjects() == 0
		})
	})
}

// collectConstantly runs collections back to back on a goroutine (each seals the
// lists of recent Tensors and sweeps the pins) until the returned func is called,
// which waits for it to stop.
func collectConstantly() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				runtime.GC()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
