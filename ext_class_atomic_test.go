package godlpack

import (
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

type gaugeForTest struct {
	name string
	a    atomic.Int64
	_    [3]byte
	b    atomic.Uint64
	c    atomic.Int32
	rest []int
	d    atomic.Uint32
	e    atomic.Bool
	in   *gaugeForTest
}

// Each kind's offset is the field's, and the getter (stubs, fallback) reads it.
func TestAtomicFieldOffsetsAndGetters(t *testing.T) {
	var g gaugeForTest
	g.a.Store(-3)
	g.b.Store(1 << 63)
	g.c.Store(-7)
	g.d.Store(3e9)
	g.e.Store(true)
	b := classBinder[gaugeForTest]{}
	for _, tc := range []struct {
		field any
		off   uintptr
		kind  int32
		want  any
	}{
		{func(g *gaugeForTest) *atomic.Int64 { return &g.a }, unsafe.Offsetof(g.a), extFieldInt64, int64(-3)},
		{func(g *gaugeForTest) *atomic.Uint64 { return &g.b }, unsafe.Offsetof(g.b), extFieldUint64, uint64(1 << 63)},
		{func(g *gaugeForTest) *atomic.Int32 { return &g.c }, unsafe.Offsetof(g.c), extFieldInt32, int64(-7)},
		{func(g *gaugeForTest) *atomic.Uint32 { return &g.d }, unsafe.Offsetof(g.d), extFieldUint32, int64(3e9)},
		{func(g *gaugeForTest) *atomic.Bool { return &g.e }, unsafe.Offsetof(g.e), extFieldBool, true},
	} {
		getter, af, err := b.atomicField(tc.field)
		if err != nil || af.offset != tc.off || af.kind != tc.kind {
			t.Fatalf("atomicField(%T) = %+v, %v; want offset %d, kind %d", tc.field, af, err, tc.off, tc.kind)
		}
		var got any
		switch fn := getter.(type) {
		case func(*gaugeForTest) int64:
			got = fn(&g)
		case func(*gaugeForTest) uint64:
			got = fn(&g)
		case func(*gaugeForTest) bool:
			got = fn(&g)
		}
		if got != tc.want {
			t.Fatalf("the getter of %T read %v (%T), want %v", tc.field, got, got, tc.want)
		}
	}
}

// C loads sync/atomic's types as their plain value at offset 0 (ext_class.c's
// field_get; atomic.Bool as a uint32 0 or 1): a change of their layout fails here.
func TestAtomicTypesLayoutAsCReadsThem(t *testing.T) {
	var (
		i64 atomic.Int64
		u64 atomic.Uint64
		i32 atomic.Int32
		u32 atomic.Uint32
		b   atomic.Bool
	)
	i64.Store(-1 << 40)
	u64.Store(1<<63 + 5)
	i32.Store(-1 << 30)
	u32.Store(1<<31 + 7)
	b.Store(true)
	if unsafe.Sizeof(i64) != 8 || *(*int64)(unsafe.Pointer(&i64)) != -1<<40 ||
		unsafe.Sizeof(u64) != 8 || *(*uint64)(unsafe.Pointer(&u64)) != 1<<63+5 ||
		unsafe.Sizeof(i32) != 4 || *(*int32)(unsafe.Pointer(&i32)) != -1<<30 ||
		unsafe.Sizeof(u32) != 4 || *(*uint32)(unsafe.Pointer(&u32)) != 1<<31+7 ||
		unsafe.Sizeof(b) != 4 || *(*uint32)(unsafe.Pointer(&b)) != 1 {
		t.Fatal("a sync/atomic type is no longer its plain value at offset 0: ext_class.c's field_get must change")
	}
	b.Store(false)
	if *(*uint32)(unsafe.Pointer(&b)) != 0 {
		t.Fatal("atomic.Bool false is not 0")
	}
}

// A field C could not read from the pinned value is refused at registration.
func TestAtomicFieldRefusals(t *testing.T) {
	b := classBinder[gaugeForTest]{}
	global := new(atomic.Int64)
	for _, tc := range []struct {
		field any
		want  string
	}{
		{func(g *gaugeForTest) *int64 { return nil }, "the field must be a func(*godlpack.gaugeForTest) *atomic.X"},
		{func(g *gaugeForTest) *atomic.Int64 { return global }, "must return the address of a field of its argument itself"},
		{func(g *gaugeForTest) *atomic.Int64 { return nil }, "must return the address of a field of its argument itself"},
		{func(g *gaugeForTest) *atomic.Int64 { return &g.in.a }, "panicked on a zero godlpack.gaugeForTest"},
		{nil, "the field must be a func"},
	} {
		getter, af, err := b.atomicField(tc.field)
		if err == nil || !strings.Contains(err.Error(), tc.want) || af != nil || getter == nil {
			t.Fatalf("atomicField(%T) = %v, %v, %v; want an error with %q and a getter", tc.field, getter, af, err, tc.want)
		}
	}
}

// A value is pinned once whatever the number of first reads, and unpinned
// before its id's release.
func TestPinInstanceOncePerID(t *testing.T) {
	v := &gaugeForTest{name: "pinned", rest: make([]int, 4)}
	id, err := newInstanceID(unsafe.Pointer(v))
	if err != nil {
		t.Fatal(err)
	}
	if p, q := pinInstance(id), pinInstance(id); p != unsafe.Pointer(v) || q != p {
		t.Fatalf("pinInstance = %p, %p; want %p twice", p, q, v)
	}
	instances.mu.Lock()
	pinned := instances.pins[uint32(id)] != nil
	instances.mu.Unlock()
	if !pinned {
		t.Fatal("no pin kept for the id")
	}
	unpinInstance(id)
	unpinInstance(id) // nothing left: no second Unpin
	releaseInstanceIDs([]uintptr{id})
	instances.mu.Lock()
	defer instances.mu.Unlock()
	if instances.pins[uint32(id)] != nil {
		t.Fatal("the pin outlived unpinInstance")
	}
}
