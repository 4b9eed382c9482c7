//go:build !(goexperiment.simd && amd64)

package vec

// No SIMD in this build: the step-2 gathers and scatters and the step -1 gather
// (stride_simd.go) move
// nothing; walk.go's loops move every element.

func gatherStep2[T any](_, _ []T, _ int) int      { return 0 }
func gatherReverse[T any](_, _ []T, _ int) int    { return 0 }
func scatterStep2[T any](_ []T, _ int, _ []T) int { return 0 }
