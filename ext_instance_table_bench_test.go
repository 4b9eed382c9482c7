package godlpack

import (
	"testing"
	"unsafe"
)

// A creation's and a dealloc's share of the instance table: an id made and
// released, as Cls(...) then del does.
func BenchmarkInstanceIDNewRelease(b *testing.B) {
	v := new(int)
	b.ReportAllocs()
	for b.Loop() {
		id, err := newInstanceID(unsafe.Pointer(v))
		if err != nil {
			b.Fatal(err)
		}
		releaseInstanceIDs([]uintptr{id})
	}
}
