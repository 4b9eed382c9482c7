"""Package dlpack/vec walks views in memory order (internal/walkplan: axes sorted by the
destination's strides, reversed ones flipped, contiguous ones merged; docs/fast-loops.md),
and godlpack.Array's strided copies do too (dlpack.CopyStrided). The order must not change
a result: examples/goext's scale, scale_ and sum over every layout (transposed, permuted
3-d, reversed, strided, broadcast, from NumPy and from PyTorch) give NumPy's results, a
dense permuted view sums to the bits of its memory's sum, and the layouts a walk may not
reorder (a zero-stride or self-overlapping dst) keep today's refusal and answer."""

from __future__ import annotations

import math

import godlpack
import numpy as np
import pytest
from _vec_sum import float32_sum_bound
from goext_build import load


@pytest.fixture(scope="module")
def goext():
    return load("goext")


def assert_sum(got: float, x) -> None:
    exact = math.fsum(np.asarray(x, np.float64).ravel().tolist())
    assert abs(got - exact) <= float32_sum_bound(x), (got, exact)


def layouts() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(41)
    x = rng.standard_normal((48, 40)).astype(np.float32)
    cube = rng.standard_normal((6, 10, 12)).astype(np.float32)
    return {
        "C": x,
        ".T": x.T,
        "permuted 3-d": cube.transpose(2, 0, 1),
        "permuted 3-d (0, 2, 1)": cube.transpose(0, 2, 1),
        "reversed": x[::-1, ::-1],
        "reversed .T": x[::-1].T,
        "step-2 .T": x[:, ::2].T,
        "rows of .T": x.T[3:30:2],
    }


@pytest.mark.parametrize("name", list(layouts()))
def test_numpy_layouts_give_numpys_results(goext, name):
    v = layouts()[name]
    want = v * np.float32(-2.5)
    got = np.from_dlpack(goext.scale(v, -2.5))
    assert got.shape == v.shape and np.array_equal(got, want)
    y = v.copy(order="K")  # a copy of v's layout: scale_ in place over it
    if v.base is not None:
        y = np.ndarray(
            v.shape, v.dtype, v.base.copy(), v.ctypes.data - v.base.ctypes.data, v.strides
        )
    goext.scale_(y, -2.5)
    assert np.array_equal(y, want)
    assert_sum(goext.sum(v), v)


@pytest.mark.parametrize("name", [".T", "permuted 3-d", "reversed"])
def test_a_dense_views_sum_is_its_memorys(goext, name):
    """A transposed, permuted or reversed C-contiguous array is its memory walked in
    order: its sum is the memory's, bit for bit (the C-order walk's line-by-line sums gave
    other bits)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((480, 400)) * 1e8
    x -= x.mean()  # a sum near 0 of large terms: its rounding shows the order of the additions
    v = {
        ".T": x.T,
        "permuted 3-d": x.reshape(60, 8, 400).transpose(2, 0, 1),
        "reversed": x[::-1, ::-1],
    }
    assert goext.sum(v[name]) == goext.sum(x.ravel())


def test_float32_sum_within_its_bound_in_every_layout(goext):
    """vec's float32 sum adds in float32 lanes (4 elements a lane a 256-element block, 4
    blocks a unit, the units in float64): on data made to hurt float32 lanes (2**24 then
    ones in each lane, large terms cancelling around small ones, magnitudes 1e-20..1e20)
    it stays within its bound of math.fsum, and a dense view's sum has the bits of its
    memory's, whatever the layout."""
    rng = np.random.default_rng(41)
    n = 3 * 16384 + 1000
    ones = np.ones(n, np.float32)
    ones[np.arange(n) % 256 < 64] = 2.0**24
    cancel = (rng.random(n) * 1e-3).astype(np.float32)
    cancel[::3] = (1e8 * (1 + rng.random(len(cancel[::3])))).astype(np.float32)
    cancel[::6] *= -1
    wide = (rng.standard_normal(n) * 10.0 ** rng.integers(-20, 21, n)).astype(np.float32)
    for x in (ones, cancel, wide):
        m = x[: 250 * 200].reshape(250, 200)
        want = goext.sum(m)
        assert_sum(want, m)
        for v in (m.T, m[::-1, ::-1], m.reshape(10, 25, 200).transpose(2, 0, 1)):
            assert goext.sum(v) == want
        assert_sum(goext.sum(x), x)
        assert_sum(goext.sum(m[:, ::3].T), m[:, ::3])


def test_torch_layouts_give_numpys_results(goext):
    torch = pytest.importorskip("torch")
    x = torch.arange(48 * 40, dtype=torch.float32).reshape(48, 40) / 7
    cube = torch.arange(6 * 10 * 12, dtype=torch.float32).reshape(6, 10, 12) / 3
    for t in (x.T, cube.permute(2, 0, 1), x.T[::2], x[:, ::3].T):
        want = t.numpy() * np.float32(1.5)
        assert np.array_equal(np.from_dlpack(goext.scale(t, 1.5)), want)
        mem = torch.zeros(t.untyped_storage().nbytes() // 4)  # t's layout, of a copy
        y = mem.as_strided(t.shape, t.stride(), t.storage_offset())
        y.copy_(t)
        goext.scale_(y, 1.5)
        assert np.array_equal(y.numpy(), want)
        assert_sum(goext.sum(t), t.numpy())


def test_broadcast_source_and_shared_element_dsts(goext):
    """A broadcast (zero-stride) source reads in any order; a dst whose indexes share an
    element (a zero stride, or strides 1 and 2 over 3x3) keeps today's refusal, untouched
    (vec's own walk keeps such a dst in C order: TestMemoryOrderSelfOverlappingDst)."""
    row = np.arange(7, dtype=np.float32)
    b = np.broadcast_to(row, (5, 7))
    for v in (b, b.T):
        assert np.array_equal(np.from_dlpack(goext.scale(v, 3.0)), v * np.float32(3))
        assert goext.sum(v) == pytest.approx(float(v.sum(dtype=np.float64)))
    mem = np.arange(1, 8, dtype=np.float32)
    for shape, strides in (((5, 7), (0, 4)), ((3, 3), (4, 8))):
        w = np.lib.stride_tricks.as_strided(mem, shape, strides)
        with pytest.raises(ValueError, match="share memory"):
            goext.scale_(w.T, 2.0)
        assert np.array_equal(mem, np.arange(1, 8, dtype=np.float32))


@pytest.mark.parametrize("name", list(layouts()))
def test_array_copies_and_assignments_in_any_layout(name):
    """godlpack.Array's strided copies (copy(), a[...] = b) walk dst's memory order, its
    conversions the source's, and give NumPy's elements."""
    v = layouts()[name]
    a = godlpack.asarray(v)
    assert np.array_equal(np.asarray(a.copy()), v)
    dst = godlpack.asarray(np.zeros(v.shape[::-1], np.float32).T)  # a transposed dst
    dst[...] = a
    assert np.array_equal(np.from_dlpack(dst), v)
    converted = godlpack.asarray(a, dtype=godlpack.float64)  # element by element, a's order
    assert np.array_equal(np.asarray(converted), v.astype(np.float64))
