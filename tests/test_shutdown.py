"""Shutdown: interpreters that exit with godlpack objects still alive.

Each scenario runs in a fresh interpreter and must exit with status 0 and nothing
alarming on stderr ('Fatal', 'Segmentation', 'panic', a traceback, an ignored
exception): module globals holding Arrays, exports and imports; unconsumed
capsules; NumPy and PyTorch tensors viewing Go memory; daemon threads in the middle
of exchanges; deleters called from Python atexit handlers; and deleters called from
a C atexit() handler (a helper compiled with gcc at test time), which runs after
Py_Finalize, when no Python code can run: our deleters touch no Python and no Go,
so they must work there too (the helper checks Py_IsInitialized() == 0 and reads
godlpack's live-allocation counter straight from the extension's C symbol).
"""

from __future__ import annotations

import ctypes
import subprocess
import textwrap

import godlpack
import pytest
from conftest import run_python

TIMEOUT = 60
ALARMS = ("Fatal", "Segmentation", "panic", "Traceback", "Exception ignored", "core dumped")

HELPER_C = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef void (*deleter_fn)(void *);
static void *pending[64];
static int pending_versioned[64];
static int npending;
static char ext_path[4096];

static deleter_fn deleter_of(void *managed, int versioned) {
    return *(deleter_fn *)((char *)managed + (versioned ? 16 : 56));
}

static int64_t live_count(void) {
    void *h = dlopen(ext_path, RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) {
        return -1;
    }
    int64_t (*f)(void) = (int64_t (*)(void))dlsym(h, "gd_live_allocations");
    int64_t n = f != NULL ? f() : -2;
    dlclose(h);
    return n;
}

static void run_deleters(void) {
    int (*initialized)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    int py = initialized != NULL ? initialized() : -1;
    int64_t before = live_count();
    for (int i = 0; i < npending; i++) {
        deleter_fn d = deleter_of(pending[i], pending_versioned[i]);
        if (d != NULL) {
            d(pending[i]);
        }
    }
    int64_t after = live_count();
    char buf[160];
    int len = snprintf(buf, sizeof buf,
                       "c-atexit py_initialized=%d deleted=%d live_before=%lld live_after=%lld\n",
                       py, npending, (long long)before, (long long)after);
    if (write(1, buf, (size_t)len) < 0) {
        _exit(3);
    }
}

/* Remembers a consumed managed tensor; its deleter runs in a C atexit handler. */
int defer_deleter(void *managed, int versioned, const char *extension_path) {
    if (npending == 64) {
        return -1;
    }
    if (npending == 0) {
        snprintf(ext_path, sizeof ext_path, "%s", extension_path);
        if (atexit(run_deleters) != 0) {
            return -1;
        }
    }
    pending[npending] = managed;
    pending_versioned[npending] = versioned;
    npending++;
    return 0;
}
"""

PRELUDE = """
import ctypes, sys
import numpy as np
import godlpack as g

_api = ctypes.pythonapi
_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
    ("PyCapsule_SetName", _api))
_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", _api))
_USED = {b"dltensor_versioned": ctypes.create_string_buffer(b"used_dltensor_versioned"),
         b"dltensor": ctypes.create_string_buffer(b"used_dltensor")}
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

def consume(cap):
    name = _GetName(cap)
    ptr = _GetPointer(cap, name)
    assert ptr and _SetName(cap, ctypes.addressof(_USED[name])) == 0
    return ptr, name == b"dltensor_versioned"

def call_deleter(ptr, versioned):
    DELETER(ctypes.c_void_p.from_address(ptr + (16 if versioned else 56)).value)(ptr)
"""


def run(code: str, helper: str | None = None) -> str:
    proc = run_python(
        PRELUDE + textwrap.dedent(code),
        timeout=TIMEOUT,
        env_extra={"GODLPACK_TEST_HELPER": helper} if helper else None,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\n{proc.stderr}"
    for alarm in ALARMS:
        assert alarm not in proc.stderr, f"{alarm!r} on stderr:\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def helper(tmp_path_factory) -> str:
    d = tmp_path_factory.mktemp("catexit")
    src, lib = d / "catexit.c", d / "libcatexit.so"
    src.write_text(HELPER_C)
    subprocess.run(
        ["gcc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src), "-ldl"],
        check=True,
        capture_output=True,
    )
    return str(lib)


def test_exit_with_globals_holding_arrays_exports_and_imports():
    out = run(
        """
        import torch
        a = g.arange(1000, dtype="float64").reshape(10, 100)
        view = a[::3, ::-7]
        ro = a.toreadonly()
        n = np.from_dlpack(view)            # NumPy viewing Go memory
        t = torch.from_dlpack(a[2:5])        # PyTorch viewing Go memory
        imp_np = g.from_dlpack(np.arange(50.0))          # Go viewing NumPy memory
        imp_torch = g.from_dlpack(torch.ones(4, 4))      # Go viewing PyTorch memory
        reexport = np.from_dlpack(imp_torch)             # NumPy -> Go -> PyTorch memory
        caps = [a.__dlpack__(max_version=(1, 3)), a.__dlpack__(), ro.__dlpack__(max_version=(1, 0))]
        cycle = [a, n, t]
        cycle.append(cycle)                  # a reference cycle, left to the final collection
        assert g._live_allocations() > 0
        print("live", g._live_allocations())
        """
    )
    assert out.startswith("live ")


def test_exit_with_unconsumed_and_consumed_capsules_and_pending_imports():
    run(
        """
        import torch
        keep = []
        for i in range(50):
            a = g.full((8,), float(i), dtype="float32")
            keep.append(a.__dlpack__(max_version=(1, 3)))      # never consumed
            keep.append(g.from_dlpack(a.__dlpack__()))          # consumed by godlpack
            keep.append(g.from_dlpack(torch.full((3,), i)))     # torch's deleter at exit
            keep.append(g.from_dlpack(np.full((3,), i)))        # numpy's deleter at exit
        """
    )


def test_daemon_threads_mid_exchange_at_exit():
    # NumPy only: daemon threads running PyTorch ops abort the interpreter at exit by
    # themselves ("terminate called without an active exception": CPython 3.11 ends
    # them with pthread_exit, which unwinds through PyTorch's noexcept C++ frames),
    # with or without godlpack.
    out = run(
        """
        import threading, time
        def loop(k):
            while True:
                a = g.arange(256, dtype="int64").reshape(16, 16)[k % 3 :: 2, ::-1]
                b = g.from_dlpack(np.from_dlpack(a))
                c = g.from_dlpack(np.from_dlpack(a.copy())[::-1])
                assert int(np.from_dlpack(b).sum()) == int(np.from_dlpack(c).sum())
                keep = [a.__dlpack__(), b, c]
        for k in range(6):
            threading.Thread(target=loop, args=(k,), daemon=True).start()
        time.sleep(0.5)
        print("exiting with", threading.active_count() - 1, "daemon threads")
        """
    )
    assert "exiting with 6 daemon threads" in out


def test_deleters_called_from_python_atexit_handlers():
    out = run(
        """
        import atexit
        base = g._live_allocations()
        arrays = [g.ones((32, 32), dtype="int16") for _ in range(4)]
        consumed = [consume(a.__dlpack__(max_version=(1, 3))) for a in arrays]
        consumed += [consume(a.__dlpack__()) for a in arrays]
        del arrays

        @atexit.register
        def release():
            before = g._live_allocations()
            for ptr, versioned in consumed:
                call_deleter(ptr, versioned)
            after = g._live_allocations()
            print("atexit released", before - after, "left", after - base)
        """
    )
    assert "atexit released 12 left 0" in out  # 4 owners + 8 export blocks


def test_deleters_called_after_finalization_from_a_c_atexit_handler(helper):
    ext = godlpack._godlpack.__file__
    out = run(
        f"""
        import os
        lib = ctypes.CDLL(os.environ["GODLPACK_TEST_HELPER"])
        lib.defer_deleter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
        for dtype, mv in [("float32", (1, 3)), ("int8", None), ("complex128", (1, 1))]:
            a = g.arange(100, dtype=dtype)
            view = a[::-2]
            ptr, versioned = consume(view.__dlpack__(max_version=mv))
            assert lib.defer_deleter(ptr, int(versioned), {ext!r}.encode()) == 0
            del a, view                      # only the consumed exports keep the memory now
        print("live at exit", g._live_allocations(), flush=True)
        """,
        helper=helper,
    )
    assert "live at exit 6" in out  # 3 owners + 3 export blocks
    # After Py_Finalize: Python gone, the deleters still free everything.
    assert "c-atexit py_initialized=0 deleted=3 live_before=6 live_after=0" in out


def test_python_buffer_owners_released_after_finalization_leak_quietly(helper):
    # Arrays over Python buffers (pickle protocol 5 loads, in band and out of band)
    # release a Python object, which needs the GIL; after Py_Finalize there is no
    # Python to release it to, so the buffer is leaked and the owner freed, no crash.
    ext = godlpack._godlpack.__file__
    out = run(
        f"""
        import os, pickle
        lib = ctypes.CDLL(os.environ["GODLPACK_TEST_HELPER"])
        lib.defer_deleter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
        stores = []
        for dtype in ("float32", "int8", "bfloat16"):
            bufs = []
            s = pickle.dumps(g.arange(100, dtype=dtype), 5, buffer_callback=bufs.append)
            stores.append(bytearray(bufs[0].raw()))
            in_band = pickle.dumps(g.arange(100, dtype=dtype), 5)
            for a in (pickle.loads(s, buffers=[stores[-1]]), pickle.loads(in_band)):
                assert a._keep() is None and not a.flags["owndata"]
                ptr, versioned = consume(a[::-1].__dlpack__(max_version=(1, 3)))
                assert lib.defer_deleter(ptr, int(versioned), {ext!r}.encode()) == 0
            del a, bufs  # bufs views the pickled source array
        print("live at exit", g._live_allocations(), flush=True)
        """,
        helper=helper,
    )
    assert "live at exit 12" in out  # 6 owners + 6 export blocks
    assert "c-atexit py_initialized=0 deleted=6 live_before=12 live_after=0" in out


def test_exit_from_a_fork_child_with_live_arrays():
    out = run(
        """
        import os
        keep = [g.arange(10), np.from_dlpack(g.ones(5))]
        pid = os.fork()
        if pid == 0:
            more = [g.from_dlpack(np.arange(3.0)), g.zeros((4, 4))[::2], keep[0].__dlpack__()]
            sys.exit(0)                      # a normal exit: finalization runs in the child
        _, status = os.waitpid(pid, 0)
        print("child exit", os.waitstatus_to_exitcode(status))
        """
    )
    assert "child exit 0" in out


def test_the_helper_symbols_exist():
    """The C atexit scenario reads the counter through this C symbol."""
    lib = ctypes.CDLL(godlpack._godlpack.__file__)
    assert lib.gd_live_allocations() >= 0
