"""godlpack.dtype objects and the dtypes of other libraries.

- ``godlpack.dtype(x)`` is godlpack's one dtype object for any name repr prints and
  for NumPy, ml_dtypes and PyTorch dtypes, as every ``dtype=`` argument takes them;
  the objects are immutable (setting ``bits`` used to change every array of that
  dtype) and fields that do not match godlpack's are refused.
- ``asarray`` of a NumPy array of an ml_dtypes dtype (what ``np.asarray`` of a
  bfloat16 Array gives) shares its memory, any strides, both ways.
"""

from __future__ import annotations

import copy
import pickle

import godlpack as g
import ml_dtypes
import numpy as np
import pytest
import torch

TORCH_NAMES = [d.name for d in g.dtypes if isinstance(getattr(torch, d.name, None), torch.dtype)]
ML_NAMES = [d.name for d in g.dtypes if hasattr(ml_dtypes, d.name) and d.kind == "float"]


@pytest.mark.parametrize("d", g.dtypes, ids=str)
def test_dtype_of_its_name_and_of_itself_is_the_one_object(d):
    assert g.dtype(d.name) is d
    assert g.dtype(d) is d
    assert g.dtype(repr(d)[len("dtype('") : -2]) is d  # the name repr prints
    assert (
        g.dtype(d.name, d.code, d.bits, ["bool", "int", "uint", "float", "complex"].index(d.kind))
        is d
    )
    assert g.dtype(d.name, kind=d.kind) is d
    assert g.zeros(2, dtype=g.dtype(d.name)).dtype is d
    assert pickle.loads(pickle.dumps(d)) is d and copy.deepcopy(d) is d


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_dtype_of_torch_dtypes(name):
    d = g.dtype(getattr(torch, name))
    assert d is getattr(g, name)
    # and every dtype= argument takes them, the same rule
    assert g.zeros(3, dtype=getattr(torch, name)).dtype is d
    assert g.asarray([1, 0], dtype=getattr(torch, name)).dtype is d


def test_dtype_of_torch_aliases_and_numpy_and_python_types():
    assert g.dtype(torch.half) is g.float16 and g.dtype(torch.float) is g.float32
    assert g.dtype(torch.cfloat) is g.complex64 and g.dtype(torch.bool) is g.bool
    assert g.dtype(np.float32) is g.float32 and g.dtype(np.dtype("int16")) is g.int16
    assert g.dtype(np.bool_) is g.bool and g.dtype(np.dtype(np.complex128)) is g.complex128
    assert g.dtype(float) is g.float64 and g.dtype(int) is g.int64 and g.dtype(bool) is g.bool
    assert g.dtype(complex) is g.complex128


@pytest.mark.parametrize("name", ML_NAMES)
def test_dtype_of_ml_dtypes(name):
    t = getattr(ml_dtypes, name)
    assert g.dtype(t) is getattr(g, name)
    assert g.dtype(np.dtype(t)) is getattr(g, name)


def test_dtypes_are_immutable():
    a = g.zeros(3, dtype="float32")
    for field, value in [("bits", 64), ("code", 0), ("lanes", 2), ("itemsize", 8), ("kind", "int")]:
        with pytest.raises(AttributeError):
            setattr(g.float32, field, value)
    with pytest.raises(AttributeError):
        g.float32.anything = 1  # no instance dict to hide a field in
    assert (g.float32.bits, g.float32.code, g.float32.itemsize, g.float32.kind) == (
        32,
        2,
        4,
        "float",
    )
    assert a.itemsize == 4 and a.tolist() == [0.0] * 3 and a.nbytes == 12


def test_inconsistent_fields_are_refused():
    with pytest.raises(ValueError, match="does not describe godlpack's float32"):
        g.dtype("float32", 5, 128, 4)
    with pytest.raises(ValueError, match=r"leave the fields out: dtype\('float32'\)"):
        g.dtype("float32", bits=64)
    with pytest.raises(ValueError):
        g.dtype("bfloat16", kind="int")
    with pytest.raises(TypeError, match="not understood"):
        g.dtype("x", 0, 8, 99)  # was IndexError
    with pytest.raises(TypeError, match="must be ints"):
        g.dtype("float32", 2.0, 32, 3)
    with pytest.raises(TypeError, match="not None"):
        g.dtype(None)
    for bad in ("float128", "", "\ud800", 3.5, object(), torch.float4_e2m1fn_x2, np.dtype("U3")):
        with pytest.raises(TypeError, match="not understood"):
            g.dtype(bad)


# ---- ml_dtypes NumPy arrays --------------------------------------------------------


def _ml(name, shape=(3, 4)):
    t = getattr(ml_dtypes, name)
    values = (np.arange(int(np.prod(shape)), dtype=np.float32) + 1).reshape(shape) / 4
    return values.astype(t)  # exact in every type but the e8m0 powers of two


@pytest.mark.parametrize("name", ML_NAMES)
def test_asarray_of_ml_dtypes_arrays_shares_memory_any_strides(name):
    x = _ml(name)
    for v in (x, x[:, ::2], x[::-1], x.T, x[1:, 1:], x[0:1, 0], x[:0], x[1, 2:3].reshape(())):
        a = g.asarray(v)
        assert a.dtype is getattr(g, name) and a.shape == v.shape
        assert a.tolist() == v.astype(np.float32).tolist()
        if v.size:
            assert a.data_ptr == v.__array_interface__["data"][0]
            assert np.shares_memory(np.asarray(a), v)
        assert not a.readonly
    x[0, 0] = 2  # one memory
    assert g.asarray(x)[0, 0] == 2.0
    ro = x.copy()
    ro.flags.writeable = False
    assert g.asarray(ro).readonly
    assert g.Array(x).dtype is getattr(g, name)


@pytest.mark.parametrize("name", ML_NAMES)
def test_ml_dtypes_round_trip_both_ways(name):
    # float6/float4 Arrays travel one element a byte (padded), as ml_dtypes stores them
    a = g.asarray(_ml(name))
    assert a.flags["subbyte_padded"] == (a.dtype.bits < 8)
    for view in (a, a[:, ::2], a[::-1]):
        n = np.asarray(view)  # an ml_dtypes array over the same memory
        b = g.asarray(n)
        assert b.data_ptr == view.data_ptr and b.strides == view.strides
        assert b.dtype is view.dtype and b.tolist() == view.tolist()


def test_ml_dtypes_arrays_with_keywords():
    x = _ml("bfloat16")
    assert g.asarray(x, copy=False).data_ptr == x.ctypes.data
    c = g.asarray(x, copy=True)
    assert c.data_ptr != x.ctypes.data and c.tolist() == x.astype(np.float32).tolist()
    f = g.asarray(x, dtype="float32")
    assert f.dtype is g.float32 and f.tolist() == x.astype(np.float32).tolist()
    assert g.asarray(x, device="cpu").dtype is g.bfloat16
    with pytest.raises(ValueError, match="copy=False"):
        g.asarray(x, dtype="float32", copy=False)
    # what ml_dtypes has and godlpack has not still says so
    with pytest.raises((TypeError, ValueError)):
        g.asarray(np.zeros(3, ml_dtypes.int4))
    # other arrays NumPy's DLPack refuses keep the producer's refusal
    with pytest.raises(BufferError, match="byte order"):
        g.asarray(np.arange(3, dtype=">i4"), copy=False)
