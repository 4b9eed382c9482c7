package vec

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The integer reductions' kernels against the definition, on every kernel
// set: SumInt wraps modulo 2**64 (NumPy sums int8..int64 in int64 and
// uint8..uint64 in uint64: the same bits), Min and Max are exact. Inputs over
// the type's whole range, its extremes in long runs (a byte's bias, a 64-bit
// sum that wraps), every length to 3x the widest vector past an offset, so
// the kernels' whole vectors and the loops' tails both count. NumPy's own
// results are golden_test.go's (TestReductionsAgainstNumPy).
func TestIntReductionsOnEveryKernelSet(t *testing.T) {
	intReductionsAgainstLoop[int8](t)
	intReductionsAgainstLoop[uint8](t)
	intReductionsAgainstLoop[int16](t)
	intReductionsAgainstLoop[uint16](t)
	intReductionsAgainstLoop[int32](t)
	intReductionsAgainstLoop[uint32](t)
	intReductionsAgainstLoop[int64](t)
	intReductionsAgainstLoop[uint64](t)
}

func intReductionsAgainstLoop[T Integer](t *testing.T) {
	size := int(unsafe.Sizeof(*new(T)))
	n := 3*64/size + 3 // 3x an AVX-512 vector, past offsets 0..3
	rng := rand.New(rand.NewPCG(25, uint64(size)))
	lo, hi := T(0), ^T(0) // the type's extremes: unsigned 0 and 11..1
	if hi < lo {          // signed: 10..0 and 01..1
		lo, hi = T(1)<<(8*size-1), ^(T(1) << (8*size - 1))
	}
	inputs := map[string][]T{"random": make([]T, n), "lows": make([]T, n), "highs": make([]T, n)}
	for i := range n {
		inputs["random"][i] = T(rng.Uint64())
		inputs["lows"][i], inputs["highs"][i] = lo, hi
	}
	inputs["highs"][n/2] = lo // one extreme inside a run of the other
	inputs["lows"][n/3] = hi
	eachLevel(t, func(t *testing.T, _ int) {
		for name, x := range inputs {
			for off := range 4 {
				for m := 0; off+m <= n; m++ {
					s := x[off : off+m]
					var want int64
					for _, v := range s {
						want += int64(v)
					}
					if got := SumInt(s); got != want {
						t.Fatalf("%T %s [%d:%d]: SumInt %d, the wrapping sum %d", s, name, off, off+m, got, want)
					}
					if m == 0 {
						continue
					}
					wantMin, wantMax := s[0], s[0]
					for _, v := range s {
						wantMin, wantMax = min(wantMin, v), max(wantMax, v)
					}
					gotMin, _ := Min(s)
					gotMax, _ := Max(s)
					if gotMin != wantMin || gotMax != wantMax {
						t.Fatalf("%T %s [%d:%d]: Min, Max %d %d, want %d %d", s, name, off, off+m, gotMin, gotMax, wantMin, wantMax)
					}
				}
			}
		}
	})
}
