"""Benchmark godlpack's DLPack C exchange API against PyTorch's own table.

    python bench/bench_exchange.py [--iters N] [--repeat R] [--json PATH] [--no-inline]

Part 1, C loops (bench/exchange_bench.c, built here with gcc -O2): ns per call of
each function of the table, called directly through the function pointers that
type(x).__dlpack_c_exchange_api__ holds, for a godlpack.Array and a torch.Tensor of
the same dtype and shape, in the same run:

    dltensor      dltensor_from_py_object_no_sync (fills a stack DLTensor)
    managed       managed_tensor_from_py_object_no_sync + the tensor's deleter
    stream        current_work_stream(kDLCPU, 0)
    alloc         managed_tensor_allocator (same dtype/shape) + the deleter
    roundtrip     from_py + managed_tensor_to_py_object_no_sync + dropping the result

Part 2, Python (timeit): tvm_ffi.from_dlpack(go_array) vs tvm_ffi.from_dlpack(
torch_tensor), and a call of a TVM-FFI function (load_inline, a no-op taking one
tensor) with each.

Each figure is the best of --repeat runs of --iters calls. Ratios are ours / torch
(below 1: godlpack is faster). Needs torch, apache-tvm-ffi and gcc (g++ for part 2).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import subprocess
import sys
import sysconfig
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")

if os.path.isdir(os.path.join(ROOT, "pyext", "godlpack")):
    sys.path.insert(0, os.path.join(ROOT, "pyext"))

import godlpack  # noqa: E402
import torch  # noqa: E402
import tvm_ffi  # noqa: E402

FUNCS = ["dltensor", "managed", "stream", "alloc", "roundtrip"]


def build() -> ctypes.PyDLL:
    os.makedirs(OUT, exist_ok=True)
    so = os.path.join(OUT, "exchange_bench.so")
    cmd = [
        os.environ.get("CC", "gcc"),
        "-O2",
        "-shared",
        "-fPIC",
        "-Wall",
        "-I",
        sysconfig.get_paths()["include"],
        "-I",
        os.path.join(os.path.dirname(tvm_ffi.__file__), "include"),
        os.path.join(HERE, "exchange_bench.c"),
        "-o",
        so,
    ]
    subprocess.run(cmd, check=True)
    lib = ctypes.PyDLL(so)
    for name in FUNCS:
        fn = getattr(lib, "bx_" + name)
        fn.argtypes = [ctypes.py_object, ctypes.c_longlong]
        fn.restype = ctypes.py_object
    return lib


def best(fn, obj, iters: int, repeat: int) -> float:
    fn(obj, max(iters // 10, 1))  # warm up
    return min(fn(obj, iters) for _ in range(repeat))


def best_timeit(stmt, number: int, repeat: int) -> float:
    stmt()
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e9


def inline_noop():
    src = "void noop(tvm::ffi::TensorView x) {}"
    return tvm_ffi.cpp.load_inline(
        name="godlpack_bench_noop",
        cpp_sources=src,
        functions=["noop"],
        build_directory=os.path.join(OUT, "tvm_ffi_noop"),
    ).noop


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--shape", default="32,32", help="comma-separated shape (float32)")
    ap.add_argument("--json", default=os.path.join(OUT, "exchange.json"))
    ap.add_argument("--no-inline", action="store_true", help="skip the load_inline call")
    args = ap.parse_args()

    shape = tuple(int(s) for s in args.shape.split(",") if s)
    go = godlpack.zeros(shape, dtype="float32")
    th = torch.zeros(shape, dtype=torch.float32)
    lib = build()

    rows = []
    print(
        f"godlpack {godlpack.__version__}, torch {torch.__version__}, "
        f"tvm_ffi {tvm_ffi.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}; float32{list(shape)}; best of {args.repeat} x {args.iters}"
    )
    print("\nC loop through the function pointers (ns/call)")
    print(f"{'function':<12}{'godlpack':>12}{'torch':>12}{'ratio':>10}")
    for name in FUNCS:
        fn = getattr(lib, "bx_" + name)
        n = args.iters if name in ("dltensor", "stream", "managed") else args.iters // 5
        ours = best(fn, go, n, args.repeat)
        theirs = best(fn, th, n, args.repeat)
        rows.append({"what": name, "godlpack_ns": ours, "torch_ns": theirs, "ratio": ours / theirs})
        print(f"{name:<12}{ours:>12.1f}{theirs:>12.1f}{ours / theirs:>10.2f}")

    print("\nPython (timeit, ns/call)")
    print(f"{'call':<28}{'godlpack':>12}{'torch':>12}{'ratio':>10}")
    number = max(args.iters // 10, 1000)
    py = [("tvm_ffi.from_dlpack(x)", lambda x: lambda: tvm_ffi.from_dlpack(x))]
    if not args.no_inline:
        noop = inline_noop()
        py.append(("tvm_ffi noop(x) call", lambda x: lambda: noop(x)))
    for label, make in py:
        ours = best_timeit(make(go), number, args.repeat)
        theirs = best_timeit(make(th), number, args.repeat)
        rows.append(
            {"what": label, "godlpack_ns": ours, "torch_ns": theirs, "ratio": ours / theirs}
        )
        print(f"{label:<28}{ours:>12.1f}{theirs:>12.1f}{ours / theirs:>10.2f}")

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(
            {
                "shape": shape,
                "iters": args.iters,
                "repeat": args.repeat,
                "python": platform.python_version(),
                "torch": torch.__version__,
                "tvm_ffi": tvm_ffi.__version__,
                "rows": rows,
            },
            f,
            indent=1,
        )
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
