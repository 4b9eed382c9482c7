package vec

import (
	"math"
	"math/big"
)

// The exact reference of the Exp and Log tests: 200-bit series, rounded once
// to float64 (Go's own math.Exp and math.Log are no oracle: on amd64 their
// assembly gives +Inf for exp(709.78) and -709.09 for log(5e-324)).

const refPrec = 200

// refLn2 is ln 2 = sum 1/(k 2**k), to refPrec bits.
var refLn2 = func() *big.Float {
	sum := new(big.Float).SetPrec(refPrec)
	for k := 1; k < refPrec+10; k++ {
		term := new(big.Float).SetPrec(refPrec).SetMantExp(big.NewFloat(1).SetPrec(refPrec), -k)
		term.Quo(term, new(big.Float).SetPrec(refPrec).SetInt64(int64(k)))
		sum.Add(sum, term)
	}
	return sum
}()

func refNew() *big.Float { return new(big.Float).SetPrec(refPrec) }

// refExp is e**x correctly rounded to float64 (but for double rounding of a
// value within 2**-140 of a tie).
func refExp(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	bx := refNew().SetFloat64(x)
	n, _ := refNew().Quo(bx, refLn2).Float64()
	k := math.RoundToEven(n)
	r := refNew().Sub(bx, refNew().Mul(refNew().SetFloat64(k), refLn2))
	sum, term := refNew().SetInt64(1), refNew().SetInt64(1)
	for i := int64(1); i < 60; i++ {
		term.Mul(term, r)
		term.Quo(term, refNew().SetInt64(i))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, int(k))
	f, _ := sum.Float64()
	return f
}

// refLog is ln x correctly rounded to float64, as refExp.
func refLog(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1) || x == 1:
		return x - 1 // log(1) = +0 exactly
	}
	m := refNew()
	e := refNew().SetFloat64(x).MantExp(m) // x = m * 2**e, m in [0.5, 1)
	one := refNew().SetInt64(1)
	s := refNew().Quo(refNew().Sub(m, one), refNew().Add(m, one))
	s2 := refNew().Mul(s, s)
	sum, pow := refNew(), refNew().Set(s)
	for k := int64(0); k < 100; k++ {
		sum.Add(sum, refNew().Quo(pow, refNew().SetInt64(2*k+1)))
		pow.Mul(pow, s2)
	}
	sum.Mul(sum, refNew().SetInt64(2))
	sum.Add(sum, refNew().Mul(refNew().SetInt64(int64(e)), refLn2))
	f, _ := sum.Float64()
	return f
}
