"""examples/goext's inner loops, package dlpack/vec's (docs/fast-loops.md): the SIMD kernels
(simd/archsimd, built with GOEXPERIMENT=simd, the build backend's default: AVX-512, or
AVX2 and plain Go when $GODLPACK_VEC_KERNELS lowers the set) and the plain-Go loops (a
build without the experiment), the latter ones in child interpreters, give the same
results: sums and products of every tail length, start offset, stride (negative too) and
dtype, across the 2 MiB blocks the goroutines take in turn; and the sums are as
precise as documented (docs/fast-loops.md, docs/internals/vec.md): float64 sums to float64's
pairwise bound, float32 ones (float32 lanes) to ~6 float32 ulps of the sum of |x|."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from _vec_sum import float32_sum_bound
from goext_build import cpu_kernels, folder, load


@pytest.fixture(scope="module")
def goext():
    return load("goext")


def assert_sum(got: float, x: np.ndarray, rel: float) -> None:
    """got is x's sum: float64 within rel of math.fsum's; float32 within vec.Sum's bound
    for float32 lanes (tests/_vec_sum.py)."""
    want = math.fsum(np.asarray(x, np.float64).ravel().tolist())
    if x.dtype == np.float32:
        bound = float32_sum_bound(x)
        assert abs(got - want) <= bound, (got, want, bound)
    else:
        assert got == pytest.approx(want, rel=rel, abs=1e-13)


def check_kernels(goext) -> int:
    """Every check of the kernels, against exact references; returns how many ran.
    Shared by the in-process test (the SIMD build) and the child (the fallback)."""
    rng = np.random.default_rng(7)
    checks = 0
    base = {dt: rng.standard_normal(200).astype(dt) for dt in (np.float32, np.float64)}
    for dt, b in base.items():
        for off in range(0, 9):  # starts at every offset of a vector's elements
            for n in range(0, 70):  # tails of every length past 16-element steps
                x = b[off : off + n]
                assert_sum(goext.sum(x), x, rel=1e-14)
                r = np.from_dlpack(goext.scale(x, 1.75))
                assert r.dtype == dt and r.shape == x.shape
                assert np.array_equal(r, x * dt(1.75)), (dt, off, n)  # one rounding each
                checks += 2
    # strided and negative strides: the walk over any layout, not the flat kernels
    y = rng.standard_normal((37, 41)).astype(np.float32)
    for v in (y[::-1], y[:, ::-3], y.T, y[3:30:2, 1::5], y[::-1, ::-1]):
        assert_sum(goext.sum(v), v, rel=1e-12)
        assert np.array_equal(np.from_dlpack(goext.scale(v, -2.5)), v * np.float32(-2.5))
        checks += 2
    # large: several 2 MiB blocks, an odd tail, a start that is no block's boundary
    for dt in (np.float32, np.float64):
        big = rng.standard_normal(3 * (1 << 19) + 12345).astype(dt)[3:]
        assert_sum(goext.sum(big), big, rel=1e-12)
        assert goext.sum(big) == goext.sum(big)  # blocks are added in order, whoever took them
        keep = big.copy()
        r = np.from_dlpack(goext.scale(big, 3.0))
        assert np.array_equal(r, big * dt(3.0)) and np.array_equal(big, keep)  # x untouched
        inplace = big.copy()
        goext.scale_(inplace, 3.0)
        assert np.array_equal(inplace, r)
        checks += 4
    # 0-d and empty
    for dt in (np.float32, np.float64):
        assert goext.sum(np.asarray(dt(2.5))) == 2.5
        assert np.from_dlpack(goext.scale(np.asarray(dt(2.5)), 2.0)).tolist() == 5.0
        assert goext.sum(np.zeros((4, 0), dtype=dt)) == 0.0
        assert np.from_dlpack(goext.scale(np.zeros((0, 3), dtype=dt), 2.0)).shape == (0, 3)
        checks += 4
    return checks


def test_simd_build_uses_the_widest_kernels_the_cpu_has(goext):
    assert goext.kernels() == cpu_kernels()


def test_kernels_simd_build(goext):
    assert check_kernels(goext) > 2000


def _check_in_child(isolated, folder_: str, env: dict[str, str]) -> tuple[str, int]:
    tests = str(Path(__file__).resolve().parent)
    proc = isolated(
        f"import sys; sys.path[:0] = [{folder_!r}, {tests!r}]\n"
        "import goext\n"
        "from test_goext_kernels import check_kernels\n"
        "print(goext.kernels(), check_kernels(goext))\n",
        timeout=240,
        env_extra=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    name, checks = proc.stdout.split()
    return name, int(checks)


@pytest.mark.parametrize("cap", ["avx2", "go"])
def test_kernels_narrower_sets(isolated, cap):
    # $GODLPACK_VEC_KERNELS lowers the set: the AVX2 and plain-Go loops of the SIMD build
    want = cap if cpu_kernels() != "go" else "go"
    name, checks = _check_in_child(isolated, folder("goext"), {"GODLPACK_VEC_KERNELS": cap})
    assert name == want and checks > 2000


def test_kernels_plain_go_build(isolated):
    plain = folder("goext", goexperiment=[])  # no GOEXPERIMENT=simd: vec's Go loops
    name, checks = _check_in_child(isolated, plain, {})
    assert name == "go" and checks > 2000


def test_sum_is_float64_accumulation(goext):
    # A float32 lane adds 4 elements a block and 4 blocks' sums a unit (exactly here but
    # in the last, partial unit, whose 64 lanes of 0.9 round), the units' lanes are added
    # in float64 (vec.Sum): a million float32 0.1 sum to 1e6 * float32(0.1) within 2e-11
    # of it, where NumPy's float32 sum (pairwise, in float32) is off in its 7th digit or
    # so. The bound on any input is TestSumF32Accuracy's.
    x = np.full(1_000_000, 0.1, dtype=np.float32)
    exact = 1_000_000 * float(np.float32(0.1))
    assert goext.sum(x) == pytest.approx(exact, rel=2e-11)
    assert abs(goext.sum(x) - exact) < abs(float(x.sum()) - exact)
