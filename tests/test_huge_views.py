"""Sizes computed from a shape never abort the process.

A broadcast (stride-0) view describes any number of elements over one: NumPy's
``broadcast_to``, PyTorch's ``expand``, a hand-made DLPack tensor, ``_wrap_buffer``.
Everything that then allocates by the element count (tolist, repr, copies, asarray
conversions, pickling, the buffer protocol, NumPy's views) must raise MemoryError,
as NumPy does, instead of letting Go's allocator abort the interpreter
(``make([]float64, n)``: "makeslice: len out of range", or Go's fatal
out-of-memory). Each dtype family and producer runs in a child under an
address-space limit, so a regression fails its test instead of killing the run or
the machine.
"""

from __future__ import annotations

import os
import sys

import godlpack as g
import pytest
from conftest import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

# one of each storage family: the C fast tolist (whole-byte ints, float32/64,
# complex), Go's decoded floats (float16, bfloat16, float8), padded sub-byte
FAMILIES = [
    "bool",
    "uint8",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]

CHILD = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import copy, pickle, godlpack as g
def memory_error(f):
    # MemoryError, as NumPy; or, where the byte count itself passes int64, the
    # ValueError NumPy gives arrays it cannot describe ("array is too big")
    try:
        f()
    except MemoryError:
        return
    except ValueError as e:
        assert "too big" in str(e), e
        return
    raise AssertionError(f"{f} did not raise MemoryError")
def check(a):
    n = a.size
    assert n >= 2**40, a.shape
    memory_error(a.tolist)
    memory_error(a.copy)
    memory_error(lambda: copy.deepcopy(a))
    memory_error(lambda: g.asarray(a, copy=True))
    memory_error(lambda: g.asarray(a, dtype="float32" if a.dtype != "float32" else "float64"))
    memory_error(lambda: g.asarray(a, dtype="bfloat16" if a.dtype != "bfloat16" else "float16"))
    memory_error(lambda: pickle.dumps(a, 2))
    memory_error(lambda: pickle.dumps(a, 5))
    memory_error(lambda: list(a if a.ndim == 1 else a[(0,) * (a.ndim - 1)]))
    if a.dtype.bits >= 8 and a.dtype.name not in ("bfloat16",) and "float8" not in a.dtype.name:
        if a.nbytes < 2**63:
            memory_error(lambda: bytes(memoryview(a)))
        else:  # no buffer's len can count its bytes (it used to wrap around)
            try:
                memoryview(a)
            except BufferError as e:
                assert "2**63 bytes" in str(e), e
            else:
                raise AssertionError("memoryview of more than 2**63 bytes")
    assert a.nbytes == n * a.dtype.itemsize  # exact, past int64 too
    s = repr(a)  # summarized: only the edges are read
    assert "..." in s and "shape=" in s, s
    row = (a if a.ndim == 1 else a[(0,) * (a.ndim - 1)])[:5]
    assert len(row.tolist()) == 5  # a small part still converts
for case in CASES:
    check(make(*case))
    print("ok", *case, flush=True)
print("all ok")
"""


def _check(cases, make: str, *imports: str) -> None:
    """Runs CHILD over make(*case) for each case, in one child."""
    code = "\n".join(imports) + f"\nCASES = {cases!r}\n" + make + CHILD
    proc = run_python(code, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("all ok"), (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )


WHOLE_BYTE = [dt for dt in FAMILIES if getattr(g, dt).bits >= 8]


def test_broadcast_views_of_wrapped_buffers():
    # _wrap_buffer takes strides for whole-byte dtypes (the padded sub-byte ones come
    # from the DLPack producer below); 2**62 elements: bytes past int64 too
    cases = [(dt, 2**50) for dt in WHOLE_BYTE] + [
        (dt, 2**62) for dt in ("bool", "float16", "complex64")
    ]
    _check(
        cases,
        "def make(dt, n):\n    return g._godlpack._wrap_buffer(bytearray(16), dt, (n,), (0,))\n",
    )


def test_numpy_broadcast_to():
    _check(
        [(dt,) for dt in ("bool", "int64", "float16", "complex64")],
        "def make(dt):\n"
        "    return g.from_dlpack(np.broadcast_to(np.ones(1, dt), (2**10, 2**40)))\n",
        "import numpy as np",
    )


def test_torch_expand():
    _check(
        [
            (dt,)
            for dt in ("bool", "float16", "bfloat16", "complex64", "float8_e4m3fn", "float8_e5m2")
        ],
        "def make(dt):\n"
        "    return g.from_dlpack(torch.ones(1, dtype=getattr(torch, dt)).expand(2**50))\n",
        "import torch",
    )


def test_dlpack_producer_stride_zero():
    # Any dtype, padded sub-byte included (one element a byte may be strided).
    _check(
        [(dt,) for dt in FAMILIES],
        "def make(dt):\n"
        "    d = getattr(g, dt)\n"
        "    flags = FLAG_IS_SUBBYTE_TYPE_PADDED if d.bits < 8 else 0\n"
        "    t = ManagedTensor(nbytes=16, dtype=(d.code, d.bits, 1), shape=(2**20, 2**30),\n"
        "                      strides=(0, 0), flags=flags)\n"
        "    return g.from_dlpack(Producer(t.capsule()))\n",
        f"import sys\nsys.path.insert(0, {HERE!r})",
        "from _malformed import ManagedTensor, Producer, FLAG_IS_SUBBYTE_TYPE_PADDED",
    )


def test_repr_of_many_short_axes_is_memory_error():
    # 2**40 elements over 40 axes of 2: past NumPy's threshold, yet every axis is too
    # short to summarize, so repr would print every element (Go's heap: a fatal
    # error). NumPy raises MemoryError too.
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import godlpack as g, numpy as np
for dt in ("float32", "bfloat16", "int8", "complex128"):
    a = g._godlpack._wrap_buffer(bytearray(16), dt, (2,) * 40, (0,) * 40)
    try:
        repr(a)
    except MemoryError as e:
        assert "print a slice" in str(e), e
    else:
        raise AssertionError("repr did not raise")
    assert repr(a[(0,) * 30]).startswith("Array(")  # a slice prints
b = g.zeros((2,) * 12)  # 4096 shown elements: printed whole, as NumPy does
assert repr(b).count("0.") == 4096
assert repr(b) == repr(np.zeros((2,) * 12, np.float32)).replace("array", "Array")
print("ok")
"""
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )


def test_shared_memory_of_more_than_memory():
    # shared_zeros sized its memfd and mapping by the shape: OSError (ENOMEM) or
    # OverflowError from os.ftruncate; zeros' classes now.
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import godlpack as g
for shape, exc in [((2**50,), MemoryError), ((2**62,), ValueError), ((2**40, 2**40), ValueError)]:
    for make in (g.zeros, g.shared_zeros):
        try:
            make(shape, "float64")
        except exc:
            pass
        else:
            raise AssertionError((make, shape))
assert g.shared_zeros((3,), "float64").tolist() == [0.0] * 3
print("ok")
"""
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_tolist_longer_than_memory_is_memory_error_before_any_list():
    # tolist of a broadcast view whose lists alone (one pointer an element) exceed
    # memory is refused before the first list is made, whatever the row length:
    # 2**20 rows of 2**20 filled rows until the address-space limit (and, with no
    # limit, the free-threaded build's allocator let the 2**40-item list through to
    # the OOM killer); an empty axis after a long one still needs the long list.
    # A row that fits the machine but not the address-space limit is PyList_New's
    # failure, which on a free-threaded CPython 3.13 corrupted the heap (a crash at
    # exit; the child's exit status): godlpack allocates such a row once first.
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
import godlpack as g
for shape in [(2**40,), (2**20, 2**20), (2**40, 0), (2**62, 0), (2**30, 2**30, 0)]:
    a = g._godlpack._wrap_buffer(bytearray(16), "int8", shape, (0,) * len(shape))
    try:
        a.tolist()
    except MemoryError as e:
        assert "convert a slice" in str(e), e
    else:
        raise AssertionError(shape)
for dt in ("int8", "float16", "bool", "int8"):  # the C fast path, Go's rows; twice
    a = g._godlpack._wrap_buffer(bytearray(16), dt, (2**30,), (0,))
    try:
        a.tolist()
    except MemoryError:
        pass
    else:
        raise AssertionError(dt)
print("ok")
"""
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )
