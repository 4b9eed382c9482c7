package vec

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
)

// castRunner runs Cast from the golden source bits to the destination named
// dst and compares with NumPy's astype.
type castRunner func(t *testing.T, dst string, src, want []uint64)

func castFrom[S Castable]() castRunner {
	return func(t *testing.T, dst string, src, want []uint64) {
		s := fromBits[S](src)
		switch dst {
		case "int8":
			castCase[int8](t, s, want)
		case "uint8":
			castCase[uint8](t, s, want)
		case "int16":
			castCase[int16](t, s, want)
		case "uint16":
			castCase[uint16](t, s, want)
		case "int32":
			castCase[int32](t, s, want)
		case "uint32":
			castCase[uint32](t, s, want)
		case "int64":
			castCase[int64](t, s, want)
		case "uint64":
			castCase[uint64](t, s, want)
		case "float16":
			castCase[dlpack.Float16](t, s, want)
		case "bfloat16":
			castCase[dlpack.BFloat16](t, s, want)
		case "float32":
			castCase[float32](t, s, want)
		case "float64":
			castCase[float64](t, s, want)
		default:
			t.Fatalf("no Go type for %s", dst)
		}
	}
}

func castCase[D, S Castable](t *testing.T, src []S, wantBits []uint64) {
	want := fromBits[D](wantBits)
	for _, off := range []int{0, 3} { // every length of the SIMD uint8 -> float32 kernel's tails
		for n := 0; off+n <= len(src); n += 1 + n/8 {
			got := make([]D, n)
			if err := Cast(got, src[off:off+n]); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !sameValue(got[i], want[off+i], false) {
					t.Fatalf("element %d: %v gives %v, NumPy %v", off+i, src[off+i], got[i], want[off+i])
				}
			}
		}
	}
}

func TestCastAgainstNumPy(t *testing.T) {
	g := loadGolden(t)
	from := map[string]castRunner{
		"int8": castFrom[int8](), "uint8": castFrom[uint8](), "int16": castFrom[int16](),
		"uint16": castFrom[uint16](), "int32": castFrom[int32](), "uint32": castFrom[uint32](),
		"int64": castFrom[int64](), "uint64": castFrom[uint64](), "float16": castFrom[dlpack.Float16](),
		"bfloat16": castFrom[dlpack.BFloat16](), "float32": castFrom[float32](), "float64": castFrom[float64](),
	}
	if len(g.Casts) != len(from)*len(from) {
		t.Fatalf("%d golden casts, want every pair of %d dtypes", len(g.Casts), len(from))
	}
	eachLevel(t, func(t *testing.T, _ int) {
		for pair, c := range g.Casts {
			s, d, _ := strings.Cut(pair, "->")
			t.Run(pair, func(t *testing.T) { from[s](t, d, bitsOf(t, c.Src), bitsOf(t, c.Dst)) })
		}
	})
}

func TestCastLengthMismatch(t *testing.T) {
	if err := Cast(make([]float32, 3), make([]uint8, 4)); err == nil || !strings.Contains(err.Error(), "same length") {
		t.Fatalf("err %v", err)
	}
}
