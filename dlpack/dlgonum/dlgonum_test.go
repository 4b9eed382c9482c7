package dlgonum_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/dlgonum"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/internal/ctensor"
	"gonum.org/v1/gonum/mat"
)

func f64bytes(xs ...float64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// A window of a gonum matrix reaches a C consumer without a copy: its strides
// are the matrix's, and the C consumer reads the window's elements.
func TestDenseWindowToC(t *testing.T) {
	m := mat.NewDense(3, 4, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	w := m.Slice(1, 3, 1, 3).(*mat.Dense) // rows 1-2, cols 1-2
	tt, err := dlgonum.FromDense(w)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tensor.As[float64](tt)
	raw, _ := v.Raw()
	if &raw[0] != &m.RawMatrix().Data[5] {
		t.Error("the tensor does not share the matrix's memory")
	}
	p, err := tt.Export()
	if err != nil {
		t.Fatal(err)
	}
	seen := ctensor.Consume(p, true, false)
	if !slices.Equal(seen.Shape, []int64{2, 2}) || !slices.Equal(seen.Strides, []int64{4, 1}) {
		t.Errorf("C saw shape %v strides %v", seen.Shape, seen.Strides)
	}
	if want := f64bytes(5, 6, 9, 10); string(seen.Bytes) != string(want) {
		t.Errorf("C read %x, want %x", seen.Bytes, want)
	}
}

// A C producer's float64 matrix becomes a mat.Dense sharing its memory: a write
// through gonum is what the C consumer then reads.
func TestCTensorToDense(t *testing.T) {
	f64 := dlpack.DTypeOf[float64]()
	spec := ctensor.Spec{Versioned: true, Version: dlpack.DLPackVersion{Major: 1, Minor: 3}, Device: dlpack.CPU, DType: f64.DL, Shape: []int64{2, 2}, Strides: []int64{3, 1}}
	p, id := ctensor.Produce(spec, f64bytes(1, 2, -1, 3, 4, -1))
	tt, err := tensor.FromManaged(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dlgonum.Dense(tt)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(d, mat.NewDense(2, 2, []float64{1, 2, 3, 4})) {
		t.Errorf("Dense: %v", mat.Formatted(d))
	}
	d.Scale(10, d)
	if want := f64bytes(10, 20, 30, 40); string(ctensor.Consume(p, true, true).Bytes) != string(want) {
		t.Error("gonum's write is not in the tensor's memory")
	}
	g, _ := dlgonum.General(tt)
	if g.Stride != 3 || len(g.Data) != 5 {
		t.Errorf("General: stride %d, %d elements", g.Stride, len(g.Data))
	}
	tt.Close()
	if ctensor.DeleterCalls(id) != 1 {
		t.Error("deleter did not run once")
	}
}

func TestGeneralRefusals(t *testing.T) {
	cases := map[string]func() (*tensor.Tensor, error){
		"float32": func() (*tensor.Tensor, error) { return tensor.New[float32](2, 2) },
		"3-d":     func() (*tensor.Tensor, error) { return tensor.New[float64](2, 2, 2) },
		"empty":   func() (*tensor.Tensor, error) { return tensor.New[float64](0, 2) },
		"col-major": func() (*tensor.Tensor, error) {
			return tensor.FromSliceStrided([]float64{1, 2, 3, 4}, []int64{2, 2}, []int64{1, 2})
		},
		"read-only": func() (*tensor.Tensor, error) {
			t, err := tensor.New[float64](2, 2)
			t.SetReadOnly()
			return t, err
		},
	}
	for name, mk := range cases {
		tt, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dlgonum.Dense(tt); err == nil {
			t.Errorf("%s: Dense succeeded", name)
		}
		tt.Close()
	}
	var de *tensor.DTypeError
	f32, _ := tensor.New[float32](1, 1)
	if _, err := dlgonum.General(f32); !errors.As(err, &de) {
		t.Errorf("float32: %v", err)
	}
	f32.Close()
}
