package vec

import (
	"cmp"
	"slices"
	"unsafe"
)

// Cast and ScaleShift fused into one pass: an image's uint8 pixels to
// normalized float32 ((x/255 - mean) / std is x*k + c), read at any strides.
// Each element is Cast's conversion (D(s), Go's: rounded to nearest even once)
// and then ScaleShift's fma(x, k, c), the bits of Cast followed by ScaleShift.
// The conversion runs element by element straight from the source's memory (no
// gathered copy of it); the fma runs the ScaleShift kernels over blocks of the
// converted elements in dst (or a stack buffer where dst is strided), blocks
// that gather short lines together, so that a 4x4 plane is one vector (no
// per-line fixed cost), and that stay in the first-level cache on long ones.

// castBlock is the most converted elements waiting for their fma: 4 KiB of
// float32, in the first-level cache until the kernel reads them back.
const castBlock = 1024

// CastScaleShift sets dst[i] = D(src[i])*k + c, the fma rounded once: Cast to
// dst's type, then ScaleShift, in one pass. dst and src have one length (dst
// may be src itself when their types are one).
func CastScaleShift[D Float, S Number](dst []D, src []S, k, c D) error {
	if err := sameLen(len(dst), len(src)); err != nil {
		return err
	}
	castScaleShiftLine(dst, src, 0, 1, k, c)
	return nil
}

// castScaleShiftLine sets dst to the elements of src from off, step apart,
// cast and scaled-shifted: a block of castBlock at a time, converted, then
// fma'd while it is in the cache.
func castScaleShiftLine[D Float, S Number](dst []D, src []S, off, step int, k, c D) {
	if step == 1 || len(dst) <= 64 { // a strided long line converts faster in the blocks below
		if d, ok := any(dst).([]float32); ok {
			if s, ok := any(src).([]uint8); ok && castScaleShiftU8F32(d, s, off, step, float32(k), float32(c)) == len(d) {
				return
			}
		}
	}
	for lo := 0; lo < len(dst); lo += castBlock {
		d := dst[lo:min(lo+castBlock, len(dst))]
		convertLine(d, src, off+lo*step, step)
		scaleShiftBlock(d, k, c)
	}
}

// CastScaleShiftView is CastScaleShift over views of one shape: dst =
// D(src)*k + c, as Map with Cast and then ScaleShift, in one pass whatever
// src's strides (negative and zero too). An HxWxC image's channel ch, normalized
// into a CxHxW dst:
//
//	hwc, _ := vec.FromTensor[uint8](img)
//	chw, _ := hwc.Permute(2, 0, 1)
//	s, _ := chw.Slab(ch, ch+1)
//	d, _ := dst.Slab(ch, ch+1)
//	err := vec.CastScaleShiftView(d, s, k[ch], c[ch])
//
// dst has no zero stride and does not overlap src, unless it is src itself
// (same types, same layout).
func CastScaleShiftView[D Float, S Number](dst View[D], src View[S], k, c D) error {
	shape := dst.dims.shape()
	if len(dst.data) == 0 || len(src.data) == 0 || !slices.Equal(shape, src.dims.shape()) { // else both are fine
		if err := cmp.Or(check(shape, &dst), check(shape, &src)); err != nil {
			return err
		}
	}
	n, step, ok := dst.dims.evenLine()
	if n == 0 && ok { // no elements (a view of none may have any offset)
		return nil
	}
	if ok && (step == 1 || n == 1) { // C-contiguous
		d := dst.data[dst.offset : dst.offset+n]
		if _, step, ok := src.dims.evenLine(); ok { // one line: no walk (a channel of an HxWxC image)
			castScaleShiftLine(d, src.data, src.offset, step, k, c)
			return nil
		}
		if rows, n, _, sStep, _, so, _, sNext, ok := lines2(src.dims.shape(), src.dims.strides(), src.dims.strides(),
			src.offset, src.offset, cOrderMerged); ok && tileable(rows, n, sStep, sNext) && !overlaps(&dst, &src) {
			castScaleShiftTiles(d, src.data, so, rows, n, sStep, sNext, k, c) // a transposed src
			return nil
		}
		return castScaleShiftInto(d, src, k, c)
	}
	if err := writable(&dst); err != nil {
		return err
	}
	order := walkOrderOf(&dst, sameLayout(&dst, &src), func() bool { return overlaps(&dst, &src) })
	var buf [64]D // a strided dst's block: converted, fma'd, then scattered
	return forLines(shape, order, [][]int{dst.dims.strides(), src.dims.strides()}, []int{dst.offset, src.offset},
		func(_ int, offs [maxOps]int, n int, steps [maxOps]int) error {
			for lo := 0; lo < n; lo += len(buf) {
				m, do := min(n-lo, len(buf)), offs[0]+lo*steps[0]
				d := buf[:m]
				if steps[0] == 1 {
					d = dst.data[do : do+m]
				}
				convertLine(d, src.data, offs[1]+lo*steps[1], steps[1])
				scaleShiftBlock(d, k, c)
				if steps[0] != 1 {
					scatterLine(dst.data, do, steps[0], d)
				}
			}
			return nil
		})
}

// castScaleShiftInto is CastScaleShiftView into a C-contiguous dst, whose
// elements are the walk's in order: src's lines are converted into dst one
// after another and the fma runs once a block of castBlock of them is full
// (a long line: block by block), and on the last ones at the end.
func castScaleShiftInto[D Float, S Number](dst []D, src View[S], k, c D) error {
	at, done := 0, 0 // dst's next element to convert, and the first not fma'd
	err := forLines(src.dims.shape(), cOrderMerged, [][]int{src.dims.strides()}, []int{src.offset},
		func(_ int, offs [maxOps]int, n int, steps [maxOps]int) error {
			for lo := 0; lo < n; {
				m := min(n-lo, castBlock-(at-done))
				convertLine(dst[at:at+m], src.data, offs[0]+lo*steps[0], steps[0])
				at, lo = at+m, lo+m
				if at-done == castBlock {
					scaleShiftBlock(dst[done:at], k, c)
					done = at
				}
			}
			return nil
		})
	scaleShiftBlock(dst[done:at], k, c)
	return err
}

// castScaleShiftTiles is CastScaleShiftView into a C-contiguous dst of rows
// lines of n elements from a src whose lines, from so, are sStep apart within
// and sNext apart from one to the next, closer to each other than their
// elements (a transposed src, tileable): a tile of src's lines at a time
// gathered in its memory's order (gatherTile, as Map's tiles), each of its
// lines converted into dst's row and fma'd while in cache, not a line across
// the whole of src's memory per row (3-4x slower at 4096x2048). src is read a
// tile ahead of dst's writes: the caller checked that they do not overlap.
func castScaleShiftTiles[D Float, S Number](dst []D, src []S, so, rows, n, sStep, sNext int, k, c D) {
	b, w, ld := tileShape(rows, n, int(unsafe.Sizeof(src[0])), false)
	var buf walkBuf[S]
	tile := buf.get(b * ld)
	for r := 0; r < rows; r += b {
		b := min(b, rows-r)
		for lo := 0; lo < n; lo += w {
			w := min(w, n-lo)
			gatherTile(tile, src, so+r*sNext+lo*sStep, b, w, ld, sStep, sNext)
			for j := range b {
				d := dst[(r+j)*n+lo : (r+j)*n+lo+w]
				convertLine(d, tile, j*ld, 1)
				scaleShiftBlock(d, k, c)
			}
		}
	}
	buf.release()
}

// evenLine is a view's elements in C order as one line: n of them step apart
// (ok false when they are not evenly spaced). A C-contiguous view is one line
// at step 1, a channel of an HxWxC image one at step C, and of its [:, ::2]
// one at step 2C. It reads the dims where they lie: a View is 128 bytes, a
// copy of which is much of a small walk's time.
func (d *viewDims) evenLine() (n, step int, ok bool) {
	return evenLine(d.shape(), d.strides())
}

// evenLine is viewDims.evenLine of the dimensions shape and strides.
func evenLine(shape, strides []int) (n, step int, ok bool) {
	n, step = 1, 1
	for i := len(shape) - 1; i >= 0; i-- {
		switch e := shape[i]; {
		case e == 0:
			return 0, 1, true
		case e == 1:
		case n == 1:
			n, step = e, strides[i]
		case strides[i] != step*n:
			return 0, 0, false
		default:
			n *= e
		}
	}
	return n, step, true
}

// shortChunk is the most elements of a strided line convertLine gathers into a
// buffer of that size, not the long lines' 512: Go clears a buffer each call.
const shortChunk = 64

// convertLine sets d to the len(d) elements of src from off, step apart,
// converted to D (Cast's rule): a strided line gathered (gatherLine) a chunk
// at a time into a stack buffer that Cast converts, SIMD for uint8 to float32
// (a conversion an element, from memory, is several times slower).
func convertLine[D Float, S Number](d []D, src []S, off, step int) {
	if step == 1 {
		_ = Cast(d, src[off:off+len(d)]) // one length: no error
		return
	}
	if len(d) <= shortChunk { // a short line (a 4x4's rows): a small buffer to clear
		var chunk [shortChunk]S
		s := chunk[:len(d)]
		gatherLine(s, src, off, step)
		_ = Cast(d, s)
		return
	}
	var chunk [512]S // cleared at each call: 4 KiB of float64, several short lines' time
	for lo := 0; lo < len(d); lo += len(chunk) {
		s := chunk[:min(len(d)-lo, len(chunk))]
		gatherLine(s, src, off+lo*step, step)
		_ = Cast(d[lo:lo+len(s)], s)
	}
}

// scaleShiftBlock is ScaleShift(d, d, k, c) with its last elements past the
// whole vectors run as one more vector, through a zero-padded copy, rather
// than one software fma each (the portable float32 fma costs several ns): a
// 4-element line's fma is one instruction.
func scaleShiftBlock[T Float](d []T, k, c T) {
	i := kernelKC(d, d, k, c, scaleShiftF32, scaleShiftF64)
	if i < len(d) && level != useGo {
		var pad [16]T // whole vectors of every set, float32 or float64; the tail is shorter
		n := copy(pad[:], d[i:])
		if kernelKC(pad[:], pad[:], k, c, scaleShiftF32, scaleShiftF64) == len(pad) {
			i += copy(d[i:], pad[:n])
		}
	}
	for ; i < len(d); i++ {
		d[i] = fma(d[i], k, c)
	}
}
