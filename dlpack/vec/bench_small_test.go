package vec

import (
	"testing"
	"unsafe"
)

// The per-call cost of vec on bench/bench_vec.py's 4x4 inputs:
// what vecbench's clip_, scale_shift and row_norms do past godlpack's call,
// on a 4x4 float32 tensor, contiguous and [:, ::2] of a 4x8 one (step 2). At
// this size the arithmetic is a few ns: the rest is views and walks.

// small4x4 is a 4x4 float32 tensor over memory of 16*step elements, every
// step-th column.
func small4x4(step int64) *tensorOf {
	data := make([]float32, 16*step)
	for i := range data {
		data[i] = float32(i) / float32(len(data))
	}
	return &tensorOf{unsafe.Pointer(&data[0]), []int64{4, 4}, []int64{4 * step, step}}
}

// smallClip is clip_'s body: in place, by ClipTensor.
func smallClip(x *tensorOf) error { return ClipTensor[float32](laidOut{x}, 0.25, 0.75) }

// smallClipView is clip_'s body by ClipView, as it was before ClipTensor.
func smallClipView(x *tensorOf) error {
	v, err := FromTensor[float32](x)
	if err != nil {
		return err
	}
	return ClipView(v, v, 0.25, 0.75)
}

// smallScaleShift is scale_shift's body: into a new contiguous 4x4.
func smallScaleShift(x *tensorOf, out []float32) error {
	src, err := FromTensor[float32](x)
	if err != nil {
		return err
	}
	dst, err := ViewOf(out, 4, 4)
	if err != nil {
		return err
	}
	return ScaleShiftView(dst, src, 1.5, -0.25)
}

// smallNorms is row_norms's body: a slab of all rows and their lines.
func smallNorms(x *tensorOf, norms []float32) error {
	v, err := FromTensor[float32](x)
	if err != nil {
		return err
	}
	slab, err := v.Slab(0, 4)
	if err != nil {
		return err
	}
	return Lines(slab, func(i int, row []float32) error {
		norms[i] = float32(Norm2(row))
		return nil
	})
}

func BenchmarkSmallClip16(b *testing.B) {
	s := make([]float32, 16)
	for b.Loop() {
		_ = Clip(s, s, 0.25, 0.75)
	}
}

func BenchmarkSmallScaleShift16(b *testing.B) {
	s, d := make([]float32, 16), make([]float32, 16)
	for b.Loop() {
		_ = ScaleShift(d, s, 1.5, -0.25)
	}
}

func BenchmarkSmallFromTensor4x4Step2(b *testing.B) {
	x := small4x4(2)
	for b.Loop() {
		_, _ = FromTensor[float32](x)
	}
}

func benchSmall(b *testing.B, step int64, body func(x *tensorOf, out []float32) error) {
	x, out := small4x4(step), make([]float32, 16)
	b.ReportAllocs()
	for b.Loop() {
		if err := body(x, out); err != nil {
			b.Fatal(err)
		}
	}
}

func clipBody(x *tensorOf, _ []float32) error     { return smallClip(x) }
func clipViewBody(x *tensorOf, _ []float32) error { return smallClipView(x) }

func BenchmarkSmallClipTensor4x4(b *testing.B)          { benchSmall(b, 1, clipBody) }
func BenchmarkSmallClipTensor4x4Step2(b *testing.B)     { benchSmall(b, 2, clipBody) }
func BenchmarkSmallClipView4x4(b *testing.B)            { benchSmall(b, 1, clipViewBody) }
func BenchmarkSmallClipView4x4Step2(b *testing.B)       { benchSmall(b, 2, clipViewBody) }
func BenchmarkSmallScaleShiftView4x4(b *testing.B)      { benchSmall(b, 1, smallScaleShift) }
func BenchmarkSmallScaleShiftView4x4Step2(b *testing.B) { benchSmall(b, 2, smallScaleShift) }
func BenchmarkSmallNorms4x4(b *testing.B)               { benchSmall(b, 1, smallNorms) }
func BenchmarkSmallNorms4x4Step2(b *testing.B)          { benchSmall(b, 2, smallNorms) }

// The small bodies allocate nothing: at 4x4 an allocation (and the collector
// it feeds) would cost more than the arithmetic.
func TestSmallBodiesAllocateNothing(t *testing.T) {
	out := make([]float32, 16)
	for _, step := range []int64{1, 2} {
		x := small4x4(step)
		for name, body := range map[string]func() error{
			"clip":        func() error { return smallClip(x) },
			"clip (View)": func() error { return smallClipView(x) },
			"scale_shift": func() error { return smallScaleShift(x, out) },
			"row_norms":   func() error { return smallNorms(x, out) },
		} {
			if got := testing.AllocsPerRun(100, func() { _ = body() }); got != 0 {
				t.Errorf("%s, step %d: %v allocations, want 0", name, step, got)
			}
		}
	}
}
