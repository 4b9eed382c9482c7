package dlpack_test

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack"
)

func ExampleDTypeOf() {
	fmt.Println(dlpack.DTypeOf[complex64](), dlpack.DTypeOf[dlpack.Float8E4M3FN]().DL)
	// Output: complex64 {10 8 1}
}

func ExampleFromFloat64() {
	x := dlpack.FromFloat64[dlpack.Float8E4M3FN](0.3) // rounds to the nearest float8_e4m3fn
	fmt.Printf("%#x %v\n", uint8(x), x.Float64())
	// Output: 0x2a 0.3125
}

func ExampleFromFloat32() {
	h := dlpack.FromFloat32[dlpack.Float16](65520) // past float16's largest finite value
	fmt.Println(h.Float32())
	// Output: +Inf
}

func ExampleBFloat16_Float32() {
	b := dlpack.BFloat16(0x3fc0)
	fmt.Println(b.Float32(), b.Float64())
	// Output: 1.5 1.5
}

func ExampleDLDeviceType_String() {
	fmt.Println(dlpack.CPU, dlpack.CUDAManaged)
	// Output: kDLCPU kDLCUDAManaged
}
