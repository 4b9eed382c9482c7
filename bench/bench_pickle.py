"""Benchmark arrays that travel: pickling and process pools, godlpack vs NumPy.

    python bench/bench_pickle.py [--repeat R]

In one run, for a godlpack.Array and a NumPy array of the same dtype and bytes:

    dumps5 / loads5        pickle protocol 5 in band, 64 MiB float32
    dumps5-oob / loads5-oob  protocol 5 with buffer_callback (out of band), 64 MiB
    dumps4 / loads4        protocol 4 (what multiprocessing uses up to 3.13), 64 MiB
    pool                   a fork Pool(2) round trip (argument and result) of
                           100 x 1 MiB arrays

Each figure is the best of --repeat runs, godlpack and NumPy alternating; ratios
are godlpack / NumPy (below 1: godlpack is faster). Then shared memory: the time of
one round trip of a shared Array through a Pool worker (a handle, not the bytes) for
1 MiB and 64 MiB: the same figure at any size.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pickle
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if os.path.isdir(os.path.join(ROOT, "pyext", "godlpack")):
    sys.path.insert(0, os.path.join(ROOT, "pyext"))

import godlpack as g  # noqa: E402
import numpy as np  # noqa: E402

MIB = 1 << 20


def pair(ours, theirs, repeat: int) -> tuple[float, float]:
    """Best times of ours() and theirs(), run alternately so that load from other
    processes on the machine hits both alike."""
    a, b = [], []
    for _ in range(repeat):
        for fn, out in ((ours, a), (theirs, b)):
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
    return min(a), min(b)


def echo(x):
    return x


def pickle_cases(x):
    """name -> a function pickling or unpickling x as that case does."""
    s5, s4 = pickle.dumps(x, 5), pickle.dumps(x, 4)
    bufs: list[pickle.PickleBuffer] = []
    so = pickle.dumps(x, 5, buffer_callback=bufs.append)
    return {
        "dumps5": lambda: pickle.dumps(x, 5),
        "loads5": lambda: pickle.loads(s5),
        "dumps5-oob": lambda: pickle.dumps(x, 5, buffer_callback=lambda b: None),
        "loads5-oob": lambda: pickle.loads(so, buffers=bufs),
        "dumps4": lambda: pickle.dumps(x, 4),
        "loads4": lambda: pickle.loads(s4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    r = args.repeat

    n = 64 * MIB // 4
    ours = g.arange(n, dtype="float32")
    theirs = np.arange(n, dtype=np.float32)
    a_c, b_c = pickle_cases(ours), pickle_cases(theirs)
    rows = [(k, *pair(a_c[k], b_c[k], r)) for k in a_c]
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        mine = [g.full((MIB // 8,), float(i), dtype="float64") for i in range(100)]
        nps = [np.full(MIB // 8, float(i)) for i in range(100)]
        pool.map(echo, nps, chunksize=10)  # warm the workers
        rows.append(
            (
                "pool 100x1MiB",
                *pair(
                    lambda: pool.map(echo, mine, chunksize=10),
                    lambda: pool.map(echo, nps, chunksize=10),
                    r,
                ),
            )
        )
        shared = {}
        for size in (MIB, 64 * MIB):
            s = g.shared_zeros(size, "uint8")
            pool.apply(echo, (s,))
            shared[size] = pair(lambda s=s: pool.apply(echo, (s,)), lambda: None, r)[0]
    print(f"# godlpack vs NumPy {np.__version__}, Python {sys.version.split()[0]}, best of {r}")
    print(f"{'case':<16} {'godlpack':>12} {'numpy':>12} {'ratio':>7}")
    for name, ours_s, np_s in rows:
        print(f"{name:<16} {ours_s * 1e3:>10.3f}ms {np_s * 1e3:>10.3f}ms {ours_s / np_s:>7.2f}")
    print("shared-memory Pool round trip (a handle):")
    for size, t in shared.items():
        print(f"  {size // MIB:>3} MiB  {t * 1e3:8.3f} ms")
    print(f"  64 MiB / 1 MiB: {shared[64 * MIB] / shared[MIB]:.2f} (constant in size: ~1)")


if __name__ == "__main__":
    main()
