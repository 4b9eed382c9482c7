// Command streamstats is a Python extension module written in Go with godlpack:
// a Go type bound as a Python class (Histogram: constructor, methods, a static
// and a class method, read-only and read-write properties, __repr__, a lazy
// __iter__ over an iter.Seq, the buffer protocol, pickling, ==, + and h[i], an
// exception class of its own), a module constant (MAX_BINS), an IntEnum (Scale)
// and functions showing the rest of the binding surface: an enum parameter with
// a default (edges), results in the caller's framework (scale), a Python
// callback (apply_rows), keyword-only and optional parameters with a dict result
// (moments), overloads (clip). pip builds it
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
	h.Init(godlpack.Func3("Histogram", newHistogram, "bins", "lo", "hi")).Default("lo", 0.0).Default("hi", 1.0)
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
	h.ClassMethod("from_counts", fromCounts, "counts", "lo", "hi").Slices("counts").
		Where("counts", constraint.NDim(1)).Default("lo", 0.0).Default("hi", 1.0).
		Doc("A Histogram (of the class it is called on) with these counts: a list of ints or a " +
			"1-D int64 tensor, one per bin; count is their sum, outside 0.")
	h.StaticMethod("bin_of", binOfChecked, "v", "bins", "lo", "hi").
		Doc("The bin add counts v in, for bins bins over [lo, hi): -1 outside [lo, hi) (NaN too).")
	h.Def("set_tags", (*Histogram).SetTags, "**tags").
		Doc("Adds its keyword arguments, str values, to tags: h.set_tags(site=\"a\", run=\"7\").")
	h.Property("tags", "The tags set_tags added: a new dict[str, str] (read-only).", (*Histogram).Tags, nil)
	h.Def("__repr__", (*Histogram).Repr)
	h.Def("__iter__", (*Histogram).All).
		Doc("The bins, lazily: (left_edge, right_edge, count) for each, in order.")
	h.Buffer((*Histogram).CountsMemory) // memoryview(h), numpy.asarray(h): the counts, no copy
	h.Pickle((*Histogram).State, restoreHistogram, "bins", "lo", "hi", "name", "count", "outside", "counts")
	h.Def("__eq__", (*Histogram).Equal, "other") // the same bins, lo, hi and counts; unhashable
	h.Def("__add__", (*Histogram).Plus, "other").Doc("A new Histogram with the summed counts.")
	h.Def("__getitem__", (*Histogram).Bin, "i").Doc("Bin i's count (i < 0: from the end).")
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
		godlpack.Const("MAX_BINS", MaxBins),
		godlpack.IntEnumFor[Scale]("Scale", "How edges spaces the bin edges.").
			Value("LINEAR", int64(Linear)).Value("LOG", int64(Log)),
		godlpack.Func("edges", edges, "bins", "lo", "hi", "scale").Default("scale", Linear).
			Doc("The bins + 1 bin edges over [lo, hi]: evenly spaced (LINEAR) or geometric (LOG, lo > 0)."),
		godlpack.Func2("scale", scale, "x", "k").ResultLike("x").
			Doc("x * k, of x's dtype and shape (float32 or float64), in x's framework."),
		godlpack.Func("apply_rows", applyRows, "x", "fn").Where("x", constraint.NDim(2)).ResultLike("x").
			Doc("fn(i, row) for each row of a 2-D float64 x, in x's framework (each row a 1-D array of it): fn's exceptions propagate."),
		godlpack.Func("moments", moments, "x", "ddof", "*", "center", "scale", "shift", "clip").
			Default("ddof", 0).Default("center", true).Default("scale", 1.0).Default("shift", 0.0).
			Default("clip", nil).
			Doc("{n, mean, var, min, max} of y = x * scale + shift (clipped to [-clip, clip])."),
		godlpack.Overload("total",
			godlpack.Func1("total", totalFloat32, "x").Doc("The sum of a float32 tensor's elements, a float."),
			godlpack.Func1("total", totalFloat64, "x").Doc("The sum of a float64 tensor's elements, a float."),
			godlpack.Func1("total", totalInt64, "x").Doc("The sum of an int64 tensor's elements, an int."),
		).Doc("The sum of x's elements: float32 and float64 tensors give a float, int64 ones an int."),
		godlpack.Func("merged", merged, "*hists").
			Doc("A new Histogram with the counts of all its arguments (one or more Histograms of the same bins, lo and hi)."),
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
