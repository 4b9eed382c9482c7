"""Functions a new user writes over tensors, with package dlpack/vec (bench/vecbench, a Go
extension) against a nanobind twin compiled by g++ -O3 -march=native and against NumPy
and PyTorch expressions, on 4x4 and 4096x1024 inputs, contiguous and strided ([:, ::2]
of a twice-wider array):

  normalize    uint8 HxWxC image -> float32 CxHxW, (x/255 - mean[c]) / std[c]
  row_norms    float32 L2 norm of each row (go: vec.Norm2, float64 accumulation; the
               twin's, as a C++ user writes it: a float accumulator)
  clip_        in-place clip to [lo, hi]
  scale_shift  a new x*k + c

The Go functions run on one goroutine (go) and split over goroutines by vec.Parallel
(go_mt, the _mt names); the twin is what a C++ user writes: one loop nest over the
tensor's strides, single-threaded, the GIL held (nanobind's default). NumPy is single-
threaded; PyTorch uses its intra-op threads. Every result is checked against NumPy's
first. Ratios: go / C++ (goal <= 1.0), go_mt / NumPy (goal < 1.0 on the 2 cores).

    python build.py ext && PYTHONPATH=pyext python bench/bench_vec.py [--quick] [--cpu]

with the test venv's python. --cpu times the calling thread's CPU time instead of the
wall's: on a machine shared with other work the wall time of a call varies 2x and its
CPU time ~10-20%, so go/C++ (both run on the calling thread, Go's in the cgo callback)
is steadier. Work on other threads is not counted (go_mt's goroutines, PyTorch's
threads, Go's collector), so only the go/C++ ratio means something then; a process
CPU clock is no better, as PyTorch's threads spin on after its calls and bill the
next statement.
The nanobind package comes from PyPI as in bench_goext.py.

Then the memory-order rows (--order-only: those alone): 4096x2048 float32 (8M
elements) laid out C-contiguous, as the .T of a C-contiguous 2048x4096, as a permuted
3-d tensor (a C-contiguous 32x256x1024 transposed (2, 0, 1)) and with both axes
reversed ([::-1, ::-1], NumPy only: PyTorch has no negative strides), from NumPy and
from PyTorch (torch.from_numpy of the same memory), through scale_ (x *= 1, in place),
clip_, scale_shift (a new x*k + c in C memory, laid out in x's memory order as NumPy's and
PyTorch's results are) and sum (vec.SumView in memory order: float32 lanes, the units in
float64; NumPy's and PyTorch's float32 sums), one goroutine, PyTorch on one thread.
Ratios: go on the layout / go on the C-contiguous input (goal <= 1.5) and go / the
framework's own op on the same view (goal <= 1.0).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
import timeit
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_goext import (  # noqa: E402  (the nanobind build, shared)
    EXT,
    NANOBIND,
    NB_FLAGS,
    REPO,
    _include_flags,
    _load,
    _nanobind,
    _run,
    ns_per_call,
)
from godlpack_build.extension import build_extension  # noqa: E402

TWIN = """\
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
namespace nb = nanobind;

using Img = nb::ndarray<const uint8_t, nb::ndim<3>, nb::device::cpu>;
using In = nb::ndarray<const float, nb::ndim<2>, nb::device::cpu>;
using InOut = nb::ndarray<float, nb::ndim<2>, nb::device::cpu>;
static const float MEAN[3] = {0.485f, 0.456f, 0.406f}, STD[3] = {0.229f, 0.224f, 0.225f};

// A new float32 NumPy array owning data.
template <size_t N> static auto owned(float *data, const size_t (&shape)[N]) {
    nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<float *>(p); });
    return nb::ndarray<nb::numpy, float, nb::ndim<N>>(data, N, shape, owner);
}

NB_MODULE(nbvec, m) {
    m.def("normalize", [](Img img) {
        size_t H = img.shape(0), W = img.shape(1), C = img.shape(2);
        int64_t s0 = img.stride(0), s1 = img.stride(1), s2 = img.stride(2);
        const uint8_t *p = img.data();
        float *out = new float[C * H * W];
        for (size_t c = 0; c < C; c++) {
            float k = 1.0f / (255.0f * STD[c]), b = -MEAN[c] / STD[c];
            for (size_t h = 0; h < H; h++) {
                const uint8_t *row = p + h * s0 + c * s2;
                float *o = out + (c * H + h) * W;
                for (size_t w = 0; w < W; w++) o[w] = row[w * s1] * k + b;
            }
        }
        return owned(out, {C, H, W});
    });
    m.def("row_norms", [](In x) {
        size_t R = x.shape(0), N = x.shape(1);
        int64_t s0 = x.stride(0), s1 = x.stride(1);
        const float *p = x.data();
        float *out = new float[R];
        for (size_t r = 0; r < R; r++) {
            float s = 0;
            for (size_t j = 0; j < N; j++) { float v = p[r * s0 + j * s1]; s += v * v; }
            out[r] = std::sqrt(s);
        }
        return owned(out, {R});
    });
    m.def("clip_", [](InOut x, float lo, float hi) {
        size_t R = x.shape(0), N = x.shape(1);
        int64_t s0 = x.stride(0), s1 = x.stride(1);
        float *p = x.data();
        for (size_t r = 0; r < R; r++)
            for (size_t j = 0; j < N; j++) {
                float &v = p[r * s0 + j * s1];
                v = std::min(std::max(v, lo), hi);
            }
    });
    m.def("scale_shift", [](In x, float k, float c) {
        size_t R = x.shape(0), N = x.shape(1);
        int64_t s0 = x.stride(0), s1 = x.stride(1);
        const float *p = x.data();
        float *out = new float[R * N];
        for (size_t r = 0; r < R; r++)
            for (size_t j = 0; j < N; j++) out[r * N + j] = p[r * s0 + j * s1] * k + c;
        return owned(out, {R, N});
    });
}
"""
TWIN_FLAGS = [*NB_FLAGS, "-march=native"]

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
K_C = (1 / (255 * STD)).astype(np.float32)  # normalize as x*k + b, per channel
B_C = (-MEAN / STD).astype(np.float32)
LO, HI, K, C = 0.25, 0.75, 1.5, -0.25


def build_twin(cache: Path):
    nb = _nanobind(cache)
    key = hashlib.sha256((TWIN + " ".join(TWIN_FLAGS) + NANOBIND).encode()).hexdigest()[:12]
    out = cache / f"nbvec-{key}" / f"nbvec{EXT}"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        src = out.parent / "nbvec.cpp"
        src.write_text(TWIN)
        includes = [f"-I{nb / 'include'}", f"-I{nb / 'ext' / 'robin_map' / 'include'}"]
        tmp = out.with_suffix(".tmp")
        _run(["g++", *TWIN_FLAGS, *_include_flags(), *includes, src,
              nb / "src" / "nb_combined.cpp", "-o", tmp])  # fmt: skip
        tmp.rename(out)
    return _load("nbvec", out)


def inputs(rows: int, cols: int, strided: bool) -> tuple[np.ndarray, np.ndarray]:
    """(image rows x cols x 3 uint8, matrix rows x cols float32), [:, ::2] of twice as
    wide when strided."""
    rng = np.random.default_rng(25)
    wide = 2 if strided else 1
    img = rng.integers(0, 256, (rows, cols * wide, 3), dtype=np.uint8)[:, ::wide]
    x = rng.random((rows, cols * wide), dtype=np.float32)[:, ::wide]
    return img, x


def statements(fn: str) -> dict[str, str]:
    return {
        "normalize": {
            "go": "vb.normalize(img)",
            "go_mt": "vb.normalize_mt(img)",
            "C++": "nb.normalize(img)",
            "NumPy": "np.ascontiguousarray((img * K_C + B_C).transpose(2, 0, 1))",
            "PyTorch": "(timg.permute(2, 0, 1) * tK + tB).contiguous()",
        },
        "row_norms": {
            "go": "vb.row_norms(x)",
            "go_mt": "vb.row_norms_mt(x)",
            "C++": "nb.row_norms(x)",
            "NumPy": "np.linalg.norm(x, axis=1)",
            "PyTorch": "torch.linalg.vector_norm(tx, dim=1)",
        },
        "clip_": {
            "go": "vb.clip_(x, LO, HI)",
            "go_mt": "vb.clip_mt_(x, LO, HI)",
            "C++": "nb.clip_(x, LO, HI)",
            "NumPy": "np.clip(x, LO, HI, out=x)",
            "PyTorch": "tx.clamp_(LO, HI)",
        },
        "scale_shift": {
            "go": "vb.scale_shift(x, K, C)",
            "go_mt": "vb.scale_shift_mt(x, K, C)",
            "C++": "nb.scale_shift(x, K, C)",
            "NumPy": "x * np.float32(K) + np.float32(C)",
            "PyTorch": "tx * K + C",
        },
    }[fn]


def check(env: dict[str, object], fn: str) -> None:
    """Every implementation's result is NumPy's (clip_ on copies)."""
    stmts = statements(fn)
    if fn == "clip_":
        x = env["x"]
        want = np.clip(x, LO, HI)
        for name in ("go", "go_mt", "C++"):
            y = x.copy()[:, :] if name != "C++" else x.copy()
            eval(stmts[name].replace("(x,", "(y,"), {**env, "y": y})
            assert np.array_equal(y, want), name
        return
    want = np.asarray(eval(stmts["NumPy"], env))
    for name in ("go", "go_mt", "C++", "PyTorch"):
        got = np.asarray(np.from_dlpack(eval(stmts[name], env)))
        assert got.shape == want.shape and np.allclose(got, want, rtol=2e-6, atol=2e-6), (fn, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    ap.add_argument("--cpu", action="store_true", help="thread CPU time, not wall (go/C++ only)")
    ap.add_argument("--order-only", action="store_true", help="only the memory-order rows")
    default_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    ap.add_argument("--cache", type=Path, default=default_cache / "godlpack-bench")
    args = ap.parse_args()
    nb = build_twin(args.cache)
    vb = _load("vecbench", build_extension(REPO / "bench" / "vecbench", args.cache / "vecbench"))
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    what = "thread CPU" if args.cpu else "wall"
    print(f"vec kernels {vb.kernels()!r}; torch threads {torch.get_num_threads()}; "
          f"load average {load}; {what} times in us, best of rounds in turns")  # fmt: skip
    names = ["go", "go_mt", "C++", "NumPy", "PyTorch"]
    print(f"{'':28s}" + "".join(f"{n:>11s}" for n in names) + "   go/C++  go_mt/NumPy")
    ratios = []
    clock = time.thread_time if args.cpu else timeit.default_timer
    for rows, cols in () if args.order_only else ((4, 4), (4096, 1024)):
        big = rows * cols > 1 << 16
        number, repeat = (
            ((2, 3) if big else (2000, 3)) if args.quick else ((5, 30) if big else (20000, 7))
        )
        for strided in (False, True):
            img, x = inputs(rows, cols, strided)
            env = {
                "vb": vb, "nb": nb, "np": np, "torch": torch, "img": img, "x": x,
                "timg": torch.from_numpy(img), "tx": torch.from_numpy(x),
                "tK": torch.from_numpy(K_C).reshape(3, 1, 1),
                "tB": torch.from_numpy(B_C).reshape(3, 1, 1),
                "K_C": K_C, "B_C": B_C, "LO": LO, "HI": HI, "K": K, "C": C,
            }  # fmt: skip
            for fn in ("normalize", "row_norms", "clip_", "scale_shift"):
                check(env, fn)
                t = ns_per_call(statements(fn), env, number, repeat, clock)
                r_cpp, r_np = t["go"] / t["C++"], t["go_mt"] / t["NumPy"]
                ratios.append((f"{fn} {rows}x{cols}{' strided' if strided else ''}", r_cpp, r_np))
                label = f"{fn} {rows}x{cols} {'strided' if strided else 'contig.'}"
                cells = "".join(f"{t[n] / 1e3:11.2f}" for n in names)
                print(f"{label:28s}{cells}   {r_cpp:6.2f}x  {r_np:6.2f}x", flush=True)
    memory_order_rows(vb, args.quick, clock)


def order_layouts() -> dict[str, np.ndarray]:
    """The memory-order rows' inputs, 8M float32 each, every element distinct-ish."""
    rng = np.random.default_rng(41)
    return {
        "contiguous": rng.random((4096, 2048), dtype=np.float32),
        ".T": rng.random((2048, 4096), dtype=np.float32).T,
        "permuted 3-d": rng.random((32, 256, 1024), dtype=np.float32).transpose(2, 0, 1),
        "reversed": rng.random((4096, 2048), dtype=np.float32)[::-1, ::-1],
    }


ORDER_OPS = {  # name: (go, NumPy, PyTorch), x the NumPy array, tx the tensor
    "scale_": ("vb.scale_nd_(x, 1.0)", "np.multiply(x, np.float32(1), out=x)", "tx.mul_(1.0)"),
    "clip_": ("vb.clip_nd_(x, LO, HI)", "np.clip(x, LO, HI, out=x)", "tx.clamp_(LO, HI)"),
    "scale_shift": (
        "vb.scale_shift_nd(x, K, C)",
        "x * np.float32(K) + np.float32(C)",
        "tx * K + C",
    ),
    "sum": ("vb.sum_nd(x)", "x.sum()", "tx.sum()"),
}


def check_order(env: dict[str, object], op: str) -> None:
    """go's result on the layout is NumPy's (scale_ and clip_ on copies of the view's
    memory, laid out alike)."""
    go, ref, _ = ORDER_OPS[op]
    x = env["x"]
    if op in ("scale_", "clip_"):
        base = x.base if x.base is not None else x
        offset = x.ctypes.data - base.ctypes.data
        y, want = (np.ndarray(x.shape, x.dtype, base.copy(), offset, x.strides) for _ in range(2))
        eval(go, env | {"x": y})
        eval(ref, env | {"x": want})
        assert np.array_equal(y, want), op
        return
    got, want = eval(go, env), eval(ref, env)
    if op == "sum":
        assert abs(got - float(want)) <= 1e-5 * abs(float(want)), (got, want)
        return
    got = np.from_dlpack(got)  # fused: may differ from NumPy's two roundings in the last bit
    assert np.allclose(got, want, rtol=2e-6, atol=2e-6), op
    assert sorted(got.strides) == sorted(abs(s) for s in want.strides), (got.strides, want.strides)


def memory_order_rows(vb: object, quick: bool, clock) -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    number, repeat = (1, 3) if quick else (3, 12)
    print(f"\nmemory order: 4096x2048 float32, one goroutine, torch threads 1; ms; "
          f"load average {', '.join(f'{v:.2f}' for v in os.getloadavg())}")  # fmt: skip
    print(f"{'':30s}{'go':>9s}{'own op':>9s}   go/contig.  go/own op")
    contig: dict[str, float] = {}
    try:
        for name, base in order_layouts().items():
            for source in ("NumPy", "PyTorch"):
                if source == "PyTorch" and base.strides[0] < 0:
                    continue  # no negative strides in PyTorch
                for op, (go, np_stmt, torch_stmt) in ORDER_OPS.items():
                    x = base
                    tx = torch.from_numpy(x) if source == "PyTorch" else None
                    env = {"vb": vb, "np": np, "x": x, "tx": tx,
                           "LO": LO, "HI": HI, "K": K, "C": C}  # fmt: skip
                    if source == "NumPy":
                        check_order(env, op)
                    stmts = {"go": go.replace("(x", "(tx") if source == "PyTorch" else go,
                             "own": np_stmt if source == "NumPy" else torch_stmt}  # fmt: skip
                    t = ns_per_call(stmts, env, number, repeat, clock)
                    if name == "contiguous":
                        contig[source + op] = t["go"]
                    r_c, r_own = t["go"] / contig[source + op], t["go"] / t["own"]
                    label = f"{op} {name} ({source})"
                    print(f"{label:30s}{t['go'] / 1e6:9.2f}{t['own'] / 1e6:9.2f}   "
                          f"{r_c:8.2f}x  {r_own:8.2f}x", flush=True)  # fmt: skip
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":
    main()
