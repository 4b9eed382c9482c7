package vec

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// gomaxprocs is runtime.GOMAXPROCS(0), a variable so that a test can count the
// calls.
var gomaxprocs = func() int { return runtime.GOMAXPROCS(0) }

// blockBytes is the work one goroutine takes at a time: a huge page (2 MiB),
// so that goroutines writing a new result fault in their own pages.
const blockBytes = 2 << 20

// Parallel runs fn over [0, n), n items of itemBytes bytes each, split in
// blocks of about 2 MiB that up to GOMAXPROCS goroutines, the caller one of
// them, take in turn; it returns when all are done. Under ParallelThreshold
// bytes in all, fn(0, n) runs on the caller alone: a goroutine's start and
// join would cost more than it saves. Blocks taken in turn, not one fixed
// share each, let a core that another process keeps busy hold the call up by
// one block only. fn must be safe to run on several goroutines at once on
// distinct ranges.
func Parallel(n, itemBytes int, fn func(lo, hi int)) {
	itemBytes = max(itemBytes, 1)
	grain := max(1, blockBytes/itemBytes)
	parallel(n, itemBytes, grain, grain, fn)
}

// ParallelOver is Parallel over the elements of s, its blocks delimited by
// the 2 MiB boundaries of s's memory (the first block ends at the first one):
// goroutines writing a new result (fresh memory, on transparent huge pages)
// then fault in, and have the kernel clear, pages of their own.
func ParallelOver[T any](s []T, fn func(lo, hi int)) {
	size := int(unsafe.Sizeof(*new(T)))
	grain := max(1, blockBytes/max(size, 1))
	first := grain
	if len(s) > 0 && size > 0 {
		if rest := int(uintptr(unsafe.Pointer(&s[0])) % blockBytes); rest != 0 {
			first = max(1, (blockBytes-rest)/size)
		}
	}
	parallel(len(s), max(size, 1), first, grain, fn)
}

// parallel runs fn over [0, n) in blocks, the first first items long, then
// grain each.
func parallel(n, itemBytes, first, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	blocks := 1
	if n > first {
		blocks += (n - first + grain - 1) / grain
	}
	// The size first: runtime.GOMAXPROCS takes the scheduler's process-wide lock,
	// which every small call of every thread would otherwise write (two free-
	// threaded Python threads calling goext.scale_ on 4096 floats:
	// bench/bench_threads.py).
	if blocks <= 1 || n*itemBytes < ParallelThreshold() {
		fn(0, n)
		return
	}
	workers := min(gomaxprocs(), blocks)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			b := int(next.Add(1) - 1)
			if b >= blocks {
				return
			}
			lo := 0
			if b > 0 {
				lo = first + (b-1)*grain
			}
			fn(lo, min(first+b*grain, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// SumParallel is Sum(s), the same bits, its pairwise tree's subtrees of up
// to 2 MiB summed by Parallel's goroutines.
func SumParallel[T Float](s []T) float64 {
	leafLen := sumLeafLen[T]()
	block := max(leafLen, blockBytes/int(unsafe.Sizeof(*new(T))))
	var parts [][]T
	var split func(s []T)
	split = func(s []T) { // Sum's splits, down to a block
		if len(s) <= block {
			parts = append(parts, s)
			return
		}
		h := sumHalf(len(s), leafLen)
		split(s[:h])
		split(s[h:])
	}
	split(s)
	sums := make([]float64, len(parts))
	Parallel(len(parts), blockBytes, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sums[i] = Sum(parts[i])
		}
	})
	next := 0
	var combine func(n int) float64
	combine = func(n int) float64 { // the same tree over the parts' sums
		if n <= block {
			next++
			return sums[next-1]
		}
		h := sumHalf(n, leafLen)
		return combine(h) + combine(n-h)
	}
	return combine(len(s))
}

// ParallelThreshold is the bytes of work under which Parallel stays on one
// goroutine: 16 times what this machine scales (vec.Scale, float32, in cache)
// while a goroutine starts and is joined, so that the split costs at most ~6%;
// measured once, at the first call, kept within 64 KiB..8 MiB.
func ParallelThreshold() int {
	thresholdOnce.Do(func() { threshold = measureThreshold() })
	return threshold
}

var (
	thresholdOnce sync.Once
	threshold     int
)

func measureThreshold() int {
	const reps = 15
	handoff := make([]time.Duration, reps)
	for i := range handoff {
		var wg sync.WaitGroup
		start := time.Now()
		wg.Go(func() {})
		wg.Wait()
		handoff[i] = time.Since(start)
	}
	buf := make([]float32, 16<<10) // 64 KiB
	scale := make([]time.Duration, reps)
	for i := range scale {
		start := time.Now()
		_ = Scale(buf, buf, 1)
		scale[i] = time.Since(start)
	}
	slices.Sort(handoff)
	slices.Sort(scale)
	perNs := float64(len(buf)*4) / float64(max(scale[reps/2], 1))
	return min(max(int(16*perNs*float64(handoff[reps/2])), 64<<10), 8<<20)
}
