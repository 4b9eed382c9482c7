package vec

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// The short paths of the walks (lines2, Lines of a matrix, the element loops of
// ClipView and ScaleShiftView under shortLine, fromSmallTensor, ViewOf's
// contiguous view) against the definition of a view, element by element, on
// the layouts they take: 0 and 1 elements, negative, zero and step-2 strides,
// in place and into another view.

// smallLayouts are 1- and 2-d views over 40 float32 with NaN and out-of-range
// values among them, by name.
func smallLayouts(t *testing.T) (map[string]View[float32], []float32) {
	t.Helper()
	data := make([]float32, 40)
	for i := range data {
		data[i] = float32(i)/20 - 0.5
	}
	data[7] = float32(math.NaN())
	mk := func(off int, shape, strides []int64) View[float32] {
		v, err := NewView(data, off, shape, strides)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return map[string]View[float32]{
		"empty 0x4":      mk(0, []int64{0, 4}, []int64{8, 2}),
		"empty 4x0":      mk(0, []int64{4, 0}, []int64{8, 2}),
		"one element":    mk(5, []int64{1, 1}, []int64{8, 2}),
		"1-d step 2":     mk(1, []int64{5}, []int64{2}),
		"0-d":            mk(3, nil, nil),
		"4x4 step 2":     mk(0, []int64{4, 4}, []int64{8, 2}),
		"4x4 reversed":   mk(39, []int64{4, 4}, []int64{-8, -2}),
		"4x3 step 3":     mk(2, []int64{4, 3}, []int64{9, 3}),
		"3x5 columns":    mk(0, []int64{3, 5}, []int64{1, 3}),
		"1x7 step 2":     mk(4, []int64{1, 7}, []int64{3, 2}),
		"5x1 step 4":     mk(0, []int64{5, 1}, []int64{4, 9}),
		"merged 2x4x2":   mk(0, []int64{2, 4}, []int64{8, 2}),
		"4x20 step 2":    mk(0, []int64{2, 20}, []int64{1, 2}),
		"contiguous 4x4": mk(8, []int64{4, 4}, nil),
	}, data
}

// eachIndex calls fn with each index of shape in C order and its position.
func eachIndex(shape []int64, fn func(p int, idx []int)) {
	n, _ := dlpack.NumElements(shape)
	for p := range int(n) {
		fn(p, index(shape, p))
	}
}

func sameBits32(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

func TestSmallWalksByDefinition(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		layouts, data := smallLayouts(t)
		for name, src := range layouts {
			shape := src.Shape()
			for _, inPlace := range []bool{true, false} {
				want := map[string][]float32{}
				orig := slices.Clone(data)
				eachIndex(shape, func(_ int, idx []int) {
					x := at(src, idx...)
					want["clip"] = append(want["clip"], clip(x, 0.1, 0.6))
					want["scaleShift"] = append(want["scaleShift"], fma32(x, 1.5, -0.25))
				})
				for op, w := range want {
					copy(data, orig)
					dst := src
					if !inPlace {
						dst, _ = NewView(make([]float32, src.Len()), 0, shape, nil)
					}
					var err error
					if op == "clip" {
						err = ClipView(dst, src, 0.1, 0.6)
					} else {
						err = ScaleShiftView(dst, src, 1.5, -0.25)
					}
					if err != nil {
						t.Fatalf("%s %s: %v", name, op, err)
					}
					eachIndex(shape, func(p int, idx []int) {
						if got := at(dst, idx...); !sameBits32(got, w[p]) {
							t.Fatalf("%s %s (in place %v): element %v is %v, want %v", name, op, inPlace, idx, got, w[p])
						}
					})
					if inPlace { // the elements between the view's are untouched
						touched := map[int]bool{}
						eachIndex(shape, func(_ int, idx []int) {
							off := src.offset
							for i, x := range idx {
								off += x * src.dims.strides()[i]
							}
							touched[off] = true
						})
						for i := range data {
							if !touched[i] && !sameBits32(data[i], orig[i]) {
								t.Fatalf("%s %s: element %d outside the view changed", name, op, i)
							}
						}
					}
				}
			}
			// Lines: each line of the last dimension, its index in C order.
			var got [][]float32
			if err := Lines(src, func(i int, line []float32) error {
				if i != len(got) {
					t.Fatalf("%s: line %d after %d lines", name, i, len(got))
				}
				got = append(got, slices.Clone(line))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var lines [][]float32
			if len(shape) == 0 {
				lines = [][]float32{{at(src)}}
			} else if !slices.Contains(shape, 0) {
				eachIndex(shape, func(_ int, idx []int) {
					if idx[len(idx)-1] == 0 {
						lines = append(lines, nil)
					}
					lines[len(lines)-1] = append(lines[len(lines)-1], at(src, idx...))
				})
			}
			if len(got) != len(lines) {
				t.Fatalf("%s: %d lines, want %d", name, len(got), len(lines))
			}
			for i := range lines {
				if !slices.EqualFunc(got[i], lines[i], sameBits32) {
					t.Fatalf("%s: line %d is %v, want %v", name, i, got[i], lines[i])
				}
			}
		}
	})
}

// A zero stride on a dst dimension of 2 or more is refused before anything is
// written, on the short paths as on the others; a zero View is errUnset.
func TestSmallWalkErrors(t *testing.T) {
	data := []float32{-1, 2, 3, 4}
	bcast, _ := NewView(data, 0, []int64{2, 2}, []int64{0, 1})
	src, _ := ViewOf([]float32{1, 2, 3, 4}, 2, 2)
	if err := ClipView(bcast, src, 0, 1); err == nil || !strings.Contains(err.Error(), "stride 0") {
		t.Fatalf("a broadcast dst: %v", err)
	}
	if !slices.Equal(data, []float32{-1, 2, 3, 4}) {
		t.Fatalf("a refused dst was written: %v", data)
	}
	if err := ScaleShiftView(View[float32]{}, src, 1, 0); err != errUnset {
		t.Fatalf("a zero dst: %v", err)
	}
	if err := ClipView(src, View[float32]{}, 0, 1); err == nil {
		t.Fatal("a zero src: no error")
	}
	// A zero stride in a source is a broadcast, walked as any other.
	row, _ := NewView([]float32{5, -5, 0.5}, 0, []int64{2, 3}, []int64{0, 1})
	out, _ := ViewOf(make([]float32, 6), 2, 3)
	if err := ClipView(out, row, 0, 1); err != nil || !slices.Equal(out.data, []float32{1, 0, 0.5, 1, 0, 0.5}) {
		t.Fatalf("a broadcast source: %v %v", err, out.data)
	}
}

// fromSmallTensor's view is FromPointer's, and what it does not take (no
// elements, large strides, nil data, more dimensions) FromPointer decides.
func TestFromTensorSmallPath(t *testing.T) {
	x := make([]float32, 64)
	p := unsafe.Pointer(&x[32])
	for _, c := range []struct{ shape, strides []int64 }{
		{[]int64{4, 4}, []int64{8, 2}},
		{[]int64{4, 4}, []int64{-8, -1}},
		{[]int64{3, 2}, []int64{0, 1}},
		{[]int64{1}, []int64{1 << 40}},
		{[]int64{0, 4}, []int64{1 << 40, 1}},
		{[]int64{2, 0}, []int64{3, 1}},
		{[]int64{}, []int64{}},
		{[]int64{2, 1, 2, 1, 2}, []int64{8, 1, 2, 1, 1}},
	} {
		want, werr := FromPointer[float32](p, c.shape, c.strides)
		for path, x := range bothPaths(&tensorOf{p, c.shape, c.strides}) {
			got, err := FromTensor[float32](x)
			if (err == nil) != (werr == nil) || !slices.Equal(got.Shape(), want.Shape()) ||
				!slices.Equal(got.Strides(), want.Strides()) || got.offset != want.offset || len(got.data) != len(want.data) ||
				(len(got.data) > 0 && &got.data[0] != &want.data[0]) {
				t.Errorf("%v %v, path %d: FromTensor %v %v, FromPointer %v %v", c.shape, c.strides, path, got, err, want, werr)
			}
		}
	}
	for path := range 2 {
		if _, err := FromTensor[float32](bothPaths(&tensorOf{nil, []int64{2, 2}, []int64{2, 1}})[path]); err == nil {
			t.Errorf("path %d: nil data with elements: no error", path)
		}
		if _, err := FromTensor[float32](bothPaths(&tensorOf{p, []int64{-1, 2}, []int64{2, 1}})[path]); err == nil {
			t.Errorf("path %d: a negative extent: no error", path)
		}
	}
}

// ViewOf's contiguous view is NewView's, and errors alike.
func TestViewOfSmallPath(t *testing.T) {
	s := make([]float64, 24)
	for _, shape := range [][]int64{nil, {24}, {2, 3, 4}, {1, 24, 1, 1}, {2, 1, 3, 1, 4}} {
		got, err := ViewOf(s, shape...)
		full := shape
		if full == nil {
			full = []int64{24}
		}
		want, werr := NewView(s, 0, full, nil)
		if err != nil || werr != nil || !slices.Equal(got.Shape(), want.Shape()) || !slices.Equal(got.Strides(), want.Strides()) {
			t.Errorf("%v: %v %v, want %v %v", shape, got, err, want, werr)
		}
	}
	if _, err := ViewOf(s, -2, -12); err == nil {
		t.Error("negative extents: no error")
	}
	if _, err := ViewOf(s[:0], -1, 0); err == nil {
		t.Error("a negative extent of no elements: no error")
	}
}
