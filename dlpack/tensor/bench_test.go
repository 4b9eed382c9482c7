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

// Go produces (New: C memory), a C consumer takes it and calls the deleter.
func BenchmarkGoToCCMemory(b *testing.B) {
	for b.Loop() {
		t, err := tensor.New[float32](benchShape...)
		if err != nil {
			b.Fatal(err)
		}
		m, _ := t.Export()
		ctensor.Delete(m, true)
	}
}

// Go produces (FromSlice: a pinned slice), a C consumer takes it and calls the deleter.
func BenchmarkGoToCPinnedSlice(b *testing.B) {
	data := make([]float32, benchRows*benchCols)
	for b.Loop() {
		t, err := tensor.FromSlice(data, benchShape...)
		if err != nil {
			b.Fatal(err)
		}
		m, _ := t.Export()
		ctensor.Delete(m, true)
	}
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

// Both ends in Go: produce, export, consume, close.
func BenchmarkGoToGoCMemory(b *testing.B) {
	for b.Loop() {
		t, err := tensor.New[float32](benchShape...)
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

func BenchmarkGoToGoPinnedSlice(b *testing.B) {
	data := make([]float32, benchRows*benchCols)
	for b.Loop() {
		t, err := tensor.FromSlice(data, benchShape...)
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
