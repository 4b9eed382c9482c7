"""NumPy as a DLPack consumer of godlpack.Array: every dtype NumPy has, zero-copy views of
every layout, read-only arrays, and the capsules themselves (legacy and versioned)."""

from __future__ import annotations

import godlpack as g
import numpy as np
import pytest

NUMPY_VALUES = {
    "bool": [True, False, True, True],
    "int8": [-128, -1, 0, 127],
    "int16": [-32768, -2, 1, 32767],
    "int32": [-(2**31), -3, 2, 2**31 - 1],
    "int64": [-(2**63), -4, 3, 2**63 - 1],
    "uint8": [0, 1, 128, 255],
    "uint16": [0, 2, 40000, 65535],
    "uint32": [0, 3, 2**31, 2**32 - 1],
    "uint64": [0, 4, 2**63, 2**64 - 1],
    "float16": [0.5, -2.0, 65504.0, 6e-08],
    "float32": [0.1, -2.5, 3.4e38, 1e-45],
    "float64": [0.1, -2.5, 1.7e308, 5e-324],
    "complex64": [1 + 2j, -0.5j, 3.0, 1e30 - 1e-30j],
    "complex128": [1 + 2j, -0.5j, 3.0, 1e300 - 1e-300j],
}
DTYPES = list(NUMPY_VALUES)


def values_of(dtype):
    """The test values as NumPy stores them (rounded to dtype)."""
    return np.array(NUMPY_VALUES[dtype], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_shares_memory_with_equal_values(dtype):
    ref = values_of(dtype)
    a = g.asarray(ref.tolist(), dtype=dtype)
    n = np.from_dlpack(a)
    assert n.dtype == np.dtype(dtype)
    assert n.shape == (4,)
    assert n.tolist() == ref.tolist() == a.tolist()
    assert n.ctypes.data == a.data_ptr
    assert n.flags.writeable
    assert np.shares_memory(n, np.from_dlpack(a))


@pytest.mark.parametrize("dtype", DTYPES)
def test_writes_are_visible_both_ways(dtype):
    ref = values_of(dtype)
    a = g.zeros(4, dtype=dtype)
    n = np.from_dlpack(a)
    n[1] = ref[1]
    assert a[1] == ref[1].item()
    a[2] = ref[2].item()
    assert n[2] == ref[2]
    a[:] = ref.tolist()
    assert n.tolist() == ref.tolist()


def _base():
    return g.arange(24, dtype="float32").reshape(4, 6)


VIEW_CASES = [
    ("rows-step2", lambda a: a[::2]),
    ("cols-step2", lambda a: a[:, 1::2]),
    ("block", lambda a: a[1:3, 2:5]),
    ("column", lambda a: a[:, 3]),
    ("column-as-2d", lambda a: a[:, 3:4]),
    ("reversed-rows", lambda a: a[::-1]),
    ("reversed-cols", lambda a: a[:, ::-1]),
    ("both-negative", lambda a: a[::-2, ::-3]),
    ("new-axes", lambda a: a[None, 1, None, ::2]),
    ("reshaped", lambda a: a.reshape(2, 3, 4)[1:, ::2, ::-1]),
    ("scalar-view", lambda a: a[2, 3, ...]),
]


@pytest.mark.parametrize("view", [c[1] for c in VIEW_CASES], ids=[c[0] for c in VIEW_CASES])
def test_views_export_zero_copy_with_byte_strides(view):
    base = _base()
    v = view(base)
    n = np.from_dlpack(v)
    assert n.shape == v.shape
    assert n.tolist() == v.tolist()
    assert n.strides == tuple(s * 4 for s in v.strides)
    assert n.ctypes.data == v.data_ptr
    assert np.shares_memory(n, np.from_dlpack(base))
    # the same element through numpy, the view, and the base
    n[(0,) * n.ndim] = -1.0
    assert v[(0,) * v.ndim] == -1.0
    assert (np.from_dlpack(base) == -1.0).sum() == 1


def test_reversed_view_matches_numpy_reversal():
    base = _base()
    ref = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert np.array_equal(np.from_dlpack(base[::-1]), ref[::-1])
    assert np.array_equal(np.from_dlpack(base[:, ::-1]), ref[:, ::-1])
    assert np.array_equal(np.from_dlpack(base[::-1, ::-1]), ref[::-1, ::-1])


@pytest.mark.parametrize(
    "shape", [(), (0,), (0, 3), (3, 0), (1,)], ids=["0d", "empty", "0x3", "3x0", "one"]
)
def test_0d_and_zero_size_arrays_export(shape):
    a = g.full(shape, 7, dtype="int16")
    n = np.from_dlpack(a)
    assert n.shape == shape
    assert n.dtype == np.int16
    assert n.tolist() == a.tolist()
    assert n.ctypes.data == a.data_ptr


def test_0d_array_writes_through():
    a = g.asarray(1.5)
    n = np.from_dlpack(a)
    n[()] = 4.25
    assert a.tolist() == 4.25


@pytest.mark.parametrize("dtype", DTYPES)
def test_readonly_array_gives_non_writeable_numpy_array(dtype):
    a = g.asarray(values_of(dtype).tolist(), dtype=dtype)
    r = a.toreadonly()
    n = np.from_dlpack(r)
    assert not n.flags.writeable
    assert n.ctypes.data == a.data_ptr
    assert n.tolist() == a.tolist()
    with pytest.raises(ValueError, match="read-only"):
        n[0] = n[1]


def test_readonly_view_stays_readonly_through_numpy():
    r = _base().toreadonly()[::-1, 1:]
    assert not np.from_dlpack(r).flags.writeable


# ----------------------------------------------------------------------------------------
# The capsules
# ----------------------------------------------------------------------------------------


class CapsuleHolder:
    """Hands one prepared capsule to numpy.from_dlpack, whatever it asks for."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_legacy_capsule_without_max_version(dl):
    a = g.arange(12, dtype="int32").reshape(3, 4)[:, ::-2]
    cap = a.__dlpack__()
    assert dl.capsule_name(cap) == "dltensor"
    m = dl.capsule_managed(cap)
    assert isinstance(m, dl.DLManagedTensor)
    t = m.dl_tensor
    assert t.data == a.data_ptr and t.byte_offset == 0
    assert (t.device.device_type, t.device.device_id) == (1, 0)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (0, 32, 1)
    assert dl.shape(t) == (3, 2)
    assert dl.strides(t) == (4, -2)  # strides are never NULL, as v1.2+ requires
    n = np.from_dlpack(CapsuleHolder(cap))
    assert dl.capsule_name(cap) == "used_dltensor"
    assert n.tolist() == a.tolist()
    assert n.ctypes.data == a.data_ptr


@pytest.mark.parametrize(
    "max_version,expected",
    [
        ((1, 0), (1, 0)),
        ((1, 2), (1, 2)),
        ((1, 3), (1, 3)),
        ((1, 99), (1, 3)),
        ((2, 0), (1, 3)),
        # any minor (or major) above ours is ours, however big the int
        ((1, 2**70), (1, 3)),
        ((2**70, 0), (1, 3)),
        ((2**70, -(2**70)), (1, 3)),
    ],
    ids=["1.0", "1.2", "1.3", "1.99", "2.0", "1.2**70", "2**70.0", "2**70.-2**70"],
)
def test_versioned_capsule_name_and_version(dl, max_version, expected):
    a = g.arange(5, dtype="float64")
    cap = a.__dlpack__(max_version=max_version)
    assert dl.capsule_name(cap) == "dltensor_versioned"
    m = dl.capsule_managed(cap)
    assert (m.version.major, m.version.minor) == expected
    assert m.flags == 0
    t = m.dl_tensor
    assert t.data == a.data_ptr and t.byte_offset == 0 and t.ndim == 1
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 64, 1)
    assert dl.shape(t) == (5,) and dl.strides(t) == (1,)


@pytest.mark.parametrize(
    "max_version", [None, (0, 8), (-(2**70), 5)], ids=["none", "0.8", "-2**70.5"]
)
def test_max_version_below_1_gives_legacy_capsule(dl, max_version):
    cap = g.zeros(2).__dlpack__(max_version=max_version)
    assert dl.capsule_name(cap) == "dltensor"


def test_versioned_capsule_of_readonly_array_sets_read_only_flag(dl):
    a = g.arange(4)
    cap = a.toreadonly().__dlpack__(max_version=(1, 0))
    m = dl.capsule_managed(cap)
    assert m.flags == dl.FLAG_READ_ONLY
    assert m.dl_tensor.data == a.data_ptr
    n = np.from_dlpack(CapsuleHolder(cap))
    assert not n.flags.writeable and n.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "source",
    [lambda: g.arange(6, dtype="int16"), lambda: g.arange(12).reshape(3, 4)[::-1, 1::2]],
    ids=["contiguous", "negative-strided-view"],
)
def test_copy_true_exports_new_contiguous_memory_flagged_is_copied(dl, source):
    a = source()
    cap = a.__dlpack__(max_version=(1, 0), copy=True)
    m = dl.capsule_managed(cap)
    assert m.flags == dl.FLAG_IS_COPIED
    t = m.dl_tensor
    assert t.data != a.data_ptr
    assert t.data % 256 == 0
    expected_strides = tuple(int(np.prod(a.shape[i + 1 :])) for i in range(a.ndim))
    assert dl.shape(t) == a.shape and dl.strides(t) == expected_strides
    n = np.from_dlpack(CapsuleHolder(cap))
    assert n.tolist() == a.tolist()
    n[...] = 0
    assert a.tolist() != n.tolist()  # separate memory


def test_copy_true_of_readonly_array_is_a_writable_copy(dl):
    r = g.arange(3).toreadonly()
    cap = r.__dlpack__(max_version=(1, 0), copy=True)
    assert dl.capsule_managed(cap).flags == dl.FLAG_IS_COPIED
    # and the legacy format, which cannot say read-only, is fine for a fresh copy
    legacy = r.__dlpack__(copy=True)
    assert dl.capsule_name(legacy) == "dltensor"
    assert dl.capsule_managed(legacy).dl_tensor.data != r.data_ptr


@pytest.mark.parametrize("copy", [False, None], ids=["false", "none"])
def test_copy_false_or_none_shares_memory(dl, copy):
    a = g.arange(4)
    cap = a.__dlpack__(max_version=(1, 0), copy=copy)
    m = dl.capsule_managed(cap)
    assert m.flags == 0
    assert m.dl_tensor.data == a.data_ptr


def test_numpy_from_dlpack_copy_keyword():
    a = g.arange(5, dtype="int8")
    c = np.from_dlpack(a, copy=True)
    assert c.ctypes.data != a.data_ptr and c.tolist() == a.tolist() and c.flags.writeable
    c[0] = 9
    assert a[0] == 0
    s = np.from_dlpack(a, copy=False)
    assert s.ctypes.data == a.data_ptr


@pytest.mark.parametrize("dl_device", [(1, 0), (g.DLDeviceType.kDLCPU, 0)], ids=["tuple", "enum"])
def test_dl_device_cpu_exports_without_copy(dl, dl_device):
    a = g.arange(3)
    cap = a.__dlpack__(max_version=(1, 0), dl_device=dl_device)
    m = dl.capsule_managed(cap)
    assert m.dl_tensor.data == a.data_ptr
    assert (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id) == (1, 0)
    n = np.from_dlpack(a, device="cpu")
    assert n.ctypes.data == a.data_ptr
