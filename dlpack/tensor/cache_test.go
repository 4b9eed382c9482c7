package tensor_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// A Tensor stays 48 bytes: its allocation is the largest cost of an exchange
// (see Tensor). Its dtype is a byte, 1 + the dtype's index in dlpack.All().
func TestTensorSize(t *testing.T) {
	if tensor.TensorSize != 48 {
		t.Errorf("Tensor is %d bytes; want 48", tensor.TensorSize)
	}
	if n := len(dlpack.All()); n >= 255 {
		t.Errorf("%d dtypes: Tensor's dtype byte holds 254", n)
	}
}

// drainClass holds tensors of shape until the cache has no block of their class,
// so that what follows sees only its own blocks there; it returns them.
func drainClass(t *testing.T, shape ...int64) (cls int, held []*tensor.Tensor) {
	t.Helper()
	for {
		tt, err := tensor.New[float32](shape...)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tt)
		cls = tensor.BlockClass(tt)
		if cls < 0 {
			t.Fatalf("shape %v: block not cacheable", shape)
		}
		if own, returned := tensor.CachedIn(cls); own == 0 && returned == 0 {
			return cls, held
		}
	}
}

func closeAll(ts []*tensor.Tensor) {
	for _, tt := range ts {
		tt.Close()
	}
}

// A block released in Go (Close) is reused by the next tensor of its class, and
// so is one a C consumer's deleter gave back; a reused block's data is zeroed.
func TestBlocksReused(t *testing.T) {
	noLeaks(t)
	_, held := drainClass(t, 16, 16)
	defer closeAll(held)
	fill := func(tt *tensor.Tensor) {
		v, _ := tensor.As[float32](tt)
		s, err := v.Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			s[i] = 7
		}
	}
	zeroed := func(tt *tensor.Tensor) bool {
		v, _ := tensor.As[float32](tt)
		s, _ := v.Slice()
		for _, x := range s {
			if x != 0 {
				return false
			}
		}
		return true
	}
	a, _ := tensor.New[float32](16, 16)
	addr := tensor.BlockAddr(a)
	fill(a)
	a.Close()
	b, _ := tensor.New[float32](16, 16)
	if tensor.BlockAddr(b) != addr || !zeroed(b) {
		t.Errorf("after Close: block %#x (want %#x), zeroed %v", tensor.BlockAddr(b), addr, zeroed(b))
	}
	fill(b)
	m, _ := b.Export()
	if !ctensor.DeleteOnNewThread(m, true) { // onto the returned stack
		t.Fatal("pthread_create")
	}
	c, _ := tensor.New[float32](16, 16)
	if tensor.BlockAddr(c) != addr || !zeroed(c) {
		t.Errorf("after the C deleter: block %#x (want %#x), zeroed %v", tensor.BlockAddr(c), addr, zeroed(c))
	}
	c.Close()
}

// Each of the two lists of a class keeps at most its cap of blocks; the blocks
// given back beyond that are freed (the count of malloc'd blocks drops).
func TestCacheKeepsAtMostItsCap(t *testing.T) {
	noLeaks(t)
	shape := []int64{100, 100} // 40 KB of data: the 64 KiB class, whose cap is 2
	cls, held := drainClass(t, shape...)
	defer closeAll(held)
	limit := tensor.ClassCap(cls)
	const n = 10
	make10 := func() []*tensor.Tensor {
		ts := make([]*tensor.Tensor, n)
		for i := range ts {
			ts[i], _ = tensor.New[float32](shape...)
		}
		return ts
	}
	before := tensor.AllBlocks()
	ts := make10()
	if got := tensor.AllBlocks() - before; got != n {
		t.Fatalf("%d blocks malloc'd for %d tensors of an empty class", got, n)
	}
	closeAll(ts) // released in Go: Go's own list
	if own, _ := tensor.CachedIn(cls); own != limit || tensor.AllBlocks()-before != limit {
		t.Errorf("closed in Go: own list %d, blocks kept %d; want %d", own, tensor.AllBlocks()-before, limit)
	}
	ts = make10() // limit of them from the cache
	for _, tt := range ts {
		m, _ := tt.Export()
		ctensor.Delete(m, true) // released by the C deleter: the returned stack
	}
	if own, returned := tensor.CachedIn(cls); own != 0 || returned != limit || tensor.AllBlocks()-before != limit {
		t.Errorf("deleted from C: own %d, returned %d, blocks kept %d; want 0, %d, %d",
			own, returned, tensor.AllBlocks()-before, limit, limit)
	}
}

// Goroutines make tensors (C memory and pinned slices) and release them every way
// at once: Close, a C deleter on this thread or on a pthread, a round trip through
// FromManaged, while collections sweep. No two live tensors share a block (each
// checks its data after the others had time to write theirs), every block and pin
// comes back once (noLeaks), under -race.
func TestCacheConcurrent(t *testing.T) {
	noLeaks(t)
	const workers, rounds = 4, 400
	defer collectConstantly()()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			slice := make([]float32, 64)
			for i := range rounds {
				mark := float32(w*rounds + i + 1)
				var tt *tensor.Tensor
				var err error
				if i%3 == 2 {
					tt, err = tensor.FromSlice(slice, 8, 8)
				} else {
					tt, err = tensor.New[float32](int64(1+i%4), 16)
				}
				if err != nil {
					t.Error(err)
					return
				}
				v, _ := tensor.As[float32](tt)
				s, _ := v.Slice()
				s[0], s[len(s)-1] = mark, mark
				runtime.Gosched()
				if s[0] != mark || s[len(s)-1] != mark {
					t.Errorf("worker %d round %d: data %v/%v, want %v: a block shared", w, i, s[0], s[len(s)-1], mark)
				}
				switch i % 4 {
				case 0:
					tt.Close()
				case 1:
					m, _ := tt.Export()
					ctensor.Delete(m, true)
				case 2:
					m, _ := tt.Export()
					ctensor.DeleteOnNewThread(m, true)
				case 3:
					m, _ := tt.ExportLegacy()
					back, err := tensor.FromManagedLegacy(m)
					if err != nil {
						t.Error(err)
						return
					}
					back.Close()
				}
			}
		})
	}
	wg.Wait()
}

// Shape and strides of a closed or exported tensor are gone (a produced one's
// live in its block, which the consumer may have freed).
func TestShapeOfEndedTensor(t *testing.T) {
	noLeaks(t)
	a, _ := tensor.New[int8](2, 3)
	if a.Shape() == nil || a.Strides() == nil {
		t.Fatal("open tensor has no shape")
	}
	a.Close()
	b, _ := tensor.New[int8](2, 3)
	m, _ := b.Export()
	defer ctensor.Delete(m, true)
	for _, tt := range []*tensor.Tensor{a, b} {
		if tt.Shape() != nil || tt.Strides() != nil {
			t.Errorf("ended tensor: shape %v strides %v", tt.Shape(), tt.Strides())
		}
	}
}

// Uninitialized takes a cached block as it is (no pass clearing it: its
// caller writes every element), and a large block is malloc'd, not calloc'd;
// both are whole tensors that Empty then clears again.
func TestUninitializedDoesNotClear(t *testing.T) {
	noLeaks(t)
	_, held := drainClass(t, 16, 16)
	defer closeAll(held)
	a, s, err := tensor.Empty[float32](16, 16)
	if err != nil {
		t.Fatal(err)
	}
	addr := tensor.BlockAddr(a)
	for i := range s {
		s[i] = 7
	}
	a.Close()
	b, s, err := tensor.Uninitialized[float32](16, 16)
	if err != nil {
		t.Fatal(err)
	}
	if tensor.BlockAddr(b) != addr || len(s) != 256 || s[0] != 7 || s[255] != 7 {
		t.Errorf("block %#x (want %#x), %d elements, first and last %v %v: want the closed block's 7s",
			tensor.BlockAddr(b), addr, len(s), s[0], s[255])
	}
	b.Close()
	c, s, _ := tensor.Empty[float32](16, 16)
	if tensor.BlockAddr(c) != addr || s[0] != 0 || s[255] != 0 {
		t.Errorf("Empty after Uninitialized: block %#x (want %#x), %v %v, want zeros", tensor.BlockAddr(c), addr, s[0], s[255])
	}
	c.Close()
	big, s, err := tensor.Uninitialized[float32](1024, 1024) // 4 MiB: malloc'd, uncached
	if err != nil {
		t.Fatal(err)
	}
	s[0], s[len(s)-1] = 1, 2
	if v, _ := tensor.As[float32](big); v != nil {
		if x, _ := v.At(1023, 1023); x != 2 {
			t.Errorf("At(1023, 1023) = %v after writing 2", x)
		}
	}
	big.Close()
	if _, _, err := tensor.Uninitialized[float32](-1); err == nil {
		t.Fatal("Uninitialized(-1): no error")
	}
}

// A small result (bench/vecbench's 4x4) allocates its Tensor and nothing else:
// its block comes from the cache, its slice from the block (no View).
func TestSmallResultAllocations(t *testing.T) {
	small := func() {
		r, _, _ := tensor.Uninitialized[float32](4, 4)
		r.Close()
	}
	small()
	if n := testing.AllocsPerRun(100, small); n != 1 {
		t.Errorf("Uninitialized(4, 4): %v allocations, want 1 (the Tensor)", n)
	}
	if _, s, _ := tensor.Empty[uint8](0, 3); s == nil || len(s) != 0 {
		t.Errorf("Empty(0, 3): slice %v, want an empty non-nil one", s)
	}
}
