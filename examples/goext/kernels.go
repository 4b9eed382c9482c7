package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack"
)

// The inner loops over a contiguous run of elements, sumSlice and mulInto, use
// the SIMD kernels of kernels_simd.go where the build and the CPU have them
// (GOEXPERIMENT=simd, which pyproject.toml asks for, on amd64 with AVX-512 or
// AVX2), else the plain Go ones below (kernels_go.go): Go does not vectorize.

// blockBytes is the work one goroutine takes at a time: a huge page (2 MiB,
// the transparent huge pages a fresh result gets), so that the goroutines
// writing a new result each fault in (and have the kernel clear) their own pages,
// rather than two of them waiting on the same page's fault.
const blockBytes = 2 << 20

// parallel runs fn over [0, n) in blocks: the first one first elements long
// (0 < first <= grain), then grain each; up to GOMAXPROCS workers, the calling
// goroutine one of them, take the blocks in turn, and it returns when all are
// done. Blocks taken in turn, rather than one fixed share each, keep a core that
// is busy with another process from holding up the call: the other worker takes
// more blocks. Up to grain elements are one block: not worth a goroutine.
func parallel(n, first, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	blocks := 1
	if n > first {
		blocks += (n - first + grain - 1) / grain
	}
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if workers <= 1 || n <= grain {
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

// grainOf is the number of elements of type T in blockBytes, for elements of
// per T each (at least 1).
func grainOf[T any](per int) int {
	return max(1, blockBytes/(per*int(unsafe.Sizeof(*new(T)))))
}

// parallelOver runs fn over the blocks of s that huge pages delimit: the first
// block ends at the first blockBytes boundary of s's address.
func parallelOver[T any](s []T, fn func(lo, hi int)) {
	grain := grainOf[T](1)
	first := grain
	if len(s) > 0 {
		size := int(unsafe.Sizeof(s[0]))
		if rest := int(uintptr(unsafe.Pointer(&s[0])) % blockBytes); rest != 0 {
			first = max(1, (blockBytes-rest)/size)
		}
	}
	parallel(len(s), first, grain, fn)
}

// each calls fn with a pointer to every element of the strided tensor at data
// (shape and strides in elements, negative strides too), in C order.
func each[T any](data unsafe.Pointer, shape, strides []int64, fn func(*T)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	var walk func(p unsafe.Pointer, dim int)
	walk = func(p unsafe.Pointer, dim int) {
		if dim == len(shape) {
			fn((*T)(p))
			return
		}
		step := strides[dim] * int64(unsafe.Sizeof(*new(T)))
		for i := int64(0); i < shape[dim]; i++ {
			walk(unsafe.Add(p, i*step), dim+1)
		}
	}
	walk(data, 0)
}

// parallelSum is the float64 sum of x's elements (of Go type T), by goroutines:
// blocks of a C-contiguous tensor, or slabs along the first dimension of another.
// Each block's sum has its own slot, added up in order at the end: the result
// does not depend on which goroutine took which block.
func parallelSum[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat]) float64 {
	var partial []float64
	if flat, err := godlpack.ReadSlice[T](x); err == nil {
		grain := grainOf[T](1)
		partial = make([]float64, (len(flat)+grain-1)/grain)
		parallel(len(flat), grain, grain, func(lo, hi int) { partial[lo/grain] = sumSlice(flat[lo:hi]) })
	} else {
		shape, strides := x.Shape(), x.Strides() // ndim >= 1: 0-d tensors are contiguous
		row := 1
		for _, d := range shape[1:] {
			row *= int(d)
		}
		grain := grainOf[T](max(row, 1))
		partial = make([]float64, (int(shape[0])+grain-1)/grain)
		step := strides[0] * int64(unsafe.Sizeof(T(0)))
		parallel(int(shape[0]), grain, grain, func(lo, hi int) {
			s := 0.0
			for i := lo; i < hi; i++ {
				each(unsafe.Add(x.Data(), int64(i)*step), shape[1:], strides[1:], func(v *T) { s += float64(*v) })
			}
			partial[lo/grain] = s
		})
	}
	total := 0.0
	for _, s := range partial {
		total += s
	}
	return total
}

// sumSlice is the float64 sum of s: every float32 is widened before it is added
// (exactly), and the sum runs in several independent float64 partial sums, so
// it is more precise than NumPy's float32 x.sum() (pairwise, in float32).
func sumSlice[T float32 | float64](s []T) float64 {
	switch s := any(s).(type) {
	case []float32:
		return sumFloat32(s)
	case []float64:
		return sumFloat64(s)
	}
	panic("unreachable")
}

// mulInto sets dst[i] = src[i] * k (len(src) >= len(dst); they may be the same
// slice).
func mulInto[T float32 | float64](dst, src []T, k T) {
	switch dst := any(dst).(type) {
	case []float32:
		mulFloat32(dst, any(src).([]float32), float32(k))
	case []float64:
		mulFloat64(dst, any(src).([]float64), float64(k))
	}
}

// sumGo is sumSlice in plain Go: eight independent float64 sums, as one running
// sum would wait for each addition's result (4 cycles) before the next.
func sumGo[T float32 | float64](s []T) float64 {
	var acc [8]float64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		c := s[i : i+8 : i+8]
		acc[0] += float64(c[0])
		acc[1] += float64(c[1])
		acc[2] += float64(c[2])
		acc[3] += float64(c[3])
		acc[4] += float64(c[4])
		acc[5] += float64(c[5])
		acc[6] += float64(c[6])
		acc[7] += float64(c[7])
	}
	total := ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
	for ; i < len(s); i++ {
		total += float64(s[i])
	}
	return total
}

// mulGo is mulInto in plain Go, four elements a step: the unrolled loop spends
// fewer instructions per element on counting and bounds.
func mulGo[T float32 | float64](dst, src []T, k T) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = s[0]*k, s[1]*k, s[2]*k, s[3]*k
	}
	for ; i < len(dst); i++ {
		dst[i] = src[i] * k
	}
}
