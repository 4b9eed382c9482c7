package vec

import (
	"fmt"
	"testing"
)

// ClipView and ScaleShiftView against NumPy's clip and scale_shift (the golden
// arrays), on every kernel set: lines at steps 2 (the fused kernels), 3, -1,
// -2 and 0 (a broadcast source), in place and into a dst of step 1 or -3,
// first elements at offsets 0..3 (alignment) and lengths 0..3x the widest
// vector and a few over, data ending right at a line's last element (the
// kernels' whole vectors must stop there) or past it, and several rows of
// [:, ::2]. In place, the elements between a line's are checked untouched.
// Integer ClipView has no fused kernel: its lines take Map's way, checked too.
func TestFusedViewsAgainstNumPy(t *testing.T) {
	g := loadGolden(t)
	t.Run("float32", func(t *testing.T) { fusedCases(t, g.Types["float32"], floatOps[float32]()) })
	t.Run("float64", func(t *testing.T) { fusedCases(t, g.Types["float64"], floatOps[float64]()) })
	t.Run("int8", func(t *testing.T) { fusedCases(t, g.Types["int8"], clipOps[int8]()) })
	t.Run("int32", func(t *testing.T) { fusedCases(t, g.Types["int32"], clipOps[int32]()) })
	t.Run("uint64", func(t *testing.T) { fusedCases(t, g.Types["uint64"], clipOps[uint64]()) })
}

// fusedOp is one fused view operation as the tests run it, with its golden
// results' name.
type fusedOp[T Number] struct {
	name string
	run  func(dst, src View[T], s [4]T) error
}

func clipOps[T Number]() []fusedOp[T] {
	return []fusedOp[T]{{"clip", func(d, src View[T], s [4]T) error { return ClipView(d, src, s[2], s[3]) }}}
}

func floatOps[T Float]() []fusedOp[T] {
	return append(clipOps[T](),
		fusedOp[T]{"scale_shift", func(d, src View[T], s [4]T) error { return ScaleShiftView(d, src, s[0], s[1]) }})
}

func fusedCases[T Number](t *testing.T, gt goldenType, ops []fusedOp[T]) {
	a := fromBits[T](bitsOf(t, gt.A))
	var s [4]T
	for i, v := range gt.Scalars {
		s[i] = T(v)
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for _, op := range ops {
			want := fromBits[T](bitsOf(t, gt.Ops[op.name]))
			for _, step := range []int{2, 3, -1, -2, 0} {
				for off := range 4 {
					for n := 0; n <= 3*16+3; n++ {
						for _, tail := range []int{0, 1} {
							c := fusedCase[T]{a: a, want: want, s: s, step: step, off: off, n: n, tail: tail}
							c.outOfPlace(t, op, 1)
							c.outOfPlace(t, op, -3)
							if step != 0 { // a dst of stride 0 is an error
								c.inPlace(t, op)
							}
						}
					}
				}
			}
			fusedRows(t, op, a, want, s)
		}
	})
}

// fusedCase is one line: n elements of the golden a step apart from its
// element off (from len(a)-2-off when step < 0), in data that ends tail
// elements past the line's span.
type fusedCase[T Number] struct {
	a, want            []T
	s                  [4]T
	step, off, n, tail int
}

// line is the line's view over data, a copy of the golden a cut tail
// elements past the line's span, and the golden index of element i.
func (c fusedCase[T]) line(t *testing.T) (View[T], []T, func(i int) int) {
	t.Helper()
	first, last := c.off, c.off+max(c.n-1, 0)*c.step
	if c.step < 0 {
		first = len(c.a) - 2 - c.off // room for the tail
		last = first + max(c.n-1, 0)*c.step
	}
	end := max(first, last) + 1 + c.tail
	data := append([]T(nil), c.a[:end]...)
	v, err := NewView(data, first, []int64{int64(c.n)}, []int64{int64(c.step)})
	if err != nil {
		t.Fatal(err)
	}
	return v, data, func(i int) int { return first + i*c.step }
}

func (c fusedCase[T]) what(op fusedOp[T], how string) string {
	return fmt.Sprintf("%s %s step %d off %d n %d tail %d", op.name, how, c.step, c.off, c.n, c.tail)
}

func (c fusedCase[T]) outOfPlace(t *testing.T, op fusedOp[T], dstStep int) {
	t.Helper()
	src, _, idx := c.line(t)
	out := make([]T, max(1, 3*c.n))
	dFirst := 0
	if dstStep < 0 {
		dFirst = len(out) - 1
	}
	dst, err := NewView(out, dFirst, []int64{int64(c.n)}, []int64{int64(dstStep)})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.run(dst, src, c.s); err != nil {
		t.Fatalf("%s: %v", c.what(op, "into a new dst"), err)
	}
	for i := range c.n {
		got, want := out[dFirst+i*dstStep], c.want[idx(i)]
		if !sameValue(got, want, false) {
			t.Fatalf("%s (dst step %d): element %d (input %v) is %v, NumPy %v",
				c.what(op, "into a new dst"), dstStep, i, c.a[idx(i)], got, want)
		}
	}
}

func (c fusedCase[T]) inPlace(t *testing.T, op fusedOp[T]) {
	t.Helper()
	v, data, idx := c.line(t)
	if err := op.run(v, v, c.s); err != nil {
		t.Fatalf("%s: %v", c.what(op, "in place"), err)
	}
	inLine := make(map[int]bool, c.n)
	for i := range c.n {
		inLine[idx(i)] = true
		if got, want := data[idx(i)], c.want[idx(i)]; !sameValue(got, want, false) {
			t.Fatalf("%s: element %d (input %v) is %v, NumPy %v", c.what(op, "in place"), i, c.a[idx(i)], got, want)
		}
	}
	for j := range data {
		if !inLine[j] && !sameBytes(data[j], c.a[j]) {
			t.Fatalf("%s: data[%d], no element of the line, is now %v, was %v", c.what(op, "in place"), j, data[j], c.a[j])
		}
	}
}

// fusedRows runs op in place over rows of [:, ::2] (several lines, each
// starting at a new offset) and from them into a C-contiguous dst.
func fusedRows[T Number](t *testing.T, op fusedOp[T], a, want []T, s [4]T) {
	t.Helper()
	const rows, cols, pitch = 3, 21, 2*21 + 3 // row r's elements: a[r*pitch + 2j]
	data := append([]T(nil), a[:rows*pitch]...)
	v, err := NewView(data, 0, []int64{int64(rows), int64(cols)}, []int64{int64(pitch), 2})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]T, rows*cols)
	dst, _ := ViewOf(out, rows, cols)
	if err := op.run(dst, v, s); err != nil {
		t.Fatal(err)
	}
	if err := op.run(v, v, s); err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		for j := range cols {
			k := r*pitch + 2*j
			if !sameValue(data[k], want[k], false) || !sameValue(out[r*cols+j], want[k], false) {
				t.Fatalf("%s rows of [:, ::2]: [%d, %d] in place %v, into dst %v, NumPy %v",
					op.name, r, j, data[k], out[r*cols+j], want[k])
			}
		}
	}
	for k := range data {
		if (k%pitch)%2 == 1 || k%pitch >= 2*cols {
			if !sameBytes(data[k], a[k]) {
				t.Fatalf("%s rows of [:, ::2]: data[%d], between the elements, changed", op.name, k)
			}
		}
	}
}
