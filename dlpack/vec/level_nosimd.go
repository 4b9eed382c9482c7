//go:build !(goexperiment.simd && amd64)

package vec

// detectLevel: without GOEXPERIMENT=simd (or off amd64), only the Go loops.
func detectLevel() int { return useGo }
