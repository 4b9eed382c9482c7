package vec

import "testing"

// bench/vecbench's normalize with no Python around it: an HxWxC uint8 image
// (contiguous, or every second column of one twice as wide: [:, ::2]) to a
// CxHxW float32 one, (x/255 - mean[c]) / std[c] as x*k + c, channel by
// channel: by CastScaleShiftView, and the way before it (Map with Cast, then
// ScaleShift).

var normMean, normStd = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}

func normalizeFused(dst View[float32], chw View[uint8]) error {
	for ch := range int64(3) {
		d, _ := dst.Slab(ch, ch+1)
		s, _ := chw.Slab(ch, ch+1)
		k, c := 1/(255*normStd[ch]), -normMean[ch]/normStd[ch]
		if err := CastScaleShiftView(d, s, k, c); err != nil {
			return err
		}
	}
	return nil
}

func normalizePlanes(dst View[float32], chw View[uint8]) error {
	var k, c [3]float32
	for ch := range 3 {
		k[ch], c[ch] = 1/(255*normStd[ch]), -normMean[ch]/normStd[ch]
	}
	return CastScaleShiftPlanes(dst, chw, k[:], c[:])
}

func normalizeMap(dst View[float32], chw View[uint8]) error {
	for ch := range int64(3) {
		d, _ := dst.Slab(ch, ch+1)
		s, _ := chw.Slab(ch, ch+1)
		k, c := 1/(255*normStd[ch]), -normMean[ch]/normStd[ch]
		err := Map(d, s, func(d []float32, s []uint8) error {
			if err := Cast(d, s); err != nil {
				return err
			}
			return ScaleShift(d, d, k, c)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func benchNormalize(b *testing.B, h, w, step int64, normalize func(View[float32], View[uint8]) error) {
	img := make([]uint8, h*w*step*3)
	for i := range img {
		img[i] = uint8(i * 7)
	}
	hwc, err := NewView(img, 0, []int64{h, w, 3}, []int64{w * step * 3, step * 3, 1})
	if err != nil {
		b.Fatal(err)
	}
	chw, _ := hwc.Permute(2, 0, 1)
	dst, _ := ViewOf(make([]float32, 3*h*w), 3, h, w)
	b.SetBytes(int64(h * w * 3 * 5))
	for b.Loop() {
		if err := normalize(dst, chw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalize4x4x3(b *testing.B)              { benchNormalize(b, 4, 4, 1, normalizeFused) }
func BenchmarkNormalize4x4x3Strided(b *testing.B)       { benchNormalize(b, 4, 4, 2, normalizeFused) }
func BenchmarkNormalize4x4x3Planes(b *testing.B)        { benchNormalize(b, 4, 4, 1, normalizePlanes) }
func BenchmarkNormalize4x4x3StridedPlanes(b *testing.B) { benchNormalize(b, 4, 4, 2, normalizePlanes) }
func BenchmarkNormalizeLargePlanes(b *testing.B)        { benchNormalize(b, 1024, 1024, 1, normalizePlanes) }
func BenchmarkNormalize4x4x3Map(b *testing.B)           { benchNormalize(b, 4, 4, 1, normalizeMap) }
func BenchmarkNormalize4x4x3StridedMap(b *testing.B)    { benchNormalize(b, 4, 4, 2, normalizeMap) }
func BenchmarkNormalizeLarge(b *testing.B)              { benchNormalize(b, 1024, 1024, 1, normalizeFused) }
func BenchmarkNormalizeLargeStrided(b *testing.B)       { benchNormalize(b, 1024, 1024, 2, normalizeFused) }
func BenchmarkNormalizeLargeMap(b *testing.B)           { benchNormalize(b, 1024, 1024, 1, normalizeMap) }
func BenchmarkNormalizeLargeStridedMap(b *testing.B)    { benchNormalize(b, 1024, 1024, 2, normalizeMap) }

// A short strided line of a type other than uint8 (gathered, then cast): a
// 4x4 float64 [:, ::2] into float32.
func BenchmarkCastScaleShiftViewFloat64Strided4x4(b *testing.B) {
	src, _ := NewView(make([]float64, 32), 0, []int64{4, 4}, []int64{8, 2})
	dst, _ := ViewOf(make([]float32, 16), 4, 4)
	for b.Loop() {
		if err := CastScaleShiftView(dst, src, 2, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// CastScaleShiftView of a 4096x2048 uint8 matrix into a new C-contiguous
// float32 one, from a C-contiguous source and from the .T of a C-contiguous
// 2048x4096 (its lines a tile at a time). go test -bench CastScaleShiftViewLayouts -run X ./dlpack/vec/
func BenchmarkCastScaleShiftViewLayouts(b *testing.B) {
	const r, c = 4096, 2048
	x := make([]uint8, r*c)
	for i := range x {
		x[i] = uint8(i)
	}
	cont, _ := ViewOf(x, r, c)
	m, _ := ViewOf(x, c, r)
	tr, _ := m.Permute(1, 0)
	out, _ := ViewOf(make([]float32, r*c), r, c)
	for _, l := range []struct {
		name string
		v    View[uint8]
	}{{"contiguous", cont}, {"transposed", tr}} {
		b.Run(l.name, func(b *testing.B) {
			b.SetBytes(r * c)
			for b.Loop() {
				_ = CastScaleShiftView(out, l.v, 1.0/255, 0)
			}
		})
	}
}
