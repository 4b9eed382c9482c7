package vec

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
)

// The NumPy oracle (tools/gen_vec_golden.py): inputs and results as bits.

type goldenFile struct {
	N     int
	Types map[string]goldenType
	Casts map[string]struct{ Src, Dst []json.Number }
	// CastScaleShift: "S->D", each type's A cast to D and fused with Scalars
	CastScaleShift map[string]struct {
		Scalars [2]float64
		Dst     []json.Number
	} `json:"cast_scale_shift"`
}

type goldenType struct {
	A, B, C    []json.Number
	Scalars    []float64
	Ops        map[string][]json.Number
	Reductions []goldenReduction
	ExpLog     goldenExpLog `json:"explog"`
}

// goldenExpLog: exp's and log's own inputs (their whole domain) and NumPy's
// results.
type goldenExpLog struct {
	ExpIn []json.Number `json:"exp_in"`
	Exp   []json.Number
	LogIn []json.Number `json:"log_in"`
	Log   []json.Number
}

type goldenReduction struct {
	Case [3]int // offset, length, stride
	// float64 bits (integers: Sum's value)
	Sum, Dot, Norm json.Number
	SumExact       json.Number  `json:"sum_exact"`
	SumAbs         json.Number  `json:"sum_abs"`
	Min, Max       *json.Number // absent for no elements
}

var (
	goldenOnce sync.Once
	golden     goldenFile
	goldenErr  error
)

func loadGolden(t *testing.T) *goldenFile {
	t.Helper()
	goldenOnce.Do(func() {
		f, err := os.Open("testdata/vec_golden.json.gz")
		if err != nil {
			goldenErr = err
			return
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			goldenErr = err
			return
		}
		dec := json.NewDecoder(z)
		dec.UseNumber()
		goldenErr = dec.Decode(&golden)
	})
	if goldenErr != nil {
		t.Fatal(goldenErr)
	}
	return &golden
}

// bitsOf parses the golden numbers: bit patterns or integers (negative ones as
// their two's complement).
func bitsOf(t *testing.T, ns []json.Number) []uint64 {
	t.Helper()
	out := make([]uint64, len(ns))
	for i, n := range ns {
		out[i] = bitOf(t, n)
	}
	return out
}

func bitOf(t *testing.T, n json.Number) uint64 {
	t.Helper()
	if s := string(n); len(s) > 0 && s[0] == '-' {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(v)
	}
	v, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fromBits is the elements of type T whose bits (or integer values) b holds.
func fromBits[T Castable](b []uint64) []T {
	out := make([]T, len(b))
	for i, v := range b {
		switch p := any(&out[i]).(type) {
		case *float32:
			*p = math.Float32frombits(uint32(v))
		case *float64:
			*p = math.Float64frombits(v)
		default:
			out[i] = T(v) // integers wrap to their width; bfloat16/float16 are bits
		}
	}
	return out
}

// sameValue: equal bits, or both NaN, or (zerosEqual) both zero of any sign.
func sameValue[T Castable](got, want T, zerosEqual bool) bool {
	if got == want && !zerosEqual {
		if g, ok := any(got).(float32); ok {
			return math.Signbit(float64(g)) == math.Signbit(float64(any(want).(float32)))
		}
		if g, ok := any(got).(float64); ok {
			return math.Signbit(g) == math.Signbit(any(want).(float64))
		}
	}
	return got == want || (got != got && want != want)
}

// levels is every kernel set this machine runs, the portable loops first.
func levels() []int {
	var out []int
	for l := useGo; l <= cpuLevel; l++ {
		out = append(out, l)
	}
	return out
}

// eachLevel runs fn once with every kernel set in use.
func eachLevel(t *testing.T, fn func(t *testing.T, l int)) {
	for _, l := range levels() {
		t.Run(levelNames[l], func(t *testing.T) {
			prev := setLevel(l)
			defer setLevel(prev)
			fn(t, l)
		})
	}
}

func isFloatType[T Castable]() bool {
	switch any(*new(T)).(type) {
	case float32, float64:
		return true
	}
	return false
}
