"""A Python extension written in Go with godlpack (examples/goext) against the same
function written with nanobind, a no-op C function and NumPy, in one run.

Per-call overhead of a function taking one float32 tensor and returning None, with
tensors from NumPy, PyTorch and godlpack:
  goext.touch(x)        the Go function (godlpack's argument conversion, one call into Go),
                        as by default: the GIL released only while another thread state
                        exists (touch_gil: HoldGIL, never; touch_released: ReleaseGIL,
                        always)
  nanobind touch(x)     ``m.def("touch", [](nb::ndarray<float, nb::device::cpu>) {})``
                        (the GIL held, nanobind's default; touch_released releases it
                        with ``nb::call_guard<nb::gil_scoped_release>()``)
  C noop(x)             a METH_O C function that converts nothing: the floor
in two regimes: one Python thread (goext's default keeps the GIL: nobody could take
it), and another Python thread alive but idle (goext's default releases it). Then the
ratios goext / nanobind (goal <= 1.0), each against the same function: with one thread
goext's default / nanobind's (both hold the GIL), with another thread alive goext's
default / nanobind releasing it (both release it; nanobind's default keeps it held,
which goext's default does not do, docs/decisions/gil-release-policy.md: the table's
goext/nanobind column shows that difference), and like for like in both regimes, goext
HoldGIL / nanobind (GIL held) and goext ReleaseGIL / nanobind releasing it.
Then, on a 64 MiB float32 array:
  goext.scale(x, k) / NumPy's x * k     and     goext.sum(x) / NumPy's x.sum()
(goal <= 1.0 on the 2-core machine), with the kernels goext was built with
(goext.kernels(): "avx2" for simd/archsimd's, "go" for the plain loops) and the load
average: goext's goroutines use both cores, NumPy one, so a busy second core costs
goext more.

Builds, into a cache (${XDG_CACHE_HOME:-~/.cache}/godlpack-bench, or --cache DIR):
nanobind (pinned NANOBIND, from PyPI with this interpreter's ``pip install --target``,
once) compiled with g++ as nanobind's CMake does for a release build that is not size
optimised (-O3 -DNDEBUG -fvisibility=hidden -fno-strict-aliasing -fno-stack-protector,
nb_combined.cpp in the module), the C module with gcc, and goext with godlpack.build's
build_extension (the pip backend's own go build) against this checkout. Needs g++, gcc,
Go, and the in-place godlpack build. Run from the repository root:

    python build.py ext && PYTHONPATH=pyext python bench/bench_goext.py [--quick]

with the test venv's python (NumPy and PyTorch).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import threading
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import godlpack as g
import numpy as np
import torch
from godlpack_build.extension import build_extension

REPO = Path(__file__).resolve().parent.parent
NANOBIND = "3.1.0"  # nanobind on PyPI, pinned
EXT = sysconfig.get_config_var("EXT_SUFFIX")

NB_SOURCE = """\
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
namespace nb = nanobind;

NB_MODULE(nbbench, m) {
    // The goext.touch of nanobind: one float32 CPU tensor of any shape and strides.
    m.def("touch", [](nb::ndarray<float, nb::device::cpu> x) { (void)x; });
    // The same, releasing the GIL around the call as goext does by default.
    m.def("touch_released", [](nb::ndarray<float, nb::device::cpu> x) { (void)x; },
          nb::call_guard<nb::gil_scoped_release>());
}
"""
C_SOURCE = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *noop(PyObject *self, PyObject *x) { Py_RETURN_NONE; }
static PyMethodDef methods[] = {{"noop", noop, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "cnoop", NULL, -1, methods};
PyMODINIT_FUNC PyInit_cnoop(void) { return PyModule_Create(&def); }
"""
NB_FLAGS = [
    "-O3",
    "-DNDEBUG",
    "-std=c++17",
    "-fPIC",
    "-shared",
    "-fvisibility=hidden",
    "-fno-strict-aliasing",
    "-fno-stack-protector",
]


def _include_flags() -> list[str]:
    paths = sysconfig.get_paths()
    return [f"-I{p}" for p in dict.fromkeys([paths["include"], paths["platinclude"]])]


def _run(cmd: list[str]) -> None:
    print("+", " ".join(map(str, cmd)), file=sys.stderr, flush=True)
    subprocess.run([str(c) for c in cmd], check=True)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _nanobind(cache: Path) -> Path:
    """nanobind's package (headers, sources) from PyPI, installed once into the cache."""
    root = cache / f"nanobind-{NANOBIND}"
    if not (root / "nanobind" / "src" / "nb_combined.cpp").is_file():
        shutil.rmtree(root, ignore_errors=True)
        _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", root,
              f"nanobind=={NANOBIND}"])  # fmt: skip
    return root / "nanobind"


def build_nanobind_module(
    cache: Path, name: str = "nbbench", source: str = NB_SOURCE
) -> ModuleType:
    """Compiles source (a nanobind module called name) with g++ NB_FLAGS, cached by content."""
    nb = _nanobind(cache)
    key = hashlib.sha256((source + " ".join(NB_FLAGS) + NANOBIND).encode()).hexdigest()[:12]
    out = cache / f"{name}-{key}" / f"{name}{EXT}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        src = out.parent / f"{name}.cpp"
        src.write_text(source)
        includes = [f"-I{nb / 'include'}", f"-I{nb / 'ext' / 'robin_map' / 'include'}"]
        tmp = out.with_suffix(".tmp")
        _run(["g++", *NB_FLAGS, *_include_flags(), *includes, src,
              nb / "src" / "nb_combined.cpp", "-o", tmp])  # fmt: skip
        tmp.rename(out)
    return _load(name, out)


def build_c_module(cache: Path) -> ModuleType:
    key = hashlib.sha256(C_SOURCE.encode()).hexdigest()[:12]
    out = cache / f"cnoop-{key}" / f"cnoop{EXT}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        src = out.parent / "cnoop.c"
        src.write_text(C_SOURCE)
        _run(["gcc", "-O2", "-fPIC", "-shared", *_include_flags(), src, "-o", out])
    return _load("cnoop", out)


def build_go_module(cache: Path, name: str, main_go: str) -> Path:
    """Builds main_go, a Go extension module's main package written in the benchmark, as
    the module name with the build backend (the source written only where it changed, so
    the build is reused); returns the built .so."""
    src = cache / f"{name}-src"
    src.mkdir(parents=True, exist_ok=True)
    files = {
        "go.mod": f"module example.com/{name}\n\ngo 1.26\n\n"
        "require github.com/godlpack/godlpack v0.0.0\n",
        "main.go": main_go,
        "pyproject.toml": f'[project]\nname = "{name}"\nversion = "0"\n\n'
        f'[tool.godlpack]\nmodule = "{name}"\n',
    }
    for fname, text in files.items():
        if not (src / fname).is_file() or (src / fname).read_text() != text:
            (src / fname).write_text(text)
    return build_extension(src, cache / name)


def build_goext(cache: Path) -> ModuleType:
    """examples/goext, built every run (Go's build cache makes a rebuild quick)."""
    out = build_extension(REPO / "examples" / "goext", cache / "goext")
    return _load("goext", out)


def ns_per_call(
    stmts: dict[str, str],
    env: dict[str, object],
    number: int,
    repeat: int,
    clock: Callable[[], float] = timeit.default_timer,
) -> dict[str, float]:
    """{name: best ns per call} of each statement, timed in turns (one timing of each per
    round) so that a change of the shared machine's load hits them all alike, each round
    in its own order (a fixed shuffle), so that no statement always runs right after the
    same one: what one leaves behind (PyTorch's threads spinning on after its calls, a
    result's memory last written from the other core by a _mt variant) would otherwise
    bill the same neighbour every round; clock time.thread_time counts the calling
    thread's CPU time instead of the wall's."""
    timers = [(name, timeit.Timer(stmt, clock, globals=env)) for name, stmt in stmts.items()]
    best = dict.fromkeys(stmts, float("inf"))
    for r in range(repeat):
        order = timers[:]
        random.Random(r).shuffle(order)
        for name, timer in order:
            best[name] = min(best[name], timer.timeit(number) / number * 1e9)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    ap.add_argument("--cache", type=Path, default=default_cache / "godlpack-bench")
    args = ap.parse_args()
    # many short rounds: on a shared machine the best of many finds its quiet moments
    number, repeat = (20_000, 3) if args.quick else (50_000, 20)
    nb = build_nanobind_module(args.cache)
    c = build_c_module(args.cache)
    goext = build_goext(args.cache)

    inputs = {
        "NumPy": np.zeros((4, 4), dtype=np.float32),
        "PyTorch": torch.zeros(4, 4),
        "godlpack": g.zeros((4, 4), dtype="float32"),
    }
    stmts = {
        "goext": "goext.touch(x)",
        "HoldGIL": "goext.touch_gil(x)",
        "ReleaseGIL": "goext.touch_released(x)",
        "nanobind": "nb.touch(x)",
        "nb released": "nb.touch_released(x)",
        "C": "c.noop(x)",
    }
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"per call, one float32 4x4 tensor, returning None, ns (best of {repeat}, in turns;"
          f" load average {load}):")  # fmt: skip
    header = "".join(f"{name:>12s}" for name in stmts) + "   goext/nanobind"
    ratios: dict[str, float] = {}
    times: dict[tuple[str, str], dict[str, float]] = {}
    for regime in ("one thread", "threads"):
        if regime == "one thread":
            assert threading.active_count() == 1, "the one-thread regime needs one thread"
            print(f"  one Python thread (goext's default holds the GIL):\n  {'':13s}{header}")
        else:
            print("  another Python thread alive, idle (goext's default releases the GIL):")
            stop = threading.Event()
            idle = threading.Thread(target=stop.wait)
            idle.start()
        releases = goext.gil_releases()
        for source, x in inputs.items():
            env = {"x": x, "goext": goext, "nb": nb, "c": c}
            t = times[regime, source] = ns_per_call(stmts, env, number, repeat)
            # The same function: with another thread alive goext's default releases
            # the GIL (docs/decisions/gil-release-policy.md), so its match is nanobind
            # releasing it.
            same = "nanobind" if regime == "one thread" else "nb released"
            ratios[f"{source} ({regime})"] = t["goext"] / t[same]
            cells = "".join(f"{t[name]:12.1f}" for name in stmts)
            print(f"  from {source:8s}{cells}   {t['goext'] / t['nanobind']:14.2f}x")
        # touch_released releases on every call; touch only with another thread alive.
        per_round = (2 if regime == "threads" else 1) * number * repeat * len(inputs)
        assert goext.gil_releases() - releases == per_round, "goext's GIL policy changed"
        if regime == "threads":
            stop.set()
            idle.join()
    print("like for like (goext / nanobind), one thread; another thread alive:")
    for source in inputs:
        one, many = times["one thread", source], times["threads", source]
        print(
            f"  from {source:8s}  GIL held: HoldGIL / nanobind "
            f"{one['HoldGIL'] / one['nanobind']:5.2f}x; {many['HoldGIL'] / many['nanobind']:5.2f}x"
            f"   GIL released: ReleaseGIL / nanobind released "
            f"{one['ReleaseGIL'] / one['nb released']:5.2f}x; "
            f"{many['ReleaseGIL'] / many['nb released']:5.2f}x"
        )

    n_big = 64 * 2**20 // 4  # 64 MiB of float32
    x = np.random.default_rng(0).random(n_big, dtype=np.float32)
    env = {"x": x, "goext": goext, "k": 1.5}
    # short rounds, many of them: the best finds the moments the second core was free
    big_number, big_repeat = (2, 3) if args.quick else (3, 15)
    big = {
        "scale": ("goext.scale(x, k)", "x * k"),
        "sum": ("goext.sum(x)", "x.sum()"),
    }
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"\n64 MiB float32 (best of {big_repeat}, in turns; goext kernels {goext.kernels()!r};"
          f" load average {load}):")  # fmt: skip
    for name, (ours, numpy_stmt) in big.items():
        t = ns_per_call({"goext": ours, "NumPy": numpy_stmt}, env, big_number, big_repeat)
        t_go, t_np = t["goext"] / 1e6, t["NumPy"] / 1e6
        ratios[name] = t_go / t_np
        print(f"  goext.{name:5s} {t_go:7.2f} ms   NumPy {numpy_stmt:8s} {t_np:7.2f} ms   "
              f"ratio {t_go / t_np:5.2f}x")  # fmt: skip

    print()
    for name, r in ratios.items():
        against = "NumPy"
        if name.endswith("(one thread)"):
            against = "nanobind, both holding the GIL"
        elif name.endswith("(threads)"):
            against = "nanobind, both releasing the GIL"
        print(f"ratio {name:24s} {r:6.3f}  (goext / {against}; <= 1.0 is the goal)")


if __name__ == "__main__":
    main()
