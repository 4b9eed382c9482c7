package vec

import (
	"slices"
	"testing"
)

// memoryOrderLayouts are views of 4x6x10 float32s (every element distinct) in
// the layouts a walk must take in memory order: a transposed matrix, a permuted
// 3-d tensor, reversed axes, a transposed step-2 slice, and the C-contiguous
// one, over a slice of their own each.
func memoryOrderLayouts(t *testing.T) map[string]View[float32] {
	t.Helper()
	mem := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(i%97) - 40.25
		}
		return s
	}
	c, _ := ViewOf(mem(240), 4, 6, 10)
	mat, _ := ViewOf(mem(60), 6, 10)
	matT, _ := mat.Permute(1, 0)
	perm, _ := c.Permute(2, 0, 1)
	rev, _ := NewView(mem(240), 239, []int64{4, 6, 10}, []int64{-60, -10, -1})
	revT, _ := NewView(mem(240), 9, []int64{10, 4, 6}, []int64{-1, 60, 10})
	step2, _ := NewView(mem(240), 0, []int64{10, 12}, []int64{2, 20}) // [:, ::2] of 12x20, transposed
	return map[string]View[float32]{"C": c, "transposed": matT, "permuted": perm, "reversed": rev,
		"reversed permuted": revT, "step-2 transposed": step2}
}

// offsetsOf is v's element offsets in C order of its indexes.
func offsetsOf[T any](v View[T]) []int {
	var offs []int
	eachIndex(v.Shape(), func(_ int, idx []int) {
		off := v.offset
		for i, x := range idx {
			off += x * v.dims.strides()[i]
		}
		offs = append(offs, off)
	})
	return offs
}

// Every view operation over every layout of dst and source (in place, into a
// C-contiguous dst, into a transposed one, from a broadcast source) gives what
// the definition gives element by element, whatever order the walk takes.
func TestMemoryOrderWalksByDefinition(t *testing.T) {
	const lo, hi, k, c = -10, 20, 1.5, -0.25
	ops := map[string]struct {
		view func(d, s View[float32]) error
		one  func(x float32) float32
	}{
		"Map(Scale)": {func(d, s View[float32]) error {
			return Map(d, s, func(d, s []float32) error { return Scale(d, s, k) })
		}, func(x float32) float32 { return x * k }},
		"ClipView":       {func(d, s View[float32]) error { return ClipView(d, s, lo, hi) }, func(x float32) float32 { return clip[float32](x, lo, hi) }},
		"ScaleShiftView": {func(d, s View[float32]) error { return ScaleShiftView(d, s, k, c) }, func(x float32) float32 { return fma[float32](x, k, c) }},
		"CastScaleShiftView": {func(d, s View[float32]) error { return CastScaleShiftView(d, s, k, c) },
			func(x float32) float32 { return fma[float32](x, k, c) }},
		"Map2(Add, itself)": {func(d, s View[float32]) error {
			return Map2(d, s, s, func(d, a, b []float32) error { return Add(d, a, b) })
		}, func(x float32) float32 { return x + x }},
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for name, src := range memoryOrderLayouts(t) {
			bcast, _ := NewView(src.data, src.offset, src.Shape(), append(make([]int64, src.dims.nd-1), src.Strides()[src.dims.nd-1]))
			for opName, op := range ops {
				for _, into := range []string{"in place", "C-contiguous", "transposed", "from broadcast"} {
					s := src
					s.data = slices.Clone(src.data)
					if into == "from broadcast" {
						s = bcast
						s.data = slices.Clone(bcast.data)
					}
					before := slices.Clone(s.data)
					d := s
					switch into {
					case "C-contiguous", "from broadcast":
						d, _ = ViewOf(make([]float32, s.Len()), s.Shape()...)
					case "transposed": // dst's axes reversed against src's
						axes := make([]int, s.dims.nd)
						for i := range axes {
							axes[i] = s.dims.nd - 1 - i
						}
						shape := s.Shape()
						rs := slices.Clone(shape)
						slices.Reverse(rs)
						m, _ := ViewOf(make([]float32, s.Len()), rs...)
						d, _ = m.Permute(axes...)
					}
					if err := op.view(d, s); err != nil {
						t.Fatalf("%s %s %s: %v", opName, name, into, err)
					}
					so, do := offsetsOf(s), offsetsOf(d)
					for i := range so {
						want := op.one(before[so[i]])
						if got := d.data[do[i]]; !sameBits32(got, want) {
							t.Fatalf("%s %s %s: element %d is %v, want %v", opName, name, into, i, got, want)
						}
					}
				}
			}
		}
	})
}

// A permuted or reversed C-contiguous tensor, operated on in place, walks as
// one contiguous run (a transposed 4096x2048 one walked line by line across
// its rows cost 60-90x the contiguous one); into a C-contiguous dst, the walk
// follows dst's rows.
func TestMemoryOrderRuns(t *testing.T) {
	for name, v := range memoryOrderLayouts(t) {
		runs, steps := 0, map[int]bool{}
		if err := Map(v, v, func(d, s []float32) error { runs++; return Scale(d, s, 1) }); err != nil {
			t.Fatal(err)
		}
		if runs != 1 { // the step-2 one: every other element of its memory, one line at step 2
			t.Errorf("%s in place: %d runs, want 1", name, runs)
		}
		dst, _ := ViewOf(make([]float32, v.Len()), v.Shape()...)
		_ = forLines(v.dims.shape(), dstOrder, [][]int{dst.dims.strides(), v.dims.strides()}, []int{0, v.offset},
			func(_ int, _ [maxOps]int, _ int, st [maxOps]int) error { steps[st[0]] = true; return nil })
		if !steps[1] || len(steps) != 1 {
			t.Errorf("%s into a C-contiguous dst: dst steps %v, want 1", name, steps)
		}
	}
}

// A dst that overlaps its source without being it (a shifted or transposed
// view of the same memory) is walked in C order, line by line as before walks
// were planned: its result is the one it was, the C-order line-at-a-time
// result (each line of the source read whole before the line is written).
func TestMemoryOrderOverlapKeepsCOrder(t *testing.T) {
	const n = 7
	x := make([]float32, 8*8)
	for i := range x {
		x[i] = float32(i)
	}
	// dst[i][j] = x[j][1+i] (a transposed view), src[i][j] = x[i][j]
	dst, _ := NewView(x, 1, []int64{n, n}, []int64{1, 8})
	src, _ := NewView(x, 0, []int64{n, n}, []int64{8, 1})
	want := slices.Clone(x)
	for i := range n {
		line := slices.Clone(want[i*8 : i*8+n])
		for j := range n {
			want[j*8+1+i] = 2 * line[j]
		}
	}
	if err := Map(dst, src, func(d, s []float32) error { return Scale(d, s, 2) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, want) {
		t.Fatalf("overlapping transposed dst:\n got %v\nwant %v", x, want)
	}
	// A C-contiguous dst from a transposed src of the same memory: no tiles
	// (their reads run ahead of the writes); dst[i][j] = x[1+i][j], src[i][j] = x[j][i].
	for i := range x {
		x[i] = float32(i)
	}
	rows, _ := NewView(x, 8, []int64{n, n}, []int64{8, 1})
	cols, _ := NewView(x, 0, []int64{n, n}, []int64{1, 8})
	want = slices.Clone(x)
	for i := range n {
		var line [n]float32
		for j := range n {
			line[j] = want[j*8+i]
		}
		for j := range n {
			want[(1+i)*8+j] = 2 * line[j]
		}
	}
	if err := Map(rows, cols, func(d, s []float32) error { return Scale(d, s, 2) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, want) {
		t.Fatalf("overlapping transposed src:\n got %v\nwant %v", x, want)
	}
	// Map2 and a dst that overlaps only one source: the same rule.
	for i := range x {
		x[i] = float32(i)
	}
	other, _ := ViewOf(make([]float32, n*n), n, n)
	if err := Map2(dst, src, other, func(d, a, b []float32) error { return Add(d, a, b) }); err != nil {
		t.Fatal(err)
	}
	want2 := make([]float32, len(x))
	for i := range want2 {
		want2[i] = float32(i)
	}
	for i := range n {
		line := slices.Clone(want2[i*8 : i*8+n])
		for j := range n {
			want2[j*8+1+i] = line[j]
		}
	}
	if !slices.Equal(x, want2) {
		t.Fatalf("Map2 overlapping transposed dst:\n got %v\nwant %v", x, want2)
	}
}

// Lines over every layout, the transposed ones gathered a tile of lines at a
// time: each line's elements and index as the definition has them, in C order,
// for line counts that are and are not a multiple of the tile.
func TestMemoryOrderLines(t *testing.T) {
	layouts := memoryOrderLayouts(t)
	big := make([]float32, 37*21)
	for i := range big {
		big[i] = float32(i)
	}
	m, _ := ViewOf(big, 37, 21)
	layouts["transposed 21x37"], _ = m.Permute(1, 0)
	b3, _ := ViewOf(big, 3, 7, 37)
	layouts["permuted (0, 2, 1)"], _ = b3.Permute(0, 2, 1)
	layouts["reversed transposed"], _ = NewView(big, 36*21+20, []int64{21, 37}, []int64{-1, -21})
	for name, v := range layouts {
		shape := v.Shape()
		n := int(shape[len(shape)-1])
		offs := offsetsOf(v)
		next := 0
		err := Lines(v, func(i int, line []float32) error {
			if i != next || len(line) != n {
				t.Fatalf("%s: line %d of %d elements, want line %d of %d", name, i, len(line), next, n)
			}
			for j, x := range line {
				if want := v.data[offs[i*n+j]]; x != want {
					t.Fatalf("%s: line %d element %d is %v, want %v", name, i, j, x, want)
				}
			}
			next++
			return nil
		})
		if err != nil || next*n != v.Len() {
			t.Fatalf("%s: %v, %d lines", name, err, next)
		}
	}
}

// The layouts of bench_vec.py's memory-order rows, 4096x2048 float32: the
// same operation on a C-contiguous matrix, its transpose, and both axes
// reversed, in place and into a new C-contiguous matrix, and the row sums of
// Lines. go test -bench MemoryOrder -run X ./dlpack/vec/
func BenchmarkMemoryOrder(b *testing.B) {
	const r, c = 4096, 2048
	x := make([]float32, r*c)
	for i := range x {
		x[i] = float32(i % 1000)
	}
	cont, _ := ViewOf(x, r, c)
	m, _ := ViewOf(x, c, r)
	tr, _ := m.Permute(1, 0)
	rev, _ := NewView(x, r*c-1, []int64{r, c}, []int64{-c, -1})
	out, _ := ViewOf(make([]float32, r*c), r, c)
	sums := make([]float64, r)
	for _, l := range []struct {
		name string
		v    View[float32]
	}{{"contiguous", cont}, {"transposed", tr}, {"reversed", rev}} {
		b.Run("scale_/"+l.name, func(b *testing.B) {
			b.SetBytes(4 * r * c)
			for b.Loop() {
				_ = Map(l.v, l.v, func(d, s []float32) error { return Scale(d, s, 1) })
			}
		})
		b.Run("scale_shift/"+l.name, func(b *testing.B) {
			b.SetBytes(4 * r * c)
			for b.Loop() {
				_ = ScaleShiftView(out, l.v, 1, 0)
			}
		})
		b.Run("row_sums/"+l.name, func(b *testing.B) {
			b.SetBytes(4 * r * c)
			for b.Loop() {
				_ = Lines(l.v, func(i int, line []float32) error { sums[i] = Sum(line); return nil })
			}
		})
	}
}

// SumView sums in memory order: a permuted or reversed C-contiguous view's sum
// is the bits of Sum of its memory; a strided one's is the sum of its runs'
// sums; a 0-d and an empty view's are their element and 0.
func TestSumViewMemoryOrder(t *testing.T) {
	for name, v := range memoryOrderLayouts(t) {
		got, err := SumView(v)
		if err != nil {
			t.Fatal(err)
		}
		want := Sum(v.data)
		if name == "step-2 transposed" { // every other element of its memory, one run at step 2
			var every []float32
			for i := 0; i < len(v.data); i += 2 {
				every = append(every, v.data[i])
			}
			want = Sum(every)
		}
		if got != want {
			t.Errorf("%s: SumView %v, want %v", name, got, want)
		}
		like := StridesLike(v)
		d, err := NewView(make([]float32, v.Len()), 0, v.Shape(), like)
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		oneRun := name == "C" || name == "transposed" || name == "permuted" // not reversed (StridesLike's are positive) nor gapped
		if err := Map(d, v, func(d, s []float32) error { runs++; return Copy(d, s) }); err != nil || oneRun && runs != 1 {
			t.Errorf("%s: into StridesLike %v: %d runs, %v", name, like, runs, err)
		}
	}
	x := []float64{1, 2, 3, 4, 5, 6}
	zero, _ := NewView(x, 4, nil, nil)
	empty, _ := ViewOf(x[:0], 0, 3)
	rows, _ := NewView(x, 0, []int64{2, 2}, []int64{3, 1}) // rows with gaps: two runs
	for _, c := range []struct {
		v    View[float64]
		want float64
	}{{zero, 5}, {empty, 0}, {rows, 1 + 2 + 4 + 5}} {
		if got, err := SumView(c.v); err != nil || got != c.want {
			t.Errorf("SumView of %v %v: %v, %v; want %v", c.v.Shape(), c.v.Strides(), got, err, c.want)
		}
	}
	if _, err := SumView(View[float32]{data: nil, dims: newDims(1)}); err != nil {
		t.Errorf("a View of no elements: %v", err)
	}
}

// A dst whose indexes reach one element several times (strides 1 and 2 over
// 3x3: not one-to-one) is not reordered (walkplan.Plan keeps C order), so an
// operation whose result depends on the order keeps its answer from before
// walks were planned: here each line adds its call's number, C order's lines
// being x[i], x[i+2], x[i+4] for i = 0, 1, 2 (sorted by stride, they would be
// x[2j..2j+2], and give another answer).
func TestMemoryOrderSelfOverlappingDst(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6, 7}
	v, _ := NewView(x, 0, []int64{3, 3}, []int64{1, 2})
	calls := float32(0)
	if err := Map(v, v, func(d, s []float32) error { calls++; return AddScalar(d, s, calls) }); err != nil {
		t.Fatal(err)
	}
	if want := []float32{1 + 1, 2 + 2, 3 + 1 + 3, 4 + 2, 5 + 1 + 3, 6 + 2, 7 + 3}; !slices.Equal(x, want) {
		t.Fatalf("got %v, want %v", x, want)
	}
}
