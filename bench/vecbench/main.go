// Command vecbench is the extension of bench/bench_vec.py: four functions a new
// user writes over tensors, with package vec, each on one goroutine and (the _mt
// names) split over goroutines by vec.Parallel.
package main

import (
	"sync"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack/tensor"
	"github.com/godlpack/godlpack/dlpack/vec"
)

func init() {
	godlpack.Module("vecbench", "Functions a new user writes over tensors, with dlpack/vec.",
		godlpack.Func1("normalize", normalize(false), "img").Where("img", constraint.NDim(3)).
			Doc("uint8 HxWxC image -> float32 CxHxW, (x/255 - mean[c]) / std[c] (ImageNet's)."),
		godlpack.Func1("normalize_mt", normalize(true), "img").Where("img", constraint.NDim(3)),
		godlpack.Func1("row_norms", rowNorms(false), "x").Where("x", constraint.NDim(2)).
			Doc("The L2 norm of each row of a float32 matrix, as float32."),
		godlpack.Func1("row_norms_mt", rowNorms(true), "x").Where("x", constraint.NDim(2)),
		godlpack.Func3("clip_", clipInPlace(false), "x", "lo", "hi").Where("x", constraint.NDim(2)).
			Doc("Clips a float32 matrix to [lo, hi] in place."),
		godlpack.Func3("clip_mt_", clipInPlace(true), "x", "lo", "hi").Where("x", constraint.NDim(2)),
		godlpack.Func3("scale_shift", scaleShift(false), "x", "k", "c").Where("x", constraint.NDim(2)).
			Doc("A new float32 matrix x*k + c."),
		godlpack.Func3("scale_shift_mt", scaleShift(true), "x", "k", "c").Where("x", constraint.NDim(2)),
		godlpack.Func2("scale_nd_", scaleInPlace, "x", "k").
			Doc("Multiplies a float32 tensor of any layout by k in place (the memory-order rows)."),
		godlpack.Func3("clip_nd_", clipAny, "x", "lo", "hi").
			Doc("Clips a float32 tensor of any layout to [lo, hi] in place."),
		godlpack.Func3("scale_shift_nd", scaleShiftLike, "x", "k", "c").
			Doc("A new float32 tensor x*k + c of any layout, laid out in x's memory order (NumPy's order=K)."),
		godlpack.Func1("sum_nd", sumAny, "x").
			Doc("The sum of a float32 tensor of any layout, in its memory's order (vec.SumView: float32 lanes, the units in float64)."),
		godlpack.Func3("noop_", noop, "x", "lo", "hi").Where("x", constraint.NDim(2)).
			Doc("clip_'s signature doing nothing: what the call itself costs (the floor of a 4x4 clip_)."),
		godlpack.Func0("kernels", func() (string, error) { return vec.Kernels(), nil }),
	)
}

func main() {}

var mean, std = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}

// scale and shift are normalize's (x/255 - mean) / std as x*scale + shift, per
// channel.
var scale, shift = [3]float32{1 / (255 * std[0]), 1 / (255 * std[1]), 1 / (255 * std[2])},
	[3]float32{-mean[0] / std[0], -mean[1] / std[1], -mean[2] / std[2]}

// parallelRows runs fn over the rows [0, n) of a matrix of rowBytes a row, split
// by vec.Parallel; the first error wins. Only the _mt functions build its fn:
// a closure handed to goroutines escapes to the heap, an allocation a call that
// the one-goroutine paths, which call their body directly, do without.
func parallelRows(n, rowBytes int, fn func(lo, hi int) error) error {
	var once sync.Once
	var first error
	vec.Parallel(n, rowBytes, func(lo, hi int) {
		if err := fn(lo, hi); err != nil {
			once.Do(func() { first = err })
		}
	})
	return first
}

// newFloat32 is a new C-contiguous float32 tensor and its elements, not
// cleared: each function here writes every one.
func newFloat32(shape ...int64) (*tensor.Tensor, []float32, error) {
	return tensor.Uninitialized[float32](shape...)
}

func normalize(mt bool) func(godlpack.Tensor[uint8]) (*tensor.Tensor, error) {
	return func(img godlpack.Tensor[uint8]) (*tensor.Tensor, error) {
		h, w, c := img.Dim(0), img.Dim(1), img.Dim(2)
		if c != int64(len(mean)) {
			return nil, godlpack.ValueError.Errorf("normalize(): %d channels, want 3 (RGB)", c)
		}
		src, err := vec.FromTensor[uint8](img)
		if err != nil {
			return nil, err
		}
		chw, err := src.Permute(2, 0, 1)
		if err != nil {
			return nil, err
		}
		out, data, err := newFloat32(c, h, w)
		if err != nil {
			return nil, err
		}
		dst, err := vec.ViewOf(data, c, h, w)
		if err != nil {
			return nil, err
		}
		if !mt { // every channel's plane in one call, with its own scale and shift
			return out, vec.CastScaleShiftPlanes(dst, chw, scale[:], shift[:])
		}
		return out, parallelRows(int(c*h), int(w*5), func(lo, hi int) error { return normalizeRows(dst, chw, h, int64(lo), int64(hi)) })
	}
}

// normalizeRows is normalize over the rows [lo, hi) of dst's C*H (each a row of
// a channel's plane), from the CxHxW view chw of the image: a goroutine's rows
// of a channel's plane in one call, x*k[ch] + b[ch] from uint8.
func normalizeRows(dst vec.View[float32], chw vec.View[uint8], h, lo, hi int64) error {
	for ch := lo / h; ch*h < hi; ch++ {
		d, _ := dst.Slab(ch, ch+1)
		s, _ := chw.Slab(ch, ch+1)
		if r0, r1 := max(lo-ch*h, 0), min(hi-ch*h, h); r0 != 0 || r1 != h { // part of the plane: its rows
			d, _ = d.Permute(1, 0, 2)
			s, _ = s.Permute(1, 0, 2)
			d, _ = d.Slab(r0, r1)
			s, _ = s.Slab(r0, r1)
		}
		if err := vec.CastScaleShiftView(d, s, scale[ch], shift[ch]); err != nil {
			return err
		}
	}
	return nil
}

func rowNorms(mt bool) func(godlpack.Tensor[float32]) (*tensor.Tensor, error) {
	return func(x godlpack.Tensor[float32]) (*tensor.Tensor, error) {
		n, cols := int(x.Dim(0)), int(x.Dim(1))
		out, norms, err := newFloat32(int64(n))
		if err != nil {
			return nil, err
		}
		if s, err := godlpack.ReadSlice[float32](x); err == nil { // C-contiguous: rows of s
			if !mt {
				flatNorms(norms, s, cols, 0, n)
				return out, nil
			}
			return out, parallelRows(n, cols*4, func(lo, hi int) error { flatNorms(norms, s, cols, lo, hi); return nil })
		}
		v, err := vec.FromTensor[float32](x)
		if err != nil {
			return nil, err
		}
		if !mt {
			return out, viewNorms(norms, v, 0, n)
		}
		return out, parallelRows(n, cols*4, func(lo, hi int) error { return viewNorms(norms, v, lo, hi) })
	}
}

// flatNorms sets norms[lo:hi] to the L2 norms of those rows of s, a matrix of
// cols columns.
func flatNorms(norms, s []float32, cols, lo, hi int) {
	for r := lo; r < hi; r++ {
		norms[r] = float32(vec.Norm2(s[r*cols : (r+1)*cols]))
	}
}

// viewNorms is flatNorms over the rows [lo, hi) of a view of any strides.
func viewNorms(norms []float32, v vec.View[float32], lo, hi int) error {
	slab, err := v.Slab(int64(lo), int64(hi))
	if err != nil {
		return err
	}
	return vec.Lines(slab, func(i int, row []float32) error {
		norms[lo+i] = float32(vec.Norm2(row))
		return nil
	})
}

// noop is clip_ without the clip: what the call itself costs.
func noop(godlpack.MutTensor[float32], float64, float64) (godlpack.None, error) {
	return godlpack.None{}, nil
}

func clipInPlace(mt bool) func(godlpack.MutTensor[float32], float64, float64) (godlpack.None, error) {
	return func(x godlpack.MutTensor[float32], lo64, hi64 float64) (godlpack.None, error) {
		lo, hi := float32(lo64), float32(hi64)
		if !mt { // any strides; C-contiguous: one flat pass, [:, ::2]: masked vectors
			return godlpack.None{}, vec.ClipTensor(x, lo, hi)
		}
		if s, err := godlpack.Slice[float32](x); err == nil { // C-contiguous: one flat pass
			return godlpack.None{}, parallelRows(len(s), 4, func(i, j int) error { return vec.Clip(s[i:j], s[i:j], lo, hi) })
		}
		v, err := vec.FromTensor[float32](x)
		if err != nil {
			return godlpack.None{}, err
		}
		return godlpack.None{}, parallelRows(int(x.Dim(0)), int(x.Dim(1))*8, func(r0, r1 int) error {
			slab, err := v.Slab(int64(r0), int64(r1))
			if err != nil {
				return err
			}
			return vec.ClipView(slab, slab, lo, hi)
		})
	}
}

func scaleShift(mt bool) func(godlpack.Tensor[float32], float64, float64) (*tensor.Tensor, error) {
	return func(x godlpack.Tensor[float32], k64, c64 float64) (*tensor.Tensor, error) {
		k, c := float32(k64), float32(c64)
		rowsN, cols := x.Dim(0), x.Dim(1)
		out, data, err := newFloat32(rowsN, cols)
		if err != nil {
			return nil, err
		}
		if s, err := godlpack.ReadSlice[float32](x); err == nil { // C-contiguous: one flat pass
			if !mt {
				return out, vec.ScaleShift(data, s, k, c)
			}
			return out, parallelRows(len(s), 4, func(i, j int) error { return vec.ScaleShift(data[i:j], s[i:j], k, c) })
		}
		src, err := vec.FromTensor[float32](x)
		if err != nil {
			return nil, err
		}
		dst, err := vec.ViewOf(data, rowsN, cols)
		if err != nil {
			return nil, err
		}
		if !mt {
			return out, vec.ScaleShiftView(dst, src, k, c)
		}
		return out, parallelRows(int(rowsN), int(cols*8), func(lo, hi int) error {
			d, _ := dst.Slab(int64(lo), int64(hi))
			s, _ := src.Slab(int64(lo), int64(hi))
			return vec.ScaleShiftView(d, s, k, c)
		})
	}
}

// The memory-order rows' functions: one goroutine, any number of dimensions and
// any strides, each a View and one vec call, as a new user writes them.

func scaleInPlace(x godlpack.MutTensor[float32], k64 float64) (godlpack.None, error) {
	v, err := vec.FromTensor[float32](x)
	if err != nil {
		return godlpack.None{}, err
	}
	k := float32(k64)
	return godlpack.None{}, vec.Map(v, v, func(d, s []float32) error { return vec.Scale(d, s, k) })
}

func clipAny(x godlpack.MutTensor[float32], lo, hi float64) (godlpack.None, error) {
	return godlpack.None{}, vec.ClipTensor(x, float32(lo), float32(hi))
}

func scaleShiftLike(x godlpack.Tensor[float32], k, c float64) (*tensor.Tensor, error) {
	src, err := vec.FromTensor[float32](x)
	if err != nil {
		return nil, err
	}
	shape, strides := src.Shape(), vec.StridesLike(src)
	out, data, err := tensor.UninitializedStrided[float32](shape, strides)
	if err != nil {
		return nil, err
	}
	dst, err := vec.NewView(data, 0, shape, strides)
	if err != nil {
		return nil, err
	}
	return out, vec.ScaleShiftView(dst, src, float32(k), float32(c))
}

func sumAny(x godlpack.Tensor[float32]) (float64, error) {
	v, err := vec.FromTensor[float32](x)
	if err != nil {
		return 0, err
	}
	return vec.SumView(v)
}
