package arrayfmt

//go:generate python3 ../tools/gen_repr_golden.py

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
)

// goldenCase is one entry of testdata/repr_golden.json, made from real NumPy
// (and ml_dtypes) by tools/gen_repr_golden.py.
type goldenCase struct {
	Name   string   `json:"name"`
	DType  string   `json:"dtype"`
	Shape  []int64  `json:"shape"`
	Repr   string   `json:"repr"`
	Values []string `json:"values"`
	Index  []int64  `json:"index"` // flat indices of Values when summarized
}

// knownDifferences lists golden cases where Repr intentionally differs from
// NumPy, with the reason. It is empty: every case matches.
var knownDifferences = map[string]string{}

func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/repr_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no golden cases")
	}
	return doc.Cases
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad float %q: %v", s, err)
	}
	return f
}

func parseScalar(t *testing.T, dt *dlpack.DType, s string) dlpack.Scalar {
	t.Helper()
	switch dt.Kind {
	case dlpack.KindBool:
		return dlpack.Scalar{Kind: dt.Kind, B: s == "1"}
	case dlpack.KindInt:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return dlpack.Scalar{Kind: dt.Kind, I: v}
	case dlpack.KindUint:
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return dlpack.Scalar{Kind: dt.Kind, U: v}
	case dlpack.KindComplex:
		re, im, _ := strings.Cut(s, ",")
		return dlpack.Scalar{Kind: dt.Kind, C: complex(parseFloat(t, re), parseFloat(t, im))}
	}
	return dlpack.Scalar{Kind: dt.Kind, F: parseFloat(t, s)}
}

func TestReprGolden(t *testing.T) {
	cases := loadGolden(t)
	pass := 0
	for _, c := range cases {
		dt, ok := dlpack.ByName(c.DType)
		if !ok {
			t.Errorf("%s: unknown dtype %q", c.Name, c.DType)
			continue
		}
		vals := map[int64]dlpack.Scalar{}
		for i, s := range c.Values {
			flat := int64(i)
			if c.Index != nil {
				flat = c.Index[i]
			}
			vals[flat] = parseScalar(t, dt, s)
		}
		get := func(flat int64) dlpack.Scalar {
			v, ok := vals[flat]
			if !ok {
				t.Fatalf("%s: read element %d, which NumPy does not display", c.Name, flat)
			}
			return v
		}
		got := Repr("Array", dt, c.Shape, get)
		if why, ok := knownDifferences[c.Name]; ok {
			if got == c.Repr {
				t.Errorf("%s: listed as a known difference (%s) but now matches NumPy", c.Name, why)
			}
			continue
		}
		if got != c.Repr {
			t.Errorf("%s:\n got: %s\nwant: %s", c.Name, got, c.Repr)
			continue
		}
		pass++
	}
	t.Logf("%d of %d golden cases match NumPy", pass, len(cases))
}

// The prefix only changes the first line and the indentation.
func TestReprPrefix(t *testing.T) {
	dt, _ := dlpack.ByName("int32")
	get := func(i int64) dlpack.Scalar { return dlpack.Scalar{Kind: dlpack.KindInt, I: i + 1} }
	got := Repr("T", dt, []int64{2, 2}, get)
	want := "T([[1, 2],\n   [3, 4]], dtype=int32)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRoundFloat16(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{1, 1},
		{65504, 65504},
		{65519.99, 65504},
		{65520, math.Inf(1)},
		{-1e6, math.Inf(-1)},
		{1 + 1.0/2048, 1},            // tie, to even
		{1 + 3.0/2048, 1 + 2.0/1024}, // tie, to even (up)
		{math.Ldexp(1, -24), math.Ldexp(1, -24)},
		{math.Ldexp(1, -25), 0}, // tie between 0 and the least subnormal
		{math.Ldexp(3, -26), math.Ldexp(1, -24)},
		{0.1, 0.0999755859375},
	}
	for _, c := range cases {
		if got := roundFloat16(c.in); got != c.want {
			t.Errorf("roundFloat16(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Every finite positive float16 value's shortest repr round-trips and no
// shorter decimal does.
func TestShortest16RoundTrips(t *testing.T) {
	for bits := uint16(1); bits < 0x7c00; bits++ {
		a := float16Value(bits)
		s := shortest16(a)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || roundFloat16(v) != a {
			t.Fatalf("shortest16(%v) = %q does not round-trip", a, s)
		}
		m, _, _ := strings.Cut(s, "e")
		n := len(strings.Replace(m, ".", "", 1))
		if n > 1 {
			shorter := strconv.FormatFloat(a, 'e', n-2, 64)
			w, _ := strconv.ParseFloat(shorter, 64)
			if roundFloat16(w) == a {
				t.Fatalf("shortest16(%v) = %q, but %q also round-trips", a, s, shorter)
			}
		}
	}
}

func float16Value(bits uint16) float64 {
	e := int(bits>>10) & 0x1f
	m := float64(bits & 0x3ff)
	if e == 0 {
		return math.Ldexp(m, -24)
	}
	return math.Ldexp(1024+m, e-25)
}
