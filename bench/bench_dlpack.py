"""Exchange overhead of godlpack against NumPy's and PyTorch's own, in one run.

Prints ns per call (best of several repeats) and the ratios docs/performance.md tracks:
  numpy.from_dlpack(go_array)     / numpy.from_dlpack(numpy_array)
  torch.from_dlpack(go_array)     / torch.from_dlpack(torch_tensor)
  godlpack.from_dlpack(numpy_arr) / numpy.from_dlpack(numpy_array)
  godlpack.from_dlpack(torch_t)   / torch.from_dlpack(torch_tensor)
and, for the design's record, the cost of a Python call into C and into Go.
Run: python bench/bench_dlpack.py [--quick] [--png bench/out/exchange.png]
"""

from __future__ import annotations

import argparse
import timeit

import godlpack as g
import numpy as np
import torch


def ns_per_call(stmt: str, env: dict, number: int, repeat: int) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat, globals=env)) / number * 1e9


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    ap.add_argument("--png", help="write a bar chart of the ratios (needs matplotlib)")
    args = ap.parse_args()
    number, repeat = (20_000, 3) if args.quick else (200_000, 7)
    env = {
        "np": np,
        "torch": torch,
        "g": g,
        "a": g.zeros((4, 4)),
        "n": np.zeros((4, 4), dtype=np.float32),
        "t": torch.zeros(4, 4),
    }
    cases = {
        "numpy.from_dlpack(godlpack)": "np.from_dlpack(a)",
        "numpy.from_dlpack(numpy)": "np.from_dlpack(n)",
        "torch.from_dlpack(godlpack)": "torch.from_dlpack(a)",
        "torch.from_dlpack(torch)": "torch.from_dlpack(t)",
        "godlpack.from_dlpack(numpy)": "g.from_dlpack(n)",
        "godlpack.from_dlpack(torch)": "g.from_dlpack(t)",
        "godlpack.Array.__dlpack__()": "a.__dlpack__()",
        "numpy.ndarray.__dlpack__()": "n.__dlpack__()",
        "no-op method in C": "g._godlpack._noop_c()",
        "no-op method in Go": "g._godlpack._noop_go()",
    }
    ns = {name: ns_per_call(stmt, env, number, repeat) for name, stmt in cases.items()}
    for name, v in ns.items():
        print(f"{name:32s} {v:8.1f} ns")
    ratios = {
        "export to NumPy": ns["numpy.from_dlpack(godlpack)"] / ns["numpy.from_dlpack(numpy)"],
        "export to PyTorch": ns["torch.from_dlpack(godlpack)"] / ns["torch.from_dlpack(torch)"],
        "import from NumPy": ns["godlpack.from_dlpack(numpy)"] / ns["numpy.from_dlpack(numpy)"],
        "import from PyTorch": ns["godlpack.from_dlpack(torch)"] / ns["torch.from_dlpack(torch)"],
    }
    print()
    for name, r in ratios.items():
        print(f"ratio {name:22s} {r:6.3f}  (<= 1.0 means no slower than the library's own)")
    crossing = ns["no-op method in Go"] - ns["no-op method in C"]
    print(f"\nC->Go crossing from a Python call: {crossing:.1f} ns")
    if args.png:
        from _chart import ratio_chart

        ratio_chart(
            args.png, ratios, "time relative to the library's own from_dlpack (lower is better)"
        )


if __name__ == "__main__":
    main()
