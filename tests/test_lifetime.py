"""Who frees what, and when: consumers outliving the Array, capsules consumed or not,
deleters called from other threads, and no growth over many export cycles.

godlpack._live_allocations() counts live C allocations (array owners and exported
managed tensors), so every free is checked exactly: a leak leaves it above the baseline,
a double free takes it below."""

from __future__ import annotations

import gc
import json
import threading

import godlpack as g
import numpy as np
import pytest
import torch
import torch.utils.dlpack

MiB = 1 << 20
CYCLES = 100_000


def scribble():
    """Allocate and fill memory so a freed block would likely be reused and overwritten."""
    junk = [g.full((1000,), -1.0, dtype="float64") for _ in range(50)]
    junk += [np.full(1000, -1.0) for _ in range(50)]
    return len(junk)


# ----------------------------------------------------------------------------------------
# Consumers outlive the Array
# ----------------------------------------------------------------------------------------


# numpy takes any strides; torch refuses negative ones, so it gets a forward view.
OUTLIVE_CASES = [
    ("numpy-reversed", np.from_dlpack, slice(None, None, -3), 999),
    ("numpy-strided", np.from_dlpack, slice(1, None, 3), 1),
    ("torch-strided", torch.from_dlpack, slice(1, None, 3), 1),
    ("torch-whole", torch.from_dlpack, slice(None), 0),
]


@pytest.mark.parametrize(
    "consume,key,first", [c[1:] for c in OUTLIVE_CASES], ids=[c[0] for c in OUTLIVE_CASES]
)
def test_consumer_view_outlives_deleted_array(live, consume, key, first):
    a = g.arange(1000, dtype="float64")
    expected = [float(v) for v in range(1000)[key]]
    x = consume(a[key])
    first_ptr = a.data_ptr + first * 8
    del a
    gc.collect()
    scribble()
    gc.collect()
    assert x.tolist() == expected
    assert live.delta() == 2  # the owner and the managed tensor the consumer holds
    data_ptr = x.ctypes.data if isinstance(x, np.ndarray) else x.data_ptr()
    assert data_ptr == first_ptr  # still the Array's memory, not a copy
    x[0] = 5.0  # and still writable
    assert x[0] == 5.0
    del x
    assert live.delta() == 0


@pytest.mark.parametrize("consume", [np.from_dlpack, torch.from_dlpack], ids=["numpy", "torch"])
def test_several_consumers_and_views_release_exactly_once(live, consume):
    a = g.arange(100, dtype="int32").reshape(10, 10)
    xs = [consume(a), consume(a[1:, ::2]), consume(a.toreadonly()[3])]
    v = a[::3]
    del a
    gc.collect()
    assert live.delta() == 1 + 3  # one owner, three managed tensors
    assert xs[1].tolist() == np.arange(100).reshape(10, 10)[1:, ::2].tolist()
    del xs
    assert live.delta() == 1  # the view v still holds the owner
    assert v.tolist()[1][0] == 30
    del v
    assert live.delta() == 0


# ----------------------------------------------------------------------------------------
# Capsules
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_unconsumed_capsule_frees_its_tensor_when_collected(live, max_version):
    a = g.arange(10)
    cap = a.__dlpack__(max_version=max_version)
    assert live.delta() == 2
    del a
    assert live.delta() == 2  # the capsule's tensor keeps the memory alive
    del cap
    assert live.delta() == 0


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_unconsumed_capsule_data_stays_valid_after_array_is_gone(dl, live, max_version):
    cap = g.arange(8, dtype="int64").__dlpack__(max_version=max_version)
    gc.collect()
    scribble()
    t = dl.capsule_managed(cap).dl_tensor
    import ctypes

    assert list((ctypes.c_int64 * 8).from_address(t.data)) == list(range(8))
    del cap, t
    assert live.delta() == 0


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_consumed_capsule_is_freed_once_by_its_consumer(dl, live, max_version):
    a = g.arange(6, dtype="float32")
    cap = a.__dlpack__(max_version=max_version)
    t = torch.utils.dlpack.from_dlpack(cap)
    assert dl.capsule_name(cap).startswith("used_dltensor")
    del a
    del cap  # renamed: its destructor must leave the tensor to torch
    assert live.delta() == 2
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del t
    assert live.delta() == 0  # exactly once: a double free would go below 0


@pytest.mark.parametrize("max_version", [None, (1, 0)], ids=["legacy", "versioned"])
def test_capsule_consumed_by_hand_deleter_called_once(dl, live, max_version):
    a = g.arange(4)
    cap = a.__dlpack__(max_version=max_version)
    m, deleter = dl.consume_capsule(cap)
    del a
    assert live.delta() == 2
    deleter(ctypes_address(m))
    assert live.delta() == 0
    del cap, m  # the used_ capsule's destructor must not call the deleter again
    assert live.delta() == 0


def ctypes_address(m) -> int:
    import ctypes

    return ctypes.addressof(m)


def test_copy_true_capsule_owns_its_copy(live):
    a = g.arange(5)
    cap = a.__dlpack__(max_version=(1, 0), copy=True)
    assert live.delta() == 3  # a's owner, the copy's owner, the managed tensor
    del a
    assert live.delta() == 2
    t = torch.utils.dlpack.from_dlpack(cap)
    del cap
    assert t.tolist() == [0, 1, 2, 3, 4]
    del t
    assert live.delta() == 0


def test_deleter_called_from_another_thread_without_the_gil(dl, live):
    # ctypes.CFUNCTYPE functions release the GIL for the call: the deleter runs on a
    # thread that does not hold it, as a consumer's worker thread would.
    arrays = [g.arange(100) for _ in range(8)]
    caps = [x.__dlpack__(max_version=(1, 0)) for x in arrays]
    caps += [x[::2].__dlpack__() for x in arrays]
    consumed = [dl.consume_capsule(c) for c in caps]
    del arrays
    assert live.delta() == 8 + 16
    errors = []

    def run(m, deleter):
        try:
            deleter(ctypes_address(m))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=pair) for pair in consumed]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert live.delta() == 0
    del caps, consumed
    assert live.delta() == 0


def test_deleter_called_from_a_raw_pthread(isolated):
    # A thread Python never saw (no thread state at all), made with pthread_create, calls
    # the deleter. Run in a child interpreter: a deleter that touched the C API without
    # the GIL would crash it, and that must fail this test, not end the session.
    code = r"""
import ctypes, gc, json, godlpack
api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.restype = ctypes.c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
USED = ctypes.create_string_buffer(b"used_dltensor_versioned")
class Head(ctypes.Structure):  # DLManagedTensorVersioned up to the deleter
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]
libc = ctypes.CDLL(None)
libc.pthread_create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p]
libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
gc.collect()
base = godlpack._live_allocations()
caps = [godlpack.arange(64).__dlpack__(max_version=(1, 0)) for _ in range(4)]
gc.collect()
mid = godlpack._live_allocations() - base
ptrs = []
for c in caps:
    p = api.PyCapsule_GetPointer(c, b"dltensor_versioned")
    assert api.PyCapsule_SetName(c, ctypes.addressof(USED)) == 0
    ptrs.append(p)
tids = []
for p in ptrs:
    tid = ctypes.c_ulong()
    # void deleter(T*) used as void *start(void *): same calling convention on
    # the platforms we run on; the (garbage) return value is never read.
    assert libc.pthread_create(ctypes.byref(tid), None, Head.from_address(p).deleter, p) == 0
    tids.append(tid.value)
for tid in tids:
    assert libc.pthread_join(tid, None) == 0
del caps
gc.collect()
print(json.dumps({"mid": mid, "end": godlpack._live_allocations() - base}))
"""
    r = isolated(code)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"mid": 8, "end": 0}


# ----------------------------------------------------------------------------------------
# Many cycles: no leak of allocations or memory
# ----------------------------------------------------------------------------------------


def _np_cycle(a):
    n = np.from_dlpack(a)
    return n.shape


def _torch_cycle(a):
    t = torch.from_dlpack(a)
    return t.shape


def _legacy_capsule_cycle(a):
    return a.__dlpack__()


def _versioned_capsule_cycle(a):
    return a.__dlpack__(max_version=(1, 0))


def _torch_capsule_cycle(a):
    return torch.utils.dlpack.from_dlpack(a.__dlpack__(max_version=(1, 0))).shape


def _view_and_copy_cycle(a):
    return np.from_dlpack(a[::-1]).shape, a.__dlpack__(max_version=(1, 0), copy=True)


@pytest.mark.parametrize(
    "cycle",
    [
        _np_cycle,
        _torch_cycle,
        _legacy_capsule_cycle,
        _versioned_capsule_cycle,
        _torch_capsule_cycle,
        _view_and_copy_cycle,
    ],
    ids=["numpy", "torch", "legacy-capsule", "versioned-capsule", "torch-capsule", "copy"],
)
def test_export_cycles_leak_nothing(live, rss, cycle):
    a = g.arange(64, dtype="float32").reshape(8, 8)
    n = CYCLES if cycle is not _view_and_copy_cycle else CYCLES // 4
    for _ in range(2000):  # warm up allocator pools and caches
        cycle(a)
    gc.collect()
    base_live = live.now()
    base_rss = rss()
    for _ in range(n):
        cycle(a)
    gc.collect()
    assert live.now() == base_live
    grown = rss() - base_rss
    assert grown < 8 * MiB, f"RSS grew by {grown / MiB:.1f} MiB over {n} cycles"
    del a
    assert live.delta() == 0


def test_constructor_cycles_leak_nothing(live, rss):
    def cycle():
        a = g.arange(32)
        b = a[::2].copy().reshape(4, 4)
        b[1:] = b[:-1]
        return g.asarray([[1.0, 2.0]]), repr(b), b.tolist()

    for _ in range(2000):
        cycle()
    gc.collect()
    base_rss = rss()
    for _ in range(20_000):
        cycle()
    gc.collect()
    assert live.delta() == 0
    assert rss() - base_rss < 8 * MiB
