"""A Go type bound as a Python class (examples/streamstats's Histogram) and a function
returning its result in the caller's framework (streamstats.scale), against their
nanobind twins, in one run (docs/performance.md, "Classes").

  Histogram(10)              instance creation (Go: the constructor's call into Go, an
                             instance-table id, an instance, and its dealloc's push of
                             the id onto a queue in C; nanobind: new + its instance)
  h.add(x)                   a method over a small float64 tensor (16 elements)
  h.count                    a property read (Go: an AtomicProperty, loaded by C from
                             the pinned Go value with no call into Go; nanobind: a
                             getter under its mutex)
  scale(x, 2.0) NumPy 4x4    goext's ResultLike("x") (numpy.from_dlpack of a new
                             godlpack.Array) vs nanobind's nb::ndarray<nb::numpy>
  scale(x, 2.0) torch 4x4    the same with torch.from_dlpack vs nb::ndarray<nb::pytorch>
                             (nanobind needs one declaration per framework: two
                             functions; streamstats has one)
  nothing()                  the floor of any call: a function of no parameters
                             returning None (Go: one crossing)
  Empty()                    the floor of a creation: a class whose constructor takes
                             nothing and makes a value of no pointers (Go: one
                             crossing, an id, an instance, the id's push at dealloc)

The floor of a call from Python into Go is a cgo crossing, ~40-70 ns more than a C
call; creation pays one (the dealloc queues its id in C) plus Go's allocation of the
value, the tensor rows one plus the conversion; the property read pays none. The
last two rows print those floors in the same run: what no Go function and no Go class
can go under, whatever the binding does around the author's code.
Builds nanobind (pinned by bench_goext.NANOBIND, from PyPI) as bench_goext.py does,
and streamstats and the floor rows' module (FLOOR_GO) with the build backend's
build_extension. Run from the repository root:

    python build.py ext && PYTHONPATH=pyext python bench/bench_classes.py [--quick] [--cpu]

--cpu times the calling thread's CPU time instead of the wall's, so that colleagues'
load on a shared machine costs less of the measurement (the GIL is released around
h.add's Go call on this thread, so its CPU time is still all of it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_goext import (  # noqa: E402  (the shared nanobind build and timer)
    _load,
    build_go_module,
    build_nanobind_module,
    ns_per_call,
)
from godlpack_build.extension import build_extension  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

NB_SOURCE = """\
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>
namespace nb = nanobind;

// streamstats.Histogram's twin: the same fields, lock and counting rule.
struct Histogram {
    uint16_t bins;
    double lo, hi;
    std::mutex mu;
    std::vector<int64_t> counts;
    int64_t count = 0, outside = 0;
    Histogram(uint16_t b, double l, double h) : bins(b), lo(l), hi(h), counts(b) {
        if (b == 0) throw std::invalid_argument("bins must be at least 1");
        if (!(l < h)) throw std::invalid_argument("lo must be less than hi");
    }
    template <typename T> void add_t(const T *p, const int64_t *shape, const int64_t *strides,
                                     size_t ndim, std::vector<int64_t> &local, int64_t &out) {
        // any strides: an odometer over the dimensions
        std::vector<int64_t> idx(ndim, 0);
        size_t total = 1;
        for (size_t d = 0; d < ndim; d++) total *= shape[d];
        double width = hi - lo, n = bins;
        for (size_t k = 0; k < total; k++) {
            int64_t off = 0;
            for (size_t d = 0; d < ndim; d++) off += idx[d] * strides[d];
            double f = p[off];
            if (!(f >= lo && f < hi)) out++;
            else local[std::min<int64_t>(bins - 1, (int64_t)std::floor((f - lo) / width * n))]++;
            for (size_t d = ndim; d-- > 0;) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
        }
    }
    void add(nb::ndarray<nb::ro, nb::device::cpu> x) {
        std::vector<int64_t> local(bins);
        int64_t out = 0;
        if (x.dtype() == nb::dtype<float>())
            add_t((const float *)x.data(), x.shape_ptr(), x.stride_ptr(), x.ndim(), local, out);
        else if (x.dtype() == nb::dtype<double>())
            add_t((const double *)x.data(), x.shape_ptr(), x.stride_ptr(), x.ndim(), local, out);
        else throw nb::type_error("expected a float32 or float64 tensor");
        std::lock_guard<std::mutex> g(mu);
        for (size_t i = 0; i < local.size(); i++) counts[i] += local[i];
        count += (int64_t)x.size();
        outside += out;
    }
};

// The floor rows' class: a value of no pointers and a constructor of no parameters.
struct Empty {
    int64_t x = 0;
};

template <typename Framework>
static nb::ndarray<Framework, float, nb::ndim<2>> scale(
        nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> x, float k) {
    size_t n = x.size();
    float *out = new float[n];
    for (size_t i = 0; i < n; i++) out[i] = x.data()[i] * k;
    nb::capsule owner(out, [](void *p) noexcept { delete[] (float *)p; });
    return nb::ndarray<Framework, float, nb::ndim<2>>(out, {x.shape(0), x.shape(1)}, owner);
}

NB_MODULE(nbclasses, m) {
    nb::class_<Histogram>(m, "Histogram")
        .def(nb::init<uint16_t, double, double>(), nb::arg("bins"), nb::arg("lo") = 0.0,
             nb::arg("hi") = 1.0)
        .def("add", &Histogram::add, nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("count", [](Histogram &h) {
            std::lock_guard<std::mutex> g(h.mu);
            return h.count;
        });
    nb::class_<Empty>(m, "Empty").def(nb::init<>());
    m.def("nothing", []() {});
    m.def("scale_numpy", &scale<nb::numpy>);
    m.def("scale_torch", &scale<nb::pytorch>);
}
"""


def build_nanobind_twin(cache: Path):
    return build_nanobind_module(cache, "nbclasses", NB_SOURCE)


# The floor rows' Go side (the twins of NB_SOURCE's Empty and nothing), built from these
# files written into the cache.
FLOOR_GO = """\
package main

import "github.com/godlpack/godlpack"

// Empty is a value of no pointers.
type Empty struct{ x int64 }

func init() {
	empty := godlpack.Class[Empty]("Empty", "The floor of a creation.")
	empty.Init(godlpack.Func0("Empty", func() (*Empty, error) { return &Empty{}, nil }))
	nothing := godlpack.Func0("nothing", func() (godlpack.None, error) {
		return godlpack.None{}, nil
	})
	godlpack.Module("floorext", "bench_classes.py's floor rows.", empty, nothing)
}

func main() {}
"""


def build_floor_extension(cache: Path) -> Path:
    return build_go_module(cache, "floorext", FLOOR_GO)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter timings")
    ap.add_argument("--cpu", action="store_true", help="thread CPU time, not wall")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "godlpack-bench")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    twin = build_nanobind_twin(args.cache)
    ss = _load(
        "streamstats",
        build_extension(REPO / "examples" / "streamstats", args.cache / "streamstats"),
    )

    floor = _load("floorext", build_floor_extension(args.cache))

    small = np.linspace(0, 1, 16)
    a32 = np.ones((4, 4), np.float32)
    t32 = torch.ones(4, 4)
    env = {"ss": ss, "nb": twin, "fl": floor, "small": small, "a32": a32, "t32": t32,
           "hg": ss.Histogram(10), "hn": twin.Histogram(10)}  # fmt: skip
    rows = [
        ("Histogram(10)", "ss.Histogram(10)", "nb.Histogram(10)"),
        ("h.add(16 float64)", "hg.add(small)", "hn.add(small)"),
        ("h.count", "hg.count", "hn.count"),
        ("scale NumPy 4x4", "ss.scale(a32, 2.0)", "nb.scale_numpy(a32, 2.0)"),
        ("scale torch 4x4", "ss.scale(t32, 2.0)", "nb.scale_torch(t32, 2.0)"),
        ("nothing()", "fl.nothing()", "nb.nothing()"),
        ("Empty()", "fl.Empty()", "nb.Empty()"),
    ]
    assert type(ss.scale(a32, 2.0)) is np.ndarray and type(ss.scale(t32, 2.0)) is torch.Tensor
    stmts = {}
    for name, go, nbs in rows:
        stmts["go " + name], stmts["nb " + name] = go, nbs
    number, repeat = (2000, 5) if args.quick else (20000, 15)
    clock = time.thread_time if args.cpu else timeit.default_timer
    best = ns_per_call(stmts, env, number, repeat, clock)
    print(f"{'call':<20} {'goext ns':>10} {'nanobind ns':>12} {'ratio':>7}")
    for name, _, _ in rows:
        g, n = best["go " + name], best["nb " + name]
        print(f"{name:<20} {g:>10.0f} {n:>12.0f} {g / n:>7.2f}")


if __name__ == "__main__":
    main()
