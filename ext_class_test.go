//go:build !godlpack_python

package godlpack

// ext_class_test.go: the Go half of a creation, Cls(...) as
// Python's call reaches it: the constructor's converted arguments in, an
// instance-table id out, and the id's release at dealloc.

import (
	"strings"
	"testing"
)

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

// A constructor made by Func0 to Func3 (ClassDef.InitFunc):
// its narrow integer parameters, its *T result and the checks at
// registration.

type bins struct {
	n  uint16
	lo float64
}

func newBins(n uint16, lo float64) (*bins, error) { return &bins{n: n, lo: lo}, nil }

type misnamed struct{}

var (
	binsC    = Class[bins]("Bins", "")
	binsInit = binsC.InitFunc(Func2("Bins", newBins, "n", "lo")).Default("lo", 0.5)
)

func init() {
	Module("gocall_initfunc", "", binsC)
	bad := Class[misnamed]("Misnamed", "")
	bad.InitFunc(Func0("make", func() (*misnamed, error) { return &misnamed{}, nil }))
	Module("gocall_initfunc_bad", "", bad)
}

func TestInitFuncMakesAnInstanceWithoutReflection(t *testing.T) {
	if err := Check("gocall_initfunc"); err != nil {
		t.Fatalf("Check(gocall_initfunc): %v", err)
	}
	b, err := binsInit.Call(300)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.(*bins); got.n != 300 || got.lo != 0.5 {
		t.Errorf("Bins(300) = %+v, want n=300 lo=0.5 (the default)", got)
	}
	if n := liveInstanceIDs(); n != 0 {
		t.Errorf("LiveInstances() = %d after Call gave the *bins back to Go", n)
	}
	if _, err = binsInit.Call(70000); err == nil || !strings.Contains(err.Error(), "Bins(): argument n: 70000 is out of range for uint16 (0 to 65535)") {
		t.Errorf("Bins(70000) = %v, want the OverflowError of a uint16", err)
	}
}

func TestInitFuncChecksNameAndResult(t *testing.T) {
	err := Check("gocall_initfunc_bad")
	if err == nil || !strings.Contains(err.Error(), `the constructor of class Misnamed must be named "Misnamed" (got "make")`) {
		t.Errorf("Check(gocall_initfunc_bad) = %v, want the constructor's name refused", err)
	}
}
