package tensor_test

import (
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// threadFaults is the calling thread's minor page faults so far (the caller holds
// its thread: runtime.LockOSThread).
func threadFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Skip("getrusage(RUSAGE_THREAD):", err)
	}
	return ru.Minflt
}

// emptySlot frees the large-block slot's block, so that a test sees its own.
func emptySlot(t *testing.T) {
	t.Helper()
	tensor.DropLargeSlot()
	t.Cleanup(tensor.DropLargeSlot)
}

// A large uninitialized block given back (Close, or a consumer's deleter on any
// thread) is kept, one at most, and the next Uninitialized of its size takes it
// as it is: no malloc, and its pages are not faulted in again (bench_vec's
// 4096x1024 scale_shift, whose result glibc otherwise unmapped or trimmed
// between calls). Empty's blocks stay calloc's, cleared.
func TestLargeBlockKeptForTheNextOfItsSize(t *testing.T) {
	noLeaks(t)
	emptySlot(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := tensor.AllBlocks()
	a, s, err := tensor.Uninitialized[float32](4096, 1024) // bench_vec's 16 MiB result
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		s[i] = 7
	}
	addr := tensor.BlockAddr(a)
	a.Close()
	if got := tensor.AllBlocks() - before; got != 1 || tensor.LiveBlocks() != 0 {
		t.Fatalf("after Close: %d blocks kept (want the slot's 1), %d live", got, tensor.LiveBlocks())
	}
	faults := threadFaults(t)
	b, s, err := tensor.Uninitialized[float32](4096, 1024)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		s[i] += 1
	}
	faults = threadFaults(t) - faults
	if tensor.BlockAddr(b) != addr || tensor.AllBlocks()-before != 1 || s[0] != 8 || s[len(s)-1] != 8 {
		t.Errorf("block %#x (want the kept %#x), %d blocks (want 1), elements %v..%v (want the kept 7s + 1)",
			tensor.BlockAddr(b), addr, tensor.AllBlocks()-before, s[0], s[len(s)-1])
	}
	if faults > 16 {
		t.Errorf("writing the kept block took %d page faults; want none", faults)
	}

	// Given back by a C consumer on a thread Go did not create: kept too.
	m, err := b.Export()
	if err != nil {
		t.Fatal(err)
	}
	if !ctensor.DeleteOnNewThread(m, true) {
		t.Fatal("pthread_create failed")
	}
	c, s, err := tensor.Uninitialized[float32](4096, 1000) // 2% smaller: fits
	if err != nil {
		t.Fatal(err)
	}
	if tensor.BlockAddr(c) != addr || s[0] != 8 {
		t.Errorf("after the foreign deleter: block %#x (want %#x), element 0 %v (want 8)", tensor.BlockAddr(c), addr, s[0])
	}

	// Empty clears: calloc's fresh block, not the kept one.
	c.Close()
	e, s, err := tensor.Empty[float32](4096, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if tensor.BlockAddr(e) == addr || s[0] != 0 || s[len(s)-1] != 0 {
		t.Errorf("Empty: block %#x (the kept one is %#x), elements %v..%v, want zeros", tensor.BlockAddr(e), addr, s[0], s[len(s)-1])
	}
	if got := tensor.AllBlocks() - before; got != 2 {
		t.Errorf("Empty's block and the kept one: %d blocks, want 2", got)
	}
	e.Close() // takes the slot: the block it held is freed
	if got := tensor.AllBlocks() - before; got != 1 {
		t.Errorf("after Empty's Close: %d blocks, want the slot's 1", got)
	}
	tensor.DropLargeSlot()
	if got := tensor.AllBlocks() - before; got != 0 {
		t.Errorf("after DropLargeSlot: %d blocks, want 0", got)
	}
}

// A kept block serves only a size it holds with at most an eighth to spare; a
// block that does not fit stays kept, and blocks outside 1 MiB to 32 MiB are
// never kept (a small one goes back to glibc's heap, a huge-page one would hold
// too much idle).
func TestLargeSlotFitAndBounds(t *testing.T) {
	noLeaks(t)
	emptySlot(t)
	before := tensor.AllBlocks()
	uninit := func(rows int64) (*tensor.Tensor, uintptr) {
		t.Helper()
		x, _, err := tensor.Uninitialized[float32](rows, 1024)
		if err != nil {
			t.Fatal(err)
		}
		return x, tensor.BlockAddr(x)
	}
	a, addr := uninit(4096) // 16 MiB
	a.Close()
	for _, rows := range []int64{1024, 4097, 3500} { // 4 MiB, a byte-row too big, 15% smaller
		x, got := uninit(rows)
		if got == addr {
			t.Errorf("%dx1024 took the kept 4096x1024 block", rows)
		}
		if n := tensor.AllBlocks() - before; n != 2 {
			t.Errorf("%dx1024: %d blocks, want its own and the kept one", rows, n)
		}
		if rows == 3500 {
			x.Close() // replaces the kept block, which is freed
			if n := tensor.AllBlocks() - before; n != 1 {
				t.Errorf("3500x1024 closed: %d blocks, want 1", n)
			}
			continue
		}
		tensor.DropLargeSlot()
		x.Close() // now the kept one
		y, again := uninit(rows)
		if again != got || tensor.AllBlocks()-before != 1 {
			t.Errorf("%dx1024 again: block %#x, want the kept %#x", rows, again, got)
		}
		y.Close()
		a, addr = uninit(4096) // and back to 16 MiB kept
		a.Close()
	}
	tensor.DropLargeSlot()
	for _, rows := range []int64{64, 8192} { // 256 KiB, 32 MiB
		x, _ := uninit(rows)
		x.Close()
		if n := tensor.AllBlocks() - before; n != 0 {
			t.Errorf("%dx1024 closed: %d blocks kept, want 0", rows, n)
		}
	}
}

// Goroutines and foreign threads take and give back large blocks at once: no
// block has two owners (each owner's marks stay its own), none is freed twice
// (the C allocator would abort), and at the end only the slot's is left.
func TestLargeSlotConcurrent(t *testing.T) {
	noLeaks(t)
	emptySlot(t)
	before := tensor.AllBlocks()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 60 {
				rows := []int64{300, 320, 400}[(g+i)%3] // 1.2-1.6 MiB: the first two share blocks
				x, s, err := tensor.Uninitialized[float32](rows, 1024)
				if err != nil {
					t.Error(err)
					return
				}
				mark := float32(g*1000 + i)
				s[0], s[len(s)/2], s[len(s)-1] = mark, mark, mark
				runtime.Gosched()
				if s[0] != mark || s[len(s)/2] != mark || s[len(s)-1] != mark {
					t.Errorf("goroutine %d: its block was written by another owner", g)
				}
				if i%2 == 0 {
					x.Close()
					continue
				}
				m, err := x.Export()
				if err != nil {
					t.Error(err)
					return
				}
				if !ctensor.DeleteOnNewThread(m, true) {
					t.Error("pthread_create failed")
					return
				}
			}
		})
	}
	wg.Wait()
	if n := tensor.AllBlocks() - before; n != 1 || tensor.LiveBlocks() != 0 {
		t.Errorf("after all: %d blocks (want the slot's 1), %d live", n, tensor.LiveBlocks())
	}
}
