package vec

import "math"

// Exp and Log: one algorithm, written here once per element type in plain Go
// and in tools/gen_vec_kernels.py as its vector twin (expF32... in
// kernels_simd_gen.go), operation for operation: every step is an IEEE operation
// rounded to nearest even, a fused multiply-add, a rounding to an integer or
// exact bit surgery, so the kernels and these functions give the same bits.
// Neither calls the math package's Exp or Log. The constants below are the
// ones both use (the kernels broadcast them).
//
// exp(x): clamp x to [expLo, expHi] (NaN stays NaN); k = x*log2(e) rounded
// to an integer, ties to even (by adding and subtracting 1.5*2**23 or
// 1.5*2**52); r = x - k*ln2 in two fused steps (|r| <= ln2/2 and a little);
// e**r by its Taylor polynomial (degree 7 and 13: the first term left out is
// below 2**-27 and 2**-57 of the result); times 2**k as two powers of two
// 2**k1 * 2**k2 (k1 = k/2 rounded), each built in its exponent bits: the first
// product is exact, the second rounds once, so a subnormal result is p*2**k
// rounded once (gradual underflow, as NumPy), and past the clamp bounds it
// overflows to +Inf or underflows to 0 as the true value does.
//
// log(x): x = m * 2**e with m in [sqrt(1/2), sqrt(2)) from the bits (a
// subnormal x scaled by 2**logSub first), f = m-1 (exact), s = f/(2+f),
// log(1+f) = f - f*f/2 + s*(f*f/2 + R(s*s)) with R the atanh series (FreeBSD's
// form: f is exact and the rest is small, so the division's rounding stays in
// the low bits), plus e*ln2 in two parts. log(±0) = -Inf, log(x<0) = NaN,
// log(+Inf) = +Inf, log(NaN) = NaN, log(1) = +0.

// The float32 constants.
var (
	expLoF32    float32 = -104 // exp(-104) < 2**-150: rounds to 0
	expHiF32    float32 = 89   // exp(89) > MaxFloat32: +Inf
	log2eF32    float32 = math.Log2E
	negLn2HiF32 float32 = -math.Ln2
	negLn2LoF32         = float32(-(math.Ln2 - float64(float32(math.Ln2))))
	ln2HiF32            = -negLn2HiF32
	ln2LoF32            = -negLn2LoF32
	// 2**n is the bits of n + expMagicF32 (an integer in the mantissa's low
	// bits, exponent bias included) shifted by the mantissa's width.
	expMagicF32 float32 = 0x1.8p23 + 127
	// v + roundF32 - roundF32 is v rounded to an integer, ties to even, for
	// |v| < 2**22 (the sum's ulp is 1): k's range, clamped
	roundF32 float32 = 0x1.8p23
	// expPolyF32[i] = 1/i!
	expPolyF32 = [...]float32{1, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040}
	// logPolyF32[i] = 2/(2i+3): R(z) = z*(2/3 + z*(2/5 + ...))
	logPolyF32              = [...]float32{2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11}
	logMinNormalF32 float32 = 0x1p-126
	logSubF32       float32 = 0x1p25 // scales a subnormal to a normal
	logSubExpF32    float32 = 25 + 127
	logBiasF32      float32 = 127
	sqrt2F32        float32 = math.Sqrt2
	// float32(2**23 + n) for an integer n < 2**23 in the low bits
	twoTo23F32 float32 = 0x1p23
)

// The float64 constants, as the float32 ones.
var (
	expLoF64    float64 = -746
	expHiF64    float64 = 710
	log2eF64    float64 = math.Log2E
	negLn2HiF64 float64 = -math.Ln2
	negLn2LoF64         = -2.319046813846299558e-17 // ln2 - float64(ln2)
	ln2HiF64            = -negLn2HiF64
	ln2LoF64            = -negLn2LoF64
	expMagicF64 float64 = 0x1.8p52 + 1023
	roundF64    float64 = 0x1.8p52
	expPolyF64          = [...]float64{1, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
		1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800}
	logPolyF64 = [...]float64{2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11, 2.0 / 13, 2.0 / 15,
		2.0 / 17, 2.0 / 19, 2.0 / 21}
	logMinNormalF64 float64 = 0x1p-1022
	logSubF64       float64 = 0x1p54
	logSubExpF64    float64 = 54 + 1023
	logBiasF64      float64 = 1023
	sqrt2F64        float64 = math.Sqrt2
	twoTo52F64      float64 = 0x1p52
)

// expOneF32 is exp(x), the vector kernel's algorithm on one element.
func expOneF32(x float32) float32 {
	if x < expLoF32 {
		x = expLoF32
	}
	if x > expHiF32 {
		x = expHiF32
	}
	k := float32(float32(float32(x*log2eF32)+roundF32) - roundF32)
	r := fma32(k, negLn2HiF32, x)
	r = fma32(k, negLn2LoF32, r)
	p := expPolyF32[len(expPolyF32)-1]
	for i := len(expPolyF32) - 2; i >= 0; i-- {
		p = fma32(p, r, expPolyF32[i])
	}
	k1 := float32(float32(float32(k*0.5)+roundF32) - roundF32)
	k2 := float32(k - k1)
	s1 := math.Float32frombits(math.Float32bits(float32(k1+expMagicF32)) << 23)
	s2 := math.Float32frombits(math.Float32bits(float32(k2+expMagicF32)) << 23)
	return float32(float32(p*s1) * s2)
}

// expOneF64 is expOneF32 in float64.
func expOneF64(x float64) float64 {
	if x < expLoF64 {
		x = expLoF64
	}
	if x > expHiF64 {
		x = expHiF64
	}
	k := float64(float64(float64(x*log2eF64)+roundF64) - roundF64)
	r := math.FMA(k, negLn2HiF64, x)
	r = math.FMA(k, negLn2LoF64, r)
	p := expPolyF64[len(expPolyF64)-1]
	for i := len(expPolyF64) - 2; i >= 0; i-- {
		p = math.FMA(p, r, expPolyF64[i])
	}
	k1 := float64(float64(float64(k*0.5)+roundF64) - roundF64)
	k2 := float64(k - k1)
	s1 := math.Float64frombits(math.Float64bits(float64(k1+expMagicF64)) << 52)
	s2 := math.Float64frombits(math.Float64bits(float64(k2+expMagicF64)) << 52)
	return float64(float64(p*s1) * s2)
}

// logOneF32 is log(x), the vector kernel's algorithm on one element.
func logOneF32(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return float32(math.NaN())
	case !(x < float32(math.Inf(1))): // +Inf, NaN
		return x
	}
	xs, bias := x, logBiasF32
	if x < logMinNormalF32 {
		xs, bias = float32(x*logSubF32), logSubExpF32
	}
	b := math.Float32bits(xs)
	e := float32(math.Float32frombits(b>>23|math.Float32bits(twoTo23F32)) - twoTo23F32)
	e = float32(e - bias)
	m := math.Float32frombits(b&(1<<23-1) | math.Float32bits(1))
	if m > sqrt2F32 {
		m, e = float32(m*0.5), float32(e+1)
	}
	f := float32(m - 1)
	s := float32(f / float32(2+f))
	z := float32(s * s)
	q := logPolyF32[len(logPolyF32)-1]
	for i := len(logPolyF32) - 2; i >= 0; i-- {
		q = fma32(q, z, logPolyF32[i])
	}
	rz := float32(q * z)
	hfsq := float32(float32(f*0.5) * f)
	lo := fma32(e, ln2LoF32, float32(s*float32(hfsq+rz)))
	return fma32(e, ln2HiF32, float32(f-float32(hfsq-lo)))
}

// logOneF64 is logOneF32 in float64.
func logOneF64(x float64) float64 {
	switch {
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.NaN()
	case !(x < math.Inf(1)):
		return x
	}
	xs, bias := x, logBiasF64
	if x < logMinNormalF64 {
		xs, bias = float64(x*logSubF64), logSubExpF64
	}
	b := math.Float64bits(xs)
	e := float64(math.Float64frombits(b>>52|math.Float64bits(twoTo52F64)) - twoTo52F64)
	e = float64(e - bias)
	m := math.Float64frombits(b&(1<<52-1) | math.Float64bits(1))
	if m > sqrt2F64 {
		m, e = float64(m*0.5), float64(e+1)
	}
	f := float64(m - 1)
	s := float64(f / float64(2+f))
	z := float64(s * s)
	q := logPolyF64[len(logPolyF64)-1]
	for i := len(logPolyF64) - 2; i >= 0; i-- {
		q = math.FMA(q, z, logPolyF64[i])
	}
	rz := float64(q * z)
	hfsq := float64(float64(f*0.5) * f)
	lo := math.FMA(e, ln2LoF64, float64(s*float64(hfsq+rz)))
	return math.FMA(e, ln2HiF64, float64(f-float64(hfsq-lo)))
}

// Exp sets dst = e**a: within 1 ulp of the exact value (explog_test.go
// measures it), the same bits on every kernel set; exp(-Inf) = 0,
// exp(+Inf) = +Inf, NaN gives NaN, overflow gives +Inf, and results below the
// smallest normal are subnormal (gradual underflow, rounded once) down to 0.
func Exp[T Float](dst, a []T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	switch d := any(dst).(type) {
	case []float32:
		s := any(a).([]float32)
		for i := expF32(d, s); i < len(d); i++ {
			d[i] = expOneF32(s[i])
		}
	case []float64:
		s := any(a).([]float64)
		for i := expF64(d, s); i < len(d); i++ {
			d[i] = expOneF64(s[i])
		}
	}
	return nil
}

// Log sets dst = ln(a): within 1 ulp of the exact value, the same bits on
// every kernel set; log(±0) = -Inf, log(a<0) = NaN (-Inf too),
// log(+Inf) = +Inf, NaN gives NaN, log(1) = +0, subnormal a exact in its
// exponent.
func Log[T Float](dst, a []T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	switch d := any(dst).(type) {
	case []float32:
		s := any(a).([]float32)
		for i := logF32(d, s); i < len(d); i++ {
			d[i] = logOneF32(s[i])
		}
	case []float64:
		s := any(a).([]float64)
		for i := logF64(d, s); i < len(d); i++ {
			d[i] = logOneF64(s[i])
		}
	}
	return nil
}
