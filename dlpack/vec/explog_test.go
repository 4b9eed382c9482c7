package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The measured bounds (TestExpLogULP): ulps of the result's type from the

// both against explog_ref_test.go's 200-bit series rounded once). Measured on
// 20000 random inputs and the edges: exp32 0.86, log32 0.64, exp64 1.00,
// log64 1.00.
const (
	expMaxULPF32 = 1.0
	logMaxULPF32 = 1.0
	expMaxULPF64 = 1.5
	logMaxULPF64 = 1.5
)

// explogInputs: random over every exponent the function has results for,
// plus the edges: specials, subnormals, the overflow and underflow borders.
func explogInputs[T Float](n int, log bool) []T {
	rng := rand.New(rand.NewPCG(25, 1))
	var out []T
	edges := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1,
		0.5, 2, math.E, 1e-30, -1e-30, 88.72, 88.73, -87.3, -103.97, -103.98, -104, 89,
		709.78, 709.79, -708.4, -745.13, -745.14, -746, 710,
		math.SmallestNonzeroFloat64, math.MaxFloat64, math.SmallestNonzeroFloat32,
		math.MaxFloat32, 0x1p-126, 0x1p-1022, 0x1.fffffep-127, 0x1.fffffffffffffp-1023,
		math.Sqrt2, 1 / math.Sqrt2, math.Nextafter(1, 2), math.Nextafter(1, 0)}
	for _, e := range edges {
		out = append(out, T(e))
	}
	for range n {
		var x float64
		if log {
			x = math.Exp2(rng.Float64()*(2*1024+60) - 1024 - 60) // every exponent, subnormals too
		} else {
			x = (rng.Float64()*2 - 1) * 750
			if rng.IntN(2) == 0 {
				x = rng.NormFloat64() * 3
			}
		}
		out = append(out, T(x))
	}
	return out
}

// ulps is |got - want| in ulps of want's type T (want from float64).
func ulps[T Float](got T, want float64) float64 {
	w := T(want)
	if math.IsInf(float64(w), 0) || w == 0 && want != 0 {
		// the exact value rounds past the type's range
		if float64(got) == float64(w) {
			return 0
		}
		return math.Inf(1)
	}
	var ulp float64
	switch any(got).(type) {
	case float32:
		ulp = float64(math.Nextafter32(float32(math.Abs(float64(w))), float32(math.Inf(1)))) - math.Abs(float64(w))
		ulp = max(ulp, 0x1p-149)
	default:
		ulp = math.Nextafter(math.Abs(float64(w)), math.Inf(1)) - math.Abs(float64(w))
	}
	return math.Abs(float64(got)-want) / ulp
}

// checkULP runs f over the inputs on every kernel set against the exact
// reference: within bound ulps, NaN where it is NaN.
func checkULP[T Float](t *testing.T, name string, f func(d, a []T) error, ref func(float64) float64,
	bound float64, log bool) {
	a := explogInputs[T](20000, log)
	want := make([]float64, len(a))
	for i, x := range a {
		want[i] = ref(float64(x))
	}
	eachLevel(t, func(t *testing.T, _ int) {
		d := make([]T, len(a))
		if err := f(d, a); err != nil {
			t.Fatal(err)
		}
		worst, at := 0.0, T(0)
		for i, x := range a {
			if math.IsNaN(want[i]) {
				if d[i] == d[i] {
					t.Errorf("%s(%v) = %v, want NaN", name, x, d[i])
				}
				continue
			}
			if u := ulps(d[i], want[i]); u > worst {
				worst, at = u, x
			}
		}
		t.Logf("%s: max %.3f ulp (at %v)", name, worst, at)
		if worst > bound {
			t.Errorf("%s: %.3f ulps at %v, over the bound %v", name, worst, at, bound)
		}
	})
}

func TestExpULP(t *testing.T) {
	checkULP(t, "exp32", Exp[float32], refExp, expMaxULPF32, false)
	checkULP(t, "exp64", Exp[float64], refExp, expMaxULPF64, false)
}

func TestLogULP(t *testing.T) {
	checkULP(t, "log32", Log[float32], refLog, logMaxULPF32, true)
	checkULP(t, "log64", Log[float64], refLog, logMaxULPF64, true)
}
