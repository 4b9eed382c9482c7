package dlpack

import (
	"math"
	"math/bits"
)

// Codecs for the narrow floating formats. The reference semantics are those
// of NumPy (float16) and ml_dtypes (bfloat16 and the float8/6/4 types), as
// seen through numpy's astype; dlpack/testdata/float_golden.json.gz holds
// their answers and float_formats_test.go compares against every one.
//
// Two behaviours of the reference are easy to get wrong:
//   - ml_dtypes casts float64 to bfloat16 / float8 / float6 / float4 by
//     first rounding to float32, so a float64 just off a tie of the narrow
//     format can be rounded twice. We do the same (viaFloat32).
//   - What happens to NaN, infinity and overflow differs per family; see
//     floatFamily.

// floatFamily is how a format spends its special encodings.
type floatFamily uint8

const (
	// familyIEEE: all-ones exponent holds inf (zero mantissa) and NaN;
	// overflow gives inf. float16, float8_e5m2, float8_e4m3, float8_e3m4.
	familyIEEE floatFamily = iota
	// familyFN ("finite"): no inf; only all-ones exponent and mantissa is
	// NaN, signed. Overflow and inf become NaN. float8_e4m3fn.
	familyFN
	// familyFNUZ ("finite, unsigned zero"): no inf, no -0; the would-be -0
	// pattern (sign bit alone) is the only NaN. Overflow and inf become NaN.
	familyFNUZ
	// familyE8M0: unsigned powers of two, no zero; 0xFF is NaN. Zero,
	// negatives, inf and overflow all become NaN.
	familyE8M0
	// familyMX: the OCP MX float6/float4 types, no inf and no NaN. Overflow
	// and inf saturate to ±max; NaN has nowhere to go and ml_dtypes stores
	// it as -0 (so -NaN becomes +0).
	familyMX
)

// miniFloat describes one format of at most 16 bits.
type miniFloat struct {
	bits, ebits, mbits uint
	bias               int
	family             floatFamily
	viaFloat32         bool   // reference rounds float64 -> float32 -> format
	signBit            uint64 // 0 for the unsigned float8_e8m0fnu
	maxFinite          uint64 // magnitude encoding of the largest finite value
	decodeTable        []float64
}

func newMiniFloat(ebits, mbits uint, bias int, family floatFamily, viaFloat32 bool) *miniFloat {
	f := &miniFloat{ebits: ebits, mbits: mbits, bias: bias, family: family, viaFloat32: viaFloat32}
	f.bits = 1 + ebits + mbits
	if family == familyE8M0 {
		f.bits = ebits
	} else {
		f.signBit = 1 << (f.bits - 1)
	}
	allOnes := uint64(1)<<(ebits+mbits) - 1 // every non-sign bit set
	switch family {
	case familyIEEE:
		f.maxFinite = allOnes - uint64(1)<<mbits // top exponent is reserved
	case familyFN, familyE8M0:
		f.maxFinite = allOnes - 1 // all ones is NaN
	default:
		f.maxFinite = allOnes
	}
	if f.bits <= 8 {
		f.decodeTable = make([]float64, 1<<f.bits)
		for i := range f.decodeTable {
			f.decodeTable[i] = f.decodeSlow(uint64(i))
		}
	}
	return f
}

var (
	float16Format     = newMiniFloat(5, 10, 15, familyIEEE, false)
	float8E3M4        = newMiniFloat(3, 4, 3, familyIEEE, true)
	float8E4M3        = newMiniFloat(4, 3, 7, familyIEEE, true)
	float8E4M3B11FNUZ = newMiniFloat(4, 3, 11, familyFNUZ, true)
	float8E4M3FN      = newMiniFloat(4, 3, 7, familyFN, true)
	float8E4M3FNUZ    = newMiniFloat(4, 3, 8, familyFNUZ, true)
	float8E5M2        = newMiniFloat(5, 2, 15, familyIEEE, true)
	float8E5M2FNUZ    = newMiniFloat(5, 2, 16, familyFNUZ, true)
	float8E8M0FNU     = newMiniFloat(8, 0, 127, familyE8M0, true)
	float6E2M3FN      = newMiniFloat(2, 3, 1, familyMX, true)
	float6E3M2FN      = newMiniFloat(3, 2, 3, familyMX, true)
	float4E2M1FN      = newMiniFloat(2, 1, 1, familyMX, true)
)

// decode maps an encoding to its value; bits above the format's width are
// ignored.
func (f *miniFloat) decode(b uint64) float64 {
	if f.decodeTable != nil {
		return f.decodeTable[b&(uint64(1)<<f.bits-1)]
	}
	return f.decodeSlow(b)
}

func (f *miniFloat) decodeSlow(b uint64) float64 {
	b &= uint64(1)<<f.bits - 1
	neg := f.signBit != 0 && b&f.signBit != 0
	mag := b &^ f.signBit
	exp := int(mag >> f.mbits)
	frac := mag & (uint64(1)<<f.mbits - 1)
	topExp := 1<<f.ebits - 1
	switch f.family {
	case familyIEEE:
		if exp == topExp {
			if frac != 0 {
				return ieeeNaN(neg, frac, f.mbits)
			}
			return math.Inf(sign(neg))
		}
	case familyFN:
		if mag == uint64(1)<<(f.ebits+f.mbits)-1 {
			return ieeeNaN(neg, frac, f.mbits)
		}
	case familyFNUZ:
		if neg && mag == 0 {
			return math.NaN()
		}
	case familyE8M0:
		if b == 0xFF {
			return math.NaN()
		}
		return math.Ldexp(1, exp-f.bias) // 0x00 is 2^-127, not zero
	}
	var v float64
	if exp == 0 {
		v = math.Ldexp(float64(frac), 1-f.bias-int(f.mbits))
	} else {
		v = math.Ldexp(float64(frac|uint64(1)<<f.mbits), exp-f.bias-int(f.mbits))
	}
	if neg {
		v = -v
	}
	return v
}

// ieeeNaN widens a narrow NaN to float64 keeping sign and payload, as a
// hardware or NumPy widening does; tests only ever ask "is it NaN", but
// keeping the payload makes Get followed by Set of float16 an identity.
func ieeeNaN(neg bool, frac uint64, mbits uint) float64 {
	b := uint64(0x7FF)<<52 | frac<<(52-mbits)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b)
}

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// encode rounds v to the format, to nearest with ties to even (ties away
// for float8_e8m0fnu, which has no mantissa bit to be even: see roundMag).
func (f *miniFloat) encode(v float64) uint64 {
	if f.viaFloat32 {
		v = float64(float32(v))
	}
	neg := math.Signbit(v)
	switch {
	case v != v:
		return f.nanBits(neg, v)
	case math.IsInf(v, 0):
		return f.overflowBits(neg)
	case v == 0:
		switch f.family {
		case familyE8M0:
			return 0xFF
		case familyFNUZ:
			return 0
		}
		return f.withSign(neg, 0)
	case neg && f.family == familyE8M0:
		return 0xFF
	}
	mag := f.roundMag(math.Abs(v))
	if mag > f.maxFinite {
		return f.overflowBits(neg)
	}
	if mag == 0 && f.family == familyFNUZ {
		return 0 // a negative value that underflows is +0: there is no -0
	}
	return f.withSign(neg, mag)
}

func (f *miniFloat) withSign(neg bool, mag uint64) uint64 {
	if neg {
		return mag | f.signBit
	}
	return mag
}

// nanBits is the encoding a NaN input gets.
func (f *miniFloat) nanBits(neg bool, v float64) uint64 {
	switch f.family {
	case familyIEEE:
		topExp := uint64(1)<<f.ebits - 1
		var payload uint64
		if f == float16Format {
			// NumPy keeps the top payload bits and only makes sure the
			// result is still a NaN; ml_dtypes' own formats emit the
			// canonical quiet NaN.
			payload = (math.Float64bits(v) & (1<<52 - 1)) >> (52 - f.mbits)
			if payload == 0 {
				payload = 1
			}
		} else {
			payload = 1 << (f.mbits - 1)
		}
		return f.withSign(neg, topExp<<f.mbits|payload)
	case familyFN:
		return f.withSign(neg, f.maxFinite+1)
	case familyFNUZ:
		return f.signBit
	case familyE8M0:
		return 0xFF
	default: // familyMX: the reference's NaN is -0, and negating it gives +0
		return f.withSign(!neg, 0)
	}
}

// overflowBits is the encoding of ±inf and of finite values too large for
// the format.
func (f *miniFloat) overflowBits(neg bool) uint64 {
	switch f.family {
	case familyIEEE:
		return f.withSign(neg, (uint64(1)<<f.ebits-1)<<f.mbits)
	case familyFN:
		return f.withSign(neg, f.maxFinite+1)
	case familyFNUZ:
		return f.signBit
	case familyE8M0:
		return 0xFF
	default: // familyMX saturates
		return f.withSign(neg, f.maxFinite)
	}
}

// roundMag rounds a finite a > 0 to the format's grid and returns the
// magnitude encoding, which exceeds maxFinite when a overflows. The
// significand (implicit bit included) is what gets rounded, so a carry out of
// the mantissa simply bumps the exponent field. For float8_e8m0fnu the kept
// lowest bit is the implicit one, which is always 1, so ties round up;
// below its smallest exponent, the rounding is that of a subnormal grid
// {0, 2^-126} whose 0 encodes 2^-127, which is what ml_dtypes does.
func (f *miniFloat) roundMag(a float64) uint64 {
	b := math.Float64bits(a)
	e := int(b>>52) - 1023
	sig := b&(1<<52-1) | 1<<52
	if b>>52 == 0 { // float64 subnormal: normalise so bit 52 leads
		sh := bits.LeadingZeros64(b) - 11
		sig = b << sh
		e = -1022 - sh
	}
	biased := e + f.bias
	shift := 52 - int(f.mbits)
	if biased < 1 {
		shift += 1 - biased
	}
	q := roundShiftEven(sig, shift)
	if biased < 1 {
		return q
	}
	// q holds the implicit bit at position mbits, adding 1 to the exponent.
	return uint64(biased-1)<<f.mbits + q
}

// roundShiftEven returns x / 2^s rounded to nearest, ties to even.
func roundShiftEven(x uint64, s int) uint64 {
	if s <= 0 {
		return x << -s
	}
	if s >= 64 {
		return 0 // x < 2^53 is far below half of 2^s
	}
	q := x >> s
	rem := x & (uint64(1)<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	return q
}

// bfloat16 rounds from float32 as Eigen does (ml_dtypes' bfloat16 is
// Eigen's): NaN becomes the quiet NaN of the same sign.
func encodeBfloat16(v float32) uint64 {
	b := math.Float32bits(v)
	if v != v {
		return uint64(b>>16&0x8000 | 0x7FC0)
	}
	b += 0x7FFF + (b>>16)&1
	return uint64(b >> 16)
}

func decodeBfloat16(b uint64) float64 {
	return float64(math.Float32frombits(uint32(b) << 16))
}

// EncodeFloat converts v to d's encoding, as NumPy's astype from float64
// would: round to nearest even, with d's rules for NaN, inf and overflow.
// For complex64 / complex128 it encodes one component (a float32 / float64).
// It panics for a non-floating dtype, which is a programming error.
func (d *DType) EncodeFloat(v float64) uint64 {
	if d.mini != nil {
		return d.mini.encode(v)
	}
	switch d.DL.Code {
	case CodeFloat, CodeComplex:
		if d.componentBits() == 32 {
			return uint64(math.Float32bits(float32(v)))
		}
		return math.Float64bits(v)
	case CodeBfloat:
		return encodeBfloat16(float32(v))
	}
	panic("dlpack: EncodeFloat on non-floating dtype " + d.Name)
}

// DecodeFloat returns the value of one encoding of d; bits above d's width
// are ignored. NaN encodings decode to a NaN.
func (d *DType) DecodeFloat(b uint64) float64 {
	if d.mini != nil {
		return d.mini.decode(b)
	}
	switch d.DL.Code {
	case CodeFloat, CodeComplex:
		if d.componentBits() == 32 {
			return float64(math.Float32frombits(uint32(b)))
		}
		return math.Float64frombits(b)
	case CodeBfloat:
		return decodeBfloat16(b)
	}
	panic("dlpack: DecodeFloat on non-floating dtype " + d.Name)
}

// componentBits is the width of one real number of a float or complex dtype.
func (d *DType) componentBits() int {
	if d.Kind == KindComplex {
		return int(d.DL.Bits) / 2
	}
	return int(d.DL.Bits)
}

// encodeFromFloat32 converts a value that is already a float32, skipping
// the float64 detour; used for integers, which NumPy and ml_dtypes convert
// to float32 in one rounding.
func (d *DType) encodeFromFloat32(v float32) uint64 {
	switch {
	case d.DL.Code == CodeBfloat:
		return encodeBfloat16(v)
	case d.mini != nil:
		return d.mini.encode(float64(v))
	}
	return uint64(math.Float32bits(v))
}

// roundsViaFloat32 reports whether the reference converts to d through
// float32 (float32 itself, complex64, bfloat16 and ml_dtypes' narrow types).
func (d *DType) roundsViaFloat32() bool {
	if d.mini != nil {
		return d.mini.viaFloat32
	}
	return d.DL.Code == CodeBfloat || d.componentBits() == 32
}
