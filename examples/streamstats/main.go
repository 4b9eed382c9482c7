// Command streamstats is a Python extension module written in Go with godlpack:
// a Go type bound as a Python class (Histogram: constructor, methods, read-only
// and read-write properties, __repr__, an exception class of its own), and
// functions showing the rest of the binding surface: results in the caller's
// framework (scale), a Python callback (apply_rows), keyword-only and optional
// parameters with a dict result (moments), overloads (clip). pip builds it
// (pyproject.toml); docs/classes.md, "An example", shows it whole.
package main

import (
	"sync/atomic"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack"
)

func init() {
	h := godlpack.Class[Histogram]("Histogram",
		"A streaming histogram of float values: bins equal bins over [lo, hi).")
	h.InitFunc(godlpack.Func3("Histogram", newHistogram, "bins", "lo", "hi")).Default("lo", 0.0).Default("hi", 1.0)
	h.Def("add", (*Histogram).Add, "x").
		Where("x", constraint.DTypes(dlpack.DTypeOf[float32](), dlpack.DTypeOf[float64]())).
		Doc("Counts every element of x (float32 or float64, any shape and strides); " +
			"values outside [lo, hi) and NaN are counted in outside.")
	h.Def("counts", (*Histogram).Counts).ResultIn(godlpack.NumPy).
		Doc("The counts of the bins: a numpy.ndarray of int64, shape (bins,).")
	h.Def("merge", (*Histogram).Merge, "other").
		Doc("Adds another Histogram's counts (same bins, lo and hi, else ValueError).")
	h.Def("quantile", (*Histogram).Quantile, "q").
		Doc("The bin-midpoint estimate of the q-quantile; EmptyError if nothing was added.")
	h.Def("__repr__", (*Histogram).Repr)
	h.AtomicProperty("count", "How many values were added, outside ones included (read-only).",
		func(h *Histogram) *atomic.Int64 { return &h.count })
	h.Property("outside", "How many values fell outside [lo, hi) or were NaN.", (*Histogram).Outside, nil)
	h.Property("bins", "The number of bins.", (*Histogram).Bins, nil)
	h.Property("lo", "The low edge of the first bin.", (*Histogram).Lo, nil)
	h.Property("hi", "The high edge of the last bin.", (*Histogram).Hi, nil)
	h.Property("name", "A free label (str, read-write).", (*Histogram).Name, (*Histogram).SetName)

	godlpack.Module("streamstats", "A streaming histogram and statistics over DLPack tensors, in Go.",
		h,
		godlpack.ExceptionFor[*EmptyError]("EmptyError", godlpack.ValueError,
			"Raised by Histogram.quantile on a histogram with no values."),
		godlpack.Func2("scale", scale, "x", "k").ResultLike("x").
			Doc("x * k, of x's dtype and shape (float32 or float64), in x's framework."),
		godlpack.Func("apply_rows", applyRows, "x", "fn").Where("x", constraint.NDim(2)).
			Doc("[fn(i, row) for each row of a 2-D float64 x]: fn's exceptions propagate."),
		godlpack.Func("moments", moments, "x", "ddof", "*", "center", "scale", "shift", "clip").
			Default("ddof", 0).Default("center", true).Default("scale", 1.0).Default("shift", 0.0).
			Default("clip", nil).
			Doc("{n, mean, var, min, max} of y = x * scale + shift (clipped to [-clip, clip])."),
		godlpack.Overload("clip",
			godlpack.Func("clip", clipTensor, "x", "lo", "hi").
				Doc("Clips a float tensor to [lo, hi] in place."),
			godlpack.Func("clip", clipList, "x", "lo", "hi").
				Doc("A new list of x's values clipped to [lo, hi]."),
		),
	)
}

// A c-shared library needs a main function; it never runs.
func main() {}
