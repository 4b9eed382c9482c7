package dlpack

import (
	"bytes"
	"math"
	"testing"
	"unsafe"
)

// Arange's typed loops write exactly what Set writes for each value, and decline
// (writing nothing) where a value would not fit.
func TestArangeMatchesSetPerElement(t *testing.T) {
	progressions := []struct{ start, step Scalar }{
		{Scalar{Kind: KindInt, I: 0}, Scalar{Kind: KindInt, I: 1}},
		{Scalar{Kind: KindInt, I: -100}, Scalar{Kind: KindInt, I: 7}},
		{Scalar{Kind: KindInt, I: 1 << 53}, Scalar{Kind: KindInt, I: 1}},
		{Scalar{Kind: KindInt, I: 250}, Scalar{Kind: KindInt, I: -3}},
		{Scalar{Kind: KindInt, I: math.MaxInt64 - 40}, Scalar{Kind: KindInt, I: 1}},
		{Scalar{Kind: KindFloat, F: 0.5}, Scalar{Kind: KindFloat, F: 0.1}},
		{Scalar{Kind: KindFloat, F: -3}, Scalar{Kind: KindFloat, F: 1e38}},
		{Scalar{Kind: KindFloat, F: 2}, Scalar{Kind: KindFloat, F: math.Inf(1)}},
	}
	const n = 41
	for _, d := range All() {
		if d.SubByte() {
			continue
		}
		size := d.ItemSize()
		for _, p := range progressions {
			got := make([]byte, n*size)
			ok := Arange(unsafe.Pointer(&got[0]), d, n, p.start, p.step)
			want := make([]byte, n*size)
			setOK := true
			for i := int64(0); i < n; i++ {
				v := Scalar{Kind: KindInt, I: p.start.I + i*p.step.I}
				if p.start.Kind == KindFloat {
					v = Scalar{Kind: KindFloat, F: p.start.F}
					if i > 0 {
						v.F += float64(i) * p.step.F
					}
				}
				if d.Set(want, i, false, v) != nil {
					setOK = false
				}
			}
			fast := d.Name == "float32" || d.Name == "float64" || (d.Name == "int64" && p.start.Kind == KindInt)
			switch {
			case fast && !ok:
				t.Errorf("%s %v: no typed loop ran", d.Name, p)
			case ok && !setOK:
				t.Errorf("%s %v: Arange wrote values Set refuses", d.Name, p)
			case ok && !bytes.Equal(got, want):
				t.Errorf("%s %v: Arange wrote\n%v\nSet writes\n%v", d.Name, p, got, want)
			case !ok && !bytes.Equal(got, make([]byte, n*size)):
				t.Errorf("%s %v: Arange declined but wrote", d.Name, p)
			}
		}
	}
}
