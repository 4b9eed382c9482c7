"""godlpack.Array's Python API: attributes, tolist/copy/reshape, indexing, assignment,
constructors and repr, checked against NumPy wherever NumPy defines the behaviour."""

from __future__ import annotations

import json

import godlpack as g
import numpy as np
import pytest
import torch

ALIGN = 256

# (name, DLPack type code, bits, itemsize, kind) from dlpack.h v1.3.
DTYPE_TABLE = [
    ("bool", 6, 8, 1, "bool"),
    ("int8", 0, 8, 1, "int"),
    ("int16", 0, 16, 2, "int"),
    ("int32", 0, 32, 4, "int"),
    ("int64", 0, 64, 8, "int"),
    ("uint8", 1, 8, 1, "uint"),
    ("uint16", 1, 16, 2, "uint"),
    ("uint32", 1, 32, 4, "uint"),
    ("uint64", 1, 64, 8, "uint"),
    ("float16", 2, 16, 2, "float"),
    ("float32", 2, 32, 4, "float"),
    ("float64", 2, 64, 8, "float"),
    ("bfloat16", 4, 16, 2, "float"),
    ("complex64", 5, 64, 8, "complex"),
    ("complex128", 5, 128, 16, "complex"),
    ("float8_e3m4", 7, 8, 1, "float"),
    ("float8_e4m3", 8, 8, 1, "float"),
    ("float8_e4m3b11fnuz", 9, 8, 1, "float"),
    ("float8_e4m3fn", 10, 8, 1, "float"),
    ("float8_e4m3fnuz", 11, 8, 1, "float"),
    ("float8_e5m2", 12, 8, 1, "float"),
    ("float8_e5m2fnuz", 13, 8, 1, "float"),
    ("float8_e8m0fnu", 14, 8, 1, "float"),
    ("float6_e2m3fn", 15, 6, 1, "float"),
    ("float6_e3m2fn", 16, 6, 1, "float"),
    ("float4_e2m1fn", 17, 4, 1, "float"),
]


def offset_bytes(view, base) -> int:
    return view.data_ptr - base.data_ptr


# ----------------------------------------------------------------------------------------
# Attributes
# ----------------------------------------------------------------------------------------


def test_dtypes_tuple_lists_every_dlpack_type_in_table_order():
    assert [d.name for d in g.dtypes] == [row[0] for row in DTYPE_TABLE]


@pytest.mark.parametrize(
    "name,code,bits,itemsize,kind", DTYPE_TABLE, ids=[row[0] for row in DTYPE_TABLE]
)
def test_dtype_object_equals_its_name_and_carries_dlpack_code_bits_itemsize(
    name, code, bits, itemsize, kind
):
    a = g.zeros((2, 3), dtype=name)
    assert a.dtype == name
    assert isinstance(a.dtype, str)
    assert a.dtype.name == name
    assert (a.dtype.code, a.dtype.bits, a.dtype.lanes) == (code, bits, 1)
    assert a.dtype.itemsize == itemsize
    assert a.dtype.kind == kind
    assert a.itemsize == itemsize
    assert a.nbytes == (6 * bits + 7) // 8  # sub-byte types are packed
    assert repr(a.dtype) == f"dtype('{name}')"
    assert getattr(g, name) == name


@pytest.mark.parametrize(
    "shape,strides",
    [((), ()), ((0,), (1,)), ((0, 3), (3, 1)), ((5,), (1,)), ((2, 3, 4), (12, 4, 1))],
    ids=["0d", "empty", "0x3", "1d", "3d"],
)
def test_shape_strides_in_elements_ndim_size_match_numpy(shape, strides):
    a = g.zeros(shape, dtype="float64")
    n = np.zeros(shape, dtype=np.float64)
    assert a.shape == shape == n.shape
    assert a.strides == strides
    if n.size:  # NumPy gives zero-size arrays arbitrary strides
        assert a.strides == tuple(s // n.itemsize for s in n.strides)
    assert a.ndim == len(shape) == n.ndim
    assert a.size == n.size
    assert a.nbytes == n.nbytes
    assert a.itemsize == 8


def test_fresh_array_flags_and_readonly():
    a = g.arange(6)
    assert a.readonly is False
    assert a.flags == {
        "readonly": False,
        "is_copied": False,
        "c_contiguous": True,
        "owndata": True,
        "subbyte_padded": False,
    }


def test_toreadonly_is_a_readonly_view_of_the_same_memory():
    a = g.arange(6)
    r = a.toreadonly()
    assert r.readonly is True and r.flags["readonly"] is True
    assert a.readonly is False
    assert r.data_ptr == a.data_ptr
    a[2] = 42
    assert r[2] == 42
    assert r[1:].readonly is True  # views of read-only arrays stay read-only


def test_strided_view_is_not_c_contiguous():
    a = g.arange(12).reshape(3, 4)
    assert a[:, 1:3].flags["c_contiguous"] is False
    assert a[::2].flags["c_contiguous"] is False
    assert a[1:].flags["c_contiguous"] is True


def test_device_is_cpu_0():
    assert g.zeros(2).__dlpack_device__() == (g.DLDeviceType.kDLCPU, 0)
    assert g.zeros(2).__dlpack_device__() == (1, 0)


# ----------------------------------------------------------------------------------------
# tolist, copy, reshape, len
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values,dtype",
    [
        ([[1, 2], [3, 4]], "int64"),
        ([[1.5, -2.0]], "float32"),
        ([True, False], "bool"),
        ([1 + 2j, -3j], "complex128"),
        ([2**64 - 1, 0], "uint64"),
        ([-(2**63), 2**63 - 1], "int64"),
        (7, "int16"),
    ],
    ids=["int2d", "float32", "bool", "complex", "uint64max", "int64limits", "0d"],
)
def test_tolist_gives_python_scalars_like_numpy(values, dtype):
    a = g.asarray(values, dtype=dtype)
    expected = np.asarray(values, dtype=dtype).tolist()
    got = a.tolist()
    assert got == expected

    def types(x):
        return [types(i) for i in x] if isinstance(x, list) else type(x)

    assert types(got) == types(expected)


def test_copy_is_contiguous_writable_and_new_memory():
    a = g.arange(24, dtype="int32").reshape(4, 6)
    v = a[::-2, 1::2].toreadonly()
    c = v.copy()
    assert c.tolist() == v.tolist()
    assert c.shape == v.shape
    assert c.strides == (3, 1)
    assert c.flags["c_contiguous"] is True
    assert c.readonly is False
    assert c.data_ptr != v.data_ptr
    assert c.data_ptr % ALIGN == 0
    c[0, 0] = -1
    assert v[0, 0] == 19 and a[3, 1] == 19


@pytest.mark.parametrize(
    "args,shape",
    [
        ((3, 4), (3, 4)),
        (((3, 4),), (3, 4)),
        (([2, 6],), (2, 6)),
        ((-1,), (12,)),
        ((2, -1), (2, 6)),
        ((-1, 2, 3), (2, 2, 3)),
        ((1, 12, 1), (1, 12, 1)),
        ((np.int64(4), 3), (4, 3)),
    ],
    ids=["ints", "tuple", "list", "flatten", "infer-last", "infer-first", "unit-dims", "np-int"],
)
def test_reshape_is_a_view_with_inferred_dimension(args, shape):
    a = g.arange(12)
    r = a.reshape(*args)
    assert r.shape == shape
    assert r.data_ptr == a.data_ptr
    assert r.tolist() == np.arange(12).reshape(shape).tolist()
    r[(0,) * len(shape)] = 99
    assert a[0] == 99


def test_reshape_of_zero_size_and_0d():
    assert g.zeros((0, 3)).reshape(3, 0).shape == (3, 0)
    assert g.asarray(5).reshape(1, 1).tolist() == [[5]]
    assert g.asarray([5]).reshape(()).shape == ()


@pytest.mark.parametrize(
    "args,exc,fragment",
    [
        ((5,), ValueError, "cannot reshape array of size 12"),
        ((-1, -1), ValueError, "only specify one unknown dimension"),
        ((5, -1), ValueError, "cannot reshape array of size 12"),
        ((-2, 6), ValueError, "negative dimension"),
        ((2.0, 6), TypeError, "must be an integer"),
        (("a",), TypeError, "reshape()"),
    ],
    ids=["size-mismatch", "two-unknown", "infer-not-divisible", "negative", "float", "str"],
)
def test_reshape_errors(args, exc, fragment):
    with pytest.raises(exc, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        g.arange(12).reshape(*args)


def test_reshape_of_non_contiguous_view_refuses_to_copy():
    v = g.arange(12).reshape(3, 4)[:, :2]
    with pytest.raises(ValueError, match="non-contiguous"):
        v.reshape(6)


def test_len_is_first_dimension():
    assert len(g.zeros((4, 2))) == 4
    assert len(g.zeros((0, 2))) == 0


# ----------------------------------------------------------------------------------------
# Indexing: views that share memory, checked against NumPy's basic indexing
# ----------------------------------------------------------------------------------------

E = Ellipsis
INDEX_CASES = [
    (1, "int"),
    (-1, "neg-int"),
    ((1, 2), "two-ints"),
    ((-1, -2, -3), "three-neg-ints"),
    (slice(1, 3), "slice"),
    (slice(None, None, 2), "step2"),
    (slice(None, None, -1), "reverse"),
    (slice(-1, 0, -2), "neg-step-bounds"),
    ((slice(None), slice(None, None, -1)), "reverse-axis1"),
    ((slice(None, None, -2), slice(1, None, 2), slice(None, None, -3)), "mixed-steps"),
    ((E, 1), "ellipsis-int"),
    ((1, E), "int-ellipsis"),
    ((E, slice(None, None, -1)), "ellipsis-reverse"),
    (E, "ellipsis"),
    (None, "none"),
    ((None, 1, None, E, None), "none-ellipsis"),
    ((slice(None), None, 2), "slice-none-int"),
    ((1, slice(5, 1)), "empty-slice"),
    ((slice(10, 20),), "slice-past-end"),
    ((1, 2, 3), "scalar"),
    ((1, 2, E, 3), "scalar-ellipsis"),
    (np.int64(2), "np-int"),
    ((), "empty-tuple"),
]


@pytest.mark.parametrize("key", [c[0] for c in INDEX_CASES], ids=[c[1] for c in INDEX_CASES])
def test_getitem_matches_numpy_and_shares_memory(key):
    n = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    a = g.asarray(n)
    nv, av = n[key], a[key]
    if np.isscalar(nv) or isinstance(nv, np.generic):
        assert not isinstance(av, g.Array)
        assert av == nv and type(av) is int
        return
    assert isinstance(av, g.Array)
    assert av.shape == nv.shape
    assert av.strides == tuple(s // 4 for s in nv.strides)
    assert av.tolist() == nv.tolist()
    if av.size:
        assert offset_bytes(av, a) == nv.ctypes.data - n.ctypes.data
        # writes through the view land in the base array
        first = (0,) * av.ndim
        av[first] = -7
        assert a.tolist() == np.where(np.arange(60).reshape(3, 4, 5) == nv[first], -7, n).tolist()


def test_int_index_of_0d_via_empty_tuple_returns_scalar():
    a = g.asarray(2.5)
    assert a[()] == 2.5 and isinstance(a[()], float)
    assert isinstance(a[...], g.Array) and a[...].shape == ()


def test_data_ptr_arithmetic_of_chained_views():
    a = g.arange(100, dtype="float32").reshape(10, 10)
    v = a[2:, 3:][::3, ::-2]
    assert v.shape == (3, 4)
    assert v.strides == (30, -2)
    assert v.data_ptr == a.data_ptr + (2 * 10 + 3 + 0 * 10 + 6) * 4
    assert (
        v.tolist() == np.arange(100, dtype=np.float32).reshape(10, 10)[2:, 3:][::3, ::-2].tolist()
    )
    v[1, 1] = 1000
    assert a[5, 7] == 1000


def test_view_keeps_memory_alive_after_base_is_deleted():
    a = g.arange(10)
    v = a[::-3]
    del a
    assert v.tolist() == [9, 6, 3, 0]


# ----------------------------------------------------------------------------------------
# Assignment
# ----------------------------------------------------------------------------------------


def _both(shape=(3, 4), dtype="int64"):
    n = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return g.asarray(n.copy()), n


SETITEM_CASES = [
    ((1, 2), 100, "scalar-at-int"),
    (1, -5, "scalar-row"),
    (slice(None), 0, "scalar-all"),
    ((slice(None), slice(None, None, 2)), 9, "scalar-strided"),
    (Ellipsis, [1, 2, 3, 4], "broadcast-row-list"),
    ((slice(None), 1), [7, 8, 9], "column-list"),
    ((slice(None, None, -1), slice(None, None, -1)), [[1], [2], [3]], "broadcast-column-rev"),
    ((slice(None, None, 2), slice(1, 3)), [[1, 2], [3, 4]], "block"),
    (2, (5, 6, 7, 8), "tuple"),
    ((slice(1, 1),), 3, "empty-selection"),
    ((None, 0), [[4, 3, 2, 1]], "none-index"),
    (0, True, "bool-into-int"),
    (0, np.int8(-3), "numpy-scalar"),
]


@pytest.mark.parametrize(
    "key,value", [c[:2] for c in SETITEM_CASES], ids=[c[2] for c in SETITEM_CASES]
)
def test_setitem_matches_numpy(key, value):
    a, n = _both()
    a[key] = value
    n[key] = value
    assert a.tolist() == n.tolist()


def test_setitem_from_array_broadcasts_and_converts_dtype():
    a, n = _both(dtype="float32")
    src = g.asarray([[10], [20], [30]], dtype="int8")
    a[:, 1:] = src
    n[:, 1:] = np.asarray([[10], [20], [30]], dtype=np.int8)
    assert a.tolist() == n.tolist()
    a[0] = g.asarray(2.5)
    n[0] = 2.5
    assert a.tolist() == n.tolist()


def test_setitem_from_numpy_array_and_memoryview():
    a, n = _both()
    a[1] = np.array([4, 3, 2, 1])
    a[2] = memoryview(np.array([1, 1, 2, 2], dtype=np.int64))
    n[1] = [4, 3, 2, 1]
    n[2] = [1, 1, 2, 2]
    assert a.tolist() == n.tolist()


def test_setitem_from_torch_and_jax_tensors_matches_numpy():
    # A DLPack producer on the right is read zero-copy (NumPy reads its own arrays
    # the same way): any strides, broadcasting, dtype conversion, 0-d.
    import jax.numpy as jnp

    a, n = _both(dtype="float32")
    t = torch.arange(4, dtype=torch.float32)
    a[0] = t
    n[0] = t.numpy()
    a[1, ::-1] = t
    n[1, ::-1] = t.numpy()
    a[2:] = torch.tensor([[7, 8, 9, 10]], dtype=torch.int64)  # broadcast, int64 -> float32
    n[2:] = [[7, 8, 9, 10]]
    a[0, 0] = torch.tensor(2.5)
    n[0, 0] = 2.5
    a[:, 3] = jnp.arange(3.0) + 0.5
    n[:, 3] = np.arange(3.0) + 0.5
    assert a.tolist() == n.tolist()
    with pytest.raises(ValueError, match="could not broadcast"):
        a[0] = torch.ones(3)
    assert a.tolist() == n.tolist()


def test_setitem_from_a_torch_tensor_over_the_same_memory():
    t = torch.arange(6.0)
    a = g.asarray(t)  # shares t's memory
    a[1:] = t[:-1]  # a torch view of the same bytes, shifted: read before written
    assert t.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]


S = slice
OVERLAP_CASES = [
    ("a[1:] = a[:-1]", S(1, None), S(None, -1)),
    ("a[:-1] = a[1:]", S(None, -1), S(1, None)),
    ("a[::-1] = a", S(None, None, -1), S(None)),
    ("a[6:] = a[::2]", S(6, None), S(None, None, 2)),
    ("a[::2] = a[3:9]", S(None, None, 2), S(3, 9)),
    ("a[10:1:-3] = a[2:5]", S(10, 1, -3), S(2, 5)),
]


@pytest.mark.parametrize(
    "dst,src", [c[1:] for c in OVERLAP_CASES], ids=[c[0] for c in OVERLAP_CASES]
)
def test_overlapping_self_assignment_reads_source_before_writing(dst, src):
    a = g.arange(12)
    a[dst] = a[src]
    n = np.arange(12)
    n[dst] = n[src].copy()  # the defined result: as if the source were copied first
    assert a.tolist() == n.tolist()


def test_shift_right_self_assignment_matches_numpy():
    a, n = g.arange(10), np.arange(10)
    a[1:] = a[:-1]
    n[1:] = n[:-1]
    assert a.tolist() == n.tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]


def test_overlapping_2d_self_assignment_matches_numpy():
    n = np.arange(20).reshape(4, 5)
    a = g.asarray(n.copy())
    a[1:, 1:] = a[:-1, :-1]
    n[1:, 1:] = n[:-1, :-1]
    assert a.tolist() == n.tolist()
    a[:, ::-1] = a
    n[:, ::-1] = n
    assert a.tolist() == n.tolist()


def test_failed_setitem_leaves_array_unchanged():
    a = g.zeros(3, dtype="uint8")
    with pytest.raises(OverflowError):
        a[:] = [1, 2, 256]
    assert a.tolist() == [0, 0, 0]


def test_setitem_broadcast_mismatch_is_value_error():
    a = g.zeros((3, 4))
    with pytest.raises(ValueError, match="could not broadcast"):
        a[:] = [1, 2, 3]


# ----------------------------------------------------------------------------------------
# Constructors
# ----------------------------------------------------------------------------------------

FILLED = [
    ("zeros", lambda s, d: g.zeros(s, dtype=d), lambda s, d: np.zeros(s, dtype=d)),
    ("ones", lambda s, d: g.ones(s, dtype=d), lambda s, d: np.ones(s, dtype=d)),
    ("full", lambda s, d: g.full(s, 3, dtype=d), lambda s, d: np.full(s, 3, dtype=d)),
]
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


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("make,ref", [f[1:] for f in FILLED], ids=[f[0] for f in FILLED])
def test_filled_constructors_match_numpy(make, ref, dtype):
    a = make((2, 3), dtype)
    assert a.dtype == dtype
    assert a.shape == (2, 3)
    assert a.tolist() == ref((2, 3), dtype).tolist()


@pytest.mark.parametrize("fn", [g.empty, g.zeros, g.ones], ids=["empty", "zeros", "ones"])
def test_default_dtype_is_float32_and_int_shape_is_1d(fn):
    a = fn(4)
    assert a.dtype == "float32"
    assert a.shape == (4,)
    assert fn([2, 2]).shape == (2, 2)
    assert fn(()).shape == ()


def test_empty_is_writable_and_has_requested_layout():
    a = g.empty((3, 5), dtype="int16")
    assert a.strides == (5, 1) and a.readonly is False
    a[...] = 4
    assert a.tolist() == [[4] * 5] * 3


@pytest.mark.parametrize(
    "fill,dtype",
    [(3, "int64"), (3.5, "float64"), (True, "bool"), (1 + 1j, "complex128"), (2**64 - 1, "uint64")],
    ids=["int", "float", "bool", "complex", "big-uint"],
)
def test_full_infers_numpy_dtype_from_fill_value(fill, dtype):
    a = g.full((2,), fill)
    n = np.full((2,), fill)
    assert a.dtype == dtype == n.dtype.name
    assert a.tolist() == n.tolist()


def test_dtype_arguments_accept_numpy_python_and_ml_dtypes_types():
    import ml_dtypes

    assert g.zeros(1, dtype=np.float16).dtype == "float16"
    assert g.zeros(1, dtype=np.dtype("int8")).dtype == "int8"
    assert g.zeros(1, dtype=float).dtype == "float64"
    assert g.zeros(1, dtype=int).dtype == "int64"
    assert g.zeros(1, dtype=bool).dtype == "bool"
    assert g.zeros(1, dtype=complex).dtype == "complex128"
    assert g.zeros(1, dtype=np.bool_).dtype == "bool"
    assert g.zeros(1, dtype=ml_dtypes.bfloat16).dtype == "bfloat16"
    assert g.zeros(1, dtype=g.float8_e5m2).dtype == "float8_e5m2"


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((5,), {}),
        ((2, 9), {}),
        ((9, 2, -2), {}),
        ((-3,), {}),
        ((10, 0), {}),
        ((0, 1, 0.25), {}),
        ((2.0,), {}),
        ((5,), {"dtype": "float32"}),
        ((1, 7, 2), {"dtype": "uint8"}),
    ],
    ids=["stop", "start-stop", "neg-step", "empty-neg", "empty-rev", "float-step", "float-stop",
         "dtype-f32", "dtype-u8"],
)  # fmt: skip
def test_arange_matches_numpy(args, kwargs):
    a = g.arange(*args, **kwargs)
    n = np.arange(*args, **kwargs)
    assert a.dtype == n.dtype.name
    assert a.shape == n.shape
    assert a.tolist() == n.tolist()


def test_arange_fractional_step_is_close_to_numpy():
    # NumPy computes start + i*((start+step)-start); godlpack start + i*step: the two may
    # differ in the last bit, never by more.
    a = g.arange(1, 2, 0.3)
    n = np.arange(1, 2, 0.3)
    assert a.shape == n.shape
    np.testing.assert_allclose(a.tolist(), n.tolist(), rtol=4e-16, atol=0)


PYTHON_DATA = [
    ("int2d", [[1, 2, 3], [4, 5, 6]]),
    ("mixed-float", [[1.0, 2], [3, 4]]),
    ("bool", [True, False]),
    ("complex", [1, 2.5, 1j]),
    ("tuple", (1, (2), 3)),
    ("3d", [[[1]], [[2]]]),
    ("empty", []),
    ("empty2d", [[], []]),
    ("uint64", [2**63, 2**64 - 1]),
    ("int-and-uint64", [1, 2**63]),
    ("int-uint-float", [-1, 2**63]),
    ("int", 5),
    ("float", 2.5),
    ("bool-scalar", False),
    ("complex-scalar", 3j),
]


@pytest.mark.parametrize("obj", [c[1] for c in PYTHON_DATA], ids=[c[0] for c in PYTHON_DATA])
def test_asarray_from_python_data_infers_numpy_dtype(obj):
    a = g.asarray(obj)
    n = np.asarray(obj)
    assert a.dtype == n.dtype.name
    assert a.shape == n.shape
    assert a.tolist() == n.tolist()
    assert a.readonly is False and a.flags["owndata"] is True


def test_array_constructor_is_asarray():
    obj = [[1, 2], [3, 4]]
    assert isinstance(g.Array(obj), g.Array)
    assert g.Array(obj).tolist() == g.asarray(obj).tolist()
    assert g.Array(obj).dtype == g.asarray(obj).dtype
    assert g.Array(obj, dtype="int8").dtype == "int8"
    assert g.Array(3.0).shape == ()
    a = g.arange(3)
    assert g.asarray(a) is a  # like numpy.asarray: no copy for an Array of the same dtype
    assert g.Array(a) is a
    b = g.asarray(a, dtype="float32")
    assert b is not a and b.tolist() == [0.0, 1.0, 2.0] and b.data_ptr != a.data_ptr


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(24, dtype=np.int16).reshape(4, 6)[::2, ::-3],
        lambda: np.arange(24.0).reshape(4, 6).T,
        lambda: np.arange(10, dtype=np.uint32)[::-1],
        lambda: np.arange(12, dtype=np.complex64).reshape(3, 4)[:, 1:3],
        lambda: np.zeros((0, 4), dtype=np.float32)[:, ::2],
        lambda: np.array([[True, False, True]])[:, ::2],
    ],
    ids=["int16-strided", "f64-transposed", "u32-reversed", "c64-cols", "empty", "bool"],
)
def test_asarray_copy_true_copies_numpy_arrays(make):
    n = make()
    a = g.asarray(n, copy=True)
    assert a.dtype == n.dtype.name
    assert a.shape == n.shape
    assert a.tolist() == n.tolist()
    assert a.flags["c_contiguous"] is True and a.flags["owndata"] is True
    assert not np.shares_memory(np.from_dlpack(a), n)
    if n.size:
        a[(0,) * a.ndim] = 1
        assert n.tolist() == make().tolist()  # the source is untouched


@pytest.mark.parametrize("copy", [None, False])
def test_asarray_shares_a_dlpack_producers_memory(copy):
    # The array API standard: copy=None reuses the memory when it can, copy=False must.
    n = np.arange(24, dtype=np.int16).reshape(4, 6)[::2, ::-3]
    a = g.asarray(n, copy=copy)
    assert a.flags["owndata"] is False  # NumPy's memory
    assert np.shares_memory(np.from_dlpack(a), n)
    a[0, 0] = -7
    assert n[0, 0] == -7
    t = torch.arange(6.0)
    b = g.asarray(t, copy=copy, device="cpu")
    assert b.data_ptr == t.data_ptr()


def test_asarray_copy_false_raises_where_a_copy_is_needed():
    for obj, kw in [
        ([1, 2, 3], {}),
        (2.5, {}),
        (b"abc", {}),
        (np.arange(3.0), {"dtype": "float32"}),
        (g.arange(3), {"dtype": "float64"}),
    ]:
        with pytest.raises(ValueError, match=r"copy=False"):
            g.asarray(obj, copy=False, **kw)


def test_asarray_converts_a_producers_dtype_with_a_copy():
    n = np.arange(4, dtype=np.int32)
    a = g.asarray(n, dtype="float64")
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and a.flags["owndata"] is True
    assert not np.shares_memory(np.from_dlpack(a), n)


def test_asarray_of_an_array_follows_copy():
    a = g.arange(3)
    assert g.asarray(a) is a and g.asarray(a, copy=False) is a
    c = g.asarray(a, copy=True)
    assert c is not a and c.data_ptr != a.data_ptr and c.tolist() == a.tolist()


def test_asarray_keywords_are_checked():
    with pytest.raises(TypeError, match="keyword-only"):
        g.asarray([1], "float32")
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        g.asarray([1], copy=1)
    with pytest.raises(ValueError, match="unsupported device"):
        g.asarray([1], device=(2, 0))
    assert g.asarray([1], device="cpu").tolist() == [1]


def test_asarray_falls_back_to_the_buffer_protocol_when_dlpack_refuses():
    # NumPy's __dlpack__ raises BufferError for big-endian data; the buffer protocol
    # then gives the same error as before asarray shared memory (or a copy, if it can).
    n = np.arange(3, dtype=">i4")
    with pytest.raises(BufferError, match="big-endian"):
        g.asarray(n)
    with pytest.raises(BufferError):
        g.asarray(n, copy=False)  # no fallback: the producer's refusal stands


# Buffer-protocol sources run in a child interpreter: a failure there must show up as
# this test failing, not as the whole test session dying with it.
BUFFER_CASES = [
    ("bytes", "b'abc'", "uint8", [97, 98, 99]),
    ("bytearray", "bytearray(b'\\x01\\xff')", "uint8", [1, 255]),
    ("array-d", "array.array('d', [1.5, -2.0])", "float64", [1.5, -2.0]),
    ("array-i", "array.array('i', [1, -2, 3])", "int32", [1, -2, 3]),
    ("array-B", "array.array('B', [0, 200])", "uint8", [0, 200]),
    ("memoryview-bytes", "memoryview(b'abcd')", "uint8", [97, 98, 99, 100]),
    ("memoryview-array", "memoryview(array.array('h', [5, -6]))", "int16", [5, -6]),
    (
        "memoryview-2d",
        "memoryview(b'abcdef').cast('B', (2, 3))",
        "uint8",
        [[97, 98, 99], [100, 101, 102]],
    ),
    ("memoryview-strided", "memoryview(b'abcdef')[::-2]", "uint8", [102, 100, 98]),
    (
        "memoryview-numpy-2d",
        "memoryview(numpy.arange(6, dtype=numpy.int64).reshape(2, 3))",
        "int64",
        [[0, 1, 2], [3, 4, 5]],
    ),
]


@pytest.mark.parametrize(
    "expr,dtype,values", [c[1:] for c in BUFFER_CASES], ids=[c[0] for c in BUFFER_CASES]
)
def test_asarray_copies_buffer_protocol_objects(isolated, expr, dtype, values):
    code = f"""
import array, json, numpy, godlpack
src = {expr}
a = godlpack.asarray(src)
b = godlpack.Array(src)
print(json.dumps({{"dtype": a.dtype.name, "values": a.tolist(), "b": b.tolist(),
                  "aligned": a.data_ptr % 256 == 0,
                  "shared": numpy.shares_memory(numpy.from_dlpack(a), numpy.asarray(src))}}))
"""
    r = isolated(code)
    assert r.returncode == 0, f"godlpack.asarray({expr}) crashed the interpreter:\n{r.stderr}"
    out = json.loads(r.stdout)
    assert out == {"dtype": dtype, "values": values, "b": values, "aligned": True, "shared": False}


# ----------------------------------------------------------------------------------------
# 256-byte alignment of every constructor's memory
# ----------------------------------------------------------------------------------------

ALIGNED = [
    ("empty", lambda: g.empty((3, 7), dtype="int8")),
    ("empty-0", lambda: g.empty(0)),
    ("zeros", lambda: g.zeros(17, dtype="float64")),
    ("zeros-0x3", lambda: g.zeros((0, 3))),
    ("ones", lambda: g.ones((5,), dtype="uint16")),
    ("full", lambda: g.full((2, 2), 7)),
    ("arange", lambda: g.arange(13)),
    ("arange-empty", lambda: g.arange(0)),
    ("asarray-list", lambda: g.asarray([[1, 2, 3]])),
    ("asarray-scalar", lambda: g.asarray(1.5)),
    ("asarray-numpy", lambda: g.asarray(np.arange(5, dtype=np.int8)[1:], copy=True)),
    ("asarray-convert", lambda: g.asarray(g.arange(3), dtype="float16")),
    ("Array", lambda: g.Array([1, 2])),
    ("copy", lambda: g.arange(9)[1::2].copy()),
    ("float4", lambda: g.zeros(5, dtype="float4_e2m1fn")),
    ("bfloat16", lambda: g.ones(3, dtype="bfloat16")),
]


@pytest.mark.parametrize("make", [c[1] for c in ALIGNED], ids=[c[0] for c in ALIGNED])
def test_constructor_data_is_256_byte_aligned(make):
    datas = [make() for _ in range(8)]  # several, so a lucky malloc cannot pass
    for a in datas:
        assert a.data_ptr != 0
        assert a.data_ptr % ALIGN == 0


# ----------------------------------------------------------------------------------------
# repr: NumPy's, with the class name changed
# ----------------------------------------------------------------------------------------

REPR_CASES = [
    ("int64-1d", [1, 2, 3], "int64"),
    ("int64-2d", [[1, -2], [300, 4]], "int64"),
    ("int64-0d", 5, "int64"),
    ("int64-empty", [], "int64"),
    ("int64-long", list(range(2000)), "int64"),
    ("float32-1d", [0.5, 1.0, -2.25], "float32"),
    ("float32-2d", [[1.5, 2], [3, 4]], "float32"),
    ("float32-thirds", [1 / 3, 2 / 3], "float32"),
    ("float32-empty-2d", [[]], "float32"),
    ("float64-tenths", [0.1, 0.2, 0.3], "float64"),
    ("float64-whole", [1.0, 2.0], "float64"),
    ("float64-special", [float("nan"), float("inf"), -float("inf"), 1.0], "float64"),
    ("float64-signed-zero", [0.0, -0.0], "float64"),
    ("float64-0d", 3.25, "float64"),
    ("float64-sci-big", [1e10, 1.0], "float64"),
    ("float64-sci-small", [1e-5, 1.0], "float64"),
    ("float64-sci-digits", [123456789.0, 1.5], "float64"),
    ("float64-sci-3digit-exp", [1e-300, 1e300], "float64"),
    ("bool-1d", [True, False, True], "bool"),
    ("bool-2d", [[True], [False]], "bool"),
]


@pytest.mark.parametrize(
    "values,dtype", [c[1:] for c in REPR_CASES], ids=[c[0] for c in REPR_CASES]
)
def test_repr_matches_numpy(values, dtype):
    expected = repr(np.array(values, dtype=dtype))
    assert expected.startswith("array(")
    expected = "Array(" + expected[len("array(") :]
    assert repr(g.asarray(values, dtype=dtype)) == expected
