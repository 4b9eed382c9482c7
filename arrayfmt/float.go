package arrayfmt

import (
	"math"
	"strconv"
	"strings"
)

// floatFormat is numpy's FloatingFormat for precision=8, floatmode='maxprec',
// suppress_small=False, legacy=False and sign '-' (real parts, plain floats)
// or '+' (imaginary parts of complex numbers).
type floatFormat struct {
	bits      int  // 16, 32 or 64: the type whose shortest repr is used
	plus      bool // sign '+'
	expFormat bool
	padLeft   int
	padRight  int
	precision int
	minDigits int
	expSize   int
	trimK     bool // trim 'k' (keep zeros) instead of '.'
}

// expCutoff is 10.**min(8, np.finfo(dtype).precision): NumPy 2.3+ switches a
// float16 array to scientific notation from 1e3, float32 from 1e6 and float64
// from 1e8.
func expCutoff(bits int) float64 {
	switch bits {
	case 16:
		return 1e3
	case 32:
		return 1e6
	}
	return 1e8
}

// castTo rounds x to the float type of the given width, as NumPy does to a
// Python float compared with, or the result of arithmetic on, that type.
func castTo(bits int, x float64) float64 {
	switch bits {
	case 16:
		return roundFloat16(x)
	case 32:
		return float64(float32(x))
	}
	return x
}

// newFloatFormat is FloatingFormat.__init__ / fillFormat.
func newFloatFormat(data []float64, bits int, sign byte) *floatFormat {
	f := &floatFormat{bits: bits, plus: sign == '+', precision: precision}
	var finite []float64
	for _, x := range data {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			finite = append(finite, x)
		}
	}
	// choose exponential mode based on the non-zero finite values; the
	// comparisons and the division happen in the array's own float type.
	maxV, minV, any := 0.0, math.Inf(1), false
	for _, x := range finite {
		if x != 0 {
			a := math.Abs(x)
			maxV = max(maxV, a)
			minV = min(minV, a)
			any = true
		}
	}
	if any {
		var ratio float64
		switch bits {
		case 16: // npy_half division goes through float
			ratio = roundFloat16(float64(float32(maxV) / float32(minV)))
		case 32:
			ratio = float64(float32(maxV) / float32(minV))
		default:
			ratio = maxV / minV
		}
		if maxV >= expCutoff(bits) || minV < castTo(bits, 1e-4) || ratio > 1000 {
			f.expFormat = true
		}
	}

	switch {
	case len(finite) == 0:
		f.padLeft, f.padRight, f.expSize = 0, 0, -1
	case f.expFormat:
		prec, padL, expSize := 0, 0, 0
		for _, x := range finite {
			mant, exp := f.sci(x, precision, 0, false)
			intPart, frac, _ := strings.Cut(mant, ".")
			prec = max(prec, len(frac))
			padL = max(padL, len(intPart))
			expSize = max(expSize, len(expDigits(exp, 0))-1) // digits, without the sign
		}
		f.expSize = expSize
		f.trimK = true
		f.precision = prec
		f.minDigits = prec
		f.padLeft = padL
		f.padRight = expSize + 2 + prec
	default:
		padL, padR := 0, 0
		for _, x := range finite {
			intPart, frac, _ := strings.Cut(f.positional(x, precision, 0), ".")
			padL = max(padL, len(intPart))
			padR = max(padR, len(frac))
		}
		f.padLeft, f.padRight, f.expSize = padL, padR, -1
		f.minDigits = 0
	}

	// if there are non-finite values, may need to increase pad_left
	if len(finite) != len(data) {
		negInf := f.plus
		for _, x := range data {
			if math.IsInf(x, -1) {
				negInf = true
			}
		}
		n := 0
		if negInf {
			n = 1
		}
		offset := f.padRight + 1
		f.padLeft = max(f.padLeft, len("nan")-offset, len("inf")+n-offset)
	}
	return f
}

// format is FloatingFormat.__call__.
func (f *floatFormat) format(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		var ret string
		switch {
		case math.IsNaN(x):
			ret = "nan"
			if f.plus {
				ret = "+nan"
			}
		case x < 0:
			ret = "-inf"
		case f.plus:
			ret = "+inf"
		default:
			ret = "inf"
		}
		return padLeft(ret, f.padLeft+f.padRight+1)
	}
	if f.expFormat {
		mant, exp := f.sci(x, f.precision, f.minDigits, f.trimK)
		intPart, _, _ := strings.Cut(mant, ".")
		return strings.Repeat(" ", max(0, f.padLeft-len(intPart))) + mant + "e" + expDigits(exp, f.expSize)
	}
	s := f.positional(x, f.precision, f.minDigits)
	intPart, frac, _ := strings.Cut(s, ".")
	return strings.Repeat(" ", max(0, f.padLeft-len(intPart))) + s + strings.Repeat(" ", max(0, f.padRight-len(frac)))
}

func (f *floatFormat) signStr(x float64) string {
	if math.Signbit(x) {
		return "-"
	}
	if f.plus {
		return "+"
	}
	return ""
}

// expDigits writes a decimal exponent with its sign and at least
// max(2, minDigits) digits, as Dragon4 does.
func expDigits(exp, minDigits int) string {
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	d := strconv.Itoa(exp)
	if n := max(2, minDigits); len(d) < n {
		d = strings.Repeat("0", n-len(d)) + d
	}
	return sign + d
}

// positional is dragon4_positional(x, precision=prec, min_digits=minDigits,
// unique=True, fractional=True, trim='.') without padding.
//
// Dragon4 in unique mode prints the shortest digits that round-trip through
// the value's type unless that needs more than prec fractional digits, in
// which case it prints the exact value correctly rounded (ties to even) to
// prec digits; with min_digits it continues the exact digits up to that
// count. strconv's shortest and fixed-precision conversions give the same
// digits.
func (f *floatFormat) positional(x float64, prec, minDigits int) string {
	a := math.Abs(x)
	digs, dp := shortest(a, f.bits)
	fracDigits := max(0, len(digs)-dp)
	var s string
	switch {
	case fracDigits > prec:
		s = strconv.FormatFloat(a, 'f', prec, 64)
	case fracDigits < minDigits:
		s = strconv.FormatFloat(a, 'f', minDigits, 64)
	default:
		var ip, fp string
		if dp <= 0 {
			ip = "0"
			fp = strings.Repeat("0", -dp) + digs
		} else if dp >= len(digs) {
			ip = digs + strings.Repeat("0", dp-len(digs))
		} else {
			ip, fp = digs[:dp], digs[dp:]
		}
		s = ip + "." + fp
	}
	ip, fp, _ := strings.Cut(s, ".")
	fp = strings.TrimRight(fp, "0") // trim='.'
	if len(fp) < minDigits {
		fp += strings.Repeat("0", minDigits-len(fp))
	}
	return f.signStr(x) + ip + "." + fp
}

// sci is dragon4_scientific(x, precision=prec, min_digits=minDigits,
// unique=True, trim='k' or '.') and returns the signed mantissa ("1.5",
// "-2.") and the decimal exponent separately.
func (f *floatFormat) sci(x float64, prec, minDigits int, trimK bool) (string, int) {
	a := math.Abs(x)
	digs, dp := shortest(a, f.bits)
	fracDigits := len(digs) - 1
	var mant string
	var exp int
	switch {
	case fracDigits > prec:
		mant, exp = splitE(strconv.FormatFloat(a, 'e', prec, 64))
	case fracDigits < minDigits:
		mant, exp = splitE(strconv.FormatFloat(a, 'e', minDigits, 64))
	default:
		mant, exp = digs[:1]+"."+digs[1:], dp-1
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if !trimK {
		fp = strings.TrimRight(fp, "0")
	}
	return f.signStr(x) + ip + "." + fp, exp
}

func splitE(s string) (string, int) {
	m, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	return m, exp
}

// shortest returns the shortest decimal digits of a >= 0 that round-trip
// through the float type of the given width, and the position of the decimal
// point: a = 0.digits * 10**dp. Zero is ("0", 1).
func shortest(a float64, bits int) (string, int) {
	if a == 0 {
		return "0", 1
	}
	var s string
	if bits == 16 {
		s = shortest16(a)
	} else {
		s = strconv.FormatFloat(a, 'e', -1, bits)
	}
	m, exp := splitE(s)
	digs := strings.Replace(m, ".", "", 1)
	digs = strings.TrimRight(digs, "0")
	if digs == "" {
		digs = "0"
	}
	return digs, exp + 1
}

// shortest16 is the shortest 'e'-format decimal that rounds back to the
// float16 value a (> 0, finite), the nearest one where several qualify.
func shortest16(a float64) string {
	for p := 1; p < 17; p++ {
		near := strconv.FormatFloat(a, 'e', p-1, 64)
		v, _ := strconv.ParseFloat(near, 64)
		if roundFloat16(v) == a {
			return near
		}
		// The nearest p-digit decimal misses; the one on a's other side may
		// still hit when the rounding interval is lopsided (a power of two).
		m, exp := splitE(near)
		d, _ := strconv.ParseInt(strings.Replace(m, ".", "", 1), 10, 64)
		if v > a {
			d--
		} else {
			d++
		}
		other := strconv.FormatInt(d, 10) + "e" + strconv.Itoa(exp-(p-1))
		w, _ := strconv.ParseFloat(other, 64)
		if w > 0 && roundFloat16(w) == a {
			return strconv.FormatFloat(w, 'e', -1, 64)
		}
	}
	return strconv.FormatFloat(a, 'e', -1, 64)
}

// roundFloat16 rounds x to the nearest IEEE binary16 value, ties to even,
// overflowing to ±Inf.
func roundFloat16(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	a := math.Abs(x)
	_, e := math.Frexp(a) // a = m * 2**e, m in [0.5, 1)
	k := max(e-1, -14)    // binade exponent, subnormals share -14's ulp
	ulp := math.Ldexp(1, k-10)
	r := math.RoundToEven(a/ulp) * ulp
	if r >= 65536 {
		r = math.Inf(1)
	}
	return math.Copysign(r, x)
}

// mlDtypesRepr is the repr of an ml_dtypes scalar: C++ ostream << float,
// i.e. printf("%g") with 6 significant digits, and NaN printed unsigned.
func mlDtypesRepr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}
