package vec_test

// The deprecated names of vec's interfaces and of View.Slice (deprecated.go) still compile, as a
// user's code wrote them, and work as the new ones.

import (
	"testing"

	"github.com/godlpack/godlpack/dlpack/vec"
)

// oldStyle is a user's function over the old names.
func oldStyle(x vec.Tensor, y vec.LaidOutTensor) (vec.View[float32], error) {
	if err := vec.ClipTensor[float32](y, 0, 1); err != nil {
		return vec.View[float32]{}, err
	}
	return vec.FromTensor[float32](x)
}

func TestDeprecatedNames(t *testing.T) {
	x := &columns{[]float32{-1, 9, 0.5, 9, 2, 9, -3, 9}, [2]int64{2, 2}, [2]int64{4, 2}}
	var src vec.Source = x
	var laid vec.LaidOutSource = x
	v, err := oldStyle(src, laid)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.data; got[0] != 0 || got[2] != 0.5 || got[4] != 1 || got[6] != 0 || got[1] != 9 {
		t.Errorf("ClipTensor through LaidOutTensor: %v", got)
	}
	if s := v.Shape(); len(s) != 2 || s[0] != 2 || s[1] != 2 {
		t.Errorf("FromTensor through Tensor: shape %v", s)
	}
	flat, _ := vec.ViewOf([]float32{1, 2, 3})
	want, _ := flat.Slice()
	if s, ok := flat.Contiguous(); !ok || len(s) != 3 || &s[0] != &want[0] {
		t.Errorf("Contiguous: %v %v", s, ok)
	}
}
