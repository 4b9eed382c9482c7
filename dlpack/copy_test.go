package dlpack

import (
	"slices"
	"testing"
	"unsafe"
)

func TestCopyStridedTransposeAndReverse(t *testing.T) {
	// src is a 2x3 int32 matrix; copy its transpose with reversed rows into a
	// contiguous 3x2 destination.
	src := []int32{0, 1, 2, 3, 4, 5}
	dst := make([]int32, 6)
	shape := []int64{3, 2}
	srcStrides := []int64{1, -3} // column j of row-reversed src
	base := unsafe.Pointer(&src[3])
	CopyStrided(unsafe.Pointer(&dst[0]), ContiguousStrides(shape), base, srcStrides, shape, 4)
	if want := []int32{3, 0, 4, 1, 5, 2}; !slices.Equal(dst, want) {
		t.Fatalf("got %v, want %v", dst, want)
	}
}

func TestCopyStridedContiguousRunsAndZeroSize(t *testing.T) {
	src := make([]uint16, 24)
	for i := range src {
		src[i] = uint16(i)
	}
	dst := make([]uint16, 12)
	shape := []int64{2, 6}
	// Every other row of a 4x6 matrix: runs of 6 contiguous elements.
	CopyStrided(unsafe.Pointer(&dst[0]), []int64{6, 1}, unsafe.Pointer(&src[0]), []int64{12, 1}, shape, 2)
	if want := []uint16{0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}; !slices.Equal(dst, want) {
		t.Fatalf("got %v, want %v", dst, want)
	}
	CopyStrided(nil, []int64{1}, nil, []int64{1}, []int64{0}, 2) // must not touch memory
}

func TestCopyStridedZeroStrideBroadcast(t *testing.T) {
	src := []float64{7}
	dst := make([]float64, 4)
	CopyStrided(unsafe.Pointer(&dst[0]), []int64{2, 1}, unsafe.Pointer(&src[0]), []int64{0, 0}, []int64{2, 2}, 8)
	if !slices.Equal(dst, []float64{7, 7, 7, 7}) {
		t.Fatalf("got %v", dst)
	}
}
