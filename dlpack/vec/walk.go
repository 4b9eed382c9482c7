package vec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/godlpack/godlpack/internal/walkplan"
)

// The walks over views: an odometer steps the outer dimensions, and each line
// along the innermost one reaches the operation as a slice: the view's own
// memory where the line is contiguous, else a buffer of chunk elements that
// the walk gathers the line into (and scatters a result back from), typed
// loops with no call per element. The operation itself runs on slices, SIMD
// kernels and all.

// chunk is the most elements a gathered buffer holds: 4 KiB of float32,
// resident in the first-level cache between gather, operation and scatter.
const chunk = 1024

var errUnset = errors.New("vec: a zero View has no memory: make views with NewView, ViewOf or FromPointer")

// Map calls op with runs of dst and src at the same indexes, until every
// element of dst is written: op(d, s) must set d from s (as vec's functions do:
// Map(out, in, func(d, s []float32) error { return vec.Scale(d, s, 2) })). The
// views have the same shape; dst may be src itself (in place), but no other
// overlap, and has no zero stride. Runs are lines, dimensions merged where
// both views allow (a C-contiguous pair is one run). op's first error stops
// the walk; the runs are in the walk's order (the memory's, tiles of a
// transposed src included), so the elements written before the error are not
// those before it in C order. op may not keep d or s after it returns: a strided line's are a
// pooled buffer (walkBuf) the next walk reuses.
func Map[D, S any](dst View[D], src View[S], op func(d []D, s []S) error) error {
	return mapLines(dst, src, op, nil)
}

// step2Kernel does a line of n elements of a fused operation (fused.go) in one
// pass: dst's from dOff, src's from sOff, src's step 2 and dst's 1, or 2 when
// inPlace (dst is src); it returns how many of the first ones it did, the walk
// does the rest.
type step2Kernel[D, S any] func(dst []D, dOff int, src []S, sOff, n int, inPlace bool) int

// stridedLoop does a fused operation's rule element by element over a line of
// n elements, dst's from dOff dStep apart and src's from sOff sStep apart: a
// line shorter than shortLine at a step other than 1 (a 4x4 [:, ::2], a
// kernel's last elements) costs a few ns this way, against a buffer's gather,
// operation and scatter.
type stridedLoop[D, S any] func(dst []D, dOff, dStep int, src []S, sOff, sStep, n int)

// step2Rows does a fused operation in place over rows lines of n elements at
// step 2, the first at off and the next ones next apart, the lines' spans
// disjoint; it returns how many lines it did: all, or 0 (lines too long for its
// one vector each: the walk does them a line at a time).
type step2Rows[T any] func(data []T, off, rows, n, next int) int

// shortLine is the longest strided line (or rest of one) a stridedLoop does:
// below a vector of float32, where the kernels do nothing.
const shortLine = 16

// mapLines is Map, a line at step 2 first through fused (when not nil).
func mapLines[D, S any](dst View[D], src View[S], op func(d []D, s []S) error, fused step2Kernel[D, S]) error {
	return mapLinesShort(&dst, &src, op, fused, nil, nil)
}

// mapLinesShort is mapLines, the short strided lines (and rests) by short and
// in place, rows of step-2 lines first by rows (each when not nil). The views
// come by pointer: a View is 16 words, and its copies were a good part of a 4x4
// walk.
func mapLinesShort[D, S any](dst *View[D], src *View[S], op func(d []D, s []S) error, fused step2Kernel[D, S],
	short stridedLoop[D, S], rows step2Rows[D]) error {
	shape := dst.dims.shape()
	if dst.data == nil && dst.Len() != 0 { // check(shape, dst), but for its shape: its own
		return errUnset
	}
	if err := check(shape, src); err != nil {
		return err
	}
	if err := writable(dst); err != nil {
		return err
	}
	if d, ok := dst.contiguous(); ok { // one run: no walk
		if s, ok := src.contiguous(); ok {
			return op(d, s)
		}
	}
	// In place over strided lines (clip_ of x[:, ::2]): one buffer, gathered,
	// operated on in place and scattered back.
	w := mapWalk[D, S]{op: op, fused: fused, short: short, same: sameLayout(dst, src)}
	order := walkOrderOf(dst, w.same, func() bool { return overlaps(dst, src) })
	var bufs mapBufs[D, S]
	var err error
	if nr, n, dStep, sStep, do, so, dNext, sNext, ok := lines2(shape, dst.dims.strides(), src.dims.strides(),
		dst.offset, src.offset, order); ok { // no odometer
		if rows != nil && w.same && dStep == 2 && nr > 1 && max(dNext, -dNext) >= 2*n-1 && rows(dst.data, do, nr, n, dNext) == nr {
			return nil
		}
		if !w.same && dStep == 1 && tileable(nr, n, sStep, sNext) && !overlaps(dst, src) { // a transposed src into dst's rows
			err, nr = w.tiles(&bufs, dst.data, src.data, do, so, nr, n, dNext, sStep, sNext), 0
		}
		for r := 0; r < nr && err == nil; r++ {
			err = w.line(&bufs, dst.data, src.data, do, so, n, dStep, sStep)
			do, so = do+dNext, so+sNext
		}
	} else {
		err = forLines(shape, order, [][]int{dst.dims.strides(), src.dims.strides()}, []int{dst.offset, src.offset},
			func(_ int, offs [maxOps]int, n int, steps [maxOps]int) error {
				return w.line(&bufs, dst.data, src.data, offs[0], offs[1], n, steps[0], steps[1])
			})
	}
	bufs.d.release()
	bufs.s.release()
	return err
}

// mapWalk is what the lines of a Map walk share: the operation. Not the
// operands' memory, nor the buffers (mapBufs): escape analysis tells no field
// from another, and memory passed to op or a kernel, or a pooled buffer
// (walkPool), escapes, which would take the closures to the heap with it.
type mapWalk[D, S any] struct {
	op    func(d []D, s []S) error
	fused step2Kernel[D, S]
	short stridedLoop[D, S]
	same  bool // dst is src, walked alike: in place
}

// mapBufs are a Map walk's buffers of strided lines.
type mapBufs[D, S any] struct {
	d walkBuf[D]
	s walkBuf[S]
}

// line does the line of n elements of dst from do, dStep apart, and of src
// from so, sStep apart.
func (w *mapWalk[D, S]) line(bufs *mapBufs[D, S], dst []D, src []S, do, so, n, dStep, sStep int) error {
	done := 0
	if w.short != nil && n < shortLine && (dStep != 1 || sStep != 1) { // no kernel's call for a vector or less
		w.short(dst, do, dStep, src, so, sStep, n)
		return nil
	}
	if w.fused != nil && sStep == 2 && (dStep == 1 || w.same && dStep == 2) {
		done = w.fused(dst, do, src, so, n, dStep == 2)
	}
	if w.short != nil && n-done < shortLine && (dStep != 1 || sStep != 1) {
		w.short(dst, do+done*dStep, dStep, src, so+done*sStep, sStep, n-done)
		return nil
	}
	for lo, m := done, 0; lo < n; lo += m {
		m = min(n-lo, chunk)
		if dStep == 1 && sStep == 1 {
			m = n - lo
		}
		d0, s0 := do+lo*dStep, so+lo*sStep
		d := lineFor(dst, &bufs.d, d0, dStep, m)
		var s []S
		if w.same && dStep != 1 {
			s = any(d).([]S)
			gatherLine(s, src, s0, sStep)
		} else {
			s = lineOf(src, &bufs.s, s0, sStep, m)
		}
		if err := w.op(d, s); err != nil {
			return err
		}
		if dStep != 1 {
			scatterLine(dst, d0, dStep, d)
		}
	}
	return nil
}

// tiles does rows lines of n elements into contiguous lines of dst, the first
// from do and the next ones dNext apart, from src's lines, the first from so,
// sStep apart within a line and sNext apart from one to the next, closer to
// each other than their elements are (a transposed src): a tile of lines at a
// time (tileShape), their elements gathered together in src's memory order
// (gatherTile), several cache lines of a row of src read at once rather than
// one a line. src is read a tile ahead of dst's writes: dst may not overlap it.
func (w *mapWalk[D, S]) tiles(bufs *mapBufs[D, S], dst []D, src []S, do, so, rows, n, dNext, sStep, sNext int) error {
	b, k, ld := tileShape(rows, n, int(unsafe.Sizeof(src[0])), false)
	tile := bufs.s.get(b * ld)
	for r := 0; r < rows; r += b {
		b := min(b, rows-r)
		for lo := 0; lo < n; lo += k {
			k := min(k, n-lo)
			gatherTile(tile, src, so+r*sNext+lo*sStep, b, k, ld, sStep, sNext)
			for j := range b {
				d := do + (r+j)*dNext + lo
				if err := w.op(dst[d:d+k:d+k], tile[j*ld:j*ld+k:j*ld+k]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// lines2 is the walk of shape over two operands with strides a and b and first
// elements at offA and offB when shape has at most two dimensions (ok false
// otherwise: forLines walks it): the lines forLines would give, in the same
// order, rows lines of n elements from startA and startB (offA and offB moved
// by a flip), each operand's step along a line (stepA, stepB) and from one
// line's first element to the next's (nextA, nextB). Where a's strides are in
// order (walkplan.InOrder, every C-contiguous or rows-of dst) or order is not
// dstOrder, there is nothing to sort: extents of 1 dropped and the two
// dimensions merged where both operands allow, here, without walkplan.Plan's
// call (a third of a 4x4 strided walk's time); else Plan. No line when an
// extent is 0; a 0-d walk is one line of one element. Scalars, not a struct: a
// struct result's fields, stored one by one and read back two at a time,
// stalled every walk on store forwarding (perf).
func lines2(shape, a, b []int, offA, offB int, order walkOrder) (rows, n, stepA, stepB, startA, startB, nextA, nextB int, ok bool) {
	if len(shape) > 2 {
		return 0, 0, 0, 0, 0, 0, 0, 0, false
	}
	if order == dstOrder && !walkplan.InOrder(shape, a) {
		if slices.Contains(shape, 0) {
			return 0, 0, 0, 0, 0, 0, 0, 0, true
		}
		var dims, sa, sb [2]int
		copy(dims[:], shape)
		copy(sa[:], a)
		copy(sb[:], b)
		offs := [2]int{offA, offB}
		switch walkplan.Plan(dims[:len(shape)], [][]int{sa[:], sb[:]}, offs[:], 0, true) {
		case 0:
			return 1, 1, 0, 0, offs[0], offs[1], 0, 0, true
		case 1:
			return 1, dims[0], sa[0], sb[0], offs[0], offs[1], 0, 0, true
		}
		return dims[0], dims[1], sa[1], sb[1], offs[0], offs[1], sa[0], sb[0], true
	}
	switch len(shape) {
	case 0:
		return 1, 1, 0, 0, offA, offB, 0, 0, true
	case 1:
		if shape[0] == 0 {
			return 0, 0, 0, 0, 0, 0, 0, 0, true
		}
		return 1, shape[0], a[0], b[0], offA, offB, 0, 0, true
	}
	r, c := shape[0], shape[1]
	switch {
	case r == 0 || c == 0:
		return 0, 0, 0, 0, 0, 0, 0, 0, true
	case c == 1:
		return 1, r, a[0], b[0], offA, offB, 0, 0, true
	case r == 1 || a[0] == a[1]*c && b[0] == b[1]*c:
		return 1, r * c, a[1], b[1], offA, offB, 0, 0, true
	}
	return r, c, a[1], b[1], offA, offB, a[0], b[0], true
}

// Map2 is Map with two sources: op(d, a, b) sets d from a and b (vec.Add and
// the like). dst may be a or b itself.
func Map2[D, A, B any](dst View[D], a View[A], b View[B], op func(d []D, a []A, b []B) error) error {
	shape := dst.dims.shape()
	if err := cmp.Or(check(shape, &dst), check(shape, &a), check(shape, &b)); err != nil {
		return err
	}
	if err := writable(&dst); err != nil {
		return err
	}
	if d, ok := dst.contiguous(); ok { // one run: no walk
		sa, okA := a.contiguous()
		sb, okB := b.contiguous()
		if okA && okB {
			return op(d, sa, sb)
		}
	}
	var dbuf walkBuf[D]
	var abuf walkBuf[A]
	var bbuf walkBuf[B]
	defer dbuf.release()
	defer abuf.release()
	defer bbuf.release()
	order := walkOrderOf(&dst, false, func() bool {
		return !sameLayout(&dst, &a) && overlaps(&dst, &a) || !sameLayout(&dst, &b) && overlaps(&dst, &b)
	})
	return forLines(shape, order, [][]int{dst.dims.strides(), a.dims.strides(), b.dims.strides()},
		[]int{dst.offset, a.offset, b.offset},
		func(_ int, offs [maxOps]int, n int, steps [maxOps]int) error {
			for lo, m := 0, 0; lo < n; lo += m {
				m = min(n-lo, chunk)
				if steps[0] == 1 && steps[1] == 1 && steps[2] == 1 {
					m = n - lo
				}
				do := offs[0] + lo*steps[0]
				d := lineFor(dst.data, &dbuf, do, steps[0], m)
				if err := op(d, lineOf(a.data, &abuf, offs[1]+lo*steps[1], steps[1], m),
					lineOf(b.data, &bbuf, offs[2]+lo*steps[2], steps[2], m)); err != nil {
					return err
				}
				if steps[0] != 1 {
					scatterLine(dst.data, do, steps[0], d)
				}
			}
			return nil
		})
}

// Lines calls fn with each line of x along its last dimension, whole (a
// buffer of it where x's last stride is not 1: writes to it are lost), and
// its index i among the lines in C order (x[i // shape[-2], i % shape[-2], :]
// for a 3-d x), in that order: row norms, row sums. Where the lines' elements
// are further apart than the lines are (a transposed matrix's rows are its
// memory's columns), up to 64 lines at a time (tileLines) are gathered together
// in the memory's order, a cache line of each read once, not one a element; so
// are all the lines of a strided x of at most 1024 elements (chunk), in one go
// (so fn may not write x's memory: a line is read up to a tile before fn gets it).
// A 0-d x is one line of one element. fn may not keep line after it returns (a
// pooled buffer, as Map's).
func Lines[T any](x View[T], fn func(i int, line []T) error) error {
	shape, strides := x.dims.shape(), x.dims.strides()
	if err := check(shape, &x); err != nil {
		return err
	}
	var buf walkBuf[T]
	var err error
	nd := len(shape)
	switch {
	case nd <= 2: // a matrix's rows, without forLines' odometer
		rows, n, step, next := 1, 1, 0, 0 // a 0-d x: one line of one element
		switch nd {
		case 1:
			n, step = shape[0], strides[0]
		case 2:
			rows, n, step, next = shape[0], shape[1], strides[1], strides[0]
		}
		if n == 0 {
			rows = 0
		}
		err = matrixLines(x.data, &buf, x.offset, 0, rows, n, step, next, fn)
	case tileable(shape[nd-2], shape[nd-1], strides[nd-1], strides[nd-2]) && !slices.Contains(shape, 0):
		// the leading dimensions' indexes in C order, each a matrix of lines
		rows := shape[nd-2]
		err = forLines(shape[:nd-1], cOrder, [][]int{strides[:nd-1]}, []int{x.offset},
			func(i int, offs [maxOps]int, _ int, _ [maxOps]int) error {
				return matrixLines(x.data, &buf, offs[0], i*rows, rows, shape[nd-1], strides[nd-1], strides[nd-2], fn)
			})
	default:
		err = forLines(shape, cOrder, [][]int{strides}, []int{x.offset},
			func(i int, offs [maxOps]int, n int, steps [maxOps]int) error {
				return fn(i, lineOf(x.data, &buf, offs[0], steps[0], n))
			})
	}
	buf.release()
	return err
}

// The tiles of a transposed walk: up to tileLines lines gathered together, a
// tile of at most tileBytes, each line in the tile a cache line (tilePad bytes)
// longer than it is, so that the lines of a tile whose length is a multiple of
// 4 KiB do not all fall in one set of the cache. 64 lines of float32 read 256
// bytes, four cache lines, of each row of the memory at a visit: enough for the
// prefetcher to run ahead, where 16 (one line) were paced by the memory's
// latency (BenchmarkMemoryOrder).
const (
	tileLines = 64
	tileBytes = 256 << 10
	tilePad   = 64
)

// tileShape is the tile of a walk of rows lines of n elements of size bytes:
// b lines of k elements (k = n when whole is true: Lines' whole lines), ld
// elements from one to the next in the tile.
func tileShape(rows, n, size int, whole bool) (b, k, ld int) {
	pad := max(1, tilePad/size)
	if whole {
		k = n
		b = min(rows, tileLines, max(1, tileBytes/size/(n+pad)))
	} else {
		b = min(rows, tileLines)
		k = min(n, max(16, tileBytes/size/b-pad))
	}
	return b, k, k + pad
}

// tileable is whether Lines gathers rows lines of n elements, step apart within
// a line and next apart from one to the next, a tile at a time: the lines are
// strided, closer to each other than their elements are, and more than one.
func tileable(rows, n, step, next int) bool {
	return rows > 1 && n > 1 && step != 1 && next != 0 && max(next, -next) < max(step, -step)
}

// matrixLines calls fn with each of rows lines of n elements of data, the
// first from off, step apart within a line and next apart from one to the
// next, and their indexes i0, i0+1, ...: a line at a time, or (tiled) a tile
// of lines gathered together in the memory's order. A strided matrix of at
// most chunk elements is one tile whatever its order: gathered a line a call,
// a 4x4 [:, ::2]'s four lines cost more in calls and buffer lookups than its
// row norms (BenchmarkSmallNorms4x4Step2).
func matrixLines[T any](data []T, buf *walkBuf[T], off, i0, rows, n, step, next int, fn func(i int, line []T) error) error {
	b, ld := rows, n // a small strided matrix: one tile of every line, gathered by one call
	switch {
	case tileable(rows, n, step, next):
		b, _, ld = tileShape(rows, n, int(unsafe.Sizeof(data[0])), true)
	case step == 1 || n == 0 || rows*n > chunk:
		for r := range rows {
			if err := fn(i0+r, lineOf(data, buf, off+r*next, step, n)); err != nil {
				return err
			}
		}
		return nil
	}
	tile := buf.get(b * ld)
	for r := 0; r < rows; r += b {
		b := min(b, rows-r)
		gatherTile(tile, data, off+r*next, b, n, ld, step, next)
		for j := range b {
			if err := fn(i0+r+j, tile[j*ld:j*ld+n:j*ld+n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// gatherTile copies b lines of n elements of data, the first from off, step
// apart within a line and next apart from one line to the next, into tile, ld
// elements from one line to the next: element j of every line, then element
// j+1, so that where the lines are next to each other in memory the reads go
// through it in order. NewView and FromPointer checked that every element lies
// in data.
func gatherTile[T any](tile, data []T, off, b, n, ld, step, next int) {
	_ = tile[(b-1)*ld+n-1]                            // the tile's last element, checked once
	_, _ = data[off+(b-1)*next], data[off+(n-1)*step] // the corners of the source, ...
	_ = data[off+(b-1)*next+(n-1)*step]               // every element inside them
	size := int(unsafe.Sizeof(tile[0]))
	p, t := unsafe.Pointer(&data[off]), unsafe.Pointer(&tile[0])
	by, sby, lby := next*size, step*size, ld*size
	j := 0
	for ; j+4 <= n; j += 4 { // four of the memory's rows at a time: four misses in flight
		q := unsafe.Add(p, j*sby)
		d := unsafe.Add(t, j*size)
		for r := range b {
			s := unsafe.Add(q, r*by)
			e := unsafe.Add(d, r*lby)
			v0, v1 := *(*T)(s), *(*T)(unsafe.Add(s, sby))
			v2, v3 := *(*T)(unsafe.Add(s, 2*sby)), *(*T)(unsafe.Add(s, 3*sby))
			*(*T)(e) = v0
			*(*T)(unsafe.Add(e, size)) = v1
			*(*T)(unsafe.Add(e, 2*size)) = v2
			*(*T)(unsafe.Add(e, 3*size)) = v3
		}
	}
	for ; j < n; j++ {
		q := unsafe.Add(p, j*sby)
		for r := range b {
			*(*T)(unsafe.Add(t, (r*ld+j)*size)) = *(*T)(unsafe.Add(q, r*by))
		}
	}
}

// check is nil when v has the shape shape and memory for its elements.
func check[T any](shape []int, v *View[T]) error {
	if !slices.Equal(v.dims.shape(), shape) { // copies in the message: the views stay on the stack
		return fmt.Errorf("vec: an operand has shape %v, dst %v: pass views of one shape",
			slices.Clone(v.dims.shape()), slices.Clone(shape))
	}
	if v.data == nil && v.Len() != 0 {
		return errUnset
	}
	return nil
}

// writable is nil unless dst has a zero stride on a dimension of 2 or more:
// several of its indexes would be one element.
func writable[T any](dst *View[T]) error {
	strides := dst.dims.strides()
	for i, d := range dst.dims.shape() {
		if d > 1 && strides[i] == 0 {
			return fmt.Errorf("vec: dst's dimension %d has stride 0: its %d indexes are one element; "+
				"pass a dst that holds each element once", i, d)
		}
	}
	return nil
}

// lineOf is the m elements of data from off, step apart: data's own memory
// when step is 1, else buf's (m of them) gathered.
func lineOf[T any](data []T, buf *walkBuf[T], off, step, m int) []T {
	if step == 1 {
		return data[off : off+m]
	}
	b := lineFor(data, buf, off, step, m)
	gatherLine(b, data, off, step)
	return b
}

// lineFor is where an operation writes those m elements: data's own memory
// when step is 1, else buf's (m of them), which the caller scatters back.
func lineFor[T any](data []T, buf *walkBuf[T], off, step, m int) []T {
	if step == 1 {
		return data[off : off+m]
	}
	return buf.get(m)
}

// sameLayout is whether two views are one memory of one element type walked
// alike (a walk in place). Not any(a).(View[S]): that copied both views.
func sameLayout[D, S any](a *View[D], b *View[S]) bool {
	if _, sameType := any((*D)(nil)).(*S); !sameType {
		return false
	}
	return len(a.data) > 0 && len(b.data) > 0 && unsafe.Pointer(&a.data[0]) == unsafe.Pointer(&b.data[0]) &&
		a.offset == b.offset && slices.Equal(a.dims.strides(), b.dims.strides())
}

// walkOrderOf is the order of an element-wise walk into dst: dstOrder (memory
// order), unless it would change the order of the writes (dst's strides not in
// walkplan.InOrder) and overlap (called only then: a small walk's time) says
// dst meets a source it is not (same: dst is the source, walked alike); then
// cOrderMerged, the order before walks were planned, and its result.
func walkOrderOf[T any](dst *View[T], same bool, overlap func() bool) walkOrder {
	if same || walkplan.InOrder(dst.dims.shape(), dst.dims.strides()) || !overlap() {
		return dstOrder
	}
	return cOrderMerged
}

// overlaps is whether the memory a and b span, from the lowest element's first
// byte to the highest's last, meet: two views that do not may be walked in any
// order; two that do (dst a shifted view of src) are walked in C order, as
// before walks were planned, so that their result stays what it was.
func overlaps[D, S any](a *View[D], b *View[S]) bool {
	aLo, aHi, aOK := byteSpan(a)
	bLo, bHi, bOK := byteSpan(b)
	return aOK && bOK && aLo <= bHi && bLo <= aHi
}

// byteSpan is the addresses of the first and last bytes of v's elements (ok
// false when it has none).
func byteSpan[T any](v *View[T]) (lo, hi uintptr, ok bool) {
	if len(v.data) == 0 {
		return 0, 0, false
	}
	first, last := v.offset, v.offset
	strides := v.dims.strides()
	for i, e := range v.dims.shape() {
		if e == 0 {
			return 0, 0, false
		}
		if r := (e - 1) * strides[i]; r < 0 {
			first += r
		} else {
			last += r
		}
	}
	size := unsafe.Sizeof(*new(T))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(v.data)))
	return base + uintptr(first)*size, base + uintptr(last+1)*size - 1, true
}

// gatherLine copies the len(buf) elements of data from off, step apart, into
// buf. NewView and FromPointer checked that they lie in data: the loop reads
// through pointers, with no bounds check an element.
func gatherLine[T any](buf, data []T, off, step int) {
	if len(buf) == 0 {
		return
	}
	_ = data[off+(len(buf)-1)*step] // the last one, checked once
	p, by := unsafe.Pointer(&data[off]), step*int(unsafe.Sizeof(buf[0]))
	i := 0
	if step == 2 && len(buf)*int(unsafe.Sizeof(buf[0])) >= 32 { // SIMD where T is 4 or 8 bytes, 32 bytes or more
		i = gatherStep2(buf, data, off)
	} else if step == -1 && len(buf)*int(unsafe.Sizeof(buf[0])) >= 32 {
		i = gatherReverse(buf, data, off)
	}
	for ; i+4 <= len(buf); i += 4 { // never a pointer past the last element (checkptr)
		q, b := unsafe.Add(p, i*by), buf[i:i+4:i+4]
		b[0] = *(*T)(q)
		b[1] = *(*T)(unsafe.Add(q, by))
		b[2] = *(*T)(unsafe.Add(q, 2*by))
		b[3] = *(*T)(unsafe.Add(q, 3*by))
	}
	for ; i < len(buf); i++ {
		buf[i] = *(*T)(unsafe.Add(p, i*by))
	}
}

// scatterLine is gatherLine's inverse: buf's elements into data from off,
// step apart.
func scatterLine[T any](data []T, off, step int, buf []T) {
	if len(buf) == 0 {
		return
	}
	_ = data[off+(len(buf)-1)*step]
	p, by := unsafe.Pointer(&data[off]), step*int(unsafe.Sizeof(buf[0]))
	i := 0
	if step == 2 && len(buf)*int(unsafe.Sizeof(buf[0])) >= 32 {
		i = scatterStep2(data, off, buf)
	}
	for ; i+4 <= len(buf); i += 4 {
		q, b := unsafe.Add(p, i*by), buf[i:i+4:i+4]
		*(*T)(q) = b[0]
		*(*T)(unsafe.Add(q, by)) = b[1]
		*(*T)(unsafe.Add(q, 2*by)) = b[2]
		*(*T)(unsafe.Add(q, 3*by)) = b[3]
	}
	for ; i < len(buf); i++ {
		*(*T)(unsafe.Add(p, i*by)) = buf[i]
	}
}

// maxOps is the most operands a walk has (Map2's dst, a and b), and walkDims
// the most merged outer dimensions whose odometer lives on the stack: a walk
// allocates nothing of its own unless it has more, so a small tensor's walk
// costs little more than its operation.
const (
	maxOps   = 3
	walkDims = 8
)

// walkOrder is how forLines orders a walk (walkplan.Plan).
type walkOrder int

const (
	// cOrder: the last dimension whole, each line in turn (Lines: its index i
	// counts the lines in C order, and an operation may depend on the order).
	cOrder walkOrder = iota
	// cOrderMerged: C order, neighbours merged where every operand allows (a
	// walk that fills a C-contiguous dst in turn).
	cOrderMerged
	// dstOrder: the operands' dimensions sorted by operand 0's strides (dst),
	// flipped where its stride is negative, then merged: memory order, for
	// element-wise operations, whose elements do not depend on each other.
	dstOrder
)

// forLines calls line for every line of the walk of shape over the operands
// with strides and first offsets offs: with the index of the line, each
// operand's offset of its first element, its length and each operand's step
// along it. Dimensions of extent 1 are dropped, the order is order's and
// neighbours are merged where every operand allows, the last one too unless
// order is cOrder, whose line is the last dimension, whole (Lines). No line
// when an extent is 0; a 0-d walk is one line of one element.
func forLines(shape []int, order walkOrder, strides [][]int, offs []int,
	line func(i int, offs [maxOps]int, n int, steps [maxOps]int) error) error {
	if slices.Contains(shape, 0) {
		return nil
	}
	outer := shape
	if order == cOrder && len(shape) > 0 {
		outer = shape[:len(shape)-1]
	}
	// The planned dimensions (dims), the odometer (idx) and each operand's
	// strides along them (str[o]).
	var dimsArr, idxArr [walkDims]int
	var strArr [maxOps][walkDims]int
	dims, idx := dimsArr[:], idxArr[:]
	var str [maxOps][]int
	for o := range strides {
		str[o] = strArr[o][:]
	}
	if len(outer) > walkDims {
		dims, idx = make([]int, len(outer)), make([]int, len(outer))
		for o := range strides {
			str[o] = make([]int, len(outer))
		}
	}
	nops := len(strides)
	var steps, cur [maxOps]int
	copy(cur[:], offs)
	copy(dims, outer)
	for o := range nops {
		copy(str[o], strides[o][:len(outer)])
	}
	nd := walkplan.Plan(dims[:len(outer)], str[:nops], cur[:nops], 0, order == dstOrder)
	n := 1
	switch {
	case order == cOrder && len(shape) > 0:
		n = shape[len(shape)-1]
		for o := range nops {
			steps[o] = strides[o][len(shape)-1]
		}
	case nd > 0:
		nd--
		n = dims[nd]
		for o := range nops {
			steps[o] = str[o][nd]
		}
	}
	for i := 0; ; i++ {
		if err := line(i, cur, n, steps); err != nil {
			return err
		}
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			for o := range nops {
				cur[o] += str[o][k]
			}
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
			for o := range nops {
				cur[o] -= str[o][k] * dims[k]
			}
		}
		if k < 0 {
			return nil
		}
	}
}
