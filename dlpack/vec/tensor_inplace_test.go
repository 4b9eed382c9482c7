package vec

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"
)

// ClipTensor, and ClipView's and ScaleShiftView's in-place walks (the step-2
// rows kernel), against the definition element by element: 1- and 2-d layouts
// of every kind smallLines takes or refuses, each tensor's memory ending at its
// last element (the masked kernel's window then ends there too), at every SIMD
// level, with the elements between the tensor's untouched.

// inPlaceLayout is a 1- or 2-d layout: shape and strides, in elements.
type inPlaceLayout struct{ shape, strides []int64 }

// inPlaceLayouts are the layouts: contiguous, merged, short and long lines at
// steps 1 to 3, lines as close as they may be (a step-2 line of n spans 2n-1),
// columns, rows interleaved (refused: the View walks them) and reversed.
func inPlaceLayouts() []inPlaceLayout {
	var out []inPlaceLayout
	for _, c := range []int64{1, 2, 3, 4, 5, 8, 9, 17} {
		out = append(out, inPlaceLayout{[]int64{c}, []int64{2}}, inPlaceLayout{[]int64{c}, []int64{1}})
		for _, r := range []int64{1, 2, 3, 4, 5, 9} {
			for _, step := range []int64{1, 2, 3} {
				span := (c-1)*step + 1
				for _, next := range []int64{span, span + 1, c * step, 2*span + 3} {
					out = append(out, inPlaceLayout{[]int64{r, c}, []int64{next, step}})
				}
			}
			out = append(out,
				inPlaceLayout{[]int64{r, c}, []int64{1, r}},       // columns: F order
				inPlaceLayout{[]int64{r, c}, []int64{1, 2 * r}},   // rows interleaved
				inPlaceLayout{[]int64{r, c}, []int64{-2 * c, -2}}, // reversed
				inPlaceLayout{[]int64{c, r}, []int64{2*r + 1, 2}}) // transposed extents
		}
	}
	return out
}

// offsets is each element's offset from the first's address, in C order.
func (l inPlaceLayout) offsets() []int {
	var offs []int
	eachIndex(l.shape, func(_ int, idx []int) {
		off := 0
		for i, x := range idx {
			off += x * int(l.strides[i])
		}
		offs = append(offs, off)
	})
	return offs
}

// inPlaceValues are the values a tensor's memory cycles through: in and out of
// every bound below, NaN, zeros of both signs and infinities.
var inPlaceValues = []float64{0.3, -1, math.NaN(), 0.9, math.Copysign(0, -1), 0, 0.55, math.Inf(1), 2, 0.15, math.Inf(-1), 0.45}

// inPlaceBounds are the clip bounds: neither zero, a zero of each sign (equal
// zeros give the bound), and lo above hi (hi everywhere, as NumPy's).
var inPlaceBounds = [][2]float64{{0.1, 0.6}, {0, 0.5}, {math.Copysign(0, -1), 0.5}, {-0.5, 0}, {0.7, 0.2}}

func TestInPlaceByDefinition(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		t.Run("float32", func(t *testing.T) { checkInPlace(t, fma32) })
		t.Run("float64", func(t *testing.T) { checkInPlace(t, math.FMA) })
	})
}

// checkInPlace runs ClipTensor, ClipView and ScaleShiftView in place on every
// layout and bound, fma the scalar fused multiply-add of T.
func checkInPlace[T Float](t *testing.T, fma func(a, b, c T) T) {
	for _, l := range inPlaceLayouts() {
		offs := l.offsets()
		lo, hi := slices.Min(offs), slices.Max(offs)
		orig := make([]T, hi-lo+1) // ends at the tensor's last element
		for i := range orig {
			orig[i] = T(inPlaceValues[i%len(inPlaceValues)])
		}
		data := slices.Clone(orig)
		x := laidOut{&tensorOf{unsafe.Pointer(&data[-lo]), l.shape, l.strides}}
		for _, b := range inPlaceBounds {
			bLo, bHi := T(b[0]), T(b[1])
			for _, op := range []string{"ClipTensor", "ClipView", "ScaleShiftView"} {
				copy(data, orig)
				var err error
				if op == "ClipTensor" {
					err = ClipTensor(x, bLo, bHi)
				} else if v, verr := FromTensor[T](x); verr != nil {
					t.Fatal(verr)
				} else if op == "ClipView" {
					err = ClipView(v, v, bLo, bHi)
				} else {
					err = ScaleShiftView(v, v, bLo, bHi)
				}
				if err != nil {
					t.Fatalf("%v %s: %v", l, op, err)
				}
				want := slices.Clone(orig)
				for _, off := range offs {
					if op == "ScaleShiftView" {
						want[off-lo] = fma(orig[off-lo], bLo, bHi)
					} else {
						want[off-lo] = clip(orig[off-lo], bLo, bHi)
					}
				}
				for i := range data { // the tensor's elements, and the others untouched
					if !oneValue(data[i], want[i]) {
						t.Fatalf("%v %s [%v, %v]: memory[%d] = %v, want %v (was %v)", l, op, bLo, bHi, i, data[i], want[i], orig[i])
					}
				}
			}
		}
	}
}

// oneValue is whether a and b are one value, bit for bit (NaN's payload and
// the sign of zero included).
func oneValue[T Float](a, b T) bool {
	if unsafe.Sizeof(a) == 4 {
		return math.Float32bits(float32(a)) == math.Float32bits(float32(b))
	}
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

// An integer tensor takes the same paths with no kernel for its step-2 lines.
func TestClipTensorInt32(t *testing.T) {
	for _, l := range inPlaceLayouts() {
		offs := l.offsets()
		lo, hi := slices.Min(offs), slices.Max(offs)
		data := make([]int32, hi-lo+1)
		for i := range data {
			data[i] = int32(i*7%23 - 11)
		}
		orig := slices.Clone(data)
		if err := ClipTensor(laidOut{&tensorOf{unsafe.Pointer(&data[-lo]), l.shape, l.strides}}, int32(-5), int32(6)); err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		want := slices.Clone(orig)
		for _, off := range offs {
			want[off-lo] = min(max(orig[off-lo], -5), 6)
		}
		if !slices.Equal(data, want) {
			t.Fatalf("%v: memory %v, want %v", l, data, want)
		}
	}
}

// ClipTensor's errors are ClipView's: a NaN bound, a zero stride over several
// indexes (one element written as many), no data; a 3-d tensor takes the View.
func TestClipTensorErrors(t *testing.T) {
	data := []float32{0.1, 0.9, 0.4, -3, 7, 0.2, 0.3, 0.8}
	at := func(shape, strides []int64) laidOut {
		return laidOut{&tensorOf{unsafe.Pointer(&data[0]), shape, strides}}
	}
	if err := ClipTensor(at([]int64{8}, []int64{1}), float32(math.NaN()), 1); !errors.Is(err, errNaNBound) {
		t.Fatalf("NaN bound: %v", err)
	}
	if err := ClipTensor[float32](at([]int64{2, 4}, []int64{0, 1}), 0, 1); err == nil {
		t.Fatal("a zero stride over 2 rows: no error")
	}
	if err := ClipTensor(laidOut{&tensorOf{nil, []int64{2}, []int64{1}}}, float32(0), 1); err == nil {
		t.Fatal("nil data: no error")
	}
	if err := ClipTensor[float32](at([]int64{2, 2, 2}, []int64{4, 2, 1}), 0, 0.5); err != nil || data[3] != 0 || data[4] != 0.5 || data[1] != 0.5 {
		t.Fatalf("3-d: %v %v", err, data)
	}
}

// smallLines refuses what it cannot take whole (extents and strides past
// smallExtent, products that would overflow, zero and negative steps, lines
// that interleave) and, where it takes a layout, its lines are the tensor's
// elements, each once.
func TestSmallLines(t *testing.T) {
	var p float32
	const big = 6148914691236517206 // 3*big wraps around to 2 in an int64
	refused := []inPlaceLayout{
		{[]int64{3, big}, []int64{big, 1}},
		{[]int64{big, 3}, []int64{3, 1}},
		{[]int64{2, 2}, []int64{1 << 62, 1}},
		{[]int64{smallExtent + 1}, []int64{1}},
		{[]int64{2, 4}, []int64{0, 1}},
		{[]int64{4}, []int64{0}},
		{[]int64{4}, []int64{-1}},
		{[]int64{0, 4}, []int64{4, 1}},
		{[]int64{-1}, []int64{1}},
		{[]int64{2, 3}, []int64{1, 2}},
		{[]int64{2, 2, 2}, []int64{4, 2, 1}},
		{nil, nil},
		{[]int64{2, 3}, []int64{3}},
	}
	for _, l := range refused {
		if _, _, _, _, _, ok := smallLines(unsafe.Pointer(&p), l.shape, l.strides); ok {
			t.Fatalf("%v: taken", l)
		}
	}
	if _, _, _, _, _, ok := smallLines(nil, []int64{1}, []int64{1}); ok {
		t.Fatal("nil data: taken")
	}
	for _, l := range append(inPlaceLayouts(), inPlaceLayout{[]int64{1, 1}, []int64{-7, 1 << 62}}) {
		rows, n, step, next, span, ok := smallLines(unsafe.Pointer(&p), l.shape, l.strides)
		if !ok {
			continue
		}
		var got []int
		for r := range rows {
			for i := range n {
				got = append(got, r*next+i*step)
			}
		}
		want := l.offsets()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || span != want[len(want)-1]+1 {
			t.Fatalf("%v: lines %s span %d, want offsets %v", l, fmt.Sprint(rows, n, step, next), span, want)
		}
	}
}
