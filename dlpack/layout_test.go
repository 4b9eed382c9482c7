package dlpack

import (
	"math"
	"math/big"
	"slices"
	"testing"
)

func TestNumElements(t *testing.T) {
	cases := []struct {
		shape   []int64
		want    int64
		wantErr bool
	}{
		{nil, 1, false},
		{[]int64{3, 4}, 12, false},
		{[]int64{0, 5}, 0, false},
		{[]int64{math.MaxInt64, 2}, 0, true},
		{[]int64{math.MaxInt64, 2, 0}, 0, false},
		{[]int64{-1}, 0, true},
		{[]int64{1 << 31, 1 << 31}, 1 << 62, false},
		{[]int64{1 << 32, 1 << 32}, 0, true},
	}
	for _, c := range cases {
		got, err := NumElements(c.shape)
		if (err != nil) != c.wantErr || (err == nil && got != c.want) {
			t.Errorf("NumElements(%v) = %d, %v; want %d, err=%v", c.shape, got, err, c.want, c.wantErr)
		}
	}
}

func TestContiguousStridesAndCheck(t *testing.T) {
	if got := ContiguousStrides([]int64{2, 3, 4}); !slices.Equal(got, []int64{12, 4, 1}) {
		t.Fatalf("ContiguousStrides = %v", got)
	}
	if !IsCContiguous([]int64{2, 1, 4}, []int64{4, 99, 1}) {
		t.Error("a dimension of extent 1 must not break contiguity")
	}
	if IsCContiguous([]int64{2, 4}, []int64{1, 2}) {
		t.Error("Fortran order reported as C-contiguous")
	}
	if !IsCContiguous([]int64{0, 4}, []int64{7, 7}) {
		t.Error("empty arrays are contiguous")
	}
}

func TestElementSpan(t *testing.T) {
	lo, hi, err := ElementSpan([]int64{3, 4}, []int64{-4, 1})
	if err != nil || lo != -8 || hi != 3 {
		t.Fatalf("ElementSpan = %d, %d, %v; want -8, 3", lo, hi, err)
	}
	if _, _, err := ElementSpan([]int64{3}, []int64{math.MaxInt64}); err != ErrOverflow {
		t.Fatalf("want overflow, got %v", err)
	}
	if lo, hi, _ := ElementSpan([]int64{0, 3}, []int64{1, 1}); lo != 0 || hi != -1 {
		t.Fatalf("empty span = %d, %d", lo, hi)
	}
}

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		bits int
		want int64
	}{{3, 4, 2}, {4, 6, 3}, {5, 6, 4}, {2, 32, 8}, {0, 8, 0}} {
		if got, err := ByteSize(c.n, c.bits); err != nil || got != c.want {
			t.Errorf("ByteSize(%d, %d) = %d, %v; want %d", c.n, c.bits, got, err, c.want)
		}
	}
}

// mulInt64 against math/big on the edges of its int32 fast path and of int64:
// every product that fits is exact, every other one is refused.
func TestMulInt64(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 3, 1<<31 - 1, -1 << 31, 1 << 31, -1<<31 - 1,
		1<<32 - 1, 1 << 32, 3037000499, 3037000500, -3037000500, 1 << 62, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	for _, a := range edges {
		for _, b := range edges {
			want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
			fits := want.Cmp(lo) >= 0 && want.Cmp(hi) <= 0
			got, ok := mulInt64(a, b)
			if ok != fits || (ok && got != want.Int64()) {
				t.Errorf("mulInt64(%d, %d) = %d, %v; want %v, fits %v", a, b, got, ok, want, fits)
			}
		}
	}
}
