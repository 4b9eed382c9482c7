//go:build !(goexperiment.simd && amd64)

package vec

// No SIMD in this build: the reductions' kernels do nothing (reduce_simd.go).

func sumLanesF32([]float32, *[16]float64) int                   { return 0 }
func sumBlocksF32([]float32, *f32Lanes) int                     { return 0 }
func sumLanesF64([]float64, *[16]float64) int                   { return 0 }
func dotLanesF32(_, _ []float32, _ *[16]float64) int            { return 0 }
func dotLanesF64(_, _ []float64, _ *[16]float64) int            { return 0 }
func castU8F32([]float32, []uint8) int                          { return 0 }
func extremeLanesF32([]float32, *[16]float32, bool) (int, bool) { return 16, false }
func extremeLanesF64([]float64, *[16]float64, bool) (int, bool) { return 16, false }
