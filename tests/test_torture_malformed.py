"""Torture table: malformed and hostile DLPack producers against godlpack.from_dlpack.

One table-driven test. Each row is a distinct hostile input, built with ctypes by
tests/_malformed.py (a DLManagedTensor[Versioned] in ctypes memory with every field
settable, in a PyCapsule whose destructor follows the DLPack rule), or a Python
object whose ``__dlpack__`` misbehaves, or a type with a hand-made C exchange API.
For every row the test asserts:

- the exception (type and a fragment of the message naming the problem), or the
  values of the accepted Array;
- the producer's deleter is called exactly as the spec says, and when:
    capsule  rejected: the capsule is left unconsumed (same name) and nothing is
             deleted until the capsule dies; then its destructor deletes, once
    never    not ours to delete (foreign or consumed name, NULL deleter, a capsule
             without a destructor): the deleter never runs
    now      handed over without a capsule (exchange API) and rejected, or imported
             with copy=True: deleted once before from_dlpack returns
    array    accepted: deleted once, when the last Array viewing it is gone
- the interpreter is alive afterwards (a deleter that raises is reported through
  sys.unraisablehook by ctypes and ignored), and godlpack's live-allocation counter
  is back where it started.

Routes: ``capsule`` (the C fast path of from_dlpack(x)), ``capsule-kw`` (the Go path,
taken when keywords are given), ``producer`` / ``producer-kw`` (an object whose
__dlpack__ returns the capsule), ``exchange`` (a type with __dlpack_c_exchange_api__
handing the tensor over with no capsule), ``object`` (the row builds the object).
tests/test_import_malformed.py runs one test per validation rule through every route;
this table picks other values and adds hostile cases that file does not have.
"""

from __future__ import annotations

import ctypes
import struct
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import godlpack as g
import ml_dtypes
import numpy as np
import pytest
from _malformed import (
    CODE_BFLOAT,
    CODE_BOOL,
    CODE_COMPLEX,
    CODE_FLOAT,
    CODE_FLOAT4_E2M1FN,
    CODE_FLOAT6_E2M3FN,
    CODE_FLOAT6_E3M2FN,
    CODE_INT,
    CODE_OPAQUE,
    CODE_UINT,
    DELETER,
    DESTRUCTOR_ERRORS,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    ManagedTensor,
    Producer,
    capsule_name,
    exchange_api_type,
    filled,
    full_collect,
    kDLCPU,
)

kDLOpenCL, kDLVulkan, kDLMetal, kDLExtDev, kDLTrn = 4, 7, 8, 12, 18
F64 = (CODE_FLOAT, 64, 1)
_KEEP: list = []  # ctypes callbacks and forged objects that must outlive the test


def f64(n: int = 6, **kw) -> ManagedTensor:
    """float64 0, 1, ..., n-1 in a ctypes buffer (shape (n,) unless given)."""
    kw.setdefault("shape", (n,))
    return filled(struct.pack(f"<{n}d", *range(n)), **kw)


def pack_bits(codes, width) -> bytes:
    acc = 0
    for i, c in enumerate(codes):
        acc |= c << (i * width)
    return acc.to_bytes((len(codes) * width + 7) // 8, "little")


def decoded(codes, np_dtype) -> list:
    return np.array(codes, np.uint8).view(np_dtype).astype(np.float64).tolist()


def raising_deleter(p: ManagedTensor) -> ManagedTensor:
    """p with a deleter that counts its call, then raises (ctypes reports and ignores)."""

    def on_delete(ptr):
        p.deleter_args.append(ptr)
        raise RuntimeError("hostile deleter raised on purpose")

    cb = DELETER(on_delete)
    _KEEP.append(cb)
    p.managed.deleter = ctypes.cast(cb, ctypes.c_void_p).value
    return p


# --------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------


@dataclass
class Case:
    make: Callable[[], Any]  # a ManagedTensor, or for route "object" the object itself
    route: str = "capsule"
    exc: type[BaseException] | None = None  # None: accepted
    match: str = ""  # fragment of the message
    deleted: str = "capsule"  # capsule / never / now / array (see the module docstring)
    name: str | None | object = field(default=...)  # capsule name, if not the struct's
    check: Callable[[g.Array, Any], None] | None = None  # on an accepted Array
    raises_in_deleter: bool = False  # the deleter raises: ctypes reports it once
    forge_null_pointer: bool = False  # poke NULL into the capsule's pointer field
    no_destructor: bool = False  # a capsule made without a destructor
    kw: dict = field(default_factory=dict)  # extra keywords to from_dlpack


def reject(make, match, route="capsule", exc=BufferError, **kw) -> Case:
    if route == "object":
        kw.setdefault("deleted", "never")  # no tensor of ours in these rows
    return Case(make, route, exc, match, **kw)


def accept(make, check=None, route="capsule", **kw) -> Case:
    kw.setdefault("deleted", "array")
    return Case(make, route, None, "", check=check, **kw)


def values(expected):
    def check(a, p):
        assert a.tolist() == expected

    return check


def subbyte_values(name, shape, codes, np_dtype, padded=False):
    def check(a, p):
        assert a.dtype.name == name
        assert a.shape == shape
        assert a.flags["subbyte_padded"] is padded
        assert a.tolist() == np.array(decoded(codes, np_dtype)).reshape(shape).tolist()

    return check


class NonCapsule:
    """__dlpack__ returns what it is given (never a capsule)."""

    def __init__(self, result):
        self.result = result
        self.calls = 0

    def __dlpack__(self, **kw):
        self.calls += 1
        return self.result

    def __dlpack_device__(self):
        return (kDLCPU, 0)


class PropertyRaises:
    @property
    def __dlpack__(self):
        raise AttributeError("the attribute itself raises")


class LegacyOnlyRaises:
    """Rejects keywords (an old producer), and fails again without them."""

    calls = 0

    def __dlpack__(self, stream=None):
        type(self).calls += 1
        raise TypeError("old producer, broken too")


FP4, FP6A, FP6B = CODE_FLOAT4_E2M1FN, CODE_FLOAT6_E2M3FN, CODE_FLOAT6_E3M2FN
FP4_CODES = [(3 * i + 1) % 16 for i in range(6)]
FP6_CODES = [(11 * i + 5) % 64 for i in range(5)]

CASES: dict[str, Case] = {
    # ---- capsule names and capsule objects ----
    "name-foreign": reject(
        f64, "not a DLPack capsule", exc=ValueError, name="tensor", deleted="never"
    ),
    "name-case": reject(
        f64, "not a DLPack capsule", exc=ValueError, name="DLTensor_Versioned", deleted="never"
    ),
    "name-prefix-only": reject(
        f64, "not a DLPack capsule", exc=ValueError, name="dltensor_", deleted="never"
    ),
    "name-null": reject(
        f64, "NULL", route="capsule-kw", exc=ValueError, name=None, deleted="never"
    ),
    "name-legacy-used": reject(
        lambda: f64(versioned=False),
        "already consumed",
        exc=ValueError,
        name="used_dltensor",
        deleted="never",
    ),
    "name-versioned-used-producer": reject(
        f64,
        "already consumed",
        route="producer",
        exc=ValueError,
        name="used_dltensor_versioned",
        deleted="never",
    ),
    "capsule-null-pointer-forged": reject(
        f64, "invalid PyCapsule", exc=ValueError, forge_null_pointer=True
    ),
    "capsule-without-destructor": reject(
        lambda: f64(device=(kDLVulkan, 0)), "field device", no_destructor=True, deleted="never"
    ),
    # ---- version ----
    "version-major-2": reject(lambda: f64(version=(2, 3)), "field version"),
    "version-major-0.0": reject(lambda: f64(version=(0, 0)), "field version", route="producer-kw"),
    "version-major-max": reject(
        lambda: f64(version=(2**32 - 1, 0)), "field version", route="capsule-kw"
    ),
    "version-1.9-accepted": accept(
        lambda: f64(version=(1, 9)), values([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    ),
    "version-1.255-null-strides": reject(
        lambda: f64(version=(1, 255), shape=(2, 3), strides=None), "field strides"
    ),
    # ---- flags ----
    "flags-bit-7": reject(lambda: f64(flags=1 << 7), "field flags", route="producer"),
    "flags-bit-32-with-read-only": reject(
        lambda: f64(flags=(1 << 32) | FLAG_READ_ONLY), "field flags"
    ),
    "flags-all-known-accepted": accept(
        lambda: f64(flags=FLAG_READ_ONLY | FLAG_IS_COPIED | FLAG_IS_SUBBYTE_TYPE_PADDED),
        lambda a, p: a.readonly and a.flags["is_copied"] and not a.flags["subbyte_padded"],
        route="capsule-kw",
    ),
    # ---- device ----
    "device-vulkan": reject(lambda: f64(device=(kDLVulkan, 0)), "not CPU-accessible"),
    "device-metal-producer": reject(
        lambda: f64(device=(kDLMetal, 1)), "not CPU-accessible", route="producer"
    ),
    "device-opencl-legacy": reject(
        lambda: f64(device=(kDLOpenCL, 0), versioned=False), "not CPU-accessible"
    ),
    "device-trn": reject(lambda: f64(device=(kDLTrn, 0)), "not CPU-accessible", route="capsule-kw"),
    "device-extdev": reject(lambda: f64(device=(kDLExtDev, 0)), "not CPU-accessible"),
    "device-unknown-19": reject(lambda: f64(device=(19, 0)), "unknown device type 19"),
    "device-unknown-int32-max": reject(lambda: f64(device=(2**31 - 1, 0)), "unknown device type"),
    # ---- dtype ----
    "dtype-code-18": reject(lambda: f64(dtype=(18, 8, 1)), "code=18"),
    "dtype-code-255": reject(lambda: f64(dtype=(255, 64, 1)), "code=255", route="producer-kw"),
    "dtype-opaque-handle": reject(lambda: f64(dtype=(CODE_OPAQUE, 8, 1)), "code=3"),
    "dtype-int-24-bits": reject(lambda: f64(dtype=(CODE_INT, 24, 1)), "bits=24"),
    "dtype-uint-1-bit": reject(lambda: f64(dtype=(CODE_UINT, 1, 1)), "bits=1"),
    "dtype-complex-32-bits": reject(lambda: f64(dtype=(CODE_COMPLEX, 32, 1)), "bits=32"),
    "dtype-bfloat-8-bits": reject(
        lambda: f64(dtype=(CODE_BFLOAT, 8, 1)), "bits=8", route="capsule-kw"
    ),
    "dtype-bool-1-bit": reject(lambda: f64(dtype=(CODE_BOOL, 1, 1)), "bits=1"),
    "dtype-float6-8-bits": reject(lambda: f64(dtype=(FP6A, 8, 1)), "bits=8"),
    "dtype-lanes-2": reject(lambda: f64(dtype=(CODE_FLOAT, 64, 2)), "lanes"),
    "dtype-lanes-65535-producer": reject(
        lambda: f64(dtype=(CODE_INT, 8, 0xFFFF)), "lanes", route="producer"
    ),
    # ---- ndim, shape, strides, data ----
    "ndim-minus-1-legacy": reject(lambda: f64(1, ndim=-1, versioned=False), "field ndim"),
    "ndim-1000-producer-kw": reject(lambda: f64(1, ndim=1000), "field ndim", route="producer-kw"),
    "ndim-65": reject(lambda: f64(1, shape=(1,) * 65), "field ndim"),
    "shape-null-ndim-3": reject(lambda: f64(shape=None, ndim=3, strides=(1, 1, 1)), "field shape"),
    "shape-negative-last": reject(lambda: f64(shape=(1, 2, -2), strides=(1, 1, 1)), "negative"),
    "shape-count-overflow": reject(
        lambda: f64(shape=(2**31, 2**31, 4), strides=(0, 0, 0)), "overflows int64"
    ),
    "shape-count-overflow-legacy-null-strides": reject(
        lambda: f64(shape=(2**21, 2**21, 2**21), strides=None, versioned=False), "field shape"
    ),
    "strides-extent-overflow": reject(lambda: f64(shape=(5,), strides=(2**61,)), "field strides"),
    "strides-extent-overflow-2d": reject(
        lambda: f64(shape=(3, 3), strides=(2**61, -(2**61))), "field strides", route="capsule-kw"
    ),
    "strides-null-v1.3": reject(lambda: f64(shape=(3, 2), strides=None), "field strides"),
    "strides-null-v1.1-accepted": accept(
        lambda: f64(shape=(3, 2), strides=None, version=(1, 1)),
        values([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]),
    ),
    "data-null-with-elements": reject(
        lambda: f64(shape=(1, 1), data=0), "field data", route="producer"
    ),
    "data-null-0d": reject(lambda: f64(shape=(), data=0), "field data"),
    "data-null-empty-accepted": accept(lambda: f64(shape=(4, 0), data=0), values([[], [], [], []])),
    "byte-offset-wraps": reject(lambda: f64(byte_offset=2**64 - 1), "field byte_offset"),
    # ---- deleters ----
    "deleter-null-accepted": accept(
        lambda: f64(deleter=False), values([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]), deleted="never"
    ),
    "deleter-null-rejected": reject(
        lambda: f64(deleter=False, dtype=(CODE_INT, 7, 1)), "field dtype", deleted="never"
    ),
    "deleter-raises-accepted": accept(
        lambda: raising_deleter(f64()),
        values([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
        raises_in_deleter=True,
    ),
    "deleter-raises-rejected": reject(
        lambda: raising_deleter(f64(version=(2, 0))), "field version", raises_in_deleter=True
    ),
    "deleter-raises-exchange-rejected": reject(
        lambda: raising_deleter(f64(ndim=-1)),
        "field ndim",
        route="exchange",
        deleted="now",
        raises_in_deleter=True,
    ),
    "copy-true-deletes-at-once": accept(
        lambda: f64(shape=(2, 3)),
        values([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]),
        route="capsule-kw",
        kw={"copy": True},
        deleted="now",
    ),
    # ---- sub-byte floats ----
    "fp4-packed-accepted": accept(
        lambda: filled(pack_bits(FP4_CODES, 4), dtype=(FP4, 4, 1), shape=(2, 3)),
        subbyte_values("float4_e2m1fn", (2, 3), FP4_CODES, ml_dtypes.float4_e2m1fn),
    ),
    "fp4-packed-strided": reject(
        lambda: filled(bytes(8), dtype=(FP4, 4, 1), shape=(2, 2), strides=(4, 1)), "packed"
    ),
    "fp4-padded-strided-accepted": accept(
        lambda: filled(
            bytes(FP4_CODES),
            dtype=(FP4, 4, 1),
            shape=(3,),
            strides=(2,),
            flags=FLAG_IS_SUBBYTE_TYPE_PADDED,
        ),
        subbyte_values("float4_e2m1fn", (3,), FP4_CODES[::2], ml_dtypes.float4_e2m1fn, padded=True),
    ),
    "fp4-lanes-2": reject(lambda: filled(bytes(4), dtype=(FP4, 4, 2), shape=(4,)), "lanes"),
    "fp6-packed-odd-count-accepted": accept(
        lambda: filled(pack_bits(FP6_CODES, 6), dtype=(FP6A, 6, 1), shape=(5,), versioned=False),
        subbyte_values("float6_e2m3fn", (5,), FP6_CODES, ml_dtypes.float6_e2m3fn),
        route="producer",
    ),
    "fp6-packed-negative-stride": reject(
        lambda: filled(bytes(8), dtype=(FP6B, 6, 1), shape=(3,), strides=(-1,), byte_offset=2),
        "packed",
    ),
    "fp6-padded-negative-stride-accepted": accept(
        lambda: filled(
            bytes(FP6_CODES),
            dtype=(FP6B, 6, 1),
            shape=(5,),
            strides=(-1,),
            byte_offset=4,
            flags=FLAG_IS_SUBBYTE_TYPE_PADDED,
        ),
        subbyte_values(
            "float6_e3m2fn", (5,), FP6_CODES[::-1], ml_dtypes.float6_e3m2fn, padded=True
        ),
        route="capsule-kw",
    ),
    # ---- objects whose __dlpack__ misbehaves ----
    "dlpack-returns-int": reject(
        lambda: NonCapsule(7), "not a DLPack capsule", route="object", exc=TypeError
    ),
    "dlpack-returns-none-kw": reject(
        lambda: NonCapsule(None),
        "not a DLPack capsule",
        route="object",
        exc=TypeError,
        kw={"copy": False},
    ),
    "dlpack-returns-ndarray": reject(
        lambda: NonCapsule(np.zeros(3)), "not a DLPack capsule", route="object", exc=TypeError
    ),
    "dlpack-returns-godlpack-array": reject(
        lambda: NonCapsule(g.zeros(3)), "not a DLPack capsule", route="object", exc=TypeError
    ),
    "dlpack-returns-tuple": reject(
        lambda: NonCapsule((f64().capsule(),)),
        "not a DLPack capsule",
        route="object",
        exc=TypeError,
    ),
    "dlpack-raises-keyboard-interrupt": reject(
        lambda: Producer(raises=KeyboardInterrupt()), "", route="object", exc=KeyboardInterrupt
    ),
    "dlpack-raises-overflow-kw": reject(
        lambda: Producer(raises=OverflowError("big")),
        "big",
        route="object",
        exc=OverflowError,
        kw={"device": "cpu"},
    ),
    "dlpack-property-raises": reject(PropertyRaises, "DLPack", route="object", exc=TypeError),
    "dlpack-old-producer-raises": reject(
        LegacyOnlyRaises, "broken too", route="object", exc=TypeError
    ),
    # ---- the C exchange API ----
    "exchange-lanes-4": reject(
        lambda: f64(dtype=(CODE_FLOAT, 32, 4)), "lanes", route="exchange", deleted="now"
    ),
    "exchange-negative-shape-kw": reject(
        lambda: f64(shape=(-5,), strides=(1,)),
        "negative",
        route="exchange",
        deleted="now",
        kw={"copy": None},
    ),
    "exchange-null-deleter-rejected": reject(
        lambda: f64(deleter=False, device=(kDLMetal, 0)),
        "field device",
        route="exchange",
        deleted="never",
    ),
    "exchange-success-null-out": reject(
        lambda: types.SimpleNamespace(address=0, deleted=0),
        "without an exception",
        route="exchange",
        deleted="never",
    ),
}


# --------------------------------------------------------------------------------------
# The executor
# --------------------------------------------------------------------------------------


class Unraisable:
    """Collects what sys.unraisablehook receives while active."""

    def __init__(self):
        self.seen: list = []

    def __enter__(self):
        self._old = sys.unraisablehook
        sys.unraisablehook = self.seen.append
        return self

    def __exit__(self, *exc):
        sys.unraisablehook = self._old


_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))
_NAME_KEEP = {n: ctypes.create_string_buffer(n) for n in (b"dltensor_versioned", b"dltensor")}
# PyCapsule: PyObject_HEAD, then void *pointer. The header is 16 bytes with the GIL and
# 32 on a free-threaded build (thread id, flags, local and shared counts): a fixed 16
# wrote the shared reference count there and left the pointer as it was.
_CAPSULE_POINTER_OFFSET = object.__basicsize__


def make_capsule(case: Case, p: ManagedTensor):
    if case.no_destructor:
        return _PyCapsule_New(p.address, ctypes.addressof(_NAME_KEEP[p.name.encode()]), None)
    cap = p.capsule() if case.name is ... else p.capsule(name=case.name)
    return cap


def call(case: Case, p) -> tuple[Any, BaseException | None, Any]:
    """from_dlpack through the case's route: (result, exception, capsule or None)."""
    kw = dict(case.kw)
    cap = None
    try:
        if case.route == "object":
            return g.from_dlpack(p, **kw), None, None
        if case.route == "exchange":
            cls = exchange_api_type(lambda: p)
            return g.from_dlpack(cls(), **kw), None, None
        cap = make_capsule(case, p)
        if case.forge_null_pointer:
            ctypes.c_void_p.from_address(id(cap) + _CAPSULE_POINTER_OFFSET).value = None
        if case.route.endswith("-kw") and not kw:
            kw = {"copy": None} if case.route == "capsule-kw" else {"device": None}
        target = cap if case.route.startswith("capsule") else Producer(cap)
        return g.from_dlpack(target, **kw), None, cap
    except BaseException as e:  # KeyboardInterrupt included: it is a row of the table
        return None, e, cap


def deleted(p) -> int:
    return getattr(p, "deleted", 0)


@pytest.mark.parametrize("case_id", list(CASES))
def test_hostile_input(case_id, live):
    case = CASES[case_id]
    p = case.make()
    name_before = getattr(p, "name", None)
    with Unraisable() as unraisable:
        result, err, cap = call(case, p)

        if case.exc is not None:
            assert err is not None, f"{case.exc.__name__} not raised (got {result!r})"
            assert isinstance(err, case.exc), f"{type(err).__name__}: {err}"
            assert case.match in str(err), f"{case.match!r} not in {str(err)!r}"
            del err
        else:
            assert err is None, f"{type(err).__name__}: {err}"
            assert isinstance(result, g.Array)
            if case.check is not None:
                assert case.check(result, p) is not False

        if cap is not None and case.exc is not None and not case.forge_null_pointer:
            want = name_before if case.name is ... else case.name
            assert capsule_name(cap) == want, "a refused capsule must keep its name"
        if cap is not None and case.exc is None:
            assert capsule_name(cap) == "used_" + name_before, "an imported capsule is renamed"

        # When the deleter has run (or must not have yet).
        if case.deleted == "now":
            assert deleted(p) == 1
        elif case.deleted in ("capsule", "array"):
            assert deleted(p) == 0, "deleted too early"
        if case.forge_null_pointer:
            ctypes.c_void_p.from_address(id(cap) + _CAPSULE_POINTER_OFFSET).value = p.address
        del cap
        full_collect()
        if case.deleted == "capsule":
            assert deleted(p) == 1, "the unconsumed capsule's destructor must delete, once"
        if case.deleted == "array":
            assert deleted(p) == 0, "deleted while the Array is alive"
            del result
            full_collect()
            assert deleted(p) == 1, "the last Array gone: deleted once"
        else:
            del result
            full_collect()
        if case.deleted in ("capsule", "array", "now"):
            assert deleted(p) == 1
        else:
            assert deleted(p) == 0, "a deleter that is not ours to call ran"

    # A deleter that raises is reported once (ctypes prints and ignores it); nothing else is.
    reported = [u for u in unraisable.seen if isinstance(u.exc_value, RuntimeError)]
    assert len(reported) == (1 if case.raises_in_deleter else 0), unraisable.seen
    assert DESTRUCTOR_ERRORS == []
    # The interpreter is alive and godlpack still works; nothing leaked.
    del p
    full_collect()
    assert g.arange(4).reshape(2, 2)[1].tolist() == [2, 3]
    assert not sys.is_finalizing()
    assert live.delta() == 0


def test_the_table_has_at_least_40_cases():
    assert len(CASES) >= 40
