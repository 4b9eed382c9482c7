//go:build !(goexperiment.simd && amd64)

package main

// Builds without the SIMD kernels (no GOEXPERIMENT=simd, or not amd64): the
// plain Go loops of kernels.go.

// kernelSet names the kernels in use (goext.kernels()).
func kernelSet() string { return "go" }

func sumFloat32(s []float32) float64           { return sumGo(s) }
func sumFloat64(s []float64) float64           { return sumGo(s) }
func mulFloat32(dst, src []float32, k float32) { mulGo(dst, src, k) }
func mulFloat64(dst, src []float64, k float64) { mulGo(dst, src, k) }
