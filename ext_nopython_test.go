//go:build !godlpack_python

package godlpack

// ext_nopython_test.go: what an extension's go test gets, without Python, from the
// API that needs an interpreter (Keep) and from an error its module maps to an
// exception class of its own (ExceptionFor).

import (
	"errors"
	"fmt"
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

type emptyError struct{ what string }

func (e *emptyError) Error() string { return e.what + " is empty" }

func keepIt(x Tensor[float64]) (None, error) {
	t, err := x.Keep()
	if t != nil {
		_ = t.Close()
	}
	return None{}, err
}

func failEmpty(x Tensor[float64]) (None, error) {
	return None{}, fmt.Errorf("reading x: %w", &emptyError{"x"})
}

func init() {
	Module("nopython_gaps", "",
		Func1("keep", keepIt, "x"),
		Func1("fail", failEmpty, "x"),
		ExceptionFor[*emptyError]("EmptyError", ValueError, "x had no elements."))
}

func TestKeepWithoutPython(t *testing.T) {
	x, err := tensor.FromSlice([]float64{1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := Lookup("nopython_gaps", "keep").Call(x); !errors.Is(err, ErrNoPython) {
		t.Fatalf("Keep without Python: %v, want ErrNoPython", err)
	}
}

// The function's own error comes back unchanged: the exception class ExceptionFor
// maps it to exists only in Python.
func TestMappedErrorWithoutPython(t *testing.T) {
	x, err := tensor.FromSlice([]float64{1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	_, err = Lookup("nopython_gaps", "fail").Call(x)
	var empty *emptyError
	if !errors.As(err, &empty) || err.Error() != "reading x: x is empty" {
		t.Fatalf("Call's error: %#v, want the function's own (wrapping *emptyError)", err)
	}
}
