package gctick

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Each's function runs after a collection, and again after each later one.
func TestEachRunsAfterEveryCollection(t *testing.T) {
	var runs atomic.Int64
	Each(func() { runs.Add(1) })
	for want := int64(1); want <= 3; want++ {
		deadline := time.Now().Add(10 * time.Second)
		for runs.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%d runs after collections, want %d", runs.Load(), want)
			}
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
}
