"""Threads: concurrent exchanges, and deleters called from threads Python never saw.

- 8 Python threads export, import, slice, copy and drop arrays for
  GODLPACK_THREAD_SECONDS seconds (default 10), handing arrays to each other so
  that an array made in one thread is checked and dropped in another: no crash,
  every checksum right, and godlpack's live-allocation counter back to its baseline.
- Deleters of our exported tensors are called from threads started in C
  (pthread_create in a helper compiled with gcc at test time, called through ctypes
  with the GIL released): the counter drops, nothing crashes, also when 32 threads
  release exports of one array at the same instant, and when the last release runs
  NumPy's or PyTorch's own deleter (of an imported array re-exported by godlpack) on
  that thread.
"""

from __future__ import annotations

import ctypes
import os
import queue
import random
import subprocess
import sys
import threading
import time

import godlpack as g
import numpy as np
import pytest
import torch
from conftest import live_now

SECONDS = float(os.environ.get("GODLPACK_THREAD_SECONDS", "10"))
N_THREADS = 8

# --------------------------------------------------------------------------------------
# A C helper: deleters called from pthreads
# --------------------------------------------------------------------------------------

HELPER_C = r"""
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*deleter_fn)(void *);

/* DLManagedTensorVersioned: version (8 bytes), manager_ctx, deleter.
   DLManagedTensor: dl_tensor (48 bytes), manager_ctx, deleter. */
static deleter_fn deleter_of(void *managed, int versioned) {
    return *(deleter_fn *)((char *)managed + (versioned ? 16 : 56));
}

typedef struct {
    void *managed;
    int versioned;
    pthread_barrier_t *start;
} job;

static void *run(void *arg) {
    job *j = arg;
    if (j->start != NULL) {
        pthread_barrier_wait(j->start);
    }
    deleter_fn d = deleter_of(j->managed, j->versioned);
    if (d != NULL) {
        d(j->managed);
    }
    return NULL;
}

/* Calls managed->deleter(managed) on a new thread and waits for it. */
int call_deleter_in_thread(void *managed, int versioned) {
    pthread_t t;
    job j = {managed, versioned, NULL};
    if (pthread_create(&t, NULL, run, &j) != 0) {
        return -1;
    }
    return pthread_join(t, NULL);
}

/* n threads, released together by a barrier, each calling one deleter. */
int call_deleters_in_threads(void **managed, int n, int versioned) {
    pthread_t t[64];
    job j[64];
    pthread_barrier_t start;
    if (n < 1 || n > 64 || pthread_barrier_init(&start, NULL, (unsigned)n) != 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        j[i].managed = managed[i];
        j[i].versioned = versioned;
        j[i].start = &start;
        if (pthread_create(&t[i], NULL, run, &j[i]) != 0) {
            return -1; /* the threads already started wait on the barrier forever */
        }
    }
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&start);
    return 0;
}
"""


@pytest.fixture(scope="module")
def chelper(tmp_path_factory):
    d = tmp_path_factory.mktemp("cthreads")
    src, lib = d / "deleter_thread.c", d / "libdeleter_thread.so"
    src.write_text(HELPER_C)
    subprocess.run(
        ["gcc", "-O1", "-shared", "-fPIC", "-pthread", "-o", str(lib), str(src)],
        check=True,
        capture_output=True,
    )
    h = ctypes.CDLL(str(lib))  # CDLL: the GIL is released for the duration of each call
    h.call_deleter_in_thread.argtypes = [ctypes.c_void_p, ctypes.c_int]
    h.call_deleter_in_thread.restype = ctypes.c_int
    h.call_deleters_in_threads.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.c_int,
        ctypes.c_int,
    ]
    h.call_deleters_in_threads.restype = ctypes.c_int
    return h


_capi = ctypes.pythonapi
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _capi)
)
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
    ("PyCapsule_SetName", _capi)
)
_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", _capi))
_USED = {
    b"dltensor_versioned": ctypes.create_string_buffer(b"used_dltensor_versioned"),
    b"dltensor": ctypes.create_string_buffer(b"used_dltensor"),
}


def consume(cap) -> tuple[int, bool]:
    """Takes a capsule as a consumer does: its pointer, and the name set to used_*."""
    name = _GetName(cap)
    ptr = _GetPointer(cap, name)
    assert ptr and _SetName(cap, ctypes.addressof(_USED[name])) == 0
    return ptr, name == b"dltensor_versioned"


@pytest.mark.parametrize("max_version", [(1, 3), None], ids=["versioned", "legacy"])
def test_deleter_called_from_a_c_thread(chelper, max_version):
    base = live_now()
    a = g.arange(1000, dtype="float64")
    cap = a.__dlpack__(max_version=max_version)
    ptr, versioned = consume(cap)
    assert versioned == (max_version is not None)
    del cap  # used_*: its destructor leaves the tensor to us
    view = (ctypes.c_double * 1000).from_address(a.data_ptr)
    del a
    assert live_now() == base + 2  # the owner (kept by the export) and the export block
    assert view[999] == 999.0  # the export keeps the memory alive
    del view
    assert chelper.call_deleter_in_thread(ptr, int(versioned)) == 0
    assert live_now() == base


def test_32_c_threads_release_exports_of_one_array_at_once(chelper):
    base = live_now()
    for _ in range(20):
        a = g.ones((64, 64), dtype="int32")
        ptrs = []
        for _ in range(32):
            ptr, _v = consume(a.__dlpack__(max_version=(1, 3)))
            ptrs.append(ptr)
        del a
        assert live_now() == base + 1 + 32
        arr = (ctypes.c_void_p * 32)(*ptrs)
        assert chelper.call_deleters_in_threads(arr, 32, 1) == 0
        assert live_now() == base


@pytest.mark.parametrize("producer", ["numpy", "torch"])
def test_c_thread_runs_the_producers_deleter_last(chelper, producer):
    """An imported array re-exported: the C thread's release is the last one, so it
    calls NumPy's deleter (which takes the GIL itself) or PyTorch's (which needs none)."""
    base = live_now()
    if producer == "numpy":
        src = np.arange(100.0)
        probe = src  # NumPy's deleter drops its reference to the array
    else:
        src = torch.arange(100.0)
        probe = src
    refs_before = sys.getrefcount(probe)
    imported = g.from_dlpack(src)
    ptr, versioned = consume(imported.__dlpack__(max_version=(1, 3)))
    del imported
    assert live_now() == base + 2
    assert chelper.call_deleter_in_thread(ptr, int(versioned)) == 0
    assert live_now() == base
    assert sys.getrefcount(probe) == refs_before
    assert float(src.sum()) == 4950.0


# --------------------------------------------------------------------------------------
# 8 Python threads, mixed exchanges, arrays crossing threads
# --------------------------------------------------------------------------------------


def _check(arr, expect: int, where: str) -> None:
    got = int(np.from_dlpack(arr).sum()) if isinstance(arr, g.Array) else int(arr.sum())
    if got != expect:
        raise AssertionError(f"{where}: checksum {got}, expected {expect}")


def _drain(box: queue.SimpleQueue, where: str) -> None:
    """Takes everything queued in box, checks the items that came with their expected
    values, and drops them all (on the calling thread)."""
    while True:
        try:
            item, want = box.get_nowait()
        except queue.Empty:
            return
        if want is not None:
            _check(item, want, where)
        del item


def _worker(tid, stop, inboxes, errors, counts):
    rng = random.Random(tid)
    mine = inboxes[tid]
    done = 0
    try:
        while not stop.is_set():
            n = rng.randrange(1, 300)
            dtype = rng.choice(["int64", "int32", "float64", "float32"])
            a = g.arange(n, dtype=dtype)
            start, step = rng.randrange(0, 4), rng.choice([1, 2, 3, -1, -2])
            v = a[start::step]
            expect = sum(range(n)[start::step])

            x = np.from_dlpack(v)  # export to NumPy
            _check(x, expect, "numpy export")
            b = g.from_dlpack(x)  # and back: a view of NumPy's view of our memory
            if b.size:
                assert b.data_ptr == v.data_ptr
            _check(b, expect, "numpy round trip")

            if step > 0:  # PyTorch has no negative strides
                t = torch.from_dlpack(v)
                _check(t, expect, "torch export")  # torch.sum releases the GIL
                c = g.from_dlpack(t * 2)  # import of a PyTorch-owned tensor
                _check(c, 2 * expect, "torch import")
            else:
                c = g.from_dlpack(np.arange(n, dtype=np.int64)[start::step] * 2)
                _check(c, 2 * expect, "numpy import")

            d = v.copy()  # Go-owned copy
            _check(d, expect, "copy")

            # Hand some arrays to another thread, which checks and drops them there.
            other = rng.randrange(N_THREADS)
            for item in (a, x, b, c):
                inboxes[other].put((item, None))
            inboxes[other].put((v, expect))
            del a, v, x, b, c, d
            if step > 0:
                del t
            _drain(mine, f"array from another thread in {tid}")
            done += 1
    except BaseException as e:  # reported by the main thread
        errors.append((tid, e))
    counts[tid] = done


def test_eight_threads_exchange_concurrently_without_leaks():
    base = live_now()
    stop = threading.Event()
    inboxes = [queue.SimpleQueue() for _ in range(N_THREADS)]
    errors: list = []
    counts = [0] * N_THREADS
    threads = [
        threading.Thread(target=_worker, args=(i, stop, inboxes, errors, counts), daemon=True)
        for i in range(N_THREADS)
    ]
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # switch threads often, mid-exchange
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline and not errors:
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(timeout=60)
    finally:
        sys.setswitchinterval(old_interval)
    assert not any(t.is_alive() for t in threads), "a worker did not finish"
    assert errors == [], errors[:3]
    assert all(c > 0 for c in counts), counts
    print(f"iterations per thread: {counts}")
    for box in inboxes:  # what was handed over after its receiver stopped
        _drain(box, "left over")
    assert live_now() == base, f"{live_now() - base} allocations leaked"
