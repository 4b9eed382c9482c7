package vec

import "os"

// The kernel sets, in order of width: the portable Go loops, then the
// simd/archsimd ones of kernels_simd_gen.go and reduce_simd.go.
const (
	useGo = iota
	useAVX2
	useAVX512
)

var levelNames = [...]string{useGo: "go", useAVX2: "avx2", useAVX512: "avx512"}

// cpuLevel is the widest set this build and this CPU run (level_simd.go,
// level_nosimd.go); level is the one in use: cpuLevel lowered by
// $GODLPACK_VEC_KERNELS=avx2|go, so that one machine tests every set.
var cpuLevel = detectLevel()

var level = lowered(cpuLevel, os.Getenv("GODLPACK_VEC_KERNELS"))

// lowered is l capped by the set named cap ("" or an unknown name: l).
func lowered(l int, cap string) int {
	for want, name := range levelNames {
		if name == cap {
			return min(l, want)
		}
	}
	return l
}

// Kernels names the kernel set in use: "avx512" or "avx2" (simd/archsimd, in a
// build with GOEXPERIMENT=simd on amd64), else "go".
func Kernels() string { return levelNames[level] }

// setLevel makes the set l (capped by the CPU's) the one in use and returns the
// previous one: the tests run every kernel set this way. Not safe while
// another goroutine runs a kernel.
func setLevel(l int) int {
	prev := level
	level = min(l, cpuLevel)
	return prev
}
