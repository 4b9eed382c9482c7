//go:build !godlpack_python

package godlpack

// ext_class_create_test.go: the Go half of a creation (issue 20), Cls(...) as
// Python's call reaches it: the constructor's converted arguments in, an
// instance-table id out, and the id's release at dealloc.

import "testing"

type createProbe struct {
	bins   uint16
	lo, hi float64
}

var createProbeInit = Class[createProbe]("CreateProbe", "").InitFunc(
	Func3("CreateProbe", func(bins uint16, lo, hi float64) (*createProbe, error) {
		return &createProbe{bins: bins, lo: lo, hi: hi}, nil
	}, "bins", "lo", "hi").Default("lo", 0.0).Default("hi", 1.0))

// createAndRelease runs the constructor as goExtCall does with the arguments C
// converted (bins=10, the defaults lo=0, hi=1) into res (C memory in a call:
// made once here) and releases the id it made.
func createAndRelease(tb testing.TB, args []extArg, res *extResult) {
	*res = extResult{}
	if err := createProbeInit.call(args, res); err != nil || res.kind != extRInstance || res.i == 0 {
		tb.Fatalf("the constructor: %v, result kind %d, id %d", err, res.kind, res.i)
	}
	releaseInstanceIDs([]uintptr{uintptr(res.i)})
}

func createProbeArgs() []extArg {
	args := make([]extArg, 3)
	args[0].i, args[1].f, args[2].f = 10, 0, 1
	return args
}

// A creation allocates in Go the author's value and nothing else: no closure,
// boxed argument or result, no table entry (the id is a slot of the table).
func TestConstructorAllocatesOnlyTheValue(t *testing.T) {
	args, res := createProbeArgs(), new(extResult)
	if n := testing.AllocsPerRun(1000, func() { createAndRelease(t, args, res) }); n != 1 {
		t.Fatalf("a constructor's call and its id's release: %v allocations, want 1 (the value)", n)
	}
}

func BenchmarkConstructorCallAndRelease(b *testing.B) {
	args, res := createProbeArgs(), new(extResult)
	b.ReportAllocs()
	for b.Loop() {
		createAndRelease(b, args, res)
	}
}
