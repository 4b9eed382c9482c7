package tensor_test

import (
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
)

// What one tensor's exchange costs through the API, each way and both ways, for
// a 16x16 float32 tensor. bench/bench_go.sh prints each against
// BenchmarkMallocFree: the C allocation and free (two cgo calls) that a Go
// program managing C memory by hand would make instead.

const benchRows, benchCols = 16, 16

var benchShape = []int64{benchRows, benchCols}

func BenchmarkMallocFree(b *testing.B) {
	for b.Loop() {
		ctensor.MallocFree(benchRows * benchCols * 4)
	}
}

func newCMemory() (*tensor.Tensor, error) { return tensor.New[float32](benchShape...) }

func newPinned(data []float32) func() (*tensor.Tensor, error) {
	return func() (*tensor.Tensor, error) { return tensor.FromSlice(data, benchShape...) }
}

// goToC: Go produces, a C consumer takes the tensor and calls its deleter.
func goToC(b *testing.B, produce func() (*tensor.Tensor, error)) {
	for b.Loop() {
		t, err := produce()
		if err != nil {
			b.Fatal(err)
		}
		m, _ := t.Export()
		ctensor.Delete(m, true)
	}
}

// goToGo: both ends in Go: produce, export, consume, close.
func goToGo(b *testing.B, produce func() (*tensor.Tensor, error)) {
	for b.Loop() {
		t, err := produce()
		if err != nil {
			b.Fatal(err)
		}
		m, _ := t.Export()
		back, err := tensor.FromManaged(m)
		if err != nil {
			b.Fatal(err)
		}
		back.Close()
	}
}

func BenchmarkGoToCCMemory(b *testing.B) { goToC(b, newCMemory) }

func BenchmarkGoToCPinnedSlice(b *testing.B) {
	goToC(b, newPinned(make([]float32, benchRows*benchCols)))
}

// A C producer's tensor is consumed in Go (validated, wrapped) and closed.
func BenchmarkCToGo(b *testing.B) {
	for b.Loop() {
		t, err := tensor.FromManaged(ctensor.ProduceFloat32(benchRows, benchCols))
		if err != nil {
			b.Fatal(err)
		}
		t.Close()
	}
}

func BenchmarkGoToGoCMemory(b *testing.B) { goToGo(b, newCMemory) }

func BenchmarkGoToGoPinnedSlice(b *testing.B) {
	goToGo(b, newPinned(make([]float32, benchRows*benchCols)))
}
