//go:build godlpack_python

package pyembed_test

import (
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// One Go-to-Python call with one tensor argument and one tensor result (a function
// returning its input): a Go slice's tensor in, a godlpack.Array in Python, its
// tensor back in Go and closed (bench/bench_embed.sh compares it with the next).
func BenchmarkCallTensor(b *testing.B) {
	identity := must(helpers.Attr("identity"))
	defer identity.Close()
	data := make([]float32, 256)
	for b.Loop() {
		x := must(tensor.FromSlice(data, 16, 16))
		r := must(identity.Call(x))
		t := must(r.Tensor())
		_ = t.Close()
		r.Close()
	}
}

// The same call made from Python, in the same interpreter: b.N calls in a Python loop.
func BenchmarkCallTensorFromPython(b *testing.B) {
	timeIdentity := must(helpers.Attr("time_identity"))
	defer timeIdentity.Close()
	b.ResetTimer()
	must(timeIdentity.Call(b.N)).Close()
}

// One Go-to-Python call of a function of no arguments returning None: the cost of
// the GIL and the crossing alone.
func BenchmarkCallNoArgs(b *testing.B) {
	noop := must(helpers.Attr("noop"))
	defer noop.Close()
	for b.Loop() {
		must(noop.Call()).Close()
	}
}

// inc(x) with an int and its int result in one entry (CallInt), and through the
// three entries of Call, Int and Close (bench/bench_embed.sh compares them with a
// program calling the C API itself).
func BenchmarkCallInt(b *testing.B) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		must(inc.CallInt(i))
	}
}

func BenchmarkCallIntThreeEntries(b *testing.B) {
	inc := must(helpers.Attr("inc"))
	defer inc.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := must(inc.Call(i))
		must(r.Int())
		r.Close()
	}
}
