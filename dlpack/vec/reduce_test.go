package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestReductionsAgainstNumPy(t *testing.T) {
	g := loadGolden(t)
	for name, gt := range g.Types {
		t.Run(name, func(t *testing.T) {
			switch name {
			case "float32":
				floatReductions[float32](t, gt)
			case "float64":
				floatReductions[float64](t, gt)
			case "int8":
				intReductions[int8](t, gt)
			case "uint8":
				intReductions[uint8](t, gt)
			case "uint16":
				intReductions[uint16](t, gt)
			case "int32":
				intReductions[int32](t, gt)
			case "int64":
				intReductions[int64](t, gt)
			case "int16":
				intReductions[int16](t, gt)
			case "uint32":
				intReductions[uint32](t, gt)
			case "uint64":
				intReductions[uint64](t, gt)
			}
		})
	}
}

// caseLine is the golden case's elements (offset, length, stride; a negative
// stride counts from the end), read through a view and Lines: strided ones
// gathered as Lines gathers them.
func caseLine[T Castable](t *testing.T, x []T, c [3]int, fn func(line []T)) {
	t.Helper()
	off, n, step := c[0], c[1], c[2]
	first := off
	if step < 0 {
		first = len(x) - 1 - off
	}
	v, err := NewView(x, first, []int64{int64(n)}, []int64{int64(step)})
	if err != nil {
		t.Fatal(err)
	}
	if err := Lines(v, func(_ int, line []T) error { fn(line); return nil }); err != nil {
		t.Fatal(err)
	}
}

func f64(t *testing.T, n interface{ String() string }) float64 {
	t.Helper()
	var b uint64
	if _, err := fmt.Sscan(n.String(), &b); err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(b)
}

// floatReductions: sums, dots and norms within the documented error of the
// exact value and of NumPy's, min and max NumPy's own (NaN if any is NaN), on
// every kernel set with the same bits.
func floatReductions[T Float](t *testing.T, gt goldenType) {
	a, b := fromBits[T](bitsOf(t, gt.A)), fromBits[T](bitsOf(t, gt.B))
	finite := func(x, y []T) ([]T, []T) { // as the golden sums: non-finite pairs are 0
		xf, yf := make([]T, len(x)), make([]T, len(x))
		for i := range x {
			if !math.IsInf(float64(x[i]), 0) && !math.IsNaN(float64(x[i])) &&
				!math.IsInf(float64(y[i]), 0) && !math.IsNaN(float64(y[i])) {
				xf[i], yf[i] = x[i], y[i]
			}
		}
		return xf, yf
	}
	first := map[[3]int]reduction{}
	eachLevel(t, func(t *testing.T, l int) {
		for _, gr := range gt.Reductions {
			var x, y []T
			caseLine(t, a, gr.Case, func(line []T) { x = append([]T(nil), line...) })
			caseLine(t, b, gr.Case, func(line []T) { y = append([]T(nil), line...) })
			xf, yf := finite(x, y)
			var r reduction
			r.sum = Sum(xf)
			r.dot, _ = Dot(xf, yf)
			r.norm = Norm2(xf)
			exact, abs := f64(t, gr.SumExact), f64(t, gr.SumAbs)
			bound := sumErrorBound[T](len(x)) * abs
			if math.Abs(r.sum-exact) > bound {
				t.Fatalf("case %v: sum %v, exact %v: off by more than %v", gr.Case, r.sum, exact, bound)
			}
			if np := f64(t, gr.Sum); !math.IsInf(np, 0) && math.Abs(r.sum-np) > bound+math.Abs(np-exact) {
				t.Fatalf("case %v: sum %v, NumPy %v, exact %v", gr.Case, r.sum, np, exact)
			}
			if np := f64(t, gr.Dot); !closeRel(r.dot, np, 1e-13, Norm2(xf)*Norm2(yf)) {
				t.Fatalf("case %v: dot %v, NumPy %v", gr.Case, r.dot, np)
			}
			if np := f64(t, gr.Norm); !closeRel(r.norm, np, 1e-15, np) {
				t.Fatalf("case %v: norm %v, NumPy %v", gr.Case, r.norm, np)
			}
			if len(x) == 0 {
				if _, err := Min(x); err == nil {
					t.Fatal("Min of no elements: no error")
				}
			} else {
				mn, err1 := Min(x)
				mx, err2 := Max(x)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				wantMin := fromBits[T]([]uint64{bitOf(t, *gr.Min)})[0]
				wantMax := fromBits[T]([]uint64{bitOf(t, *gr.Max)})[0]
				if !sameValue(mn, wantMin, true) || !sameValue(mx, wantMax, true) {
					t.Fatalf("case %v: min, max %v %v, NumPy %v %v", gr.Case, mn, mx, wantMin, wantMax)
				}
				r.min, r.max = float64(mn), float64(mx)
			}
			if l == useGo {
				first[gr.Case] = r
			} else if want := first[gr.Case]; !sameBits(r, want) {
				t.Fatalf("case %v: %s gives %+v, the Go loops %+v", gr.Case, levelNames[l], r, want)
			}
		}
	})
}

// reduction is one case's results.
type reduction struct{ sum, dot, norm, min, max float64 }

func sameBits(a, b reduction) bool {
	x := [5]float64{a.sum, a.dot, a.norm, a.min, a.max}
	y := [5]float64{b.sum, b.dot, b.norm, b.min, b.max}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return false
		}
	}
	return true
}

func closeRel(got, want, rel, scale float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || math.IsNaN(got) == math.IsNaN(want)
	}
	return math.Abs(got-want) <= rel*scale+1e-300
}

func intReductions[T Integer](t *testing.T, gt goldenType) {
	a := fromBits[T](bitsOf(t, gt.A))
	eachLevel(t, func(t *testing.T, _ int) { intReductionsAt(t, a, gt) })
}

func intReductionsAt[T Integer](t *testing.T, a []T, gt goldenType) {
	for _, gr := range gt.Reductions {
		caseLine(t, a, gr.Case, func(x []T) {
			if got, want := SumInt(x), int64(bitOf(t, gr.Sum)); got != want {
				t.Fatalf("case %v: sum %d, NumPy %d", gr.Case, got, want)
			}
			if len(x) == 0 {
				return
			}
			mn, _ := Min(x)
			mx, _ := Max(x)
			if int64(mn) != int64(bitOf(t, *gr.Min)) || int64(mx) != int64(bitOf(t, *gr.Max)) {
				t.Fatalf("case %v: min, max %d %d, NumPy %s %s", gr.Case, mn, mx, *gr.Min, *gr.Max)
			}
		})
	}
}

// The sign of an equal zero and the NaN of the extremes are the same on every
// kernel set: zeros of both signs in every lane and position.
func TestExtremesSameOnEveryKernelSet(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, n := range []int{16, 17, 31, 32, 33, 64, 100} {
		for pattern := range 8 {
			x := make([]float64, n)
			for i := range x {
				if (i*7+pattern)%3 == 0 {
					x[i] = negZero
				}
			}
			var first [2]uint64
			eachLevel(t, func(t *testing.T, l int) {
				mn, _ := Min(x)
				mx, _ := Max(x)
				got := [2]uint64{math.Float64bits(mn), math.Float64bits(mx)}
				if l == useGo {
					first = got
				} else if got != first {
					t.Fatalf("n %d pattern %d: %s gives %x, the Go loops %x", n, pattern, levelNames[l], got, first)
				}
			})
			x[n-1] = math.NaN()
			eachLevel(t, func(t *testing.T, _ int) {
				if mn, _ := Max(x); !math.IsNaN(mn) {
					t.Fatalf("n %d: max with a NaN last is %v", n, mn)
				}
			})
		}
	}
}

// The pairwise blocks keep a long float64 sum's error at NumPy's (a float32
// one's: TestSumF32Accuracy).
func TestSumPrecision(t *testing.T) {
	y := make([]float64, 1<<20)
	Fill(y, 0.1)
	if got, want := Sum(y), float64(len(y))*0.1; math.Abs(got-want) > 40*0x1p-53*want {
		t.Fatalf("float64 sum %v, want %v", got, want)
	}
}

// Sums, dots and norms give the same bits on every kernel set: inputs whose
// float64 sums round (magnitudes 1e-20..1e20, both signs), every length to
// past two 256-element blocks.
func TestSumsSameOnEveryKernelSet(t *testing.T) {
	sameSums[float32](t)
	sameSums[float64](t)
}

func sameSums[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	x, y := make([]T, 600), make([]T, 600)
	for i := range x {
		x[i] = T(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20)))
		y[i] = T(rng.NormFloat64())
	}
	first := map[int][3]uint64{}
	eachLevel(t, func(t *testing.T, l int) {
		for n := range len(x) {
			for _, off := range []int{0, 1} {
				a, b := x[off:][:n-off*min(n, 1)], y[off:][:n-off*min(n, 1)]
				d, _ := Dot(a, b)
				got := [3]uint64{math.Float64bits(Sum(a)), math.Float64bits(d), math.Float64bits(Norm2(a))}
				key := n*2 + off
				if l == useGo {
					first[key] = got
				} else if got != first[key] {
					t.Fatalf("n %d off %d: %s gives %x, the Go loops %x", n, off, levelNames[l], got, first[key])
				}
			}
		}
	})
}

// dotShort, the Dot and Norm2 of fewer than 16 elements, has the bits of
// dotLeaf's 16 lanes (each product fma'd onto +0, the lanes summed by lanes):
// every length, both types, signed zeros, products that underflow to -0,
// infinities and NaNs.
func TestDotShortIsTheLanesTree(t *testing.T) {
	lanesDot := func(a, b []float64) float64 {
		var acc [16]float64
		for i := range a {
			acc[i] = math.FMA(a[i], b[i], 0)
		}
		return lanes(&acc)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float64{0, math.Copysign(0, -1), 1e-200, -1e-200, math.Inf(1), math.Inf(-1), math.NaN()}
	for n := range 16 {
		for k := range 500 {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i], b[i] = rng.NormFloat64()*1e3, rng.NormFloat64()
				if rng.IntN(4) == 0 {
					a[i] = special[rng.IntN(len(special))]
				}
				if k%50 == 0 { // every product -0 or tiny
					a[i], b[i] = -1e-200*float64(i+1), 1e-200
				}
			}
			want := lanesDot(a, b)
			if got := dotShort(a, b); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("float64, n %d: %v (%#x), lanes %v (%#x); a %v b %v", n, got, math.Float64bits(got), want, math.Float64bits(want), a, b)
			}
			a32, b32 := make([]float32, n), make([]float32, n)
			w32, w64 := make([]float64, n), make([]float64, n)
			for i := range a {
				a32[i], b32[i] = float32(a[i]), float32(b[i])
				w32[i], w64[i] = float64(a32[i]), float64(b32[i])
			}
			want = lanesDot(w32, w64)
			if got := dotShort(a32, b32); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("float32, n %d: %v, lanes %v; a %v b %v", n, got, want, a32, b32)
			}
		}
	}
}
