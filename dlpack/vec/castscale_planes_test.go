package vec

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
)

// CastScaleShiftPlanes is, by its definition, CastScaleShiftView of each
// plane with that plane's k and c (CastScaleShiftView is checked against
// NumPy): compared element by element on every kernel set, over the layouts
// of its line path (an HxWxC image's channels, contiguous, [:, ::2], mirrored
// with negative strides, planes of 1 element, a first stride of 0 in src) and
// of its per-plane path (planes whose rows do not merge, a strided dst whose
// elements between are checked untouched), uint8 to float32 and int16 to
// float64, with every layout's source elements distinct.
func TestCastScaleShiftPlanesIsPerPlaneCastScaleShiftView(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		planesCases[float32, uint8](t)
		planesCases[float64, int16](t)
	})
}

type planesLayout struct {
	name           string
	srcLen         int
	shape          []int64
	srcOff, dstOff int
	srcStr, dstStr []int64
	dstLen         int // 0: C-contiguous dst of shape
}

func planesCases[D Float, S Number](t *testing.T) {
	t.Helper()
	layouts := []planesLayout{
		{name: "hwc 4x4x3", srcLen: 48, shape: []int64{3, 4, 4}, srcStr: []int64{1, 12, 3}},
		{name: "hwc 5x7x3 [:, ::2]", srcLen: 5 * 14 * 3, shape: []int64{3, 5, 7}, srcStr: []int64{1, 42, 6}},
		{name: "chw mirrored", srcLen: 48, shape: []int64{3, 4, 4}, srcOff: 47, srcStr: []int64{-16, -4, -1}},
		{name: "hwc 33x40x3 long lines", srcLen: 33 * 40 * 3, shape: []int64{3, 33, 40}, srcStr: []int64{1, 120, 3}},
		{name: "planes of one", srcLen: 3, shape: []int64{3, 1, 1}, srcStr: []int64{1, 1, 1}},
		{name: "one plane broadcast", srcLen: 16, shape: []int64{3, 4, 4}, srcStr: []int64{0, 4, 1}},
		{name: "rows that do not merge", srcLen: 3 * 4 * 9, shape: []int64{3, 4, 4}, srcStr: []int64{36, 9, 2}},
		{name: "strided dst", srcLen: 48, shape: []int64{3, 4, 4}, srcStr: []int64{16, 4, 1}, dstLen: 3 * 4 * 8, dstStr: []int64{32, 8, 2}},
		{name: "no planes", srcLen: 0, shape: []int64{0, 4, 4}, srcStr: []int64{16, 4, 1}},
		{name: "empty planes", srcLen: 0, shape: []int64{3, 0, 4}, srcStr: []int64{0, 4, 1}},
	}
	for _, l := range layouts {
		src := make([]S, l.srcLen)
		for i := range src {
			src[i] = S(i%120 + 1)
		}
		sv, err := NewView(src, l.srcOff, l.shape, l.srcStr)
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		n, _ := dlpack.NumElements(l.shape)
		dstLen := max(l.dstLen, int(n))
		newDst := func() View[D] {
			data := make([]D, dstLen)
			for i := range data {
				data[i] = -7 // untouched elements stay so
			}
			v, err := NewView(data, l.dstOff, l.shape, l.dstStr)
			if err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
			return v
		}
		k, c := make([]D, l.shape[0]), make([]D, l.shape[0])
		for i := range k {
			k[i], c[i] = D(1)/D(255*(i+2)), D(-0.25)*D(i+1)
		}
		got, want := newDst(), newDst()
		if err := CastScaleShiftPlanes(got, sv, k, c); err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		for i := range l.shape[0] {
			d, _ := want.Slab(i, i+1)
			s, _ := sv.Slab(i, i+1)
			if err := CastScaleShiftView(d, s, k[i], c[i]); err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
		}
		for i := range got.data {
			if !sameValue(got.data[i], want.data[i], false) {
				t.Fatalf("%s: element %d of dst's memory is %v, plane by plane %v", l.name, i, got.data[i], want.data[i])
			}
		}
	}
}

func TestCastScaleShiftPlanesErrors(t *testing.T) {
	src, _ := ViewOf(make([]uint8, 48), 3, 4, 4)
	dst, _ := ViewOf(make([]float32, 48), 3, 4, 4)
	three := []float32{1, 1, 1}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"two scales", CastScaleShiftPlanes(dst, src, three[:2], three), "3 planes, 2 scales and 3 shifts"},
		{"four shifts", CastScaleShiftPlanes(dst, src, three, append(three, 1)), "3 planes, 3 scales and 4 shifts"},
		{"shapes", CastScaleShiftPlanes(dst, func() View[uint8] { v, _ := ViewOf(make([]uint8, 48), 4, 3, 4); return v }(), three, three), "one shape"},
		{"dst planes of stride 0", CastScaleShiftPlanes(func() View[float32] {
			v, _ := NewView(make([]float32, 16), 0, []int64{3, 4, 4}, []int64{0, 4, 1})
			return v
		}(), src, three, three), "stride 0"},
		{"0-d", CastScaleShiftPlanes(func() View[float32] { v, _ := ViewOf(make([]float32, 1), []int64{}...); return v }(),
			func() View[uint8] { v, _ := ViewOf(make([]uint8, 1), []int64{}...); return v }(), nil, nil), "0-d views"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, tc.err, tc.want)
		}
	}
}

// A 4x4x3 image's normalize in one call allocates nothing.
func TestCastScaleShiftPlanesAllocatesNothing(t *testing.T) {
	hwc, _ := NewView(make([]uint8, 4*8*3), 0, []int64{4, 4, 3}, []int64{24, 6, 1}) // [:, ::2]
	chw, _ := hwc.Permute(2, 0, 1)
	dst, _ := ViewOf(make([]float32, 48), 3, 4, 4)
	if n := testing.AllocsPerRun(100, func() {
		if err := normalizePlanes(dst, chw); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations a normalize", n)
	}
}
