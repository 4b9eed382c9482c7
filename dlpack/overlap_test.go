package dlpack

import (
	"math"
	"testing"
)

func TestViewExtentWholeBytes(t *testing.T) {
	const base = uintptr(0x10000)
	cases := []struct {
		name           string
		first          int64
		shape, strides []int64
		bits           int
		lo, hi         uintptr
	}{
		{"contiguous int64", 0, []int64{6}, []int64{1}, 64, base, base + 48},
		// a[::-1] of a 6-element int64 array: element 0 is the last one.
		{"reversed", 5, []int64{6}, []int64{-1}, 64, base, base + 48},
		{"every other", 1, []int64{3}, []int64{2}, 32, base + 4, base + 24},
		{"transposed 2x3", 0, []int64{3, 2}, []int64{1, 3}, 16, base, base + 12},
		{"broadcast row", 0, []int64{4, 3}, []int64{0, 1}, 8, base, base + 3},
		{"scalar", 2, nil, nil, 64, base + 16, base + 24},
		{"negative first", -2, []int64{2}, []int64{1}, 8, base - 2, base},
	}
	for _, c := range cases {
		e, err := ViewExtent(base, c.first, c.shape, c.strides, c.bits)
		if err != nil || e.Lo != c.lo || e.Hi != c.hi {
			t.Errorf("%s: ViewExtent = [%#x, %#x), %v; want [%#x, %#x)", c.name, e.Lo, e.Hi, err, c.lo, c.hi)
		}
	}
}

func TestViewExtentPackedSubByteCountsPartialBytes(t *testing.T) {
	const base = uintptr(0x2000)
	// Elements 3..5 of a packed 4-bit array: bits 12..24, bytes 1..3.
	e, err := ViewExtent(base, 3, []int64{3}, []int64{1}, 4)
	if err != nil || e.Lo != base+1 || e.Hi != base+3 {
		t.Fatalf("4-bit [3:6] = [%#x, %#x), %v; want [%#x, %#x)", e.Lo, e.Hi, err, base+1, base+3)
	}
	// Six 6-bit elements: 36 bits, 5 bytes (the last one partly).
	e, err = ViewExtent(base, 0, []int64{6}, []int64{1}, 6)
	if err != nil || e.Hi-e.Lo != 5 {
		t.Fatalf("6-bit x6 = [%#x, %#x), %v; want 5 bytes", e.Lo, e.Hi, err)
	}
}

func TestViewExtentEmptyOverlapsNothing(t *testing.T) {
	const base = uintptr(0x3000)
	empty, err := ViewExtent(base, 0, []int64{4, 0}, []int64{1, 1}, 32)
	if err != nil || !empty.Empty() {
		t.Fatalf("empty view: %+v, %v", empty, err)
	}
	all, _ := ViewExtent(base-64, 0, []int64{64}, []int64{1}, 8)
	if empty.Overlaps(all) || all.Overlaps(empty) {
		t.Error("an empty view must overlap nothing, even inside another view")
	}
}

func TestViewExtentOverflow(t *testing.T) {
	cases := []struct {
		first          int64
		shape, strides []int64
		bits           int
	}{
		{0, []int64{2}, []int64{math.MaxInt64}, 8},
		{0, []int64{1 << 61}, []int64{1}, 64}, // bit offsets past int64
		{math.MaxInt64, []int64{1}, []int64{1}, 8},
		{-(1 << 40), []int64{1}, []int64{1}, 64}, // below address 0
	}
	for _, c := range cases {
		if _, err := ViewExtent(0x1000, c.first, c.shape, c.strides, c.bits); err == nil {
			t.Errorf("ViewExtent(first=%d, %v, %v, %d bits) did not report overflow", c.first, c.shape, c.strides, c.bits)
		}
	}
}

func TestExtentOverlaps(t *testing.T) {
	a := Extent{Lo: 100, Hi: 148}
	cases := []struct {
		o    Extent
		want bool
	}{
		{Extent{Lo: 100, Hi: 148}, true},  // the same memory under another owner
		{Extent{Lo: 140, Hi: 200}, true},  // tail
		{Extent{Lo: 60, Hi: 101}, true},   // one shared byte
		{Extent{Lo: 148, Hi: 200}, false}, // adjacent after
		{Extent{Lo: 60, Hi: 100}, false},  // adjacent before
		{Extent{Lo: 110, Hi: 120}, true},  // inside
		{Extent{Lo: 120, Hi: 120}, false}, // empty, inside
	}
	for _, c := range cases {
		if got := a.Overlaps(c.o); got != c.want {
			t.Errorf("%+v.Overlaps(%+v) = %v, want %v", a, c.o, got, c.want)
		}
		if got := c.o.Overlaps(a); got != c.want {
			t.Errorf("%+v.Overlaps(%+v) = %v, want %v (not symmetric)", c.o, a, got, c.want)
		}
	}
}

func TestViewExtentOfViewsOfOneBuffer(t *testing.T) {
	const base = uintptr(0x4000) // 6 int64 elements
	ext := func(first int64, shape, strides []int64) Extent {
		e, err := ViewExtent(base, first, shape, strides, 64)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	whole := ext(0, []int64{6}, []int64{1})
	if !ext(5, []int64{6}, []int64{-1}).Overlaps(whole) {
		t.Error("a[::-1] must overlap a")
	}
	// a[0:6:2] and a[1:6:2] share no element but their extents overlap: the check
	// is conservative, a copy through a temporary is then merely unneeded.
	if !ext(0, []int64{3}, []int64{2}).Overlaps(ext(1, []int64{3}, []int64{2})) {
		t.Error("interleaved views overlap as extents")
	}
	if ext(0, []int64{3}, []int64{1}).Overlaps(ext(3, []int64{3}, []int64{1})) {
		t.Error("a[:3] and a[3:] are disjoint")
	}
}
