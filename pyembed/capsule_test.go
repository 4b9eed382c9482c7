//go:build godlpack_python

package pyembed_test

// godlpack.TensorFromCapsule: a producer's DLPack capsule taken by Go with no copy,
// renamed used as the protocol says, refused untouched otherwise (tests/test_embed.py
// runs these with embed_test.go's TestMain).

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// capsuleOf returns x.__dlpack__(**kw) for a NumPy array x = arange(6) as float64,
// with the array's data pointer.
func capsuleOf(t *testing.T, kw godlpack.Kw) (capsule *godlpack.Object, data uintptr) {
	t.Helper()
	np := must(godlpack.Import("numpy"))
	defer np.Close()
	x := must(np.CallMethod("arange", 6.0))
	defer x.Close()
	iface := must(must(x.Attr("ctypes")).Attr("data"))
	defer iface.Close()
	p := must(iface.Int())
	dl := must(x.Attr("__dlpack__"))
	defer dl.Close()
	return must(dl.Call(kw)), uintptr(p)
}

func TestTensorFromCapsule(t *testing.T) {
	for _, tc := range []struct {
		name, wantUsed string
		kw             godlpack.Kw
	}{
		{"versioned", `"used_dltensor_versioned"`, godlpack.Kw{"max_version": godlpack.Tuple{1, 3}}},
		{"legacy", `"used_dltensor"`, godlpack.Kw{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, data := capsuleOf(t, tc.kw)
			defer c.Close()
			tt, err := godlpack.TensorFromCapsule(c)
			if err != nil {
				t.Fatal(err)
			}
			v, err := tensor.As[float64](tt)
			if err != nil {
				t.Fatal(err)
			}
			s, err := v.ReadSlice()
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 6 || s[5] != 5 || uintptr(unsafe.Pointer(&s[0])) != data {
				t.Errorf("tensor %v at %p, want 0..5 at %#x (no copy)", s, &s[0], data)
			}
			// str() of a capsule is <capsule object "NAME" at 0x...>
			if got := c.String(); !strings.Contains(got, tc.wantUsed) {
				t.Errorf("after the take the capsule is %s, want it named %s", got, tc.wantUsed)
			}
			if err := tt.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = godlpack.TensorFromCapsule(c)
			wantPythonError(t, "a used capsule", err, "ValueError", "already consumed")
		})
	}
	np := must(godlpack.Import("numpy"))
	defer np.Close()
	_, err := godlpack.TensorFromCapsule(np)
	wantPythonError(t, "a module", err, "TypeError", "expected a DLPack capsule (PyCapsule), got module")
	if _, err := godlpack.TensorFromCapsule(nil); err == nil || !strings.Contains(err.Error(), "nil *Object") {
		t.Errorf("a nil capsule: %v", err)
	}
}
