package tensor

import (
	"testing"
	"unsafe"
)

// A tensor of 32 MiB or more starts its data on a huge-page boundary
// (hugepages.h, gd_data_align), so that every 2 MiB of it can be a huge page; a
// smaller one keeps DLPack's 256 bytes. Both are zeroed and writable to the end.
func TestNewHugeTensorsAlignToHugePages(t *testing.T) {
	for _, c := range []struct {
		elems int64
		align uintptr
	}{{32 << 20 / 4, 2 << 20}, {(64<<20)/4 + 3, 2 << 20}, {(32<<20)/4 - 1, 256}, {1 << 20, 256}} {
		x, err := New[float32](c.elems)
		if err != nil {
			t.Fatal(err)
		}
		if got := uintptr(x.data) % c.align; got != 0 {
			t.Errorf("%d float32: data %p is %d bytes past a %d-byte boundary", c.elems, x.data.ptr(), got, c.align)
		}
		s := unsafe.Slice((*float32)(x.data.ptr()), c.elems)
		for _, i := range []int64{0, c.elems / 2, c.elems - 1} {
			if s[i] != 0 {
				t.Errorf("%d float32: element %d is %v, not 0", c.elems, i, s[i])
			}
			s[i] = 1
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
