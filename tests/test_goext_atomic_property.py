"""AtomicProperty (a property read faster than a call into Go): a read-only property that
C loads from the instance's pinned Go value with no call into Go. tests/goext3's Gauge
has one field of each sync/atomic kind among Go pointers and padding; its bump changes
them from goroutines, the GIL released, while Python threads read them; the value is
pinned at its first read and released with the instance, even after the Go collector
ran."""

from __future__ import annotations

import gc
import threading

import pytest
from conftest import run_python
from goext_build import folder, load


@pytest.fixture(scope="module")
def m():
    return load("goext3")


def test_each_kind_reads_its_field(m):
    g = m.Gauge(-(2**40))
    assert (g.i64, g.u64, g.i32, g.u32, g.on) == (-(2**40), 2**63, -5, 3_000_000_000, False)
    assert type(g.on) is bool and type(g.i64) is int and type(g.u64) is int
    g.bump(3)
    want = (-(2**40) + 12, 2**63 + 12, -17, 3_000_000_012, True)
    assert (g.i64, g.u64, g.i32, g.u32, g.on) == want
    assert g.label == "gauge -1099511627776"  # a getter's call beside them
    assert "start + 4n" in m.Gauge.i64.__doc__


def test_read_only_as_any_read_only_property(m):
    g = m.Gauge(1)
    with pytest.raises(AttributeError, match=r"^property of 'goext3.Gauge' object is read-only$"):
        g.i64 = 3
    with pytest.raises(AttributeError, match=r"^cannot delete a property of a Go class$"):
        del g.on
    assert g.i64 == 1


def test_reads_race_no_write(m):
    """Python threads read while goroutines write (bump releases the GIL): every read
    is a value some write stored (i64 and i32 move one way only), the last the sum."""
    g = m.Gauge(0)
    stop = threading.Event()
    bad = []

    def reader():
        last_i64, last_i32 = 0, -5
        while not stop.is_set():
            i64, i32 = g.i64, g.i32
            if i64 < last_i64 or i32 > last_i32 or i64 > 4000 or i32 < -4005:
                bad.append((i64, i32))
            last_i64, last_i32 = i64, i32

    readers = [threading.Thread(target=reader) for _ in range(3)]
    for t in readers:
        t.start()
    bumpers = [threading.Thread(target=g.bump, args=(250,)) for _ in range(4)]
    for t in bumpers:
        t.start()
    for t in bumpers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert bad == []
    assert (g.i64, g.i32, g.u64 - 2**63, g.u32 - 3_000_000_000) == (4000, -4005, 4000, 4000)


def test_subclass_moves_the_value_and_its_pin(m):
    class Sub(m.Gauge):
        def __init__(self, start):
            super().__init__(start)

    s = Sub(7)
    assert s.i64 == 7
    s.bump(1)
    assert (s.i64, s.on) == (11, True)

    class NoInit(m.Gauge):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match=r"was not initialized"):
        _ = NoInit().i64


def test_pinned_values_released_with_their_instances(m):
    gc.collect()
    base = m.live_instances()
    gauges = [m.Gauge(i) for i in range(2000)]
    assert [g.i64 for g in gauges] == list(range(2000))  # each pinned at its first read
    assert m.live_instances() == base + 2000
    del gauges
    gc.collect()
    assert m.live_instances() == base


def test_reads_after_go_collections_and_reuse():
    """Values pinned, unpinned at dealloc, their ids reused, the Go collector run in
    between: each read is its own instance's value (in a child: a crash fails the test)."""
    code = """
import goext3 as m
for round in range(50):
    gauges = [m.Gauge(round * 1000 + i) for i in range(200)]
    for i, g in enumerate(gauges):
        assert g.i64 == round * 1000 + i and g.u32 == 3_000_000_000
    del gauges[::2]
    m.go_gc()
    for j, g in enumerate(gauges):
        assert g.i64 == round * 1000 + 2 * j + 1, (round, j, g.i64)
    m.go_gc()
print("ok")
"""
    r = run_python(code, timeout=120, env_extra={"PYTHONPATH": folder("goext3")})
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
