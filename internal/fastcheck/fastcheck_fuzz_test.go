package fastcheck

import (
	"encoding/binary"
	"slices"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// buildManaged lays out a managed tensor, its shape and strides in C memory from
// fuzz bytes; the returned free releases it all.
func buildManaged(data []byte) (m unsafe.Pointer, versioned bool, free func()) {
	next := func(n int) []byte {
		if len(data) < n {
			data = append(data, make([]byte, n-len(data))...)
		}
		b := data[:n]
		data = data[n:]
		return b
	}
	hdr := next(24)
	versioned = hdr[0]&1 == 1
	ndim := int32(int8(hdr[1])) % 9
	if hdr[2]&7 == 7 {
		ndim = int32(int8(hdr[2])) // occasionally absurd
	}
	p := cAlloc(80 + 16*64)
	var t *dlpack.DLTensor
	if versioned {
		mv := (*dlpack.DLManagedTensorVersioned)(p)
		mv.Version = dlpack.DLPackVersion{Major: uint32(hdr[3] % 3), Minor: uint32(hdr[4] % 5)}
		mv.Flags = uint64(hdr[5]) & 0x0f
		t = &mv.DLTensor
	} else {
		t = &(*dlpack.DLManagedTensor)(p).DLTensor
	}
	arrays := unsafe.Add(p, 80)
	t.NDim = ndim
	t.Device = dlpack.DLDevice{Type: dlpack.DLDeviceType(hdr[6] % 5), ID: int32(hdr[7] % 2)}
	t.DType = dlpack.DLDataType{Code: hdr[8] % 20, Bits: []uint8{1, 4, 6, 8, 16, 24, 32, 64, 128}[hdr[9]%9], Lanes: uint16(1 + hdr[10]%4/3)}
	switch hdr[11] % 4 {
	case 0:
		t.Data = nil
	default:
		t.Data = fakeAddr(uintptr(binary.LittleEndian.Uint64(next(8))&0x0000_ffff_ffff_ff00 | 1<<47))
	}
	t.ByteOffset = binary.LittleEndian.Uint64(next(8)) >> (hdr[12] % 64)
	if hdr[13]%5 != 0 && ndim > 0 && ndim <= 64 {
		shape := unsafe.Slice((*int64)(arrays), 64)
		strides := unsafe.Slice((*int64)(unsafe.Add(arrays, 8*64)), 64)
		for i := 0; i < int(ndim); i++ {
			shape[i] = int64(binary.LittleEndian.Uint64(next(8))) >> (next(1)[0] % 64)
			strides[i] = int64(binary.LittleEndian.Uint64(next(8))) >> (next(1)[0] % 64)
		}
		t.Shape = &shape[0]
		if hdr[14]%6 != 0 {
			t.Strides = &strides[0]
		}
	}
	return p, versioned, func() { cFree(p) }
}

// FuzzFastCheckAgreesWithValidator: the C fast path may decline anything, but
// what it accepts the Go validator accepts with the same data, shape, strides,
// dtype and flags.
func FuzzFastCheckAgreesWithValidator(f *testing.F) {
	f.Add([]byte{1, 2, 0, 1, 3, 0, 1, 0, 2, 6, 0, 1, 0, 1, 1})
	f.Add([]byte{0, 1, 0, 1, 0, 0, 1, 0, 0, 3, 0, 1, 0, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{1, 3, 0, 1, 3, 1, 1, 0, 2, 7, 0, 2, 63, 1, 1, 255, 255, 255, 255, 255, 255, 255, 127})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, versioned, free := buildManaged(data)
		defer free()
		fast, ok := Check(m, versioned)
		if !ok {
			return
		}
		var foreign dlpack.Foreign
		if versioned {
			mv := (*dlpack.DLManagedTensorVersioned)(m)
			foreign = dlpack.Foreign{Tensor: &mv.DLTensor, Versioned: true, Version: mv.Version, Flags: mv.Flags}
		} else {
			foreign = dlpack.Foreign{Tensor: &(*dlpack.DLManagedTensor)(m).DLTensor}
		}
		view, err := dlpack.Validate(foreign)
		if err != nil {
			t.Fatalf("C fast path accepted a tensor the Go validator rejects: %v", err)
		}
		if view.Data != fast.Data || view.DType.Index != fast.DTypeIndex ||
			!slices.Equal(view.Shape, fast.Shape) || !slices.Equal(view.Strides, fast.Strides) {
			t.Fatalf("views differ: Go %+v, C %+v", view, fast)
		}
		if view.ReadOnly != (fast.Flags&dlpack.FlagReadOnly != 0) || view.IsCopied != (fast.Flags&dlpack.FlagIsCopied != 0) {
			t.Fatalf("flags differ: Go %+v, C %#x", view, fast.Flags)
		}
	})
}

// TestFastCheckAcceptsPlainTensors pins that the fast path is not vacuous: the
// common NumPy/PyTorch shapes of tensor take it.
func TestFastCheckAcceptsPlainTensors(t *testing.T) {
	for _, versioned := range []bool{false, true} {
		p := cAlloc(256)
		var tn *dlpack.DLTensor
		if versioned {
			mv := (*dlpack.DLManagedTensorVersioned)(p)
			mv.Version = dlpack.DLPackVersion{Major: 1, Minor: 3}
			mv.Flags = dlpack.FlagReadOnly
			tn = &mv.DLTensor
		} else {
			tn = &(*dlpack.DLManagedTensor)(p).DLTensor
		}
		dims := unsafe.Slice((*int64)(unsafe.Add(p, 128)), 4)
		copy(dims, []int64{3, 4, -4, 1}) // shape (3, 4), strides (-4, 1)
		tn.Data = fakeAddr(1 << 40)
		tn.Device = dlpack.DLDevice{Type: dlpack.CPU}
		tn.NDim = 2
		tn.DType = dlpack.DLDataType{Code: 2, Bits: 32, Lanes: 1}
		tn.Shape, tn.Strides = &dims[0], &dims[2]
		tn.ByteOffset = 64
		v, ok := Check(p, versioned)
		if !ok || v.Data != fakeAddr(1<<40+64) || !slices.Equal(v.Strides, []int64{-4, 1}) {
			t.Errorf("versioned=%v: plain float32 tensor declined or misread: %+v %v", versioned, v, ok)
		}
		cFree(p)
	}
}
