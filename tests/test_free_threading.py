"""Free-threaded CPython (docs/free-threading.md): godlpack and the extensions godlpack.build makes
declare that they run without the GIL, and are safe to: Python threads call them truly in
parallel.

On a free-threaded build (3.13t, whose suite tests/run runs with PYTHON_GIL=0) importing
them with warnings as errors keeps the GIL off (a module without ``Py_mod_gil`` re-enables
it, with a RuntimeWarning). The stress test runs everywhere (on a default build it
exercises the same code with the GIL switching threads): 10 threads mixing exports,
imports, views, ``asarray`` of lists other threads mutate, pickling, buffer exports,
extension calls and fork, in a fresh interpreter so that a crash fails the test instead of
killing pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import FREE_THREADED, GODLPACK_PATH, HUNG_CHILD_STACKS, run_script
from goext_build import folder

needs_free_threaded = pytest.mark.skipif(
    not FREE_THREADED, reason="a free-threaded CPython (3.13t) only: the GIL cannot be off here"
)


@needs_free_threaded
def test_imports_keep_the_gil_off():
    """godlpack, an extension godlpack.build made, and both used: with -W error a module
    that re-enabled the GIL fails the import ('has not declared that it can run safely
    without the GIL'), and the GIL is still off at the end. PYTHON_GIL is left unset: set
    to 0 it would keep the GIL off whatever the modules declare."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{GODLPACK_PATH!r}, {folder("goext")!r}]
        import godlpack as g, goext
        assert goext.sum(g.arange(10, dtype="float64")) == 45.0
        print("gil", sys._is_gil_enabled())
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    r = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["gil", "False"], r.stdout + r.stderr


def test_what_every_thread_calls_is_immortal_on_a_free_threaded_build():
    """On a free-threaded build the objects every thread calls through are immortal
    (immortal.c): an extension's functions, a bound class with its methods and
    properties, godlpack's own functions and the Array type with its methods. Counting
    their references from two threads at once moved one cache line between the cores on
    every call (goext.touch from two threads: +35-40 ns of CPU a call). A default build
    keeps counting them: nothing changes there."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{GODLPACK_PATH!r}, {folder("goext")!r}, {folder("streamstats")!r}]
        import godlpack as g, goext, streamstats
        H = streamstats.Histogram
        objs = {{
            "goext.touch": goext.touch, "goext.sum": goext.sum,
            "streamstats.scale": streamstats.scale, "streamstats.clip": streamstats.clip,
            "Histogram": H, "Histogram.add": H.__dict__["add"],
            "Histogram.count": H.__dict__["count"], "Histogram.__repr__": H.__dict__["__repr__"],
            "godlpack.Array": g.Array, "Array.__dlpack__": g.Array.__dict__["__dlpack__"],
            "from_dlpack": g._godlpack.from_dlpack, "asarray": g._godlpack.asarray,
        }}
        immortal = sys.getrefcount(None)
        for name, o in objs.items():
            print(name, sys.getrefcount(o) == immortal)
        h = H(10)  # instances are not: they come and go
        print("instance", sys.getrefcount(h) == immortal)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines())
    want = "True" if FREE_THREADED else "False"
    assert got.pop("instance") == "False"
    assert got == dict.fromkeys(got, want) and len(got) == 12, got


STRESS = """
import gc, os, pickle, random, sys, threading, time, warnings
sys.path[:0] = [{goext!r}]
import numpy as np
import torch
import godlpack as g
import goext

warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
THREADS, SECONDS = 10, {seconds}
stop = time.monotonic() + SECONDS
errors = []
counts = {{}}

# Shared by every thread: one Array (exported, viewed, pickled by all at once), and a
# list the mutators change (items replaced, appended, popped) while others convert it.
shared = g.arange(4096, dtype="float64")
values = [float(i) for i in range(64)]
mutated = list(values)
allowed = set(values)

def mutate(rng):
    i = rng.randrange(64)
    try:  # the other mutator may have shortened the list since len()
        mutated[i % max(len(mutated), 1)] = values[rng.randrange(64)]
    except IndexError:
        pass
    if rng.random() < 0.5:
        mutated.append(values[i])
    elif len(mutated) > 1:
        mutated.pop()

def convert(rng):
    a = g.asarray(mutated, dtype="float64")
    assert a.ndim == 1, a.shape
    assert set(a.tolist()) <= allowed

def exports(rng):
    n = np.from_dlpack(shared)
    t = torch.from_dlpack(shared)
    assert n[4095] == 4095.0 and float(t[17]) == 17.0
    cap = shared.__dlpack__()
    assert g.from_dlpack(cap)[5] == 5.0

def imports(rng):
    n = np.arange(100.0)
    a = g.from_dlpack(n)
    b = g.from_dlpack(torch.arange(100, dtype=torch.float32))
    assert a[99] == 99.0 and b[3] == 3.0
    assert g.asarray(n[::3])[2] == 6.0

def views(rng):
    v = shared.reshape(64, 64)[::7, 0][1:]
    assert v[0] == 448.0
    w = shared.reshape(64, 64)[::2, 1]
    assert w[1] == 129.0
    assert np.from_dlpack(w)[2] == 257.0

def pickles(rng):
    s = shared[: 512 + rng.randrange(64)]
    b = pickle.loads(pickle.dumps(s, protocol=5))
    assert b.shape == s.shape and b[511] == 511.0

def buffers(rng):
    m = memoryview(shared)
    assert m[100] == 100.0
    m.release()
    c = bytearray(b"x" * 64)
    a = g.asarray(c)
    assert a[0] == 120
    del a

def extension(rng):
    assert goext.sum(shared) == 4095 * 4096 / 2
    mine = np.full(32, 2.0)
    goext.scale_(mine, 3.0)
    assert (mine == 6.0).all()
    assert np.from_dlpack(goext.scale(shared[:8], 2.0))[7] == 14.0

{hung_child_stacks}

def forks(rng):
    pid = os.fork()
    if pid == 0:
        try:
            ok = g.arange(4).tolist() == [0, 1, 2, 3] and shared[9] == 9.0
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0, "the forked child failed"
            return
        time.sleep(0.005)
    where = stacks(pid)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child hung; its threads:\\n" + where)

# Each thread mixes all of these (its own order), the first two mutate without pause.
# Forks come in the second half only, when no extension call runs: a fork child of a
# process whose other threads run an extension's goroutines can hang in Go's runtime
# (docs/internals/fork.md, "Limits": the quiet wait before a fork is bounded).
jobs = [convert, exports, imports, views, pickles, buffers, extension]
half = stop - SECONDS / 2
first_fork = threading.Lock()  # taken once, by the first fork of the second half
fork_jobs = [j for j in jobs if j is not extension]

def worker(k):
    rng = random.Random(k)
    try:
        i = 0
        while time.monotonic() < stop:
            if k < 2:
                mutate(rng)
                continue
            now = jobs if time.monotonic() < half else fork_jobs
            job = now[rng.randrange(len(now))]
            # Thread 2 every 25th job; and the first thread into the second half,
            # whoever: a starved thread 2 (CI runs two suites on two cores; 3.13 once
            # had no fork at all in 8 s) still leaves one fork beside the others' jobs.
            every25 = k == 2 and i % 25 == 0
            if now is fork_jobs and (every25 or first_fork.acquire(blocking=False)):
                job = forks
            job(rng)
            counts[job.__name__] = counts.get(job.__name__, 0) + 1
            i += 1
    except BaseException as e:
        import traceback
        errors.append(f"thread {{k}}: " + traceback.format_exc())

before = g._live_allocations()
threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join(SECONDS + 120)
assert not any(t.is_alive() for t in threads), "a thread is stuck"
assert not errors, "\\n".join(errors)
assert set(counts) == {{j.__name__ for j in jobs}} | {{"forks"}}, counts
gc.collect()
assert g._live_allocations() == before, (before, g._live_allocations())
print("gil", getattr(sys, "_is_gil_enabled", lambda: True)(), sorted(counts.items()))
"""


def test_ten_threads_mix_everything(tmp_path):
    """Exports, imports, views, asarray of a list two threads keep changing, pickling,
    buffer exports, extension calls and forks, from 10 threads for a few seconds: nothing
    crashes, every value is right, nothing is left allocated. On a free-threaded build
    the GIL stays off throughout (the suite runs with PYTHON_GIL=0)."""
    out = run_script(
        tmp_path,
        "stress",
        STRESS.format(goext=folder("goext"), seconds=8, hung_child_stacks=HUNG_CHILD_STACKS),
        timeout=300,
    )
    if FREE_THREADED:
        assert out.split()[:2] == ["gil", "False"], out


CONTAINERS = """
import random, sys, threading, time
sys.path[:0] = [{goext3!r}]
import goext3 as m

SECONDS = {seconds}
stop = time.monotonic() + SECONDS
errors = []
calls = {{}}

# Shared by every thread: two threads change them without pause (entries set and
# deleted, the dict cleared and refilled, the list's items replaced, appended, popped),
# the others convert them. Each entry holds its own invariant (key "k7": seven items,
# or the number 7), so a torn read (a key with another's value) shows.
words = {{}}
counts = {{}}
floats = [float(i) for i in range(64)]
allowed = set(floats)

def mutate(rng):
    i = rng.randrange(64)
    k = "k%d" % i
    r = rng.random()
    if r < 0.4:
        words[k] = ["w"] * i
        counts[k] = i
    elif r < 0.8:
        words.pop(k, None)
        counts.pop(k, None)
    elif r < 0.85:
        words.clear()
        counts.clear()
    try:
        floats[i % max(len(floats), 1)] = float(rng.randrange(64))
    except IndexError:
        pass
    if rng.random() < 0.5:
        floats.append(float(i))
    elif len(floats) > 1:
        floats.pop()

def lengths(rng):  # a dict[str, list[str]] parameter
    for k, n in m.lengths(words).items():
        assert n == int(k[1:]), (k, n)

def setter(rng):  # a dict[str, int] property setter
    t = m.Tally()
    t.counts = counts
    for k, n in t.counts.items():
        assert n == int(k[1:]), (k, n)

def any_dict(rng):  # an `any` parameter: dict and list
    for k, v in m.echo_any(words).items():
        assert len(v) == int(k[1:]), (k, v)
    assert set(m.echo_any(floats)) <= allowed

def float_list(rng):  # a list[float] parameter
    assert set(m.sorted_floats(floats)) <= allowed

jobs = [lengths, setter, any_dict, float_list]

def worker(k):
    rng = random.Random(k)
    try:
        while time.monotonic() < stop:
            if k < 2:
                mutate(rng)
                continue
            job = jobs[rng.randrange(len(jobs))]
            job(rng)
            calls[job.__name__] = calls.get(job.__name__, 0) + 1
    except BaseException:
        import traceback
        errors.append(f"thread {{k}}: " + traceback.format_exc())

threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join(SECONDS + 120)
assert not any(t.is_alive() for t in threads), "a thread is stuck"
assert not errors, "\\n".join(errors)
assert set(calls) == {{j.__name__ for j in jobs}}, calls
print("gil", getattr(sys, "_is_gil_enabled", lambda: True)(), sorted(calls.items()))
"""


def test_dict_and_list_arguments_while_other_threads_change_them(tmp_path):
    """A dict[str, T] parameter, a property setter, an `any` parameter and a list[float]
    one, converted while two threads change the dict and the list: each conversion reads
    one instant's items (a copy, made under the container's lock on a free-threaded
    build), never a key with another entry's value, never freed memory. Before, on a
    free-threaded build with the GIL off: SIGSEGV in mapFromPython (PyDict_Next's
    borrowed references, read with no lock while another thread resized the dict)."""
    out = run_script(
        tmp_path,
        "containers",
        CONTAINERS.format(goext3=folder("goext3"), seconds=4),
        timeout=300,
    )
    if FREE_THREADED:
        assert out.split()[:2] == ["gil", "False"], out
