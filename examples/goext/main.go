// Command goext is a Python extension module written in Go with godlpack: pip
// builds it (pyproject.toml) into the module goext, whose functions take any
// DLPack tensor (NumPy, PyTorch, JAX, TVM-FFI, godlpack.Array, raw capsules)
// without a copy and return godlpack.Array instances. docs/extensions.md, "A
// project", shows it whole.
package main

import (
	"errors"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
)

func init() {
	godlpack.Module("goext", "Example functions over DLPack tensors, written in Go.",
		godlpack.Func2("scale", scale, "x", "k").
			Doc("A new array x * k, of x's dtype and shape (float32 or float64, any layout)."),
		godlpack.Func2("scale_", scaleInPlace, "x", "k").
			Doc("Multiplies x by k in place: the producer sees it (zero-copy)."),
		godlpack.Func1("sum", sum, "x").ReleaseGIL().
			Doc("The float64 sum of x, computed by goroutines in parallel (GIL released)."),
		godlpack.Func2("matmul", matmul, "a", "b").
			Where("a", constraint.NDim(2)).Where("b", constraint.NDim(2)).
			Doc("The float64 matrix product a @ b, through gonum."),
		godlpack.Func1("fail", fail, "msg").Doc("Returns a Go error: raises ValueError(msg)."),
		godlpack.Func1("panic", panicWith, "msg").Doc("Panics in Go: raises RuntimeError."),
		godlpack.Func1("describe", describe, "x").
			Doc("(dtype name, shape, read-only) of any tensor: a tuple of str, tuple and bool."),
		godlpack.Func2("fill", fill, "x", "value").Default("value", 0.0).
			Where("x", constraint.Contiguous()).
			Doc("Fills a C-contiguous float64 tensor with value (default 0.0)."),
		godlpack.Func1("hold", hold, "x").Doc("Keeps x alive in Go until release(); returns its length."),
		godlpack.Func0("held_sum", heldSum).Doc("The sum of the tensor hold() keeps."),
		godlpack.Func0("release", release).Doc("Releases the tensor hold() keeps."),
		godlpack.Func0("kernels", kernels).
			Doc("vec's inner loops in use: \"avx512\" or \"avx2\" (SIMD, simd/archsimd), or \"go\"."),
		godlpack.Func1("touch", touch, "x").
			Doc("Takes a float32 tensor and returns None: the cost of a call (bench/)."),
		godlpack.Func1("touch_gil", touch, "x").HoldGIL().
			Doc("touch, keeping the GIL held during the Go call."),
		godlpack.Func1("touch_released", touch, "x").ReleaseGIL().
			Doc("touch, releasing the GIL on every call, even with no other Python thread."),
		godlpack.Func1("spin", spin, "seconds").
			Doc("Busy-waits in Go for seconds (GIL released); returns (start, end) in time.time_ns()."),
		godlpack.Func1("spin_gil", spin, "seconds").HoldGIL().
			Doc("spin, keeping the GIL held: no other Python thread runs meanwhile."),
		godlpack.Func1("keep_elsewhere", keepElsewhere, "x").
			Doc("Keeps and closes x on another goroutine: an error, as the GIL may be held."),
		godlpack.Func1("keep_elsewhere_released", keepElsewhere, "x").ReleaseGIL().
			Doc("keep_elsewhere in a ReleaseGIL function: returns x's length."),
		godlpack.Func0("gil_releases", gilReleases).HoldGIL().
			Doc("How many calls into goext have released the GIL so far (tests, bench/)."),
	)
}

// A c-shared library needs a main function; it never runs.
func main() {}

func scale(x godlpack.Tensor[godlpack.AnyFloat], k float64) (*tensor.Tensor, error) {
	if x.DType() == dlpack.DTypeOf[float32]() {
		return scaled(x, float32(k))
	}
	return scaled(x, k)
}

func scaleInPlace(x godlpack.MutTensor[godlpack.AnyFloat], k float64) (godlpack.None, error) {
	if x.DType() == dlpack.DTypeOf[float32]() {
		return godlpack.None{}, scaleEach(x, float32(k))
	}
	return godlpack.None{}, scaleEach(x, k)
}

func sum(x godlpack.Tensor[godlpack.AnyFloat]) (float64, error) {
	if x.DType() == dlpack.DTypeOf[float32]() {
		return parallelSum[float32](x)
	}
	return parallelSum[float64](x)
}

func kernels() (string, error) { return vec.Kernels(), nil }

func touch(godlpack.Tensor[float32]) (godlpack.None, error) { return godlpack.None{}, nil }

func fail(msg string) (godlpack.None, error) { return godlpack.None{}, errors.New(msg) }

func panicWith(msg string) (godlpack.None, error) { panic(msg) }

func describe(x godlpack.Tensor[godlpack.Any]) (godlpack.Tuple, error) {
	shape := make(godlpack.Tuple, x.NDim())
	for i := range shape {
		shape[i] = x.Dim(i)
	}
	return godlpack.Tuple{x.DType().Name, shape, x.ReadOnly()}, nil
}

func fill(x godlpack.MutTensor[float64], value float64) (godlpack.None, error) {
	s, err := godlpack.Slice[float64](x)
	if err != nil {
		return godlpack.None{}, err
	}
	vec.Fill(s, value)
	return godlpack.None{}, nil
}
