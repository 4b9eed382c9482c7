package arrayfmt

import (
	"math"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
)

// Shown counts what Repr prints: every element up to NumPy's threshold, the edges
// of each long axis past it, and saturates instead of overflowing.
func TestShownCountsThePrintedElements(t *testing.T) {
	many := make([]int64, 40)
	for i := range many {
		many[i] = 2
	}
	for _, c := range []struct {
		shape []int64
		want  int64
	}{
		{nil, 1},
		{[]int64{0}, 0},
		{[]int64{1 << 50, 0}, 0},
		{[]int64{1000}, 1000},
		{[]int64{1001}, 6},
		{[]int64{1 << 50}, 6},
		{[]int64{1 << 40, 1 << 40}, 36},
		{[]int64{2, 1 << 60}, 12},
		{many, 1 << 40},
		{[]int64{math.MaxInt64, math.MaxInt64, 6, 6}, 6 * 6 * 6 * 6},
	} {
		if got := Shown(c.shape); got != c.want {
			t.Errorf("Shown(%v) = %d, want %d", c.shape, got, c.want)
		}
	}
	huge := make([]int64, 64)
	for i := range huge {
		huge[i] = 5
	}
	if got := Shown(huge); got != math.MaxInt64 {
		t.Errorf("Shown(5 x 64) = %d, want saturation at MaxInt64", got)
	}
}

// Repr reads exactly the elements Shown counts.
func TestReprReadsWhatShownCounts(t *testing.T) {
	for _, shape := range [][]int64{{7}, {2000}, {3, 400}, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2}} {
		reads := int64(0)
		dt, _ := dlpack.ByName("float32")
		Repr("Array", dt, shape, func(int64) dlpack.Scalar { reads++; return dlpack.Scalar{Kind: dlpack.KindFloat} })
		if reads != Shown(shape) {
			t.Errorf("shape %v: Repr read %d elements, Shown says %d", shape, reads, Shown(shape))
		}
	}
}
