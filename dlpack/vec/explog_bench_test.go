package vec

import (
	"math"
	"testing"
)

// Exp and Log against the loop they replace (math.Exp/math.Log an element),
// 4096 elements in cache, in ns an element: go test -bench 'Exp|Log' (with
// GOEXPERIMENT=simd for the kernels; GODLPACK_VEC_KERNELS=avx2|go lowers them).

const explogBenchN = 4096

func benchExpLog[T Float](b *testing.B, f func(d, a []T) error, lo, hi float64) {
	a, d := make([]T, explogBenchN), make([]T, explogBenchN)
	for i := range a {
		a[i] = T(lo + (hi-lo)*float64(i)/explogBenchN)
	}
	for b.Loop() {
		if err := f(d, a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/explogBenchN, "ns/elem")
}

// mathLoop is the Go loop of math's function: what Exp and Log were.
func mathLoop[T Float](fn func(float64) float64) func(d, a []T) error {
	return func(d, a []T) error {
		for i, v := range a {
			d[i] = T(fn(float64(v)))
		}
		return nil
	}
}

func BenchmarkExpF32(b *testing.B)     { benchExpLog(b, Exp[float32], -80, 80) }
func BenchmarkExpMathF32(b *testing.B) { benchExpLog(b, mathLoop[float32](math.Exp), -80, 80) }
func BenchmarkExpF64(b *testing.B)     { benchExpLog(b, Exp[float64], -700, 700) }
func BenchmarkExpMathF64(b *testing.B) { benchExpLog(b, mathLoop[float64](math.Exp), -700, 700) }
func BenchmarkLogF32(b *testing.B)     { benchExpLog(b, Log[float32], 1e-3, 1e6) }
func BenchmarkLogMathF32(b *testing.B) { benchExpLog(b, mathLoop[float32](math.Log), 1e-3, 1e6) }
func BenchmarkLogF64(b *testing.B)     { benchExpLog(b, Log[float64], 1e-3, 1e6) }
func BenchmarkLogMathF64(b *testing.B) { benchExpLog(b, mathLoop[float64](math.Log), 1e-3, 1e6) }
