package main

// goext_test.go: go test runs goext's functions without Python (godlpack's
// package built without the godlpack_python tag): Check finds the binding
// mistakes import would, and Function.Call runs a function on tensors made in Go
// through the same converters and constraints Python's calls go through.

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

func TestModuleDeclaration(t *testing.T) {
	if err := godlpack.Check("goext"); err != nil {
		t.Fatal(err)
	}
}

func TestScale(t *testing.T) {
	x, err := tensor.FromSlice([]float32{1, 2, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	r, err := godlpack.Lookup("goext", "scale").Call(x, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	y := r.(*tensor.Tensor)
	defer y.Close()
	v, err := tensor.As[float32](y)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.Slice()
	if want := []float32{2.5, 5, 7.5}; !equal(got, want) {
		t.Errorf("scale(x, 2.5) = %v, want %v", got, want)
	}
}

func TestScaleInPlace(t *testing.T) {
	x, _ := tensor.FromSlice([]float64{1, -2}, 2)
	defer x.Close()
	if _, err := godlpack.Lookup("goext", "scale_").Call(x, 3); err != nil {
		t.Fatal(err)
	}
	v, _ := tensor.As[float64](x)
	got, _ := v.Slice()
	if want := []float64{3, -6}; !equal(got, want) {
		t.Errorf("x after scale_(x, 3) = %v, want %v", got, want)
	}
}

func TestMatmulRefusesAVector(t *testing.T) {
	a, _ := tensor.FromSlice([]float64{1, 2}, 2)
	defer a.Close()
	_, err := godlpack.Lookup("goext", "matmul").Call(a, a)
	if err == nil || !strings.Contains(err.Error(), "expected a 2-d tensor") {
		t.Errorf("matmul(vector, vector) = %v, want the NDim(2) TypeError", err)
	}
}

func TestFailRaises(t *testing.T) {
	if _, err := godlpack.Lookup("goext", "fail").Call("no"); err == nil || err.Error() != "no" {
		t.Errorf("fail(%q) = %v, want the Go error", "no", err)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
