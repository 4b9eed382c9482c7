package dlpack

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSelfOverlapLayouts(t *testing.T) {
	cases := []struct {
		name           string
		shape, strides []int64
		want           Aliasing
	}{
		{"scalar", nil, nil, NoAliasing},
		{"contiguous", []int64{2, 3, 4}, []int64{12, 4, 1}, NoAliasing},
		{"transposed", []int64{4, 2, 3}, []int64{1, 12, 4}, NoAliasing},
		{"negative and stepped", []int64{2, 3, 2}, []int64{-12, 4, -2}, NoAliasing},
		{"window of a wider matrix", []int64{3, 4}, []int64{10, 1}, NoAliasing},
		{"zero stride", []int64{5}, []int64{0}, Aliased},
		{"expand of one", []int64{1, 5}, []int64{1, 0}, Aliased},
		{"zero stride, extent 1", []int64{1, 3}, []int64{0, 1}, NoAliasing},
		{"empty with zero strides", []int64{0, 5}, []int64{0, 0}, NoAliasing},
		{"empty broadcast", []int64{3, 0}, []int64{0, 1}, NoAliasing},
		{"rows sharing elements", []int64{3, 4}, []int64{2, 1}, Aliased},
		{"same stride twice", []int64{2, 2}, []int64{3, 3}, Aliased},
		{"interleaved, disjoint", []int64{2, 3}, []int64{3, 2}, NoAliasing},
		{"interleaved, shared", []int64{3, 4}, []int64{3, 2}, Aliased},
		{"huge equal strides", []int64{2, 2}, []int64{math.MaxInt64 / 2, math.MaxInt64 / 2}, Aliased},
		{"overflowing reach", []int64{4}, []int64{math.MaxInt64 / 2}, MayAlias},
		{"MinInt64 stride", []int64{2}, []int64{math.MinInt64}, MayAlias},
		{"too much work", []int64{1000, 1000}, []int64{2, 3}, MayAlias},
	}
	for _, c := range cases {
		if got := SelfOverlap(c.shape, c.strides, 1<<16); got != c.want {
			t.Errorf("%s: SelfOverlap(%v, %v) = %v, want %v", c.name, c.shape, c.strides, got, c.want)
		}
	}
}

// bruteAliasing visits every index and reports whether two reach one offset.
func bruteAliasing(shape, strides []int64) Aliasing {
	seen := map[int64]bool{}
	idx := make([]int64, len(shape))
	for _, d := range shape {
		if d == 0 {
			return NoAliasing
		}
	}
	for {
		off := int64(0)
		for i := range idx {
			off += idx[i] * strides[i]
		}
		if seen[off] {
			return Aliased
		}
		seen[off] = true
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return NoAliasing
		}
	}
}

func TestSelfOverlapMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 5))
	for range 20000 {
		n := r.IntN(4)
		shape, strides := make([]int64, n), make([]int64, n)
		for i := range n {
			shape[i] = r.Int64N(5)
			strides[i] = r.Int64N(13) - 6
		}
		if got, want := SelfOverlap(shape, strides, 1<<16), bruteAliasing(shape, strides); got != want {
			t.Fatalf("SelfOverlap(%v, %v) = %v, brute force says %v", shape, strides, got, want)
		}
	}
}

func BenchmarkSelfOverlapContiguous2D(b *testing.B) {
	shape, strides := []int64{300, 400}, []int64{400, 1}
	for b.Loop() {
		if SelfOverlap(shape, strides, 1<<16) != NoAliasing {
			b.Fatal("aliased")
		}
	}
}

func BenchmarkIsCContiguous2D(b *testing.B) {
	shape, strides := []int64{300, 400}, []int64{400, 1}
	for b.Loop() {
		if !IsCContiguous(shape, strides) {
			b.Fatal("not contiguous")
		}
	}
}
