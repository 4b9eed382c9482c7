package vec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"unsafe"
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
// the walk.
func Map[D, S any](dst View[D], src View[S], op func(d []D, s []S) error) error {
	if err := cmp.Or(check(dst.shape, dst), check(dst.shape, src)); err != nil {
		return err
	}
	if err := writable(dst); err != nil {
		return err
	}
	if d, ok := dst.Contiguous(); ok { // one run: no walk
		if s, ok := src.Contiguous(); ok {
			return op(d, s)
		}
	}
	g := newGather(src)
	sc := newScatter(dst)
	return forLines(dst.shape, true, [][]int{dst.strides, src.strides}, []int{dst.offset, src.offset},
		func(_ int, offs []int, n int, steps []int) error {
			for lo, m := 0, 0; lo < n; lo += m {
				m = min(n-lo, chunk)
				if steps[0] == 1 && steps[1] == 1 {
					m = n - lo
				}
				d := sc.begin(offs[0]+lo*steps[0], steps[0], m)
				if err := op(d, g.line(offs[1]+lo*steps[1], steps[1], m)); err != nil {
					return err
				}
				sc.end(offs[0]+lo*steps[0], steps[0], d)
			}
			return nil
		})
}

// Map2 is Map with two sources: op(d, a, b) sets d from a and b (vec.Add and
// the like). dst may be a or b itself.
func Map2[D, A, B any](dst View[D], a View[A], b View[B], op func(d []D, a []A, b []B) error) error {
	if err := cmp.Or(check(dst.shape, dst), check(dst.shape, a), check(dst.shape, b)); err != nil {
		return err
	}
	if err := writable(dst); err != nil {
		return err
	}
	if d, ok := dst.Contiguous(); ok { // one run: no walk
		sa, okA := a.Contiguous()
		sb, okB := b.Contiguous()
		if okA && okB {
			return op(d, sa, sb)
		}
	}
	ga, gb := newGather(a), newGather(b)
	sc := newScatter(dst)
	return forLines(dst.shape, true, [][]int{dst.strides, a.strides, b.strides},
		[]int{dst.offset, a.offset, b.offset},
		func(_ int, offs []int, n int, steps []int) error {
			for lo, m := 0, 0; lo < n; lo += m {
				m = min(n-lo, chunk)
				if steps[0] == 1 && steps[1] == 1 && steps[2] == 1 {
					m = n - lo
				}
				d := sc.begin(offs[0]+lo*steps[0], steps[0], m)
				if err := op(d, ga.line(offs[1]+lo*steps[1], steps[1], m), gb.line(offs[2]+lo*steps[2], steps[2], m)); err != nil {
					return err
				}
				sc.end(offs[0]+lo*steps[0], steps[0], d)
			}
			return nil
		})
}

// Lines calls fn with each line of x along its last dimension, whole (a
// buffer of it where x's last stride is not 1: writes to it are lost), and
// its index i among the lines in C order (x[i // shape[-2], i % shape[-2], :]
// for a 3-d x): row norms, row sums. A 0-d x is one line of one element.
func Lines[T any](x View[T], fn func(i int, line []T) error) error {
	if err := check(x.shape, x); err != nil {
		return err
	}
	var buf []T
	return forLines(x.shape, false, [][]int{x.strides}, []int{x.offset},
		func(i int, offs []int, n int, steps []int) error {
			if steps[0] == 1 {
				return fn(i, x.data[offs[0]:offs[0]+n])
			}
			if buf == nil {
				buf = make([]T, n)
			}
			gatherLine(buf, x.data, offs[0], steps[0])
			return fn(i, buf)
		})
}

// check is nil when v has the shape shape and memory for its elements.
func check[T any](shape []int, v View[T]) error {
	if !slices.Equal(v.shape, shape) {
		return fmt.Errorf("vec: an operand has shape %v, dst %v: pass views of one shape", v.shape, shape)
	}
	if v.data == nil && v.Len() != 0 {
		return errUnset
	}
	return nil
}

// writable is nil unless dst has a zero stride on a dimension of 2 or more:
// several of its indexes would be one element.
func writable[T any](dst View[T]) error {
	for i, d := range dst.shape {
		if d > 1 && dst.strides[i] == 0 {
			return fmt.Errorf("vec: dst's dimension %d has stride 0: its %d indexes are one element; "+
				"pass a dst that holds each element once", i, d)
		}
	}
	return nil
}

// gather reads a source's runs: its own memory where contiguous, else a buffer.
type gather[T any] struct {
	data []T
	buf  []T
}

func newGather[T any](v View[T]) *gather[T] { return &gather[T]{data: v.data} }

// line is the m elements from off, step apart.
func (g *gather[T]) line(off, step, m int) []T {
	if step == 1 {
		return g.data[off : off+m]
	}
	if len(g.buf) < m {
		g.buf = make([]T, m) // the first line's chunk: at most chunk elements
	}
	gatherLine(g.buf[:m], g.data, off, step)
	return g.buf[:m]
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
	if step == 2 {
		i = gatherStep2(buf, data, off) // SIMD where T is 4 or 8 bytes
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
	if step == 2 {
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

// scatter writes dst's runs: into its memory where contiguous, else into a
// buffer written back by end.
type scatter[T any] struct {
	data []T
	buf  []T
}

func newScatter[T any](v View[T]) *scatter[T] { return &scatter[T]{data: v.data} }

func (s *scatter[T]) begin(off, step, m int) []T {
	if step == 1 {
		return s.data[off : off+m]
	}
	if len(s.buf) < m {
		s.buf = make([]T, m)
	}
	return s.buf[:m]
}

func (s *scatter[T]) end(off, step int, d []T) {
	if step == 1 {
		return
	}
	scatterLine(s.data, off, step, d)
}

// forLines calls line for every line of the walk of shape over the operands
// with strides and first offsets offs: with the index of the line, each
// operand's offset of its first element, its length and each operand's step
// along it. Dimensions of extent 1 are dropped and neighbours merged where
// every operand allows, the last one too when mergeLast (Map); otherwise the
// line is the last dimension, whole (Lines). No line when an extent is 0; a
// 0-d walk is one line of one element.
func forLines(shape []int, mergeLast bool, strides [][]int, offs []int,
	line func(i int, offs []int, n int, steps []int) error) error {
	if slices.Contains(shape, 0) {
		return nil
	}
	outer, inner := shape, []int(nil)
	if !mergeLast && len(shape) > 0 {
		outer, inner = shape[:len(shape)-1], shape[len(shape)-1:]
	}
	// One allocation holds the merged dimensions (dims), the odometer (idx), each
	// operand's strides along them (rows of str), steps and the current offsets: a
	// small tensor's walk costs little more than its operation.
	nd, nops := len(outer), len(strides)
	buf := make([]int, nd*(nops+2)+2*nops)
	dims, idx := buf[:0:nd], buf[nd:2*nd]
	var strArr [3][]int
	str := strArr[:0]
	if nops > len(strArr) {
		str = make([][]int, 0, nops)
	}
	for o := range nops {
		row := buf[(2+o)*nd : (2+o)*nd]
		str = append(str, row[:0:nd])
	}
	steps, cur := buf[nd*(nops+2):nd*(nops+2)+nops], buf[nd*(nops+2)+nops:]
	copy(cur, offs)
	for d, ext := range outer {
		if ext == 1 {
			continue
		}
		if k := len(dims) - 1; k >= 0 && mergeable(str, strides, k, d, ext) {
			dims[k] *= ext
			for o := range str {
				str[o][k] = strides[o][d]
			}
			continue
		}
		dims = append(dims, ext)
		for o := range str {
			str[o] = append(str[o], strides[o][d])
		}
	}
	n := 1
	switch {
	case inner != nil:
		n = inner[0]
		for o := range steps {
			steps[o] = strides[o][len(shape)-1]
		}
	case len(dims) > 0:
		k := len(dims) - 1
		n = dims[k]
		for o := range steps {
			steps[o] = str[o][k]
			str[o] = str[o][:k]
		}
		dims = dims[:k]
	}
	idx = idx[:len(dims)]
	for i := 0; ; i++ {
		if err := line(i, cur, n, steps); err != nil {
			return err
		}
		k := len(dims) - 1
		for ; k >= 0; k-- {
			idx[k]++
			for o := range cur {
				cur[o] += str[o][k]
			}
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
			for o := range cur {
				cur[o] -= str[o][k] * dims[k]
			}
		}
		if k < 0 {
			return nil
		}
	}
}

// mergeable reports whether dimension d (extent ext) of every operand
// continues the merged dimension k: its stride times ext is k's.
func mergeable(merged, strides [][]int, k, d, ext int) bool {
	for o := range merged {
		if merged[o][k] != strides[o][d]*ext {
			return false
		}
	}
	return true
}
