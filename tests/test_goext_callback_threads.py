"""Callbacks that an extension's Go code runs on goroutines of its own (tests/goext3):
each in a child process, since what they guard against aborted (thread exhaustion) or
hung the whole process.

- A callback that calls the extension again, whose Go code calls back on a new goroutine
  again, held one OS thread per level until Go aborted at 10,000: RecursionError now,
  the process left usable (ext_lend_cpython.go, hops).
- A function not declared ReleaseGIL that calls back from a goroutine hung for ever in
  a process with one Python thread (its caller's thread held the GIL the goroutine
  waited for): by default such a function releases the GIL; one declared HoldGIL
  raises RuntimeError naming ReleaseGIL.
- os.fork() in a callback run on a goroutine's thread made a child that could never
  return to Python (its caller's thread is not copied): refused in the parent
  (internal/forksafe/guard.c). A fork in a callback run on the calling thread still continues in
  the child.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from conftest import GODLPACK_PATH
from goext_build import folder


def _run(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs code in a child interpreter in a session of its own, goext3 importable; a
    hang kills the session (forked grandchildren included) and fails the test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([GODLPACK_PATH, folder("goext3")])
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"the child hung for {timeout} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("fn", ["call_on_goroutine", "call_on_goroutine_default"])
def test_callbacks_reentering_through_new_goroutines_raise_recursion_error(fn):
    """Each level runs the callback on a new goroutine, which calls the function again:
    the hops are counted along the chain, across threads, and the one past
    sys.getrecursionlimit() raises RecursionError (before: thread exhaustion, the
    process aborted). The threads are given back: the process goes on calling."""
    proc = _run(
        f"""
import sys, threading, goext3
sys.setrecursionlimit(150)
fn, depth = goext3.{fn}, []
def again(x):
    depth.append(x)
    return fn(again, x + 1)
try:
    fn(again, 0.0)
except RecursionError as e:
    print("RecursionError", len(depth), e)
print(goext3.call_on_goroutine(lambda x: x * 2, 21.0), goext3.call_n(lambda i: None, 3))
""",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "thread exhaustion" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(
        f"RecursionError 150 maximum recursion depth exceeded in {fn}(): 151"
    )
    assert "sys.getrecursionlimit()" in lines[0]
    assert lines[1] == "42.0 3"


def test_recursion_on_the_calling_thread_is_pythons_own():
    """A callback run on the calling thread adds no hop: Python's own recursion limit
    stops such a chain, as for any C extension."""
    proc = _run(
        """
import sys, goext3
sys.setrecursionlimit(200)
def again(i):
    goext3.call_n(again, 1)
try:
    goext3.call_n(again, 1)
except RecursionError as e:
    print("RecursionError", "goroutines" in str(e))
"""
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["RecursionError False"]


def test_default_function_calls_back_from_a_goroutine_with_one_python_thread():
    """call_on_goroutine_default is not declared ReleaseGIL: with no other Python thread
    alive its call used to keep the GIL, which its goroutine's callback waited for
    while the call waited for the goroutine (hung for ever). A function taking
    callbacks or Objects now releases the GIL by default; so does *Object's."""
    proc = _run(
        """
import threading, goext3
assert threading.active_count() == 1
print(goext3.call_on_goroutine_default(lambda x: x * 2, 21.0))
print(goext3.call_it_on_goroutine(lambda v: [v, v + 1], 2.0))
"""
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["42.0", "[2.0, 3.0]"]


def test_holdgil_function_calling_back_from_a_goroutine_names_releasegil():
    """HoldGIL keeps the GIL for the call: its goroutine's callback could never take
    it, so the callback raises RuntimeError naming ReleaseGIL (Keep's rule), in any
    process; a callback on the calling thread still runs."""
    proc = _run(
        """
import goext3
try:
    goext3.call_on_goroutine_held(lambda x: x * 2, 21.0)
except RuntimeError as e:
    print("RuntimeError", e)
print(goext3.call_on_goroutine(lambda x: x + 1, 1.0))
"""
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == (
        "RuntimeError godlpack: call_on_goroutine_held(): argument fn used from a goroutine "
        "other than the function's own while the call holds the GIL (HoldGIL): the goroutine "
        "would wait for the GIL for ever; declare the function with ReleaseGIL()"
    )
    assert lines[1] == "2.0"


_FORK_IN_CALLBACK = """
import os, sys, time, goext3
def forks(x):
    return float(os.fork())
try:
    pid = int(goext3.call_on_goroutine(forks, 1.0))
except RuntimeError as e:
    print("refused:", e)
    print(goext3.call_on_goroutine(lambda x: x * 2, 21.0))
    sys.exit(0)
if pid == 0:
    print("child returned to Python", flush=True)
    os._exit(0)
for _ in range(200):
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("child exited", status)
        break
    time.sleep(0.05)
else:
    print("child hung")
    os.kill(pid, 9)
"""


def test_fork_in_a_callback_on_a_goroutine_is_refused():
    """The child of a fork made on a goroutine's thread has that thread only, not the
    one whose call waits for the goroutine: it never came back to Python (it hung).
    os.fork() raises RuntimeError there, in the parent, and makes no child."""
    proc = _run(_FORK_IN_CALLBACK)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(
        "refused: os.fork() in Python code that Go runs on a goroutine's thread"
    ), proc.stdout
    assert "spawn or forkserver" in lines[0]
    assert lines[1:] == ["42.0"]


def test_fork_in_a_callback_on_the_calling_thread_continues_in_the_child():
    """A callback that runs on the calling thread may fork: the child returns from the
    callback, from the Go function and to its Python caller, as the parent does."""
    proc = _run(
        """
import os, goext3
pids = []
goext3.call_n(lambda i: pids.append(os.fork()), 1)
if pids[0] == 0:
    print("child", goext3.call_on_goroutine(lambda x: x * 2, 21.0), flush=True)
    os._exit(0)
_, status = os.waitpid(pids[0], 0)
print("parent", status)
"""
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == ["child 42.0", "parent 0"]
