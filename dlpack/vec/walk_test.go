package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack"
)

// at is element idx of v, by the view's definition.
func at[T any](v View[T], idx ...int) T {
	off := v.offset
	for i, x := range idx {
		off += x * v.dims.strides()[i]
	}
	return v.data[off]
}

// index is the C-order index of flat position p in shape.
func index(shape []int64, p int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = p % int(shape[i])
		p /= int(shape[i])
	}
	return idx
}

// Map over 3-d views of every layout: an HxWxC image read as CxHxW (the
// normalize of bench/), reversed, sliced, broadcast; into contiguous and
// strided dsts; checked element by element against the definition of a view.
func TestMapLayouts(t *testing.T) {
	const h, w, c = 5, 37, 3
	img := make([]uint8, h*w*c)
	for i := range img {
		img[i] = uint8(i * 7)
	}
	hwc, _ := ViewOf(img, h, w, c)
	chw, err := hwc.Permute(2, 0, 1) // a transposed read
	if err != nil || !slices.Equal(chw.Strides(), []int64{1, w * c, c}) || !slices.Equal(chw.Shape(), []int64{c, h, w}) {
		t.Fatal(err, chw.Strides())
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}} {
		if _, err := hwc.Permute(bad...); err == nil {
			t.Fatalf("Permute%v: no error", bad)
		}
	}
	rev, _ := NewView(img, len(img)-1, []int64{h, w, c}, []int64{-w * c, -c, -1})
	sliced, _ := NewView(img, 1*w*c+2*c, []int64{2, 17, 2}, []int64{2 * w * c, 2 * c, 2})
	bcast, _ := NewView(img, 4, []int64{3, 4, 5}, []int64{0, w * c, 0})
	for name, src := range map[string]View[uint8]{"chw": chw, "reversed": rev, "sliced": sliced, "broadcast": bcast} {
		eachLevel(t, func(t *testing.T, _ int) {
			shape := src.Shape()
			n := src.Len()
			outs := map[string]View[float32]{}
			outs["contiguous"], _ = ViewOf(make([]float32, n), shape...)
			big := make([]float32, 2*n+1)
			outs["strided dst"], _ = NewView(big, 2*n, shape, []int64{-2 * shape[1] * shape[2], -2 * shape[2], -2})
			for dname, dst := range outs {
				calls := 0
				err := Map(dst, src, func(d []float32, s []uint8) error {
					calls++
					if err := Cast(d, s); err != nil {
						return err
					}
					return ScaleShift(d, d, 1.0/255, -0.5)
				})
				if err != nil {
					t.Fatal(err)
				}
				for p := range n {
					idx := index(shape, p)
					want := float32(at(src, idx...))
					want = fma32(want, 1.0/255, -0.5)
					if got := at(dst, idx...); got != want {
						t.Fatalf("%s into %s: element %v is %v, want %v", name, dname, idx, got, want)
					}
				}
				if name == "reversed" && dname == "contiguous" && calls != 1 {
					t.Fatalf("a reversed contiguous source into a contiguous dst: %d runs, want 1 (gathered)", calls)
				}
			}
		})
	}
}

// Lines gives each last-axis line with its C-order index, contiguous ones as
// the view's own memory.
func TestLines(t *testing.T) {
	x := make([]float64, 4*6*5)
	for i := range x {
		x[i] = float64(i)
	}
	v, _ := ViewOf(x, 4, 6, 5)
	seen := 0
	err := Lines(v, func(i int, line []float64) error {
		if i != seen || len(line) != 5 || line[0] != float64(5*i) || &line[0] != &x[5*i] {
			t.Fatalf("line %d (seen %d): %v", i, seen, line)
		}
		seen++
		return nil
	})
	if err != nil || seen != 24 {
		t.Fatal(err, seen)
	}
	tr, _ := NewView(x, 0, []int64{5, 24}, []int64{1, 5}) // columns: strided lines
	err = Lines(tr, func(i int, line []float64) error {
		for j, v := range line {
			if v != float64(i+5*j) {
				t.Fatalf("column %d element %d: %v", i, j, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	zero, _ := NewView(x, 7, nil, nil) // 0-d: one line of one element
	calls := 0
	_ = Lines(zero, func(i int, line []float64) error { calls++; return nil })
	if calls != 1 {
		t.Fatalf("0-d view: %d lines", calls)
	}
	empty, _ := ViewOf([]float64{}, 3, 0)
	_ = Lines(empty, func(int, []float64) error { t.Fatal("a line of an empty view"); return nil })
}

func TestViewErrors(t *testing.T) {
	x := make([]float32, 12)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"out of range", second(NewView(x, 0, []int64{4, 4}, nil)), "reaches elements 0..15"},
		{"negative reach", second(NewView(x, 2, []int64{4}, []int64{-1})), "reaches elements -1..2"},
		{"negative dim", second(NewView(x, 0, []int64{-1}, nil)), "non-negative"},
		{"strides", second(NewView(x, 0, []int64{3}, []int64{1, 1})), "one stride a dimension"},
		{"shape", second(ViewOf(x, 5, 2)), "holds 10 elements"},
		// Reaches and counts past int64 are refused, not wrapped around into a
		// reach or count that looks small (0 here: the slice's own).
		{"reach overflows", second(NewView(x, 0, []int64{1<<62 + 1}, []int64{4})), "overflows int64"},
		{"count overflows", second(NewView(x, 0, []int64{1 << 32, 1 << 32}, []int64{0, 0})), "overflows int64"},
		{"shape overflows", second(ViewOf(x[:0], 1<<32, 1<<32)), "overflows int64"},
		{"negative shape", second(ViewOf(x, -2, -6)), "negative dimension"},
		{"slab", second(mustView(t, x).Slab(3, 13)), "slab 3:13"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
	a, _ := ViewOf(x, 3, 4)
	b, _ := ViewOf(x, 4, 3)
	copyOp := func(d, s []float32) error { return Copy(d, s) }
	if err := Map(a, b, copyOp); err == nil || !strings.Contains(err.Error(), "one shape") {
		t.Errorf("shape mismatch: %v", err)
	}
	bc, _ := NewView(x, 0, []int64{3, 4}, []int64{0, 1})
	if err := Map(bc, a, copyOp); err == nil || !strings.Contains(err.Error(), "stride 0") {
		t.Errorf("dst of stride 0: %v", err)
	}
	var unset View[float32]
	if err := Map(unset, unset, copyOp); err != errUnset {
		t.Errorf("zero View: %v", err)
	}
	if err := Map(a, a, func(d, s []float32) error { return errDivByZero }); err != errDivByZero {
		t.Errorf("op's error: %v", err)
	}
}

func second[A any](_ A, err error) error { return err }

func mustView[T any](t *testing.T, s []T) View[T] {
	v, err := ViewOf(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// FromPointer reads a tensor's memory with DLPack's strides: negative ones
// start the slice before the first element.
func TestFromPointer(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	v, err := FromPointer[float64](unsafe.Pointer(&x[5]), []int64{2, 3}, []int64{-3, -1})
	if err != nil {
		t.Fatal(err)
	}
	if at(v, 0, 0) != 5 || at(v, 1, 2) != 0 || at(v, 0, 2) != 3 {
		t.Fatalf("view %v", v)
	}
	c, err := FromPointer[float64](unsafe.Pointer(&x[0]), []int64{3, 2}, nil)
	if s, ok := c.Slice(); err != nil || !ok || len(s) != 6 || &s[0] != &x[0] {
		t.Fatalf("contiguous: %v %v", err, ok)
	}
	if _, err := FromPointer[float64](nil, []int64{2}, nil); err == nil {
		t.Fatal("nil data: no error")
	}
	if e, err := FromPointer[float64](nil, []int64{0, 4}, nil); err != nil || e.Len() != 0 {
		t.Fatalf("empty tensor with nil data: %v", err)
	}
}

// Parallel covers [0, n) once, on several goroutines above the threshold.
func TestParallel(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 3<<20 + 7} {
		covered := make([]atomic.Int32, n)
		Parallel(n, 4, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				covered[i].Add(1)
			}
		})
		for i := range covered {
			if covered[i].Load() != 1 {
				t.Fatalf("n %d: index %d covered %d times", n, i, covered[i].Load())
			}
		}
	}
	if th := ParallelThreshold(); th < 64<<10 || th > 8<<20 {
		t.Fatalf("threshold %d", th)
	}
}

// SumParallel is Sum's bits; ParallelOver covers a slice once from any start.
func TestSumParallel(t *testing.T) {
	x := make([]float64, 3<<20+12345)
	for i := range x {
		x[i] = 1 / float64(i+1)
	}
	for _, s := range [][]float64{x, x[3:], x[:1000], x[:0]} {
		if got, want := SumParallel(s), Sum(s); got != want {
			t.Fatalf("n %d: SumParallel %v, Sum %v", len(s), got, want)
		}
		covered := make([]atomic.Int32, len(s))
		ParallelOver(s, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				covered[i].Add(1)
			}
		})
		for i := range covered {
			if covered[i].Load() != 1 {
				t.Fatalf("n %d: index %d covered %d times", len(s), i, covered[i].Load())
			}
		}
	}
}

// A float32 SumParallel is Sum's bits too: its 2 MiB parts split at Sum's
// float32 leaves (16384 elements), not the float64 ones' 256.
func TestSumParallelFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	x := make([]float32, 3<<20+12345)
	for i := range x { // magnitudes 1e-20..1e20 of both signs: any other grouping shows
		x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(41)-20)))
	}
	for _, s := range [][]float32{x, x[3:], x[:leaf32+1], x[:1000], x[:0]} {
		if got, want := SumParallel(s), Sum(s); got != want {
			t.Fatalf("n %d: SumParallel %v, Sum %v", len(s), got, want)
		}
	}
}

// A run longer than a gather chunk is done once: in place, each element is
// scaled once (a walk that went over a long run again scaled it twice and
// took quadratic time), contiguous or strided; a reversed line is walked
// forwards, one run (walkplan.Plan's flip).
func TestMapLongRunsOnce(t *testing.T) {
	for _, step := range []int{1, 2, -1} {
		x := make([]float32, 2*(3*chunk+5))
		for i := range x {
			x[i] = float32(i)
		}
		first := 0
		if step < 0 {
			first = len(x) - 1
		}
		v, err := NewView(x, first, []int64{int64(3*chunk + 5)}, []int64{int64(step)})
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		if err := Map(v, v, func(d, s []float32) error { runs++; return Scale(d, s, 2) }); err != nil {
			t.Fatal(err)
		}
		for i := range v.Len() {
			p := first + i*step
			if x[p] != 2*float32(p) {
				t.Fatalf("step %d: element %d is %v, want %v", step, i, x[p], 2*float32(p))
			}
		}
		if want := map[int]int{1: 1, 2: 4, -1: 1}[step]; runs != want {
			t.Fatalf("step %d: %d runs, want %d", step, runs, want)
		}
	}
}

// Walks of more merged dimensions than the odometer keeps on the stack
// (walkDims) and walks in place over strided lines (one buffer, gathered,
// operated on and scattered back) give what the element loop does.
func TestMapManyDimsAndInPlace(t *testing.T) {
	const nd = walkDims + 2
	shape := slices.Repeat([]int64{2}, nd)
	n := 1 << nd
	data := make([]float32, 2*n)
	for i := range data {
		data[i] = float32(i)
	}
	axes := make([]int, nd)
	for i := range axes {
		axes[i] = nd - 1 - i
	}
	strides := dlpack.ContiguousStrides(shape)
	for i := range strides {
		strides[i] *= 2 // every second element: [..., ::2]
	}
	every2, _ := NewView(data, 0, shape, strides)
	src, err := every2.Permute(axes...) // no two dimensions merge
	if err != nil {
		t.Fatal(err)
	}
	eachLevel(t, func(t *testing.T, _ int) {
		out, _ := ViewOf(make([]float32, n), shape...)
		if err := Map(out, src, func(d, s []float32) error { return Scale(d, s, 2) }); err != nil {
			t.Fatal(err)
		}
		sum, _ := ViewOf(make([]float32, n), shape...)
		if err := Map2(sum, src, out, func(d, a, b []float32) error { return Add(d, a, b) }); err != nil {
			t.Fatal(err)
		}
		for p := range n {
			idx := index(shape, p)
			if got, want := at(out, idx...), 2*at(src, idx...); got != want {
				t.Fatalf("Map: element %v is %v, want %v", idx, got, want)
			}
			if got, want := at(sum, idx...), 3*at(src, idx...); got != want {
				t.Fatalf("Map2: element %v is %v, want %v", idx, got, want)
			}
		}
		lines := 0
		err := Lines(src, func(i int, line []float32) error {
			for j, v := range line {
				if want := at(src, append(index(shape[:nd-1], i), j)...); v != want {
					t.Fatalf("Lines: line %d [%d] = %v, want %v", i, j, v, want)
				}
			}
			lines++
			return nil
		})
		if err != nil || lines != n/2 {
			t.Fatalf("Lines: %d lines, %v; want %d", lines, err, n/2)
		}
		inPlace := slices.Clone(data)
		v, _ := NewView(inPlace, 0, shape, strides)
		v, _ = v.Permute(axes...)
		if err := Map(v, v, func(d, s []float32) error { return AddScalar(d, s, 0.5) }); err != nil {
			t.Fatal(err)
		}
		for i := range inPlace {
			want := data[i]
			if i%2 == 0 {
				want += 0.5
			}
			if inPlace[i] != want {
				t.Fatalf("Map in place over [..., ::2]: element %d is %v, want %v", i, inPlace[i], want)
			}
		}
	})
}

// Slice: C order is one slice; a view with no elements is, whatever its
// strides; any other layout is not.
func TestSlice(t *testing.T) {
	data := make([]int, 24)
	for _, c := range []struct {
		shape, strides []int64
		n              int
		ok             bool
	}{
		{[]int64{2, 3, 4}, nil, 24, true},
		{[]int64{2, 1, 4}, []int64{4, 99, 1}, 8, true}, // a dimension of 1: any stride
		{[]int64{2, 3}, []int64{1, 2}, 0, false},
		{[]int64{3, 4}, []int64{8, 2}, 0, false},
		{[]int64{3, 0}, []int64{5, 7}, 0, true},
		{[]int64{0, 3}, []int64{1, 5}, 0, true},
		{[]int64{2, 0, 3}, []int64{9, 1, 5}, 0, true},
		{[]int64{}, nil, 1, true},
	} {
		v, err := NewView(data, 0, c.shape, c.strides)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := v.Slice()
		if ok != c.ok || len(s) != c.n {
			t.Errorf("shape %v strides %v: %d elements, %v; want %d, %v", c.shape, c.strides, len(s), ok, c.n, c.ok)
		}
	}
}

// Work under the threshold runs on the caller without asking GOMAXPROCS, whose
// runtime.GOMAXPROCS takes the scheduler's process-wide lock: every small call of
// every thread would write it. Work above the threshold asks once.
func TestSmallWorkTakesNoSchedulerLock(t *testing.T) {
	asked := 0
	old := gomaxprocs
	gomaxprocs = func() int { asked++; return old() }
	defer func() { gomaxprocs = old }()
	small := make([]float32, 4096)
	ParallelOver(small, func(lo, hi int) {})
	Parallel(len(small), 4, func(lo, hi int) {})
	_ = SumParallel(make([]float64, 4096))
	if asked != 0 {
		t.Fatalf("small work asked GOMAXPROCS %d times", asked)
	}
	Parallel(ParallelThreshold()+blockBytes, 1, func(lo, hi int) {})
	if asked != 1 {
		t.Fatalf("work above the threshold asked GOMAXPROCS %d times, want 1", asked)
	}
}
