"""A bound class's instances keep their Go values in Go's instance table and
release them at dealloc (ext_instance_table.go, ext_class.c's gd_ext_instance_release;
docs/internals/classes.md, "The instance table"): every value is released exactly once,
at its instance's dealloc, whatever the threads, the forks and the interpreter's exit,
and live_instances counts exactly. tests/goext3's Bag: __len__, copy."""

from __future__ import annotations

import sysconfig
import threading

import pytest
from conftest import run_python
from goext_build import folder, load


@pytest.fixture(scope="module")
def m():
    return load("goext3")


def test_each_dealloc_releases_at_once(m):
    """The Go value goes with its instance, not later: the count is exact right after
    the deallocs, however few (batched releases, one call per 64 deallocs, kept up
    to 63 values past their instances)."""
    import gc

    gc.collect()
    before = m.live_instances()
    for n in (1, 3, 63, 64, 65, 200):
        bags = [m.Bag(["x"]) for _ in range(n)]
        assert m.live_instances() == before + n
        del bags
        assert m.live_instances() == before, n


def test_a_dropped_value_is_freed_with_no_call_into_go(m):
    """A dealloc queues its id in C, and Go empties the slots at its calls' entries
    and after every collection: a collection that a goroutine alone starts frees the
    value too, while Python makes no call into Go (it waits on a pipe)."""
    import os

    r, w = os.pipe()
    try:
        bag = m.Bag(["x"])
        m.signal_when_freed(bag, w)
        del bag
        assert os.read(r, 1) == b"\x01", "the value was still held after 20 s of collections"
    finally:
        os.close(r)
        os.close(w)


def test_a_creation_takes_a_dropped_id_or_frees_it(m):
    """A call returning a *T keeps, at its entry, the id of an instance dropped before
    it (emptied) for the instance it makes; one that makes none (None, an error, a
    panic) frees it at its end. The count stays exact, ids are not lost or shared, and
    every instance keeps its own value."""
    import gc

    gc.collect()
    before = m.live_instances()
    kept = []
    for i, how in enumerate(["bag", "nil", "error", "panic"] * 25):
        dropped = [m.Bag([how, str(k)]) for k in range(i % 4)]  # 0-3 ids queued
        del dropped
        if how == "bag":
            kept.append((m.bag_if("bag"), m.Bag([str(i)])))
        elif how == "nil":
            assert m.bag_if("nil") is None
        elif how == "error":
            with pytest.raises(ValueError, match="asked for an error"):
                m.bag_if("error")
        else:
            with pytest.raises(RuntimeError, match="asked to panic"):
                m.bag_if("panic")
        assert m.live_instances() == before + 2 * len(kept), (i, how)
    for i, (made, own) in enumerate(kept):
        assert list(made) == ["made"] and list(own) == [str(4 * i)]
    del kept, made, own
    assert m.live_instances() == before


def test_class_method_results_are_released_once(m):
    """A class method's *T result is one instance, released at its dealloc; called with
    a class that is no subclass, the Go value it made is released at once (TypeError)."""
    import gc
    import inspect

    gc.collect()
    before = m.live_instances()
    bags = [m.Bag.of(["x", str(i)]) for i in range(50)]
    assert type(bags[0]) is m.Bag and list(bags[7]) == ["x", "7"]
    assert m.live_instances() == before + 50
    del bags
    assert m.live_instances() == before
    fn = inspect.getattr_static(m.Bag, "of").__func__
    for _ in range(20):
        with pytest.raises(TypeError, match=r"class method: <class 'dict'> is not a subclass"):
            fn(dict, ["y"])
    assert m.live_instances() == before


def test_threads_create_call_and_drop(m):
    """Eight threads making, using and dropping instances at once (in parallel on a
    free-threaded build): each reads its own values back, none is lost or released
    twice."""
    before = m.live_instances()
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(2000):
                b = m.Bag([str(k), str(i)])
                c = b.copy()
                assert len(c) == 2 and list(c) == [str(k), str(i)] and b == c
                del b, c
        except BaseException as e:  # noqa: BLE001 (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert m.live_instances() == before


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no os.fork")
def test_fork_child_releases():
    """A child forked while a thread makes and drops instances goes on releasing
    and counting in the child."""
    code = """
import os, threading, goext3 as m
keep = [m.Bag(["x"]) for _ in range(100)]
base = m.live_instances() - 100
stop = threading.Event()
def churn():
    while not stop.is_set():
        m.Bag(["y"]).copy()
t = threading.Thread(target=churn)
t.start()
del keep[:30]
pid = os.fork()
if pid == 0:
    ok = True
    try:
        bags = [m.Bag(["z"]) for _ in range(500)]
        del bags
        # keep's 70, and what the churn thread held at the fork (a Bag and its copy),
        # which no thread of the child will ever drop
        ok = 70 <= m.live_instances() - base <= 70 + 2
    finally:
        os._exit(0 if ok else 3)
stop.set()
t.join()
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
del keep
assert m.live_instances() == base, m.live_instances() - base
print("ok")
"""
    r = run_python(code, timeout=120, env_extra={"PYTHONPATH": folder("goext3")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")


def test_instances_alive_at_exit():
    """Instances still alive when the interpreter exits (a module global, a cycle
    through a list, a thread's) are released during and after finalization with no
    error: a release only empties a slot of Go's table, which needs no interpreter."""
    code = """
import threading, goext3 as m
keep = [m.Bag([str(i)]) for i in range(1000)]
cycle = [m.Bag(["c"])]
cycle.append(cycle)
def worker():
    local = [m.Bag(["t"]) for _ in range(100)]
    threading.Event().wait(0.05)
threading.Thread(target=worker, daemon=True).start()
print(m.live_instances() >= 1001)
"""
    r = run_python(code, timeout=120, env_extra={"PYTHONPATH": folder("goext3")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True" and r.stderr == ""


@pytest.mark.skipif(
    not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="a free-threaded CPython only"
)
def test_threads_without_the_gil():
    """PYTHON_GIL=0: the table's slots and free list race for real."""
    code = """
import threading, goext3 as m
before = m.live_instances()
def work():
    for i in range(3000):
        b = m.Bag(["a"])
        assert len(b.copy()) == 1
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
assert m.live_instances() == before
print("ok")
"""
    r = run_python(code, timeout=300, env_extra={"PYTHONPATH": folder("goext3"), "PYTHON_GIL": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
