"""Conversions between Python lists and arrays: godlpack against NumPy, in one run.

Prints ms per call (best of several repeats) and the ratio godlpack / NumPy for:
  asarray(list of 1M floats), asarray(list of 1M floats, dtype=float32),
  asarray(list of 1M ints), asarray(10k lists of 100 floats), tolist() of 1M floats,
and the extra memory (peak RSS over the input) asarray of 10M floats to float32
takes, against the result's size (convert.c writes straight into the result).
Run: python bench/bench_convert.py [--quick]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import timeit

import godlpack as g
import numpy as np


def ms_per_call(stmt: str, env: dict, number: int, repeat: int) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat, globals=env)) / number * 1e3


# Run in a child so the peak (VmHWM) is this conversion's alone. {module}, {count}
# and {limit} (RLIMIT_AS in bytes, 0 for none) are filled in; it prints extra/result.
# tests/test_hostile_python.py runs it too, under a 4 GiB limit.
PEAK_CHILD = """
import resource
if {limit}:
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
lib = __import__("{module}")
L = [0.5] * {count}
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
def peak():
    lines = open("/proc/self/status").read().splitlines()
    return next(int(s.split()[1]) * 1024 for s in lines if s.startswith("VmHWM"))
open("/proc/self/clear_refs", "w").write("5")
base = rss()
a = lib.asarray(L, dtype="float32")
assert a.shape == ({count},) and a[{count} // 3] == 0.5
print((peak() - base) / a.nbytes)
"""


def peak_code(module: str, count: int, limit: int = 0) -> str:
    return PEAK_CHILD.format(module=module, count=count, limit=limit)


def peak_ratio(module: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", peak_code(module, 10_000_000)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats (smoke run)")
    args = ap.parse_args()
    number, repeat = (1, 3) if args.quick else (3, 7)
    floats = [float(i) * 0.5 for i in range(1_000_000)]
    env = {
        "np": np,
        "g": g,
        "floats": floats,
        "ints": list(range(1_000_000)),
        "nested": [floats[i : i + 100] for i in range(0, 1_000_000, 100)],
        "ga": g.asarray(floats),
        "na": np.asarray(floats),
    }
    cases = {
        "asarray(1M floats)": ("g.asarray(floats)", "np.asarray(floats)"),
        "asarray(1M floats, float32)": (
            "g.asarray(floats, dtype='float32')",
            "np.asarray(floats, dtype='float32')",
        ),
        "asarray(1M ints)": ("g.asarray(ints)", "np.asarray(ints)"),
        "asarray(10k x 100 floats)": ("g.asarray(nested)", "np.asarray(nested)"),
        "tolist(1M floats)": ("ga.tolist()", "na.tolist()"),
    }
    print(f"{'case':30s} {'godlpack':>10s} {'numpy':>10s} {'ratio':>7s}")
    for name, (ours, theirs) in cases.items():
        t_ours = ms_per_call(ours, env, number, repeat)
        t_theirs = ms_per_call(theirs, env, number, repeat)
        print(f"{name:30s} {t_ours:8.2f}ms {t_theirs:8.2f}ms {t_ours / t_theirs:6.2f}x")
    for module in ("godlpack", "numpy"):
        print(
            f"peak extra memory, asarray(10M floats, float32), {module}: "
            f"{peak_ratio(module):.2f}x the result"
        )


if __name__ == "__main__":
    main()
