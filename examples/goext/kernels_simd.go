//go:build goexperiment.simd && amd64

package main

import (
	"os"
	"simd/archsimd"
)

// The SIMD kernels, written with the experimental simd/archsimd package (Go
// 1.26, GOEXPERIMENT=simd): 512-bit AVX-512 vectors where the CPU has them,
// else 256-bit AVX2 ones (every x86-64 CPU of the last decade), else the plain
// Go loops. On 64 MiB both wait for memory, yet AVX-512 is ~10% faster on this
// machine (AMD Zen 5: a 64-byte store writes a whole cache line in one go).

// The kernel sets, in order of width.
const (
	useGo = iota
	useAVX2
	useAVX512
)

// level is the widest set this CPU runs (read once), lowered by
// $GOEXT_KERNELS=avx2 or go: the tests run every set on one machine that way.
var level = func() int {
	l := useGo
	switch {
	case archsimd.X86.AVX512():
		l = useAVX512
	case archsimd.X86.AVX2():
		l = useAVX2
	}
	switch os.Getenv("GOEXT_KERNELS") {
	case "avx2":
		l = min(l, useAVX2)
	case "go":
		l = useGo
	}
	return l
}()

// kernelSet names the kernels in use (goext.kernels()).
func kernelSet() string {
	return [...]string{useGo: "go", useAVX2: "avx2", useAVX512: "avx512"}[level]
}

// sumFloat32 widens float32 to float64 and adds them in four vector sums
// (independent, so that no addition waits for the one before).
func sumFloat32(s []float32) float64 {
	switch level {
	case useAVX512:
		var a0, a1, a2, a3 archsimd.Float64x8
		i := 0
		for ; i+32 <= len(s); i += 32 {
			v := archsimd.LoadFloat32x16Slice(s[i : i+16])
			w := archsimd.LoadFloat32x16Slice(s[i+16 : i+32])
			a0 = a0.Add(v.GetLo().ConvertToFloat64())
			a1 = a1.Add(v.GetHi().ConvertToFloat64())
			a2 = a2.Add(w.GetLo().ConvertToFloat64())
			a3 = a3.Add(w.GetHi().ConvertToFloat64())
		}
		return lanes8(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
	case useAVX2:
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
		return lanes4(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
	}
	return sumGo(s)
}

// sumFloat64 adds float64 in four vector sums.
func sumFloat64(s []float64) float64 {
	switch level {
	case useAVX512:
		var a0, a1, a2, a3 archsimd.Float64x8
		i := 0
		for ; i+32 <= len(s); i += 32 {
			a0 = a0.Add(archsimd.LoadFloat64x8Slice(s[i : i+8]))
			a1 = a1.Add(archsimd.LoadFloat64x8Slice(s[i+8 : i+16]))
			a2 = a2.Add(archsimd.LoadFloat64x8Slice(s[i+16 : i+24]))
			a3 = a3.Add(archsimd.LoadFloat64x8Slice(s[i+24 : i+32]))
		}
		return lanes8(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
	case useAVX2:
		var a0, a1, a2, a3 archsimd.Float64x4
		i := 0
		for ; i+16 <= len(s); i += 16 {
			a0 = a0.Add(archsimd.LoadFloat64x4Slice(s[i : i+4]))
			a1 = a1.Add(archsimd.LoadFloat64x4Slice(s[i+4 : i+8]))
			a2 = a2.Add(archsimd.LoadFloat64x4Slice(s[i+8 : i+12]))
			a3 = a3.Add(archsimd.LoadFloat64x4Slice(s[i+12 : i+16]))
		}
		return lanes4(a0.Add(a1).Add(a2.Add(a3))) + sumGo(s[i:])
	}
	return sumGo(s)
}

// lanes4 is the sum of v's four lanes.
func lanes4(v archsimd.Float64x4) float64 {
	var b [4]float64
	v.Store(&b)
	return (b[0] + b[1]) + (b[2] + b[3])
}

// lanes8 is the sum of v's eight lanes.
func lanes8(v archsimd.Float64x8) float64 {
	var b [8]float64
	v.Store(&b)
	return ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]))
}

// mulFloat32 multiplies two vectors a step.
func mulFloat32(dst, src []float32, k float32) {
	src = src[:len(dst)]
	i := 0
	switch level {
	case useAVX512:
		kv := archsimd.BroadcastFloat32x16(k)
		for ; i+32 <= len(dst); i += 32 {
			archsimd.LoadFloat32x16Slice(src[i : i+16]).Mul(kv).StoreSlice(dst[i : i+16])
			archsimd.LoadFloat32x16Slice(src[i+16 : i+32]).Mul(kv).StoreSlice(dst[i+16 : i+32])
		}
	case useAVX2:
		kv := archsimd.BroadcastFloat32x8(k)
		for ; i+16 <= len(dst); i += 16 {
			archsimd.LoadFloat32x8Slice(src[i : i+8]).Mul(kv).StoreSlice(dst[i : i+8])
			archsimd.LoadFloat32x8Slice(src[i+8 : i+16]).Mul(kv).StoreSlice(dst[i+8 : i+16])
		}
	}
	mulGo(dst[i:], src[i:], k)
}

// mulFloat64 multiplies two vectors a step.
func mulFloat64(dst, src []float64, k float64) {
	src = src[:len(dst)]
	i := 0
	switch level {
	case useAVX512:
		kv := archsimd.BroadcastFloat64x8(k)
		for ; i+16 <= len(dst); i += 16 {
			archsimd.LoadFloat64x8Slice(src[i : i+8]).Mul(kv).StoreSlice(dst[i : i+8])
			archsimd.LoadFloat64x8Slice(src[i+8 : i+16]).Mul(kv).StoreSlice(dst[i+8 : i+16])
		}
	case useAVX2:
		kv := archsimd.BroadcastFloat64x4(k)
		for ; i+8 <= len(dst); i += 8 {
			archsimd.LoadFloat64x4Slice(src[i : i+4]).Mul(kv).StoreSlice(dst[i : i+4])
			archsimd.LoadFloat64x4Slice(src[i+4 : i+8]).Mul(kv).StoreSlice(dst[i+4 : i+8])
		}
	}
	mulGo(dst[i:], src[i:], k)
}
