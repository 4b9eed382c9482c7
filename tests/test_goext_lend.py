"""What an extension's call lends its Go function lives as long as the call, as a C
extension's arguments do (tests/goext3, ext_lend.go):

- a callable passed for a func parameter, and an object passed as a *godlpack.Object
  (alone or in a list), are released when the call returns: they were held until Go's
  collector ran (100 payloads of 16 MB stayed alive after their calls);
- the Go function keeps one past the call only explicitly (godlpack.KeepFunc,
  Object.Keep); one stored without keeping gives a clear error when used later;
- a bound class's instance takes one Go value: a second __init__, re-entrant (from an
  argument's __index__) or from another thread while the first runs, is refused
  ("called twice") and leaks nothing (before: the first value leaked).
"""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest
from goext_build import load


@pytest.fixture(scope="module")
def m():
    return load("goext3")


class Payload:
    """A callable holding a large buffer, whose release a weak reference shows."""

    def __init__(self, size: int = 16 << 20) -> None:
        self.data = bytearray(size)

    def __call__(self, x):
        return x


def _released_when_the_call_returns(call) -> bool:
    p = Payload()
    ref = weakref.ref(p)
    call(p)
    del p
    return ref() is None  # no gc.collect(): released by the call itself, not a collector


def test_callback_argument_is_released_when_the_call_returns(m):
    assert _released_when_the_call_returns(lambda p: m.call_n(p, 2))
    assert _released_when_the_call_returns(lambda p: m.call_on_goroutine(p, 1.0))


def test_object_arguments_are_released_when_the_call_returns(m):
    assert _released_when_the_call_returns(lambda p: m.call_it(p, 1.0))
    assert _released_when_the_call_returns(lambda p: m.call_it_on_goroutine(p, 1.0))
    assert _released_when_the_call_returns(lambda p: m.call_all([p, p], 1.0))


def test_a_hundred_16mb_payloads_do_not_stay_alive(m):
    """100 calls, each given a 16 MB callable; while lent arguments were held until Go's
    collector ran, every one stayed alive after its call (+1.5 GB RSS)."""
    refs = []
    for _ in range(100):
        p = Payload()
        refs.append(weakref.ref(p))
        m.call_it(p, 1.0)
        m.call_n(p, 1)
        del p
    assert sum(r() is not None for r in refs) == 0


def test_a_stored_callback_not_kept_is_an_error_afterwards(m):
    p = Payload(16)
    ref = weakref.ref(p)
    m.store_callback(p, False)
    del p
    assert ref() is None
    with pytest.raises(
        RuntimeError,
        match=r"^godlpack: store_callback\(\): argument fn was released when the call returned "
        r"\(godlpack: the Object was closed\); keep it during the call to use it afterwards: "
        r"Object\.Keep, or godlpack\.KeepFunc for a callback$",
    ):
        m.call_stored(1.0)


def test_a_held_calls_callback_called_where_the_gil_is_released_takes_it(m):
    """A HoldGIL call's callbacks on its own thread skip taking the GIL, which that
    thread holds; a call nested in one of them that released the GIL and calls the
    outer callback from that same thread must take it (Python without it crashes)."""
    seen = []

    def fn(x):
        seen.append(x)
        return m.call_stored_released(2.0) + 1 if x == 1.0 else x * 10

    assert m.store_and_call_held(fn, 1.0) == 21.0
    assert seen == [1.0, 2.0]


def test_keepfunc_keeps_a_callback_past_the_call(m):
    seen = []

    def fn(x):
        seen.append(x)
        return x * 2

    ref = weakref.ref(fn)
    m.store_callback(fn, True)
    del fn
    assert ref() is not None  # kept: the Go code's now
    assert m.call_stored(4.0) == 8.0 and seen == [4.0]
    m.store_callback(lambda x: -x, True)  # the kept one dropped: the collector's to release
    for _ in range(200):  # Go's cleanups run on a goroutine of their own, soon after
        m.go_gc()
        m.call_stored(1.0)  # an entry into Python drops what the collector found
        if ref() is None:
            break
        time.sleep(0.01)
    assert ref() is None


def test_keepfunc_of_a_func_that_is_no_argument_is_an_error(m):
    with pytest.raises(ValueError, match=r"^godlpack: KeepFunc: not a callback argument"):
        m.keep_own_func()


def test_object_keep_keeps_an_argument_until_close(m):
    p = Payload(16)
    ref = weakref.ref(p)
    m.store_object(p, True)
    del p
    assert ref() is not None
    assert m.stored_str().startswith("<test_goext_lend.Payload object at ")
    m.close_stored()
    assert ref() is None  # Close released it, at once


def test_a_stored_object_not_kept_is_an_error_afterwards(m):
    p = Payload(16)
    ref = weakref.ref(p)
    m.store_object(p, False)
    del p
    assert ref() is None
    with pytest.raises(
        RuntimeError, match=r"^godlpack: store_object\(\): argument obj was released"
    ):
        m.stored_str()
    m.close_stored()


def test_reentrant_init_from_an_argument_is_refused_and_leaks_nothing(m):
    """The argument's __index__ runs __init__ on the same (__new__-made) instance while
    the outer __init__ converts it: the inner one is refused, the outer one makes the
    value, and nothing leaks (before: both stored a value, the first one leaked)."""
    gc.collect()
    before = m.live_instances()
    g = m.Gauge.__new__(m.Gauge)
    inner = []

    class Start:
        def __init__(self, target):
            self.target = target

        def __index__(self):
            try:
                self.target.__init__(5)
            except RuntimeError as e:
                inner.append(str(e))
            return 7

    g.__init__(Start(g))
    assert inner == ["goext3.Gauge.__init__() called twice on one instance"]
    assert g.i64 == 7 and m.live_instances() == before + 1
    with pytest.raises(RuntimeError, match=r"called twice"):
        g.__init__(1)
    del g
    gc.collect()
    assert m.live_instances() == before


def test_concurrent_init_of_one_instance_takes_one_value(m):
    """8 threads call __init__ of one __new__-made instance at once, 200 times: one
    __init__ wins each time, the others are refused, and LiveInstances comes back
    (before: 170-234 of 200 values leaked)."""
    gc.collect()
    before = m.live_instances()
    wins, refused, errors = [], [], []

    def init(g, barrier: threading.Barrier, k: int) -> None:
        barrier.wait()
        try:
            g.__init__(k)
            wins.append(k)
        except RuntimeError as e:  # kept as text: a traceback would hold g's frame
            (refused if "called twice" in str(e) else errors).append(str(e))
        except BaseException as e:  # reported below
            errors.append(repr(e))

    for _ in range(200):
        g = m.Gauge.__new__(m.Gauge)
        barrier = threading.Barrier(8)
        threads = [threading.Thread(target=init, args=(g, barrier, k)) for k in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        assert g.i64 == wins[-1]
        del g
    gc.collect()
    assert errors == []
    assert len(wins) == 200 and len(refused) == 200 * 7
    assert m.live_instances() == before


def test_a_failed_init_may_be_retried(m):
    gc.collect()
    before = m.live_instances()
    g = m.Gauge.__new__(m.Gauge)
    with pytest.raises(TypeError):
        g.__init__("x")
    g.__init__(3)
    assert g.i64 == 3
    del g
    gc.collect()
    assert m.live_instances() == before
