package godlpack

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// The table keeps a value alive while its id is held, and only then: the
// collector frees it once the id is released.
func TestInstanceTableKeepsValueUntilRelease(t *testing.T) {
	var cleaned atomic.Bool
	id := func() uintptr {
		v := &struct{ n [64]int64 }{}
		runtime.AddCleanup(v, func(*atomic.Bool) { cleaned.Store(true) }, &cleaned)
		id, err := newInstanceID(unsafe.Pointer(v))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}()
	for range 3 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
	if cleaned.Load() {
		t.Fatal("the value was collected while its id was held")
	}
	if p := (*struct{ n [64]int64 })(instanceValue(id)); p == nil || p.n[0] != 0 {
		t.Fatalf("instanceValue(%d) = %p", id, p)
	}
	releaseInstanceIDs([]uintptr{id})
	deadline := time.Now().Add(5 * time.Second)
	for !cleaned.Load() && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if !cleaned.Load() {
		t.Fatal("the value was not collected after its id was released")
	}
}

// Goroutines making, reading and releasing ids at once (go test -race): each
// reads back its own values, ids are never 0 and never shared while held, and the
// live count returns to where it was.
func TestInstanceTableConcurrent(t *testing.T) {
	before := liveInstanceIDs()
	var wg sync.WaitGroup
	var held sync.Map
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ids []uintptr
			var vals []*int
			for i := range 3000 {
				v := new(int)
				*v = g*100000 + i
				id, err := newInstanceID(unsafe.Pointer(v))
				if err != nil || id == 0 {
					t.Errorf("newInstanceID: %d, %v", id, err)
					return
				}
				if _, dup := held.LoadOrStore(id, g); dup {
					t.Errorf("id %d handed out twice", id)
					return
				}
				ids, vals = append(ids, id), append(vals, v)
				if len(ids) == 50 { // release in batches, as deallocs do
					for j, id := range ids {
						if p := (*int)(instanceValue(id)); p != vals[j] {
							t.Errorf("instanceValue(%d) = %p, want %p", id, p, vals[j])
						}
						held.Delete(id)
					}
					releaseInstanceIDs(ids)
					ids, vals = ids[:0], vals[:0]
				}
			}
		}()
	}
	wg.Wait()
	if n := liveInstanceIDs(); n != before {
		t.Errorf("liveInstanceIDs() = %d, want %d", n, before)
	}
}

// The last id is handed out, the next new one is a MemoryError naming the bound,
// and a released id makes room again.
func TestInstanceTableFull(t *testing.T) {
	instances.mu.Lock()
	savedNext, savedFree := instances.next, instances.free
	instances.next, instances.free = instanceChunks*instanceChunkLen-1, nil
	instances.mu.Unlock()
	defer func() {
		instances.mu.Lock()
		instances.next, instances.free = savedNext, savedFree
		instances.mu.Unlock()
	}()
	v := new(int)
	last, err := newInstanceID(unsafe.Pointer(v))
	if err != nil || last != instanceChunks*instanceChunkLen-1 {
		t.Fatalf("the last id: %d, %v", last, err)
	}
	_, err = newInstanceID(unsafe.Pointer(v))
	var ee *exceptionError
	if !errors.As(err, &ee) || ee.kind != MemoryError || !strings.Contains(err.Error(), "67108863 instances") {
		t.Fatalf("a new id past the last: %v, want a MemoryError naming the bound", err)
	}
	releaseInstanceIDs([]uintptr{last})
	again, err := newInstanceID(unsafe.Pointer(v))
	if err != nil || again != last {
		t.Fatalf("after a release: %d, %v, want %d", again, err, last)
	}
	releaseInstanceIDs([]uintptr{again})
}

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
