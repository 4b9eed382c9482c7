package dlpack_test

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
)

func ExampleFillContiguousStrides() {
	shape := []int64{2, 3, 4}
	strides := make([]int64, len(shape))
	ok := dlpack.FillContiguousStrides(strides, shape)
	fmt.Println(strides, ok)
	// Output: [12 4 1] true
}
