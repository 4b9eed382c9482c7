package dlpack

import "testing"

// A complex element past len(buf) must panic even when cap(buf) would hold it:
// slicing checks capacity, so Get and Set must not read or write beyond len.
func TestComplexGetSetRespectLengthNotCapacity(t *testing.T) {
	for _, name := range []string{"complex64", "complex128"} {
		d, _ := ByName(name)
		buf := make([]byte, 1, 64)
		for _, op := range []func(){
			func() { d.Get(buf, 0, false) },
			func() { _ = d.Set(buf, 0, false, Scalar{Kind: KindComplex, C: 1}) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: access past len(buf) did not panic", name)
					}
				}()
				op()
			}()
		}
		if full := buf[:cap(buf)]; full[1] != 0 || full[8] != 0 {
			t.Errorf("%s: Set wrote past len(buf)", name)
		}
	}
}
