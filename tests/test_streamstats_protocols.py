"""The Python protocols of examples/streamstats' Histogram (docs/classes.md): iter(h), a
lazy iterator over a Go iter.Seq; memoryview(h), a read-only zero-copy view of the counts
(ClassDef.Buffer) that keeps h alive; pickling (ClassDef.Pickle: pickle, copy, a spawned
multiprocessing worker, Dask's and Ray's worker processes); and the mechanics under it on
tests/goext3 (an iter.Seq2's pairs, a Go panic in a sequence, an abandoned iterator ending
its sequence, two threads pulling one iterator, an iterator alive at exit), each
crash-prone case in a child interpreter."""

from __future__ import annotations

import copy
import gc
import io
import itertools
import pickle
import textwrap
import time
import weakref

import numpy as np
import pytest
from conftest import run_python, run_script, why_unpinned
from goext_build import folder, load


@pytest.fixture(scope="module")
def ss():
    return load("streamstats")


@pytest.fixture(scope="module")
def goext3():
    return load("goext3")


def test_iter_yields_each_bin_as_a_tuple_then_stops(ss):
    h = ss.Histogram(4)
    h.add(np.array([0.1, 0.3, 0.35, 2.0]))
    it = iter(h)
    assert iter(it) is it
    assert list(it) == [(0.0, 0.25, 1), (0.25, 0.5, 2), (0.5, 0.75, 0), (0.75, 1.0, 0)]
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):  # for good
        next(it)
    assert list(itertools.islice(iter(h), 2)) == [(0.0, 0.25, 1), (0.25, 0.5, 2)]
    left, right, count = next(iter(ss.Histogram(2, lo=-1.0, hi=3.0)))
    assert (type(left), type(right), type(count)) == (float, float, int)
    assert (left, right, count) == (-1.0, 1.0, 0)


def test_iter_is_lazy_each_bin_read_when_it_is_yielded(ss):
    """Not a list made first: a bin added to after the first next() shows its new count."""
    h = ss.Histogram(3, hi=3.0)
    it = iter(h)
    assert next(it) == (0.0, 1.0, 0)
    h.add(np.array([0.5, 1.5, 2.5]))  # the consuming loop may add: no lock across a yield
    assert list(it) == [(1.0, 2.0, 1), (2.0, 3.0, 1)]


def test_iter_seq2_yields_pairs_and_seq_plain_items(goext3):
    assert list(goext3.pairs(["a", "b"])) == [(0, "a"), (1, "b")]
    assert list(goext3.countdown(3)) == [2, 1, 0]
    assert list(goext3.countdown(0)) == []


def test_a_go_panic_in_a_sequence_is_runtime_error_then_the_end(goext3):
    it = goext3.countdown(-1)
    with pytest.raises(
        RuntimeError, match=r"countdown\(\): Go panic in the iterator: countdown of a negative n"
    ):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert goext3.running_countdowns() == 0


def wait_for_no_countdowns(goext3) -> int:
    """The stop of an abandoned iterator's sequence runs on a goroutine: give it a moment."""
    deadline = time.monotonic() + 10
    while goext3.running_countdowns() != 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return goext3.running_countdowns()


def test_an_abandoned_iterator_ends_its_sequence(goext3):
    """Dropped halfway, the iterator stops its sequence (its deferred calls run): no
    goroutine is left waiting for a next() that never comes."""
    for _ in range(200):
        it = goext3.countdown(1000)
        assert next(it) == 999
        del it
    assert wait_for_no_countdowns(goext3) == 0
    its = [goext3.countdown(5) for _ in range(100)]  # never started: nothing runs
    assert goext3.running_countdowns() == 0
    del its
    assert list(itertools.islice(goext3.countdown(10**9), 3)) == [10**9 - 1, 10**9 - 2, 10**9 - 3]
    assert wait_for_no_countdowns(goext3) == 0


def test_two_threads_pull_one_iterator_and_another_thread_than_its_maker(goext3):
    """Every item exactly once, no crash (free-threaded too: the next() calls take turns
    in Go); next() from a thread other than the one that made the iterator works (an
    iter.Pull coroutine made on a cgo callback's locked thread would end the process)."""
    code = textwrap.dedent(
        """
        import threading, goext3
        n = 20000
        it = goext3.countdown(n)
        got = [[] for _ in range(4)]
        def pull(k):
            for x in it:
                got[k].append(x)
        ts = [threading.Thread(target=pull, args=(k,)) for k in range(4)]
        for t in ts: t.start()
        for t in ts: t.join()
        items = sorted(x for g in got for x in g)
        assert items == list(range(n)), (len(items), items[:5])
        other = goext3.countdown(3)
        box = []
        t = threading.Thread(target=lambda: box.extend(other))
        t.start(); t.join()
        assert box == [2, 1, 0], box
        print("ok", goext3.running_countdowns())
        """
    )
    r = run_python(code, timeout=120, env_extra={"PYTHONPATH": folder("goext3")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok", "0"]


def test_an_iterator_alive_at_exit_lets_the_interpreter_end(goext3):
    code = textwrap.dedent(
        """
        import goext3
        it = goext3.countdown(10)
        next(it)
        keep = [goext3.countdown(3) for _ in range(3)]
        print("done")
        """
    )
    r = run_python(code, timeout=60, env_extra={"PYTHONPATH": folder("goext3")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "done"


# --------------------------------------------------------------------------------------
# memoryview(h): the buffer protocol (ClassDef.Buffer)
# --------------------------------------------------------------------------------------


def test_memoryview_is_a_read_only_zero_copy_view_of_the_counts(ss):
    h = ss.Histogram(4)
    h.add(np.array([0.1, 0.3, 0.35, 2.0]))
    m = memoryview(h)
    assert (m.format, m.shape, m.itemsize, m.readonly, m.ndim) == ("q", (4,), 8, True, 1)
    assert m.c_contiguous and m.tolist() == [1, 2, 0, 0]
    a = np.asarray(h)
    assert a.dtype == np.int64 and a.shape == (4,) and not a.flags.writeable
    np.testing.assert_array_equal(a, h.counts())
    h.add(np.array([0.9, 0.95]))  # the views show Go's memory: no copy was made
    assert m.tolist() == [1, 2, 0, 2]
    np.testing.assert_array_equal(a, [1, 2, 0, 2])
    with pytest.raises(TypeError, match="read-only"):
        m[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5
    with pytest.raises(TypeError):  # a writable request: BufferError in the class's slot
        io.BytesIO(b"x" * 32).readinto(h)
    assert h.counts().tolist() == [1, 2, 0, 2]
    assert bytes(h) == np.array([1, 2, 0, 2], np.int64).tobytes()
    m.release()


def test_a_view_keeps_its_histogram_alive(ss):
    h = ss.Histogram(3)
    h.add(np.array([0.5]))
    gone = weakref.ref(h)
    m, a = memoryview(h), np.asarray(h)
    del h
    gc.collect()
    assert gone() is not None and m.tolist() == [0, 1, 0] and a[1] == 1
    m.release()
    del a
    gc.collect()
    assert gone() is None


def test_a_subclass_without_its_go_value_refuses_a_view(ss):
    class Lazy(ss.Histogram):
        def __init__(self):  # the bound __init__ not called: no Go value
            pass

    with pytest.raises(BufferError, match="no Go value to view"):
        memoryview(Lazy())
    assert memoryview(ss.Histogram.from_counts([3, 4])).tolist() == [3, 4]


def test_views_made_and_released_while_threads_add(ss):
    """Views pin the counts while 4 threads add and 4 make, read and drop views (the
    free-threaded build without the GIL too): in a child, no crash, the totals right."""
    code = textwrap.dedent(
        """
        import threading, numpy as np, streamstats
        h = streamstats.Histogram(8)
        x = np.full(100, 0.5)
        def add():
            for _ in range(200):
                h.add(x)
        def view():
            for _ in range(2000):
                m = memoryview(h)
                assert m.shape == (8,) and sum(m.tolist()) >= 0
                m.release()
                a = np.asarray(h)
                assert a.shape == (8,)
        ts = [threading.Thread(target=f) for f in [add] * 4 + [view] * 4]
        for t in ts: t.start()
        for t in ts: t.join()
        print(memoryview(h).tolist()[4], h.count)
        """
    )
    r = run_python(code, timeout=180, env_extra={"PYTHONPATH": folder("streamstats")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["80000", "80000"]


# --------------------------------------------------------------------------------------
# Pickling (ClassDef.Pickle): pickle, copy, multiprocessing
# --------------------------------------------------------------------------------------


def filled(ss):
    h = ss.Histogram(4, lo=-1.0, hi=1.0)
    h.add(np.array([-0.9, -0.2, 0.1, 0.6, 0.7, 5.0, np.nan]))
    h.name = "run 7"
    return h


def same_histogram(a, b) -> None:
    assert (a.bins, a.lo, a.hi, a.name, a.count, a.outside) == (
        b.bins,
        b.lo,
        b.hi,
        b.name,
        b.count,
        b.outside,
    )
    np.testing.assert_array_equal(a.counts(), b.counts())


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_and_copies_give_an_equal_independent_histogram(ss, protocol):
    h = filled(ss)
    back = pickle.loads(pickle.dumps(h, protocol))
    assert type(back) is ss.Histogram and back is not h
    same_histogram(back, h)
    for c in (copy.deepcopy(h), copy.copy(h)):
        same_histogram(c, h)
        c.add(np.array([0.0]))  # its own Go value: h is unchanged
        assert c.count == h.count + 1
    assert h.__getstate__() == (4, -1.0, 1.0, "run 7", 7, 2, [1, 1, 1, 2])


def test_a_subclass_pickles_as_the_subclass(ss):
    class Tagged(ss.Histogram):
        pass

    globals()["Tagged"] = Tagged  # pickled by reference, as a module-level class is
    Tagged.__qualname__ = "Tagged"
    try:
        t = Tagged.from_counts([2, 3])
        back = pickle.loads(pickle.dumps(t))
        assert type(back) is Tagged
        assert back.counts().tolist() == [2, 3] and back.count == 5
    finally:
        del globals()["Tagged"]


def test_setstate_is_for_unpickling_only(ss):
    h = filled(ss)
    with pytest.raises(RuntimeError, match="on an instance that has its Go value"):
        h.__setstate__(h.__getstate__())
    fresh = ss.Histogram.__new__(ss.Histogram)
    with pytest.raises(TypeError, match="the state must be a tuple"):
        fresh.__setstate__([1])
    with pytest.raises(ValueError, match="1 counts for 2 bins"):
        fresh.__setstate__((2, 0.0, 1.0, "", 0, 0, [1]))
    fresh.__setstate__((2, 0.0, 1.0, "x", 1, 0, [1, 0]))  # a failed one gave the claim back
    assert fresh.counts().tolist() == [1, 0] and fresh.name == "x"


def test_histograms_travel_to_a_spawned_worker_and_back(ss):
    """multiprocessing (spawn: a fresh interpreter importing streamstats) takes a
    Histogram as an argument and returns one: both pickled."""
    code = textwrap.dedent(
        """
        import copy, multiprocessing, operator, numpy as np, streamstats
        if __name__ == "__main__":
            h = streamstats.Histogram(4)
            h.add(np.array([0.1, 0.3, 0.35, 0.9]))
            h.name = "sent"
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                counts = pool.apply(operator.methodcaller("counts"), (h,))
                back = pool.apply(copy.copy, (h,))
                name = pool.apply(getattr, (h, "name"))
            print(counts.tolist(), back.counts().tolist(), back.count, name, back.name)
        """
    )
    r = run_python(code, timeout=180, env_extra={"PYTHONPATH": folder("streamstats")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[1, 2, 0, 1] [1, 2, 0, 1] 4 sent sent"


# A worker fills the Histogram it was sent and sends it back; the sender's is unchanged.
ENGINE_WORK = """
import os
import numpy as np
import streamstats

def fill(h, xs):
    h.add(np.asarray(xs))
    return h, os.getpid()

def combine(a, b):
    return streamstats.merged(a, b)

def sent():
    h = streamstats.Histogram(4)
    h.name = "sent"
    h.add(np.array([0.1, 0.3]))
    return h

def report(h, back, both, pid):
    assert pid != os.getpid()  # computed in a worker process
    print(back.counts().tolist(), back.count, back.name, h.counts().tolist(),
          both.counts().tolist(), type(both).__name__)
"""
ENGINE_REPORT = "[1, 2, 0, 1] 4 sent [1, 1, 0, 0] [2, 3, 0, 1] Histogram"

DASK_HISTOGRAMS = (
    ENGINE_WORK
    + """
from dask.distributed import Client, LocalCluster

if __name__ == "__main__":
    h = sent()
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        back, pid = client.submit(fill, h, [0.35, 0.9]).result()
        both = client.submit(combine, h, back).result()
    report(h, back, both, pid)
"""
)

RAY_HISTOGRAMS = (
    ENGINE_WORK
    + """
import ray

if __name__ == "__main__":
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a local test cluster: no token
    ray.init(num_cpus=1, object_store_memory=96 << 20, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    try:
        h = sent()
        back, pid = ray.get(ray.remote(fill).remote(ray.put(h), [0.35, 0.9]))
        both = ray.get(ray.remote(combine).remote(h, back))
    finally:
        ray.shutdown()
    report(h, back, both, pid)
"""
)


def test_histograms_travel_through_dask_worker_processes(ss, tmp_path, monkeypatch):
    """A Dask LocalCluster's worker process (importing streamstats) takes Histograms as
    task arguments and returns them: pickled both ways by ClassDef.Pickle."""
    monkeypatch.setenv("PYTHONPATH", folder("streamstats"))
    out = run_script(tmp_path, "dask_histograms", DASK_HISTOGRAMS, timeout=180)
    assert out.strip().splitlines()[-1] == ENGINE_REPORT


@pytest.mark.skipif(why_unpinned("ray") is not None, reason=str(why_unpinned("ray")))
def test_histograms_travel_through_ray_tasks_and_its_object_store(ss, tmp_path, monkeypatch):
    """Ray's tasks (worker processes) take a Histogram from the object store (ray.put)
    and as a plain argument, and return them."""
    monkeypatch.setenv("PYTHONPATH", folder("streamstats"))
    out = run_script(tmp_path, "ray_histograms", RAY_HISTOGRAMS, timeout=180)
    assert out.strip().splitlines()[-1] == ENGINE_REPORT


# --------------------------------------------------------------------------------------
# Operators: ==, hash, +, h[i] (Def of __eq__, __add__, __getitem__)
# --------------------------------------------------------------------------------------


def test_eq_compares_bins_lo_hi_and_counts_and_h_is_unhashable(ss):
    a, b = ss.Histogram(4), ss.Histogram(4)
    a.add(np.array([0.1, 0.6]))
    b.add(np.array([0.15, 0.65, 7.0]))  # same counts: outside and count are not compared
    b.name = "other"
    assert a == b and not (a != b) and a == a
    assert a != ss.Histogram(4) and a != ss.Histogram(4, hi=2.0) and a != ss.Histogram(3)
    assert a != 1 and not (a == "x") and a != None  # noqa: E711 (NotImplemented: identity)
    with pytest.raises(TypeError, match="unhashable type"):
        hash(a)
    assert ss.Histogram.__hash__ is None


def test_add_sums_counts_into_a_new_histogram(ss):
    a = ss.Histogram(4, hi=2.0)
    a.add(np.array([0.1, 0.6, 9.0]))
    b = ss.Histogram.from_counts([1, 0, 0, 5], hi=2.0)
    c = a + b
    assert type(c) is ss.Histogram and c is not a and c is not b
    assert c.counts().tolist() == [2, 1, 0, 5] and c.count == 9 and c.outside == 1
    assert (c.bins, c.lo, c.hi) == (4, 0.0, 2.0)
    assert a.counts().tolist() == [1, 1, 0, 0]  # unchanged
    assert (a + a).counts().tolist() == [2, 2, 0, 0]
    with pytest.raises(ValueError, match="they must match"):
        a + ss.Histogram(4)  # another hi
    with pytest.raises(ValueError, match="they must match"):
        a + ss.Histogram(3, hi=2.0)
    with pytest.raises(
        TypeError, match=r"__add__\(\): argument other: expected Histogram, got int"
    ):
        a + 1
    with pytest.raises(TypeError, match="unsupported operand"):
        1 + a


def test_getitem_is_a_bins_count_negative_from_the_end(ss):
    h = ss.Histogram.from_counts([4, 5, 6])
    assert [h[0], h[1], h[2]] == [4, 5, 6]
    assert [h[-1], h[-3]] == [6, 4]
    for i in (3, -4, 10**6):
        with pytest.raises(IndexError, match=r"Histogram index out of range \(3 bins\)"):
            h[i]
    with pytest.raises(TypeError, match="argument i: expected an int, got str"):
        h["0"]
