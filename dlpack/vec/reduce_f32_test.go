package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// sumErrorBound is the documented bound on |Sum(s) - exact| over the sum of
// |s|, for n elements of T (reduce.go's top): float64 lanes
// (leaf/16 + 4 + log2(n/leaf)) float64 ulps; float32 lanes 6 float32 ulps (3
// roundings in a block's lane, 3 in a unit's) plus (70 + log2(n/leaf32))
// float64 ones.
func sumErrorBound[T Float](n int) float64 {
	if _, ok := any(*new(T)).(float32); ok {
		return 6*0x1p-24 + (70+math.Log2(max(float64(n)/leaf32, 1)))*0x1p-53
	}
	return (leaf/16 + 4 + math.Log2(max(float64(n), 1))) * 0x1p-53
}

// exactSum is the sum of s, exactly (a float32's bits fit in 1100 of a
// big.Float's), then rounded to float64, and the sum of |s| in float64.
func exactSum(s []float32) (sum, abs float64) {
	acc := new(big.Float).SetPrec(1100)
	for _, v := range s {
		acc.Add(acc, new(big.Float).SetFloat64(float64(v)))
		abs += math.Abs(float64(v))
	}
	sum, _ = acc.Float64()
	return sum, abs
}

// refSumF32 is the float32 Sum as reduce.go's top says it, element by element:
// leaves of leaf32 pairwise; in a leaf, units of unit32, in a unit blocks of
// block32 in 64 float32 lanes (lane i%64), each block's lanes added into the
// unit's, each unit's widened into 16 float64 ones, j taking
// (j + j+16) + (j+32 + j+48), and the 16 in a balanced tree; a leaf that
// overflows float32 in float64 lanes (sum64).
func refSumF32(s []float32) float64 {
	if len(s) > leaf32 {
		h := (len(s) + 2*leaf32 - 1) / (2 * leaf32) * leaf32
		return refSumF32(s[:h]) + refSumF32(s[h:])
	}
	var acc [16]float64
	for u := 0; u < len(s); u += unit32 {
		var mid [64]float32
		for b := u; b < min(u+unit32, len(s)); b += block32 {
			var part [64]float32
			for i, v := range s[b:min(b+block32, len(s))] {
				part[i%64] += v
			}
			for j := range mid {
				mid[j] += part[j]
			}
		}
		for j := range acc {
			acc[j] += (float64(mid[j]) + float64(mid[j+16])) + (float64(mid[j+32]) + float64(mid[j+48]))
		}
	}
	var t8 [8]float64
	for i := range t8 {
		t8[i] = acc[2*i] + acc[2*i+1]
	}
	r := ((t8[0] + t8[1]) + (t8[2] + t8[3])) + ((t8[4] + t8[5]) + (t8[6] + t8[7]))
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return sum64(s)
	}
	return r
}

// A float32 Sum gives the reference's bits on every kernel set, for lengths
// around a 64-element group, a block, a unit, a leaf and the 2 to 4 leaves
// summed side by side (sumLeavesF32), from offsets that are not a vector's:
// the kernels' whole blocks, the last block's groups and the Go loop's rest
// meet where they should. Magnitudes 1e-20..1e20 of both signs, so every
// addition rounds and a different order shows.
func TestSumF32SameOnEveryKernelSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 32))
	x := make([]float32, 9*leaf32+2*block32+77)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20)))
	}
	var lens []int
	for _, n := range []int{0, 1, 15, 63, 64, 65, 127, 1000, block32, unit32, 3 * block32, leaf32, 2 * leaf32, 3 * leaf32, 4 * leaf32, 5 * leaf32} {
		lens = append(lens, n, n+1, n+63)
		if n > 0 {
			lens = append(lens, n-1)
		}
	}
	lens = append(lens, len(x)-3)
	// the third of four leaves side by side overflows float32: that one
	// alone is summed again in float64 lanes
	over := make([]float32, 4*leaf32)
	copy(over, x)
	for i := 2*leaf32 + 5; i < 2*leaf32+3*block32; i += 7 {
		over[i] = math.MaxFloat32 * float32(1-rng.Float64()/4)
	}
	// leaves whose sums a different tree adds to other bits: -2**53, 0, 2**53,
	// 1 give 0 as (0+1)+(2+3) and 1 as ((0+1)+2)+3; 2**53, 1, -2**53 give 0
	// as (0+1)+2 and 1 as 0+(1+2)
	trees := map[string][]float32{"4 leaves": make([]float32, 4*leaf32), "3 leaves": make([]float32, 3*leaf32)}
	for i := range leaf32 {
		for k, v := range []float32{-0x1p39, 0, 0x1p39, 0x1p-14} {
			trees["4 leaves"][k*leaf32+i] = v
		}
		for k, v := range []float32{0x1p39, 0x1p-14, -0x1p39} {
			trees["3 leaves"][k*leaf32+i] = v
		}
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for name, s := range trees {
			if got := sumSideBySideF32(s); got != 0 {
				t.Errorf("%s side by side: %v, Sum's tree gives 0", name, got)
			}
		}
		for _, n := range lens {
			for _, off := range []int{0, 1, 3} {
				s := x[off : off+n]
				want := refSumF32(s)
				if got := Sum(s); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d off %d: Sum %v, the reference %v", n, off, got, want)
				}
				if got := sumSideBySideF32(s); n > leaf32 && math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d off %d: side by side %v, the reference %v", n, off, got, want)
				}
			}
		}
		if got, want := sumSideBySideF32(over), refSumF32(over); math.Float64bits(got) != math.Float64bits(want) || math.IsInf(got, 0) {
			t.Fatalf("a leaf overflowing float32 side by side: %v, the reference %v", got, want)
		}
		big := make([]float32, sideBySideFrom+3*leaf32+5) // Sum takes the side-by-side way
		for i := range big {
			big[i] = x[i%len(x)]
		}
		if got, want := Sum(big), refSumF32(big); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%d elements: Sum %v, the reference %v", len(big), got, want)
		}
	})
}

// The float32 Sum is within its documented bound of the exact sum on inputs
// chosen to hurt float32 lanes: a large element then small ones in each lane
// of each block (each small one lost: 3 of the bound's 6 ulps) or of each unit
// (the block's ones lost, then the other blocks' sums: 3.75), large terms
// cancelling around small ones, magnitudes 1e-20..1e20, a million 0.1s, and
// elements whose float32 partial sums overflow (that leaf summed in float64:
// finite, within float64's bound).
func TestSumF32Accuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	inputs := map[string][]float32{}
	// ones but each lane's first element of each run of period elements
	bigThenOnes := func(period int, big float32) []float32 {
		s := make([]float32, 2*leaf32+5*block32+100)
		for i := range s {
			s[i] = 1
			if i%period < 64 {
				s[i] = big
			}
		}
		return s
	}
	inputs["2**24 then ones"] = bigThenOnes(block32, 1<<24)
	inputs["2**26 then ones"] = bigThenOnes(unit32, 1<<26)
	cancel := make([]float32, 3*leaf32+7)
	for i := range cancel {
		cancel[i] = float32(1e-3 * rng.Float64())
		if i%3 == 0 {
			cancel[i] = float32(1e8 * (1 + rng.Float64()))
			if i%6 == 0 {
				cancel[i] = -cancel[i]
			}
		}
	}
	inputs["cancelling"] = cancel
	wide := make([]float32, 2*leaf32+block32+5)
	for i := range wide {
		wide[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20)))
	}
	inputs["magnitudes 1e-20..1e20"] = wide
	tenths := make([]float32, 1_000_000)
	Fill(tenths, 0.1)
	inputs["a million 0.1"] = tenths
	huge := make([]float32, leaf32+block32)
	for i := range huge {
		huge[i] = 1
		if i < 2*block32 {
			huge[i] = math.MaxFloat32 * float32(1-rng.Float64()/4)
		}
	}
	inputs["overflowing float32"] = huge
	for name, s := range inputs {
		exact, abs := exactSum(s)
		eachLevel(t, func(t *testing.T, _ int) {
			got := Sum(s)
			bound := sumErrorBound[float32](len(s)) * abs
			if name == "overflowing float32" {
				bound = sumErrorBound[float64](len(s)) * abs
			}
			if math.IsInf(got, 0) || math.Abs(got-exact) > bound {
				t.Fatalf("%s: Sum %v, exact %v: off by %v, more than %v", name, got, exact, math.Abs(got-exact), bound)
			}
		})
	}
	// Non-finite elements: the float64 lanes' answer (+Inf, or NaN for +Inf
	// and -Inf), not an overflow's.
	inf := make([]float32, 2048)
	inf[5] = float32(math.Inf(1))
	if got := Sum(inf); !math.IsInf(got, 1) {
		t.Errorf("Sum with a +Inf: %v", got)
	}
	inf[700] = float32(math.Inf(-1))
	if got := Sum(inf); !math.IsNaN(got) {
		t.Errorf("Sum with +Inf and -Inf: %v", got)
	}
}
