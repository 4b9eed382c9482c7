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

// AVX-512 code lives in functions of its own (named ...AVX512, never inlined),
// apart from the AVX2 code of the same kernel. Go's compiler assumes, block by
// block, the CPU features that the code before a block implies (cmd/compile's
// cpufeatures pass): a 512-bit value anywhere in a function, even a zero vector,
// which it puts in the function's entry block, says AVX-512 for every block
// after it, and the compiler then rewrites the AVX2 loop's 256-bit blends
// (Merge) and chained bitwise ops into AVX-512 instructions (a masked VMINPS,
// VPTERNLOGD on YMM registers). A CPU without AVX-512 faults on those: SIGILL
// in Clip, Minimum, Maximum, Min and Max on AVX2 machines (Go 1.26.8, 1.27.3).
// TestAVX512OnlyInItsFunctions holds the rule on vec's machine code.

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
