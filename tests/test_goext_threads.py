"""Extensions written in Go under concurrency: 8 threads calling goext at
once, 100,000 calls with flat RSS, the GIL released during a long Go call, and two Go
extensions (two Go runtimes) beside godlpack in one process, each running goroutines
and collections, called from several threads."""

from __future__ import annotations

import math
import re
import threading
import time

import godlpack as g
import numpy as np
import pytest
import torch
from conftest import FREE_THREADED  # no GIL: a call always detaches from the
from goext_build import folder, load  # interpreter (ext_call.c, gil_wanted), and

# HoldGIL locks nothing (docs/free-threading.md, "Rules for extension authors")


def test_eight_threads_call_at_once():
    goext = load("goext")
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            n = np.arange(1000, dtype=np.float64) * k
            t = torch.arange(1000, dtype=torch.float32)
            a = g.arange(1000, dtype="float64")
            barrier.wait()
            for i in range(300):
                r = np.from_dlpack(goext.scale(n[::-1], 2.0))
                assert r[0] == 999.0 * k * 2
                assert goext.sum(t) == 499500.0
                mine = np.full(16, float(k))
                goext.scale_(mine, 3.0)
                assert (mine == 3.0 * k).all()
                assert goext.sum(a[::2]) == 249500.0
                if i % 50 == 0:
                    try:
                        goext.panic(f"thread {k}")
                    except RuntimeError as e:
                        assert f"thread {k}" in str(e)
        except BaseException as e:  # reported below, with the thread's number
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not any(th.is_alive() for th in threads)
    assert errors == []


def test_100k_calls_keep_rss_flat(isolated):
    code = f"""
import sys; sys.path.insert(0, {folder("goext")!r})
import numpy as np, godlpack as g, goext
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
x, a = np.ones((4, 4), dtype=np.float32), g.ones((4, 4))
def calls(n):
    for _ in range(n):
        goext.scale(x, 2.0)
        goext.sum(a)
        try:
            goext.fail("e")
        except ValueError:
            pass
calls(20_000)  # warm-up: the Go heap and CPython's free lists reach their size
before = rss()
calls(100_000)
print((rss() - before) // 2**20)
"""
    proc = isolated(code, timeout=300)
    assert proc.returncode == 0, proc.stderr
    grew_mib = int(proc.stdout)
    assert grew_mib < 16, f"RSS grew by {grew_mib} MiB over 100,000 calls"


def steps_during(spin) -> int:
    """How many steps a Python thread made while spin(0.6) ran in Go."""
    stamps: list[int] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            stamps.append(time.time_ns())
            time.sleep(0.001)

    th = threading.Thread(target=count)
    th.start()
    time.sleep(0.05)  # the thread is running
    try:
        start, end = spin(0.6)
    finally:
        stop.set()
        th.join()
    assert end - start >= 600_000_000
    return len([s for s in stamps if start < s < end])


def test_python_thread_runs_while_a_long_go_call_runs():
    goext = load("goext")
    during = steps_during(goext.spin)
    # Had the GIL been held for the whole call, no Python code could run in between.
    assert during >= 5, f"{during} steps of the Python thread during the Go call"
    # HoldGIL: none can (its stamps are taken with the GIL, so none falls inside);
    # free-threaded, there is no GIL for it to hold, and the thread runs on.
    if FREE_THREADED:
        assert steps_during(goext.spin_gil) >= 5
    else:
        assert steps_during(goext.spin_gil) == 0


GIL_POLICY = """
import sys, sysconfig, threading, time
sys.path.insert(0, {folder!r})
import godlpack as g, numpy as np, goext
x = np.zeros(4, np.float32)
# free-threaded: the default detaches on every call, one thread or many (there is
# no GIL whose release a lone thread could skip; see FREE_THREADED in the test file)
alone = 10 if sysconfig.get_config_var("Py_GIL_DISABLED") else 0

def released(f, n=10):
    \"\"\"How many of n calls f(x) released the GIL (gil_releases holds it: not counted).\"\"\"
    r0 = goext.gil_releases()
    for _ in range(n):
        f(x)
    return goext.gil_releases() - r0

# One thread: no other thread state, nobody could take the GIL; the default keeps it.
assert threading.active_count() == 1
assert released(goext.touch) == alone
assert released(goext.touch_gil) == 0
assert released(goext.touch_released) == 10
# Keep on the calling goroutine while the call holds the GIL (PyGILState_Ensure on
# the thread that holds it) works.
assert goext.hold(np.arange(5.0)) == 5 and goext.held_sum() == 10.0
goext.release()

# Another Python thread, idle but alive: it could take the GIL, so every call
# releases it (HoldGIL still holds it).
stop = threading.Event()
th = threading.Thread(target=stop.wait)
th.start()
assert released(goext.touch) == 10
assert released(goext.touch_gil) == 0
assert released(goext.touch_released) == 10
stop.set()
th.join()
# Gone (its thread state is deleted just after join() returns): held again.
deadline = time.monotonic() + 10
while released(goext.touch, 1) != alone // 10 and time.monotonic() < deadline:
    time.sleep(0.01)
assert released(goext.touch) == alone
# Each thread counts its own calls: another thread's calls leave this one's count.
r0 = goext.gil_releases()
other = threading.Thread(target=lambda: [goext.touch_released(x) for _ in range(5)])
other.start()
other.join()
assert goext.gil_releases() == r0
print("ok")
"""


def test_gil_released_only_while_another_thread_could_take_it():
    from conftest import run_python

    proc = run_python(GIL_POLICY.format(folder=folder("goext")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


KEEP_ELSEWHERE = """
import sys, threading
sys.path.insert(0, {folder!r})
import godlpack as g, numpy as np, torch, goext
inputs = [np.arange(6.0), g.arange(6, dtype="float64"), torch.arange(6.0)]
for x in inputs:
    # ReleaseGIL: the goroutine takes the GIL while the call waits for it.
    assert goext.keep_elsewhere_released(x) == 6
    # The default may hold the GIL (it does here: one thread), so Keep from another
    # goroutine is refused: an error, where waiting for the GIL would hang.
    try:
        goext.keep_elsewhere(x)
    except ValueError as e:
        assert "ReleaseGIL" in str(e) and "goroutine" in str(e), e
    else:
        raise AssertionError("keep_elsewhere kept x from another goroutine")
# The same refusal with another thread alive, when the default does release the
# GIL: what a function may do does not depend on the threads of the program.
stop = threading.Event()
th = threading.Thread(target=stop.wait)
th.start()
try:
    goext.keep_elsewhere(inputs[0])
except ValueError as e:
    assert "ReleaseGIL" in str(e), e
else:
    raise AssertionError("keep_elsewhere kept x from another goroutine")
assert goext.keep_elsewhere_released(inputs[0]) == 6
stop.set()
th.join()
print("ok")
"""


def test_keep_on_another_goroutine_needs_release_gil():
    from conftest import run_python

    proc = run_python(KEEP_ELSEWHERE.format(folder=folder("goext")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_two_go_extensions_and_godlpack_in_one_process(tmp_path):
    from conftest import run_script

    script = f"""
import sys, threading
sys.path[:0] = [{folder("goext")!r}, {folder("goext2")!r}]
import numpy as np, godlpack as g, goext, goext2

errors = []
def work(k):
    try:
        for i in range(150):
            r = goext2.ramp(1000, 0.5)           # made in goext2's runtime
            assert type(r) is g.Array
            assert goext.sum(r) == 0.5 * 999 * 1000 / 2   # read in goext's
            s = goext.scale(r[::-3], 2.0)        # goext's result, a view of goext2's
            assert np.from_dlpack(s)[0] == 999.0
            assert goext2.churn(1) == 256
            m = goext.matmul(r.reshape(20, 50), goext2.ramp(50, 1.0).reshape(50, 1))
            assert float(np.from_dlpack(m)[0, 0]) == sum(0.5 * j * j for j in range(50))
            g.asarray(np.from_dlpack(r)).copy()
    except BaseException as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
for t in threads: t.start()
for t in threads: t.join()
assert errors == [], errors
print("ok")
"""
    assert run_script(tmp_path, "two_runtimes", script, timeout=300).strip() == "ok"


def test_go_extension_calls_back_into_python_from_a_goroutine():
    """goext2.sqrt_on_goroutine: a Go extension's goroutine calls math.sqrt through
    godlpack.Import/Object (the embedding API, gil.go) while the call waits for it; a
    Python exception comes back as the function's error and is raised again as it was
    raised (the same exception, not a ValueError naming its type)."""
    goext2 = load("goext2")
    assert goext2.sqrt_on_goroutine(2.0) == 2.0**0.5
    try:  # the message is this CPython's own (3.14 reworded it)
        math.sqrt(-1.0)
    except ValueError as e:
        expected = str(e)
    with pytest.raises(ValueError, match="^" + re.escape(expected) + "$") as info:
        goext2.sqrt_on_goroutine(-1.0)
    assert type(info.value) is ValueError
