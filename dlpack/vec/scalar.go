package vec

import (
	"errors"
	"math"
)

// The one-element rules the loops share.

var (
	errNaNBound  = errors.New("vec: a clip bound is NaN: pass numbers (±Inf leaves that side open)")
	errDivByZero = errors.New("vec: integer division by zero: check the divisor before dividing")
	errEmpty     = errors.New("vec: the minimum or maximum of no elements: pass at least one")
)

// intDivisor is an error when k is an integer 0 (a float 0 divides to ±Inf or
// NaN, as IEEE says).
func intDivisor[T Number](k T) error {
	switch any(k).(type) {
	case float32, float64:
		return nil
	}
	if k == 0 {
		return errDivByZero
	}
	return nil
}

// fma is a*b + c rounded once, as the FMA instruction the SIMD kernels use.
func fma[T Float](a, b, c T) T {
	switch a := any(a).(type) {
	case float32:
		return T(fma32(a, any(b).(float32), any(c).(float32)))
	case float64:
		return T(math.FMA(a, any(b).(float64), any(c).(float64)))
	}
	panic("unreachable")
}

// fma32 is the float32 a*b + c rounded once. float64 holds a*b exactly, but
// rounding the sum to float64 and then to float32 could land on a float32 tie
// that the exact sum is not on: the sum is rounded to float64 by rounding to
// odd instead (a sticky last bit), after which rounding to float32 is exact
// (Boldo and Melquiond: 53 >= 24+2 bits).
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	// e = p + c - s exactly (Knuth's TwoSum)
	bv := s - p
	e := (p - (s - bv)) + (float64(c) - bv)
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		// inexact and even: the odd neighbour on the side of the exact sum
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}
