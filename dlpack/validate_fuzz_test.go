package dlpack

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"
	"unsafe"
)

// readInt64s decodes up to n zigzag varints from b, padding with fill once b
// runs out (or stops decoding), and returns them with the rest of b.
func readInt64s(b []byte, n int, fill int64) ([]int64, []byte) {
	out := make([]int64, n)
	for i := range out {
		v, k := binary.Varint(b)
		if k <= 0 {
			out[i], b = fill, nil
			continue
		}
		out[i], b = v, b[k:]
	}
	return out, b
}

var (
	bigMaxInt64  = big.NewInt(math.MaxInt64)
	bigMinInt64  = big.NewInt(math.MinInt64)
	bigMaxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

func fitsInt64(x *big.Int) bool { return x.Cmp(bigMinInt64) >= 0 && x.Cmp(bigMaxInt64) <= 0 }

func b64(v int64) *big.Int { return big.NewInt(v) }

// fuzzData turns the fuzzer's choice into a data pointer that stays clear of the
// Go heap (and of the zero page) once byte_offset is added, so that neither the
// garbage collector nor checkptr sees a pointer they would object to: NULL, a
// low address with an offset of at most 64 KiB, or an address at or above 2^48
// (non-canonical or kernel space) with any offset. It returns the offset to use.
func fuzzData(sel uint8, addr, off uint64) (unsafe.Pointer, uint64) {
	switch sel % 3 {
	case 0:
		return nil, off
	case 1:
		return fakePtr(lowAddr + uintptr(addr&0xFFFF)), off & 0xFFFF
	default:
		return fakePtr(uintptr(addr | 1<<48)), off
	}
}

// refValidate is an independent model of Validate's rules in big-integer
// arithmetic: the field Validate must reject, or "" if it must accept.
func refValidate(f Foreign, shapeNil, stridesNil bool, shape, strides []int64) string {
	flags := uint64(0)
	if f.Versioned {
		if f.Version.Major > 1 || f.Version.Major == 0 {
			return "version"
		}
		if f.Flags&^KnownFlags != 0 {
			return "flags"
		}
		flags = f.Flags
	}
	t := f.Tensor
	switch t.Device.Type {
	case CPU, CUDAHost, ROCMHost, CUDAManaged:
	default:
		return "device"
	}
	dt, ok := ByDL(t.DType)
	if !ok {
		return "dtype"
	}
	if t.NDim < 0 || t.NDim > 64 {
		return "ndim"
	}
	if t.NDim > 0 && shapeNil {
		return "shape"
	}
	n := b64(1)
	for _, d := range shape {
		if d < 0 {
			return "shape"
		}
		n.Mul(n, b64(d))
	}
	if !fitsInt64(n) {
		return "shape"
	}
	spanField := "strides"
	if t.NDim == 0 {
		spanField = "byte_offset"
	}
	if stridesNil {
		if t.NDim > 0 {
			spanField = "shape"
		}
		if t.NDim > 0 && f.Versioned && f.Version.Minor >= 2 {
			return "strides"
		}
		strides = make([]int64, len(shape))
		s := b64(1)
		for i := len(shape) - 1; i >= 0; i-- {
			if !fitsInt64(s) {
				return "shape"
			}
			strides[i] = s.Int64()
			if shape[i] > 1 {
				s.Mul(s, b64(shape[i]))
			}
		}
	}
	padded := flags&FlagSubbyteTypePadded != 0 && dt.SubByte()
	packed := dt.SubByte() && !padded
	loB, hiB := new(big.Int), new(big.Int)
	if n.Sign() > 0 {
		if packed {
			want := b64(1)
			for i := len(shape) - 1; i >= 0; i-- {
				if shape[i] > 1 && b64(strides[i]).Cmp(want) != 0 {
					return "strides"
				}
				want.Mul(want, b64(shape[i]))
			}
		}
		lo, hi := new(big.Int), new(big.Int)
		for i, d := range shape {
			r := new(big.Int).Mul(b64(d-1), b64(strides[i]))
			if r.Sign() < 0 {
				lo.Add(lo, r)
			} else {
				hi.Add(hi, r)
			}
		}
		if !fitsInt64(lo) || !fitsInt64(hi) {
			return spanField
		}
		if packed {
			bitsTotal := new(big.Int).Mul(n, b64(int64(dt.DL.Bits)))
			if !fitsInt64(bitsTotal) {
				return spanField
			}
			hiB.Add(bitsTotal, b64(7)).Div(hiB, b64(8)).Sub(hiB, b64(1))
		} else {
			item := b64(int64(dt.StorageBits(padded) / 8))
			loB.Mul(lo, item)
			hiB.Mul(hi, item).Add(hiB, item).Sub(hiB, b64(1))
			if !fitsInt64(loB) || !fitsInt64(hiB) {
				return spanField
			}
		}
	}
	if t.Data == nil {
		if n.Sign() > 0 {
			return "data"
		}
		return ""
	}
	first := new(big.Int).SetUint64(uint64(uintptr(t.Data)))
	first.Add(first, new(big.Int).SetUint64(t.ByteOffset))
	if first.Cmp(bigMaxUint64) > 0 {
		return "byte_offset"
	}
	if n.Sign() > 0 {
		if new(big.Int).Add(first, loB).Sign() < 0 || new(big.Int).Add(first, hiB).Cmp(bigMaxUint64) > 0 {
			return spanField
		}
	}
	return ""
}

func FuzzValidate(f *testing.F) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		f.Skip("the fake addresses assume a 64-bit address space")
	}
	// A few seeds in code; more live in testdata/fuzz/FuzzValidate.
	f.Add(true, uint32(1), uint32(3), uint64(0), int32(CPU), int32(0), uint8(2), uint8(32), uint16(1), int8(2), uint8(0), uint8(1), uint64(0), uint64(0), []byte{4, 6, 6, 2})
	f.Add(false, uint32(0), uint32(0), uint64(0), int32(CPU), int32(0), uint8(17), uint8(4), uint16(1), int8(1), uint8(2), uint8(2), uint64(0), uint64(0), []byte{10})
	f.Fuzz(func(t *testing.T, versioned bool, major, minor uint32, flags uint64, devType, devID int32,
		code, bits uint8, lanes uint16, ndim int8, nilMask, dataSel uint8, dataAddr, byteOffset uint64, dims []byte) {
		shapeNil, stridesNil := nilMask&1 != 0, nilMask&2 != 0
		// Arrays as long as ndim says when it is in range; a one-entry array
		// otherwise (Validate must not read it then).
		k := 1
		if ndim >= 0 && ndim <= MaxNDim {
			k = int(ndim)
		}
		shape, rest := readInt64s(dims, k, 1)
		strides, _ := readInt64s(rest, k, 1)
		shapeIn, stridesIn := slices.Clone(shape), slices.Clone(strides)
		data, off := fuzzData(dataSel, dataAddr, byteOffset)
		tensor := &DLTensor{
			Data:       data,
			Device:     DLDevice{Type: DLDeviceType(devType), ID: devID},
			NDim:       int32(ndim),
			DType:      DLDataType{Code: code, Bits: bits, Lanes: lanes},
			ByteOffset: off,
		}
		if !shapeNil && k > 0 {
			tensor.Shape = &shape[0]
		}
		if !stridesNil && k > 0 {
			tensor.Strides = &strides[0]
		}
		fg := Foreign{Tensor: tensor, Versioned: versioned, Version: DLPackVersion{major, minor}, Flags: flags}

		v, err := Validate(fg)

		if !slices.Equal(shape, shapeIn) || !slices.Equal(strides, stridesIn) {
			t.Fatal("Validate wrote to the producer's arrays")
		}
		var ve *ValidationError
		if err != nil && (v != nil || !errors.As(err, &ve) || ve.Field == "" || ve.Msg == "") {
			t.Fatalf("malformed rejection: view %v, error %T %v", v, err, err)
		}
		if err == nil && v == nil {
			t.Fatal("nil view without an error")
		}
		want := refValidate(fg, shapeNil || ndim == 0, stridesNil || ndim == 0, shape, strides)
		got := ""
		if err != nil {
			got = ve.Field
		}
		if got != want {
			t.Fatalf("Validate rejected field %q, the model %q (err: %v)", got, want, err)
		}
		if err != nil {
			return
		}

		// Invariants of an accepted view.
		nd := int(ndim)
		if len(v.Shape) != nd || len(v.Strides) != nd {
			t.Fatalf("len(shape)=%d len(strides)=%d, ndim %d", len(v.Shape), len(v.Strides), nd)
		}
		if nd > 0 && (&v.Shape[0] == &shape[0] || &v.Strides[0] == &strides[0]) {
			t.Fatal("view aliases the producer's arrays")
		}
		if !slices.Equal(v.Shape, shape[:nd]) {
			t.Fatalf("shape %v, producer's %v", v.Shape, shape[:nd])
		}
		switch {
		case tensor.Strides != nil:
			if !slices.Equal(v.Strides, strides[:nd]) {
				t.Fatalf("strides %v, producer's %v", v.Strides, strides[:nd])
			}
		case nd > 0:
			if !slices.Equal(v.Strides, ContiguousStrides(v.Shape)) {
				t.Fatalf("derived strides %v, contiguous %v", v.Strides, ContiguousStrides(v.Shape))
			}
		}
		prod := b64(1)
		for _, d := range v.Shape {
			if d < 0 {
				t.Fatalf("negative extent in %v", v.Shape)
			}
			prod.Mul(prod, b64(d))
		}
		if !prod.IsInt64() || prod.Int64() != v.NumElements {
			t.Fatalf("NumElements %d, product of %v is %v", v.NumElements, v.Shape, prod)
		}
		if v.Device != tensor.Device || !v.Device.Type.HostAccessible() {
			t.Fatalf("device %v accepted", v.Device)
		}
		if d, ok := ByDL(tensor.DType); !ok || d != v.DType {
			t.Fatalf("dtype %+v accepted as %+v", tensor.DType, v.DType)
		}
		if !versioned && (v.ReadOnly || v.IsCopied || v.Padded) {
			t.Fatal("flags on a legacy tensor")
		}
		if versioned && (major != 1 || flags&^KnownFlags != 0 ||
			v.ReadOnly != (flags&FlagReadOnly != 0) || v.IsCopied != (flags&FlagIsCopied != 0) ||
			v.Padded != (flags&FlagSubbyteTypePadded != 0 && v.DType.SubByte())) {
			t.Fatalf("version %d.%d flags %#x accepted as %+v", major, minor, flags, v)
		}
		if versioned && minor >= 2 && nd > 0 && tensor.Strides == nil {
			t.Fatal("NULL strides accepted from a 1.2+ producer")
		}
		if v.DType.SubByte() && !v.Padded && !IsCContiguous(v.Shape, v.Strides) {
			t.Fatal("packed sub-byte tensor accepted with non-contiguous strides")
		}
		if _, _, err := ElementSpan(v.Shape, v.Strides); err != nil {
			t.Fatalf("accepted, but ElementSpan fails: %v", err)
		}
		if data == nil {
			if v.Data != nil || v.NumElements != 0 {
				t.Fatalf("NULL data accepted as %p with %d elements", v.Data, v.NumElements)
			}
		} else if uintptr(v.Data) != uintptr(data)+uintptr(off) {
			t.Fatalf("data %#x, want %#x + %d", uintptr(v.Data), uintptr(data), off)
		}
	})
}

// refNumElements models NumElements: the first zero extent or negative one,
// scanning from the left, decides; otherwise the product must fit.
func refNumElements(shape []int64) (n *big.Int, negative bool) {
	for _, d := range shape {
		if d < 0 {
			return nil, true
		}
		if d == 0 {
			return b64(0), false
		}
	}
	n = b64(1)
	for _, d := range shape {
		n.Mul(n, b64(d))
	}
	return n, false
}

func FuzzLayout(f *testing.F) {
	f.Add([]byte{3, 4, 6, 8, 24, 8, 2}, uint8(32), int64(7))
	f.Add([]byte{1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 2}, uint8(4), int64(math.MaxInt64/4))
	f.Fuzz(func(t *testing.T, dims []byte, elemBits uint8, count int64) {
		nd := 0
		if len(dims) > 0 {
			nd, dims = int(dims[0]%17), dims[1:]
		}
		shape, rest := readInt64s(dims, nd, 1)
		strides, _ := readInt64s(rest, nd, 1)
		shapeIn, stridesIn := slices.Clone(shape), slices.Clone(strides)

		// NumElements.
		n, err := NumElements(shape)
		wantN, negative := refNumElements(shape)
		switch {
		case negative:
			if err == nil {
				t.Fatalf("NumElements(%v) = %d without error", shape, n)
			}
		case !fitsInt64(wantN):
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("NumElements(%v) = %d, %v; want ErrOverflow", shape, n, err)
			}
		default:
			if err != nil || n != wantN.Int64() {
				t.Fatalf("NumElements(%v) = %d, %v; want %v", shape, n, err, wantN)
			}
		}

		// ElementSpan.
		lo, hi, err := ElementSpan(shape, strides)
		switch {
		case slices.Contains(shape, 0):
			if err != nil || lo != 0 || hi != -1 {
				t.Fatalf("ElementSpan of empty %v = %d, %d, %v", shape, lo, hi, err)
			}
		case slices.ContainsFunc(shape, func(d int64) bool { return d < 0 }):
			if err == nil {
				t.Fatalf("ElementSpan(%v) accepted a negative extent", shape)
			}
		default:
			wlo, whi := new(big.Int), new(big.Int)
			for i, d := range shape {
				r := new(big.Int).Mul(b64(d-1), b64(strides[i]))
				if r.Sign() < 0 {
					wlo.Add(wlo, r)
				} else {
					whi.Add(whi, r)
				}
			}
			if !fitsInt64(wlo) || !fitsInt64(whi) {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("ElementSpan(%v, %v) = %d, %d, %v; want ErrOverflow", shape, strides, lo, hi, err)
				}
			} else if err != nil || lo != wlo.Int64() || hi != whi.Int64() {
				t.Fatalf("ElementSpan(%v, %v) = %d, %d, %v; want %v, %v", shape, strides, lo, hi, err, wlo, whi)
			}
		}

		// ContiguousStrides: exact whenever its strides fit int64 (they need
		// not for an empty shape; then it is only required not to panic).
		cs := ContiguousStrides(shape)
		if len(cs) != len(shape) {
			t.Fatalf("ContiguousStrides(%v) = %v", shape, cs)
		}
		if !negative && fitsInt64(wantN) {
			if wantN.Sign() > 0 {
				ref, ok := checkedContiguousStrides(shape)
				if !ok || !slices.Equal(cs, ref) {
					t.Fatalf("ContiguousStrides(%v) = %v, want %v", shape, cs, ref)
				}
				if !IsCContiguous(shape, cs) {
					t.Fatalf("ContiguousStrides(%v) = %v not reported contiguous", shape, cs)
				}
				if lo, hi, err := ElementSpan(shape, cs); err != nil || lo != 0 || hi != wantN.Int64()-1 {
					t.Fatalf("span of contiguous %v = %d, %d, %v", shape, lo, hi, err)
				}
			}
		}

		// IsCContiguous against a big-integer model.
		gotC := IsCContiguous(shape, strides)
		var wantC bool
		switch {
		case negative || !fitsInt64(wantN):
			wantC = false
		case wantN.Sign() == 0:
			wantC = true
		default:
			wantC = true
			w := b64(1)
			for i := len(shape) - 1; i >= 0; i-- {
				if shape[i] != 1 && b64(strides[i]).Cmp(w) != 0 {
					wantC = false
				}
				w.Mul(w, b64(shape[i]))
			}
		}
		if gotC != wantC {
			t.Fatalf("IsCContiguous(%v, %v) = %v, want %v", shape, strides, gotC, wantC)
		}

		// ByteSize, for meaningful (non-negative) counts.
		if count >= 0 {
			size, err := ByteSize(count, int(elemBits))
			bitsTotal := new(big.Int).Mul(b64(count), b64(int64(elemBits)))
			if !fitsInt64(bitsTotal) {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("ByteSize(%d, %d) = %d, %v; want ErrOverflow", count, elemBits, size, err)
				}
			} else {
				want := new(big.Int).Add(bitsTotal, b64(7))
				want.Div(want, b64(8))
				if err != nil || size != want.Int64() {
					t.Fatalf("ByteSize(%d, %d) = %d, %v; want %v", count, elemBits, size, err, want)
				}
			}
		}

		if !slices.Equal(shape, shapeIn) || !slices.Equal(strides, stridesIn) {
			t.Fatal("layout functions modified their arguments")
		}
	})
}
