"""The C fast paths of godlpack.Array (array_fast.c) answer exactly as the Go code
they stand in front of, and the fast allocation, fill, arange and copy loops give
NumPy's values.

The C paths take exact ints and floats; the same operation spelled with an int
subclass (so C declines and Go calls its __index__) runs the Go path. Each test compares
the two spellings, result for result and error for error, and with NumPy.
"""

from __future__ import annotations

import operator
import random

import godlpack as g
import numpy as np
import pytest

FAST_DTYPES = [
    "bool",
    *(f"{k}{b}" for k in ("int", "uint") for b in (8, 16, 32, 64)),
    "float32",
    "float64",
]
# Element reads and writes of these go to Go; their views still come from C.
SLOW_DTYPES = ["float16", "bfloat16", "complex64", "complex128", "float8_e4m3fn"]


class Idx(int):
    """An int that is not exactly int: the C paths decline it, Go takes its __index__."""


def go_key(key):
    """The same key spelled with Idx, which sends it down the Go path."""
    if isinstance(key, tuple):
        return tuple(go_key(k) for k in key)
    if isinstance(key, slice):
        return slice(*(None if v is None else Idx(v) for v in (key.start, key.stop, key.step)))
    return Idx(key)


def outcome(fn, *args):
    """fn(*args) as (result kind and value) or (exception type and message)."""
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the point is to compare any error
        return ("error", type(e).__name__, str(e))
    if isinstance(r, g.Array):
        return ("array", r.shape, r.strides, r.dtype, r.readonly, r.data_ptr, r.tolist())
    return ("scalar", type(r).__name__, repr(r))


def random_key(rng: random.Random, shape: tuple[int, ...]):
    parts = []
    for d in shape[: rng.randint(1, len(shape) + 1)]:  # sometimes one too many
        if rng.random() < 0.5:
            parts.append(rng.randint(-d - 2, d + 1))  # out of range now and then
        else:
            start, stop = (rng.choice([None, rng.randint(-d - 3, d + 3)]) for _ in range(2))
            parts.append(slice(start, stop, rng.choice([None, 1, 2, -1, -3, 0, 2**70])))
    if len(parts) == 1 and rng.random() < 0.5:
        return parts[0]
    return tuple(parts)


def random_array(rng: random.Random, dtype: str) -> g.Array:
    shape = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 3)))
    base = g.asarray(np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) % 7)
    a = g.asarray(base, dtype=dtype)
    if rng.random() < 0.3:
        a = a[::-1] if a.shape[0] else a  # a strided view
    return a


@pytest.mark.parametrize("dtype", FAST_DTYPES + SLOW_DTYPES)
def test_getitem_fast_path_answers_as_go(dtype):
    rng = random.Random(dtype)
    for _ in range(300):
        a = random_array(rng, dtype)
        key = random_key(rng, a.shape)
        fast, slow = outcome(operator.getitem, a, key), outcome(operator.getitem, a, go_key(key))
        assert fast == slow, (a.shape, key)


@pytest.mark.parametrize("dtype", FAST_DTYPES + SLOW_DTYPES)
def test_setitem_fast_path_writes_as_go(dtype):
    rng = random.Random("set" + dtype)
    values = [
        0,
        1,
        -1,
        7,
        127,
        128,
        255,
        256,
        -129,
        2**31,
        2**63 - 1,
        2**63,
        -(2**63),
        2**64,
        0.5,
        -2.5,
        1e39,
        float("nan"),
        float("inf"),
        True,
        16777217,
        2**53 + 1,
    ]
    for _ in range(300):
        a = random_array(rng, dtype)
        b = a.copy()
        a = a.copy()  # writable, same contents
        key = random_key(rng, a.shape)
        v = rng.choice(values)
        fast = outcome(operator.setitem, a, key, v)
        assert fast == outcome(operator.setitem, b, go_key(key), v), (a.shape, key, v)
        assert a.tolist() == b.tolist() or (a.tolist() != a.tolist()), (
            a.shape,
            key,
            v,
        )  # NaN != NaN


def test_setitem_converts_like_numpy():
    for dtype in ["float32", "float64", "int8", "uint16", "int64"]:
        a, n = g.zeros(3, dtype=dtype), np.zeros(3, dtype=dtype)
        for v in [16777217, 2**53 + 1, 0.1, -3, 100, 1e10] if "float" in dtype else [3, 100]:
            a[1] = v
            n[1] = v
            assert a[1] == n[1] and type(a[1]) is type(n[1].item()), (dtype, v)


def test_setitem_errors_unchanged():
    a = g.zeros((2, 3), dtype="int8")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        a[1, 2] = 300
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        g.zeros(3, dtype="uint8")[0] = -1
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        a[1, 3] = 1
    with pytest.raises(IndexError, match="too many indices"):
        a[1, 2, 0] = 1
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        a.toreadonly()[0, 0] = 1
    with pytest.raises(ValueError, match="cannot delete array elements"):
        del a[0, 0]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        a[::0] = 1
    with pytest.raises(IndexError, match="cannot fit 'int' into an index-sized integer"):
        a[2**70, 0] = 1
    assert a.tolist() == [[0, 0, 0], [0, 0, 0]]  # nothing written by the failures


def test_iteration_yields_rows_and_scalars():
    n = np.arange(12, dtype=np.int16).reshape(3, 4)
    a = g.asarray(n)
    assert [r.tolist() for r in a] == n.tolist()
    assert list(a[1]) == n[1].tolist()
    assert all(type(x) is int for x in a[1])
    assert [x.tolist() for x in g.zeros((2, 0, 3))] == [[], []]
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(g.asarray(1.0))


@pytest.mark.parametrize(
    "shape",
    [
        (4, 6),
        ((4, 6),),
        (-1,),
        (2, -1, 3),
        (24,),
        (1, 24, 1),
        (0,),
        (5, 5),
        (-1, -1),
        (-2, 12),
        (2**62, 2**3),
        (np.int64(4), 6),
        ([4, 6],),
        (4.0, 6),
        (),
    ],
)
@pytest.mark.parametrize("view", ["contiguous", "strided", "empty", "scalar"])
def test_reshape_fast_path_answers_as_go(shape, view):
    base = g.arange(48, dtype="float32")
    a = {
        "contiguous": base[:24],
        "strided": base[::2],
        "empty": g.zeros((0, 4)),
        "scalar": g.asarray(1.0),
    }[view]
    go_shape = tuple(Idx(s) if type(s) is int else s for s in shape)  # Go's path: __index__
    assert outcome(lambda: a.reshape(*shape)) == outcome(lambda: a.reshape(*go_shape))


@pytest.mark.parametrize("dtype", FAST_DTYPES + SLOW_DTYPES + ["float4_e2m1fn", "float6_e2m3fn"])
def test_attributes(dtype):
    n = np.zeros((3, 5), dtype=np.uint8)
    a = g.zeros((3, 5), dtype=dtype)[:, 1:4] if dtype[-1] != "n" else g.zeros((3, 5), dtype=dtype)
    width = (
        np.dtype(dtype).itemsize
        if dtype in FAST_DTYPES + ["float16", "complex64", "complex128"]
        else None
    )
    assert a.ndim == 2 and a.dtype == dtype and isinstance(a.dtype, g.dtype)
    assert a.size == a.shape[0] * a.shape[1]
    assert a.readonly is False and a.toreadonly().readonly is True
    if width is not None:
        assert a.itemsize == width and a.nbytes == a.size * width
        assert a.shape == (3, 3) and a.strides == (5, 1)
    del n


# ---- allocation, fills, arange, copies: the fast loops against NumPy ----


def test_large_blocks_are_aligned_and_zeros_are_zero():
    mib = 1 << 20
    for _ in range(3):
        dirty = g.full(3 * mib, 7, dtype="int32")  # 12 MiB: freed, then likely reused
        del dirty
        z = g.zeros(3 * mib, dtype="int32")
        assert z.data_ptr % 256 == 0
        assert not np.from_dlpack(z).any()
        e = g.empty((1024, 1024 + 3), dtype="int8")
        assert e.data_ptr % 256 == 0
        small = g.zeros(5, dtype="float64")
        assert small.data_ptr % 256 == 0 and small.tolist() == [0.0] * 5


@pytest.mark.parametrize(
    "args",
    [
        (0, 10),
        (5,),
        (3, 50, 7),
        (10, -10, -3),
        (-5, 5),
        (0.5, 10.25, 0.75),
        (1, 2, 0.1),
        (10, 0, -0.5),
        (2**40, 2**40 + 100, 3),
        (0.0, 1e5, 1.0),
        (2**53, 2**53 + 10),
        (-300, 300, 37),
    ],
)
@pytest.mark.parametrize(
    "dtype",
    [
        None,
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "uint64",
        "float32",
        "float64",
        "float16",
        "bfloat16",
        "complex64",
        "bool",
    ],
)
def test_arange_values_are_each_value_converted(args, dtype):
    # The typed loops give what converting start + i*step one value at a time gives
    # (asarray of the list runs that conversion), and the same first error.
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    count = (
        max(0, -(-(stop - start) // step))
        if all(type(v) is int for v in (start, stop, step))
        else None
    )
    if count is None:
        import math

        count = max(0, math.ceil((stop - start) / step))
        values = [float(start) + i * float(step) for i in range(count)]
    else:
        values = [start + i * step for i in range(count)]
    want = outcome(
        lambda: g.asarray(
            values, dtype=dtype or ("int64" if count and type(values[0]) is int else "float64")
        )
    )
    got = outcome(lambda: g.arange(*args, dtype=dtype))
    if want[0] == "error":
        assert got[0] == "error" and got[1] == want[1], (got, want)
    else:
        assert got[0] == "array" and got[6] == want[6] and got[3] == want[3]


def test_arange_out_of_range_reports_the_first_bad_value():
    with pytest.raises(OverflowError, match="Python integer 128 out of bounds for int8"):
        g.arange(0, 300, dtype="int8")
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        g.arange(5, -5, -1, dtype="uint8")


@pytest.mark.parametrize(
    "dtype", ["int8", "uint16", "float32", "float64", "complex128", "bfloat16", "float16"]
)
@pytest.mark.parametrize(
    "key", [np.s_[...], np.s_[:, ::2], np.s_[::-1], np.s_[1::3, 2:], np.s_[:, 3]]
)
def test_copies_and_fills_of_every_layout(dtype, key):
    import ml_dtypes

    npdt = getattr(ml_dtypes, dtype) if dtype == "bfloat16" else np.dtype(dtype)
    n = (np.arange(64 * 37) % 11).astype(npdt).reshape(64, 37)
    a = g.asarray(n) if dtype != "bfloat16" else g.asarray(n.astype(np.float32), dtype="bfloat16")
    view = a[key]
    want = n[key]
    assert np.array_equal(
        np.asarray(view.copy().tolist()),
        want.astype(np.float64).tolist() if dtype == "bfloat16" else want.tolist(),
    )
    a[key] = 3
    n[key] = 3
    assert (
        a.tolist() == n.astype(np.float64).tolist()
        if dtype == "bfloat16"
        else a.tolist() == n.tolist()
    )
    big = g.full((300, 301), 2.5 if "int" not in dtype else 2, dtype=dtype)[::2, ::3]
    big[...] = 1
    assert set(np.asarray(big.copy().tolist()).ravel().tolist()) == {1}


# Values whose bytes differ within an element (and -0.0, whose bytes are not all
# zero), so a fill that replicated the wrong width or byte order would show.
BLOCK_FILL_VALUES = {"bool": [True], "complex64": [1.5 - 2j, 0j], "complex128": [1.5 - 2j, 3 + 3j]}
for _b in (8, 16, 32, 64):
    BLOCK_FILL_VALUES[f"int{_b}"] = [-2, int.from_bytes(bytes(range(1, _b // 8 + 1)), "little")]
    BLOCK_FILL_VALUES[f"uint{_b}"] = [2**_b - 3, 0]
for _f in ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn"):
    BLOCK_FILL_VALUES[_f] = [-2.5, -0.0, 1 / 3]


@pytest.mark.parametrize("dtype", FAST_DTYPES + SLOW_DTYPES)
def test_large_contiguous_fills_store_numpys_bytes(dtype):
    # Contiguous fills from 32 KiB are one string store on x86-64 (fill_block_amd64.go);
    # a[1:-1] starts one element past an aligned block and must leave both ends alone.
    import ml_dtypes

    npdt = getattr(ml_dtypes, dtype, None) or np.dtype(dtype)
    n = 40_000  # 40 KB even for 1-byte elements
    for v in BLOCK_FILL_VALUES[dtype]:
        want = np.full(n, v, dtype=npdt).view(np.uint8)
        full = g.full(n, v, dtype=dtype)
        assert np.array_equal(np.asarray(full).view(np.uint8), want), (dtype, v)
        a = g.full(n + 2, 7, dtype=dtype)
        a[1:-1] = v
        got = np.asarray(a).view(np.uint8)
        item = np.dtype(npdt).itemsize
        edge = np.full(1, 7, dtype=npdt).view(np.uint8)
        assert np.array_equal(got[item:-item], want), (dtype, v)
        assert np.array_equal(got[:item], edge) and np.array_equal(got[-item:], edge)


@pytest.mark.parametrize(
    "dtype",
    FAST_DTYPES + SLOW_DTYPES + ["float4_e2m1fn", "float6_e3m2fn", "float8_e8m0fnu", "float8_e5m2"],
)
@pytest.mark.parametrize("shape", [(0,), (7,), (3, 0), (2, 3, 4)])
def test_tolist_rows_match_element_reads(dtype, shape):
    # tolist builds rows in C (or from Go-decoded doubles); a[i, j, ...] reads one
    # element at a time: both must give the same Python objects.
    a = g.asarray((np.arange(int(np.prod(shape))) % 5).reshape(shape).tolist(), dtype=dtype)
    packed = dtype.startswith(("float4", "float6"))  # no strided views of packed elements
    views = [a] if packed else [a, a[..., ::-1]]
    for v in views:
        got = v.tolist()
        for idx in np.ndindex(*v.shape):
            x = got
            for i in idx:
                x = x[i]
            want = v[idx]
            assert type(x) is type(want) and (x == want or x != x), (idx, x, want)


def array_facts(a):
    return (
        a.shape,
        a.strides,
        a.dtype,
        a.nbytes,
        a.itemsize,
        a.readonly,
        a.flags,
        a.data_ptr % 256,
    )


@pytest.mark.parametrize("fn", ["empty", "zeros"])
@pytest.mark.parametrize(
    "args, kwargs",
    [
        (((4, 4),), {}),
        ((7,), {}),
        (([2, 3],), {"dtype": "int64"}),
        (((2, 0, 3), "complex64"), {}),
        ((3, "float4_e2m1fn"), {}),
        ((5,), {"dtype": None}),
        ((), {"shape": 3}),  # keywords other than dtype: Go
        (((2, 3),), {"dtype": np.float64}),  # a NumPy dtype: Go
        (((2, 3), "bool_"), {}),  # an alias only Go knows
        ((()), {}),
    ],
)
def test_constructor_fast_path_makes_what_go_makes(fn, args, kwargs):
    # Idx in the shape sends the call down the Go path.
    def go_spelling(args):
        if not args:
            return args
        s = args[0]
        s = Idx(s) if type(s) is int else type(s)(Idx(v) for v in s)
        return (s, *args[1:])

    fast = getattr(g, fn)(*args, **kwargs) if args or kwargs else None
    if fast is None:
        with pytest.raises(TypeError, match="missing required argument 'shape'"):
            getattr(g, fn)()
        return
    slow = getattr(g, fn)(*go_spelling(args), **kwargs)
    assert array_facts(fast) == array_facts(slow)
    if fn == "zeros":
        assert fast.tolist() == slow.tolist()


@pytest.mark.parametrize(
    "args, kwargs, exc, match",
    [
        (((2, -1),), {}, ValueError, "negative dimensions are not allowed"),
        (((2**62, 2**62),), {}, ValueError, "array is too big"),
        ((tuple([1] * 65),), {}, ValueError, "at most 64"),
        (((2,), "nope"), {}, TypeError, "data type 'nope' not understood"),
        (((2,), "float32", 1), {}, TypeError, "at most 2 arguments"),
        (
            ((2,),),
            {"dtype": "float32", "order": "C"},
            TypeError,
            "unexpected keyword argument 'order'",
        ),
        (((2,), "float32"), {"dtype": "int8"}, TypeError, "multiple values for argument 'dtype'"),
        (((2.0,),), {}, TypeError, "shape entry must be an integer"),
        ((2**63,), {}, OverflowError, "shape entry does not fit in int64"),
    ],
)
@pytest.mark.parametrize("fn", ["empty", "zeros"])
def test_constructor_errors_unchanged(fn, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        getattr(g, fn)(*args, **kwargs)


class F(float):
    """A float that is not exactly float: convert.c hands it to Go one item at a time."""


NARROW_FLOATS = [
    "float16",
    "bfloat16",
    *(
        f"float8_{f}"
        for f in (
            "e3m4",
            "e4m3",
            "e4m3b11fnuz",
            "e4m3fn",
            "e4m3fnuz",
            "e5m2",
            "e5m2fnuz",
            "e8m0fnu",
        )
    ),
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]


def special_floats(rng: random.Random, n: int) -> list[float]:
    """NaN, ±inf, ±0, subnormals, ties (few mantissa bits), out-of-range, random."""
    fixed = [float("nan"), -float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 5e-324, -5e-324]
    fixed += [2.0**e * s for e in range(-150, 130, 1) for s in (1, -1, 1.5, -1.5, 1.25, 1.75)]
    fixed += [1e300, -1e300, 65504.0, 65520.0, 448.0, 464.0, 57344.0, 61440.0, 3.4e38]
    out = list(fixed)
    while len(out) < n:
        m = rng.randint(-(2**12), 2**12)  # few mantissa bits: many ties in every format
        out.append(
            m * 2.0 ** rng.randint(-160, 140) if rng.random() < 0.7 else rng.uniform(-1e5, 1e5)
        )
    return out


@pytest.mark.parametrize("dtype", NARROW_FLOATS)
def test_staged_floats_encode_as_the_per_item_path(dtype):
    # Exact floats are encoded by Go a chunk at a time; float subclasses still take
    # goStoreItem one at a time: both must write the same bits, across chunk edges
    # (4096 values) and with other items (ints, subclasses) in between.
    rng = random.Random(dtype)
    vals = special_floats(rng, 9000)
    mixed = [v if i % 97 else (F(v) if i % 2 else int(i)) for i, v in enumerate(vals)]
    slow = [F(v) for v in mixed]
    for fast, per_item in [(vals, [F(v) for v in vals]), (mixed, slow)]:
        got = g.asarray(fast, dtype=dtype)
        want = g.asarray(per_item, dtype=dtype)
        assert got._bytes().tolist() == want._bytes().tolist()
    rows = [vals[i : i + 30] for i in range(0, 30 * 200, 30)]  # 2-d: chunks span rows
    got = g.asarray(rows, dtype=dtype)
    want = g.asarray([[F(v) for v in r] for r in rows], dtype=dtype)
    assert got.shape == (200, 30) and got._bytes().tolist() == want._bytes().tolist()


class CountsDLPack:
    """A producer that counts its __dlpack__ calls and answers with what it holds:
    an array to export, or an exception to raise."""

    def __init__(self, answer):
        self.answer, self.calls = answer, 0

    def __dlpack__(self, **kwargs):
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


class RefusingBytes(bytearray):
    """A buffer-protocol object whose __dlpack__ refuses: asarray then copies it."""

    def __dlpack__(self, **kwargs):
        raise BufferError("refused")


def asarray_cases():
    import torch

    yield "numpy", lambda: np.arange(12, dtype=np.int16).reshape(3, 4)[::2, ::-1]
    yield "numpy-readonly", lambda: np.frombuffer(b"abcd", dtype=np.uint8)
    yield "numpy-big-endian", lambda: np.arange(3, dtype=">i4")
    yield "torch", lambda: torch.arange(6.0)
    yield "torch-conj", lambda: torch.tensor([1 + 2j, 3j], dtype=torch.complex64).conj()
    yield "array", lambda: g.arange(5)
    yield "list", lambda: [1.5, 2.5]
    yield "bytes", lambda: b"xyz"
    yield "refusing-bytes", lambda: RefusingBytes(b"\x01\x02")
    yield "producer", lambda: CountsDLPack(np.arange(4.0))
    yield "producer-buffer-error", lambda: CountsDLPack(BufferError("no"))
    yield "producer-value-error", lambda: CountsDLPack(ValueError("bad"))
    yield "object", lambda: object()


@pytest.mark.parametrize(
    "make", [c[1] for c in asarray_cases()], ids=[c[0] for c in asarray_cases()]
)
def test_asarray_fast_path_answers_as_go(make):
    # asarray(x) with no keywords is constructors_fast.c's gd_asarray; copy=None
    # spells the same call through Go's keyword parsing (asarray_copy.go).
    x, y = make(), make()
    fast, slow = outcome(g.asarray, x), outcome(lambda o: g.asarray(o, copy=None), y)
    if fast[0] == "array":
        fast, slow = fast[:5] + fast[6:], slow[:5] + slow[6:]  # each its own memory
        assert (g.asarray(x) is x) == (g.asarray(y, copy=None) is y)
    assert fast == slow
    assert getattr(x, "calls", 0) == getattr(y, "calls", 0)


def test_arrays_made_and_dropped_in_turn_keep_their_own_fields():
    """Arrays of up to 4 dimensions are reused from a free list (array_type.c) once
    dropped: each new one has only its own shape, strides, dtype, flags and owner, and the
    type's reference count is where it was (each instance holds one reference)."""
    import sys

    base = g.arange(2 * 3 * 4 * 5, dtype="float64").reshape(2, 3, 4, 5)
    ro = g.from_dlpack(np.arange(6.0).reshape(2, 3).copy())
    ro_np = np.arange(6.0)
    ro_np.flags.writeable = False
    frozen = g.from_dlpack(ro_np)

    def cycle():
        v4 = base[:, ::2]
        v1 = base[1, 2, 3]
        assert v4.shape == (2, 2, 4, 5) and v4.strides == (60, 40, 5, 1)
        del v4
        v2 = ro[::-1]
        assert v2.shape == (2, 3) and v2.strides == (-3, 1) and v2.tolist()[0] == [3.0, 4.0, 5.0]
        v3 = base[1]
        assert v3.shape == (3, 4, 5) and v3.dtype == g.float64 and not v3.readonly
        del v2
        v0 = frozen[2:3].reshape(())
        assert v0.shape == () and v0.readonly and float(v0) == 2.0
        assert v1.shape == (5,) and v1.tolist() == [115.0, 116.0, 117.0, 118.0, 119.0]

    cycle()  # the first: any one-time cache made
    refs = sys.getrefcount(g.Array)
    for _ in range(2000):
        cycle()
    after = sys.getrefcount(g.Array)  # outside the assert, which holds g.Array itself
    assert after == refs
