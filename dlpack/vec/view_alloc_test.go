package vec

import (
	"testing"
	"unsafe"
)

// tensorOf is a Source over a Go slice, as godlpack.Tensor is over a
// producer's memory.
type tensorOf struct {
	data           unsafe.Pointer
	shape, strides []int64
}

func (x *tensorOf) Data() unsafe.Pointer { return x.data }
func (x *tensorOf) NDim() int            { return len(x.shape) }
func (x *tensorOf) Dim(i int) int64      { return x.shape[i] }
func (x *tensorOf) Stride(i int) int64   { return x.strides[i] }

// laidOut is a tensorOf that hands its layout over in one call (Layout), as
// godlpack's tensors do: FromTensor's other path.
type laidOut struct{ *tensorOf }

func (x laidOut) Layout() (unsafe.Pointer, []int64, []int64) { return x.data, x.shape, x.strides }

// bothPaths is x read by FromTensor one field at a time, and through Layout.
func bothPaths(x *tensorOf) []Source { return []Source{x, laidOut{x}} }

// FromTensor is FromPointer of the tensor's layout: negative strides, more
// dimensions than fit on its stack, and errors alike.
func TestFromTensor(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	many := &tensorOf{unsafe.Pointer(&x[0]), make([]int64, 2*walkDims), make([]int64, 2*walkDims)}
	for i := range many.shape {
		many.shape[i] = 1
	}
	many.shape[0] = 6
	many.strides[0] = 1
	for path := range 2 {
		v, err := FromTensor[float64](bothPaths(&tensorOf{unsafe.Pointer(&x[5]), []int64{2, 3}, []int64{-3, -1}})[path])
		if err != nil {
			t.Fatal(path, err)
		}
		if at(v, 0, 0) != 5 || at(v, 1, 2) != 0 || at(v, 0, 2) != 3 {
			t.Fatalf("path %d: view %v", path, v)
		}
		m, err := FromTensor[float64](bothPaths(many)[path])
		if s, ok := m.Slice(); err != nil || !ok || len(s) != 6 || len(m.Shape()) != 2*walkDims {
			t.Fatalf("path %d, %d dimensions: %v %v %v", path, 2*walkDims, err, ok, m.Shape())
		}
		if _, err := FromTensor[float64](bothPaths(&tensorOf{nil, []int64{2}, []int64{1}})[path]); err == nil {
			t.Fatalf("path %d: nil data: no error", path)
		}
		huge := &tensorOf{unsafe.Pointer(&x[0]), []int64{2, 2}, []int64{1 << 62, 1}}
		if _, err := FromTensor[float64](bothPaths(huge)[path]); err == nil {
			t.Fatalf("path %d: overflowing strides: no error", path)
		}
	}
	short := &tensorOf{unsafe.Pointer(&x[0]), []int64{2, 3}, []int64{3}} // a Layout's strides must match
	if _, err := FromTensor[float64](laidOut{short}); err == nil {
		t.Fatal("one stride for two dimensions: no error")
	}
	contiguous, err := FromTensor[float64](laidOut{&tensorOf{unsafe.Pointer(&x[0]), []int64{2, 3}, nil}})
	if s, ok := contiguous.Slice(); err != nil || !ok || len(s) != 6 {
		t.Fatalf("nil strides through Layout (C-contiguous): %v %v %v", err, ok, s)
	}
}

// A small tensor's view, slab, permute and contiguous walk allocate nothing:
// the per-call cost of a function over a 4x4 tensor (bench/bench_vec.py) is its work,
// not the allocator's and the garbage collector's.
func TestSmallViewAllocations(t *testing.T) {
	x := make([]float32, 32)
	contig := &tensorOf{unsafe.Pointer(&x[0]), []int64{4, 4}, []int64{4, 1}}
	every2 := &tensorOf{unsafe.Pointer(&x[0]), []int64{4, 4}, []int64{8, 2}}
	for _, c := range []struct {
		name string
		x    *tensorOf
		want float64
	}{{"FromTensor, contiguous", contig, 0}, {"FromTensor, strided", every2, 0}} {
		for path, x := range bothPaths(c.x) {
			if got := testing.AllocsPerRun(100, func() { _, _ = FromTensor[float32](x) }); got != c.want {
				t.Errorf("%s, path %d: %v allocations, want %v", c.name, path, got, c.want)
			}
		}
	}
	if got := testing.AllocsPerRun(100, func() { _, _ = ViewOf(x, 4, 8) }); got != 0 {
		t.Errorf("ViewOf: %v allocations, want 0", got)
	}
	v, _ := ViewOf(x, 2, 4, 4)
	if got := testing.AllocsPerRun(100, func() { _, _ = v.Permute(2, 0, 1) }); got != 0 {
		t.Errorf("Permute: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { _, _ = v.Slab(1, 2) }); got != 0 {
		t.Errorf("Slab: %v allocations, want 0", got)
	}
	clip := func(d, s []float32) error { return Clip(d, s, 0.25, 0.75) }
	c, _ := FromTensor[float32](contig)
	if got := testing.AllocsPerRun(100, func() { _ = Map(c, c, clip) }); got != 0 {
		t.Errorf("Map over a contiguous 4x4: %v allocations, want 0", got)
	}
	// Strided walks gather into walkPool's buffers: no allocation either.
	e, _ := FromTensor[float32](every2)
	out, _ := ViewOf(make([]float32, 16), 4, 4)
	if got := testing.AllocsPerRun(100, func() { _ = Map(e, e, clip) }); got != 0 {
		t.Errorf("Map in place over a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { _ = Map(out, e, clip) }); got != 0 {
		t.Errorf("Map from a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
	add := func(d, a, b []float32) error { return Add(d, a, b) }
	if got := testing.AllocsPerRun(100, func() { _ = Map2(e, e, out, add) }); got != 0 {
		t.Errorf("Map2 into a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { _ = ClipView(e, e, 0.25, 0.75) }); got != 0 {
		t.Errorf("ClipView in place over a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { _ = ScaleShiftView(out, e, 1.5, -0.25) }); got != 0 {
		t.Errorf("ScaleShiftView from a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
	norm := func(_ int, line []float32) error { _ = Norm2(line); return nil }
	if got := testing.AllocsPerRun(100, func() { _ = Lines(e, norm) }); got != 0 {
		t.Errorf("Lines of a 4x4 [:, ::2]: %v allocations, want 0", got)
	}
}

// A view of more than inlineDims dimensions keeps them in one allocation that
// copies share: a slab of it has its own shape, and the view's stays.
func TestSlabOfManyDims(t *testing.T) {
	x := make([]float32, 3*2*2*2*2)
	v, err := ViewOf(x, 3, 2, 2, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := v.Slab(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v.Shape()[0] != 3 || s.Shape()[0] != 1 || s.Len() != 16 || &mustContiguous(t, s)[0] != &x[16] {
		t.Fatalf("view %v, slab %v", v.Shape(), s.Shape())
	}
}

func mustContiguous[T any](t *testing.T, v View[T]) []T {
	t.Helper()
	s, ok := v.Slice()
	if !ok {
		t.Fatalf("not contiguous: %v %v", v.Shape(), v.Strides())
	}
	return s
}
