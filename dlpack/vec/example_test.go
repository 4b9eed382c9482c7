package vec_test

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack/vec"
)

// An extension's in-place clip and a reduction over float32 data: the same calls
// whichever kernel set (AVX-512, AVX2, Go) the machine runs.
func Example() {
	x := []float32{-2, 0.5, 3, 1}
	if err := vec.Clip(x, x, 0, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x, vec.Sum(x))
	// Output: [0 0.5 1 1] 2.5
}

// Integer sums wrap around modulo 2**64, as NumPy's sum of an int64 array does, on
// every kernel set.
func ExampleSumInt() {
	fmt.Println(vec.SumInt([]int8{100, 100, -7}), vec.SumInt([]int64{1<<63 - 1, 1}))
	// Output: 193 -9223372036854775808
}
