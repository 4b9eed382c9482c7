package vec

import (
	"strings"
	"testing"
)

// CastScaleShift and CastScaleShiftView against NumPy (the golden
// cast_scale_shift: each type's a cast by astype, then a*k + c rounded once),
// every source number type into float32 and float64, on every kernel set:
// slices at offsets 0..3 (alignment) and lengths 0..3x the widest vector and
// a few over; 1-d views at steps 1, 2, 3, 5, -1, -2 and 0 into a contiguous dst
// and one of stride -3 (whose elements between are checked untouched); 2-d
// views whose rows do not merge (an image's [:, ::2] channel), longer than a
// block (castBlock) too; in place.
func TestCastScaleShiftAgainstNumPy(t *testing.T) {
	g := loadGolden(t)
	from := map[string]func(t *testing.T, dst string, src []uint64, k, c float64, want []uint64){
		"int8": cssFrom[int8], "uint8": cssFrom[uint8], "int16": cssFrom[int16], "uint16": cssFrom[uint16],
		"int32": cssFrom[int32], "uint32": cssFrom[uint32], "int64": cssFrom[int64], "uint64": cssFrom[uint64],
		"float32": cssFrom[float32], "float64": cssFrom[float64],
	}
	if len(g.CastScaleShift) != 2*len(from) {
		t.Fatalf("%d golden pairs, want every number type to float32 and float64", len(g.CastScaleShift))
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for pair, c := range g.CastScaleShift {
			s, d, _ := strings.Cut(pair, "->")
			t.Run(pair, func(t *testing.T) {
				from[s](t, d, bitsOf(t, g.Types[s].A), c.Scalars[0], c.Scalars[1], bitsOf(t, c.Dst))
			})
		}
	})
}

func cssFrom[S Number](t *testing.T, dst string, src []uint64, k, c float64, want []uint64) {
	switch dst {
	case "float32":
		cssCases(t, fromBits[S](src), fromBits[float32](want), float32(k), float32(c))
	case "float64":
		cssCases(t, fromBits[S](src), fromBits[float64](want), k, c)
	default:
		t.Fatalf("no Go type for %s", dst)
	}
}

func cssCases[D Float, S Number](t *testing.T, src []S, want []D, k, c D) {
	t.Helper()
	for off := range 4 {
		for n := 0; off+n <= len(src) && n <= 3*16+3; n++ {
			got := make([]D, n)
			if err := CastScaleShift(got, src[off:off+n], k, c); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				cssCheck(t, "slice", got[i], want[off+i], src[off+i], off+i)
			}
		}
	}
	for _, step := range []int{1, 2, 3, 5, -1, -2, 0} {
		for off := range 4 {
			for n := 0; n <= 3*16+3; n++ {
				first := off
				if step < 0 {
					first = len(src) - 1 - off
				}
				if n > 0 && (first+(n-1)*step < 0 || first+(n-1)*step >= len(src)) {
					continue
				}
				sv, err := NewView(src, first, []int64{int64(n)}, []int64{int64(step)})
				if err != nil {
					t.Fatal(err)
				}
				idx := func(i int) int { return first + i*step }
				cssIntoContiguous(t, sv, want, src, idx, k, c)
				cssIntoStrided(t, sv, n, want, src, idx, k, c)
			}
		}
	}
	// Rows that do not merge: rows r of a step-2 line each, first elements
	// rowStride apart (an image's [:, ::2] channel); 30x50 of them overlap, a
	// source may, and hold more than a block.
	for _, rc := range [][4]int{{3, 5, 17, 2}, {4, 4, 24, 6}, {30, 50, 1, 3}, {2, 40, 90, -2}} {
		rows, cols, rowStride, step := rc[0], rc[1], rc[2], rc[3]
		first := 0
		if step < 0 {
			first = (cols - 1) * -step
		}
		sv, err := NewView(src, first, []int64{int64(rows), int64(cols)}, []int64{int64(rowStride), int64(step)})
		if err != nil {
			t.Fatal(err)
		}
		idx := func(i int) int { return first + (i/cols)*rowStride + (i%cols)*step }
		cssIntoContiguous(t, sv, want, src, idx, k, c)
		dst := make([]D, rows*cols*2) // column-major and every second element: a walk of lines
		dv, _ := NewView(dst, 0, []int64{int64(rows), int64(cols)}, []int64{2, int64(2 * rows)})
		if err := CastScaleShiftView(dv, sv, k, c); err != nil {
			t.Fatal(err)
		}
		for i := range rows * cols {
			cssCheck(t, "2-d into strided", dst[2*(i/cols)+2*rows*(i%cols)], want[idx(i)], src[idx(i)], idx(i))
		}
	}
	cssInPlace(t, src, want, k, c)
}

// cssIntoContiguous runs CastScaleShiftView from sv into a new C-contiguous
// dst of its shape.
func cssIntoContiguous[D Float, S Number](t *testing.T, sv View[S], want []D, src []S, idx func(int) int, k, c D) {
	t.Helper()
	n := sv.Len()
	got := make([]D, n)
	dv, err := ViewOf(got, sv.Shape()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := CastScaleShiftView(dv, sv, k, c); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		cssCheck(t, "into contiguous", got[i], want[idx(i)], src[idx(i)], idx(i))
	}
}

// cssIntoStrided runs it into a 1-d dst of stride -3 and checks the elements
// between untouched.
func cssIntoStrided[D Float, S Number](t *testing.T, sv View[S], n int, want []D, src []S, idx func(int) int, k, c D) {
	t.Helper()
	const sentinel = -12345
	data := make([]D, 3*n+1)
	for i := range data {
		data[i] = sentinel
	}
	dv, err := NewView(data, 3*max(n-1, 0), []int64{int64(n)}, []int64{-3})
	if err != nil {
		t.Fatal(err)
	}
	if err := CastScaleShiftView(dv, sv, k, c); err != nil {
		t.Fatal(err)
	}
	for j, v := range data {
		i := 3*max(n-1, 0) - j
		if j%3 != 0 || i < 0 || i/3 >= n {
			if v != sentinel {
				t.Fatalf("into stride -3: element %d between the line's is %v", j, v)
			}
			continue
		}
		cssCheck(t, "into stride -3", v, want[idx(i/3)], src[idx(i/3)], idx(i/3))
	}
}

// cssInPlace runs dst = src itself where the types are one: a strided 1-d view
// and [:, ::2] rows.
func cssInPlace[D Float, S Number](t *testing.T, src []S, want []D, k, c D) {
	t.Helper()
	data, ok := any(append([]S(nil), src...)).([]D)
	if !ok {
		return
	}
	v, _ := NewView(data, 1, []int64{3, 30}, []int64{64, 2})
	if err := CastScaleShiftView(v, v, k, c); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		r, j := (i-1)/64, (i-1)%64
		if i >= 1 && r < 3 && j%2 == 0 && j/2 < 30 {
			cssCheck(t, "in place", data[i], want[i], src[i], i)
		} else if !sameValue(data[i], any(src[i]).(D), false) {
			t.Fatalf("in place: element %d, not the view's, changed", i)
		}
	}
}

func cssCheck[D Float, S Number](t *testing.T, what string, got, want D, s S, i int) {
	t.Helper()
	if !sameValue(got, want, false) {
		t.Fatalf("%s: element %d, %v gives %v, NumPy %v", what, i, s, got, want)
	}
}

func TestCastScaleShiftErrors(t *testing.T) {
	if err := CastScaleShift(make([]float32, 3), make([]uint8, 4), 1, 0); err == nil || !strings.Contains(err.Error(), "same length") {
		t.Fatalf("length mismatch: err %v", err)
	}
	src, _ := ViewOf(make([]uint8, 12), 3, 4)
	dst, _ := ViewOf(make([]float32, 12), 4, 3)
	if err := CastScaleShiftView(dst, src, 1, 0); err == nil || !strings.Contains(err.Error(), "one shape") {
		t.Fatalf("shape mismatch: err %v", err)
	}
	bcast, _ := NewView(make([]float32, 4), 0, []int64{3, 4}, []int64{0, 1})
	if err := CastScaleShiftView(bcast, src, 1, 0); err == nil || !strings.Contains(err.Error(), "stride 0") {
		t.Fatalf("dst of stride 0: err %v", err)
	}
	if err := CastScaleShiftView(View[float32]{}, View[uint8]{}, 1, 0); err == nil { // 0-d, no memory
		t.Fatal("zero views: no error")
	}
	empty, _ := ViewOf([]float32{}, 0, 4)
	none, _ := NewView([]uint8{}, 0, []int64{0, 4}, []int64{4, 1})
	if err := CastScaleShiftView(empty, none, 1, 0); err != nil {
		t.Fatalf("no elements: %v", err)
	}
}

// A 4x4x3 image's normalize, channel by channel as bench/vecbench's, allocates
// nothing: its 4x4 call must cost a few tens of ns.
func TestCastScaleShiftViewAllocatesNothing(t *testing.T) {
	hwc, _ := NewView(make([]uint8, 4*8*3), 0, []int64{4, 4, 3}, []int64{24, 6, 1}) // [:, ::2]
	chw, _ := hwc.Permute(2, 0, 1)
	dst, _ := ViewOf(make([]float32, 48), 3, 4, 4)
	if n := testing.AllocsPerRun(100, func() {
		if err := normalizeFused(dst, chw); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations a normalize", n)
	}
}

// CastScaleShiftView from a transposed source into a C-contiguous dst goes a
// tile of the source's lines at a time (castScaleShiftTiles): over several
// tiles each way and their rests, from a .T, a .T of reversed rows and a .T of
// every other column, on every kernel set, every element is CastScaleShift's
// of the same element in C order.
func TestCastScaleShiftViewTransposedTiles(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		cssTiles[float32, uint8](t, 1.0/255, -0.5)
		cssTiles[float32, int16](t, 0.25, 3)
		cssTiles[float64, float32](t, -1.5, 0.125)
		cssTiles[float64, float64](t, 3, -1)
	})
}

func cssTiles[D Float, S Number](t *testing.T, k, c D) {
	t.Helper()
	const rows, cols = 150, 700 // the view's: more than a tile's 64 lines, and a rest
	mem := make([]S, 2*rows*cols)
	for i := range mem {
		mem[i] = S(i*7 + 3)
	}
	m, _ := ViewOf(mem[:rows*cols], cols, rows)
	tr, _ := m.Permute(1, 0)
	rev, _ := NewView(mem, (cols-1)*rows, []int64{rows, cols}, []int64{1, -rows})
	step2, _ := NewView(mem, 0, []int64{rows, cols}, []int64{2, 2 * rows}) // (i, j) is a cols x 2rows matrix's (j, 2i)
	for name, v := range map[string]View[S]{".T": tr, ".T of reversed rows": rev, ".T of every other column": step2} {
		src := make([]S, 0, rows*cols) // v's elements in C order
		if err := Lines(v, func(_ int, line []S) error { src = append(src, line...); return nil }); err != nil {
			t.Fatal(err)
		}
		want := make([]D, len(src))
		if err := CastScaleShift(want, src, k, c); err != nil {
			t.Fatal(err)
		}
		got := make([]D, len(src))
		dv, _ := ViewOf(got, rows, cols)
		if err := CastScaleShiftView(dv, v, k, c); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !sameValue(got[i], want[i], false) {
				t.Fatalf("%T from %T %s: element %d is %v, want %v", got[0], src[0], name, i, got[i], want[i])
			}
		}
	}
}
