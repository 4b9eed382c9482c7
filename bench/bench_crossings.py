"""Every crossing between Python and Go at its floor: godlpack against a nanobind twin
and a pyo3 twin (built with maturin) of the same calls, in one process, with the
crossing floor F measured in the same run (docs/performance.md, "Crossings").

  nothing()                 a function of no parameters returning None: F is godlpack's
                            time minus the best twin's (one C -> Go call that C++ and
                            Rust do not pay)
  callback int -> float     call_n(f, 1000): Go calls the Python f(i) (an int argument,
                            a float result) 1000 times; per callback (goal pyo3 + 1F)
  callback, GIL held        the same, call_n declared HoldGIL: the GIL is not given back
                            and taken again around each callback (the twins never do)
  apply_rows 1000 rows      streamstats.apply_rows(x, fn), x 1000x4 float64, each row a
                            new 1-D array (godlpack.Array; NumPy for nanobind's twin)
                            (goal <= 1.0x nanobind)
  h.counts() -> ndarray     a fresh numpy.ndarray result (ResultIn(NumPy))
  Histogram(10)             a creation (godlpack: one crossing; the dealloc queues its
                            id in C, with no call into Go)
  Opts(3, scale=2.0)        a constructor with keyword-only parameters and defaults
  h.bins                    an ordinary Property getter returning an int
  h.lo                      the same, a float
  repr(h)                   __repr__ (goal X + 1F + the formatting in Go: streamstats's
                            format string, timed in Go in the same run, repr_format_n)
  clip 4x4 [:, ::2]         clipping a strided NumPy view in place
  touch 4x4                 a function over a 4x4 float64 NumPy array returning None

X, in each goal "<= X + kF", is the best of nanobind and pyo3 for that row in the same
run (pyo3's twin has no NumPy rows: the numpy crate is not built here, so X is nanobind's
there). Timing as bench_goext.py: each statement's best of rounds, interleaved, the
calling thread's CPU time (time.thread_time).

Builds, into the cache (${XDG_CACHE_HOME:-~/.cache}/godlpack-bench, or --cache DIR):
nanobind's twin as bench_goext.py does (pinned NANOBIND from PyPI), the pyo3 twin with
maturin (pinned MATURIN from PyPI, pinned PYO3 from crates.io through cargo), and
examples/streamstats and this benchmark's Go module (CROSS_GO) with the build backend's
build_extension. Needs g++, cargo, Go and the in-place godlpack build. Run from the
repository root:

    python build.py ext && PYTHONPATH=pyext python bench/bench_crossings.py [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_goext import (  # noqa: E402  (the shared nanobind build and timer)
    _load,
    _run,
    build_go_module,
    build_nanobind_module,
    ns_per_call,
)
from godlpack_build.extension import build_extension  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MATURIN = "1.16.0"  # maturin on PyPI, pinned
PYO3 = "0.30.1"  # pyo3 on crates.io, pinned
EXT = sysconfig.get_config_var("EXT_SUFFIX")
CALLS = 1000  # callbacks per call_n, rows per apply_rows

NB_SOURCE = """\
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
namespace nb = nanobind;

struct Histogram {
    uint16_t bins;
    double lo, hi;
    std::vector<int64_t> counts;
    int64_t count = 0;
    Histogram(uint16_t b, double l, double h) : bins(b), lo(l), hi(h), counts(b) {
        if (b == 0) throw std::invalid_argument("bins must be at least 1");
        if (!(l < h)) throw std::invalid_argument("lo must be less than hi");
    }
};

struct Opts {
    int64_t n;
    double scale;
    std::string name;
};

static std::string pyfloat(double f) {
    return nb::cast<std::string>(nb::repr(nb::float_(f)));
}

NB_MODULE(nbcross, m) {
    m.def("nothing", []() {});
    m.def("call_n", [](nb::callable f, int64_t n) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += nb::cast<double>(f(i));
        return s;
    });
    using Rows = nb::ndarray<const double, nb::ndim<2>, nb::device::cpu>;
    m.def("apply_rows", [](Rows x, nb::callable fn) {
        std::vector<double> out;
        size_t rows = x.shape(0), cols = x.shape(1);
        out.reserve(rows);
        for (size_t i = 0; i < rows; i++) {
            double *row = new double[cols];
            for (size_t j = 0; j < cols; j++) row[j] = x(i, j);
            nb::capsule owner(row, [](void *p) noexcept { delete[] (double *)p; });
            nb::ndarray<nb::numpy, double, nb::ndim<1>> a(row, {cols}, owner);
            out.push_back(nb::cast<double>(fn((int64_t)i, a)));
        }
        nb::list l;
        for (double v : out) l.append(v);
        return l;
    });
    nb::class_<Histogram>(m, "Histogram")
        .def(nb::init<uint16_t, double, double>(), nb::arg("bins"), nb::arg("lo") = 0.0,
             nb::arg("hi") = 1.0)
        .def("counts", [](Histogram &h) {
            int64_t *out = new int64_t[h.bins];
            for (size_t i = 0; i < h.bins; i++) out[i] = h.counts[i];
            nb::capsule owner(out, [](void *p) noexcept { delete[] (int64_t *)p; });
            return nb::ndarray<nb::numpy, int64_t, nb::ndim<1>>(out, {h.bins}, owner);
        })
        .def_prop_ro("bins", [](Histogram &h) { return (int64_t)h.bins; })
        .def_prop_ro("lo", [](Histogram &h) { return h.lo; })
        .def("__repr__", [](Histogram &h) {
            return "Histogram(bins=" + std::to_string(h.bins) + ", lo=" + pyfloat(h.lo) +
                   ", hi=" + pyfloat(h.hi) + ", count=" + std::to_string(h.count) + ")";
        });
    nb::class_<Opts>(m, "Opts")
        .def(nb::init<int64_t, double, std::string>(), nb::arg("n"), nb::kw_only(),
             nb::arg("scale") = 1.0, nb::arg("name") = "x");
    m.def("clip_", [](nb::ndarray<double, nb::ndim<2>, nb::device::cpu> x, double lo, double hi) {
        auto v = x.view();
        for (size_t i = 0; i < v.shape(0); i++)
            for (size_t j = 0; j < v.shape(1); j++) v(i, j) = std::fmin(std::fmax(v(i, j), lo), hi);
    });
    m.def("touch", [](nb::ndarray<double, nb::device::cpu> x) { (void)x; });
}
"""

PYO3_SOURCE = """\
use pyo3::prelude::*;

#[pyfunction]
fn nothing() {}

#[pyfunction]
fn call_n(f: &Bound<'_, PyAny>, n: i64) -> PyResult<f64> {
    let mut s = 0.0;
    for i in 0..n {
        s += f.call1((i,))?.extract::<f64>()?;
    }
    Ok(s)
}

#[pyclass]
struct Histogram {
    bins: u16,
    lo: f64,
    hi: f64,
    counts: Vec<i64>,
    count: i64,
}

fn pyfloat(f: f64) -> String {
    if f.is_finite() && f.trunc() == f && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

#[pymethods]
impl Histogram {
    #[new]
    #[pyo3(signature = (bins, lo=0.0, hi=1.0))]
    fn new(bins: u16, lo: f64, hi: f64) -> PyResult<Self> {
        if bins == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err("bins must be at least 1"));
        }
        if !(lo < hi) {
            return Err(pyo3::exceptions::PyValueError::new_err("lo must be less than hi"));
        }
        Ok(Histogram { bins, lo, hi, counts: vec![0; bins as usize], count: 0 })
    }
    #[getter]
    fn bins(&self) -> i64 { self.bins as i64 }
    #[getter]
    fn lo(&self) -> f64 { self.lo }
    fn __repr__(&self) -> String {
        let _ = &self.counts;
        format!("Histogram(bins={}, lo={}, hi={}, count={})", self.bins, pyfloat(self.lo),
                pyfloat(self.hi), self.count)
    }
}

#[pyclass]
struct Opts {
    #[allow(dead_code)]
    n: i64,
    #[allow(dead_code)]
    scale: f64,
    #[allow(dead_code)]
    name: String,
}

#[pymethods]
impl Opts {
    #[new]
    #[pyo3(signature = (n, *, scale=1.0, name=String::from("x")))]
    fn new(n: i64, scale: f64, name: String) -> Self { Opts { n, scale, name } }
}

#[pymodule]
fn pyo3cross(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nothing, m)?)?;
    m.add_function(wrap_pyfunction!(call_n, m)?)?;
    m.add_class::<Histogram>()?;
    m.add_class::<Opts>()?;
    Ok(())
}
"""

PYO3_CARGO = f"""\
[package]
name = "pyo3cross"
version = "0.1.0"
edition = "2021"

[lib]
name = "pyo3cross"
crate-type = ["cdylib"]

[dependencies]
pyo3 = {{ version = "={PYO3}", features = ["extension-module"] }}

[profile.release]
opt-level = 3
"""

PYO3_PYPROJECT = """\
[build-system]
requires = ["maturin"]
build-backend = "maturin"

[project]
name = "pyo3cross"
version = "0.1.0"
"""

# This benchmark's Go module: the twins of NB_SOURCE's nothing, call_n, Opts and touch.
CROSS_GO = """\
package main

import (
	"fmt"
	"math"

	"github.com/godlpack/godlpack"
)

// Opts has a constructor with keyword-only parameters and defaults.
type Opts struct {
	n     int64
	scale float64
	name  string
}

func newOpts(n int64, scale float64, name string) (*Opts, error) {
	return &Opts{n: n, scale: scale, name: name}, nil
}

// callN calls fn(i) for i in [0, n) and sums its results: n Go -> Python callbacks.
func callN(fn func(int64) (float64, error), n int64) (float64, error) {
	s := 0.0
	for i := range n {
		r, err := fn(i)
		if err != nil {
			return 0, err
		}
		s += r
	}
	return s, nil
}

func touch(godlpack.Tensor[float64]) (godlpack.None, error) { return godlpack.None{}, nil }

// reprFormatN formats examples/streamstats's Histogram repr (a fresh Histogram(10))
// n times, as Histogram.Repr does: the formatting in Go that repr(h)'s goal adds.
func reprFormatN(n int64) (int64, error) {
	total := 0
	for range n {
		s := fmt.Sprintf("Histogram(bins=%d, lo=%s, hi=%s, count=%d)",
			10, pyFloat(0), pyFloat(1), int64(0))
		total += len(s)
	}
	return int64(total), nil
}

// pyFloat is streamstats's: f as Python's repr of a float.
func pyFloat(f float64) string {
	s := fmt.Sprint(f)
	if !math.IsInf(f, 0) && !math.IsNaN(f) && math.Trunc(f) == f && math.Abs(f) < 1e16 {
		s += ".0"
	}
	return s
}

func init() {
	opts := godlpack.Class[Opts]("Opts", "A constructor with keyword-only parameters.")
	opts.Init(newOpts, "n", "*", "scale", "name").Default("scale", 1.0).Default("name", "x")
	godlpack.Module("crossext", "bench_crossings.py's Go side.", opts,
		godlpack.Func0("nothing", func() (godlpack.None, error) { return godlpack.None{}, nil }),
		godlpack.Func("call_n", callN, "fn", "n"),
		godlpack.Func("call_n_held", callN, "fn", "n").HoldGIL(),
		godlpack.Func1("touch", touch, "x"),
		godlpack.Func1("repr_format_n", reprFormatN, "n"),
	)
}

func main() {}
"""


def build_cross_extension(cache: Path) -> Path:
    return build_go_module(cache, "crossext", CROSS_GO)


def _maturin(cache: Path) -> Path:
    """maturin's binary from PyPI, installed once into the cache."""
    root = cache / f"maturin-{MATURIN}"
    exe = root / "bin" / "maturin"
    if not exe.is_file():
        shutil.rmtree(root, ignore_errors=True)
        _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", root,
              f"maturin=={MATURIN}"])  # fmt: skip
    return exe


def build_pyo3_module(cache: Path):
    """PYO3_SOURCE built by maturin (release) for this interpreter, cached by content."""
    key = hashlib.sha256((PYO3_SOURCE + PYO3_CARGO + MATURIN + sys.version).encode()).hexdigest()[
        :12
    ]
    out = cache / f"pyo3cross-{key}" / f"pyo3cross{EXT}"
    if not out.is_file():
        src = cache / "pyo3cross-src"
        (src / "src").mkdir(parents=True, exist_ok=True)
        (src / "Cargo.toml").write_text(PYO3_CARGO)
        (src / "pyproject.toml").write_text(PYO3_PYPROJECT)
        (src / "src" / "lib.rs").write_text(PYO3_SOURCE)
        wheels = src / "wheels"
        shutil.rmtree(wheels, ignore_errors=True)
        env = dict(os.environ, CARGO_TARGET_DIR=str(cache / "pyo3cross-target"))
        cmd = [_maturin(cache), "build", "--release", "-i", sys.executable, "-o", wheels,
               "-m", src / "Cargo.toml"]  # fmt: skip
        print("+", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
        subprocess.run([str(c) for c in cmd], check=True, env=env)
        (wheel,) = wheels.glob("*.whl")
        with zipfile.ZipFile(wheel) as z:
            (member,) = [n for n in z.namelist() if n.endswith(".so")]
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp")
            tmp.write_bytes(z.read(member))
            tmp.rename(out)
    return _load("pyo3cross", out)


# (row, godlpack, nanobind, pyo3 or None, k: the crossings the goal allows, per-call divisor)
ROWS = [
    ("nothing()", "go.nothing()", "nb.nothing()", "py.nothing()", 0, 1),
    ("callback int -> float", f"go.call_n(f, {CALLS})", f"nb.call_n(f, {CALLS})",
     f"py.call_n(f, {CALLS})", 1, CALLS),
    ("callback, GIL held", f"go.call_n_held(f, {CALLS})", f"nb.call_n(f, {CALLS})",
     f"py.call_n(f, {CALLS})", 1, CALLS),
    ("apply_rows 1000 rows", "ss.apply_rows(rows, g)", "nb.apply_rows(rows, g)", None, None, 1),
    ("h.counts() -> ndarray", "hg.counts()", "hn.counts()", None, 1, 1),
    ("Histogram(10)", "ss.Histogram(10)", "nb.Histogram(10)", "py.Histogram(10)", 2, 1),
    ("Opts(3, scale=2.0)", "go.Opts(3, scale=2.0)", "nb.Opts(3, scale=2.0)",
     "py.Opts(3, scale=2.0)", 2, 1),
    ("h.bins", "hg.bins", "hn.bins", "hp.bins", 1, 1),
    ("h.lo", "hg.lo", "hn.lo", "hp.lo", 1, 1),
    ("repr(h)", "repr(hg)", "repr(hn)", "repr(hp)", 1, 1),
    ("clip 4x4 [:, ::2]", "ss.clip(view, 0.0, 1.0)", "nb.clip_(view, 0.0, 1.0)", None, 1, 1),
    ("touch 4x4", "go.touch(a44)", "nb.touch(a44)", None, 1, 1),
]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter timings")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    ap.add_argument("--cache", type=Path, default=default_cache / "godlpack-bench")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    nb = build_nanobind_module(args.cache, "nbcross", NB_SOURCE)
    py = build_pyo3_module(args.cache)
    ss = _load(
        "streamstats",
        build_extension(REPO / "examples" / "streamstats", args.cache / "streamstats"),
    )
    go = _load("crossext", build_cross_extension(args.cache))

    a = np.linspace(-1, 2, 32).reshape(4, 8)
    env = {
        "go": go, "nb": nb, "py": py, "ss": ss,
        "f": lambda i: i * 0.5, "g": lambda i, row: i * 0.5,
        "rows": np.ones((CALLS, 4)), "view": a[:, ::2], "a44": np.ones((4, 4)),
        "hg": ss.Histogram(10), "hn": nb.Histogram(10), "hp": py.Histogram(10),
    }  # fmt: skip
    for name, *stmts, _, _ in ROWS:  # every twin computes the same thing
        results = [repr(eval(s, env)) for s in stmts if s is not None]
        if name.startswith(("callback", "repr", "h.bins", "h.lo")):
            assert len(set(results)) == 1, (name, results)
    # the loops (call_n, apply_rows: CALLS crossings a statement) in fewer statements
    # a timing, so that every timing takes about as long
    number, repeat = (300, 3) if args.quick else (3000, 15)
    best: dict[str, float] = {}
    for loops in (False, True):
        stmts = {}
        for name, gs, ns, ps, _, _ in ROWS:
            if name.startswith(("callback", "apply_rows")) == loops:
                stmts["go " + name], stmts["nb " + name] = gs, ns
                if ps is not None:
                    stmts["py " + name] = ps
        if loops:  # repr(h)'s formatting in Go, CALLS times a statement
            stmts["go repr formatting"] = f"go.repr_format_n({CALLS})"
        n = max(1, number // CALLS) if loops else number
        best.update(ns_per_call(stmts, env, n, repeat, time.thread_time))
    floor = best["go nothing()"] - min(best["nb nothing()"], best["py nothing()"])
    formatting = best["go repr formatting"] / CALLS
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"ns per call (best of {repeat}, in turns, thread CPU time; load average {load});"
          f" F = {floor:.0f} ns")  # fmt: skip
    print(f"{'call':<24}{'godlpack':>10}{'nanobind':>10}{'pyo3':>8}{'ratio':>8}"
          f"{'goal':>8}   goal form")  # fmt: skip
    for name, _, _, ps, k, per in ROWS:
        g, n = best["go " + name] / per, best["nb " + name] / per
        p = best["py " + name] / per if ps is not None else float("nan")
        x = n if ps is None else min(n, p)
        if name.startswith("callback"):
            x = p  # the goal of a callback: pyo3's time + 1F
        if k == 0:
            print(f"{name:<24}{g:>10.0f}{n:>10.0f}{p:>8.0f}{g / x:>7.2f}x{'':>8}   the floor: "
                  f"F = {floor:.0f} ns")  # fmt: skip
            continue
        if k is None:
            goal, form, x = 1.0, "<= 1.0x nanobind", n
        else:
            extra = formatting if name.startswith("repr") else 0.0
            goal = (x + k * floor + extra) / x
            form = f"<= {'pyo3' if name.startswith('callback') else 'X'} + {k}F" + (
                f" + formatting ({formatting:.0f} ns)" if extra else ""
            )
        ratio = g / x
        mark = "" if ratio <= goal else "  (above)"
        print(f"{name:<24}{g:>10.0f}{n:>10.0f}{p:>8.0f}{ratio:>7.2f}x{goal:>7.2f}x   "
              f"{form}{mark}")  # fmt: skip


if __name__ == "__main__":
    main()
