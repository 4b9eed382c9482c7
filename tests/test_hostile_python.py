"""Python code run in the middle of a godlpack call must not crash it.

Each crash-prone case runs in a child interpreter (conftest's run_python): a
regression kills the child, and the test reports its exit status and output.
- use-after-free: __index__/__float__ that empty the list being read, in every
  place that walks a sequence, and a second thread replacing a list's contents;
- memory: a conversion under RLIMIT_AS, and its peak, bounded by the result's size;
- int64 limits: arange lengths, byte sizes, dimensions;
- the exception classes Python and NumPy use;
- the C element loops (convert.c) agree with the Go rules they shortcut;
- a short fixed-seed round of tests/fuzz_hostile.py.
"""

from __future__ import annotations

import os
import sys

import godlpack as g
import numpy as np
import pytest
from conftest import FREE_THREADED, run_python
from test_export_numpy import CapsuleHolder

HERE = os.path.dirname(os.path.abspath(__file__))


def assert_child_ok(proc, marker: str = "ok") -> None:
    assert proc.returncode == 0 and marker in proc.stdout, (
        f"child exited {proc.returncode}\n"
        f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-3000:]}"
    )


# ---- borrowed items across Python code -----------------------------------------------

EVIL = """
import godlpack as g
L = []
class E:
    def _evil(self):
        L.clear()
        globals()["junk"] = [bytearray(64) for _ in range(100)]
    def __index__(self):
        self._evil(); return 2
    def __float__(self):
        self._evil(); return 2.0
    def __complex__(self):
        self._evil(); return 2j
a = g.zeros(6)
call = lambda: {call}
for _ in range(200):
    L[:] = [E() for _ in range({n})]
    try:
        call()
    except Exception:
        pass
print("ok")
"""

SEQUENCE_WALKERS = {
    "zeros": "g.zeros(L)",
    "empty": "g.empty(L)",
    "ones": "g.ones(L, dtype='int8')",
    "full-shape": "g.full(L, 1.5)",
    "asarray-flat": "g.asarray(L)",
    "asarray-flat-float32": "g.asarray(L, dtype='float32')",
    "asarray-flat-float16": "g.asarray(L, dtype='float16')",
    "asarray-flat-int8": "g.asarray(L, dtype='int8')",
    "asarray-nested": "g.asarray([L, L])",
    "asarray-deep": "g.asarray([[L, L], [L, L]], dtype='complex64')",
    "setitem-slice": "a.__setitem__(slice(None), L)",
    "setitem-index": "a.__setitem__(L[0] if L else 0, 1.0)",
    "reshape": "g.zeros(64).reshape(L)",
    "from_dlpack-device": "g.from_dlpack(a, device=L)",  # 2 items: see ITEMS
    "getitem-tuple": "a[tuple(L[:1])]",
    "arange": "g.arange(*L[:3])",
    "Array": "g.Array(L, dtype='float64')",
}


# How many hostile items each call's list gets (6 unless it needs a length).
ITEMS = {"from_dlpack-device": 2}


@pytest.mark.parametrize("name", SEQUENCE_WALKERS)
def test_item_that_empties_its_list_does_not_crash(name):
    code = EVIL.replace("{call}", SEQUENCE_WALKERS[name]).replace("{n}", str(ITEMS.get(name, 6)))
    assert_child_ok(run_python(code))


def test_kwargs_values_are_held_while_python_runs():
    # Called through functools.partial, dtype= is held only by two dicts (the
    # partial's keywords and the call's copy), which an __index__ of the shape can
    # clear, then fill the freed memory with look-alikes naming another dtype: the
    # dtype read after the shape must still be the one passed. (With plain call
    # syntax the caller's stack holds the value too.)
    code = """
import functools, gc, godlpack as g
class DType:
    name = "float32"
class Impostor:
    name = "int8"
class E:
    def __index__(self):
        for d in gc.get_objects():
            if isinstance(d, dict) and isinstance(d.get("dtype"), DType):
                d.clear()
        globals()["junk"] = [Impostor() for _ in range(1000)]
        return 2
for _ in range(50):
    f = functools.partial(g.zeros, dtype=DType())
    a = f([E()])
    assert a.dtype == "float32", a.dtype
print("ok")
"""
    assert_child_ok(run_python(code))


def test_second_thread_replacing_fractions_does_not_crash():
    # No hostile code: Fraction.__float__ runs Python, which lets the other thread in.
    code = """
import fractions, sys, threading, time, godlpack as g
sys.setswitchinterval(1e-5)
L = [fractions.Fraction(i, 3) for i in range(200)]
stop = False
def mutate():
    while not stop:
        L[:] = [fractions.Fraction(i, 7) for i in range(200)]
        L[:] = [fractions.Fraction(i, 5) for i in range(100)]
t = threading.Thread(target=mutate)
t.start()
done = 0
end = time.monotonic() + 3
while time.monotonic() < end:
    try:
        g.asarray(L)
        g.asarray([L, L], dtype="float32")
        done += 1
    except Exception:
        pass
stop = True
t.join()
print("ok", done)
"""
    assert_child_ok(run_python(code, timeout=120))


def test_list_that_changes_size_raises_runtime_error():
    L = [1.0, 2.0, 3.0]

    class Shrink:
        def __float__(self):
            del L[1:]
            return 0.0

    L[0] = Shrink()
    if FREE_THREADED:  # a snapshot converts (docs/internals/free-threading.md, "Nested lists")
        assert g.asarray(L).tolist() == [0.0, 2.0, 3.0] and L == [L[0]]
        return
    with pytest.raises(RuntimeError, match="changed size"):
        g.asarray(L)


# ---- memory ----------------------------------------------------------------------------


def test_conversion_under_address_space_limit_succeeds_and_peak_is_the_result():
    # bench/bench_convert.py's measuring child, under RLIMIT_AS 4 GiB: Go's
    # out-of-memory used to abort it (48 bytes of intermediate per element).
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
    from bench_convert import peak_code

    proc = run_python(peak_code("godlpack", 40_000_000, limit=4 << 30), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # free-threaded: plus the snapshot of the list (one pointer an element, as many
    # bytes as this float64 result), which a list other threads change needs
    # (docs/internals/free-threading.md, "Nested lists")
    assert float(proc.stdout) <= (3.1 if FREE_THREADED else 2.0), proc.stdout  # 3.0 measured
    proc = run_python(
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "import godlpack as g\n"
        "try:\n"
        "    g.zeros(1 << 40)  # 4 TiB: the C allocation fails\n"
        "except MemoryError:\n"
        "    print('ok')\n"
    )
    assert_child_ok(proc)


def test_repeated_lists_describing_more_elements_than_memory_raise_memory_error():
    # In a child under a cap: walking 2**61 elements would exhaust memory or time.
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import godlpack as g
L = [0.0, 0.0]
for _ in range(60):
    L = [L, L]
for dt in (None, "float32"):
    try:
        g.asarray(L, dtype=dt)
    except MemoryError:
        pass
    else:
        raise SystemExit("no MemoryError")
print("ok")
"""
    assert_child_ok(run_python(code, timeout=60))


def test_huge_strings_and_type_names_are_not_copied_whole():
    # A 64 MiB dtype name or keyword must give TypeError, with a bounded message.
    big = "x" * (64 << 20)
    with pytest.raises(TypeError) as info:
        g.zeros(2, dtype=big)
    assert len(str(info.value)) < 10_000
    with pytest.raises(TypeError) as info:
        g.zeros(2, **{big: 1})
    assert len(str(info.value)) < 10_000


# ---- arange near the int64 limits --------------------------------------------------------

ARANGES = [
    (-(2**63), 2**63 - 1, 2**62),
    (0, 2**63 - 1, 2**62),
    (2**63 - 1, -(2**63), -(2**62)),
    (-(2**63), 2**63 - 1, 2**63 - 1),
    (2**63 - 2, 2**63 - 1, 1),
    (-(2**63), -(2**63) + 3, 1),
    (2**63 - 1, -(2**63), -(2**63)),
    (5, -5, -3),
    (0, 10, 3),
]


@pytest.mark.parametrize("args", ARANGES, ids=[str(a) for a in ARANGES])
def test_arange_near_int64_limits_is_exact(args):
    # Python's range is exact; NumPy agrees except where it computes the length in
    # doubles: for (-2**63, 2**63 - 1, 2**63 - 1) it gives 2 elements, but
    # 2**63 - 2 < stop is the third.
    assert g.arange(*args).tolist() == list(range(*args))


def test_arange_the_issue_ranges_match_numpy():
    assert (
        g.arange(-(2**63), 2**63 - 1, 2**62).tolist()
        == np.arange(-(2**63), 2**63 - 1, 2**62).tolist()
    )
    assert g.arange(0, 2**63 - 1, 2**62).tolist() == np.arange(0, 2**63 - 1, 2**62).tolist()


@pytest.mark.parametrize(
    "args", [(0, 2**64 - 1, 2**62), (2**63, 2**64 - 1, 2**62), (-(2**63), 2**63, 2**62)]
)
def test_arange_past_int64_is_float64_like_numpy(args):
    got, want = g.arange(*args), np.arange(*args)
    assert got.dtype == want.dtype.name and got.tolist() == want.tolist()


def test_arange_with_infinite_step_gives_start_like_numpy():
    for args in [
        (0, 10, float("inf")),
        (0, -10, float("-inf")),
        (0, 10, float("-inf")),
        (3.0, 4.0, 1e308),
    ]:
        assert g.arange(*args).tolist() == np.arange(*args).tolist(), args


def test_arange_of_more_elements_than_int64_is_value_error():
    with pytest.raises(ValueError):
        g.arange(-(2**63), 2**63 - 1, 1)


# ---- at most 64 dimensions --------------------------------------------------------------


def test_indexing_past_64_dims_is_index_error():
    assert g.zeros(3)[(None,) * 63].ndim == 64
    with pytest.raises(IndexError, match="64"):
        g.zeros(3)[(None,) * 64]
    with pytest.raises(IndexError):
        g.zeros(3)[(None,) * 200]
    with pytest.raises(IndexError):
        g.zeros(3)[(None,) * 10**6]  # refused before anything its size is made
    with pytest.raises(IndexError):
        g.zeros(3)[(Ellipsis,) + (None,) * 70]


def test_constructors_and_reshape_past_64_dims_are_value_error():
    with pytest.raises(ValueError):
        g.zeros((1,) * 65)
    with pytest.raises(ValueError):
        g.zeros(1).reshape((1,) * 65)
    with pytest.raises(ValueError):
        g.zeros(1).reshape([1] * 10**6)


def test_repr_of_64_dims_is_bounded():
    r = repr(g.zeros(3)[(None,) * 63])
    assert len(r) < 20_000
    assert r == repr(np.zeros(3, dtype=np.float32)[(None,) * 63]).replace("array", "Array")


# ---- the exception classes Python and NumPy use -----------------------------------------


def test_nan_into_int_is_value_error():
    for dt in ["int8", "int64", "uint64"]:
        with pytest.raises(ValueError, match="NaN"):
            g.asarray([float("nan")], dtype=dt)
        with pytest.raises(ValueError, match="NaN"):
            g.full(2, float("nan"), dtype=dt)


def test_big_but_representable_sizes_are_memory_error():
    with pytest.raises(MemoryError):
        g.zeros(2**60, dtype="int8")
    with pytest.raises(MemoryError):
        g.empty(2**61, dtype="float4_e2m1fn")


def test_full_takes_zero_dim_tensors_like_numpy():
    import torch

    assert g.full(2, torch.tensor(1.5)).tolist() == [1.5, 1.5]
    assert g.full(2, torch.tensor(3)).tolist() == [3, 3]
    assert g.full(2, np.float32(2.5)).tolist() == [2.5, 2.5]
    assert g.asarray([torch.tensor(0.5), 1.0]).tolist() == [0.5, 1.0]


def test_max_version_with_a_huge_minor_is_ours():
    a = g.arange(3)
    for mv in [(1, 2**70), (2**70, 0), (1, 2**64)]:
        cap = a.__dlpack__(max_version=mv)
        assert "dltensor_versioned" in repr(cap)
        assert np.from_dlpack(CapsuleHolder(cap)).tolist() == [0, 1, 2]


# ---- convert.c's shortcuts agree with the Go rules ---------------------------------------

VALUES = [
    0,
    1,
    -1,
    127,
    128,
    -128,
    -129,
    255,
    256,
    2**31,
    -(2**31) - 1,
    2**53 + 1,
    2**63 - 1,
    -(2**63),
    2**63,
    2**64 - 1,
    0.0,
    -0.0,
    1.5,
    -1.5,
    255.9,
    -128.9,
    1e300,
    -1e300,
    2.0**63,
    -(2.0**63),
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    False,
    1 + 2j,
    3j,
]
# The dtypes convert.c converts itself (DLPack codes int, uint, bool; float and
# complex of 32 bits or more); the others always take the Go path.
CONVERT_DTYPES = [
    name
    for name, code, bits, _ in g._godlpack._dtype_table()
    if code in (0, 1, 6) or (code in (2, 5) and bits >= 32)
]


class SubInt(int):  # not an exact int: convert.c hands it to Go
    pass


class SubFloat(float):
    pass


class SubComplex(complex):
    pass


def via_go(v):
    if isinstance(v, bool):
        return np.bool_(v)  # numpy.bool: Go's path, same value
    return {int: SubInt, float: SubFloat, complex: SubComplex}[type(v)](v)


def outcome(values, dt):
    try:
        return g.asarray(values, dtype=dt).tolist()
    except Exception as e:  # noqa: BLE001 - the class is the outcome compared
        return type(e)


@pytest.mark.parametrize("dt", CONVERT_DTYPES)
def test_c_element_loop_agrees_with_go_rules(dt):
    for v in VALUES:
        fast, slow = outcome([v], dt), outcome([via_go(v)], dt)
        if isinstance(fast, list) and isinstance(slow, list):
            assert repr(fast) == repr(slow), (v, dt, fast, slow)
        else:
            assert fast == slow, (v, dt, fast, slow)


def test_inferred_dtypes():
    assert g.asarray([1, 2]).dtype == "int64"
    assert g.asarray([True, 2]).dtype == "int64"
    assert g.asarray([1, 2.5]).dtype == "float64"
    assert g.asarray([2**63]).dtype == "uint64"
    assert g.asarray([1, 1j]).dtype == "complex128"
    assert g.asarray([[True], [False]]).dtype == "bool"
    assert g.asarray([]).dtype == "float64"
    assert g.asarray([SubInt(3), np.float32(0.5)]).dtype == "float64"


@pytest.mark.parametrize("dt", CONVERT_DTYPES + ["float16", "bfloat16", "float8_e4m3fn"])
def test_tolist_matches_numpy_and_round_trips(dt):
    base = (
        np.arange(-6, 6).reshape(3, 4) if dt not in ("bool",) else np.arange(12).reshape(3, 4) % 2
    )
    if dt.startswith("uint"):
        base = np.abs(base)
    a = g.asarray(base.tolist(), dtype=dt)
    view = a[::2, ::-1]
    want = np.asarray(base.tolist(), dtype=np.float64 if "float" in dt else None)[::2, ::-1]
    got = view.tolist()
    assert np.array_equal(
        np.asarray(got, dtype=complex), np.asarray(want.tolist(), dtype=complex)
    ), (got, want)
    assert g.asarray(got, dtype=dt).tolist() == got


# ---- the fuzz, briefly ------------------------------------------------------------------


def test_hostile_fuzz_short_fixed_seed_round():
    proc = run_python(
        "import sys\n"
        "sys.argv = ['fuzz', '--seed', '14', '--iterations', '3000', '--seconds', '60']\n"
        f"sys.path.insert(0, {HERE!r})\nimport fuzz_hostile\nfuzz_hostile.main()",
        timeout=180,
    )
    assert_child_ok(proc, "fuzz_hostile ok")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
