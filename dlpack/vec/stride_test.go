package vec

import (
	"math"
	"testing"
	"unsafe"
)

// The step-2 gathers and scatters (stride_simd.go) against the element loop:
// every kernel set, 1- to 8-byte elements (4 and 8 take the SIMD kernels),
// lengths 0..3 vectors and a few over, first elements at every offset of a
// vector, and data ending right at the line's last element (the kernels must
// stop their whole vectors there) or past it. Scatters write the line's
// elements and nothing between them.
func TestStep2GatherScatter(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		step2Cases[uint8](t, func(i int) uint8 { return uint8(i) })
		step2Cases[int16](t, func(i int) int16 { return int16(i) })
		step2Cases[float32](t, func(i int) float32 { return float32(i) + 0.5 })
		step2Cases[int32](t, func(i int) int32 { return int32(-i) })
		step2Cases[float64](t, func(i int) float64 { return float64(i) / 3 })
		step2Cases[uint64](t, func(i int) uint64 { return uint64(i) << 40 })
		// NaN payloads move as they are: the kernels permute bits, not values.
		step2Cases[float32](t, func(i int) float32 { return math.Float32frombits(0x7f800001 + uint32(i)) })
	})
}

func step2Cases[T comparable](t *testing.T, val func(i int) T) {
	t.Helper()
	const sentinel = 1 << 20
	for n := 0; n <= 3*16+3; n++ {
		for off := range 17 {
			for _, extra := range []int{0, 1} {
				size := off + extra + max(2*n-1, 0)
				data := make([]T, size)
				for i := range data {
					data[i] = val(i)
				}
				buf := make([]T, n)
				gatherLine(buf, data, off, 2)
				for i := range buf {
					if !sameBytes(buf[i], data[off+2*i]) {
						t.Fatalf("%T n=%d off=%d extra=%d: gathered[%d] = %v, want data[%d] = %v",
							buf[0], n, off, extra, i, buf[i], off+2*i, data[off+2*i])
					}
				}
				for i := range buf {
					buf[i] = val(sentinel + i)
				}
				scatterLine(data, off, 2, buf)
				for i := range data {
					want := val(i)
					if k := (i - off) / 2; i >= off && (i-off)%2 == 0 && k < n {
						want = val(sentinel + k)
					}
					if !sameBytes(data[i], want) {
						t.Fatalf("%T n=%d off=%d extra=%d: after the scatter data[%d] = %v, want %v",
							data[0], n, off, extra, i, data[i], want)
					}
				}
			}
		}
	}
}

// sameBytes is whether a and b are the same bytes (NaN payloads included).
func sameBytes[T any](a, b T) bool {
	size := unsafe.Sizeof(a)
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a)), size)) == string(unsafe.Slice((*byte)(unsafe.Pointer(&b)), size))
}

// The step -1 gather (gatherReverse: a reversed source line into a forward
// dst) against the element loop: every kernel set, 1- to 8-byte elements (4
// and 8 take the SIMD kernels), lengths 0..3 vectors and a few over, the line's
// first (highest) element at every offset of a vector, and data that starts
// right at the line's last element (the kernels must stop their whole vectors
// there) or before it.
func TestReverseGather(t *testing.T) {
	eachLevel(t, func(t *testing.T, _ int) {
		reverseCases[uint8](t, func(i int) uint8 { return uint8(i) })
		reverseCases[float32](t, func(i int) float32 { return float32(i) + 0.5 })
		reverseCases[int32](t, func(i int) int32 { return int32(-i) })
		reverseCases[float64](t, func(i int) float64 { return float64(i) / 3 })
		reverseCases[uint64](t, func(i int) uint64 { return uint64(i) << 40 })
		reverseCases[float32](t, func(i int) float32 { return math.Float32frombits(0x7f800001 + uint32(i)) })
	})
}

func reverseCases[T any](t *testing.T, val func(i int) T) {
	t.Helper()
	for n := 0; n <= 3*16+3; n++ {
		for before := range 17 { // elements of data below the line's last one
			for _, extra := range []int{0, 1} { // above its first
				data := make([]T, before+n+extra)
				for i := range data {
					data[i] = val(i)
				}
				off := before + n - 1 // the line's first element
				if n == 0 {
					off = before
				}
				buf := make([]T, n)
				gatherLine(buf, data, off, -1)
				for i := range buf {
					if !sameBytes(buf[i], data[off-i]) {
						t.Fatalf("%T n=%d before=%d extra=%d: gathered[%d] = %v, want data[%d] = %v",
							buf[0], n, before, extra, i, buf[i], off-i, data[off-i])
					}
				}
			}
		}
	}
}
