"""godlpack.Array operations against NumPy's, in one run.

Prints time per operation (the best of several repeats, godlpack and NumPy timed in
turn so both see the same machine) and the ratio godlpack / NumPy: of the best times,
or, for the memory-bound rows (milliseconds a call), the median of the ratios of
calls made one of each side after the other, which moves least with the load of a
shared machine. With the goal of each group:

  memory     allocation, fills, arange, copies of any layout, asarray from a buffer:
             <= 1.1x NumPy (memory bandwidth is the limit for both)
  convert    from and to Python objects (lists, nested lists, tolist, narrow dtypes
             through ml_dtypes on the NumPy side): <= 1.5x
  per-call   indexing, views, reshape, attributes on a small array: <= 1.5x

Run: python bench/bench_array.py [--quick] [--only SUBSTRING] [--markdown]
                                 [--png docs/images/array-ops.png]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if os.path.isdir(os.path.join(ROOT, "pyext", "godlpack")):
    sys.path.insert(0, os.path.join(ROOT, "pyext"))

import godlpack as g  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

GOALS = {"memory": 1.1, "convert": 1.5, "per-call": 1.5}
MIB = 1 << 20


@dataclass
class Case:
    group: str
    name: str
    ours: str  # statement timed for godlpack
    numpy: str  # the NumPy statement a user would otherwise write


CASES = [
    Case(
        "memory",
        "zeros((4096, 4096), float32)",
        "g.zeros((4096, 4096), 'float32')",
        "np.zeros((4096, 4096), np.float32)",
    ),
    Case(
        "memory",
        "empty((4096, 4096), float32)",
        "g.empty((4096, 4096), 'float32')",
        "np.empty((4096, 4096), np.float32)",
    ),
    Case(
        "memory",
        "ones((4096, 4096), float32)",
        "g.ones((4096, 4096), 'float32')",
        "np.ones((4096, 4096), np.float32)",
    ),
    Case(
        "memory",
        "full((4096, 4096), 2.5, float32)",
        "g.full((4096, 4096), 2.5, 'float32')",
        "np.full((4096, 4096), 2.5, np.float32)",
    ),
    Case(
        "memory",
        "arange(4M, int64)",
        "g.arange(4 * MIB, dtype='int64')",
        "np.arange(4 * MIB, dtype=np.int64)",
    ),
    Case(
        "memory",
        "arange(4M, float64)",
        "g.arange(0.0, 4 * MIB, dtype='float64')",
        "np.arange(0.0, 4 * MIB, dtype=np.float64)",
    ),
    Case("memory", "copy() 64 MiB contiguous", "ga.copy()", "na.copy()"),
    Case("memory", "a[:, ::2].copy() 64 MiB", "ga[:, ::2].copy()", "na[:, ::2].copy()"),
    Case("memory", "a[::-1].copy() 64 MiB", "ga[::-1].copy()", "na[::-1].copy()"),
    Case("memory", "a[::2].copy() 64 MiB (rows)", "ga[::2].copy()", "na[::2].copy()"),
    # copy=True: asarray's default shares a NumPy array (the per-call row below).
    Case(
        "memory",
        "asarray(numpy float64 32 MiB, copy)",
        "g.asarray(nf64, copy=True)",
        "np.array(nf64)",
    ),
    Case(
        "memory", "asarray(bytes 32 MiB)", "g.asarray(raw)", "np.frombuffer(raw, np.uint8).copy()"
    ),
    Case("memory", "asarray(memoryview 32 MiB)", "g.asarray(mv)", "np.array(mv)"),
    Case("memory", "a[...] = 1.5 (64 MiB fill)", "ga[...] = 1.5", "na[...] = 1.5"),
    Case("memory", "a[:, ::2] = 1.5", "ga[:, ::2] = 1.5", "na[:, ::2] = 1.5"),
    Case("memory", "a[:] = b (64 MiB)", "ga[:] = gb", "na[:] = nb"),
    Case("memory", "a[:, ::2] = b[:, ::2]", "ga[:, ::2] = gb[:, ::2]", "na[:, ::2] = nb[:, ::2]"),
    Case("convert", "asarray(list of 1M floats)", "g.asarray(floats)", "np.asarray(floats)"),
    Case("convert", "asarray(nested 10k x 100)", "g.asarray(nested)", "np.asarray(nested)"),
    Case("convert", "tolist() 1M float32", "gt.tolist()", "nt.tolist()"),
    Case(
        "convert",
        "asarray(list 1M, bfloat16)",
        "g.asarray(floats, dtype='bfloat16')",
        "np.asarray(floats, dtype=ml_dtypes.bfloat16)",
    ),
    Case(
        "convert",
        "asarray(list 1M, float8_e4m3fn)",
        "g.asarray(floats, dtype='float8_e4m3fn')",
        "np.asarray(floats, dtype=ml_dtypes.float8_e4m3fn)",
    ),
    Case("per-call", "empty((4, 4))", "g.empty((4, 4))", "np.empty((4, 4), np.float32)"),
    Case("per-call", "a[3, 4]", "s[3, 4]", "t[3, 4]"),
    Case("per-call", "a[3, 4] = 1.0", "s[3, 4] = 1.0", "t[3, 4] = 1.0"),
    Case("per-call", "a[3]", "s[3]", "t[3]"),
    Case("per-call", "a[1:, ::2]", "s[1:, ::2]", "t[1:, ::2]"),
    Case("per-call", "a[2:5] = 0.0", "s[2:5] = 0.0", "t[2:5] = 0.0"),
    # asarray of the library's own array is the array itself; of a NumPy array it
    # shares the memory in a new Array, which NumPy spells np.from_dlpack (its
    # asarray of a NumPy array makes nothing: the first row).
    Case("per-call", "asarray(Array): itself", "g.asarray(s)", "np.asarray(t)"),
    Case("per-call", "asarray(numpy): shares", "g.asarray(nf64)", "np.from_dlpack(nf64)"),
    Case("per-call", "reshape(4, 64)", "s.reshape(4, 64)", "t.reshape(4, 64)"),
    Case("per-call", "a.shape", "s.shape", "t.shape"),
    Case("per-call", "a.strides", "s.strides", "t.strides"),
    Case("per-call", "a.ndim", "s.ndim", "t.ndim"),
    Case("per-call", "a.size", "s.size", "t.size"),
    Case("per-call", "a.dtype", "s.dtype", "t.dtype"),
    Case("per-call", "a.itemsize", "s.itemsize", "t.itemsize"),
    Case("per-call", "a.nbytes", "s.nbytes", "t.nbytes"),
]


def environment() -> dict:
    """The operands, made once. godlpack's share NumPy's memory (asarray's default),
    so both sides' loops run over the same pages."""
    na = np.arange(16 * MIB, dtype=np.float32).reshape(4096, 4096)
    nb = na + 1
    nf64 = np.arange(4 * MIB, dtype=np.float64)
    raw = nf64.tobytes()
    floats = [float(i) * 0.5 for i in range(MIB)]
    nested = [floats[i * 100 : (i + 1) * 100] for i in range(10_000)]
    nt = np.asarray(floats, dtype=np.float32)
    t = np.arange(256, dtype=np.float32).reshape(16, 16)
    return {
        "g": g,
        "np": np,
        "ml_dtypes": ml_dtypes,
        "MIB": MIB,
        "na": na,
        "nb": nb,
        "ga": g.asarray(na),
        "gb": g.asarray(nb),
        "nf64": nf64,
        "raw": raw,
        "mv": memoryview(raw).cast("d"),
        "floats": floats,
        "nested": nested,
        "nt": nt,
        "gt": g.asarray(nt),
        "t": t,
        "s": g.asarray(t),
    }


def timer(stmt: str, env: dict):
    """A function that runs stmt number times and returns seconds per call."""
    src = f"def _bench(_n):\n    for _ in range(_n):\n        {stmt}\n"
    ns: dict = {}
    exec(compile(src, f"<{stmt}>", "exec"), env, ns)
    fn = ns["_bench"]

    def run(number: int) -> float:
        t0 = time.perf_counter()
        fn(number)
        return (time.perf_counter() - t0) / number

    return run


def measure(case: Case, env: dict, repeat: int, target: float) -> tuple[float, float, float]:
    """Best time per call of each side, and the ratio ours / NumPy's."""
    ours, theirs = timer(case.ours, env), timer(case.numpy, env)
    if case.group == "memory":
        return measure_pairs(ours, theirs, repeat, target)
    # Each side's count makes its run last about target seconds, so both are as
    # exposed to a loaded machine's interruptions (a count taken from one timed call,
    # ~1 us of timer overhead, gave the faster side runs many times shorter).
    number_ours, number = calibrate(ours, target), calibrate(theirs, target)
    best_ours = best_theirs = float("inf")
    for _ in range(repeat):  # interleaved: both see the same load on a shared machine
        best_ours = min(best_ours, ours(number_ours))
        best_theirs = min(best_theirs, theirs(number))
    return best_ours, best_theirs, best_ours / best_theirs


def calibrate(run, target: float) -> int:
    """The number of calls for which one run of run lasts about target seconds."""
    number = 1
    while run(number) * number < target / 4 and number < 1 << 22:
        number *= 4
    return max(1, int(number * target / max(run(number) * number, 1e-9)))


def measure_pairs(ours, theirs, repeat: int, target: float) -> tuple[float, float, float]:
    """Memory-bound calls take milliseconds: time them one call of each side after
    the other (each side first in half the pairs), and take the median of the pairs'
    ratios. Both calls of a pair see
    the same load on a shared machine, so the median moves much less than a ratio
    of two best times taken at different moments."""
    ours(1), theirs(1)  # warm up
    pair = ours(1) + theirs(1)
    pairs = min(400, max(repeat * 3, int(repeat * target / max(pair, 1e-9))))
    times = []
    for i in range(pairs):  # each side first in half the pairs: no order bias
        if i % 2:
            t = theirs(1)
            times.append((ours(1), t))
        else:
            times.append((ours(1), theirs(1)))
    ratios = sorted(o / t for o, t in times)
    return min(o for o, _ in times), min(t for _, t in times), ratios[len(ratios) // 2]


def fmt_time(sec: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if sec >= scale:
            return f"{sec / scale:.3g} {unit}"
    return f"{sec * 1e9:.3g} ns"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats (smoke run)")
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--png", help="write a bar chart of the ratios (needs matplotlib)")
    args = ap.parse_args()
    repeat, target = (3, 0.05) if args.quick else (7, 0.2)
    env = environment()
    cases = [c for c in CASES if not args.only or args.only in c.name]
    print(
        f"godlpack {g.__version__}, NumPy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, "
        f"CPython {platform.python_version()}, {os.cpu_count()} CPUs; times: best of "
        f"{repeat}; ratios: of the best times, or for memory-bound rows the median "
        f"ratio of {repeat * 3}-400 calls of each side made in turn"
    )
    rows = []
    for c in cases:
        ours, theirs, ratio = measure(c, env, repeat, target)
        goal = GOALS[c.group]
        rows.append((c, ours, theirs, ratio, goal))
        mark = "ok" if ratio <= goal else f"goal {goal}x"
        times = f"{fmt_time(ours):>10s} {fmt_time(theirs):>10s}"
        print(f"{c.group:8s} {c.name:36s} {times} {ratio:8.2f}  {mark}", flush=True)
    if args.markdown:
        print("\n| operation | godlpack | NumPy | ratio | goal |\n|---|---:|---:|---:|---:|")
        for c, ours, theirs, ratio, goal in rows:
            print(
                f"| `{c.name}` | {fmt_time(ours)} | {fmt_time(theirs)} | {ratio:.2f} | ≤ {goal} |"
            )
    missed = [c.name for c, _, _, ratio, goal in rows if ratio > goal]
    print(
        f"\n{len(rows) - len(missed)} of {len(rows)} within their goal"
        + (f"; not: {', '.join(missed)}" if missed else "")
    )
    if args.png:
        from _chart import ratio_chart

        ratio_chart(
            args.png,
            {c.name: ratio for c, _, _, ratio, _ in rows},
            "time relative to NumPy's (lower is better; red: the goal)",
            log=True,
            goals={c.name: goal for c, _, _, _, goal in rows},
        )


if __name__ == "__main__":
    main()
