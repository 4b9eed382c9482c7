"""Element values of every dtype against the reference implementations: ml_dtypes for
the mini-floats (rounding, ties, overflow, subnormals, NaN/inf), NumPy for the rest, and
PyTorch for the float8 bit patterns in memory. Sub-byte types are checked against
dlpack.h's packing rule (little bit-endian)."""

from __future__ import annotations

import ctypes
import warnings

import godlpack as g
import ml_dtypes
import numpy as np
import pytest
import torch

MINI_FLOATS = [
    "float16",
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]
TORCH_FLOAT8 = {
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
    "float8_e4m3fnuz": torch.float8_e4m3fnuz,
    "float8_e5m2fnuz": torch.float8_e5m2fnuz,
    "float8_e8m0fnu": torch.float8_e8m0fnu,
}


def ref_type(name):
    return getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else np.dtype(name).type


def bit_width(name) -> int:
    return np.finfo(np.float16).bits if name == "float16" else ml_dtypes.finfo(ref_type(name)).bits


def all_patterns(name) -> np.ndarray:
    """Every bit pattern of the type, as an array of that type (one element per byte/word)."""
    bits = bit_width(name)
    store = np.uint16 if bits == 16 else np.uint8
    return np.arange(2**bits, dtype=store).view(ref_type(name))


def decode(name) -> np.ndarray:
    """Every bit pattern's value, as float64 (NaN patterns included)."""
    with np.errstate(invalid="ignore"):
        return all_patterns(name).astype(np.float64)


def to_ref(values, name) -> np.ndarray:
    """ml_dtypes' (or NumPy's) rounding of float64 values to the type, back as float64."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(values, dtype=np.float64).astype(ref_type(name)).astype(np.float64)


def probe_values(name) -> list[float]:
    """Every finite value of the type, the exact ties between neighbours and points just
    beside them, the overflow region above the largest value, the underflow region below
    the smallest subnormal, signed zeros, infinities and NaNs."""
    decoded = decode(name)
    finite = np.unique(decoded[np.isfinite(decoded)])
    ties = (finite[:-1] + finite[1:]) / 2  # exact in float64
    nudge = 2.0**-30
    beside = np.concatenate([ties * (1 + nudge), ties * (1 - nudge)])
    top, below_top = finite[-1], finite[-2]
    gap = top - below_top
    over = [top + gap / 2, top + gap / 2 * (1 - nudge), top + gap / 2 * (1 + nudge),
            top + gap, 2 * top, 1e300]  # fmt: skip
    positive = finite[finite > 0]
    tiny = positive[0]
    under = [tiny / 2, tiny / 2 * (1 + nudge), tiny / 2 * (1 - nudge), tiny / 4, tiny * 1.5]
    extra = np.array(over + under)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 1 / 3, -2 / 3]
    values = np.concatenate([finite, ties, beside, extra, -extra, specials])
    return values.tolist()


def assert_same_floats(got, expected, values, name):
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    same = (got == expected) & (np.signbit(got) == np.signbit(expected))
    same |= np.isnan(got) & np.isnan(expected)
    bad = np.flatnonzero(~same)
    detail = ", ".join(
        f"{values[i]!r} -> got {float(got[i])!r}, expected {float(expected[i])!r}" for i in bad[:8]
    )
    assert bad.size == 0, f"{name}: {bad.size} of {len(values)} values differ: {detail}"


@pytest.mark.parametrize("name", MINI_FLOATS)
def test_rounding_matches_ml_dtypes(name):
    values = probe_values(name)
    got = g.asarray(values, dtype=name).tolist()
    assert_same_floats(got, to_ref(values, name), values, name)


@pytest.mark.parametrize("name", MINI_FLOATS)
def test_full_and_setitem_round_like_asarray(name):
    values = [1 / 3, -2.75, 1e300, -1e-300, float("nan"), -0.0]
    expected = to_ref(values, name)
    a = g.zeros(len(values), dtype=name)
    for i, v in enumerate(values):
        a[i] = v
        assert_same_floats([g.full((), v, dtype=name).tolist()], [expected[i]], [v], name)
    assert_same_floats(a.tolist(), expected, values, name)


@pytest.mark.parametrize("name", MINI_FLOATS)
def test_every_finite_value_survives_a_round_trip(name):
    decoded = decode(name)
    values = decoded[np.isfinite(decoded)].tolist()
    a = g.asarray(values, dtype=name)
    assert_same_floats(a.tolist(), values, values, name)
    assert_same_floats(a.copy().tolist(), values, values, name)
    assert_same_floats(g.asarray(a, dtype="float64").tolist(), values, values, name)


@pytest.mark.parametrize("name", list(TORCH_FLOAT8))
def test_float8_bit_patterns_round_trip_through_torch(name):
    decoded = decode(name)
    a = g.asarray(decoded.tolist(), dtype=name)
    t = torch.from_dlpack(a)
    assert t.dtype == TORCH_FLOAT8[name]
    bits = t.view(torch.uint8).tolist()
    # ml_dtypes' own encoding of the decoded values (NaNs become its canonical NaN) ...
    assert bits == to_ref(decoded, name).astype(ref_type(name)).view(np.uint8).tolist()
    # ... which is the original pattern for every value that is not NaN
    keep = ~np.isnan(decoded)
    assert np.array(bits)[keep].tolist() == np.arange(256)[keep].tolist()
    # and torch decodes godlpack's bytes to the same values
    assert_same_floats(t.to(torch.float64).tolist(), to_ref(decoded, name), decoded, name)


@pytest.mark.parametrize("name", list(TORCH_FLOAT8))
def test_float8_decoding_of_every_bit_pattern_written_by_torch(name):
    a = g.empty(256, dtype=name)
    torch.from_dlpack(a).view(torch.uint8).copy_(
        torch.arange(256, dtype=torch.int32).to(torch.uint8)
    )
    decoded = decode(name)
    assert_same_floats(a.tolist(), decoded, list(range(256)), name)


def test_bfloat16_bit_patterns_match_ml_dtypes_through_torch():
    patterns = all_patterns("bfloat16")
    decoded = decode("bfloat16")
    a = g.asarray(decoded.tolist(), dtype="bfloat16")
    bits = torch.from_dlpack(a).view(torch.int16).numpy().view(np.uint16)
    expected = to_ref(decoded, "bfloat16").astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(bits, expected)
    b = g.empty(65536, dtype="bfloat16")
    torch.from_dlpack(b).view(torch.int16).copy_(torch.from_numpy(patterns.view(np.int16)))
    assert_same_floats(b.tolist(), decoded, decoded, "bfloat16")


def test_float16_bit_patterns_match_numpy():
    patterns = all_patterns("float16")
    a = g.empty(65536, dtype="float16")
    np.from_dlpack(a).view(np.uint16)[:] = patterns.view(np.uint16)
    decoded = decode("float16")
    assert_same_floats(a.tolist(), decoded, decoded, "float16")
    b = g.asarray(decoded.tolist(), dtype="float16")
    nan = np.isnan(decoded)
    got = np.from_dlpack(b).view(np.uint16)
    assert np.array_equal(got[~nan], patterns.view(np.uint16)[~nan])
    assert np.isnan(np.from_dlpack(b)[nan]).all()


@pytest.mark.parametrize("name", ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"])
def test_subbyte_types_are_packed_little_bit_endian(dl, name):
    # dlpack.h: element i of a packed sub-byte tensor is (D >> (i * bits)) & mask.
    bits = bit_width(name)
    decoded = decode(name)
    values = decoded.tolist() + decoded[:5].tolist()  # a length that is not byte-aligned
    a = g.asarray(values, dtype=name)
    assert a.nbytes == (len(values) * bits + 7) // 8
    cap = a.__dlpack__(max_version=(1, 0))
    m = dl.capsule_managed(cap)
    assert m.flags & dl.FLAG_IS_SUBBYTE_TYPE_PADDED == 0
    assert (m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes) == (bits, 1)
    raw = ctypes.string_at(m.dl_tensor.data, a.nbytes)
    word = int.from_bytes(raw, "little")
    codes = [(word >> (i * bits)) & ((1 << bits) - 1) for i in range(len(values))]
    expected = to_ref(values, name).astype(ref_type(name)).view(np.uint8) & ((1 << bits) - 1)
    assert codes == expected.tolist()


# ----------------------------------------------------------------------------------------
# The NumPy dtypes
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_float32_and_float64_rounding_match_numpy(name):
    f32 = np.array([1.0, 1.5, 2.0**-126, 2.0**-149, 3.4028234663852886e38], dtype=np.float32)
    with np.errstate(over="ignore"):
        neighbours = np.nextafter(f32, np.float32(np.inf))
    ties = (f32.astype(np.float64) + neighbours.astype(np.float64)) / 2
    values = np.concatenate(
        [ties, ties * (1 + 2.0**-40), [2.0**-150, 3.5e38, 1e39, 1 / 3, 0.1, -0.0, np.inf, np.nan]]
    ).tolist()
    got = g.asarray(values, dtype=name).tolist()
    with np.errstate(all="ignore"):
        expected = np.asarray(values, dtype=np.float64).astype(name).astype(np.float64)
    assert_same_floats(got, expected, values, name)


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_complex_values_match_numpy(name):
    values = [1 + 2j, complex(1 / 3, -0.1), complex(np.inf, np.nan), complex(-0.0, 0.0), 1e39j]
    got = g.asarray(values, dtype=name).tolist()
    with np.errstate(all="ignore"):
        expected = np.asarray(values, dtype=name).tolist()
    assert_same_floats([c.real for c in got], [c.real for c in expected], values, name)
    assert_same_floats([c.imag for c in got], [c.imag for c in expected], values, name)


INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", INT_DTYPES)
def test_integer_limits_and_float_truncation_match_numpy(name):
    info = np.iinfo(name)
    ints = [int(info.min), int(info.min) + 1, 0, 1, int(info.max) - 1, int(info.max)]
    assert g.asarray(ints, dtype=name).tolist() == np.asarray(ints, dtype=name).tolist()
    floats = [0.0, 1.9, 2.5, 100.99]
    if info.min < 0:
        floats += [-1.9, -2.5, -100.99]
    assert g.asarray(floats, dtype=name).tolist() == np.asarray(floats).astype(name).tolist()
    assert g.asarray([True, False], dtype=name).tolist() == [1, 0]


def test_bool_conversion_matches_numpy():
    values = [0, 1, 2, -1, 0.0, 0.5, -0.0, float("nan"), float("inf"), 0j, 1j, True, False]
    got = g.asarray(values, dtype="bool").tolist()
    assert got == np.asarray(values, dtype=np.complex128).astype(bool).tolist()


@pytest.mark.parametrize(
    "src,dst",
    [("float64", "float16"), ("float32", "bfloat16"), ("int64", "float8_e4m3fn"),
     ("float64", "float4_e2m1fn"), ("bfloat16", "float32"), ("uint8", "float6_e3m2fn")],
    ids=["f64-f16", "f32-bf16", "i64-e4m3fn", "f64-fp4", "bf16-f32", "u8-fp6"],
)  # fmt: skip
def test_dtype_conversion_between_arrays_matches_ml_dtypes(src, dst):
    values = [0.0, 1.0, 3.0, 5.0, 7.0, 100.0, 250.0]
    a = g.asarray(values, dtype=src)
    got = g.asarray(a, dtype=dst).tolist()
    expected = to_ref(to_ref(values, src) if src in MINI_FLOATS else values, dst)
    assert_same_floats(got, expected, values, f"{src}->{dst}")
