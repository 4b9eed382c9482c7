package main

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/godlpack/godlpack"
)

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

// parallel splits [0, n) among GOMAXPROCS goroutines when n is large enough to
// be worth it, and waits for them.
func parallel(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 1<<16 || workers == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	wg.Wait()
}

// parallelSum is the float64 sum of x's elements (of Go type T), by goroutines:
// chunks of a C-contiguous tensor, or slabs along the first dimension of another.
func parallelSum[T float32 | float64](x godlpack.Tensor[godlpack.AnyFloat]) float64 {
	var mu sync.Mutex
	total := 0.0
	add := func(s float64) {
		mu.Lock()
		total += s
		mu.Unlock()
	}
	if flat, err := godlpack.ReadSlice[T](x); err == nil {
		parallel(len(flat), func(lo, hi int) { add(sumSlice(flat[lo:hi])) })
		return total
	}
	shape, strides := x.Shape(), x.Strides() // ndim >= 1: 0-d tensors are contiguous
	step := strides[0] * int64(unsafe.Sizeof(T(0)))
	parallel(int(shape[0]), func(lo, hi int) {
		s := 0.0
		for i := lo; i < hi; i++ {
			each(unsafe.Add(x.Data(), int64(i)*step), shape[1:], strides[1:], func(v *T) { s += float64(*v) })
		}
		add(s)
	})
	return total
}

// sumSlice adds s in eight independent float64 sums: one running sum would wait
// for each addition's result (4 cycles) before the next.
func sumSlice[T float32 | float64](s []T) float64 {
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

// mulInto sets dst[i] = src[i] * k (len(src) >= len(dst); they may be the same
// slice), four elements a step: Go does not vectorize, and the unrolled loop
// spends fewer instructions per element on counting and bounds.
func mulInto[T float32 | float64](dst, src []T, k T) {
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
