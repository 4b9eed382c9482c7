"""godlpack.from_dlpack with real producers: NumPy, PyTorch (its C exchange API and raw
capsules), JAX on CPU, apache-tvm-ffi, and old-style producers.

For every dtype each producer exports, and for views with odd strides and offsets, the
imported Array must hold the same values at the same address (zero-copy), and a write
through either side must be visible through the other. Read-only data stays read-only,
copy=True gives separate memory, and re-export chains keep the original storage alive.
"""

from __future__ import annotations

import ctypes
import weakref

import godlpack as g
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import torch
from _malformed import (
    CODE_FLOAT,
    FLAG_READ_ONLY,
    NAME_LEGACY,
    NAME_VERSIONED,
    DLManagedTensorVersioned,
    Producer,
    capsule_name,
    capsule_pointer,
    collect,
    filled,
    full_collect,
    gc_frozen,
)
from conftest import optional_consumer
from torch.utils.dlpack import to_dlpack

CPU = jax.devices("cpu")[0]
tvm_ffi, needs_tvm_ffi = optional_consumer("tvm_ffi", "apache-tvm-ffi")


@pytest.fixture(autouse=True, scope="module")
def _gc_frozen():
    with gc_frozen():
        yield


def address(n: np.ndarray) -> int:
    return n.__array_interface__["data"][0]


def elem_strides(n: np.ndarray) -> tuple[int, ...]:
    assert all(s % n.itemsize == 0 for s in n.strides)
    return tuple(s // n.itemsize for s in n.strides)


def first_index(shape):
    return (0,) * len(shape)


def last_index(shape):
    return tuple(d - 1 for d in shape)


# --------------------------------------------------------------------------------------
# NumPy
# --------------------------------------------------------------------------------------

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


def numpy_values(name: str, shape=(3, 4)) -> np.ndarray:
    n = int(np.prod(shape))
    if name == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if name.startswith("complex"):
        return (np.arange(n) + 1j * np.arange(n, 0, -1)).astype(name).reshape(shape)
    if name.startswith("int"):
        return (np.arange(n) - n // 2).astype(name).reshape(shape)
    if name.startswith("float"):
        return (np.arange(n) * 0.5 - 2).astype(name).reshape(shape)
    return np.arange(n).astype(name).reshape(shape)


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_every_dtype_is_imported_zero_copy(name):
    n = numpy_values(name)
    a = g.from_dlpack(n)
    assert a.dtype == getattr(g, name)
    assert a.shape == n.shape and a.strides == elem_strides(n)
    assert a.tolist() == n.tolist()
    assert a.data_ptr == address(n)
    assert not a.readonly and not a.flags["is_copied"] and not a.flags["owndata"]
    # Writes are visible both ways.
    a[2, 3] = n[0, 1]
    assert n[2, 3] == n[0, 1]
    n[1, 1] = n[0, 0]
    assert a.tolist() == n.tolist()


NUMPY_VIEWS = {
    "rows-from-1-cols-reversed-by-2": lambda n: n[1:, ::-2],
    "transpose": lambda n: n.T,
    "every-3rd-row-cols-3-to-9-by-3": lambda n: n[::3, 3:9:3],
    "column": lambda n: n[1:4, 5],
    "new-axis": lambda n: n[2:, None, 1::4],
    "both-reversed": lambda n: n[::-1, ::-1],
    "offset-row": lambda n: n[3],
    "0-d": lambda n: n[2, 7:8].reshape(()),
    "empty": lambda n: n[2:2, 1:],
    "broadcast-zero-stride": lambda n: np.lib.stride_tricks.as_strided(
        n[1], shape=(3, 12), strides=(0, n.itemsize)
    ),
    "overlapping-windows": lambda n: np.lib.stride_tricks.sliding_window_view(n[0], 4),
}


@pytest.mark.parametrize("dtype", ["float64", "int16", "complex64", "bool"])
@pytest.mark.parametrize("view", list(NUMPY_VIEWS))
def test_numpy_views_with_odd_strides_and_offsets_share_memory(view, dtype):
    base = numpy_values(dtype, shape=(5, 12))
    v = NUMPY_VIEWS[view](base)
    a = g.from_dlpack(v)
    assert a.shape == v.shape
    assert a.tolist() == v.tolist()
    if v.size:  # an empty array's strides mean nothing (NumPy versions export them differently)
        assert a.strides == elem_strides(v)
        assert a.data_ptr == address(v)
        if v.flags.writeable:
            # Through godlpack, seen by NumPy; through NumPy, seen by godlpack.
            a[first_index(v.shape)] = base.flat[7]
            assert v[first_index(v.shape)] == base.flat[7]
            v[last_index(v.shape)] = base.flat[11]
            assert a.tolist() == v.tolist()
        else:
            assert a.readonly


def test_numpy_unaligned_data_is_read_right():
    raw = bytearray(np.arange(8, dtype=np.int32).tobytes()) + b"\0"
    n = np.frombuffer(raw, np.int32, offset=0, count=8)
    shifted = np.frombuffer(b"\x00" + bytes(raw[:-1]), np.int32, offset=1, count=8)
    assert address(shifted) % 4 != 0
    a = g.from_dlpack(shifted)
    assert a.tolist() == n.tolist() == list(range(8))


def test_numpy_strides_not_a_multiple_of_itemsize_fail_with_numpys_buffer_error():
    n = np.ndarray((3,), np.int32, buffer=bytearray(16), offset=1, strides=(5,))
    with pytest.raises(BufferError, match="multiple of itemsize"):
        g.from_dlpack(n)


def test_numpy_array_is_imported_from_its_fields_and_kept_alive():
    """A numpy.ndarray (the type itself) is imported from its own fields, with no
    __dlpack__ call and no capsule: the Array's owner holds the ndarray (its _keep()) and
    lets it go with the Array's last view. What its fields cannot say goes to __dlpack__:
    a subclass, copy=True (NumPy copies), a byte order DLPack has none of (NumPy refuses)."""
    import gc

    base = np.arange(12.0)
    n = base.reshape(3, 4)[:, ::2]
    alive = weakref.ref(n)
    a = g.from_dlpack(n)
    assert a._keep() is n and a.data_ptr == address(n) and a.strides == elem_strides(n)
    view = a[1:]
    del n, a
    gc.collect()
    assert alive() is not None, "the Array let its ndarray go while a view of it lives"
    assert view.tolist() == [[4.0, 6.0], [8.0, 10.0]]
    del view
    gc.collect()
    assert alive() is None, "the ndarray outlived every Array over it"

    class Sub(np.ndarray):
        pass

    assert g.from_dlpack(base.view(Sub))._keep() is None  # its capsule's owner
    copied = g.from_dlpack(base, copy=True)
    assert copied._keep() is None and copied.data_ptr != address(base)
    assert copied.tolist() == base.tolist()
    with pytest.raises(BufferError, match="native byte order"):
        g.from_dlpack(base.astype(">f8"))


def test_numpy_read_only_array_is_imported_read_only():
    n = np.arange(6.0)
    n.flags.writeable = False
    a = g.from_dlpack(n)
    assert a.readonly and a.flags["readonly"]
    assert a.data_ptr == address(n)
    with pytest.raises(ValueError):
        a[0] = 1.0
    with pytest.raises(ValueError):
        a[1:][0] = 1.0  # a view of it is read-only too
    assert n.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    # Re-exported read-only: NumPy sees the flag in a versioned capsule.
    back = np.from_dlpack(a)
    assert not back.flags.writeable
    assert address(back) == address(n)
    # A legacy capsule cannot say read-only: godlpack refuses, like NumPy does.
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__()
    with pytest.raises(BufferError):
        n.__dlpack__()
    cap = a.__dlpack__(max_version=(1, 0))
    assert capsule_name(cap) == "dltensor_versioned"
    assert g.from_dlpack(cap).readonly


def test_numpy_raw_capsules_are_consumed_and_share_memory():
    n = np.arange(12, dtype=np.int32).reshape(3, 4)
    legacy = n.__dlpack__()
    versioned = n.__dlpack__(max_version=(1, 0))
    assert capsule_name(legacy) == "dltensor"
    assert capsule_name(versioned) == "dltensor_versioned"
    a = g.from_dlpack(legacy)
    b = g.from_dlpack(versioned)
    assert capsule_name(legacy) == "used_dltensor"
    assert capsule_name(versioned) == "used_dltensor_versioned"
    for x in (a, b):
        assert x.tolist() == n.tolist()
        assert x.data_ptr == address(n)
        assert not x.readonly  # a legacy capsule is imported writable
    a[0, 0] = 100
    assert n[0, 0] == 100 and b.tolist()[0][0] == 100


def test_legacy_capsules_are_imported_writable():
    # godlpack imports legacy ('dltensor') capsules writable: the legacy struct cannot
    # say read-only, and well-behaved producers refuse to export read-only data that
    # way (NumPy raises BufferError for a read-only array's legacy __dlpack__()).
    t = torch.arange(4.0)
    a = g.from_dlpack(to_dlpack(t))
    assert not a.readonly
    a[0] = 7.0
    assert t[0].item() == 7.0
    n = np.arange(4.0)
    b = g.from_dlpack(n.__dlpack__())
    assert not b.readonly
    b[1] = 8.0
    assert n[1] == 8.0
    ro = np.arange(4.0)
    ro.flags.writeable = False
    with pytest.raises(BufferError):
        ro.__dlpack__()


def test_numpy_from_dlpack_imports_a_legacy_torch_capsule_read_only_unlike_godlpack():
    # Recorded behaviour of NumPy 2.4: numpy.from_dlpack marks an array imported from a
    # legacy 'dltensor' capsule (here PyTorch's to_dlpack) read-only, as it cannot know.
    # godlpack chose the other way (writable), see test_legacy_capsules_are_imported_writable.
    t = torch.arange(4.0)
    n = np.from_dlpack(Producer(to_dlpack(t)))
    assert not n.flags.writeable
    assert address(n) == t.data_ptr()
    a = g.from_dlpack(Producer(to_dlpack(t)))
    assert not a.readonly
    assert a.data_ptr == t.data_ptr()


@pytest.mark.parametrize("device", [None, "cpu", (g.DLDeviceType.kDLCPU, 0), (1, 0), [1, 0]])
def test_cpu_device_is_accepted(device):
    n = np.arange(5.0)
    a = g.from_dlpack(n, device=device)
    assert a.data_ptr == address(n)
    assert a.tolist() == n.tolist()
    t = torch.arange(5.0)
    b = g.from_dlpack(t, device=device)
    assert b.data_ptr == t.data_ptr()


@pytest.mark.parametrize(
    "device", ["cuda", "gpu", "CPU", (2, 0), (g.DLDeviceType.kDLCUDA, 0), (1, 1), (14, 0)]
)
def test_non_cpu_device_is_a_value_error(device):
    with pytest.raises(ValueError, match="device"):
        g.from_dlpack(np.arange(3.0), device=device)
    with pytest.raises(ValueError, match="device"):
        g.from_dlpack(torch.arange(3.0), device=device)


@pytest.mark.parametrize("device", [1, 1.0, (1,), (1, 0, 0), ("cpu", 0), object()])
def test_malformed_device_argument_is_a_type_error(device):
    with pytest.raises(TypeError):
        g.from_dlpack(np.arange(3.0), device=device)


@pytest.mark.parametrize("copy", [0, 1, "yes", np.bool_(True)])
def test_copy_must_be_a_bool_or_none(copy):
    with pytest.raises(TypeError, match="copy"):
        g.from_dlpack(np.arange(3.0), copy=copy)


def test_from_dlpack_takes_one_positional_argument_and_known_keywords():
    with pytest.raises(TypeError):
        g.from_dlpack()
    with pytest.raises(TypeError):
        g.from_dlpack(np.arange(3.0), None)
    with pytest.raises(TypeError, match="stream"):
        g.from_dlpack(np.arange(3.0), stream=None)


@pytest.mark.parametrize("make", ["numpy", "torch"])
def test_copy_true_gives_separate_memory_and_is_copied(make):
    if make == "numpy":
        x = np.arange(6.0).reshape(2, 3)
        ptr = address(x)
    else:
        x = torch.arange(6.0).reshape(2, 3)
        ptr = x.data_ptr()
    a = g.from_dlpack(x, copy=True)
    assert a.flags["is_copied"]
    assert a.data_ptr != ptr
    assert a.tolist() == x.tolist()
    a[0, 0] = 50.0
    assert x[0, 0] == 0.0
    x[1, 1] = 60.0
    assert a.tolist()[1][1] == 4.0


@pytest.mark.parametrize("make", ["numpy", "torch"])
@pytest.mark.parametrize("copy", [False, None])
def test_copy_false_or_none_on_a_normal_producer_shares(make, copy):
    x = np.arange(6.0) if make == "numpy" else torch.arange(6.0)
    a = g.from_dlpack(x, copy=copy)
    assert not a.flags["is_copied"]
    assert a.data_ptr == (address(x) if make == "numpy" else x.data_ptr())
    a[2] = -1.0
    assert x[2] == -1.0


def test_copy_true_releases_the_numpy_producer_at_once():
    n = np.arange(6.0)
    alive = weakref.ref(n)
    a = g.from_dlpack(n, copy=True)
    del n
    assert alive() is None
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert a.flags["is_copied"]


def test_copy_true_releases_a_hand_made_producer_at_once():
    p = filled(np.arange(4.0).tobytes(), dtype=(CODE_FLOAT, 64, 1), shape=(4,))
    a = g.from_dlpack(p.capsule(), copy=True)
    assert p.deleted == 1
    assert a.flags["is_copied"] and a.data_ptr != p.buffer_address
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_is_copied_from_the_producer_is_kept_without_a_second_copy():
    p = filled(np.arange(4.0).tobytes(), dtype=(CODE_FLOAT, 64, 1), shape=(4,), flags=2)
    a = g.from_dlpack(p.capsule(), copy=True)
    # The producer already copied (IS_COPIED): godlpack takes that memory as it is.
    assert a.flags["is_copied"]
    assert a.data_ptr == p.buffer_address
    assert p.deleted == 0
    del a
    collect()
    assert p.deleted == 1


def test_godlpack_array_is_imported_as_a_view_of_the_same_memory():
    p = filled(np.arange(4.0).tobytes(), dtype=(CODE_FLOAT, 64, 1), shape=(4,))
    a = g.from_dlpack(p.capsule())
    for kw in ({}, {"copy": False}, {"copy": None}, {"device": "cpu"}):
        b = g.from_dlpack(a[::-1], **kw)
        assert b.data_ptr == a.data_ptr + 3 * 8
        assert b.tolist() == [3.0, 2.0, 1.0, 0.0]
    del a
    collect()
    assert p.deleted == 0  # b still views it
    del b
    collect()
    assert p.deleted == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: g.arange(4.0),
        lambda: g.from_dlpack(np.arange(4.0)),
        lambda: g.from_dlpack(np.arange(4.0), copy=True),  # is_copied set
        lambda: g.from_dlpack(g.arange(4.0), copy=True),  # is_copied set
        lambda: g.from_dlpack(torch.arange(4.0), copy=True),  # is_copied set
    ],
    ids=["owned", "imported", "numpy-copy", "godlpack-copy", "torch-copy"],
)
def test_copy_true_of_a_godlpack_array_always_gives_new_memory(make):
    # is_copied says the producer made a copy for that one export; it is no reason to
    # hand out the same memory again when a later import asks for a copy.
    a = make()
    for src in (a, a[1:]):
        b = g.from_dlpack(src, copy=True)
        assert b.flags["is_copied"]
        assert b.data_ptr != src.data_ptr, "copy=True returned an alias"
        b[0] = 99.0
        assert src[0] != 99.0
        assert src.tolist() != b.tolist()


def test_read_only_hand_made_tensor_stays_read_only_through_numpy():
    p = filled(np.arange(4.0).tobytes(), shape=(4,), flags=FLAG_READ_ONLY)
    a = g.from_dlpack(p.capsule())
    n = np.from_dlpack(a)
    assert not n.flags.writeable
    del a, n
    collect()
    assert p.deleted == 1


# --------------------------------------------------------------------------------------
# PyTorch
# --------------------------------------------------------------------------------------

TORCH_DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
]


def torch_values(name: str) -> torch.Tensor:
    dt = getattr(torch, name)
    if name == "bool":
        return torch.tensor([[True, False, True], [False, False, True]])
    if name.startswith("complex"):
        return torch.tensor([[1 + 2j, -3j, 0.5], [4, 5 - 1j, -6 + 6j]], dtype=dt)
    if name.startswith("int"):
        return torch.tensor([[0, -1, 2], [-3, 100, 7]], dtype=dt)
    if name.startswith("uint"):
        return torch.tensor([[0, 1, 2], [3, 100, 255]], dtype=dt)
    return torch.tensor([[0.5, 1.0, 2.0], [4.0, 8.0, 16.0]]).to(dt)


def torch_list(t: torch.Tensor):
    if t.dtype.is_floating_point and t.element_size() == 1:
        return t.to(torch.float32).tolist()
    return t.tolist()


TORCH_ROUTES = {
    "exchange-api": lambda t: g.from_dlpack(t),
    "exchange-api-kw": lambda t: g.from_dlpack(t, copy=False),
    "dlpack-method": lambda t: g.from_dlpack(t, device="cpu"),
    "versioned-capsule": lambda t: g.from_dlpack(t.__dlpack__(max_version=(1, 3))),
    "to_dlpack-capsule": lambda t: g.from_dlpack(to_dlpack(t)),
}


def test_torch_has_the_c_exchange_api():
    cap = torch.Tensor.__dlpack_c_exchange_api__
    assert type(cap).__name__ == "PyCapsule"
    assert capsule_name(cap) == "dlpack_exchange_api"


@pytest.mark.parametrize("route", list(TORCH_ROUTES))
@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_every_dtype_is_imported_zero_copy(name, route):
    t = torch_values(name)
    a = TORCH_ROUTES[route](t)
    assert a.dtype == getattr(g, name)
    assert a.shape == tuple(t.shape) and a.strides == t.stride()
    assert a.data_ptr == t.data_ptr()
    assert a.tolist() == torch_list(t)
    assert not a.readonly and not a.flags["is_copied"]


def test_torch_import_without_keywords_uses_the_exchange_api_not_dlpack():
    calls = []

    class Counted(torch.Tensor):
        def __dlpack__(self, *args, **kwargs):
            calls.append(kwargs)
            return super().__dlpack__(*args, **kwargs)

    t = torch.arange(6.0).as_subclass(Counted)
    a = g.from_dlpack(t)
    assert calls == []  # the type's __dlpack_c_exchange_api__ was used
    assert a.data_ptr == t.data_ptr() and a.tolist() == t.tolist()
    # An explicit device must reach the producer as dl_device: __dlpack__ is called.
    b = g.from_dlpack(t, device="cpu")
    assert len(calls) == 1 and tuple(calls[0]["dl_device"]) == (1, 0)
    assert b.data_ptr == t.data_ptr()


def _base() -> torch.Tensor:
    return torch.arange(60, dtype=torch.float32).reshape(5, 12)


TORCH_VIEWS = {
    "narrow": lambda b: b.narrow(1, 2, 5),
    "transpose": lambda b: b.t(),
    "transposed-narrowed": lambda b: b.transpose(0, 1)[3:, 1:],
    "as_strided-with-storage-offset": lambda b: b.as_strided((3, 4), (7, 2), storage_offset=5),
    "as_strided-0-d": lambda b: b.as_strided((), (), storage_offset=17),
    "step-slices": lambda b: b[1:, ::3],
    "row": lambda b: b[3],
    "expand-zero-stride": lambda b: b[1:2].expand(4, 12),
    "unfold-overlapping": lambda b: b.unfold(1, 3, 2),
    "unsqueeze-column": lambda b: b[:, 7].unsqueeze(1),
    "empty": lambda b: b[2:2],
}


@pytest.mark.parametrize("route", ["exchange-api", "dlpack-method", "to_dlpack-capsule"])
@pytest.mark.parametrize("view", list(TORCH_VIEWS))
def test_torch_views_share_memory_with_their_strides_and_offsets(view, route):
    base = _base()
    v = TORCH_VIEWS[view](base)
    a = TORCH_ROUTES[route](v)
    assert a.shape == tuple(v.shape)
    assert a.tolist() == v.tolist()
    if v.numel() == 0:
        return
    assert a.strides == v.stride()
    assert a.data_ptr == v.data_ptr()
    a[first_index(v.shape)] = -1.0
    assert v[first_index(v.shape)].item() == -1.0
    v[last_index(v.shape)] = -2.0
    assert a.tolist() == v.tolist()


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize(
    "name, fragment", [("complex32", "bits=32"), ("float4_e2m1fn_x2", "lanes")]
)
def test_torch_dtypes_godlpack_does_not_support_are_buffer_errors(name, fragment):
    t = torch.zeros(4, dtype=getattr(torch, name))
    for route in ("exchange-api", "dlpack-method", "to_dlpack-capsule"):
        with pytest.raises(BufferError, match="field dtype") as ei:
            TORCH_ROUTES[route](t)
        assert fragment in str(ei.value)


def test_torch_producer_deleted_first_leaves_the_array_valid():
    t = torch.arange(1000, dtype=torch.int64)
    a = g.from_dlpack(t)
    del t
    full_collect()
    junk = [torch.full((1000,), -7, dtype=torch.int64) for _ in range(20)]
    assert a.tolist() == list(range(1000))
    del junk


# --------------------------------------------------------------------------------------
# JAX (CPU)
# --------------------------------------------------------------------------------------

JAX_DTYPES = [
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
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn",
]


def np_dtype(name: str):
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def jax_enable_x64():
    # jax.enable_x64 is new; the JAX that still supports CPython 3.10 has it only in
    # jax.experimental.
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64

    return enable_x64(True)


@pytest.mark.parametrize("name", JAX_DTYPES)
def test_jax_cpu_every_dtype_is_imported_zero_copy(name):
    dt = np_dtype(name)
    if name == "bool":
        host = np.array([[True, False, True], [True, True, False]])
    elif dt.kind in "iu":
        host = np.array([[0, 1, 2], [3, 4, 5]], dt)
    elif dt.kind == "c":
        host = np.array([[1 + 1j, 2, -3j], [0.5, 4, 6]], dt)
    else:
        host = np.array([[0.5, 1.0, 2.0], [4.0, 0.5, 1.0]]).astype(dt)
    with jax_enable_x64():
        x = jax.device_put(jnp.asarray(host), CPU)
        assert x.dtype == dt
        a = g.from_dlpack(x)
        assert a.dtype.name == name
        assert a.shape == x.shape
        assert a.data_ptr == x.unsafe_buffer_pointer()
        want = host.tolist() if dt.kind in "biuc" else host.astype(np.float64).tolist()
        assert a.tolist() == want
        # JAX before 0.12 hands out a legacy capsule even when asked for
        # max_version=(1, 3), which cannot say "read-only", so that import is writable
        # although JAX arrays are immutable; JAX 0.12 answers with a versioned capsule
        # flagged READ_ONLY, and the import must keep the flag.
        assert a.readonly == producer_says_read_only(x)


def producer_says_read_only(x) -> bool:
    """What the capsule x.__dlpack__(max_version=(1, 3)) says: only a versioned one can
    carry DLPACK_FLAG_BITMASK_READ_ONLY; a legacy one means writable."""
    cap = x.__dlpack__(max_version=(1, 3))
    if capsule_name(cap) == NAME_LEGACY:
        return False
    assert capsule_name(cap) == NAME_VERSIONED
    managed = DLManagedTensorVersioned.from_address(capsule_pointer(cap, NAME_VERSIONED))
    return bool(managed.flags & FLAG_READ_ONLY)


def test_jax_array_deleted_first_leaves_the_array_valid():
    x = jax.device_put(jnp.arange(1000, dtype=jnp.int32), CPU)
    a = g.from_dlpack(x)
    del x
    full_collect()
    junk = [jnp.full((1000,), -7, dtype=jnp.int32).block_until_ready() for _ in range(20)]
    assert a.tolist() == list(range(1000))
    del junk


# --------------------------------------------------------------------------------------
# apache-tvm-ffi
# --------------------------------------------------------------------------------------


@needs_tvm_ffi
@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_tvm_ffi_tensor_every_dtype_is_imported_zero_copy(name):
    n = numpy_values(name)
    tv = tvm_ffi.from_dlpack(n)
    assert type(tv).__name__ == "Tensor"
    a = g.from_dlpack(tv)
    assert a.dtype == getattr(g, name)
    assert a.tolist() == n.tolist()
    assert a.data_ptr == address(n) == tv.data_ptr()
    a[0, 0] = n[1, 1]
    assert n[0, 0] == n[1, 1]


@needs_tvm_ffi
@pytest.mark.parametrize("view", ["rows-from-1-cols-reversed-by-2", "transpose", "column"])
def test_tvm_ffi_tensor_views_keep_strides_and_offset(view):
    base = numpy_values("float32", shape=(5, 12))
    v = NUMPY_VIEWS[view](base)
    a = g.from_dlpack(tvm_ffi.from_dlpack(v))
    assert a.strides == elem_strides(v)
    assert a.data_ptr == address(v)
    assert a.tolist() == v.tolist()


@needs_tvm_ffi
def test_tvm_ffi_tensor_of_torch_memory_is_shared():
    t = torch.arange(12.0).reshape(3, 4)
    a = g.from_dlpack(tvm_ffi.from_dlpack(t))
    assert a.data_ptr == t.data_ptr()
    a[2, 3] = 99.0
    assert t[2, 3].item() == 99.0


# --------------------------------------------------------------------------------------
# Producers that predate max_version
# --------------------------------------------------------------------------------------


class OldProducer:
    """A producer from before the 2023.12 array API: __dlpack__ takes only stream."""

    def __init__(self, arr):
        self.arr = arr
        self.calls = 0

    def __dlpack__(self, stream=None):
        self.calls += 1
        return self.arr.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


@pytest.mark.parametrize("kw", [{}, {"device": None}, {"copy": None}], ids=repr)
def test_old_producer_without_max_version_is_retried_with_the_old_call(kw):
    n = np.arange(6.0).reshape(2, 3)
    old = OldProducer(n)
    a = g.from_dlpack(old, **kw)
    assert a.data_ptr == address(n)
    assert a.tolist() == n.tolist()
    assert not a.readonly
    a[1, 2] = 9.0
    assert n[1, 2] == 9.0
    assert old.calls == 1


@pytest.mark.parametrize("kw", [{"copy": True}, {"device": "cpu"}], ids=repr)
def test_old_producer_cannot_honour_copy_or_device_and_its_type_error_propagates(kw):
    # import.go: an old producer cannot be told copy= or dl_device=, so its own
    # TypeError (about the keywords it does not know) is what the caller gets.
    old = OldProducer(np.arange(3.0))
    with pytest.raises(TypeError, match="max_version"):
        g.from_dlpack(old, **kw)
    assert old.calls == 0


# --------------------------------------------------------------------------------------
# Re-export chains
# --------------------------------------------------------------------------------------


def _ptr(x) -> int:
    if isinstance(x, np.ndarray):
        return address(x)
    if isinstance(x, torch.Tensor) or (tvm_ffi is not None and isinstance(x, tvm_ffi.Tensor)):
        return x.data_ptr()
    return x.data_ptr


def _get(x, i):
    return x[i].item() if isinstance(x, torch.Tensor) else x[i]


def _check_writes_visible(objs, n):
    for k, src in enumerate(objs):
        i = k % n
        src[i] = 1000.0 + k
        for other in objs:
            assert _get(other, i) == 1000.0 + k


CHAINS = {
    "torch-godlpack-numpy": (lambda: torch.arange(8.0), g.from_dlpack, np.from_dlpack),
    "numpy-godlpack-torch": (lambda: np.arange(8.0), g.from_dlpack, torch.from_dlpack),
    "godlpack-torch-godlpack": (lambda: g.arange(8.0), torch.from_dlpack, g.from_dlpack),
    "godlpack-numpy-godlpack": (lambda: g.arange(8.0), np.from_dlpack, g.from_dlpack),
    "numpy-godlpack-godlpack": (lambda: np.arange(8.0), g.from_dlpack, g.from_dlpack),
    "torch-godlpack-torch": (lambda: torch.arange(8.0), g.from_dlpack, torch.from_dlpack),
    "numpy-torch-godlpack": (lambda: np.arange(8.0), torch.from_dlpack, g.from_dlpack),
}
if tvm_ffi is not None:  # no TVM-FFI wheel for some interpreters (3.13t)
    CHAINS["tvm-godlpack-numpy"] = (
        lambda: tvm_ffi.from_dlpack(np.arange(8.0)),
        g.from_dlpack,
        np.from_dlpack,
    )


@pytest.mark.parametrize("chain", list(CHAINS))
def test_reexport_chain_shares_memory_and_outlives_the_first_two(chain, live):
    make, step1, step2 = CHAINS[chain]
    first = make()
    second = step1(first)
    third = step2(second)
    assert _ptr(first) == _ptr(second) == _ptr(third)
    if not chain.startswith("tvm"):  # a tvm_ffi Tensor has no item assignment
        _check_writes_visible([first, second, third], 8)
    else:
        _check_writes_visible([second, third], 8)
    want = [float(v) for v in third.tolist()]
    del first, second
    full_collect()
    junk = [np.full(8, -5.0) for _ in range(50)] + [torch.full((8,), -5.0) for _ in range(50)]
    assert [float(v) for v in third.tolist()] == want
    third[3] = 42.0
    assert float(third[3]) == 42.0
    del junk, third
    assert live.delta() == 0


def test_numpy_origin_stays_alive_until_the_end_of_a_chain():
    n = np.arange(8.0)
    alive = weakref.ref(n)
    a = g.from_dlpack(n)
    t = torch.from_dlpack(a)
    b = g.from_dlpack(t)
    m = np.from_dlpack(b)
    del n, a, t, b
    full_collect()
    assert alive() is not None
    m[0] = 5.0
    assert alive()[0] == 5.0
    del m
    full_collect()
    assert alive() is None


def test_hand_made_origin_is_deleted_once_at_the_end_of_a_chain():
    p = filled(np.arange(8.0).tobytes(), dtype=(CODE_FLOAT, 64, 1), shape=(8,))
    a = g.from_dlpack(p.capsule())
    t = torch.from_dlpack(a)
    b = g.from_dlpack(t)
    n = np.from_dlpack(b)
    assert address(n) == p.buffer_address
    n[2] = 20.0
    assert a[2] == 20.0 and t[2].item() == 20.0 and b[2] == 20.0
    assert ctypes.c_double.from_buffer(p.buffer, 16).value == 20.0
    del a, t, b
    full_collect()
    assert p.deleted == 0
    assert n.tolist()[2] == 20.0
    del n
    collect()
    assert p.deleted == 1
