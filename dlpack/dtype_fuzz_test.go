package dlpack

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"sort"
	"sync"
	"testing"
)

// FuzzDTypeScalar drives DType.Get / DType.Set / EncodeFloat / DecodeFloat with
// any dtype, any element of any buffer (packed or padded), and any Python-like
// scalar. It checks that nothing panics inside a buffer, that an out-of-range
// element panics like a slice index without writing, and these invariants:
//
//   - Set either succeeds or returns a *RangeError / *TypeError and leaves the
//     buffer as it was; a complex value goes only into a complex dtype.
//   - Set touches only the element's own bits (a padded sub-byte element: its
//     byte, with the padding bits zero).
//   - Get after a successful Set: integers read back exactly (floats truncated
//     toward zero), bools as Python's truth, floats as DecodeFloat(EncodeFloat(v)).
//   - Set(Get(x)) rewrites x's own encoding (NaN encodings may become another
//     NaN of the format; every other encoding, -0 included, is kept bit for bit).
//   - EncodeFloat(DecodeFloat(b)) == b for every non-NaN encoding b, and rounding
//     is monotone: v <= w implies DecodeFloat(EncodeFloat(v)) <= ... (w).
func FuzzDTypeScalar(f *testing.F) {
	// A few seeds in code; more live in testdata/fuzz/FuzzDTypeScalar.
	f.Add(uint8(9), false, uint16(1), uint8(KindFloat), uint64(0x7FF0000000000123), uint64(0), []byte{0, 0x7e, 0xff, 0})
	f.Add(uint8(23), false, uint16(1), uint8(KindInt), uint64(3), uint64(0), []byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, index uint8, padded bool, elem uint16, kind uint8, v1, v2 uint64, buf []byte) {
		// Capacity = length: the complex dtypes' Get and Set slice buf[a:b], which
		// Go checks against cap, not len (their products pass exact slices).
		buf = buf[:len(buf):len(buf)]
		all := All()
		d := all[int(index)%len(all)]
		s := fuzzScalar(kind, v1, v2)
		width := d.StorageBits(padded) // bits one element occupies in buf
		n := int64(len(buf)) * 8 / int64(width)
		if d.SubByte() && !padded {
			n = int64(len(buf)) * 8 / int64(d.DL.Bits)
		}

		// Past the end: Get and Set panic like a slice index and write nothing.
		orig := bytes.Clone(buf)
		if !fuzzPanics(func() { d.Get(buf, n, padded) }) {
			t.Fatalf("%s.Get(element %d of a %d-byte buffer) did not panic", d.Name, n, len(buf))
		}
		var setErr error
		// Set checks the value first: an unacceptable one is refused before the index is used.
		if !fuzzPanics(func() { setErr = d.Set(buf, n+int64(elem), padded, s) }) && setErr == nil {
			t.Fatalf("%s.Set(element %d of a %d-byte buffer) neither panicked nor failed", d.Name, n+int64(elem), len(buf))
		}
		if !bytes.Equal(buf, orig) {
			t.Fatalf("%s: Set past the end wrote %x -> %x", d.Name, orig, buf)
		}
		if n == 0 {
			return
		}
		e := int64(elem) % n

		// The element's current encoding survives Set(Get(x)).
		before := d.Get(buf, e, padded)
		if before.Kind != d.Kind {
			t.Fatalf("%s.Get returned kind %v", d.Name, before.Kind)
		}
		raw := fuzzValueBits(d, buf, e, padded)
		work := bytes.Clone(buf)
		if err := d.Set(work, e, padded, before); err != nil {
			t.Fatalf("%s: Set(Get()) of %+v: %v", d.Name, before, err)
		}
		fuzzSameOutside(t, d, buf, work, e, padded)
		again := fuzzValueBits(d, work, e, padded)
		switch {
		case d.Kind == KindBool: // any nonzero byte reads true and is rewritten as 1
			if again[0] > 1 || (again[0] == 1) != (raw[0] != 0) {
				t.Fatalf("bool: Set(Get(%#x)) = %#x", raw[0], again[0])
			}
		case again != raw && !fuzzIsNaNScalar(before):
			t.Fatalf("%s: Set(Get(%#x)) = %#x (value %+v)", d.Name, raw, again, before)
		}
		if after := d.Get(work, e, padded); fuzzIsNaNScalar(before) != fuzzIsNaNScalar(after) {
			t.Fatalf("%s: NaN-ness of %+v changed to %+v", d.Name, before, after)
		}

		// Set of the fuzzed scalar.
		work = bytes.Clone(buf)
		err := d.Set(work, e, padded, s)
		if err != nil {
			var re *RangeError
			var te *TypeError
			if !errors.As(err, &re) && !errors.As(err, &te) {
				t.Fatalf("%s.Set(%+v): error of type %T: %v", d.Name, s, err, err)
			}
			if err.Error() == "" {
				t.Fatalf("%s.Set(%+v): empty error message", d.Name, s)
			}
			if !bytes.Equal(work, buf) {
				t.Fatalf("%s.Set(%+v) failed (%v) but wrote %x -> %x", d.Name, s, err, buf, work)
			}
			fuzzCheckRejection(t, d, s, err)
			return
		}
		if s.Kind == KindComplex && d.Kind != KindComplex && d.Kind != KindBool {
			t.Fatalf("%s.Set accepted complex %v", d.Name, s.C)
		}
		fuzzSameOutside(t, d, buf, work, e, padded)
		fuzzCheckStored(t, d, s, d.Get(work, e, padded))

		// Encode/decode invariants of floating dtypes, on the fuzzed bits.
		if d.Kind == KindFloat || d.Kind == KindComplex {
			fuzzCheckCodec(t, d, v1, v2)
		}
	})
}

// fuzzScalar makes a Scalar of any kind (unknown kinds included) from raw bits.
func fuzzScalar(kind uint8, v1, v2 uint64) Scalar {
	k := Kind(kind % 6) // 5 is no kind at all: Set must refuse it
	switch k {
	case KindBool:
		return Scalar{Kind: k, B: v1&1 == 1}
	case KindInt:
		return Scalar{Kind: k, I: int64(v1)}
	case KindUint:
		return Scalar{Kind: k, U: v1}
	case KindFloat:
		return Scalar{Kind: k, F: math.Float64frombits(v1)}
	case KindComplex:
		return Scalar{Kind: k, C: complex(math.Float64frombits(v1), math.Float64frombits(v2))}
	}
	return Scalar{Kind: k, I: int64(v1)}
}

func fuzzPanics(fn func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	fn()
	return false
}

// fuzzElemBits is the bit range [lo, hi) of buf that element e occupies.
func fuzzElemBits(d *DType, e int64, padded bool) (lo, hi int64) {
	if d.SubByte() && !padded {
		return e * int64(d.DL.Bits), (e + 1) * int64(d.DL.Bits)
	}
	w := int64(d.StorageBits(padded))
	return e * w, (e + 1) * w
}

// fuzzValueBits reads element e's encoding as an integer (up to 128 bits: two
// words): its storage, less the padding bits of a padded sub-byte element.
func fuzzValueBits(d *DType, buf []byte, e int64, padded bool) [2]uint64 {
	lo, hi := fuzzElemBits(d, e, padded)
	if d.SubByte() {
		hi = lo + int64(d.DL.Bits)
	}
	var r [2]uint64
	for b := lo; b < hi; b++ {
		if buf[b/8]>>(b%8)&1 == 1 {
			i := b - lo
			r[i/64] |= 1 << (i % 64)
		}
	}
	return r
}

// fuzzSameOutside fails unless before and after differ only inside element e
// (for a padded sub-byte element, the padding bits of its byte must be zero).
func fuzzSameOutside(t *testing.T, d *DType, before, after []byte, e int64, padded bool) {
	t.Helper()
	lo, hi := fuzzElemBits(d, e, padded)
	for b := int64(0); b < int64(len(before))*8; b++ {
		x, y := before[b/8]>>(b%8)&1, after[b/8]>>(b%8)&1
		if (b < lo || b >= hi) && x != y {
			t.Fatalf("%s: writing element %d (bits %d..%d) changed bit %d: %x -> %x", d.Name, e, lo, hi, b, before, after)
		}
	}
	if padded && d.SubByte() && after[e]>>d.DL.Bits != 0 {
		t.Fatalf("%s: padded element %d has padding bits set: %#x", d.Name, e, after[e])
	}
}

func fuzzIsNaNScalar(s Scalar) bool {
	switch s.Kind {
	case KindFloat:
		return s.F != s.F
	case KindComplex:
		return real(s.C) != real(s.C) || imag(s.C) != imag(s.C)
	}
	return false
}

// fuzzCheckRejection: Set refuses only what it must.
func fuzzCheckRejection(t *testing.T, d *DType, s Scalar, err error) {
	t.Helper()
	switch {
	case s.Kind > KindComplex:
		return // not a kind at all
	case s.Kind == KindComplex && d.Kind != KindComplex && d.Kind != KindBool:
		return
	case d.Kind == KindInt || d.Kind == KindUint:
		if _, ok := fuzzIntegerValue(s); ok && fuzzFits(d, s) {
			t.Fatalf("%s.Set(%+v) refused an in-range value: %v", d.Name, s, err)
		}
		return
	}
	t.Fatalf("%s.Set(%+v) refused: %v", d.Name, s, err)
}

// fuzzIntegerValue is the integer an integer dtype must store for s: exact
// for bools and integers, truncated toward zero for finite floats.
func fuzzIntegerValue(s Scalar) (*big.Int, bool) {
	switch s.Kind {
	case KindBool:
		if s.B {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case KindInt:
		return big.NewInt(s.I), true
	case KindUint:
		return new(big.Int).SetUint64(s.U), true
	case KindFloat:
		if s.F != s.F || math.IsInf(s.F, 0) {
			return nil, false
		}
		v, _ := new(big.Float).SetFloat64(math.Trunc(s.F)).Int(nil)
		return v, true
	}
	return nil, false
}

func fuzzFits(d *DType, s Scalar) bool {
	v, ok := fuzzIntegerValue(s)
	if !ok {
		return false
	}
	w := uint(d.DL.Bits)
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), w)
	if d.Kind == KindInt {
		lo.Neg(new(big.Int).Lsh(big.NewInt(1), w-1))
		hi.Lsh(big.NewInt(1), w-1)
	}
	return v.Cmp(lo) >= 0 && v.Cmp(hi) < 0
}

// fuzzCheckStored: what Get reads back after a successful Set of s.
func fuzzCheckStored(t *testing.T, d *DType, s, got Scalar) {
	t.Helper()
	switch d.Kind {
	case KindBool:
		want, _ := truth(s)
		if got.B != want {
			t.Fatalf("bool.Set(%+v) read back %v", s, got.B)
		}
	case KindInt, KindUint:
		want, ok := fuzzIntegerValue(s)
		if !ok || !fuzzFits(d, s) {
			t.Fatalf("%s.Set accepted %+v", d.Name, s)
		}
		have := big.NewInt(got.I)
		if d.Kind == KindUint {
			have.SetUint64(got.U)
		}
		if have.Cmp(want) != 0 {
			t.Fatalf("%s.Set(%+v) read back %v, want %v", d.Name, s, have, want)
		}
	case KindFloat:
		var want float64
		switch s.Kind {
		case KindFloat:
			want = d.DecodeFloat(d.EncodeFloat(s.F))
		case KindBool:
			one := 0.0
			if s.B {
				one = 1
			}
			want = d.DecodeFloat(d.EncodeFloat(one))
		case KindInt, KindUint:
			// Integers round once (to float32 for the formats reached through
			// float32): the result is the format's value nearest the integer,
			// so it must be within one rounding of it and keep its sign.
			x := float64(s.I)
			if s.Kind == KindUint {
				x = float64(s.U)
			}
			fuzzCheckIntegerRounding(t, d, x, got.F)
			return
		}
		if !fuzzSameFloat(got.F, want) {
			t.Fatalf("%s.Set(%+v) read back %v, want %v", d.Name, s, got.F, want)
		}
	case KindComplex:
		re, im := 0.0, 0.0
		switch s.Kind {
		case KindComplex:
			re, im = real(s.C), imag(s.C)
		case KindFloat:
			re = s.F
		case KindBool:
			if s.B {
				re = 1
			}
		case KindInt:
			re = float64(s.I)
		case KindUint:
			re = float64(s.U)
		}
		if d.DL.Bits == 64 {
			re, im = float64(float32(re)), float64(float32(im))
			if s.Kind == KindInt { // rounded once, straight to float32
				re = float64(float32(s.I))
			} else if s.Kind == KindUint {
				re = float64(float32(s.U))
			}
		}
		if !fuzzSameFloat(real(got.C), re) || !fuzzSameFloat(imag(got.C), im) {
			t.Fatalf("%s.Set(%+v) read back %v, want (%v, %v)", d.Name, s, got.C, re, im)
		}
	}
}

// fuzzCheckIntegerRounding: an integer x stored in a floating dtype reads back
// as y, a value of the format no further from x than the format's neighbours
// of y (or the saturated / special value of an overflow).
func fuzzCheckIntegerRounding(t *testing.T, d *DType, x, y float64) {
	t.Helper()
	if y != y || math.IsInf(y, 0) {
		return // overflow to NaN / inf, per the format's family
	}
	if x != 0 && y != 0 && math.Signbit(x) != math.Signbit(y) && d.mini != float8E8M0FNU {
		t.Fatalf("%s: integer %v stored as %v", d.Name, x, y)
	}
	if fuzzMono(d, x, y) {
		return
	}
	t.Fatalf("%s: integer %v stored as %v, not its rounding", d.Name, x, y)
}

// fuzzMono: y is a rounding of x: no value of the format lies strictly between
// them (y is one of x's two neighbours in the format), or x lies beyond the
// format's largest magnitude and y is that magnitude (the MX formats saturate).
func fuzzMono(d *DType, x, y float64) bool {
	if x == y {
		return true
	}
	vals := fuzzValues(d)
	if len(vals) == 0 {
		return true // wider than 16 bits: float32/64 rounding is Go's own
	}
	top := vals[len(vals)-1]
	if d.mini != nil && d.mini.family == familyMX && math.Abs(y) == top && math.Abs(x) >= top {
		return true
	}
	lo, hi := math.Min(x, y), math.Max(x, y)
	i := sort.SearchFloat64s(vals, lo) // first value >= lo
	for i < len(vals) && vals[i] == lo {
		i++
	}
	return i == len(vals) || vals[i] >= hi
}

var fuzzValueTables [64][]float64
var fuzzValueOnce [64]sync.Once

// fuzzValues is the sorted values of every non-NaN encoding of a float dtype of
// at most 16 bits per component (nil for wider ones).
func fuzzValues(d *DType) []float64 {
	fuzzValueOnce[d.Index].Do(func() {
		bits := d.componentBits()
		if bits > 16 {
			return
		}
		var vals []float64
		for b := uint64(0); b < 1<<bits; b++ {
			if v := d.DecodeFloat(b); v == v {
				vals = append(vals, v)
			}
		}
		sort.Float64s(vals)
		fuzzValueTables[d.Index] = vals
	})
	return fuzzValueTables[d.Index]
}

func fuzzSameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// fuzzCheckCodec: encode/decode invariants on two fuzzed float64 values.
func fuzzCheckCodec(t *testing.T, d *DType, v1, v2 uint64) {
	t.Helper()
	bits := d.componentBits()
	mask := uint64(math.MaxUint64)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	// Every non-NaN encoding is a fixed point of decode-then-encode.
	for _, b := range []uint64{v1 & mask, v2 & mask} {
		if x := d.DecodeFloat(b); x == x && d.EncodeFloat(x) != b {
			t.Fatalf("%s: EncodeFloat(DecodeFloat(%#x) = %v) = %#x", d.Name, b, x, d.EncodeFloat(x))
		}
	}
	// Rounding is monotone, and never lands past a representable value.
	x, y := math.Float64frombits(v1), math.Float64frombits(v2)
	if x != x || y != y {
		return
	}
	if x > y {
		x, y = y, x
	}
	rx, ry := d.DecodeFloat(d.EncodeFloat(x)), d.DecodeFloat(d.EncodeFloat(y))
	if rx == rx && ry == ry && rx > ry {
		t.Fatalf("%s: rounding not monotone: %v -> %v but %v -> %v", d.Name, x, rx, y, ry)
	}
	if rx == rx && !math.IsInf(rx, 0) && !math.IsInf(x, 0) && !fuzzMono(d, x, rx) {
		t.Fatalf("%s: %v rounds to %v, past a value of the format", d.Name, x, rx)
	}
}
