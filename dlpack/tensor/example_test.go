package tensor_test

import (
	"errors"
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// A Go slice goes to a consumer without a copy, and comes back as a typed view.
// Here the consumer is Go itself; a C consumer receives the same pointer.
func Example() {
	data := []float32{1, 2, 3, 4, 5, 6}
	t, err := tensor.FromSlice(data, 2, 3) // data stays pinned until the deleter runs
	if err != nil {
		panic(err)
	}
	m, _ := t.Export() // a DLManagedTensorVersioned*, owned by whoever receives it

	back, err := tensor.FromManaged(m) // validates, then owns m
	if err != nil {
		panic(err)
	}
	defer back.Close() // calls the deleter, which releases data's pin
	v, _ := tensor.As[float32](back)
	x, _ := v.At(1, 2)
	fmt.Println(back.Shape(), back.DType(), x)
	// Output: [2 3] float32 6
}

func ExampleEmpty() {
	t, s, _ := tensor.Empty[float32](2, 3) // what an extension function returns
	defer t.Close()
	for i := range s {
		s[i] = float32(i) / 2
	}
	fmt.Println(t.Shape(), s)
	// Output: [2 3] [0 0.5 1 1.5 2 2.5]
}

func ExampleNew() {
	t, _ := tensor.New[int64](2, 2) // zeroed, in 256-byte-aligned C memory
	defer t.Close()
	v, _ := tensor.As[int64](t)
	s, _ := v.Slice()
	copy(s, []int64{1, 2, 3, 4})
	x, _ := v.At(1, 0)
	fmt.Println(x, t.Strides())
	// Output: 3 [2 1]
}

func ExampleFromSlice() {
	t, err := tensor.FromSlice([]uint8{1, 2, 3}) // no shape: 1-d
	if err != nil {
		panic(err)
	}
	defer t.Close()
	fmt.Println(t.Shape(), t.Len())
	_, err = tensor.FromSlice([]uint8{1, 2, 3}, 2, 2)
	fmt.Println(err)
	// Output:
	// [3] 3
	// tensor: shape [2 2]: holds 4 elements, the slice 3
}

func ExampleFromSliceStrided() {
	// The first column of a 3x2 row-major matrix: 3 elements, stride 2.
	t, _ := tensor.FromSliceStrided([]float64{1, 2, 3, 4, 5, 6}, []int64{3}, []int64{2})
	defer t.Close()
	v, _ := tensor.As[float64](t)
	for i, x := range v.All() {
		fmt.Println(i, x)
	}
	// Output:
	// 0 1
	// 1 3
	// 2 5
}

func ExampleFromManaged() {
	// m would come from a C producer; here Go produces it.
	src, _ := tensor.FromSlice([]int16{7, 8})
	m, _ := src.Export()

	t, err := tensor.FromManaged(m)
	if err != nil {
		// m's deleter has already run; the error names the field at fault.
		var ve *dlpack.ValidationError
		fmt.Println(errors.As(err, &ve), ve.Field)
		return
	}
	defer t.Close()
	fmt.Println(t.DType(), t.Device().Type, t.ReadOnly())
	// Output: int16 kDLCPU false
}

func ExampleFromManagedLegacy() {
	src, _ := tensor.New[int32](3)
	m, _ := src.ExportLegacy() // a DLManagedTensor*
	t, err := tensor.FromManagedLegacy(m)
	if err != nil {
		panic(err)
	}
	defer t.Close()
	fmt.Println(t.Shape(), t.ReadOnly())
	// Output: [3] false
}

func ExampleTensor_Close() {
	t, _ := tensor.New[float64](4)
	t.Close() // the deleter runs here, once
	t.Close() // nothing more
	_, err := tensor.As[float64](t)
	fmt.Println(err)
	// Output: tensor: use of a closed or exported tensor
}

func ExampleTensor_Export() {
	t, _ := tensor.New[bool](2)
	t.SetReadOnly()
	m, err := t.Export() // hand m to a C consumer; it calls m->deleter(m) when done
	fmt.Println(m != nil, err)
	back, _ := tensor.FromManaged(m) // (here Go plays the consumer)
	fmt.Println(back.ReadOnly())
	back.Close()
	// Output:
	// true <nil>
	// true
}

func ExampleTensor_ExportLegacy() {
	t, _ := tensor.New[float32](2)
	t.SetReadOnly()
	_, err := t.ExportLegacy()
	fmt.Println(err)
	t.Close()
	// Output: tensor: a read-only tensor cannot be exported as a legacy DLManagedTensor (it has no READ_ONLY flag)
}

func ExampleTensor_Clone() {
	src, _ := tensor.FromSliceStrided([]int8{1, 2, 3, 4}, []int64{2}, []int64{2})
	defer src.Close()
	c, _ := src.Clone() // C-contiguous, in C memory, IS_COPIED set
	defer c.Close()
	v, _ := tensor.As[int8](c)
	s, _ := v.Slice()
	fmt.Println(s, c.IsCopied(), c.Strides())
	// Output: [1 3] true [1]
}

func ExampleTensor_SetReadOnly() {
	t, _ := tensor.FromSlice([]float64{1, 2})
	defer t.Close()
	t.SetReadOnly()
	v, _ := tensor.As[float64](t)
	fmt.Println(v.Set(5, 0))
	// Output: tensor: the tensor is read-only
}

func ExampleAs() {
	t, _ := tensor.New[float32](2)
	defer t.Close()
	_, err := tensor.As[float64](t)
	fmt.Println(err)
	// Output: tensor: element type float64 does not match the tensor's dtype float32
}

func ExampleView_At() {
	t, _ := tensor.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	defer t.Close()
	v, _ := tensor.As[int32](t)
	x, err := v.At(1, 1)
	fmt.Println(x, err)
	_, err = v.At(2, 0)
	fmt.Println(err)
	// Output:
	// 5 <nil>
	// tensor: index [2 0] is out of range for shape [2 3]
}

func ExampleView_Set() {
	t, _ := tensor.New[dlpack.BFloat16](2)
	defer t.Close()
	v, _ := tensor.As[dlpack.BFloat16](t)
	_ = v.Set(dlpack.FromFloat64[dlpack.BFloat16](1.5), 1)
	x, _ := v.At(1)
	fmt.Println(x.Float32())
	// Output: 1.5
}

func ExampleView_All() {
	// A transposed view: rows of stride 1, columns of stride 2.
	t, _ := tensor.FromSliceStrided([]uint16{1, 2, 3, 4}, []int64{2, 2}, []int64{1, 2})
	defer t.Close()
	v, _ := tensor.As[uint16](t)
	for i, x := range v.All() { // logical (row-major) order, whatever the strides
		fmt.Print(i, ":", x, " ")
	}
	fmt.Println()
	// Output: 0:1 1:3 2:2 3:4
}

func ExampleView_Slice() {
	t, _ := tensor.FromSliceStrided([]int64{1, 2, 3, 4}, []int64{2}, []int64{2})
	defer t.Close()
	v, _ := tensor.As[int64](t)
	_, err := v.Slice()
	fmt.Println(err)
	// Output: tensor: the tensor is not C-contiguous
}

func ExampleView_ReadSlice() {
	t, _ := tensor.FromSlice([]float32{1, 2, 3})
	defer t.Close()
	t.SetReadOnly()
	v, _ := tensor.As[float32](t)
	s, err := v.ReadSlice() // read, never write
	fmt.Println(s, err)
	// Output: [1 2 3] <nil>
}

func ExampleView_Raw() {
	t, _ := tensor.FromSliceStrided([]float64{1, 2, 3, 4, 5, 6}, []int64{2, 2}, []int64{3, 1})
	defer t.Close()
	v, _ := tensor.As[float64](t)
	raw, _ := v.Raw() // element (i, j) is raw[3*i + j]
	fmt.Println(raw, raw[3*1+1])
	// Output: [1 2 3 4 5] 5
}

func ExampleUninitialized() {
	x := []float32{1, 2, 3}
	t, y, _ := tensor.Uninitialized[float32](3) // y's every element is written below
	defer t.Close()
	for i, v := range x {
		y[i] = 2*v + 1
	}
	fmt.Println(t.Shape(), y)
	// Output: [3] [3 5 7]
}

func ExampleUninitializedStrided() {
	// A 2x3 result in the memory order of a transposed source (vec.StridesLike):
	// its columns are contiguous.
	t, y, _ := tensor.UninitializedStrided[float32]([]int64{2, 3}, []int64{1, 2})
	defer t.Close()
	for i := range y {
		y[i] = float32(i) // memory order: (0, 0), (1, 0), (0, 1), ...
	}
	v, _ := tensor.As[float32](t)
	e02, _ := v.At(0, 2) // memory element 0*1 + 2*2
	fmt.Println(t.Strides(), e02)
	// Output: [1 2] 4
}
