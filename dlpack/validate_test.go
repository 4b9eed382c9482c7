package dlpack

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

var (
	dtFloat32 = DLDataType{Code: 2, Bits: 32, Lanes: 1}
	dtFP4     = DLDataType{Code: 17, Bits: 4, Lanes: 1}
	dtFP6     = DLDataType{Code: 16, Bits: 6, Lanes: 1}
)

// fakePtr makes a pointer to an address outside the Go heap. Validate never
// dereferences data, so tests can hand it any address; these stay clear of the
// Go heap so that neither the garbage collector nor checkptr objects.
func fakePtr(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

const (
	lowAddr  = uintptr(0x10000)               // below the Go heap, above the zero page
	highAddr = uintptr(0xFFFF_8000_0000_0000) // kernel half of the address space
)

// p64 returns a pointer to the first entry of s (nil for a nil s).
func p64(s []int64) *int64 {
	if s == nil {
		return nil
	}
	return &s[0]
}

// foreign builds a versioned 1.3 float32 CPU tensor of the given shape and strides.
func foreign(shape, strides []int64) Foreign {
	return Foreign{
		Versioned: true,
		Version:   DLPackVersion{Major: 1, Minor: 3},
		Tensor: &DLTensor{
			Data:    fakePtr(lowAddr),
			Device:  DLDevice{Type: CPU},
			NDim:    int32(len(shape)),
			DType:   dtFloat32,
			Shape:   p64(shape),
			Strides: p64(strides),
		},
	}
}

func legacy(shape, strides []int64) Foreign {
	f := foreign(shape, strides)
	f.Versioned, f.Version = false, DLPackVersion{}
	return f
}

type validateCase struct {
	name  string
	f     Foreign
	field string // "" if the tensor must be accepted
	msg   string // a substring of the error message, when rejected
	check func(t *testing.T, v *Validated)
}

func with(f Foreign, mod func(f *Foreign)) Foreign {
	t := *f.Tensor
	f.Tensor = &t
	mod(&f)
	return f
}

func wantShape(shape, strides []int64) func(t *testing.T, v *Validated) {
	return func(t *testing.T, v *Validated) {
		if !slices.Equal(v.Shape, shape) || !slices.Equal(v.Strides, strides) {
			t.Errorf("shape/strides = %v/%v; want %v/%v", v.Shape, v.Strides, shape, strides)
		}
	}
}

func runValidateCases(t *testing.T, cases []validateCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Validate(c.f)
			if c.field == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if v == nil {
					t.Fatal("nil view without error")
				}
				if c.check != nil {
					c.check(t, v)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want an error on field %q", c.field)
			}
			if v != nil {
				t.Error("a view was returned with an error")
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T %v is not a *ValidationError", err, err)
			}
			if ve.Field != c.field {
				t.Errorf("field = %q; want %q (%v)", ve.Field, c.field, err)
			}
			if !strings.Contains(err.Error(), "field "+c.field) {
				t.Errorf("message %q does not name the field", err)
			}
			if c.msg != "" && !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not contain %q", err, c.msg)
			}
		})
	}
}

func TestValidateRule1VersionAndFlags(t *testing.T) {
	ok := foreign([]int64{2, 3}, []int64{3, 1})
	runValidateCases(t, []validateCase{
		// The tensor is nil: reading any field of it would panic.
		{name: "rule1/major-too-new-reads-nothing", f: Foreign{Versioned: true, Version: DLPackVersion{Major: 2}}, field: "version", msg: "2.0"},
		{name: "rule1/major-max-uint32", f: Foreign{Versioned: true, Version: DLPackVersion{Major: math.MaxUint32, Minor: 9}, Flags: ^uint64(0)}, field: "version"},
		{name: "rule1/major-zero", f: with(ok, func(f *Foreign) { f.Version = DLPackVersion{0, 9} }), field: "version", msg: "1.0"},
		{name: "rule1/unknown-minor-accepted", f: with(ok, func(f *Foreign) { f.Version = DLPackVersion{1, 99} })},
		{name: "rule1/minor-zero-accepted", f: with(ok, func(f *Foreign) { f.Version = DLPackVersion{1, 0} })},
		{name: "rule1/unknown-flag-bit", f: with(ok, func(f *Foreign) { f.Flags = FlagReadOnly | 1<<3 }), field: "flags", msg: "0x8"},
		{name: "rule1/unknown-high-flag-bit", f: with(ok, func(f *Foreign) { f.Flags = 1 << 63 }), field: "flags", msg: "0x8000000000000000"},
		{name: "rule1/known-flags", f: with(ok, func(f *Foreign) { f.Flags = FlagReadOnly | FlagIsCopied }),
			check: func(t *testing.T, v *Validated) {
				if !v.ReadOnly || !v.IsCopied || v.Padded {
					t.Errorf("flags read as readonly=%v copied=%v padded=%v", v.ReadOnly, v.IsCopied, v.Padded)
				}
			}},
		{name: "rule1/no-flags", f: ok,
			check: func(t *testing.T, v *Validated) {
				if v.ReadOnly || v.IsCopied || v.Padded {
					t.Error("flags set from nothing")
				}
			}},
		{name: "rule1/legacy-ignores-flags", f: with(legacy([]int64{2}, nil), func(f *Foreign) { f.Flags = ^uint64(0) }),
			check: func(t *testing.T, v *Validated) {
				if v.ReadOnly || v.IsCopied || v.Padded {
					t.Error("a legacy tensor has no flags")
				}
			}},
		{name: "rule1/nil-tensor", f: Foreign{Versioned: true, Version: DLPackVersion{1, 3}}, field: "dl_tensor"},
		{name: "rule1/nil-legacy-tensor", f: Foreign{}, field: "dl_tensor"},
	})
}

func TestValidateRule2Device(t *testing.T) {
	ok := foreign([]int64{4}, []int64{1})
	dev := func(typ DLDeviceType, id int32) Foreign {
		return with(ok, func(f *Foreign) { f.Tensor.Device = DLDevice{Type: typ, ID: id} })
	}
	cases := []validateCase{
		{name: "rule2/cuda", f: dev(CUDA, 0), field: "device", msg: "kDLCUDA"},
		{name: "rule2/cuda-not-cpu-accessible", f: dev(CUDA, 1), field: "device", msg: "not CPU-accessible"},
		{name: "rule2/rocm", f: dev(ROCM, 0), field: "device", msg: "kDLROCM "},
		{name: "rule2/oneapi", f: dev(OneAPI, 0), field: "device", msg: "kDLOneAPI"},
		{name: "rule2/unknown-code-0", f: dev(0, 0), field: "device", msg: "unknown device type 0"},
		{name: "rule2/unknown-code-5", f: dev(5, 0), field: "device", msg: "unknown device type 5"},
		{name: "rule2/unknown-code-99", f: dev(99, 0), field: "device", msg: "99"},
		{name: "rule2/unknown-code-negative", f: dev(-1, 0), field: "device"},
		{name: "rule2/cpu-nonzero-id-accepted", f: dev(CPU, 3)},
		{name: "rule2/cpu-negative-id-accepted", f: dev(CPU, -1)},
		{name: "rule2/cuda-host", f: dev(CUDAHost, 1), check: func(t *testing.T, v *Validated) {
			if v.Device != (DLDevice{CUDAHost, 1}) {
				t.Errorf("device = %v", v.Device)
			}
		}},
		{name: "rule2/rocm-host", f: dev(ROCMHost, 0)},
		{name: "rule2/cuda-managed", f: dev(CUDAManaged, 2)},
	}
	for d := range DeviceTypes() {
		if !d.HostAccessible() {
			cases = append(cases, validateCase{name: "rule2/every-device/" + d.String(), f: dev(d, 0), field: "device", msg: d.String()})
		}
	}
	runValidateCases(t, cases)
}

func TestValidateRule3DType(t *testing.T) {
	ok := foreign([]int64{4}, []int64{1})
	dt := func(code, bits uint8, lanes uint16) Foreign {
		return with(ok, func(f *Foreign) { f.Tensor.DType = DLDataType{code, bits, lanes} })
	}
	runValidateCases(t, []validateCase{
		{name: "rule3/unknown-code", f: dt(99, 32, 1), field: "dtype", msg: "code=99, bits=32, lanes=1"},
		{name: "rule3/opaque-handle", f: dt(3, 64, 1), field: "dtype"},
		{name: "rule3/float-bits-12", f: dt(2, 12, 1), field: "dtype", msg: "bits=12"},
		{name: "rule3/int-bits-7", f: dt(0, 7, 1), field: "dtype"},
		{name: "rule3/fp4-bits-8", f: dt(17, 8, 1), field: "dtype"},
		{name: "rule3/lanes-4", f: dt(2, 32, 4), field: "dtype", msg: "lanes=4"},
		{name: "rule3/lanes-0", f: dt(2, 32, 0), field: "dtype", msg: "lanes=0"},
		{name: "rule3/float32", f: ok, check: func(t *testing.T, v *Validated) {
			if v.DType == nil || v.DType.DL != dtFloat32 {
				t.Errorf("dtype = %+v", v.DType)
			}
		}},
		{name: "rule3/uint8", f: dt(1, 8, 1)},
		{name: "rule3/complex128", f: dt(5, 128, 1)},
	})
}

func TestValidateRule4NDim(t *testing.T) {
	ok := foreign([]int64{4}, []int64{1})
	ones := make([]int64, MaxNDim+1)
	for i := range ones {
		ones[i] = 1
	}
	garbage := []int64{-5, -7}
	runValidateCases(t, []validateCase{
		{name: "rule4/ndim-negative", f: with(ok, func(f *Foreign) { f.Tensor.NDim = -1 }), field: "ndim", msg: "-1"},
		{name: "rule4/ndim-min-int32", f: with(ok, func(f *Foreign) { f.Tensor.NDim = math.MinInt32 }), field: "ndim"},
		{name: "rule4/ndim-too-big", f: with(ok, func(f *Foreign) { f.Tensor.NDim = MaxNDim + 1 }), field: "ndim", msg: "65"},
		{name: "rule4/ndim-max-int32", f: with(ok, func(f *Foreign) { f.Tensor.NDim = math.MaxInt32 }), field: "ndim"},
		{name: "rule4/ndim-max-accepted", f: foreign(ones[:MaxNDim], ones[:MaxNDim]), check: func(t *testing.T, v *Validated) {
			if len(v.Shape) != MaxNDim || v.NumElements != 1 {
				t.Errorf("shape %v, %d elements", v.Shape, v.NumElements)
			}
		}},
		{name: "rule4/shape-null", f: with(ok, func(f *Foreign) { f.Tensor.Shape = nil }), field: "shape", msg: "NULL"},
		{name: "rule4/0d-nil-shape", f: foreign(nil, nil), check: func(t *testing.T, v *Validated) {
			if len(v.Shape) != 0 || len(v.Strides) != 0 || v.NumElements != 1 {
				t.Errorf("0-d view: shape %v strides %v n %d", v.Shape, v.Strides, v.NumElements)
			}
		}},
		// With ndim 0 the arrays must not be read, whatever they point to.
		{name: "rule4/0d-ignores-arrays", f: with(ok, func(f *Foreign) {
			f.Tensor.NDim, f.Tensor.Shape, f.Tensor.Strides = 0, &garbage[0], &garbage[1]
		}), check: wantShape([]int64{}, []int64{})},
	})
}

func TestValidateRule5ShapeAndExtent(t *testing.T) {
	big := int64(1) << 32
	runValidateCases(t, []validateCase{
		{name: "rule5/negative-dim", f: foreign([]int64{2, -3}, []int64{3, 1}), field: "shape", msg: "shape[1]"},
		{name: "rule5/negative-dim-in-empty", f: foreign([]int64{0, -3}, []int64{1, 1}), field: "shape"},
		{name: "rule5/min-int64-dim", f: foreign([]int64{math.MinInt64}, []int64{1}), field: "shape"},
		{name: "rule5/count-overflow", f: foreign([]int64{big, big}, []int64{1, 1}), field: "shape", msg: "overflows"},
		{name: "rule5/count-overflow-legacy", f: legacy([]int64{big, big}, nil), field: "shape"},
		// 2^62 float32 elements: the count fits, the bytes do not.
		{name: "rule5/byte-extent-overflow", f: legacy([]int64{1 << 62}, nil), field: "shape", msg: "overflow"},
		{name: "rule5/byte-extent-overflow-strided", f: foreign([]int64{3}, []int64{1 << 61}), field: "strides"},
		{name: "rule5/stride-reach-overflow", f: foreign([]int64{3}, []int64{math.MaxInt64/2 + 1}), field: "strides"},
		{name: "rule5/negative-reach-overflow", f: foreign([]int64{3}, []int64{math.MinInt64/2 - 1}), field: "strides"},
		{name: "rule5/sum-of-reaches-overflow", f: foreign([]int64{2, 2}, []int64{math.MaxInt64 / 2, math.MaxInt64/2 + 1}), field: "strides"},
		// Fits int64 but not the address space above the data pointer.
		{name: "rule5/address-wraps-high", f: with(foreign([]int64{1 << 40}, []int64{1 << 20}), func(f *Foreign) {
			f.Tensor.Data = fakePtr(highAddr)
		}), field: "strides", msg: "end of the address space"},
		{name: "rule5/address-last-byte-exact", f: with(foreign([]int64{1}, []int64{1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = fakePtr(^uintptr(0)-0xFFF), 0xFFC
		}), check: func(t *testing.T, v *Validated) {
			if uintptr(v.Data) != ^uintptr(0)-3 {
				t.Errorf("data = %#x", uintptr(v.Data))
			}
		}},
		{name: "rule5/address-last-byte-past", f: with(foreign([]int64{1}, []int64{1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = fakePtr(^uintptr(0)-0xFFF), 0xFFD
		}), field: "strides"},
		// Element 0 is at 0x10000; 0x4000 float32 elements below it reach address 0.
		{name: "rule5/address-down-to-zero", f: with(foreign([]int64{0x4001}, []int64{-1}), func(f *Foreign) {
			f.Tensor.Data = fakePtr(lowAddr)
		})},
		{name: "rule5/address-below-zero", f: with(foreign([]int64{0x4002}, []int64{-1}), func(f *Foreign) {
			f.Tensor.Data = fakePtr(lowAddr)
		}), field: "strides", msg: "below address 0"},
		// An empty tensor addresses nothing, so its other extents may be huge,
		// but strides derived from such a shape would not fit int64.
		{name: "rule5/empty-huge-explicit-strides", f: foreign([]int64{0, big, big}, []int64{1, 1, 1}), check: func(t *testing.T, v *Validated) {
			if v.NumElements != 0 {
				t.Errorf("n = %d", v.NumElements)
			}
		}},
		{name: "rule5/empty-huge-derived-strides", f: legacy([]int64{0, big, big}, nil), field: "shape", msg: "strides"},
		{name: "rule5/empty-huge-leading-derived-strides", f: legacy([]int64{big, big, 0}, nil), check: wantShape([]int64{big, big, 0}, []int64{big, 1, 1})},
	})
}

func TestValidateRule6Data(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "rule6/null-data-with-elements", f: with(foreign([]int64{2}, []int64{1}), func(f *Foreign) { f.Tensor.Data = nil }), field: "data", msg: "NULL"},
		{name: "rule6/null-data-0d", f: with(foreign(nil, nil), func(f *Foreign) { f.Tensor.Data = nil }), field: "data"},
		{name: "rule6/null-data-empty", f: with(foreign([]int64{3, 0}, []int64{0, 1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = nil, 1<<63
		}), check: func(t *testing.T, v *Validated) {
			if v.Data != nil || v.NumElements != 0 {
				t.Errorf("data = %p, n = %d", v.Data, v.NumElements)
			}
		}},
		{name: "rule6/null-data-empty-legacy-null-strides", f: with(legacy([]int64{0}, nil), func(f *Foreign) { f.Tensor.Data = nil }),
			check: wantShape([]int64{0}, []int64{1})},
		{name: "rule6/data-is-element-0", f: with(foreign([]int64{2}, []int64{1}), func(f *Foreign) { f.Tensor.ByteOffset = 24 }),
			check: func(t *testing.T, v *Validated) {
				if uintptr(v.Data) != lowAddr+24 {
					t.Errorf("data = %#x; want %#x", uintptr(v.Data), lowAddr+24)
				}
			}},
	})
}

func TestValidateRule7Strides(t *testing.T) {
	shape := []int64{2, 3, 4}
	contig := []int64{12, 4, 1}
	nilStrides := func(minor uint32) Foreign {
		return with(foreign(shape, nil), func(f *Foreign) { f.Version.Minor = minor })
	}
	runValidateCases(t, []validateCase{
		{name: "rule7/null-strides-1.3", f: nilStrides(3), field: "strides", msg: "DLPack 1.2+ forbids NULL strides"},
		{name: "rule7/null-strides-1.2", f: nilStrides(2), field: "strides", msg: "1.2"},
		{name: "rule7/null-strides-future-minor", f: nilStrides(9), field: "strides"},
		{name: "rule7/null-strides-1.1-contiguous", f: nilStrides(1), check: wantShape(shape, contig)},
		{name: "rule7/null-strides-1.0-contiguous", f: nilStrides(0), check: wantShape(shape, contig)},
		{name: "rule7/null-strides-legacy-contiguous", f: legacy(shape, nil), check: wantShape(shape, contig)},
		{name: "rule7/null-strides-legacy-unit-dims", f: legacy([]int64{1, 5, 1}, nil), check: wantShape([]int64{1, 5, 1}, []int64{5, 1, 1})},
		{name: "rule7/null-strides-0d-1.3", f: foreign(nil, nil)},
		{name: "rule7/negative-strides", f: with(foreign([]int64{3, 4}, []int64{-4, -1}), func(f *Foreign) { f.Tensor.ByteOffset = 11 * 4 }),
			check: wantShape([]int64{3, 4}, []int64{-4, -1})},
		{name: "rule7/zero-strides-broadcast", f: foreign([]int64{1000, 1000}, []int64{0, 0}), check: wantShape([]int64{1000, 1000}, []int64{0, 0})},
		{name: "rule7/fortran-order", f: foreign([]int64{3, 4}, []int64{1, 3}), check: wantShape([]int64{3, 4}, []int64{1, 3})},
		{name: "rule7/explicit-strides-legacy", f: legacy([]int64{3, 4}, []int64{8, 2}), check: wantShape([]int64{3, 4}, []int64{8, 2})},
	})
}

func TestValidateRule8SubByte(t *testing.T) {
	fp := func(dt DLDataType, flags uint64, shape, strides []int64) Foreign {
		return with(foreign(shape, strides), func(f *Foreign) { f.Tensor.DType, f.Flags = dt, flags })
	}
	runValidateCases(t, []validateCase{
		{name: "rule8/packed-fp4-contiguous", f: fp(dtFP4, 0, []int64{2, 3}, []int64{3, 1}), check: func(t *testing.T, v *Validated) {
			if v.Padded || v.DType.StorageBits(v.Padded) != 4 {
				t.Errorf("padded = %v", v.Padded)
			}
		}},
		{name: "rule8/packed-fp6-contiguous", f: fp(dtFP6, 0, []int64{5}, []int64{1})},
		{name: "rule8/packed-fp4-unit-dim-any-stride", f: fp(dtFP4, 0, []int64{1, 3}, []int64{77, 1})},
		{name: "rule8/packed-fp4-strided", f: fp(dtFP4, 0, []int64{3}, []int64{2}), field: "strides", msg: "C-contiguous"},
		{name: "rule8/packed-fp4-fortran", f: fp(dtFP4, 0, []int64{2, 3}, []int64{1, 2}), field: "strides"},
		{name: "rule8/packed-fp6-negative", f: fp(dtFP6, 0, []int64{3}, []int64{-1}), field: "strides"},
		{name: "rule8/packed-fp4-broadcast", f: fp(dtFP4, 0, []int64{3}, []int64{0}), field: "strides"},
		{name: "rule8/packed-fp4-legacy-strided", f: with(legacy([]int64{3}, []int64{2}), func(f *Foreign) { f.Tensor.DType = dtFP4 }), field: "strides"},
		{name: "rule8/packed-fp4-legacy-null-strides", f: with(legacy([]int64{3, 5}, nil), func(f *Foreign) { f.Tensor.DType = dtFP4 })},
		{name: "rule8/packed-fp4-empty-strided", f: fp(dtFP4, 0, []int64{0, 3}, []int64{5, 7})},
		{name: "rule8/padded-fp4", f: fp(dtFP4, FlagSubbyteTypePadded, []int64{3}, []int64{1}), check: func(t *testing.T, v *Validated) {
			if !v.Padded || v.DType.StorageBits(v.Padded) != 8 {
				t.Errorf("padded = %v", v.Padded)
			}
		}},
		{name: "rule8/padded-fp4-strided", f: fp(dtFP4, FlagSubbyteTypePadded, []int64{3, 2}, []int64{-2, 3}), check: wantShape([]int64{3, 2}, []int64{-2, 3})},
		{name: "rule8/padded-fp6-readonly", f: fp(dtFP6, FlagSubbyteTypePadded|FlagReadOnly, []int64{4}, []int64{2}), check: func(t *testing.T, v *Validated) {
			if !v.Padded || !v.ReadOnly {
				t.Errorf("padded=%v readonly=%v", v.Padded, v.ReadOnly)
			}
		}},
		{name: "rule8/padded-flag-on-float32-ignored", f: fp(dtFloat32, FlagSubbyteTypePadded, []int64{3}, []int64{2}), check: func(t *testing.T, v *Validated) {
			if v.Padded {
				t.Error("padded reported for a non-sub-byte dtype")
			}
		}},
		// 2^61-1 fp4 elements take 2^60 bytes: large, but representable.
		{name: "rule8/packed-fp4-huge", f: fp(dtFP4, 0, []int64{1<<61 - 1}, []int64{1})},
		{name: "rule8/packed-fp4-too-many-bits", f: fp(dtFP4, 0, []int64{1 << 62}, []int64{1}), field: "strides", msg: "overflow"},
		{name: "rule8/padded-fp4-span-overflow", f: fp(dtFP4, FlagSubbyteTypePadded, []int64{1 << 62}, []int64{3}), field: "strides"},
		{name: "rule8/padded-fp4-big-span", f: with(fp(dtFP4, FlagSubbyteTypePadded, []int64{1 << 62}, []int64{-1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = fakePtr(lowAddr), 1<<62
		})},
	})
}

func TestValidateRule9ByteOffset(t *testing.T) {
	runValidateCases(t, []validateCase{
		{name: "rule9/small-offset", f: with(foreign([]int64{4}, []int64{1}), func(f *Foreign) { f.Tensor.ByteOffset = 3 })},
		{name: "rule9/huge-offset", f: with(foreign([]int64{4}, []int64{1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = fakePtr(highAddr), 1<<46
		}), check: func(t *testing.T, v *Validated) {
			if uintptr(v.Data) != highAddr+1<<46 {
				t.Errorf("data = %#x", uintptr(v.Data))
			}
		}},
		{name: "rule9/offset-wraps", f: with(foreign([]int64{4}, []int64{1}), func(f *Foreign) {
			f.Tensor.Data, f.Tensor.ByteOffset = fakePtr(highAddr), 1<<63
		}), field: "byte_offset", msg: "wraps"},
		{name: "rule9/offset-max", f: with(foreign([]int64{0}, []int64{1}), func(f *Foreign) { f.Tensor.ByteOffset = math.MaxUint64 }), field: "byte_offset"},
		{name: "rule9/negative-strides-below-offset", f: with(foreign([]int64{3}, []int64{-1}), func(f *Foreign) { f.Tensor.ByteOffset = 8 })},
	})
}

func TestValidateCopiesProducerArrays(t *testing.T) {
	shape := []int64{2, 3}
	strides := []int64{3, 1}
	v, err := Validate(foreign(shape, strides))
	if err != nil {
		t.Fatal(err)
	}
	if &v.Shape[0] == &shape[0] || &v.Strides[0] == &strides[0] {
		t.Fatal("view aliases the producer's arrays")
	}
	shape[0], strides[0] = 99, 99
	if !slices.Equal(v.Shape, []int64{2, 3}) || !slices.Equal(v.Strides, []int64{3, 1}) || v.NumElements != 6 {
		t.Errorf("view changed with the producer's arrays: %v %v", v.Shape, v.Strides)
	}
}

func TestValidateReadsOnlyNDimEntries(t *testing.T) {
	// Shape and strides arrays longer than ndim: only the first ndim entries count.
	shape := []int64{2, 3, -1}
	strides := []int64{3, 1, -1}
	f := foreign(shape, strides)
	f.Tensor.NDim = 2
	v, err := Validate(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Shape) != 2 || len(v.Strides) != 2 {
		t.Errorf("view %v %v", v.Shape, v.Strides)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	err := error(&ValidationError{Field: "ndim", Msg: "ndim 70 is out of range"})
	if got := err.Error(); !strings.Contains(got, "DLPack") || !strings.Contains(got, "field ndim: ndim 70 is out of range") {
		t.Errorf("Error() = %q", got)
	}
}

func TestCheckedContiguousStridesMatchesLayout(t *testing.T) {
	for _, shape := range [][]int64{nil, {0}, {1}, {5}, {2, 3, 4}, {1, 5, 1, 2}, {3, 0, 2}, {1 << 31, 1 << 31, 2}} {
		got, ok := checkedContiguousStrides(shape)
		if !ok || !slices.Equal(got, ContiguousStrides(shape)) {
			t.Errorf("checkedContiguousStrides(%v) = %v, %v; ContiguousStrides = %v", shape, got, ok, ContiguousStrides(shape))
		}
	}
	if _, ok := checkedContiguousStrides([]int64{0, 1 << 32, 1 << 32}); ok {
		t.Error("overflow not reported")
	}
}
