package dlpack

//go:generate python3 ../tools/gen_float_golden.py

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
)

// golden is dlpack/testdata/float_golden.json.gz, written by
// tools/gen_float_golden.py from NumPy + ml_dtypes.
type golden struct {
	NumPy        string   `json:"numpy"`
	MLDtypes     string   `json:"ml_dtypes"`
	CommonInputs []string `json:"common_inputs"`
	Formats      []goldenFormat
}

type goldenFormat struct {
	Name         string
	Bits         int
	Decode       []string // float64 bit patterns, hex
	EncodeCommon []uint64 `json:"encode_common"`
	ExtraInputs  []string `json:"extra_inputs"`
	EncodeExtra  []uint64 `json:"encode_extra"`
}

var loadGolden = sync.OnceValues(func() (*golden, error) {
	f, err := os.Open("testdata/float_golden.json.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var g golden
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		return nil, err
	}
	return &g, nil
})

func goldenData(t *testing.T) *golden {
	t.Helper()
	g, err := loadGolden()
	if err != nil {
		t.Fatalf("golden vectors: %v (regenerate with tools/gen_float_golden.py)", err)
	}
	return g
}

func hexFloat(t *testing.T, s string) float64 {
	t.Helper()
	b, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("bad golden hex %q: %v", s, err)
	}
	return math.Float64frombits(b)
}

func goldenDType(t *testing.T, name string) *DType {
	t.Helper()
	d, ok := ByName(name)
	if !ok {
		t.Fatalf("golden format %s is not in the dtype table", name)
	}
	return d
}

// sameFloat is exact equality that tells -0 from +0 and calls any two NaNs
// equal: the reference's NaN payloads after widening are not part of the
// contract.
func sameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func TestGoldenCoversEveryNarrowFloat(t *testing.T) {
	g := goldenData(t)
	want := map[string]bool{"float16": true, "bfloat16": true}
	for _, d := range All() {
		if d.mini != nil {
			want[d.Name] = true
		}
	}
	for _, f := range g.Formats {
		d := goldenDType(t, f.Name)
		if f.Bits != int(d.DL.Bits) {
			t.Errorf("%s: golden has %d bits, table %d", f.Name, f.Bits, d.DL.Bits)
		}
		delete(want, f.Name)
	}
	for name := range want {
		t.Errorf("no golden vectors for %s", name)
	}
	t.Logf("golden vectors from numpy %s, ml_dtypes %s", g.NumPy, g.MLDtypes)
}

func TestDecodeMatchesReferenceForEveryBitPattern(t *testing.T) {
	g := goldenData(t)
	for _, f := range g.Formats {
		d := goldenDType(t, f.Name)
		if len(f.Decode) != 1<<f.Bits {
			t.Errorf("%s: %d decode vectors, want %d", f.Name, len(f.Decode), 1<<f.Bits)
			continue
		}
		bad := 0
		for pat, h := range f.Decode {
			want := hexFloat(t, h)
			if got := d.DecodeFloat(uint64(pat)); !sameFloat(got, want) {
				if bad++; bad <= 5 {
					t.Errorf("%s: decode(%#x) = %v, reference %v", f.Name, pat, got, want)
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d decode mismatches in all", f.Name, bad)
		}
	}
}

func TestEncodeMatchesReferenceAstypeFromFloat64(t *testing.T) {
	g := goldenData(t)
	common := make([]float64, len(g.CommonInputs))
	for i, h := range g.CommonInputs {
		common[i] = hexFloat(t, h)
	}
	total := 0
	for _, f := range g.Formats {
		d := goldenDType(t, f.Name)
		if len(f.EncodeCommon) != len(common) || len(f.EncodeExtra) != len(f.ExtraInputs) {
			t.Fatalf("%s: golden input and output counts differ", f.Name)
		}
		inputs := append([]float64(nil), common...)
		for _, h := range f.ExtraInputs {
			inputs = append(inputs, hexFloat(t, h))
		}
		want := append(append([]uint64(nil), f.EncodeCommon...), f.EncodeExtra...)
		bad := 0
		for i, x := range inputs {
			got := d.EncodeFloat(x)
			// Bit-exact, NaN outputs included: each format's NaN encoding
			// (sign, payload, or the -0 that float6/float4 store) is
			// part of what ml_dtypes does.
			if got != want[i] {
				if bad++; bad <= 5 {
					t.Errorf("%s: encode(%v = %#016x) = %#x, reference %#x",
						f.Name, x, math.Float64bits(x), got, want[i])
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d encode mismatches of %d", f.Name, bad, len(inputs))
		}
		total += len(inputs)
	}
	t.Logf("%d encodings compared", total)
}

func TestEncodeOfNaNDecodesToNaNWhereTheFormatHasNaN(t *testing.T) {
	for _, d := range All() {
		if d.Kind != KindFloat {
			continue
		}
		hasNaN := d.mini == nil || d.mini.family != familyMX
		for _, v := range []float64{math.NaN(), math.Copysign(math.NaN(), -1)} {
			got := d.DecodeFloat(d.EncodeFloat(v))
			if hasNaN && !math.IsNaN(got) {
				t.Errorf("%s: NaN round-trips to %v", d.Name, got)
			}
			if !hasNaN && got != 0 {
				t.Errorf("%s: NaN stored as %v, want the (signed) zero ml_dtypes uses", d.Name, got)
			}
		}
	}
}

// The cases below restate, by hand, the per-family rules that the golden
// vectors pin down in bulk, so that a failure names the rule that broke.

func encodeNamed(t *testing.T, name string, v float64) uint64 {
	t.Helper()
	return goldenDType(t, name).EncodeFloat(v)
}

func TestOverflowBecomesInfNaNOrMaxByFamily(t *testing.T) {
	cases := []struct {
		name     string
		pos, neg uint64
	}{
		{"float16", 0x7C00, 0xFC00},        // inf
		{"bfloat16", 0x7F80, 0xFF80},       // inf
		{"float8_e5m2", 0x7C, 0xFC},        // inf
		{"float8_e4m3", 0x78, 0xF8},        // inf
		{"float8_e3m4", 0x70, 0xF0},        // inf
		{"float8_e4m3fn", 0x7F, 0xFF},      // signed NaN
		{"float8_e4m3fnuz", 0x80, 0x80},    // the only NaN
		{"float8_e4m3b11fnuz", 0x80, 0x80}, // the only NaN
		{"float8_e5m2fnuz", 0x80, 0x80},    // the only NaN
		{"float8_e8m0fnu", 0xFF, 0xFF},     // NaN
		{"float6_e2m3fn", 0x1F, 0x3F},      // saturates to ±7.5
		{"float6_e3m2fn", 0x1F, 0x3F},      // saturates to ±28
		{"float4_e2m1fn", 0x7, 0xF},        // saturates to ±6
	}
	for _, c := range cases {
		// 3.4e38 is finite in float32 but above every format's overflow
		// threshold, bfloat16's and e8m0's included.
		for _, v := range []float64{3.4e38, math.Inf(1)} {
			if got := encodeNamed(t, c.name, v); got != c.pos {
				t.Errorf("%s(%v) = %#x, want %#x", c.name, v, got, c.pos)
			}
			if got := encodeNamed(t, c.name, -v); got != c.neg {
				t.Errorf("%s(%v) = %#x, want %#x", c.name, -v, got, c.neg)
			}
		}
	}
}

func TestValuesJustAboveMaxRoundDownUnlessPastTheMidpoint(t *testing.T) {
	// float8_e4m3fn: max 448; the next step would be 480, so 464 is the tie
	// (rounds to even 448) and anything above it is overflow (NaN).
	if got := encodeNamed(t, "float8_e4m3fn", 464); got != 0x7E {
		t.Errorf("e4m3fn(464) = %#x, want 0x7e (448)", got)
	}
	if got := encodeNamed(t, "float8_e4m3fn", 465); got != 0x7F {
		t.Errorf("e4m3fn(465) = %#x, want 0x7f (NaN)", got)
	}
	// float8_e5m2: max 57344, next step 65536: 61440 is the tie, and the
	// even neighbour is inf.
	if got := encodeNamed(t, "float8_e5m2", 61439); got != 0x7B {
		t.Errorf("e5m2(61439) = %#x, want 0x7b", got)
	}
	if got := encodeNamed(t, "float8_e5m2", 61440); got != 0x7C {
		t.Errorf("e5m2(61440) = %#x, want 0x7c (inf)", got)
	}
}

func TestNegativeZeroIsKeptExceptInFNUZAndE8M0(t *testing.T) {
	for _, d := range All() {
		if d.Kind != KindFloat {
			continue
		}
		got := d.EncodeFloat(math.Copysign(0, -1))
		var want uint64
		switch {
		case d.mini == nil: // float32, float64, bfloat16
			want = 1 << (d.DL.Bits - 1)
		case d.mini.family == familyFNUZ:
			want = 0 // the -0 pattern is NaN there
		case d.mini.family == familyE8M0:
			want = 0xFF // no zero at all: NaN
		default:
			want = d.mini.signBit
		}
		if got != want {
			t.Errorf("%s(-0) = %#x, want %#x", d.Name, got, want)
		}
	}
	// A negative value that underflows is +0 in fnuz formats too.
	if got := encodeNamed(t, "float8_e4m3fnuz", -1e-30); got != 0 {
		t.Errorf("e4m3fnuz(-1e-30) = %#x, want 0", got)
	}
}

func TestE8M0RoundsTiesUpAndHasNoZeroOrNegatives(t *testing.T) {
	cases := []struct {
		v    float64
		want uint64
	}{
		{1, 0x7F}, {1.4999, 0x7F}, {1.5, 0x80}, {3, 0x81}, {6, 0x82},
		{0, 0xFF}, {-1, 0xFF}, {math.NaN(), 0xFF},
		// Below 2^-126 ml_dtypes rounds on a subnormal-like grid: anything
		// strictly above 2^-127 goes up to 2^-126, anything else, down to
		// a float32 subnormal, becomes 0x00 = 2^-127.
		{0x1p-126, 0x01}, {0x1.02p-127, 0x01}, {0x1p-127, 0x00}, {0x1p-140, 0x00},
		// Values that float32 flushes to zero are zero, hence NaN.
		{1e-300, 0xFF},
	}
	for _, c := range cases {
		if got := encodeNamed(t, "float8_e8m0fnu", c.v); got != c.want {
			t.Errorf("e8m0(%v) = %#x, want %#x", c.v, got, c.want)
		}
	}
}

func TestMXFormatsStoreNaNAsNegativeZero(t *testing.T) {
	for _, name := range []string{"float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"} {
		d := goldenDType(t, name)
		if got := d.EncodeFloat(math.NaN()); got != d.mini.signBit {
			t.Errorf("%s(NaN) = %#x, want -0 (%#x)", name, got, d.mini.signBit)
		}
		if got := d.EncodeFloat(math.Copysign(math.NaN(), -1)); got != 0 {
			t.Errorf("%s(-NaN) = %#x, want +0", name, got)
		}
	}
}

func TestNarrowFormatsRoundFloat64ViaFloat32LikeMLDtypes(t *testing.T) {
	// 1 + 2^-4 + 2^-40 is just above the e4m3 tie between 1 and 1.125, but
	// float32 rounds it onto the tie, which then goes to even (1.0). A
	// direct rounding would give 1.125; ml_dtypes' astype gives 1.0.
	x := 1 + 0x1p-4 + 0x1p-40
	if got := encodeNamed(t, "float8_e4m3fn", x); got != 0x38 {
		t.Errorf("e4m3fn(%v) = %#x, want 0x38 (1.0)", x, got)
	}
	y := 1 + 0x1p-8 + 0x1p-40
	if got := encodeNamed(t, "bfloat16", y); got != 0x3F80 {
		t.Errorf("bfloat16(%v) = %#x, want 0x3f80 (1.0)", y, got)
	}
	// NumPy's float16 rounds float64 once.
	z := 1 + 0x1p-11 + 0x1p-40
	if got := encodeNamed(t, "float16", z); got != 0x3C01 {
		t.Errorf("float16(%v) = %#x, want 0x3c01", z, got)
	}
}

func TestSubnormalsRoundToNearestEven(t *testing.T) {
	d := goldenDType(t, "float8_e4m3fn") // smallest subnormal 2^-9
	cases := []struct {
		v    float64
		want uint64
	}{
		{0x1p-10, 0x00},        // tie between 0 and 2^-9: even is 0
		{0x1.000002p-10, 0x01}, // just above the tie (still float32-exact)
		{3 * 0x1p-10, 0x02},    // tie between 1 and 2 subnormal steps: even
		{0x1p-9 * 7.5, 0x08},   // rounds up into the smallest normal
		{-3 * 0x1p-10, 0x82},
	}
	for _, c := range cases {
		if got := d.EncodeFloat(c.v); got != c.want {
			t.Errorf("e4m3fn(%v) = %#x, want %#x", c.v, got, c.want)
		}
	}
}

func TestDecodeIgnoresBitsAboveTheFormatWidth(t *testing.T) {
	for _, name := range []string{"float4_e2m1fn", "float6_e2m3fn", "float8_e5m2", "float16", "bfloat16"} {
		d := goldenDType(t, name)
		for _, pat := range []uint64{0, 1, 3, 5} {
			high := pat | ^uint64(0)<<d.DL.Bits
			if a, b := d.DecodeFloat(pat), d.DecodeFloat(high); !sameFloat(a, b) {
				t.Errorf("%s: decode(%#x)=%v but decode(%#x)=%v", name, pat, a, high, b)
			}
		}
	}
}

func TestEncodeFloatPanicsOnIntegerDType(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("EncodeFloat on int32 did not panic")
		}
	}()
	goldenDType(t, "int32").EncodeFloat(1)
}

func BenchmarkDecodeFloat8(b *testing.B) {
	d, _ := ByName("float8_e4m3fn")
	var s float64
	for i := 0; i < b.N; i++ {
		s += d.DecodeFloat(uint64(i & 0x7E))
	}
	_ = s
}

func BenchmarkEncodeFloat8(b *testing.B) {
	d, _ := ByName("float8_e4m3fn")
	var s uint64
	for i := 0; i < b.N; i++ {
		s += d.EncodeFloat(float64(i&1023) * 0.37)
	}
	_ = s
}
