"""A Go extension function over a tensor called from 1, 2 and 4 Python threads (issue 23):
on a free-threaded CPython (3.13t, run with PYTHON_GIL=0) the calls run in parallel and
throughput scales with cores; on a default build the GIL serialises their Python side.

Per thread: its own float32 tensor (NumPy), N calls of
  goext.touch(x)          the per-call cost: argument conversion and one call into Go
  goext.scale_(x, 1.0)    a call that also reads and writes the tensor (4096 floats)
Printed per function and thread count: ns per call as one thread sees it (wall time /
calls per thread) and the scaling, calls per second against one thread's (goal on this
2-core machine: ~2x at 2 threads free-threaded; the default build stays near 1x). Run it
on both builds and compare their one-thread ns (goal: free-threaded within 1.2x):

    python build.py ext && PYTHONPATH=pyext PYTHON_GIL=0 python3.13t bench/bench_threads.py
    python build.py ext && PYTHONPATH=pyext python3.13 bench/bench_threads.py

with a test venv's python (NumPy). goext is built by tests/goext_build.py (cached).
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import numpy as np  # noqa: E402
from goext_build import load  # noqa: E402

CALLS = int(os.environ.get("BENCH_CALLS", "200000"))


def run(fn, nthreads: int) -> float:
    """Wall seconds for nthreads threads making CALLS calls each, started together."""
    barrier = threading.Barrier(nthreads + 1)
    arrays = [np.ones(4096, dtype=np.float32) for _ in range(nthreads)]

    def work(x):
        barrier.wait()
        for _ in range(CALLS):
            fn(x)

    threads = [threading.Thread(target=work, args=(x,)) for x in arrays]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def main() -> None:
    goext = load("goext")
    ft = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    print(
        f"CPython {sys.version.split()[0]}{'t' if ft else ''} (GIL {'on' if gil else 'off'}),"
        f" {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, {CALLS} calls a thread"
    )
    funcs = {"touch(x)": goext.touch, "scale_(x, 1.0)": lambda x: goext.scale_(x, 1.0)}
    for name, fn in funcs.items():
        run(fn, 1)  # warm
        base = None
        for n in (1, 2, 4):
            wall = min(run(fn, n) for _ in range(3))
            rate = n * CALLS / wall
            base = base or rate
            print(
                f"  {name:16s} {n} thread(s): {wall / CALLS * 1e9:7.1f} ns/call, x{rate / base:.2f}"
            )


if __name__ == "__main__":
    main()
