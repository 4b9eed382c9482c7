//go:build !godlpack_python

package godlpack

// ext_class_init_test.go: a constructor made by Func0 to Func3 (ClassDef.InitFunc,
// issue 20): its narrow integer parameters, its *T result and the checks at
// registration.

import (
	"strings"
	"testing"
)

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
	if n := LiveInstances(); n != 0 {
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
