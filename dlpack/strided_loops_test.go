package dlpack

import (
	"bytes"
	"math/rand"
	"testing"
	"unsafe"
)

// layout is a random strided view into a buffer: shape, strides (elements, any
// sign, zero for broadcasts) and the element offset of element 0.
type layout struct {
	shape, strides []int64
	base           int64
	span           int64 // elements the buffer needs
}

func randomLayout(r *rand.Rand, shape []int64, allowZero bool) layout {
	l := layout{shape: shape, strides: make([]int64, len(shape))}
	// Start contiguous in a random order of the axes (transposed, permuted), then
	// perturb some strides: contiguous runs, gaps, reversals.
	step := int64(1)
	for _, d := range r.Perm(len(shape)) {
		l.strides[d] = step
		step *= shape[d]
	}
	for i := range l.strides {
		switch r.Intn(5) {
		case 0:
			l.strides[i] *= int64(2 + r.Intn(2))
		case 1:
			l.strides[i] = -l.strides[i]
		case 2:
			if allowZero {
				l.strides[i] = 0
			}
		}
	}
	lo, hi, err := ElementSpan(shape, l.strides)
	if err != nil {
		panic(err)
	}
	l.base = -lo
	l.span = hi - lo + 1
	return l
}

// offsets lists the element offsets of a layout in C order, the reference the
// loops are checked against.
func (l layout) offsets() []int64 {
	n, _ := NumElements(l.shape)
	out := make([]int64, 0, n)
	idx := make([]int64, len(l.shape))
	for i := int64(0); i < n; i++ {
		off := l.base
		for d := range idx {
			off += idx[d] * l.strides[d]
		}
		out = append(out, off)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < l.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

func randomShape(r *rand.Rand) []int64 {
	shape := make([]int64, r.Intn(4))
	for i := range shape {
		shape[i] = int64(1 + r.Intn(5))
	}
	return shape
}

func TestCopyStridedMatchesElementwise(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		itemSize := []int{1, 2, 4, 8, 16, 3}[r.Intn(6)]
		shape := randomShape(r)
		dl, sl := randomLayout(r, shape, false), randomLayout(r, shape, true)
		src := make([]byte, sl.span*int64(itemSize))
		r.Read(src)
		got := make([]byte, dl.span*int64(itemSize))
		want := bytes.Clone(got)
		CopyStrided(unsafe.Pointer(&got[dl.base*int64(itemSize)]), dl.strides,
			unsafe.Pointer(&src[sl.base*int64(itemSize)]), sl.strides, shape, itemSize)
		so := sl.offsets()
		for i, d := range dl.offsets() {
			is := int64(itemSize)
			copy(want[d*is:(d+1)*is], src[so[i]*is:(so[i]+1)*is])
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("shape %v dst strides %v src strides %v item %d:\n got %v\nwant %v",
				shape, dl.strides, sl.strides, itemSize, got, want)
		}
	}
}

func TestFillStridedMatchesElementwise(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for iter := 0; iter < 3000; iter++ {
		itemSize := []int{1, 2, 4, 8, 16, 3}[r.Intn(6)]
		shape := randomShape(r)
		l := randomLayout(r, shape, false)
		elem := make([]byte, itemSize)
		if r.Intn(4) > 0 { // sometimes all zero: the clear() path
			r.Read(elem)
		}
		got := make([]byte, l.span*int64(itemSize))
		r.Read(got)
		want := bytes.Clone(got)
		FillStrided(unsafe.Pointer(&got[l.base*int64(itemSize)]), l.strides, shape, elem)
		for _, d := range l.offsets() {
			copy(want[d*int64(itemSize):], elem)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("shape %v strides %v elem %v:\n got %v\nwant %v", shape, l.strides, elem, got, want)
		}
	}
}

func TestFillContiguousLargerThanOneChunk(t *testing.T) {
	for _, n := range []int{1, fillChunk/8 - 1, fillChunk / 8, 3*fillChunk/8 + 5} {
		buf := make([]byte, n*8)
		elem := []byte{1, 2, 3, 4, 5, 6, 7, 8}
		FillStrided(unsafe.Pointer(&buf[0]), []int64{1}, []int64{int64(n)}, elem)
		if !bytes.Equal(buf, bytes.Repeat(elem, n)) {
			t.Fatalf("n=%d: pattern broken", n)
		}
	}
}

// A copy between two transposed arrays (and a fill of one) walks their memory
// in order: one run, as fast as a contiguous copy, where a walk in C order
// stepped across whole rows each element.
func BenchmarkCopyStridedTransposed(b *testing.B) {
	const n = 1024
	src, dst := make([]float32, n*n), make([]float32, n*n)
	shape, tr := []int64{n, n}, []int64{1, n}
	b.SetBytes(4 * n * n)
	for b.Loop() {
		CopyStrided(unsafe.Pointer(&dst[0]), tr, unsafe.Pointer(&src[0]), tr, shape, 4)
	}
}

func BenchmarkFillStridedTransposed(b *testing.B) {
	const n = 1024
	dst := make([]float32, n*n)
	b.SetBytes(4 * n * n)
	for b.Loop() {
		FillStrided(unsafe.Pointer(&dst[0]), []int64{1, n}, []int64{n, n}, []byte{1, 2, 3, 4})
	}
}

// A copy of a transposed array into a C-contiguous one (np.ascontiguousarray
// of a .T): tiles of 32x32 elements, each of the source's 32 cache lines read
// while dst's rows take them, not a line across the whole source per row.
func BenchmarkCopyStridedTransposeToC(b *testing.B) {
	const n = 2048
	src, dst := make([]float32, n*n), make([]float32, n*n)
	b.SetBytes(4 * n * n)
	for b.Loop() {
		CopyStrided(unsafe.Pointer(&dst[0]), []int64{n, 1}, unsafe.Pointer(&src[0]), []int64{1, n}, []int64{n, n}, 4)
	}
}

// A transposed source into a C-contiguous dst, over several of copyTiles'
// tiles each way and their rests, with an outer dimension, a reversed axis and
// every element size: each element lands where the element loop puts it.
func TestCopyStridedTransposeTiles(t *testing.T) {
	const p, rows, cols = 2, 70, 45
	for _, itemSize := range []int{1, 2, 4, 8, 16, 3} {
		for _, rev := range []bool{false, true} {
			// src: p x cols x rows in memory, viewed p x rows x cols (each matrix's .T)
			sStrides, base := []int64{rows * cols, 1, rows}, int64(0)
			if rev { // its rows walked from the last
				sStrides[1], base = -1, rows-1
			}
			src := make([]byte, p*rows*cols*itemSize)
			for i := range src {
				src[i] = byte(i*7 + i/251)
			}
			got := make([]byte, len(src))
			shape, dStrides := []int64{p, rows, cols}, []int64{rows * cols, cols, 1}
			CopyStrided(unsafe.Pointer(&got[0]), dStrides, unsafe.Pointer(&src[base*int64(itemSize)]), sStrides, shape, itemSize)
			want := make([]byte, len(src))
			for a := range int64(p) {
				for i := range int64(rows) {
					for j := range int64(cols) {
						d := (a*dStrides[0] + i*dStrides[1] + j) * int64(itemSize)
						s := (base + a*sStrides[0] + i*sStrides[1] + j*sStrides[2]) * int64(itemSize)
						copy(want[d:d+int64(itemSize)], src[s:s+int64(itemSize)])
					}
				}
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("item %d reversed %v: the copy differs from the element loop", itemSize, rev)
			}
		}
	}
}
