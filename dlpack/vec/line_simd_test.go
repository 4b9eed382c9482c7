//go:build goexperiment.simd && amd64

package vec

import (
	"encoding/json"
	"slices"
	"testing"
	"unsafe"
)

// The element-wise kernels on results long enough for aligned stores
// (alignFrom vectors and more: first and last vectors unaligned, the rest on
// whole lines): every operation, element size and SIMD level against the
// portable loops (themselves checked against NumPy in elementwise_test.go),
// bit for bit, with dst at every element of a line, apart from its operands
// and in place.
func TestLongKernelsMatchPortable(t *testing.T) {
	eachType(t, func(line int) ([]int, []int) {
		from := alignFrom * line
		return []int{from - 1, from, from + line + 3}, offsets(line)
	})
}

// The kernels on lines of streamFrom bytes and more, their rest walked as four
// quarters at once: a length whose quarters are not whole vectors (the loop
// after does the rest), dst on a line and off one.
func TestStreamedKernelsMatchPortable(t *testing.T) {
	eachType(t, func(line int) ([]int, []int) {
		from := streamFrom / (64 / line)
		return []int{from - 1, from + 5*line + 3}, []int{0, line - 3}
	})
}

// eachType runs longCases for each element size, with the lengths and dst
// offsets (elements past a line) that cases gives for a line of so many elements.
func eachType(t *testing.T, cases func(line int) (lengths, offs []int)) {
	g := loadGolden(t)
	t.Run("float32", func(t *testing.T) { longCases[float32](t, g.Types["float32"], cases) })
	t.Run("float64", func(t *testing.T) { longCases[float64](t, g.Types["float64"], cases) })
	t.Run("int8", func(t *testing.T) { longCases[int8](t, g.Types["int8"], cases) })
	t.Run("uint16", func(t *testing.T) { longCases[uint16](t, g.Types["uint16"], cases) })
	t.Run("int32", func(t *testing.T) { longCases[int32](t, g.Types["int32"], cases) })
	t.Run("uint64", func(t *testing.T) { longCases[uint64](t, g.Types["uint64"], cases) })
}

// offsets is every element of a line.
func offsets(line int) []int {
	out := make([]int, line)
	for i := range out {
		out[i] = i
	}
	return out
}

func longCases[T Number](t *testing.T, gt goldenType, cases func(line int) (lengths, offs []int)) {
	line := 64 / int(unsafe.Sizeof(*new(T)))
	lengths, offs := cases(line)
	var s [4]T
	for i, v := range gt.Scalars {
		s[i] = T(v)
	}
	most := slices.Max(lengths)
	a, b, c := tiled[T](t, gt.A, most+3), tiled[T](t, gt.B, most), tiled[T](t, gt.C, most)
	for _, l := range levels()[1:] {
		for _, op := range opCases[T]() {
			for _, n := range lengths {
				for _, off := range offs {
					longCase(t, op, l, a[3:3+n], b[:n], c[:n], s, off)
				}
			}
		}
	}
}

// apart, the streams' condition: dst is the source or does not meet it. A
// partial overlap (dst a shifted view of the source, either way) keeps the one
// loop, whose order of writes is its answer.
func TestApartIsInPlaceOrDisjoint(t *testing.T) {
	buf := make([]float32, 64)
	for _, c := range []struct {
		name      string
		dst, src  []float32
		wantApart bool
	}{
		{"in place", buf[:32], buf[:32], true},
		{"disjoint", buf[:32], buf[32:], true},
		{"adjacent before", buf[32:], buf[:32], true},
		{"dst one past src", buf[1:33], buf[:32], false},
		{"src one past dst", buf[:32], buf[1:33], false},
		{"dst inside src", buf[8:16], buf[:32], false},
	} {
		if got := apart(c.dst, c.src); got != c.wantApart {
			t.Errorf("%s: apart %v, want %v", c.name, got, c.wantApart)
		}
	}
}

// longCase runs op on n elements into dst at off elements past a line, apart
// and in place, at level l and on the portable loops, and compares.
func longCase[T Number](t *testing.T, op opCase[T], l int, a, b, c []T, s [4]T, off int) {
	t.Helper()
	n := len(a)
	run := func(lvl int, inPlace bool) []T {
		d := lineAt[T](n, off)
		src := a
		if inPlace {
			copy(d, a)
			src = d
		}
		prev := setLevel(lvl)
		defer setLevel(prev)
		if err := op.run(d, src, b, c, s); err != nil {
			t.Fatalf("%s n %d: %v", op.name, n, err)
		}
		return d
	}
	for _, inPlace := range []bool{false, true} {
		got, want := run(l, inPlace), run(useGo, inPlace)
		for i := range got {
			if !sameValue(got[i], want[i], op.zerosEqual) {
				t.Fatalf("%s %s n %d dst %d past a line, in place %v: element %d (inputs %v, %v) is %v, portable %v",
					op.name, levelNames[l], n, off, inPlace, i, a[i], b[i], got[i], want[i])
			}
		}
	}
}

// lineAt is a new slice of n Ts starting off elements past a 64-byte line.
func lineAt[T Number](n, off int) []T {
	buf := make([]T, n+off+64/int(unsafe.Sizeof(*new(T))))
	skip := lineHead(buf)
	return buf[skip+off : skip+off+n : skip+off+n]
}

// tiled is the golden values in bits repeated to n elements.
func tiled[T Number](t *testing.T, bits []json.Number, n int) []T {
	one := fromBits[T](bitsOf(t, bits))
	out := make([]T, n)
	for i := 0; i < n; i += copy(out[i:], one) {
	}
	return out
}

// A result in memory not aligned to its element (a DLPack producer's byte
// offset may say so): no element of a line can start it, lineHead's count
// stops short of the boundary, and the stores after are unaligned: right all
// the same.
func TestLongKernelOffItsAlignment(t *testing.T) {
	n := 4 * alignFrom * 16
	raw := make([]byte, 4*n+128)
	base := lineHead(raw)
	a := tiled[float32](t, []json.Number{"1065353216", "3217031168", "2143289344"}, n) // 1, -1.5, NaN
	for _, off := range []int{2, 62} {
		dst := unsafe.Slice((*float32)(unsafe.Pointer(&raw[base+off])), n)
		if err := Scale(dst, a, 2); err != nil {
			t.Fatal(err)
		}
		for i, v := range dst {
			if w := a[i] * 2; !sameValue(v, w, false) {
				t.Fatalf("off %d: element %d is %v, want %v", off, i, v, w)
			}
		}
	}
}
