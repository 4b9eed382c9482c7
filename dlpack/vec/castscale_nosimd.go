//go:build !(goexperiment.simd && amd64)

package vec

// No SIMD in this build: CastScaleShift's uint8 to float32 lines take the
// generic way (castscale.go).
func castScaleShiftU8F32([]float32, []uint8, int, int, float32, float32) int { return 0 }
