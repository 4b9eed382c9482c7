package vec

import (
	"testing"
	"unsafe"
)

// The walks of bench/bench_vec.py's functions, with no Python around them:
// a 4096x1024 float32 matrix, contiguous and every second column of one twice
// as wide ([:, ::2]), and a 4x4 one (the per-call cost of views and walk).

func benchMatrix(b *testing.B, rows, cols, step int64) View[float32] {
	b.Helper()
	data := make([]float32, rows*cols*step)
	for i := range data {
		data[i] = float32(i%1000) / 1000
	}
	v, err := NewView(data, 0, []int64{rows, cols}, []int64{cols * step, step})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// clipMap is Clip by Map (gather, clip, scatter a strided line), clipFused by
// ClipView (one pass at step 2); scaleShiftMap and scaleShiftFused the same.
func clipMap(d, s View[float32]) error {
	return Map(d, s, func(d, s []float32) error { return Clip(d, s, 0.25, 0.75) })
}
func clipFused(d, s View[float32]) error { return ClipView(d, s, 0.25, 0.75) }
func scaleShiftMap(d, s View[float32]) error {
	return Map(d, s, func(d, s []float32) error { return ScaleShift(d, s, 1.5, -0.25) })
}
func scaleShiftFused(d, s View[float32]) error { return ScaleShiftView(d, s, 1.5, -0.25) }

func benchClip(b *testing.B, rows, cols, step int64) { benchClipBy(b, rows, cols, step, clipMap) }

func benchClipBy(b *testing.B, rows, cols, step int64, clip func(d, s View[float32]) error) {
	x := benchMatrix(b, rows, cols, step)
	b.SetBytes(int64(rows * cols * 8))
	for b.Loop() {
		if err := clip(x, x); err != nil {
			b.Fatal(err)
		}
	}
}

func benchScaleShift(b *testing.B, rows, cols, step int64) {
	benchScaleShiftBy(b, rows, cols, step, scaleShiftMap)
}

func benchScaleShiftBy(b *testing.B, rows, cols, step int64, scaleShift func(d, s View[float32]) error) {
	x := benchMatrix(b, rows, cols, step)
	out := make([]float32, rows*cols)
	dst, _ := ViewOf(out, rows, cols)
	b.SetBytes(int64(rows * cols * 8))
	for b.Loop() {
		if err := scaleShift(dst, x); err != nil {
			b.Fatal(err)
		}
	}
}

func benchNorms(b *testing.B, rows, cols, step int64) {
	x := benchMatrix(b, rows, cols, step)
	norms := make([]float32, rows)
	b.SetBytes(int64(rows * cols * 4))
	for b.Loop() {
		if err := Lines(x, func(i int, row []float32) error { norms[i] = float32(Norm2(row)); return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClipContiguous(b *testing.B)       { benchClip(b, 4096, 1024, 1) }
func BenchmarkClipStrided(b *testing.B)          { benchClip(b, 4096, 1024, 2) }
func BenchmarkClip4x4(b *testing.B)              { benchClip(b, 4, 4, 1) }
func BenchmarkClip4x4Strided(b *testing.B)       { benchClip(b, 4, 4, 2) }
func BenchmarkScaleShiftContiguous(b *testing.B) { benchScaleShift(b, 4096, 1024, 1) }
func BenchmarkScaleShiftStrided(b *testing.B)    { benchScaleShift(b, 4096, 1024, 2) }
func BenchmarkNorms(b *testing.B)                { benchNorms(b, 4096, 1024, 1) }
func BenchmarkNormsStrided(b *testing.B)         { benchNorms(b, 4096, 1024, 2) }

func BenchmarkClipStridedSmall(b *testing.B) { benchClip(b, 32, 1024, 2) }

// The fused walks against Map's gather, operation and scatter: [:, ::2] of
// 4096x1024 (memory-bound) and of 32x1024 (in cache).
func BenchmarkClipViewStrided(b *testing.B)      { benchClipBy(b, 4096, 1024, 2, clipFused) }
func BenchmarkClipViewStridedSmall(b *testing.B) { benchClipBy(b, 32, 1024, 2, clipFused) }
func BenchmarkScaleShiftViewStrided(b *testing.B) {
	benchScaleShiftBy(b, 4096, 1024, 2, scaleShiftFused)
}
func BenchmarkScaleShiftStridedSmall(b *testing.B) { benchScaleShift(b, 32, 1024, 2) }
func BenchmarkScaleShiftViewStridedSmall(b *testing.B) {
	benchScaleShiftBy(b, 32, 1024, 2, scaleShiftFused)
}
func BenchmarkClipContigSmall(b *testing.B) { benchClip(b, 32, 1024, 1) }

// The vec part of bench/vecbench's clip_ on a 4x4 tensor, [:, ::2] too: a
// view from the tensor's pointer, its slab and the walk.
func benchClipCall(b *testing.B, step int64) {
	data := make([]float32, 16*step)
	shape, strides := []int64{4, 4}, []int64{4 * step, step}
	b.ReportAllocs()
	for b.Loop() {
		v, err := FromPointer[float32](unsafe.Pointer(&data[0]), shape, strides)
		if err != nil {
			b.Fatal(err)
		}
		slab, _ := v.Slab(0, 4)
		if err := Map(slab, slab, func(d, s []float32) error { return Clip(d, s, 0.25, 0.75) }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClipCall4x4(b *testing.B)        { benchClipCall(b, 1) }
func BenchmarkClipCall4x4Strided(b *testing.B) { benchClipCall(b, 2) }

// The integer kernels against the portable loops: Add and Clip over 4096
// elements in cache, on each kernel set.
func benchInt[T Number](b *testing.B) {
	x, y, d := make([]T, 4096), make([]T, 4096), make([]T, 4096)
	for i := range x {
		x[i], y[i] = T(i*7), T(i*3)
	}
	for _, l := range []int{useGo, useAVX2, useAVX512} {
		if l > cpuLevel {
			continue
		}
		b.Run(levelNames[l]+"/add", func(b *testing.B) {
			defer setLevel(setLevel(l))
			b.SetBytes(int64(len(d)) * int64(unsafe.Sizeof(d[0])))
			for b.Loop() {
				_ = Add(d, x, y)
			}
		})
		b.Run(levelNames[l]+"/clip", func(b *testing.B) {
			defer setLevel(setLevel(l))
			b.SetBytes(int64(len(d)) * int64(unsafe.Sizeof(d[0])))
			for b.Loop() {
				_ = Clip(d, x, 5, 90)
			}
		})
	}
}

func BenchmarkInt8(b *testing.B)  { benchInt[int8](b) }
func BenchmarkInt32(b *testing.B) { benchInt[int32](b) }
func BenchmarkInt64(b *testing.B) { benchInt[int64](b) }

// The integer reductions' kernels against the portable loops: SumInt and Max
// over 4096 elements in cache, on each kernel set.
func benchIntReduce[T Integer](b *testing.B) {
	x := make([]T, 4096)
	for i := range x {
		x[i] = T(i * 7)
	}
	for _, l := range []int{useGo, useAVX2, useAVX512} {
		if l > cpuLevel {
			continue
		}
		b.Run(levelNames[l]+"/sum", func(b *testing.B) {
			defer setLevel(setLevel(l))
			b.SetBytes(int64(len(x)) * int64(unsafe.Sizeof(x[0])))
			for b.Loop() {
				_ = SumInt(x)
			}
		})
		b.Run(levelNames[l]+"/max", func(b *testing.B) {
			defer setLevel(setLevel(l))
			b.SetBytes(int64(len(x)) * int64(unsafe.Sizeof(x[0])))
			for b.Loop() {
				_, _ = Max(x)
			}
		})
	}
}

func BenchmarkReduceInt8(b *testing.B)   { benchIntReduce[int8](b) }
func BenchmarkReduceUint16(b *testing.B) { benchIntReduce[uint16](b) }
func BenchmarkReduceInt32(b *testing.B)  { benchIntReduce[int32](b) }
func BenchmarkReduceUint64(b *testing.B) { benchIntReduce[uint64](b) }

// An in-place scale of 32 MiB of Go's heap (4 KiB pages, past L2): the
// kernels' four streams (streamFrom) against one, where the hardware
// prefetcher stops at every page.
func BenchmarkScaleInPlace32MiB(b *testing.B) {
	x := make([]float32, 8<<20)
	for i := range x {
		x[i] = float32(i)
	}
	b.SetBytes(int64(len(x) * 4))
	for b.Loop() {
		_ = Scale(x, x, 1)
	}
}
