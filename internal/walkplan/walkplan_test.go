package walkplan

import (
	"slices"
	"testing"
)

// Plan's walks: a transposed or permuted C-contiguous key becomes one run, a
// reversed one a forward run, the other operand follows the key's order, and
// what may not be reordered keeps C order.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name        string
		shape       []int
		strides     [][]int
		offs        []int
		reorder     bool
		wantShape   []int
		wantStrides [][]int
		wantOffs    []int
	}{
		{"C-contiguous: one run", []int{4, 3, 2}, [][]int{{6, 2, 1}, {6, 2, 1}}, []int{0, 0}, true,
			[]int{24}, [][]int{{1}, {1}}, []int{0, 0}},
		{"transposed in place: one run", []int{3, 4}, [][]int{{1, 3}, {1, 3}}, []int{0, 0}, true,
			[]int{12}, [][]int{{1}, {1}}, []int{0, 0}},
		{"permuted 3-d (HWC as CHW)", []int{3, 5, 7}, [][]int{{1, 21, 3}}, []int{0}, true,
			[]int{105}, [][]int{{1}}, []int{0}},
		{"reversed: walked forwards", []int{2, 3}, [][]int{{-3, -1}, {-3, -1}}, []int{5, 5}, true,
			[]int{6}, [][]int{{1}, {1}}, []int{0, 0}},
		{"transposed src into a C-contiguous dst: dst's order", []int{3, 4}, [][]int{{4, 1}, {1, 3}}, []int{0, 0}, true,
			[]int{3, 4}, [][]int{{4, 1}, {1, 3}}, []int{0, 0}},
		{"C-contiguous src into a transposed dst: dst's order", []int{3, 4}, [][]int{{1, 3}, {4, 1}}, []int{0, 0}, true,
			[]int{4, 3}, [][]int{{3, 1}, {1, 4}}, []int{0, 0}},
		{"a flipped dst flips the source", []int{4}, [][]int{{-1}, {2}}, []int{3, 0}, true,
			[]int{4}, [][]int{{1}, {-2}}, []int{0, 6}},
		{"a broadcast source", []int{3, 4}, [][]int{{1, 3}, {0, 1}}, []int{0, 0}, true,
			[]int{4, 3}, [][]int{{3, 1}, {1, 0}}, []int{0, 0}},
		{"extents of 1 dropped", []int{1, 3, 1}, [][]int{{99, 1, 7}}, []int{0}, true,
			[]int{3}, [][]int{{1}}, []int{0}},
		{"not reordered: C order kept", []int{3, 4}, [][]int{{1, 3}}, []int{0}, false,
			[]int{3, 4}, [][]int{{1, 3}}, []int{0}},
		{"a self-overlapping key: C order kept", []int{3, 3}, [][]int{{1, 2}}, []int{0}, true,
			[]int{3, 3}, [][]int{{1, 2}}, []int{0}},
		{"a zero-stride key: C order kept", []int{2, 3}, [][]int{{0, -1}}, []int{2}, true,
			[]int{2, 3}, [][]int{{0, -1}}, []int{2}},
	} {
		shape := slices.Clone(c.shape)
		strides := make([][]int, len(c.strides))
		for o := range strides {
			strides[o] = slices.Clone(c.strides[o])
		}
		offs := slices.Clone(c.offs)
		nd := Plan(shape, strides, offs, 0, c.reorder)
		if !slices.Equal(shape[:nd], c.wantShape) || !slices.Equal(offs, c.wantOffs) {
			t.Errorf("%s: shape %v offsets %v, want %v %v", c.name, shape[:nd], offs, c.wantShape, c.wantOffs)
		}
		for o := range strides {
			if !slices.Equal(strides[o][:nd], c.wantStrides[o]) {
				t.Errorf("%s: operand %d strides %v, want %v", c.name, o, strides[o][:nd], c.wantStrides[o])
			}
		}
	}
}

// Plan's walk visits the same pairs of elements as the C-order walk, whatever
// it reorders, flips and merges: every layout of a 2x3x4 pair of operands.
func TestPlanVisitsTheSamePairs(t *testing.T) {
	shape := []int64{2, 3, 4}
	for perm := range permutations(3) {
		for signs := range 8 {
			dst := layout(shape, perm, signs)
			src := layout(shape, []int{2, 1, 0}, 7-signs)
			want := pairs(shape, dst, src)
			s, d, sr := slices.Clone(shape), slices.Clone(dst.strides), slices.Clone(src.strides)
			offs := []int64{dst.off, src.off}
			nd := Plan(s, [][]int64{d, sr}, offs, 0, true)
			got := pairs(s[:nd], offStrides{offs[0], d[:nd]}, offStrides{offs[1], sr[:nd]})
			slices.SortFunc(got, func(a, b [2]int64) int { return int(a[0] - b[0]) })
			slices.SortFunc(want, func(a, b [2]int64) int { return int(a[0] - b[0]) })
			if !slices.Equal(got, want) {
				t.Fatalf("perm %v signs %b: pairs %v, want %v", perm, signs, got, want)
			}
			if d[nd-1] != 1 {
				t.Fatalf("perm %v signs %b: the innermost dst stride is %d, want 1 (memory order)", perm, signs, d[nd-1])
			}
		}
	}
}

type offStrides struct {
	off     int64
	strides []int64
}

// layout is a C-contiguous layout of shape with its dimensions permuted (perm)
// and reversed where signs has the dimension's bit.
func layout(shape []int64, perm []int, signs int) offStrides {
	mem := make([]int64, len(shape)) // C-contiguous strides of shape permuted
	step := int64(1)
	for i := len(perm) - 1; i >= 0; i-- {
		mem[perm[i]] = step
		step *= shape[perm[i]]
	}
	l := offStrides{strides: mem}
	for d := range shape {
		if signs&(1<<d) != 0 {
			l.off += (shape[d] - 1) * mem[d]
			mem[d] = -mem[d]
		}
	}
	return l
}

// pairs is the (dst, src) offsets of every index of shape.
func pairs(shape []int64, dst, src offStrides) [][2]int64 {
	var out [][2]int64
	var rec func(d int, a, b int64)
	rec = func(d int, a, b int64) {
		if d == len(shape) {
			out = append(out, [2]int64{a, b})
			return
		}
		for i := range shape[d] {
			rec(d+1, a+i*dst.strides[d], b+i*src.strides[d])
		}
	}
	rec(0, dst.off, src.off)
	return out
}

func permutations(n int) func(func([]int) bool) {
	return func(yield func([]int) bool) {
		var rec func(p []int) bool
		rec = func(p []int) bool {
			if len(p) == n {
				return yield(slices.Clone(p))
			}
			for i := range n {
				if !slices.Contains(p, i) && !rec(append(p, i)) {
					return false
				}
			}
			return true
		}
		rec(nil)
	}
}
