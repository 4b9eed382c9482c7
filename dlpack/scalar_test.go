package dlpack

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

func dt(t testing.TB, name string) *DType {
	t.Helper()
	d, ok := ByName(name)
	if !ok {
		t.Fatalf("no dtype %s", name)
	}
	return d
}

func intS(v int64) Scalar       { return Scalar{Kind: KindInt, I: v} }
func uintS(v uint64) Scalar     { return Scalar{Kind: KindUint, U: v} }
func floatS(v float64) Scalar   { return Scalar{Kind: KindFloat, F: v} }
func boolS(v bool) Scalar       { return Scalar{Kind: KindBool, B: v} }
func cplxS(v complex128) Scalar { return Scalar{Kind: KindComplex, C: v} }

// bufFor has room for n elements of d, packed or padded.
func bufFor(d *DType, n int, padded bool) []byte {
	return make([]byte, (n*d.StorageBits(padded)+7)/8)
}

func mustSet(t *testing.T, d *DType, buf []byte, elem int64, padded bool, s Scalar) {
	t.Helper()
	if err := d.Set(buf, elem, padded, s); err != nil {
		t.Fatalf("%s.Set(%d, %+v): %v", d.Name, elem, s, err)
	}
}

func TestIntegersRoundTripAtTheirLimits(t *testing.T) {
	for _, d := range All() {
		if d.Kind != KindInt && d.Kind != KindUint {
			continue
		}
		w := uint(d.DL.Bits)
		var vals []Scalar
		if d.Kind == KindInt {
			lo, hi := -int64(1)<<(w-1), int64(uint64(1)<<(w-1)-1)
			vals = []Scalar{intS(lo), intS(hi), intS(-1), intS(0), intS(1)}
		} else {
			hi := uint64(1)<<w - 1
			if w == 64 {
				hi = math.MaxUint64
			}
			vals = []Scalar{uintS(0), uintS(1), uintS(hi)}
		}
		buf := bufFor(d, 3, false)
		for _, v := range vals {
			mustSet(t, d, buf, 1, false, v)
			if got := d.Get(buf, 1, false); got != v {
				t.Errorf("%s: set %+v, got %+v", d.Name, v, got)
			}
		}
		if !bytes.Equal(buf[:d.ItemSize()], make([]byte, d.ItemSize())) {
			t.Errorf("%s: writing element 1 touched element 0", d.Name)
		}
	}
}

func TestMultiByteElementsAreLittleEndian(t *testing.T) {
	buf := make([]byte, 16)
	mustSet(t, dt(t, "int32"), buf, 1, false, intS(0x01020304))
	if !bytes.Equal(buf[4:8], []byte{4, 3, 2, 1}) {
		t.Errorf("int32 bytes = %x", buf[4:8])
	}
	mustSet(t, dt(t, "float16"), buf, 0, false, floatS(1))
	if !bytes.Equal(buf[:2], []byte{0x00, 0x3C}) {
		t.Errorf("float16(1) bytes = %x", buf[:2])
	}
	mustSet(t, dt(t, "bfloat16"), buf, 0, false, floatS(-2))
	if !bytes.Equal(buf[:2], []byte{0x00, 0xC0}) {
		t.Errorf("bfloat16(-2) bytes = %x", buf[:2])
	}
	// Sign extension on read: 0xFF is -1 as int8 and 255 as uint8.
	if got := dt(t, "int8").Get([]byte{0xFF}, 0, false); got != intS(-1) {
		t.Errorf("int8 0xff = %+v", got)
	}
	if got := dt(t, "uint8").Get([]byte{0xFF}, 0, false); got != uintS(255) {
		t.Errorf("uint8 0xff = %+v", got)
	}
}

func TestComplexIsRealThenImaginary(t *testing.T) {
	c64 := dt(t, "complex64")
	buf := make([]byte, 16)
	mustSet(t, c64, buf, 1, false, cplxS(complex(1.5, -2)))
	if re := math.Float32frombits(le.Uint32(buf[8:])); re != 1.5 {
		t.Errorf("complex64 real = %v", re)
	}
	if im := math.Float32frombits(le.Uint32(buf[12:])); im != -2 {
		t.Errorf("complex64 imag = %v", im)
	}
	if got := c64.Get(buf, 1, false); got != cplxS(complex(1.5, -2)) {
		t.Errorf("complex64 Get = %+v", got)
	}
	c128 := dt(t, "complex128")
	buf = make([]byte, 32)
	v := complex(math.Pi, math.SmallestNonzeroFloat64)
	mustSet(t, c128, buf, 1, false, cplxS(v))
	if got := c128.Get(buf, 1, false); got != cplxS(v) {
		t.Errorf("complex128 Get = %+v", got)
	}
	// Real scalars go into the real part with a zero imaginary part.
	for _, s := range []Scalar{intS(-7), uintS(7), floatS(0.25), boolS(true)} {
		mustSet(t, c64, buf, 0, false, s)
		got := c64.Get(buf, 0, false).C
		if imag(got) != 0 || real(got) == 0 {
			t.Errorf("complex64 from %+v = %v", s, got)
		}
	}
}

func TestEveryFloatEncodingSurvivesGetThenSet(t *testing.T) {
	// Reading a value and writing it back must reproduce the encoding, for
	// every non-NaN pattern of every narrow format (NaN payloads need not
	// survive; ml_dtypes canonicalises them too).
	for _, d := range All() {
		if d.Kind != KindFloat || d.DL.Bits > 16 {
			continue
		}
		for _, padded := range []bool{false, true} {
			n := 1 << d.DL.Bits
			buf := bufFor(d, n, padded)
			for p := 0; p < n; p++ {
				d.store(buf, int64(p), padded, uint64(p))
			}
			for p := 0; p < n; p++ {
				s := d.Get(buf, int64(p), padded)
				if math.IsNaN(s.F) {
					continue
				}
				mustSet(t, d, buf, int64(p), padded, s)
				if got := d.load(buf, int64(p), padded); got != uint64(p) {
					t.Fatalf("%s (padded=%v): pattern %#x read as %v, written back as %#x",
						d.Name, padded, p, s.F, got)
				}
			}
		}
	}
	for _, name := range []string{"float32", "float64"} {
		d := dt(t, name)
		buf := bufFor(d, 1, false)
		for _, v := range []float64{0, math.Copysign(0, -1), 1.5, -0x1p-100, math.Inf(-1), math.MaxFloat32} {
			mustSet(t, d, buf, 0, false, floatS(v))
			if got := d.Get(buf, 0, false).F; got != v || math.Signbit(got) != math.Signbit(v) {
				t.Errorf("%s: set %v, got %v", name, v, got)
			}
		}
	}
}

// bitStreamElem is the DLPack packing rule stated directly: with the whole
// buffer read as one little-endian integer D, element i is
// (D >> (i*bits)) & mask.
func bitStreamElem(buf []byte, i, bits int) uint64 {
	le := make([]byte, len(buf))
	for k, b := range buf {
		le[len(buf)-1-k] = b
	}
	d := new(big.Int).SetBytes(le)
	d.Rsh(d, uint(i*bits))
	return d.Uint64() & (1<<bits - 1)
}

func TestPackedSubByteReadsFollowTheLittleEndianBitStream(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, name := range []string{"float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"} {
		d := dt(t, name)
		const n = 37 // odd, so the last byte is partly used
		buf := bufFor(d, n, false)
		rng.Read(buf)
		for i := 0; i < n; i++ {
			got := d.load(buf, int64(i), false)
			if want := bitStreamElem(buf, i, int(d.DL.Bits)); got != want {
				t.Fatalf("%s: element %d = %#x, bit stream says %#x", name, i, got, want)
			}
			if f := d.Get(buf, int64(i), false).F; !sameFloat(f, d.DecodeFloat(got)) {
				t.Fatalf("%s: Get(%d) = %v, want decode(%#x)", name, i, f, got)
			}
		}
	}
}

func TestPackedSubByteSetLeavesNeighbourBitsAlone(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, name := range []string{"float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"} {
		d := dt(t, name)
		w := int(d.DL.Bits)
		const n = 16 // fp6 elements 1, 2, 5, 6, ... straddle a byte boundary
		for i := 0; i < n; i++ {
			for _, v := range []float64{0.5, -1, 6, math.Copysign(0, -1)} {
				buf := bufFor(d, n, false)
				rng.Read(buf)
				before := append([]byte(nil), buf...)
				mustSet(t, d, buf, int64(i), false, floatS(v))
				if got := d.Get(buf, int64(i), false).F; got != v || math.Signbit(got) != math.Signbit(v) {
					t.Errorf("%s[%d] = %v after setting %v", name, i, got, v)
				}
				for j := 0; j < len(buf)*8; j++ {
					if j >= i*w && j < (i+1)*w {
						continue
					}
					if buf[j/8]>>(j%8)&1 != before[j/8]>>(j%8)&1 {
						t.Fatalf("%s: setting element %d changed bit %d", name, i, j)
					}
				}
			}
		}
	}
}

func TestPackedSubByteLastElementNeedsOnlyItsOwnBytes(t *testing.T) {
	// Four fp6 elements fill exactly three bytes; the last one must be
	// readable and writable without a fourth byte.
	d := dt(t, "float6_e3m2fn")
	buf := make([]byte, 3)
	mustSet(t, d, buf, 3, false, floatS(-28))
	if got := d.Get(buf, 3, false).F; got != -28 {
		t.Errorf("last element = %v", got)
	}
	if buf[2] != 0x3F<<2 {
		t.Errorf("buf = %x, want the top six bits of byte 2 set", buf)
	}
}

func TestPaddedSubByteUsesLowBitsOfOneBytePerElement(t *testing.T) {
	d := dt(t, "float4_e2m1fn")
	// Upper (padding) bits are ignored on read: 0xF5 holds 0x5 = 3.0.
	buf := []byte{0xF5, 0x0F}
	if got := d.Get(buf, 0, true).F; got != 3 {
		t.Errorf("padded Get(0xF5) = %v, want 3", got)
	}
	if got := d.Get(buf, 1, true).F; got != -6 {
		t.Errorf("padded Get(0x0F) = %v, want -6", got)
	}
	// A padded write owns the whole byte and clears the padding.
	mustSet(t, d, buf, 0, true, floatS(-0.5))
	if !bytes.Equal(buf, []byte{0x09, 0x0F}) {
		t.Errorf("after padded Set, buf = %x, want 09 0f", buf)
	}
	d6 := dt(t, "float6_e2m3fn")
	mustSet(t, d6, buf, 1, true, floatS(-7.5))
	if buf[1] != 0x3F {
		t.Errorf("padded fp6 byte = %#x, want 0x3f", buf[1])
	}
}

func TestOutOfRangeIntegersGiveNumPysMessage(t *testing.T) {
	cases := []struct {
		dtype string
		s     Scalar
		msg   string
	}{
		{"uint8", intS(300), "Python integer 300 out of bounds for uint8"},
		{"uint8", intS(-1), "Python integer -1 out of bounds for uint8"},
		{"int8", intS(128), "Python integer 128 out of bounds for int8"},
		{"int8", intS(-129), "Python integer -129 out of bounds for int8"},
		{"int16", uintS(40000), "Python integer 40000 out of bounds for int16"},
		{"int64", uintS(1 << 63), "Python integer 9223372036854775808 out of bounds for int64"},
		{"uint64", intS(math.MinInt64), "Python integer -9223372036854775808 out of bounds for uint64"},
		{"uint32", intS(1 << 32), "Python integer 4294967296 out of bounds for uint32"},
		// Floats are truncated first; the message shows the integer tried.
		{"uint8", floatS(300.7), "Python integer 300 out of bounds for uint8"},
		{"uint8", floatS(-1.5), "Python integer -1 out of bounds for uint8"},
		{"int16", floatS(1e20), "Python integer 100000000000000000000 out of bounds for int16"},
		{"int64", floatS(1e23), "Python integer 99999999999999991611392 out of bounds for int64"},
		{"int64", floatS(0x1p63), "Python integer 9223372036854775808 out of bounds for int64"},
	}
	for _, c := range cases {
		d := dt(t, c.dtype)
		buf := []byte{0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA}
		err := d.Set(buf, 0, false, c.s)
		var re *RangeError
		if !errors.As(err, &re) || err.Error() != c.msg {
			t.Errorf("%s.Set(%+v) = %v (%T), want RangeError %q", c.dtype, c.s, err, err, c.msg)
		}
		if !bytes.Equal(buf, bytes.Repeat([]byte{0xAA}, 8)) {
			t.Errorf("%s.Set(%+v) failed but wrote %x", c.dtype, c.s, buf)
		}
	}
}

func TestNonFiniteFloatIntoIntegerIsARangeError(t *testing.T) {
	cases := []struct {
		v   float64
		msg string
	}{
		{math.NaN(), "cannot convert float NaN to integer"},
		{math.Inf(1), "cannot convert float infinity to integer"},
		{math.Inf(-1), "cannot convert float infinity to integer"},
	}
	for _, name := range []string{"int8", "uint64"} {
		for _, c := range cases {
			err := dt(t, name).Set(make([]byte, 8), 0, false, floatS(c.v))
			var re *RangeError
			if !errors.As(err, &re) || re.Msg != c.msg {
				t.Errorf("%s.Set(%v) = %v, want RangeError %q", name, c.v, err, c.msg)
			}
		}
	}
}

func TestFloatIntoIntegerTruncatesTowardZero(t *testing.T) {
	cases := []struct {
		dtype string
		v     float64
		want  Scalar
	}{
		{"int16", 3.7, intS(3)},
		{"int16", -3.7, intS(-3)},
		{"uint8", -0.9, uintS(0)}, // truncates to -0, which is in range
		{"uint8", 255.99, uintS(255)},
		{"int8", -128.5, intS(-128)},
		{"int64", -0x1p63, intS(math.MinInt64)},
		{"uint64", 1.8e19, uintS(18000000000000000000)},
		{"int32", 1e-300, intS(0)},
	}
	for _, c := range cases {
		d := dt(t, c.dtype)
		buf := make([]byte, 8)
		mustSet(t, d, buf, 0, false, floatS(c.v))
		if got := d.Get(buf, 0, false); got != c.want {
			t.Errorf("%s from %v = %+v, want %+v", c.dtype, c.v, got, c.want)
		}
	}
}

func TestBoolAndBoolScalarsConvertLikePython(t *testing.T) {
	b := dt(t, "bool")
	cases := []struct {
		s    Scalar
		want bool
	}{
		{intS(0), false}, {intS(-2), true}, {uintS(0), false}, {uintS(9), true},
		{floatS(0), false}, {floatS(math.Copysign(0, -1)), false},
		{floatS(0.1), true}, {floatS(math.NaN()), true},
		{cplxS(0), false}, {cplxS(complex(0, 1)), true},
		{boolS(true), true}, {boolS(false), false},
	}
	for _, c := range cases {
		buf := []byte{0x55}
		mustSet(t, b, buf, 0, false, c.s)
		want := byte(0)
		if c.want {
			want = 1
		}
		if buf[0] != want {
			t.Errorf("bool from %+v stored %#x, want %#x", c.s, buf[0], want)
		}
	}
	// Any nonzero byte reads as true, as NumPy treats it.
	if got := b.Get([]byte{0x02}, 0, false); got != boolS(true) {
		t.Errorf("bool byte 2 = %+v", got)
	}
	// Bools go into numbers as 0 and 1.
	for _, name := range []string{"int8", "uint64", "float16", "float8_e8m0fnu", "float4_e2m1fn"} {
		d := dt(t, name)
		buf := make([]byte, 8)
		mustSet(t, d, buf, 0, false, boolS(true))
		got := d.Get(buf, 0, false)
		if got.I+int64(got.U)+int64(got.F) != 1 {
			t.Errorf("%s from True = %+v", name, got)
		}
	}
}

func TestComplexIntoRealDTypeIsATypeError(t *testing.T) {
	for _, name := range []string{"float32", "int8", "uint16", "bfloat16", "float4_e2m1fn"} {
		err := dt(t, name).Set(make([]byte, 8), 0, false, cplxS(complex(1, 0)))
		var te *TypeError
		want := "cannot store complex value in " + name + " array"
		if !errors.As(err, &te) || te.Msg != want {
			t.Errorf("%s.Set(complex) = %v, want TypeError %q", name, err, want)
		}
	}
}

func TestUnknownScalarKindIsATypeError(t *testing.T) {
	for _, d := range All() {
		err := d.Set(make([]byte, 16), 0, false, Scalar{Kind: Kind(42)})
		var te *TypeError
		if !errors.As(err, &te) {
			t.Errorf("%s.Set(kind 42) = %v, want TypeError", d.Name, err)
		}
	}
}

func TestIntegersIntoFloatsRoundOnceToNearest(t *testing.T) {
	cases := []struct {
		dtype string
		s     Scalar
		want  float64
	}{
		{"float64", intS(1<<53 + 1), 1 << 53},
		{"float64", uintS(math.MaxUint64), 0x1p64},
		{"float32", intS(1<<24 + 1), 1 << 24},
		{"float32", intS(1<<24 + 3), 1<<24 + 4},
		{"float16", intS(2049), 2048},
		{"float16", intS(65520), math.Inf(1)},
		{"float8_e4m3fn", intS(17), 16},
		{"float8_e4m3fn", intS(1000), math.NaN()},
		{"float4_e2m1fn", intS(-100), -6},
		// 2^60 + 2^52 + 2^36 + 1: rounded straight to float32 it lies above
		// the bfloat16 tie at 2^60 + 2^52 and goes up, as ml_dtypes does;
		// a detour through float64 would land on the tie and go down.
		{"bfloat16", intS(1<<60 + 1<<52 + 1<<36 + 1), 1<<60 + 1<<53},
		{"bfloat16", uintS(1<<60 + 1<<52 + 1<<36 + 1), 1<<60 + 1<<53},
	}
	for _, c := range cases {
		d := dt(t, c.dtype)
		buf := make([]byte, 8)
		mustSet(t, d, buf, 0, false, c.s)
		if got := d.Get(buf, 0, false).F; !sameFloat(got, c.want) {
			t.Errorf("%s from %+v = %v, want %v", c.dtype, c.s, got, c.want)
		}
	}
	c64 := dt(t, "complex64")
	buf := make([]byte, 8)
	mustSet(t, c64, buf, 0, false, intS(1<<60+1<<36+1))
	if got := real(c64.Get(buf, 0, false).C); got != 1<<60+1<<37 {
		t.Errorf("complex64 from int = %v, want the one-step float32 rounding", got)
	}
}

func TestGetAndSetDoNotAllocate(t *testing.T) {
	buf := make([]byte, 64)
	for _, d := range All() {
		var s Scalar
		switch d.Kind {
		case KindBool:
			s = boolS(true)
		case KindInt:
			s = intS(-3)
		case KindUint:
			s = uintS(3)
		case KindFloat:
			s = floatS(1.5)
		case KindComplex:
			s = cplxS(1 + 2i)
		}
		for _, padded := range []bool{false, true} {
			allocs := testing.AllocsPerRun(100, func() {
				if err := d.Set(buf, 3, padded, s); err != nil {
					panic(err)
				}
				s = d.Get(buf, 3, padded)
			})
			if allocs != 0 {
				t.Errorf("%s (padded=%v): %v allocations per Get+Set", d.Name, padded, allocs)
			}
		}
	}
}

func TestGetOutsideTheBufferPanicsLikeAnIndex(t *testing.T) {
	for _, name := range []string{"float6_e2m3fn", "int32", "complex64"} {
		d := dt(t, name)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s.Get past the end did not panic", name)
				}
			}()
			d.Get(make([]byte, 2), 8, false)
		}()
	}
}

func BenchmarkGetFloat32(b *testing.B) {
	d := dt(b, "float32")
	buf := make([]byte, 4096)
	var s float64
	for i := 0; i < b.N; i++ {
		s += d.Get(buf, int64(i&1023), false).F
	}
	_ = s
}

func BenchmarkGetFloat6Packed(b *testing.B) {
	d := dt(b, "float6_e2m3fn")
	buf := make([]byte, 768)
	var s float64
	for i := 0; i < b.N; i++ {
		s += d.Get(buf, int64(i&1023), false).F
	}
	_ = s
}

func BenchmarkSetBfloat16(b *testing.B) {
	d := dt(b, "bfloat16")
	buf := make([]byte, 2048)
	for i := 0; i < b.N; i++ {
		_ = d.Set(buf, int64(i&1023), false, Scalar{Kind: KindFloat, F: float64(i)})
	}
}
