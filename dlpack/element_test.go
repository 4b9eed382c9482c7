package dlpack

import (
	"math"
	"testing"
)

// DTypeOf maps each Element type to the dtype of its name, and every dtype of
// the table has one.
func TestDTypeOfCoversTheTable(t *testing.T) {
	got := []*DType{
		DTypeOf[bool](), DTypeOf[int8](), DTypeOf[int16](), DTypeOf[int32](), DTypeOf[int64](),
		DTypeOf[uint8](), DTypeOf[uint16](), DTypeOf[uint32](), DTypeOf[uint64](),
		DTypeOf[Float16](), DTypeOf[float32](), DTypeOf[float64](), DTypeOf[BFloat16](),
		DTypeOf[complex64](), DTypeOf[complex128](), DTypeOf[Float8E3M4](), DTypeOf[Float8E4M3](),
		DTypeOf[Float8E4M3B11FNUZ](), DTypeOf[Float8E4M3FN](), DTypeOf[Float8E4M3FNUZ](),
		DTypeOf[Float8E5M2](), DTypeOf[Float8E5M2FNUZ](), DTypeOf[Float8E8M0FNU](),
		DTypeOf[Float6E2M3FN](), DTypeOf[Float6E3M2FN](), DTypeOf[Float4E2M1FN](),
	}
	if len(got) != len(All()) {
		t.Fatalf("%d element types for %d dtypes", len(got), len(All()))
	}
	for i, d := range got {
		if d != All()[i] {
			t.Errorf("element type %d maps to %s, want %s", i, d, All()[i])
		}
	}
}

// The narrow types convert with the dtype table's codecs, both ways.
func TestNarrowFloatConversions(t *testing.T) {
	check := func(name string, enc uint64, f64 float64, f32 float32) {
		t.Helper()
		d, _ := ByName(name)
		if d.EncodeFloat(1.5) != enc {
			t.Errorf("%s: FromFloat64(1.5) = %#x, want %#x", name, enc, d.EncodeFloat(1.5))
		}
		if f64 != 1.5 || f32 != 1.5 {
			t.Errorf("%s: back to float64 %v, float32 %v", name, f64, f32)
		}
	}
	b := FromFloat64[BFloat16](1.5)
	check("bfloat16", uint64(b), b.Float64(), b.Float32())
	h := FromFloat32[Float16](1.5)
	check("float16", uint64(h), h.Float64(), h.Float32())
	e4 := FromFloat64[Float8E4M3FN](1.5)
	check("float8_e4m3fn", uint64(e4), e4.Float64(), e4.Float32())
	f4 := FromFloat64[Float4E2M1FN](1.5)
	check("float4_e2m1fn", uint64(f4), f4.Float64(), f4.Float32())
	f6 := FromFloat32[Float6E2M3FN](1.5)
	check("float6_e2m3fn", uint64(f6), f6.Float64(), f6.Float32())
	if x := FromFloat64[Float8E4M3FN](1000); x.Float64() != 448 && !math.IsNaN(x.Float64()) {
		t.Errorf("float8_e4m3fn overflow: %v", x.Float64())
	}
	// One rounding from float32, not two through float64.
	if got, want := FromFloat32[BFloat16](1.00390625), BFloat16(0x3f80); got != want {
		t.Errorf("bfloat16 from float32: %#x, want %#x", got, want)
	}
}

func TestDeviceTypeString(t *testing.T) {
	if CPU.String() != "kDLCPU" || Trn.String() != "kDLTrn" || DLDeviceType(99).String() != "unknown device type 99" {
		t.Errorf("%s %s %s", CPU, Trn, DLDeviceType(99))
	}
}
