"""Leak benchmark: a million mixed DLPack exchanges must leave nothing behind.

    python bench/leak_bench.py [--count N] [--rounds R] [--warmup N] [--max-rss-growth-mib M]
                               [--json PATH]

Runs --count exchanges (default 1,000,000), cycling through:

    export-numpy      numpy.from_dlpack(go_array)
    export-torch      torch.from_dlpack(go_array)
    import-numpy      godlpack.from_dlpack(ndarray)
    import-torch      godlpack.from_dlpack(tensor)
    capsule           godlpack.from_dlpack(go_array.__dlpack__())
    exchange-managed  the DLPack C exchange API of godlpack.Array (called through its
                      function pointers): managed_tensor_from_py_object_no_sync, then the
                      tensor's deleter
    exchange-roundtrip  managed_tensor_from_py_object_no_sync, then
                      managed_tensor_to_py_object_no_sync, then dropping the new Array
    exchange-dltensor dltensor_from_py_object_no_sync (no allocation at all)
    copy              go_array.copy()
    copy-import       godlpack.from_dlpack(ndarray, copy=True)
    copy-export       numpy.from_dlpack(go_array, copy=True)

(the exchange-API rows only if godlpack.Array has __dlpack_c_exchange_api__), after
--warmup exchanges (default 100,000) that let every allocator reach its steady state.
The warm-up also makes ~50 MB of short-lived Go garbage (repr of an array): the Go
collector starts its first cycle only when the Go heap reaches 4 MB, and a million
exchanges make only a few MB of Go garbage, so without it the measured run would
see the Go heap grow to its steady size once (~2-3 MiB of RSS) and call it growth.
It then checks, and prints:

    RSS growth        resident set size after minus before each of --rounds measured
                      runs of --count exchanges (default one): the median round's
                      must stay under --max-rss-growth-mib (default 2 MiB). A leak grows
                      every round; one round alone also catches one-off growth that is
                      no leak (an allocator's segment, the Go heap's overshoot while a
                      loaded machine starves its collector), which the median drops
    live allocations  godlpack._live_allocations() (owners and export blocks) after
                      minus before all rounds: must be 0
    total refcount    sys.gettotalrefcount() after minus before, on a debug build of
                      CPython (must stay under 1,000, where a leak of one reference per
                      exchange would be --count); 'n/a' on a release build

Exit status 0 when every check passes, 1 otherwise. tests/test_leak_smoke.py runs it
with a small --count, three rounds, and with --leak-bytes (each exchange also leaks a
reference to a bytes object of that size, as a missing Py_DECREF would, which only the
RSS check sees on a release build) to show that the check still fails a leak.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if os.path.isdir(os.path.join(ROOT, "pyext", "godlpack")):
    sys.path.insert(0, os.path.join(ROOT, "pyext"))
# The live-allocation counter counts only when this is set before the import.
os.environ["GODLPACK_COUNT_ALLOCATIONS"] = "1"

import godlpack as g  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

REFCOUNT_SLACK = 1000


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def total_refcount() -> int | None:
    f = getattr(sys, "gettotalrefcount", None)  # debug builds of CPython only
    return f() if f is not None else None


# --------------------------------------------------------------------------------------
# The DLPack C exchange API of godlpack.Array, through ctypes
# --------------------------------------------------------------------------------------


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("version", _Version),
        ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", ctypes.c_int32 * 2),
        ("ndim", ctypes.c_int32),
        ("dtype", ctypes.c_uint32),
        ("shape", ctypes.c_void_p),
        ("strides", ctypes.c_void_p),
        ("byte_offset", ctypes.c_uint64),
    ]


_VOIDP = ctypes.c_void_p
_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_VOIDP))
_TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, _VOIDP, ctypes.POINTER(_VOIDP))
_DLTENSOR = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_DLTensor))
_DELETER = ctypes.CFUNCTYPE(None, _VOIDP)
_Py_DecRef = ctypes.pythonapi.Py_DecRef
_Py_DecRef.argtypes = [_VOIDP]
_Py_DecRef.restype = None


def exchange_api():
    """(from_py, to_py, dltensor) callables of godlpack.Array's table, or None."""
    cap = getattr(g.Array, "__dlpack_c_exchange_api__", None)
    if cap is None:
        return None
    get = ctypes.PYFUNCTYPE(_VOIDP, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi)
    )
    api = _ExchangeAPI.from_address(get(cap, b"dlpack_exchange_api"))
    return (
        _FROM_PY(api.managed_tensor_from_py_object_no_sync),
        _TO_PY(api.managed_tensor_to_py_object_no_sync),
        _DLTENSOR(api.dltensor_from_py_object_no_sync),
    )


def make_ops() -> dict:
    """name -> a callable doing one exchange and dropping what it made."""
    a = g.arange(64, dtype="float32").reshape(8, 8)[::2, 1:]  # a strided view
    n = np.arange(48, dtype=np.float64).reshape(6, 8)
    t = torch.arange(48, dtype=torch.int32).reshape(6, 8)
    ops = {
        "export-numpy": lambda: np.from_dlpack(a),
        "export-torch": lambda: torch.from_dlpack(a),
        "import-numpy": lambda: g.from_dlpack(n),
        "import-torch": lambda: g.from_dlpack(t),
        "capsule": lambda: g.from_dlpack(a.__dlpack__(max_version=(1, 3))),
        "copy": a.copy,
        "copy-import": lambda: g.from_dlpack(n, copy=True),
        "copy-export": lambda: np.from_dlpack(a, copy=True),
    }
    api = exchange_api()
    if api is not None:
        from_py, to_py, dltensor = api
        out = _VOIDP()
        view = _DLTensor()

        def managed():
            if from_py(a, ctypes.byref(out)) != 0:
                raise RuntimeError("managed_tensor_from_py_object_no_sync failed")
            m = out.value
            _DELETER(_VOIDP.from_address(m + 16).value)(m)  # DLManagedTensorVersioned.deleter

        def roundtrip():
            if from_py(a, ctypes.byref(out)) != 0:
                raise RuntimeError("managed_tensor_from_py_object_no_sync failed")
            obj = _VOIDP()
            if to_py(out.value, ctypes.byref(obj)) != 0:
                raise RuntimeError("managed_tensor_to_py_object_no_sync failed")
            _Py_DecRef(obj.value)  # the new Array's only reference

        def dl():
            if dltensor(a, ctypes.byref(view)) != 0:
                raise RuntimeError("dltensor_from_py_object_no_sync failed")

        ops["exchange-managed"] = managed
        ops["exchange-roundtrip"] = roundtrip
        ops["exchange-dltensor"] = dl
    return ops


def run(ops: dict, count: int) -> None:
    fns = list(ops.values())
    k = len(fns)
    for i in range(count):
        fns[i % k]()


def settle() -> None:
    gc.collect()
    gc.collect()


_Py_IncRef = ctypes.pythonapi.Py_IncRef
_Py_IncRef.argtypes = [ctypes.py_object]
_Py_IncRef.restype = None


def leaking(ops: dict, nbytes: int) -> dict:
    """ops, each also leaking one reference to a new nbytes-long bytes object: the leak
    the RSS check exists for (godlpack's live-allocation counter does not see it)."""

    def leak(fn):
        def op():
            fn()
            _Py_IncRef(bytes(nbytes))

        return op

    return {name: leak(fn) for name, fn in ops.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=1_000_000, help="measured exchanges a round")
    p.add_argument("--rounds", type=int, default=1, help="measured rounds (median RSS growth)")
    p.add_argument("--warmup", type=int, default=100_000, help="exchanges before measuring")
    p.add_argument("--max-rss-growth-mib", type=float, default=2.0)
    p.add_argument("--leak-bytes", type=int, default=0, help="leak this much an exchange (test)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)

    ops = make_ops()
    run(ops, args.warmup)
    probe = g.arange(100, dtype="float64").reshape(10, 10)
    for _ in range(2000):  # ~26 KB of Go garbage each: a dozen Go collections
        repr(probe)
    del probe
    if args.leak_bytes:
        ops = leaking(ops, args.leak_bytes)
    settle()
    live0, ref0 = g._live_allocations(), total_refcount()
    rss = [rss_bytes()]
    t0 = time.perf_counter()
    for _ in range(args.rounds):
        run(ops, args.count)
        settle()
        rss.append(rss_bytes())
    elapsed = time.perf_counter() - t0
    live1, ref1 = g._live_allocations(), total_refcount()

    rounds_mib = [(rss[i + 1] - rss[i]) / 2**20 for i in range(args.rounds)]
    growth_mib = sorted(rounds_mib)[(len(rounds_mib) - 1) // 2]  # the median (lower)
    exchanges = args.count * args.rounds
    refs = None if ref0 is None else ref1 - ref0
    ok_rss = growth_mib < args.max_rss_growth_mib
    ok_live = live1 == live0
    ok_refs = refs is None or refs < REFCOUNT_SLACK
    figures = {
        "count": args.count,
        "rounds": args.rounds,
        "warmup": args.warmup,
        "leak_bytes": args.leak_bytes,
        "kinds": list(ops),
        "seconds": round(elapsed, 3),
        "ns_per_exchange": round(elapsed / max(exchanges, 1) * 1e9, 1),
        "rss_before_mib": round(rss[0] / 2**20, 2),
        "rss_after_mib": round(rss[-1] / 2**20, 2),
        "rss_growth_mib_rounds": [round(m, 3) for m in rounds_mib],
        "rss_growth_mib": round(growth_mib, 3),
        "live_allocations_before": live0,
        "live_allocations_after": live1,
        "total_refcount_growth": refs,
        "ok": ok_rss and ok_live and ok_refs,
    }
    print(
        f"exchanges:         {exchanges:,} ({args.rounds} x {args.count:,}; {len(ops)} kinds:"
        f" {', '.join(ops)})"
    )
    print(f"time:              {elapsed:.2f} s ({figures['ns_per_exchange']:.0f} ns per exchange)")
    print(
        f"RSS growth:        {growth_mib:+.3f} MiB (median round of"
        f" {', '.join(f'{m:+.3f}' for m in rounds_mib)}; {rss[0] / 2**20:.1f} ->"
        f" {rss[-1] / 2**20:.1f} MiB; limit {args.max_rss_growth_mib} MiB)"
        f" {'ok' if ok_rss else 'FAIL'}"
    )
    print(
        f"live allocations:  {live1 - live0:+d} ({live0} -> {live1}) {'ok' if ok_live else 'FAIL'}"
    )
    if refs is None:
        print("total refcount:    n/a (not a debug build of CPython: no sys.gettotalrefcount)")
    else:
        print(f"total refcount:    {refs:+d} {'ok' if ok_refs else 'FAIL'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
