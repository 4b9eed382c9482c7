package tensor_test

// The deprecated View.ReadOnlySlice (deprecated.go) still compiles, as a user's
// code wrote it, and is ReadSlice.

import (
	"errors"
	"slices"
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

func TestDeprecatedReadOnlySlice(t *testing.T) {
	noLeaks(t)
	tt, _ := tensor.FromSlice([]float32{1, 2, 3})
	tt.SetReadOnly()
	v, _ := tensor.As[float32](tt)
	s, err := v.ReadOnlySlice()
	want, _ := v.ReadSlice()
	if err != nil || !slices.Equal(s, []float32{1, 2, 3}) || &s[0] != &want[0] {
		t.Errorf("ReadOnlySlice of a read-only tensor: %v %v", s, err)
	}
	tt.Close()
	if _, err := v.ReadOnlySlice(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("ReadOnlySlice after Close: %v", err)
	}
}
