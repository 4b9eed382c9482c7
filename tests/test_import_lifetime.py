"""Lifetime of imported tensors: who keeps the producer's memory alive, when the
producer's deleter runs (exactly once, after the last holder is gone, from any thread),
and that import cycles leak nothing (godlpack._live_allocations() and RSS)."""

from __future__ import annotations

import ctypes
import threading
import weakref

import godlpack as g
import numpy as np
import pytest
import torch
from _malformed import (
    CODE_FLOAT,
    DELETER,
    DLManagedTensor,
    DLManagedTensorVersioned,
    Producer,
    capsule_name,
    collect,
    consume,
    filled,
    full_collect,
    gc_frozen,
)
from conftest import FREE_THREADED
from torch.utils.dlpack import to_dlpack

MiB = 1 << 20


@pytest.fixture(autouse=True, scope="module")
def _gc_frozen():
    with gc_frozen():
        yield


def helper_tensor(n=8, **kw):
    kw.setdefault("shape", (n,))
    return filled(np.arange(n, dtype=np.float64).tobytes(), dtype=(CODE_FLOAT, 64, 1), **kw)


# --------------------------------------------------------------------------------------
# The producer object dies first
# --------------------------------------------------------------------------------------


def test_numpy_array_deleted_first_stays_alive_for_the_godlpack_array():
    n = np.arange(1000, dtype=np.int32)
    alive = weakref.ref(n)
    a = g.from_dlpack(n)
    del n
    full_collect()
    assert alive() is not None, "the NumPy array must live as long as the import"
    assert a.tolist() == list(range(1000))
    a[5] = -5
    assert alive()[5] == -5
    del a
    assert alive() is None, "the last holder gone, NumPy's deleter released the array"


def test_numpy_view_deleted_first_keeps_its_base_alive():
    owner = np.arange(24.0)
    alive = weakref.ref(owner)  # the array that owns the memory: every view's base
    base = owner.reshape(4, 6)
    a = g.from_dlpack(base[1:, ::-2])
    del owner, base
    full_collect()
    assert alive() is not None
    assert a.tolist() == [[11.0, 9.0, 7.0], [17.0, 15.0, 13.0], [23.0, 21.0, 19.0]]
    del a
    full_collect()
    assert alive() is None


@pytest.mark.parametrize("route", ["exchange-api", "capsule", "dlpack-method"])
def test_torch_tensor_deleted_first_leaves_the_array_readable(route):
    t = torch.arange(4096, dtype=torch.int64) * 3
    ptr = t.data_ptr()
    if route == "exchange-api":
        a = g.from_dlpack(t)
    elif route == "capsule":
        a = g.from_dlpack(to_dlpack(t))
    else:
        a = g.from_dlpack(t, device="cpu")
    del t
    full_collect()
    # Same-sized allocations would reuse freed storage and overwrite it.
    junk = [torch.full((4096,), -1, dtype=torch.int64) for _ in range(32)]
    assert a.data_ptr == ptr
    assert all(j.data_ptr() != ptr for j in junk)
    assert a.tolist() == [3 * i for i in range(4096)]
    del junk


# --------------------------------------------------------------------------------------
# Views and re-exports hold the producer's tensor
# --------------------------------------------------------------------------------------


def test_views_of_an_imported_array_keep_the_tensor_until_the_last_is_gone():
    p = helper_tensor(12, shape=(3, 4))
    a = g.from_dlpack(p.capsule())
    row = a[1]
    tail = row[2:]
    flat = a.reshape(12)
    rev = flat[::-3]
    del a
    collect()
    assert p.deleted == 0
    assert row.tolist() == [4.0, 5.0, 6.0, 7.0]
    del row
    collect()
    assert p.deleted == 0
    assert tail.tolist() == [6.0, 7.0]
    del tail, flat
    collect()
    assert p.deleted == 0
    assert rev.tolist() == [11.0, 8.0, 5.0, 2.0]
    del rev
    collect()
    assert p.deleted == 1


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 3)])
def test_unconsumed_reexported_capsule_keeps_the_tensor_alive(max_version, live):
    p = helper_tensor()
    a = g.from_dlpack(p.capsule())
    cap = a.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == ("dltensor" if max_version is None else "dltensor_versioned")
    del a
    collect()
    assert p.deleted == 0
    del cap  # never consumed: its destructor calls godlpack's deleter
    collect()
    assert p.deleted == 1
    assert live.delta() == 0


def test_reexported_capsule_consumed_by_numpy_keeps_the_tensor_alive():
    p = helper_tensor()
    a = g.from_dlpack(p.capsule())
    cap = a.__dlpack__(max_version=(1, 3))
    n = np.from_dlpack(Producer(cap))
    assert capsule_name(cap) == "used_dltensor_versioned"
    del a, cap
    collect()
    assert p.deleted == 0
    assert n.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    del n
    collect()
    assert p.deleted == 1


def test_reexported_capsule_imported_back_into_godlpack_keeps_the_tensor_alive(live):
    p = helper_tensor()
    a = g.from_dlpack(p.capsule())
    b = g.from_dlpack(a.__dlpack__(max_version=(1, 3)))
    c = g.from_dlpack(a.__dlpack__())
    del a
    collect()
    assert p.deleted == 0
    assert b.data_ptr == c.data_ptr == p.buffer_address
    del b
    collect()
    assert p.deleted == 0
    assert c.tolist()[7] == 7.0
    del c
    collect()
    assert p.deleted == 1
    assert live.delta() == 0


def test_torch_tensor_made_from_an_import_keeps_the_tensor_alive():
    p = helper_tensor()
    a = g.from_dlpack(p.capsule())
    t = torch.from_dlpack(a)
    del a
    collect()
    assert p.deleted == 0
    assert t.tolist() == [float(i) for i in range(8)]
    del t
    collect()
    assert p.deleted == 1


def test_last_reference_dropped_in_another_thread_calls_the_deleter_there():
    p = helper_tensor()
    holder = [g.from_dlpack(p.capsule())]
    th = threading.Thread(target=holder.clear)
    th.start()
    th.join()
    if FREE_THREADED:
        # Biased reference counting: a reference dropped last by a thread other than
        # the object's creator queues the object to the creator, which deallocates it
        # at its next check of the eval breaker (a collection is one). Once, there.
        collect()
        assert p.deleted == 1
        assert p.deleter_threads == [threading.main_thread().ident]
        return
    assert p.deleted == 1
    assert p.deleter_threads == [th.ident]


# --------------------------------------------------------------------------------------
# The exported deleter, called from a thread that does not hold the GIL
# --------------------------------------------------------------------------------------


def _export_and_consume(p):
    """Import p, re-export it as a versioned capsule, take that capsule as a foreign
    consumer would (renamed to used_dltensor_versioned), and drop the Array."""
    a = g.from_dlpack(p.capsule())
    cap = a.__dlpack__(max_version=(1, 0))
    ptr = consume(cap)
    assert capsule_name(cap) == "used_dltensor_versioned"
    m = DLManagedTensorVersioned.from_address(ptr)
    assert (m.version.major, m.version.minor) == (1, 0)
    assert m.dl_tensor.data == p.buffer_address
    del a, cap
    collect()
    assert p.deleted == 0, "the consumed export still holds the tensor"
    return ptr, m


def test_exported_deleter_called_from_a_thread_without_the_gil_releases_the_producer(live):
    p = helper_tensor()
    ptr, m = _export_and_consume(p)
    # A CFUNCTYPE call releases the GIL: godlpack's deleter runs without it, and the
    # producer's deleter (a ctypes callback) takes it back itself.
    deleter = DELETER(m.deleter)
    th = threading.Thread(target=deleter, args=(ptr,))
    th.start()
    th.join()
    if FREE_THREADED:
        # Biased reference counting: the last reference dropped by a thread other than
        # the object's creator queues it to the creator while the creator still holds
        # references of its own (then a collection there deallocates it); here the
        # creator dropped all of its own first (del a, cap above), which merged the
        # counts, so the dropping thread deallocates it itself. Either way: once.
        collect()
        assert p.deleted == 1
        assert len(p.deleter_threads) == 1
        assert p.deleter_threads[0] in (th.ident, threading.main_thread().ident)
        assert live.delta() == 0
        return
    assert p.deleted == 1
    assert p.deleter_threads == [th.ident]
    assert live.delta() == 0


def test_exported_deleter_called_from_a_native_thread_releases_the_producer(live):
    p = helper_tensor()
    ptr, m = _export_and_consume(p)
    # A thread Python has never seen: pthread_create runs the deleter as its start
    # routine (void (*)(void *) called as void *(*)(void *): the result is ignored).
    libc = ctypes.CDLL(None)
    tid = ctypes.c_ulong()
    libc.pthread_create.argtypes = [
        ctypes.POINTER(ctypes.c_ulong),
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
    ]
    libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    assert libc.pthread_create(ctypes.byref(tid), None, m.deleter, ptr) == 0
    assert libc.pthread_join(tid, None) == 0  # the GIL is released while waiting
    assert p.deleted == 1
    assert p.deleter_threads and p.deleter_threads[0] != threading.get_ident()
    assert live.delta() == 0


def test_exported_legacy_deleter_called_from_a_thread_releases_the_producer(live):
    p = helper_tensor()
    a = g.from_dlpack(p.capsule())
    cap = a.__dlpack__()
    ptr = consume(cap)
    m = DLManagedTensor.from_address(ptr)
    del a, cap
    collect()
    assert p.deleted == 0
    th = threading.Thread(target=DELETER(m.deleter), args=(ptr,))
    th.start()
    th.join()
    assert p.deleted == 1
    assert live.delta() == 0


# --------------------------------------------------------------------------------------
# No leaks over many import cycles
# --------------------------------------------------------------------------------------

CYCLES = 100_000


def _source(x, imp, cycles=CYCLES):
    """A producer object, an import of it to repeat, and how many times."""
    return x, imp, cycles


def _sources():
    n = np.arange(64, dtype=np.float32).reshape(8, 8)
    t = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    nv = np.arange(64.0).reshape(8, 8)[1:, ::-2]
    return {
        "numpy": _source(n, lambda: g.from_dlpack(n)),
        "torch-exchange-api": _source(t, lambda: g.from_dlpack(t)),
        "numpy-view-kw": _source(nv, lambda: g.from_dlpack(nv, copy=False)),
        "numpy-capsule": _source(n, lambda: g.from_dlpack(n.__dlpack__(max_version=(1, 3)))),
        "numpy-legacy-capsule": _source(n, lambda: g.from_dlpack(n.__dlpack__())),
        "numpy-copy": _source(n, lambda: g.from_dlpack(n, copy=True), CYCLES // 2),
        "torch-capsule": _source(t, lambda: g.from_dlpack(to_dlpack(t)), CYCLES // 2),
        "torch-dlpack-method": _source(t, lambda: g.from_dlpack(t, device="cpu"), CYCLES // 10),
        "torch-copy": _source(t, lambda: g.from_dlpack(t, copy=True), CYCLES // 5),
    }


SOURCES = list(_sources())


@pytest.mark.parametrize("source", SOURCES)
def test_import_cycles_leak_nothing(source, live, rss):
    producer, imp, cycles = _sources()[source]
    for _ in range(5_000):  # warm-up: caches, allocator pools
        imp()
    full_collect()
    base_live = g._live_allocations()
    base_rss = rss()
    for _ in range(cycles):
        a = imp()
        v = a[1:]
        del a, v
    full_collect()
    assert g._live_allocations() == base_live
    grown = rss() - base_rss
    assert grown < 8 * MiB, f"RSS grew {grown / MiB:.1f} MiB over {cycles} imports"
    a = imp()
    assert a.tolist() == producer.tolist()
    del a, producer, imp
    assert live.delta() == 0


def test_hand_made_tensor_import_cycles_call_every_deleter_once(live):
    tensors = [helper_tensor() for _ in range(2_000)]
    for p in tensors:
        a = g.from_dlpack(p.capsule())
        b = a[::2]
        del a
        assert p.deleted == 0
        del b
    assert all(p.deleted == 1 for p in tensors)
    assert live.delta() == 0
