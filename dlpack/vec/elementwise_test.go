package vec

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"
)

// opCase is one element-wise operation as the tests run it: on slices d, a,
// b (c: MulAdd's third operand) with the golden scalars k, c, lo, hi.
type opCase[T Number] struct {
	name string
	run  func(d, a, b, c []T, s [4]T) error
	// binary: b is an operand (Map2 in the view tests); zerosEqual: NumPy
	// makes no promise on the sign of an equal zero's result.
	binary, zerosEqual bool
}

func opCases[T Number]() []opCase[T] {
	cases := []opCase[T]{
		{name: "scale", run: func(d, a, _, _ []T, s [4]T) error { return Scale(d, a, s[0]) }},
		{name: "add_scalar", run: func(d, a, _, _ []T, s [4]T) error { return AddScalar(d, a, s[1]) }},
		{name: "div_scalar", run: func(d, a, _, _ []T, s [4]T) error { return DivScalar(d, a, s[0]) }},
		{name: "clip", run: func(d, a, _, _ []T, s [4]T) error { return Clip(d, a, s[2], s[3]) }},
		{name: "abs", run: func(d, a, _, _ []T, _ [4]T) error { return Abs(d, a) }},
		{name: "add", run: func(d, a, b, _ []T, _ [4]T) error { return Add(d, a, b) }, binary: true},
		{name: "sub", run: func(d, a, b, _ []T, _ [4]T) error { return Sub(d, a, b) }, binary: true},
		{name: "mul", run: func(d, a, b, _ []T, _ [4]T) error { return Mul(d, a, b) }, binary: true},
		{name: "div", run: func(d, a, b, _ []T, _ [4]T) error { return Div(d, a, b) }, binary: true},
		{name: "minimum", run: func(d, a, b, _ []T, _ [4]T) error { return Minimum(d, a, b) }, binary: true, zerosEqual: true},
		{name: "maximum", run: func(d, a, b, _ []T, _ [4]T) error { return Maximum(d, a, b) }, binary: true, zerosEqual: true},
	}
	if !isFloatType[T]() {
		return cases
	}
	return append(cases,
		opCase[T]{name: "sqrt", run: func(d, a, _, _ []T, _ [4]T) error {
			return onFloats(d, a, a, a, Sqrt[float32], Sqrt[float64])
		}},
		opCase[T]{name: "scale_shift", run: func(d, a, _, _ []T, s [4]T) error {
			return onFloats(d, a, a, a,
				func(d, a []float32) error { return ScaleShift(d, a, any(s[0]).(float32), any(s[1]).(float32)) },
				func(d, a []float64) error { return ScaleShift(d, a, any(s[0]).(float64), any(s[1]).(float64)) })
		}},
		opCase[T]{name: "mul_add", run: func(d, a, b, c []T, _ [4]T) error {
			switch d := any(d).(type) {
			case []float32:
				return MulAdd(d, any(a).([]float32), any(b).([]float32), any(c).([]float32))
			case []float64:
				return MulAdd(d, any(a).([]float64), any(b).([]float64), any(c).([]float64))
			}
			return nil
		}},
	)
}

// onFloats runs the float32 or float64 form of a float-only operation.
func onFloats[T Number](d, a, _, _ []T, f32 func(d, a []float32) error, f64 func(d, a []float64) error) error {
	switch d := any(d).(type) {
	case []float32:
		return f32(d, any(a).([]float32))
	case []float64:
		return f64(d, any(a).([]float64))
	}
	return nil
}

func TestElementwiseAgainstNumPy(t *testing.T) {
	g := loadGolden(t)
	for name, gt := range g.Types {
		t.Run(name, func(t *testing.T) {
			switch name {
			case "float32":
				elementwiseCases[float32](t, gt)
			case "float64":
				elementwiseCases[float64](t, gt)
			case "int8":
				elementwiseCases[int8](t, gt)
			case "uint8":
				elementwiseCases[uint8](t, gt)
			case "uint16":
				elementwiseCases[uint16](t, gt)
			case "int32":
				elementwiseCases[int32](t, gt)
			case "int64":
				elementwiseCases[int64](t, gt)
			case "int16":
				elementwiseCases[int16](t, gt)
			case "uint32":
				elementwiseCases[uint32](t, gt)
			case "uint64":
				elementwiseCases[uint64](t, gt)
			default:
				t.Fatalf("no test for golden type %s", name)
			}
		})
	}
}

// elementwiseCases checks every operation on every kernel set against NumPy:
// contiguous at every offset 0..3 and length 0..3x T's widest vector (64
// bytes: 192 int8, 48 float32), in place, and as views with strides 2, 3, -1,
// -2 (a strided or contiguous dst) and a zero-stride b.
func elementwiseCases[T Number](t *testing.T, gt goldenType) {
	a, b, c := fromBits[T](bitsOf(t, gt.A)), fromBits[T](bitsOf(t, gt.B)), fromBits[T](bitsOf(t, gt.C))
	var s [4]T
	for i, v := range gt.Scalars {
		s[i] = T(v)
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for _, op := range opCases[T]() {
			want := fromBits[T](bitsOf(t, gt.Ops[op.name]))
			check := func(what string, got []T, idx func(i int) int) {
				t.Helper()
				for i := range got {
					if w := want[idx(i)]; !sameValue(got[i], w, op.zerosEqual) {
						t.Fatalf("%s %s: element %d (input %d: %v, %v) is %v, NumPy %v",
							op.name, what, i, idx(i), a[idx(i)], b[idx(i)], got[i], w)
					}
				}
			}
			for off := range 4 {
				for n := range 3*64/int(unsafe.Sizeof(a[0])) + 1 {
					d := make([]T, n)
					if err := op.run(d, a[off:off+n], b[off:off+n], c[off:off+n], s); err != nil {
						t.Fatalf("%s off %d n %d: %v", op.name, off, n, err)
					}
					check(fmt.Sprintf("off %d n %d", off, n), d, func(i int) int { return off + i })
					in := append([]T(nil), a[off:off+n]...) // in place: dst is a
					if err := op.run(in, in, b[off:off+n], c[off:off+n], s); err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("in place off %d n %d", off, n), in, func(i int) int { return off + i })
				}
			}
			if op.name == "mul_add" {
				continue // three operands: Map2 takes two
			}
			for _, step := range []int{2, 3, -1, -2} {
				for _, n := range []int{0, 1, 7, 16, 17, 33, 48} {
					for _, dstStep := range []int{1, -3} {
						viewCase(t, op, a, b, s, step, n, dstStep, func(got []T, idx func(int) int) {
							check(fmt.Sprintf("step %d n %d dst step %d", step, n, dstStep), got, idx)
						})
					}
				}
			}
			if op.name == "add" { // b broadcast: stride 0
				wantB := fromBits[T](bitsOf(t, gt.Ops["add_bcast"]))
				av, _ := ViewOf(a)
				bv, err := NewView(b, 0, []int64{int64(len(a))}, []int64{0})
				if err != nil {
					t.Fatal(err)
				}
				d := make([]T, len(a))
				dv, _ := ViewOf(d)
				if err := Map2(dv, av, bv, func(d, a, b []T) error { return Add(d, a, b) }); err != nil {
					t.Fatal(err)
				}
				for i := range d {
					if !sameValue(d[i], wantB[i], false) {
						t.Fatalf("add with b of stride 0: element %d is %v, NumPy %v", i, d[i], wantB[i])
					}
				}
			}
		}
	})
}

// viewCase runs op through Map/Map2 on n elements of a and b step apart
// (negative: from the end), writing a dst view dstStep apart, and gives
// check the results and their golden indexes.
func viewCase[T Number](t *testing.T, op opCase[T], a, b []T, s [4]T, step, n, dstStep int,
	check func(got []T, idx func(int) int)) {
	t.Helper()
	first := 1 // a start that is no vector's
	if step < 0 {
		first = len(a) - 2
	}
	av, err := NewView(a, first, []int64{int64(n)}, []int64{int64(step)})
	if err != nil {
		t.Fatal(err)
	}
	bv, _ := NewView(b, first, []int64{int64(n)}, []int64{int64(step)})
	out := make([]T, max(1, 3*n))
	dFirst := 0
	if dstStep < 0 {
		dFirst = len(out) - 1
	}
	dv, err := NewView(out, dFirst, []int64{int64(n)}, []int64{int64(dstStep)})
	if err != nil {
		t.Fatal(err)
	}
	if op.binary {
		err = Map2(dv, av, bv, func(d, a, b []T) error { return op.run(d, a, b, nil, s) })
	} else {
		err = Map(dv, av, func(d, a []T) error { return op.run(d, a, nil, nil, s) })
	}
	if err != nil {
		t.Fatalf("%s step %d: %v", op.name, step, err)
	}
	got := make([]T, n)
	for i := range got {
		got[i] = out[dFirst+i*dstStep]
	}
	check(got, func(i int) int { return first + i*step })
}

// A length mismatch names the operand (from 1, after dst) and its length, and
// leaves dst untouched (sameLen, inlined into every slice operation, makes the
// error out of line).
func TestLengthErrorNamesTheOperand(t *testing.T) {
	dst := []float32{9, 9, 9}
	for name, err := range map[string]error{
		"Add b":  Add(dst, make([]float32, 3), make([]float32, 4)),
		"Clip a": Clip(dst, make([]float32, 2), 0, 1),
	} {
		want := map[string]string{"Add b": "operand 2 has 4", "Clip a": "operand 1 has 2"}[name]
		if err == nil || !strings.Contains(err.Error(), "dst has 3 elements but source "+want) {
			t.Errorf("%s: %v, want dst has 3 elements but source %s", name, err, want)
		}
	}
	if dst[0] != 9 || dst[2] != 9 {
		t.Errorf("dst written: %v", dst)
	}
}

// Minimum and Maximum keep their documented rule on every kernel set, bit for
// bit: NaN where either operand is, else a < b ? a : b (b of two equal zeros).
// The compiler takes archsimd's Min and Max as commutative, so a kernel that
// relied on their operand order could give a's zero or drop b's NaN.
func TestMinimumMaximumNaNAndZerosOnEveryKernelSet(t *testing.T) {
	minMaxRule[float32](t)
	minMaxRule[float64](t)
}

func minMaxRule[T float32 | float64](t *testing.T) {
	negZero := T(math.Copysign(0, -1))
	values := []T{1, T(math.NaN()), 0, negZero, -1}
	// every pair of values, in every lane: 25 pairs over 75 elements
	var a, b []T
	for i := range 75 {
		a = append(a, values[i%5])
		b = append(b, values[(i/5+i)%5])
	}
	bits := func(x T) uint64 {
		if f, ok := any(x).(float32); ok {
			return uint64(math.Float32bits(f))
		}
		return math.Float64bits(float64(x))
	}
	dst := make([]T, len(a))
	eachLevel(t, func(t *testing.T, _ int) {
		for _, op := range []struct {
			name string
			run  func(d, a, b []T) error
			rule func(a, b T) T
		}{{"Minimum", Minimum[T], minimum[T]}, {"Maximum", Maximum[T], maximum[T]}} {
			if err := op.run(dst, a, b); err != nil {
				t.Fatal(err)
			}
			for i := range dst {
				want := op.rule(a[i], b[i])
				if bits(dst[i]) != bits(want) && !(dst[i] != dst[i] && want != want) {
					t.Errorf("%T %s(%v, %v) at %d: %v, want %v", a[i], op.name, a[i], b[i], i, dst[i], want)
				}
			}
		}
	})
}

// Clip keeps an element that equals a bound, as np.clip and torch.clamp do: a
// zero of the other sign than a zero bound stays as it is (lo where a < lo, hi
// where a > hi, and -0 < 0 is false), on every kernel set and on the lines
// past the kernels' vectors. The values are np.clip's (NumPy 2.4).
func TestClipKeepsAZeroEqualToAZeroBound(t *testing.T) {
	clipZeros[float32](t)
	clipZeros[float64](t)
}

func clipZeros[T float32 | float64](t *testing.T) {
	nz, nan := T(math.Copysign(0, -1)), T(math.NaN())
	values := []T{0, nz, 1, -1, nan}
	for _, c := range []struct {
		lo, hi T
		want   []T // np.clip of values
	}{
		{0, 0, []T{0, nz, 0, 0, nan}},
		{nz, 0, []T{0, nz, 0, nz, nan}},
		{0, nz, []T{0, nz, nz, 0, nan}},
		{nz, nz, []T{0, nz, nz, nz, nan}},
		{0, 1, []T{0, nz, 1, 0, nan}},
		{nz, 1, []T{0, nz, 1, nz, nan}},
		{-1, 0, []T{0, nz, 0, -1, nan}},
		{-1, nz, []T{0, nz, nz, -1, nan}},
	} {
		var a []T
		for i := range 69 { // every value in every lane, and a tail past the vectors
			a = append(a, values[(i+i/5)%5])
		}
		dst := make([]T, len(a))
		eachLevel(t, func(t *testing.T, _ int) {
			if err := Clip(dst, a, c.lo, c.hi); err != nil {
				t.Fatal(err)
			}
			for i, x := range a {
				want := c.want[(i+i/5)%5]
				if !oneValue(dst[i], want) {
					t.Errorf("%T Clip(%v, %v, %v) at %d: %v, want np.clip's %v", x, x, c.lo, c.hi, i, dst[i], want)
				}
			}
		})
	}
}
