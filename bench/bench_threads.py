"""A Go extension function over a tensor called from 1, 2 and 4 Python threads:
on a free-threaded CPython (3.13t, run with PYTHON_GIL=0) the calls run in parallel and
throughput scales with cores; on a default build the GIL serialises their Python side.

Per thread: its own float32 tensor (NumPy), N calls of
  goext.touch(x)          the per-call cost: argument conversion and one call into Go
  goext.scale_(x, 1.0)    a call that also reads and writes the tensor (4096 floats)
and, as baselines (rows marked ~), CPython's and NumPy's own C calls on the same arrays:
  len(x), np.multiply(x, 1.0, out=x)
Printed per function and thread count: ns per call as one thread sees it (wall time /
calls per thread), the scaling (calls per second against one thread's), and the threads'
CPU time per call with the cores they got (CPU / wall). CPU per call that grows with the
threads is contention (a cache line or a lock both threads write: what the scaling loses
even on idle cores); scaling short of the thread count with flat CPU per call and fewer
cores than threads is a machine others load. On such a machine, a real-time policy with
one core per thread gives the threads their cores (BENCH_PIN=1, as root):

    BENCH_PIN=1 chrt -f 1 python bench/bench_threads.py ...

Both builds side by side, with the goals checked (the one-thread ns of the
free-threaded build within 1.2x of the default build's; ~2x at 2 threads free-threaded
on 2 idle cores, near 1x with the GIL):

    python bench/bench_threads.py --compare DEFAULT_PYTHON FREE_THREADED_PYTHON

e.g. the 3.13 and 3.13t test venvs' pythons (NumPy); it builds godlpack in place for
each (build.py ext) and runs each in a child (the free-threaded one with PYTHON_GIL=0),
and prints the load average before and after: on a machine others load, scaling is
noise. One build alone:

    python build.py ext && PYTHONPATH=pyext PYTHON_GIL=0 python3.13t bench/bench_threads.py

goext is built by tests/goext_build.py (cached). BENCH_CALLS sets the calls a thread.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CALLS = int(os.environ.get("BENCH_CALLS", "200000"))
THREADS = (1, 2, 4)
# BENCH_PIN=1: each thread on a CPU of its own (thread i on the i-th allowed CPU), for
# runs under a real-time policy (chrt) on a machine others load, where two threads may
# otherwise share one core.
PIN = os.environ.get("BENCH_PIN") == "1"
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
BASELINE = "~"  # a row that is not godlpack's: no goal checked
# the goals (docs/performance.md, "Free-threading")
MAX_FT_SLOWDOWN = 1.2  # one thread: free-threaded ns / default ns
WANT_FT_SCALING = 2.0  # at 2 threads, on 2 idle cores


def run(fn, rest, nthreads: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of all threads) for nthreads threads making CALLS calls
    each of fn(x, *rest(x)), started together. The wall time runs from the first thread's
    start to the last one's end, as the threads see them (a main thread timing them could
    wait for a core under a real-time policy). CPU over wall is how many cores the
    threads got."""
    import numpy as np

    barrier = threading.Barrier(nthreads)
    spans: list[tuple[float, float, float]] = []  # (start, end, CPU seconds) per thread

    def work(i):
        # Everything the loop touches but the function is the thread's own: a free-
        # threaded build counts an object's references from other threads than the one
        # that made it atomically, on one cache line all of them write, and locks a
        # closure's cell on every read (3.13t). Calls through a shared lambda, a
        # closure's cell or a constant 1.0 measured that, not the function: len(x)
        # scaled x1.0 through the cell, x1.9 through a local.
        f = fn
        x = np.ones(4096, dtype=np.float32)
        args = rest(x)
        if PIN:
            os.sched_setaffinity(0, {CPUS[i % len(CPUS)]})
        barrier.wait()
        start, cpu = time.perf_counter(), time.thread_time()
        if not args:  # no f(x, *args): unpacking costs more than len(x) itself
            for _ in range(CALLS):
                f(x)
        elif len(args) == 1:
            (a,) = args
            for _ in range(CALLS):
                f(x, a)
        else:
            a, b = args
            for _ in range(CALLS):
                f(x, a, b)
        spans.append((start, time.perf_counter(), time.thread_time() - cpu))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = max(s[1] for s in spans) - min(s[0] for s in spans)
    return wall, sum(s[2] for s in spans)


def label() -> str:
    ft = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    return f"CPython {sys.version.split()[0]}{'t' if ft else ''} (GIL {'on' if gil else 'off'})"


def measure() -> dict:
    """{function: {threads: ns per call}} for this interpreter, printed as it goes."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from goext_build import load

    goext = load("goext")
    print(
        f"{label()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, {CALLS} calls a thread",
        flush=True,
    )
    import numpy as np

    # function, and the rest of its arguments after x (made in the calling thread)
    funcs = {
        "touch(x)": (goext.touch, lambda x: ()),
        "scale_(x, 1.0)": (goext.scale_, lambda x: (float("1"),)),
        # Baselines: how CPython's own C calls scale over the same per-thread arrays
        # (what is left of the goal once these are known is ours).
        BASELINE + "len(x)": (len, lambda x: ()),
        BASELINE + "np.multiply(x,1,out=x)": (np.multiply, lambda x: (float("1"), x)),
    }
    result: dict = {}
    for name, (fn, rest) in funcs.items():
        run(fn, rest, 1)  # warm
        result[name] = {}
        for n in THREADS:
            wall, cpu = min(run(fn, rest, n) for _ in range(3))
            result[name][n] = wall / CALLS * 1e9
            scaling = result[name][1] / result[name][n] * n
            print(
                f"  {name:24s} {n} thread(s): {result[name][n]:7.1f} ns/call, x{scaling:.2f}"
                f" ({cpu / n / CALLS * 1e9:6.1f} ns CPU/call, {cpu / wall:.2f} cores)"
            )
    return result


def child(python: str) -> tuple[str, dict]:
    """Builds godlpack in place for python, runs measure() there; (label, result)."""
    subprocess.run([python, "build.py", "ext", "--python", python], cwd=ROOT, check=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "pyext"))
    code = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_config_var('Py_GIL_DISABLED'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    if code.stdout.strip() == "1":
        env["PYTHON_GIL"] = "0"  # the GIL stays off, whatever imports
    else:
        env.pop("PYTHON_GIL", None)
    out = subprocess.run(
        [python, os.path.abspath(__file__), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    *shown, last = out.strip().splitlines()
    print("\n".join(shown), flush=True)
    got = json.loads(last)
    return got["label"], {f: {int(n): ns for n, ns in r.items()} for f, r in got["result"].items()}


def compare(default_python: str, ft_python: str) -> None:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    dlabel, dres = child(default_python)
    flabel, fres = child(ft_python)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\nfree-threaded {flabel} against default {dlabel}:")
    for name in dres:
        d, f = dres[name], fres[name]
        ratio = f[1] / d[1]
        baseline = name.startswith(BASELINE)
        met = "met" if ratio <= MAX_FT_SLOWDOWN else "NOT met"
        print(
            f"  {name:24s} one thread: {d[1]:.1f} -> {f[1]:.1f} ns/call, x{ratio:.2f}"
            + ("" if baseline else f" (goal <= {MAX_FT_SLOWDOWN}: {met})")
        )
        for n in THREADS[1:]:
            ds, fs = d[1] / d[n] * n, f[1] / f[n] * n
            goal = ""
            if n == 2 and not baseline:
                met = "met" if fs >= 0.9 * WANT_FT_SCALING else "NOT met"
                goal = f" (goal ~{WANT_FT_SCALING:.0f}x free-threaded: {met})"
            print(
                f"  {name:24s} {n} threads: scaling default x{ds:.2f},"
                f" free-threaded x{fs:.2f}{goal}"
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", nargs=2, metavar=("DEFAULT_PYTHON", "FREE_THREADED_PYTHON"))
    p.add_argument("--json", action="store_true", help="also print the result as JSON, last")
    args = p.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    result = measure()
    if args.json:
        print(json.dumps({"label": label(), "result": result}))


if __name__ == "__main__":
    main()
