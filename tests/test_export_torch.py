"""PyTorch as a DLPack consumer of godlpack.Array: every dtype PyTorch imports through
DLPack (float8 formats and bfloat16 included), views, and raw capsules."""

from __future__ import annotations

import functools
import subprocess
import sys

import godlpack as g
import pytest
import torch
import torch.utils.dlpack

# godlpack dtype -> (torch dtype, values exactly representable in it)
TORCH_DTYPES = {
    "bool": (torch.bool, [True, False, True, False]),
    "int8": (torch.int8, [-128, -1, 0, 127]),
    "int16": (torch.int16, [-32768, -2, 1, 32767]),
    "int32": (torch.int32, [-(2**31), -3, 2, 2**31 - 1]),
    "int64": (torch.int64, [-(2**63), -4, 3, 2**63 - 1]),
    "uint8": (torch.uint8, [0, 1, 128, 255]),
    "uint16": (torch.uint16, [0, 2, 40000, 65535]),
    "uint32": (torch.uint32, [0, 3, 2**31, 2**32 - 1]),
    "uint64": (torch.uint64, [0, 4, 2**63, 2**64 - 1]),
    "float16": (torch.float16, [0.5, -2.0, 65504.0, 2.0**-24]),
    "float32": (torch.float32, [0.25, -2.5, 2.0**127, 2.0**-149]),
    "float64": (torch.float64, [0.1, -2.5, 1.7e308, 5e-324]),
    "bfloat16": (torch.bfloat16, [1.5, -3.0, 2.0**127, 2.0**-133]),
    "complex64": (torch.complex64, [1 + 2j, -0.5j, 3.0, 2.0**100 - 2.0**-100 * 1j]),
    "complex128": (torch.complex128, [1 + 2j, -0.5j, 3.0, 1e300 - 1e-300j]),
    "float8_e4m3fn": (torch.float8_e4m3fn, [1.0, -448.0, 0.015625, 2.0**-9]),
    "float8_e5m2": (torch.float8_e5m2, [1.0, -57344.0, 0.375, 2.0**-16]),
    "float8_e4m3fnuz": (torch.float8_e4m3fnuz, [1.0, -240.0, 0.0, 2.0**-10]),
    "float8_e5m2fnuz": (torch.float8_e5m2fnuz, [1.0, -57344.0, 0.0, 2.0**-17]),
    "float8_e8m0fnu": (torch.float8_e8m0fnu, [1.0, 2.0**127, 2.0**-127, 0.5]),
}
DTYPES = list(TORCH_DTYPES)


def as_python(t: torch.Tensor) -> list:
    """Values as Python scalars; float8 tensors go through float64 (exact for them)."""
    if t.dtype.is_floating_point and t.element_size() == 1:
        t = t.to(torch.float64)
    return t.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_shares_memory_with_equal_values(dtype):
    tdtype, values = TORCH_DTYPES[dtype]
    a = g.asarray(values, dtype=dtype)
    assert a.tolist() == values
    t = torch.from_dlpack(a)
    assert t.dtype == tdtype
    assert t.shape == (4,)
    assert t.data_ptr() == a.data_ptr
    assert as_python(t) == values


@pytest.mark.parametrize("dtype", DTYPES)
def test_writes_are_visible_both_ways(dtype):
    _, values = TORCH_DTYPES[dtype]
    a = g.asarray([values[0]] * 4, dtype=dtype)
    t = torch.from_dlpack(a)
    t[1] = values[1]
    assert a[1] == values[1]
    a[2] = values[2]
    assert as_python(t)[2] == values[2]
    a[:] = values
    assert as_python(t) == values


def _base():
    return g.arange(24, dtype="float32").reshape(4, 6)


VIEW_CASES = [
    ("rows-step2", lambda a: a[::2]),
    ("cols-step2", lambda a: a[:, 1::2]),
    ("block", lambda a: a[1:3, 2:5]),
    ("column", lambda a: a[:, 3]),
    ("new-axes", lambda a: a[None, 1, None, ::2]),
    ("reshaped", lambda a: a.reshape(2, 3, 4)[1:, ::2, 1:]),
    ("scalar-view", lambda a: a[2, 3, ...]),
]


@pytest.mark.parametrize("view", [c[1] for c in VIEW_CASES], ids=[c[0] for c in VIEW_CASES])
def test_views_export_zero_copy_with_element_strides(view):
    base = _base()
    v = view(base)
    t = torch.from_dlpack(v)
    assert tuple(t.shape) == v.shape
    assert t.stride() == v.strides
    assert t.data_ptr() == v.data_ptr
    assert t.tolist() == v.tolist()
    t[(0,) * t.dim()] = -1.0
    assert v[(0,) * v.ndim] == -1.0
    assert (torch.from_dlpack(base) == -1.0).sum().item() == 1


NEGATIVE_CASES = [
    ("reversed-rows", lambda a: a[::-1]),
    ("reversed-cols", lambda a: a[:, ::-1]),
    ("both-negative", lambda a: a[::-2, ::-3]),
]


TORCH_ABORTS_REASON = f"PyTorch {torch.__version__} aborts on a negative stride (NumPy's too)"


@functools.cache
def torch_aborts_on_negative_strides() -> bool:
    """Whether this PyTorch ends the process (an uncaught c10::Error: "terminate called")
    on any producer's negative-stride tensor, NumPy's too: PyTorch 2.12 does, the newest
    wheel for 3.13t; 2.15 raises RuntimeError. Asked of NumPy, in a child process."""
    code = (
        "import numpy as np, torch\n"
        "try:\n"
        "    torch.from_dlpack(np.arange(4.0)[::-1])\n"
        "except RuntimeError:\n"
        "    pass\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return r.returncode != 0 and "terminate called" in r.stderr


@pytest.mark.parametrize("view", [c[1] for c in NEGATIVE_CASES], ids=[c[0] for c in NEGATIVE_CASES])
def test_negative_stride_views_are_refused_by_torch_without_leaking(view, live):
    if torch_aborts_on_negative_strides():
        pytest.skip(TORCH_ABORTS_REASON)
    # PyTorch tensors cannot have negative strides; torch's DLPack import refuses them
    # (a torch limitation: godlpack exports them as the spec allows, and NumPy takes them).
    v = view(_base())
    before = live.now()
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.from_dlpack(v)
    assert live.now() == before  # torch still released the tensor it refused
    # asking the producer for a copy gives torch a positive-strided tensor of the values
    t = torch.from_dlpack(v, copy=True)
    assert t.tolist() == v.tolist()
    assert t.data_ptr() != v.data_ptr


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0)], ids=["0d", "empty", "0x3", "3x0"])
def test_0d_and_zero_size_arrays_export(shape):
    a = g.full(shape, 5, dtype="int32")
    t = torch.from_dlpack(a)
    assert tuple(t.shape) == shape
    assert t.dtype == torch.int32
    assert t.tolist() == a.tolist()
    if a.size:
        assert t.data_ptr() == a.data_ptr


def test_0d_array_writes_through():
    a = g.asarray(2.0, dtype="float64")
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr
    t.fill_(-8.5)
    assert a.tolist() == -8.5


@pytest.mark.parametrize("dtype", DTYPES)
def test_legacy_capsule_consumed_by_torch_utils(dl, dtype):
    tdtype, values = TORCH_DTYPES[dtype]
    a = g.asarray(values, dtype=dtype)
    cap = a.__dlpack__()
    assert dl.capsule_name(cap) == "dltensor"
    t = torch.utils.dlpack.from_dlpack(cap)
    assert dl.capsule_name(cap) == "used_dltensor"
    assert t.dtype == tdtype and t.data_ptr() == a.data_ptr
    assert as_python(t) == values


@pytest.mark.parametrize("dtype", DTYPES)
def test_versioned_capsule_consumed_by_torch_utils(dl, dtype):
    tdtype, values = TORCH_DTYPES[dtype]
    a = g.asarray(values, dtype=dtype)
    cap = a.__dlpack__(max_version=(1, 0))
    assert dl.capsule_name(cap) == "dltensor_versioned"
    t = torch.utils.dlpack.from_dlpack(cap)
    assert dl.capsule_name(cap) == "used_dltensor_versioned"
    assert t.dtype == tdtype and t.data_ptr() == a.data_ptr
    assert as_python(t) == values


def test_capsule_of_strided_view_keeps_strides():
    v = _base()[1:, ::3]
    t = torch.utils.dlpack.from_dlpack(v.__dlpack__(max_version=(1, 0)))
    assert t.stride() == (6, 3) and t.data_ptr() == v.data_ptr
    assert t.tolist() == v.tolist()


def test_copy_true_gives_torch_separate_memory():
    a = g.arange(4, dtype="int64")
    t = torch.from_dlpack(a, copy=True)
    assert t.data_ptr() != a.data_ptr and t.tolist() == [0, 1, 2, 3]
    t[0] = 100
    assert a[0] == 0


def test_readonly_array_exports_to_torch_through_versioned_capsule(dl):
    # torch has no read-only tensors: it takes the READ_ONLY-flagged tensor as it is
    # (possibly with a warning); what godlpack controls is the flag and the zero-copy.
    a = g.arange(3, dtype="int16")
    cap = a.toreadonly().__dlpack__(max_version=(1, 0))
    assert dl.capsule_managed(cap).flags == dl.FLAG_READ_ONLY
    t = torch.utils.dlpack.from_dlpack(cap)
    assert t.data_ptr() == a.data_ptr and t.tolist() == [0, 1, 2]


def test_float4_e2m1fn_is_refused_by_torch_as_lanes_1():
    # godlpack exports float4_e2m1fn per element, as dlpack.h describes it: code 17,
    # bits 4, lanes 1. PyTorch's only fp4 dtype is float4_e2m1fn_x2 (two values packed in
    # one byte-sized element), which it exchanges as kDLFloat4_e2m1fn with lanes=2, and
    # it refuses every other lane count. Pinned here so a change on either side shows up.
    a = g.asarray([0.5, 1.0, -6.0, 0.0], dtype="float4_e2m1fn")
    with pytest.raises(BufferError, match="Unsupported kDLFloat4_e2m1fn lanes 1"):
        torch.from_dlpack(a)
    with pytest.raises(BufferError, match="Unsupported kDLFloat4_e2m1fn lanes 1"):
        torch.utils.dlpack.from_dlpack(a.__dlpack__(max_version=(1, 0)))
