package vec_test

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
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

// An in-place clip of every other column of a 2x4 array (NumPy's x[:, ::2]): a view
// with strides (4, 2), walked in one pass a line, the columns between untouched.
func ExampleClipView() {
	x := []float64{-1, 9, 0.5, 9, 2, 9, -3, 9}
	v, err := vec.NewView(x, 0, []int64{2, 2}, []int64{4, 2})
	if err == nil {
		err = vec.ClipView(v, v, 0, 1)
	}
	fmt.Println(x, err)
	// Output: [0 9 0.5 9 1 9 0 9] <nil>
}

// columns is a tensor's layout as a producer holds it: here every other column
// of a 2x4 float32 array. godlpack.Tensor and MutTensor have these methods.
type columns struct {
	data           []float32
	shape, strides [2]int64
}

func (c *columns) Data() unsafe.Pointer { return unsafe.Pointer(&c.data[0]) }
func (c *columns) NDim() int            { return 2 }
func (c *columns) Dim(i int) int64      { return c.shape[i] }
func (c *columns) Stride(i int) int64   { return c.strides[i] }

// Layout makes columns a vec.LaidOutSource: FromTensor reads it in one call.
func (c *columns) Layout() (unsafe.Pointer, []int64, []int64) {
	return c.Data(), c.shape[:], c.strides[:]
}

// A tensor's view, its layout read where it lies (an extension's argument:
// vec.FromTensor[float32](x) of a godlpack.MutTensor[float32]), clipped in place.
func ExampleFromTensor() {
	x := &columns{[]float32{-1, 9, 0.5, 9, 2, 9, -3, 9}, [2]int64{2, 2}, [2]int64{4, 2}}
	v, err := vec.FromTensor[float32](x)
	if err == nil {
		err = vec.ClipView(v, v, 0, 1)
	}
	fmt.Println(x.data, v.Shape(), v.Strides(), err)
	// Output: [0 9 0.5 9 1 9 0 9] [2 2] [4 2] <nil>
}

// A tensor clipped in place with no View: an extension's clip_ of any strides,
// vec.ClipTensor(x, lo, hi) of a godlpack.MutTensor[float32].
func ExampleClipTensor() {
	x := &columns{[]float32{-1, 9, 0.5, 9, 2, 9, -3, 9}, [2]int64{2, 2}, [2]int64{4, 2}}
	err := vec.ClipTensor[float32](x, 0, 1)
	fmt.Println(x.data, err)
	// Output: [0 9 0.5 9 1 9 0 9] <nil>
}

// A 2x2 RGB uint8 image (HxWxC) normalized into a float32 CxHxW one, each channel
// with its own scale and shift (x*k + c: normalize's (x/255 - mean) / std), in one call.
func ExampleCastScaleShiftPlanes() {
	img := []uint8{0, 128, 64, 128, 0, 32, 0, 0, 0, 128, 128, 128}
	hwc, _ := vec.ViewOf(img, 2, 2, 3)
	chw, _ := hwc.Permute(2, 0, 1)
	out := make([]float32, 12)
	dst, _ := vec.ViewOf(out, 3, 2, 2)
	k := []float32{1.0 / 128, 1.0 / 64, 1.0 / 32} // powers of two: exact results
	c := []float32{0, -1, 0}
	if err := vec.CastScaleShiftPlanes(dst, chw, k, c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output: [0 1 0 1 1 -1 -1 1 2 1 0 4]
}

// A new x*k + c in its source's memory order (NumPy's order="K"): the result of a
// transposed 3x2 source is transposed too, in C memory that a function can return
// as it is (an extension's *tensor.Tensor), and both walk as one run.
func ExampleStridesLike() {
	x := []float32{1, 2, 3, 4, 5, 6} // a C-contiguous 2x3, read as its .T
	src, _ := vec.NewView(x, 0, []int64{3, 2}, []int64{1, 3})
	shape, strides := src.Shape(), vec.StridesLike(src)
	out, data, err := tensor.UninitializedStrided[float32](shape, strides)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out.Close()
	dst, _ := vec.NewView(data, 0, shape, strides)
	err = vec.ScaleShiftView(dst, src, 10, 1)
	fmt.Println(strides, data, err)
	// Output: [1 3] [11 21 31 41 51 61] <nil>
}

// The L2 norm of each row of a strided view (a [:, ::2] of a 2x4 matrix): Lines
// hands fn each row whole, its elements gathered where they are not adjacent.
func ExampleLines() {
	x := []float32{3, 0, 4, 0, 6, 0, 8, 0}
	v, _ := vec.NewView(x, 0, []int64{2, 2}, []int64{4, 2})
	norms := make([]float64, 2)
	err := vec.Lines(v, func(i int, row []float32) error {
		norms[i] = vec.Norm2(row)
		return nil
	})
	fmt.Println(norms, err)
	// Output: [5 10] <nil>
}
