//go:build goexperiment.simd && amd64

package main

import "simd/archsimd"

// The SIMD kernels, written with the experimental simd/archsimd package (Go
// 1.26, GOEXPERIMENT=simd): 256-bit AVX2 vectors, which every x86-64 CPU of the
// last decade has; a CPU without AVX2 gets the plain Go loops. Wider AVX-512
// vectors gain nothing here: on 64 MiB both kernels wait for memory with AVX2
// already (bench/bench_goext.py).

// avx2 says whether this CPU runs the AVX2 kernels (read once).
var avx2 = archsimd.X86.AVX2()

// kernelSet names the kernels in use (goext.kernels()).
func kernelSet() string {
	if avx2 {
		return "avx2"
	}
	return "go"
}

// sumFloat32 widens 16 float32 a step into four float64x4 sums (independent, so
// that no addition waits for the one before).
func sumFloat32(s []float32) float64 {
	if !avx2 {
		return sumGo(s)
	}
	var a0, a1, a2, a3 archsimd.Float64x4
	i := 0
	for ; i+16 <= len(s); i += 16 {
		v := archsimd.LoadFloat32x8Slice(s[i : i+8])
		w := archsimd.LoadFloat32x8Slice(s[i+8 : i+16])
		a0 = a0.Add(v.GetLo().ConvertToFloat64())
		a1 = a1.Add(v.GetHi().ConvertToFloat64())
		a2 = a2.Add(w.GetLo().ConvertToFloat64())
		a3 = a3.Add(w.GetHi().ConvertToFloat64())
	}
	return lanes(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
}

// sumFloat64 adds 16 float64 a step into four float64x4 sums.
func sumFloat64(s []float64) float64 {
	if !avx2 {
		return sumGo(s)
	}
	var a0, a1, a2, a3 archsimd.Float64x4
	i := 0
	for ; i+16 <= len(s); i += 16 {
		a0 = a0.Add(archsimd.LoadFloat64x4Slice(s[i : i+4]))
		a1 = a1.Add(archsimd.LoadFloat64x4Slice(s[i+4 : i+8]))
		a2 = a2.Add(archsimd.LoadFloat64x4Slice(s[i+8 : i+12]))
		a3 = a3.Add(archsimd.LoadFloat64x4Slice(s[i+12 : i+16]))
	}
	return lanes(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
}

// lanes is the sum of v's four lanes.
func lanes(v archsimd.Float64x4) float64 {
	var b [4]float64
	v.Store(&b)
	return (b[0] + b[1]) + (b[2] + b[3])
}

// mulFloat32 multiplies 16 float32 a step (two float32x8 vectors).
func mulFloat32(dst, src []float32, k float32) {
	if !avx2 {
		mulGo(dst, src, k)
		return
	}
	src = src[:len(dst)]
	kv := archsimd.BroadcastFloat32x8(k)
	i := 0
	for ; i+16 <= len(dst); i += 16 {
		archsimd.LoadFloat32x8Slice(src[i : i+8]).Mul(kv).StoreSlice(dst[i : i+8])
		archsimd.LoadFloat32x8Slice(src[i+8 : i+16]).Mul(kv).StoreSlice(dst[i+8 : i+16])
	}
	mulGo(dst[i:], src[i:], k)
}

// mulFloat64 multiplies 8 float64 a step (two float64x4 vectors).
func mulFloat64(dst, src []float64, k float64) {
	if !avx2 {
		mulGo(dst, src, k)
		return
	}
	src = src[:len(dst)]
	kv := archsimd.BroadcastFloat64x4(k)
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		archsimd.LoadFloat64x4Slice(src[i : i+4]).Mul(kv).StoreSlice(dst[i : i+4])
		archsimd.LoadFloat64x4Slice(src[i+4 : i+8]).Mul(kv).StoreSlice(dst[i+4 : i+8])
	}
	mulGo(dst[i:], src[i:], k)
}
