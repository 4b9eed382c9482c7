package tensor_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

var v13 = dlpack.DLPackVersion{Major: 1, Minor: 3}

// A C producer's tensor of every dtype, versioned and legacy, contiguous and
// strided, reads the same through a Go view as through the C consumer, and its
// deleter runs exactly once when the Go value closes.
func TestConsumeEveryDTypeFromC(t *testing.T) {
	for _, d := range dlpack.All() {
		for _, versioned := range []bool{true, false} {
			for _, transposed := range []bool{false, true} {
				if d.SubByte() && (transposed || !versioned) {
					continue // packed sub-byte tensors are contiguous by rule
				}
				spec := ctensor.Spec{Versioned: versioned, Version: v13, Device: dlpack.CPU, DType: d.DL, Shape: []int64{2, 3}, Strides: []int64{3, 1}}
				if transposed {
					spec.Strides = []int64{1, 2}
				}
				data := pattern(d, 6, byte(d.Index))
				if d.SubByte() {
					data = []byte{0xa5, 0x3c, 0x0f} // 6 packed elements of 4 or 6 bits fit in 3 bytes
					spec.Shape, spec.Strides = []int64{2, 2}, []int64{2, 1}
				}
				m, id := ctensor.Produce(spec, data)
				want := ctensor.Consume(m, versioned, true).Bytes
				tt, err := consumeAny(m, versioned)
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				got, err := byDType[d.Name].values(tt)
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				if d.SubByte() {
					got = packBits(got, int(d.DL.Bits))
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s versioned=%v transposed=%v: Go view read %x, C consumer %x", d, versioned, transposed, got, want)
				}
				if tt.DType() != d || tt.ReadOnly() || tt.Len() != spec.Shape[0]*spec.Shape[1] {
					t.Errorf("%s: dtype %v read-only %v len %d", d, tt.DType(), tt.ReadOnly(), tt.Len())
				}
				if ctensor.DeleterCalls(id) != 0 {
					t.Fatalf("%s: deleter ran before Close", d)
				}
				tt.Close()
				tt.Close()
				if n := ctensor.DeleterCalls(id); n != 1 {
					t.Errorf("%s: deleter ran %d times, want 1", d, n)
				}
			}
		}
	}
}

func consumeAny(m unsafe.Pointer, versioned bool) (*tensor.Tensor, error) {
	if versioned {
		return tensor.FromManaged(m)
	}
	return tensor.FromManagedLegacy(m)
}

// packBits packs one element per byte into the packed sub-byte layout.
func packBits(elems []byte, width int) []byte {
	out := make([]byte, (len(elems)*width+7)/8)
	for i, e := range elems {
		for b := 0; b < width; b++ {
			if e>>b&1 == 1 {
				bit := i*width + b
				out[bit/8] |= 1 << (bit % 8)
			}
		}
	}
	return out
}

// Close runs the deleter once however many goroutines call it at once.
func TestCloseConcurrentOnce(t *testing.T) {
	for range 50 {
		m, id := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: dlpack.DLDataType{Code: dlpack.CodeFloat, Bits: 32, Lanes: 1}, Shape: []int64{4}, Strides: []int64{1}}, make([]byte, 16))
		tt, err := tensor.FromManaged(m)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { tt.Close() })
		}
		wg.Wait()
		if n := ctensor.DeleterCalls(id); n != 1 {
			t.Fatalf("deleter ran %d times, want 1", n)
		}
	}
}

// A Tensor dropped without Close is still released, once, by its cleanup.
func TestLeakedTensorIsReleased(t *testing.T) {
	var ids []int64
	for range 10 {
		m, id := ctensor.Produce(ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: dlpack.DLDataType{Code: dlpack.CodeInt, Bits: 64, Lanes: 1}, Shape: []int64{3}, Strides: []int64{1}}, make([]byte, 24))
		if _, err := tensor.FromManaged(m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	waitFor(t, "the cleanups", func() bool {
		for _, id := range ids {
			if ctensor.DeleterCalls(id) != 1 {
				return false
			}
		}
		return true
	})
}

// A malformed tensor is refused with the validator's error naming the field,
// and its deleter still runs exactly once (nothing leaks).
func TestMalformedTensorRefused(t *testing.T) {
	f32 := dlpack.DLDataType{Code: dlpack.CodeFloat, Bits: 32, Lanes: 1}
	ok := ctensor.Spec{Versioned: true, Version: v13, Device: dlpack.CPU, DType: f32, Shape: []int64{2}, Strides: []int64{1}}
	cases := []struct {
		name  string
		field string
		edit  func(s *ctensor.Spec)
	}{
		{"newer major", "version", func(s *ctensor.Spec) { s.Version.Major = 2 }},
		{"version 0", "version", func(s *ctensor.Spec) { s.Version = dlpack.DLPackVersion{} }},
		{"unknown flag", "flags", func(s *ctensor.Spec) { s.Flags = 1 << 9 }},
		{"gpu", "device", func(s *ctensor.Spec) { s.Device = dlpack.CUDA }},
		{"unknown device", "device", func(s *ctensor.Spec) { s.Device = 99 }},
		{"vector dtype", "dtype", func(s *ctensor.Spec) { s.DType.Lanes = 4 }},
		{"opaque dtype", "dtype", func(s *ctensor.Spec) { s.DType = dlpack.DLDataType{Code: 3, Bits: 64, Lanes: 1} }},
		{"ndim 65", "ndim", func(s *ctensor.Spec) { s.NDim = 65 }},
		{"negative ndim", "ndim", func(s *ctensor.Spec) { s.NDim = -1 }},
		{"negative extent", "shape", func(s *ctensor.Spec) { s.Shape = []int64{-2} }},
		{"null strides 1.3", "strides", func(s *ctensor.Spec) { s.Strides = nil }},
		{"null data", "data", func(s *ctensor.Spec) { s.NullData = true }},
		{"wrapping offset", "byte_offset", func(s *ctensor.Spec) { s.ByteOffset = ^uint64(0) - 8 }},
		{"huge stride", "strides", func(s *ctensor.Spec) { s.Strides = []int64{1 << 62} }},
		{"strided packed fp4", "strides", func(s *ctensor.Spec) {
			s.DType = dlpack.DLDataType{Code: dlpack.CodeFloat4E2M1FN, Bits: 4, Lanes: 1}
			s.Strides = []int64{2}
		}},
	}
	for _, c := range cases {
		for _, versioned := range []bool{true, false} {
			s := ok
			s.Versioned = versioned
			c.edit(&s)
			if !versioned && (c.field == "version" || c.field == "flags" || c.name == "null strides 1.3") {
				continue // a legacy tensor has none of these
			}
			m, id := ctensor.Produce(s, make([]byte, 8))
			var tt *tensor.Tensor
			var err error
			if versioned {
				tt, err = tensor.FromManaged(m)
			} else {
				tt, err = tensor.FromManagedLegacy(m)
			}
			var ve *dlpack.ValidationError
			if tt != nil || !errors.As(err, &ve) || ve.Field != c.field {
				t.Errorf("%s (versioned=%v): got %v, %v; want a ValidationError on field %q", c.name, versioned, tt, err, c.field)
			}
			if n := ctensor.DeleterCalls(id); n != 1 {
				t.Errorf("%s: deleter ran %d times, want 1", c.name, n)
			}
		}
	}
	if _, err := tensor.FromManaged(nil); !errors.Is(err, tensor.ErrNil) {
		t.Errorf("FromManaged(nil) = %v", err)
	}
	if _, err := tensor.FromManagedLegacy(nil); !errors.Is(err, tensor.ErrNil) {
		t.Errorf("FromManagedLegacy(nil) = %v", err)
	}
}
