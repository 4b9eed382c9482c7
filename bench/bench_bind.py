"""A Go package bound with no glue (python -m godlpack bind, docs/binding.md) against the
same function registered by hand, in one run: gonum's stat.Mean.

  Mean(x16, None)           the generated binding's call over a 16-element float64
                            NumPy array (godlpack.Func2 of a wrapper: GoSlice of each
                            Tensor, then stat.Mean)
  hand Mean(x16, None)      the binding an author writes by hand (Func2 over
                            Tensor[float64], ReadSlice, Default("weights", nil)):
                            the generated one should cost nothing more (<= 1.1x)
  Mean(x1M, None)           over 1M float64 from NumPy: no copy (the Go slice is the
                            array's memory, checked: the bound slice's address is the
                            array's), against numpy.mean
  Mean(list1M, None)        the same values as a list: copied into a new array first

Builds the project python -m godlpack bind writes for gonum.org/v1/gonum/stat, with one
hand-written file added (HAND_GO) that extends the module (godlpack.Extend) with the
hand-registered twin and the address probe, through the build backend's build_extension.
Run from the repository root:

    python build.py ext && PYTHONPATH=pyext python bench/bench_bind.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_goext import _load, ns_per_call  # noqa: E402  (the shared loader and timer)
from godlpack_build.bind import write_project  # noqa: E402
from godlpack_build.extension import build_extension  # noqa: E402

HAND_GO = """\
package main

import (
	"unsafe"

	"github.com/godlpack/godlpack"
	"gonum.org/v1/gonum/stat"
)

func init() {
	godlpack.Extend("gostat",
		godlpack.Func2("HandMean", handMean, "x", "weights").Default("weights", nil),
		godlpack.Func1("SliceAddress", sliceAddress, "x").Slices("x"),
	)
}

// handMean is stat.Mean registered as an author would by hand.
func handMean(x, weights godlpack.Tensor[float64]) (float64, error) {
	xs, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return 0, err
	}
	var ws []float64
	if !weights.IsNone() {
		if ws, err = godlpack.ReadSlice[float64](weights); err != nil {
			return 0, err
		}
	}
	return stat.Mean(xs, ws), nil
}

// sliceAddress is the address of the slice a bound []float64 parameter gets.
func sliceAddress(x godlpack.Tensor[float64]) (int64, error) {
	s, err := godlpack.GoSlice[float64](x)
	if err != nil || len(s) == 0 {
		return 0, err
	}
	return int64(uintptr(unsafe.Pointer(&s[0]))), nil
}
"""


def build(tmp: Path):
    project = tmp / "gostat"
    write_project(["gonum.org/v1/gonum/stat"], "gostat", project, command="bench/bench_bind.py")
    (project / "hand.go").write_text(HAND_GO)
    out = tmp / "out"
    ext = build_extension(project, out)
    return _load("gostat", ext)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="godlpack-bench-bind-") as tmp:
        gostat = build(Path(tmp))
    x16 = np.arange(16, dtype=np.float64)
    x1m = np.random.default_rng(0).normal(size=1 << 20)
    list1m = x1m.tolist()
    assert gostat.Mean(x16, None) == gostat.HandMean(x16, None) == np.mean(x16)
    same = gostat.SliceAddress(x1m) == x1m.ctypes.data
    assert same, "the bound []float64 is not the array's memory"
    assert abs(gostat.Mean(x1m, None) - np.mean(x1m)) < 1e-12
    number, repeat = (20000, 5) if args.quick else (100000, 15)
    env = {"g": gostat, "np": np, "x16": x16, "x1m": x1m, "list1m": list1m}
    small = ns_per_call(
        {"bound": "g.Mean(x16, None)", "hand": "g.HandMean(x16, None)"}, env, number, repeat
    )
    big = ns_per_call(
        {"bound1m": "g.Mean(x1m, None)", "numpy1m": "np.mean(x1m)"},
        env,
        20,
        5 if args.quick else 10,
    )
    lst = ns_per_call({"list1m": "g.Mean(list1m, None)"}, env, 2, 3)
    print(f"{'Mean(x16, None), generated binding':44s} {small['bound']:10.0f} ns")
    print(f"{'Mean(x16, None), registered by hand':44s} {small['hand']:10.0f} ns")
    print(f"{'  ratio generated / hand':44s} {small['bound'] / small['hand']:10.3f} x")
    print(f"{'Mean(x1M, None), no copy (address checked)':44s} {big['bound1m'] / 1e3:10.1f} us")
    print(f"{'numpy.mean(x1M)':44s} {big['numpy1m'] / 1e3:10.1f} us")
    print(f"{'Mean(list of 1M floats, None), copied':44s} {lst['list1m'] / 1e3:10.1f} us")


if __name__ == "__main__":
    main()
