package vec

import "math"

// The element-wise operations over slices: dst[i] = f(a[i], ...). Every
// operand is as long as dst (else an error, and dst is untouched); dst may be
// one of the sources itself (in place), never a partial overlap of one. The
// float32 and float64 ones run the SIMD kernels (kernels_simd_gen.go) over the
// whole vectors and the loops here over the rest, so the loops here define
// every result: the kernels compute the same IEEE operation lane by lane. Add,
// Sub, Mul, Minimum, Maximum, AddScalar, Scale and Clip have integer kernels
// too (kernels_dispatch_gen.go: every integer type where x86 has the instruction),
// wrapping around as the loops do.

// kernelK runs the SIMD kernel of an op of the form dst, a, k on the
// float32/float64 operands; it returns how many elements it did (0 for other
// types or without SIMD).
func kernelK[T Number](dst, a []T, k T, f32 func(d, a []float32, k float32) int,
	f64 func(d, a []float64, k float64) int) int {
	switch d := any(dst).(type) {
	case []float32:
		return f32(d, any(a).([]float32), any(k).(float32))
	case []float64:
		return f64(d, any(a).([]float64), any(k).(float64))
	}
	return 0
}

// kernelKC is kernelK for ops of the form dst, a, k, c.
func kernelKC[T Number](dst, a []T, k, c T, f32 func(d, a []float32, k, c float32) int,
	f64 func(d, a []float64, k, c float64) int) int {
	switch d := any(dst).(type) {
	case []float32:
		return f32(d, any(a).([]float32), any(k).(float32), any(c).(float32))
	case []float64:
		return f64(d, any(a).([]float64), any(k).(float64), any(c).(float64))
	}
	return 0
}

// kernelB is kernelK for ops of the form dst, a, b.
func kernelB[T Number](dst, a, b []T, f32 func(d, a, b []float32) int, f64 func(d, a, b []float64) int) int {
	switch d := any(dst).(type) {
	case []float32:
		return f32(d, any(a).([]float32), any(b).([]float32))
	case []float64:
		return f64(d, any(a).([]float64), any(b).([]float64))
	}
	return 0
}

// Fill sets every element of dst to v.
func Fill[T Castable](dst []T, v T) {
	for i := range dst {
		dst[i] = v
	}
}

// Copy copies src into dst (as long as it).
func Copy[T Castable](dst, src []T) error {
	if err := sameLen(len(dst), len(src)); err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

// Scale sets dst = a * k.
func Scale[T Number](dst, a []T, k T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	for i := scaleKernel(dst, a, k); i < len(dst); i++ {
		dst[i] = a[i] * k
	}
	return nil
}

// AddScalar sets dst = a + k (a - k is AddScalar(dst, a, -k): the same IEEE
// operation).
func AddScalar[T Number](dst, a []T, k T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	for i := addScalarKernel(dst, a, k); i < len(dst); i++ {
		dst[i] = a[i] + k
	}
	return nil
}

// DivScalar sets dst = a / k (not a * (1/k), which rounds twice). Integer
// division by zero is an error.
func DivScalar[T Number](dst, a []T, k T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	if err := intDivisor(k); err != nil {
		return err
	}
	a = a[:len(dst)]
	for i := kernelK(dst, a, k, divScalarF32, divScalarF64); i < len(dst); i++ {
		dst[i] = a[i] / k
	}
	return nil
}

// ScaleShift sets dst = a*k + c, fused: one rounding (FMA).
func ScaleShift[T Float](dst, a []T, k, c T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	for i := kernelKC(dst, a, k, c, scaleShiftF32, scaleShiftF64); i < len(dst); i++ {
		dst[i] = fma(a[i], k, c)
	}
	return nil
}

// MulAdd sets dst = a*b + c, fused: one rounding (FMA).
func MulAdd[T Float](dst, a, b, c []T) error {
	if err := sameLen(len(dst), len(a), len(b), len(c)); err != nil {
		return err
	}
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	i := 0
	switch d := any(dst).(type) {
	case []float32:
		i = mulAddF32(d, any(a).([]float32), any(b).([]float32), any(c).([]float32))
	case []float64:
		i = mulAddF64(d, any(a).([]float64), any(b).([]float64), any(c).([]float64))
	}
	for ; i < len(dst); i++ {
		dst[i] = fma(a[i], b[i], c[i])
	}
	return nil
}

// Clip sets dst = a clipped to [lo, hi]: lo where a < lo, hi where a > hi,
// else a itself, as np.clip and torch.clamp give it (a zero of either sign
// stays as it is at a zero bound: -0 < 0 is false), hi everywhere where lo >
// hi, as NumPy's clip; a NaN a stays NaN. A NaN bound is an error.
func Clip[T Number](dst, a []T, lo, hi T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	if lo != lo || hi != hi {
		return errNaNBound
	}
	a = a[:len(dst)]
	for i := clipKernel(dst, a, lo, hi); i < len(dst); i++ {
		dst[i] = clip(a[i], lo, hi)
	}
	return nil
}

// clip is Clip's rule for one element, the SIMD kernel's compares and blends
// element by element: x < lo ? lo : x, then r > hi ? hi : r (a NaN x fails
// both compares and stays).
func clip[T Number](x, lo, hi T) T {
	r := x
	if x < lo {
		r = lo
	}
	if r > hi {
		r = hi
	}
	return r
}

// Abs sets dst = |a|: for floats the sign bit cleared (-0 gives +0, a NaN stays
// NaN); the most negative integer stays itself, as in NumPy.
func Abs[T Number](dst, a []T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	switch d := any(dst).(type) {
	case []float32:
		s := any(a).([]float32)
		for i := absF32(d, s); i < len(d); i++ {
			d[i] = math.Float32frombits(math.Float32bits(s[i]) &^ (1 << 31))
		}
	case []float64:
		s := any(a).([]float64)
		for i := absF64(d, s); i < len(d); i++ {
			d[i] = math.Float64frombits(math.Float64bits(s[i]) &^ (1 << 63))
		}
	default:
		for i, v := range a {
			if v < 0 {
				v = -v
			}
			dst[i] = v
		}
	}
	return nil
}

// Sqrt sets dst = sqrt(a), correctly rounded (NaN for a < 0, -0 for -0).
func Sqrt[T Float](dst, a []T) error {
	if err := sameLen(len(dst), len(a)); err != nil {
		return err
	}
	a = a[:len(dst)]
	switch d := any(dst).(type) {
	case []float32:
		s := any(a).([]float32)
		for i := sqrtF32(d, s); i < len(d); i++ {
			d[i] = float32(sqrt(float64(s[i]))) // exact: float64 has 2*24+2 bits
		}
	case []float64:
		s := any(a).([]float64)
		for i := sqrtF64(d, s); i < len(d); i++ {
			d[i] = sqrt(s[i])
		}
	}
	return nil
}

// Add sets dst = a + b.
func Add[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := addKernel(dst, a, b); i < len(dst); i++ {
		dst[i] = a[i] + b[i]
	}
	return nil
}

// Sub sets dst = a - b.
func Sub[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := subKernel(dst, a, b); i < len(dst); i++ {
		dst[i] = a[i] - b[i]
	}
	return nil
}

// Mul sets dst = a * b.
func Mul[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := mulKernel(dst, a, b); i < len(dst); i++ {
		dst[i] = a[i] * b[i]
	}
	return nil
}

// Div sets dst = a / b. An integer division by zero is an error (dst is then
// partly written).
func Div[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := kernelB(dst, a, b, divF32, divF64); i < len(dst); i++ {
		if err := intDivisor(b[i]); err != nil {
			return err
		}
		dst[i] = a[i] / b[i]
	}
	return nil
}

// Minimum sets dst = min(a, b): NaN where either is NaN, else a < b ? a : b
// (so b of two equal zeros, as x86's MINPS).
func Minimum[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := minimumKernel(dst, a, b); i < len(dst); i++ {
		dst[i] = minimum(a[i], b[i])
	}
	return nil
}

// Maximum sets dst = max(a, b): NaN where either is NaN, else a > b ? a : b.
func Maximum[T Number](dst, a, b []T) error {
	if err := sameLen(len(dst), len(a), len(b)); err != nil {
		return err
	}
	a, b = a[:len(dst)], b[:len(dst)]
	for i := maximumKernel(dst, a, b); i < len(dst); i++ {
		dst[i] = maximum(a[i], b[i])
	}
	return nil
}

// minimum is Minimum's rule for one pair (and the reductions' one step).
func minimum[T Number](a, b T) T {
	if a < b || a != a {
		return a
	}
	return b
}

// maximum is Maximum's rule for one pair.
func maximum[T Number](a, b T) T {
	if a > b || a != a {
		return a
	}
	return b
}

// sqrt is math.Sqrt for vec's generic functions. Go (1.26 and 1.27 alike)
// compiles a generic function's instantiation in the package that uses it, and
// there math.Sqrt stayed a call, not the one square-root instruction, while vec
// called it only from generic bodies; this non-generic caller makes it the
// instruction everywhere (TestSqrtIsOneInstruction). Before it, a row's Norm2
// made two calls for that instruction, and Sqrt's tails one an element.
func sqrt(x float64) float64 { return math.Sqrt(x) }
