package dlgonum_test

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack/dlgonum"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func ExampleFromDense() {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	t, err := dlgonum.FromDense(m) // m's data stays pinned until the tensor is released
	if err != nil {
		panic(err)
	}
	defer t.Close()
	fmt.Println(t.Shape(), t.Strides(), t.DType())
	// Output: [2 3] [3 1] float64
}

func ExampleFromGeneral() {
	g := blas64.General{Rows: 2, Cols: 2, Stride: 3, Data: []float64{1, 2, 0, 3, 4}}
	t, _ := dlgonum.FromGeneral(g)
	defer t.Close()
	v, _ := tensor.As[float64](t)
	x, _ := v.At(1, 1)
	fmt.Println(t.Strides(), x)
	// Output: [3 1] 4
}

func ExampleDense() {
	t, _ := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2) // or a tensor from a C producer
	defer t.Close()
	m, err := dlgonum.Dense(t) // shares t's memory: keep t open while m is used
	if err != nil {
		panic(err)
	}
	m.Scale(2, m)
	v, _ := tensor.As[float64](t)
	x, _ := v.At(1, 0)
	fmt.Println(x)
	// Output: 6
}

func ExampleGeneral() {
	t, _ := tensor.New[float64](2, 2)
	defer t.Close()
	g, _ := dlgonum.General(t)
	blas64.Implementation().Dscal(4, 0, g.Data, 1)
	fmt.Println(g.Rows, g.Cols, g.Stride, len(g.Data))
	// Output: 2 2 2 4
}
