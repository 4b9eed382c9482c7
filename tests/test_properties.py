"""Property tests (hypothesis): random layouts round-trip Go -> NumPy -> Go and
Go -> PyTorch -> Go with identical bytes and the right sharing.

For a random shape (0-6 dims, zero extents included), dtype and random bytes:

1. a Go-owned array is filled with the bytes and sliced on the Go side with random
   starts, stops and steps (negative ones too, for NumPy);
2. the view is exported (np.from_dlpack / torch.from_dlpack): the consumer sees the
   same memory (address, strides in bytes) and exactly the bytes a reference slicing
   of the same bytes gives (the reference is a NumPy array of opaque ``V<itemsize>``
   elements, so it knows nothing of the dtype);
3. the consumer transposes it (NumPy's transpose / torch's permute: godlpack has no
   transpose), and godlpack imports that back: again the same memory, strides and
   bytes, and the values Go reads (tolist) are the consumer's;
4. writes through either side are seen by the other, and the imported array keeps the
   consumer's memory alive once every other reference is gone; afterwards godlpack's
   live-allocation counter is back to its baseline.

Bounded: settings(max_examples=..., deadline=None) keep the file well under 30 s.
"""

from __future__ import annotations

import cmath
import math

import godlpack as g
import numpy as np
import torch
from conftest import FREE_THREADED, live_now
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NUMPY_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
# PyTorch takes these through DLPack too (not the float8_e3m4 / e4m3 / e4m3b11fnuz
# formats, nor the sub-byte float6 / float4 ones).
TORCH_DTYPES = [
    *NUMPY_DTYPES,
    "bfloat16",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
]

SETTINGS = settings(
    # Every example starts with a full collection (live_now), ~10-25 ms on the
    # free-threaded CPython here with PyTorch loaded (51 s of its run of this file, ~1 s
    # on the others): the layouts are the same code on every build, and the other five
    # CPythons draw 200 each.
    max_examples=50 if FREE_THREADED else 200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,  # no .hypothesis directory in the checkout
)


def meaningful_strides(shape, strides):
    """Strides where they mean something: none for an empty array, and none for a
    dimension of extent 1 (NumPy 2.2 and 2.4 export different strides there)."""
    if 0 in tuple(shape):
        return None
    return tuple(st if d > 1 else None for d, st in zip(shape, strides, strict=True))


@st.composite
def layouts(draw, negative_steps: bool):
    """(shape, dtype index into the list, slices, permutation, seed)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=6)))
    steps = [-3, -2, -1, 1, 2, 3] if negative_steps else [1, 2, 3]
    slices = []
    for d in shape:
        bound = st.one_of(st.none(), st.integers(-d - 2, d + 2))
        slices.append(
            slice(draw(bound), draw(bound), draw(st.one_of(st.none(), st.sampled_from(steps))))
        )
    if not shape:
        slices = [Ellipsis]  # a[()] of a 0-d array is a scalar; a[...] a 0-d view
    perm = tuple(draw(st.permutations(range(len(shape)))))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, tuple(slices), perm, seed


def random_bytes(dtype: str, count: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=count * itemsize_of(dtype), dtype=np.uint8)
    if dtype == "bool":
        raw &= 1  # a bool byte is 0 or 1
    return raw.tobytes()


def itemsize_of(dtype: str) -> int:
    return g.empty((), dtype=dtype).itemsize


def reference(raw: bytes, dtype: str, shape) -> np.ndarray:
    """The bytes as opaque elements: slicing and transposing them moves whole elements."""
    return np.frombuffer(raw, dtype=f"V{itemsize_of(dtype)}").reshape(shape)


def same_values(x, y) -> bool:
    """Nested lists of Python scalars, equal with NaN == NaN (and -0.0 == 0.0)."""
    if isinstance(x, list) or isinstance(y, list):
        return (
            isinstance(x, list)
            and isinstance(y, list)
            and len(x) == len(y)
            and all(same_values(p, q) for p, q in zip(x, y, strict=True))
        )
    if isinstance(x, complex) or isinstance(y, complex):
        x, y = complex(x), complex(y)
        return (x == y) or (cmath.isnan(x) and cmath.isnan(y))
    if isinstance(x, float) or isinstance(y, float):
        return (x == y) or (math.isnan(x) and math.isnan(y))
    return x == y and type(x) is type(y)


def two(dtype: str):
    """A value every dtype holds exactly (float8_e8m0fnu has only powers of two)."""
    return True if dtype == "bool" else 2


@SETTINGS
@given(layout=layouts(negative_steps=True), dtype=st.sampled_from(NUMPY_DTYPES))
def test_go_numpy_go_round_trip(layout, dtype):
    shape, slices, perm, seed = layout
    start = live_now()
    raw = random_bytes(dtype, math.prod(shape), seed)
    ref = reference(raw, dtype, shape)
    itemsize = itemsize_of(dtype)

    a = g.empty(shape, dtype=dtype)
    whole = np.from_dlpack(a)
    whole.reshape(-1).view(np.uint8)[:] = np.frombuffer(raw, np.uint8)

    # Go-side slicing, exported: same memory, the reference's bytes.
    v = a[slices]
    want = ref[slices]
    assert v.shape == want.shape
    n = np.from_dlpack(v)
    assert n.dtype == np.dtype(dtype) and n.shape == want.shape
    assert n.tobytes() == want.tobytes()
    assert meaningful_strides(n.shape, n.strides) == meaningful_strides(
        v.shape, tuple(s * itemsize for s in v.strides)
    )
    if n.size:
        assert n.ctypes.data == v.data_ptr
        assert np.shares_memory(n, whole)

    # NumPy-side transpose, imported back: same memory, strides, bytes and values.
    nt = n.transpose(perm)
    b = g.from_dlpack(nt)
    assert b.shape == nt.shape and b.dtype == dtype
    assert meaningful_strides(b.shape, b.strides) == meaningful_strides(
        nt.shape, tuple(s // itemsize for s in nt.strides)
    )
    if b.size:
        assert b.data_ptr == nt.ctypes.data
    assert np.from_dlpack(b).tobytes() == want.transpose(perm).tobytes()
    assert same_values(b.tolist(), nt.tolist())

    # Writes go both ways.
    if b.size:
        idx = tuple(d - 1 for d in b.shape)
        b[idx] = two(dtype)
        assert nt[idx] == two(dtype)
        assert whole[slices].transpose(perm)[idx] == two(dtype)
        nt[(0,) * nt.ndim] = 0
        assert b[(0,) * b.ndim] == 0 if b.ndim else b.tolist() == 0

    # The import alone keeps NumPy's view, and so the Go array's memory, alive.
    expect = nt.copy()
    del a, whole, v, n, nt
    assert same_values(b.tolist(), expect.tolist())
    del b
    assert live_now(expect=start) == start


@SETTINGS
@given(layout=layouts(negative_steps=False), dtype=st.sampled_from(TORCH_DTYPES))
def test_go_torch_go_round_trip(layout, dtype):
    shape, slices, perm, seed = layout
    start = live_now()
    raw = random_bytes(dtype, math.prod(shape), seed)
    ref = reference(raw, dtype, shape)

    a = g.empty(shape, dtype=dtype)
    whole = torch.from_dlpack(a)
    flat = whole.reshape(-1).view(torch.uint8)
    flat.copy_(torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else flat)
    assert whole.data_ptr() == a.data_ptr or not whole.numel()  # torch: 0 when empty

    def torch_bytes(t: torch.Tensor) -> bytes:
        if not t.numel():
            return b""
        # A fresh tensor: contiguous() keeps odd strides of extent-1 dims.
        return (
            torch.empty(t.shape, dtype=t.dtype)
            .copy_(t)
            .reshape(-1)
            .view(torch.uint8)
            .numpy()
            .tobytes()
        )

    v = a[slices]
    want = ref[slices]
    t = torch.from_dlpack(v)
    assert tuple(t.shape) == want.shape
    assert str(t.dtype) == f"torch.{dtype}"
    assert torch_bytes(t) == want.tobytes()
    assert meaningful_strides(t.shape, t.stride()) == meaningful_strides(v.shape, v.strides)
    if t.numel():
        assert t.data_ptr() == v.data_ptr

    tp = t.permute(perm)
    b = g.from_dlpack(tp)
    assert b.shape == tuple(tp.shape) and b.dtype == dtype
    assert meaningful_strides(b.shape, b.strides) == meaningful_strides(tp.shape, tp.stride())
    if b.size:
        assert b.data_ptr == tp.data_ptr()
    assert torch_bytes(torch.from_dlpack(b)) == want.transpose(perm).tobytes()
    assert same_values(b.tolist(), tp.tolist())

    if b.size:
        idx = tuple(d - 1 for d in b.shape)
        b[idx] = two(dtype)
        assert tp[idx].item() == two(dtype)
        assert whole[slices].permute(perm)[idx].item() == two(dtype)

    expect = tp.tolist()
    del a, whole, flat, v, t, tp
    assert same_values(b.tolist(), expect)
    del b
    assert live_now(expect=start) == start


@SETTINGS
@given(layout=layouts(negative_steps=True), dtype=st.sampled_from(NUMPY_DTYPES))
def test_imported_views_round_trip_without_copies(layout, dtype):
    """NumPy-owned memory, sliced by NumPy, imported, sliced by Go, exported again:
    every step views the same bytes (nothing is copied on the way)."""
    shape, slices, perm, seed = layout
    start = live_now()
    raw = random_bytes(dtype, math.prod(shape), seed)
    base = np.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)  # writable, NumPy-owned
    ref = reference(raw, dtype, shape)

    imported = g.from_dlpack(base.transpose(perm))
    assert imported.shape == base.transpose(perm).shape
    view = imported[slices]
    back = np.from_dlpack(view)
    want = ref.transpose(perm)[slices]
    assert back.tobytes() == want.tobytes()
    if back.size:
        assert np.shares_memory(back, base)
    del imported, view, back
    assert live_now(expect=start) == start
