//go:build goexperiment.simd && amd64

package vec

import "simd/archsimd"

// detectLevel: AVX-512 (F, CD, BW, DQ, VL: archsimd's AVX512 check), else AVX2
// with FMA (every x86-64 CPU of the last decade), else the Go loops.
func detectLevel() int {
	switch {
	case archsimd.X86.AVX512():
		return useAVX512
	case archsimd.X86.AVX2() && archsimd.X86.FMA():
		return useAVX2
	}
	return useGo
}

// clearUpper ends a kernel's vector code with VZEROUPPER (archsimd's
// ClearAVXUpperBits, which the compiler does not emit itself). AVX and AVX-512
// instructions leave the upper halves of the vector registers in use, and until
// something clears them every SSE instruction after (the Go loop that finishes
// a kernel's tail, Go's scalar floats) pays a false dependency on them; in C
// (CPython, the C library) that made small calls 2-3x slower, which godlpack's
// runtime patch now prevents where Go returns to C
// (internal/forksafe/overlay/godlpack_clearupper_amd64.s). A kernel calls it
// once, after its loops, when no vector value is live.
func clearUpper() {
	if level != useGo {
		archsimd.ClearAVXUpperBits()
	}
}
