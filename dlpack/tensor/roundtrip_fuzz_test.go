package tensor_test

import (
	"bytes"
	"slices"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// FuzzRoundTrip produces a tensor in Go (C memory or a pinned slice, contiguous
// or strided, read-only or not) of any dtype and shape, exports it (versioned or
// legacy), lets the C consumer read it, consumes it back in Go and compares
// every element; then checks that every block and pin was released exactly once.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{10, 2, 2, 3, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0, 1, 5, 0, 0, 1, 1, 0, 1, 1})
	f.Add([]byte{25, 3, 1, 2, 3, 9, 0xff, 0x13, 0x27})
	f.Add([]byte{13, 0, 0, 0, 0, 6, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{4, 2, 3, 0, 0, 8, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		next := func() byte {
			if len(in) == 0 {
				return 0
			}
			b := in[0]
			in = in[1:]
			return b
		}
		d := dlpack.All()[int(next())%len(dlpack.All())]
		ndim := int(next()) % 4
		shape := make([]int64, ndim)
		for i := range shape {
			shape[i] = int64(next() % 4)
		}
		mode := next()
		pinned, legacy, readOnly, strided := mode&1 != 0, mode&2 != 0, mode&4 != 0, mode&8 != 0
		n, _ := dlpack.NumElements(shape)
		item := d.ItemSize()
		mask := byte(0xff)
		switch {
		case d.Kind == dlpack.KindBool:
			mask = 1
		case d.SubByte():
			mask = 1<<d.DL.Bits - 1
		}
		elem := func(i int64) []byte { // element i's storage bytes, from the fuzz input
			b := make([]byte, item)
			for k := range b {
				if j := int(i)*item + k; j < len(in) {
					b[k] = in[j] & mask
				}
			}
			return b
		}
		var want []byte
		for i := range n {
			want = append(want, elem(i)...)
		}
		blocks, pins := tensor.LiveBlocks(), tensor.LivePins()
		ty := byDType[d.Name]

		var tt *tensor.Tensor
		var err error
		switch {
		case strided && ndim > 0:
			// Every other element of a slice twice as long along the last axis.
			last := ndim - 1
			strides := make([]int64, ndim)
			s := int64(2)
			for i := last; i >= 0; i-- {
				strides[i] = s
				s *= max(shape[i], 1)
			}
			full := make([]byte, int(2*max(n, 1))*item)
			var idx int64
			for off := range stridedOffsets(shape, strides) {
				copy(full[int(off)*item:], elem(idx))
				idx++
			}
			tt, err = ty.fromSliceStrided(full, shape, strides)
		case pinned && ndim == 0: // FromSlice without a shape means 1-d
			tt, err = ty.fromSliceStrided(want, shape, []int64{})
		case pinned:
			tt, err = ty.fromSlice(want, shape...)
		default:
			tt, err = ty.newC(want, shape...)
		}
		if err != nil {
			t.Fatalf("%s %v: %v", d, shape, err)
		}
		if readOnly {
			tt.SetReadOnly()
		}
		got, err := ty.values(tt)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s %v: Go view before export %x (%v), want %x", d, shape, got, err, want)
		}
		var p unsafe.Pointer
		versioned := !legacy
		if legacy {
			p, err = tt.ExportLegacy()
			if readOnly || d.SubByte() {
				if err == nil {
					t.Fatalf("%s: legacy export of a read-only or sub-byte tensor", d)
				}
				tt.Close()
				checkReleased(t, blocks, pins)
				return
			}
		} else {
			p, err = tt.Export()
		}
		if err != nil {
			t.Fatal(err)
		}
		seen := ctensor.Consume(p, versioned, true)
		if seen.DType != d.DL || !slices.Equal(seen.Shape, shape) || !bytes.Equal(seen.Bytes, want) {
			t.Fatalf("%s %v: C saw %v %v %x, want %x", d, shape, seen.DType, seen.Shape, seen.Bytes, want)
		}
		if versioned && (seen.Flags&dlpack.FlagReadOnly != 0) != readOnly {
			t.Fatalf("%s: READ_ONLY %v, want %v", d, seen.Flags&dlpack.FlagReadOnly != 0, readOnly)
		}
		back, err := consumeAny(p, versioned)
		if err != nil {
			t.Fatalf("%s %v: consumed back: %v", d, shape, err)
		}
		got, err = ty.values(back)
		if err != nil || !bytes.Equal(got, want) || back.ReadOnly() != readOnly {
			t.Fatalf("%s %v: Go view after the round trip %x (%v) read-only %v, want %x", d, shape, got, err, back.ReadOnly(), want)
		}
		if err := ty.setFirst(back, 1); n > 0 && (err == nil) == readOnly {
			t.Fatalf("%s: Set on read-only=%v: %v", d, readOnly, err)
		}
		back.Close()
		checkReleased(t, blocks, pins)
	})
}

func checkReleased(t *testing.T, blocks, pins int64) {
	t.Helper()
	if b, p := tensor.LiveBlocks(), tensor.LivePins(); b != blocks || p != pins {
		t.Fatalf("live blocks %d -> %d, pins %d -> %d", blocks, b, pins, p)
	}
}

// stridedOffsets yields the element offsets of shape/strides in C order.
func stridedOffsets(shape, strides []int64) func(func(int64) bool) {
	return func(yield func(int64) bool) {
		n, _ := dlpack.NumElements(shape)
		for i := range n {
			var off int64
			rem := i
			for k := len(shape) - 1; k >= 0; k-- {
				off += rem % shape[k] * strides[k]
				rem /= shape[k]
			}
			if !yield(off) {
				return
			}
		}
	}
}
