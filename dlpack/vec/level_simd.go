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
