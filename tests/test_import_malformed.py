"""godlpack.from_dlpack against hand-made (mostly malformed) producers.

One test per validation rule (dlpack/validate.go): each asserts the exception type
(BufferError unless noted), a message fragment naming the offending field, and that the
producer's deleter is called exactly once: for a rejected tensor by the capsule's own
destructor once the capsule is dropped (godlpack leaves a capsule it rejects untouched,
still named 'dltensor[_versioned]'), for an accepted one when the last Array viewing it
is gone.

Every test runs through four routes, which must behave identically (the C fast path of
``from_dlpack(x)`` with no keywords, and the Go path taken when keywords are given):
a raw capsule, with and without keywords, and an object whose ``__dlpack__`` returns
the capsule, with and without keywords.
"""

from __future__ import annotations

import ctypes
import struct

import godlpack as g
import ml_dtypes
import numpy as np
import pytest
from _malformed import (
    CODE_BFLOAT,
    CODE_BOOL,
    CODE_FLOAT,
    CODE_FLOAT4_E2M1FN,
    CODE_FLOAT6_E2M3FN,
    CODE_FLOAT6_E3M2FN,
    CODE_INT,
    CODE_OPAQUE,
    DESTRUCTOR_ERRORS,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    ManagedTensor,
    Producer,
    capsule_name,
    collect,
    exchange_api_type,
    filled,
    gc_frozen,
    kDLCPU,
    kDLCUDA,
    kDLCUDAHost,
    kDLCUDAManaged,
    kDLOneAPI,
    kDLROCMHost,
)

F64 = (CODE_FLOAT, 64, 1)


@pytest.fixture(autouse=True, scope="module")
def _gc_frozen():
    with gc_frozen():
        yield


def f64_tensor(n=6, **kw) -> ManagedTensor:
    """float64 values 0, 1, ..., n-1 in a ctypes buffer (shape (n,) unless given)."""
    kw.setdefault("shape", (n,))
    return filled(struct.pack(f"<{n}d", *range(n)), **kw)


# --------------------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------------------


class Route:
    def __init__(self, kind: str, kwargs: dict):
        self.kind = kind
        self.kwargs = kwargs

    def __repr__(self):
        return f"Route({self.kind}, {self.kwargs})"

    def _call(self, cap):
        """from_dlpack through this route; returns (result, producer or None)."""
        if self.kind == "capsule":
            return g.from_dlpack(cap, **self.kwargs), None
        prod = Producer(cap)
        try:
            return g.from_dlpack(prod, **self.kwargs), prod
        finally:
            assert prod.calls, "__dlpack__ was not called"
            assert prod.calls[0]["max_version"] == g.DLPACK_VERSION == (1, 3)

    def reject(self, p: ManagedTensor, exc=BufferError, **capsule_kw) -> str:
        """Imports p's capsule expecting exc; checks that the capsule was left untouched
        and that dropping it calls the deleter exactly once. Returns the message."""
        cap = p.capsule(**capsule_kw)
        name = capsule_name(cap)
        msg = None
        try:
            self._call(cap)
        except exc as e:
            msg = str(e)
        assert msg is not None, f"{exc.__name__} not raised"
        assert capsule_name(cap) == name, "a rejected capsule must keep its name"
        assert p.deleted == 0, "the deleter of a rejected capsule ran before the capsule died"
        del cap
        collect()
        assert p.deleted == 1
        assert DESTRUCTOR_ERRORS == []
        return msg

    def accept(self, p: ManagedTensor):
        """Imports p's capsule expecting success; the tensor is owned, not deleted."""
        cap = p.capsule()
        a, _ = self._call(cap)
        assert isinstance(a, g.Array)
        assert capsule_name(cap) == "used_" + p.name
        del cap
        collect()
        assert p.deleted == 0
        return a


ROUTES = {
    "capsule": Route("capsule", {}),
    "capsule-kw": Route("capsule", {"copy": None}),
    "producer": Route("producer", {}),
    "producer-kw": Route("producer", {"device": None}),
}


@pytest.fixture(params=list(ROUTES))
def route(request) -> Route:
    return ROUTES[request.param]


def release(p: ManagedTensor) -> None:
    """After the test dropped its Arrays: the deleter has run exactly once."""
    collect()
    assert p.deleted == 1


def expected(p: ManagedTensor, np_dtype, shape, strides, byte_offset=0, data_offset=0):
    """What the tensor holds, read by NumPy straight from the ctypes buffer."""
    itemsize = np.dtype(np_dtype).itemsize
    view = np.ndarray(
        shape,
        np_dtype,
        buffer=p.buffer,
        offset=data_offset + byte_offset,
        strides=tuple(s * itemsize for s in strides),
    )
    return view.tolist()


# --------------------------------------------------------------------------------------
# Rule 1: version and flags
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [(2, 0), (2, 7), (255, 0)])
def test_newer_major_version_is_rejected_without_reading_the_tensor(route, version):
    p = f64_tensor(version=version)
    # Fields past the version of a newer major may be laid out differently: make every
    # one of them poison, so any read of them crashes or shows.
    t = p.tensor
    t.data = 0x8
    t.device.device_type, t.device.device_id = 0x7FFFFFFF, -1
    t.ndim = 0x7FFFFFFF
    t.dtype.code, t.dtype.bits, t.dtype.lanes = 255, 255, 0xFFFF
    t.shape = 0x10
    t.strides = 0x18
    t.byte_offset = 2**64 - 1
    p.managed.flags = 2**64 - 1
    msg = route.reject(p)
    assert "field version" in msg
    assert f"{version[0]}.{version[1]}" in msg


def test_major_version_0_in_a_versioned_capsule_is_rejected(route):
    msg = route.reject(f64_tensor(version=(0, 9)))
    assert "field version" in msg
    assert "0.9" in msg


@pytest.mark.parametrize("minor", [0, 2, 4, 99, 2**32 - 1])
def test_any_minor_version_of_major_1_is_accepted(route, minor):
    p = f64_tensor(version=(1, minor), shape=(2, 3))
    a = route.accept(p)
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    del a
    release(p)


@pytest.mark.parametrize("bits", [1 << 3, 1 << 4, 1 << 63, (1 << 63) | FLAG_READ_ONLY])
def test_unknown_flag_bits_are_rejected(route, bits):
    msg = route.reject(f64_tensor(flags=bits))
    assert "field flags" in msg
    assert hex(bits & ~7) in msg


def test_read_only_flag_makes_a_read_only_array(route):
    p = f64_tensor(flags=FLAG_READ_ONLY)
    a = route.accept(p)
    assert a.readonly and a.flags["readonly"]
    with pytest.raises(ValueError):
        a[0] = 42.0
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del a
    release(p)


def test_is_copied_flag_is_visible_in_flags(route):
    p = f64_tensor(flags=FLAG_IS_COPIED)
    a = route.accept(p)
    assert a.flags["is_copied"] and not a.readonly
    del a
    release(p)


def test_legacy_struct_has_no_flags_and_is_writable(route):
    p = f64_tensor(versioned=False)
    a = route.accept(p)
    assert not a.readonly and not a.flags["is_copied"]
    a[1] = 10.0
    assert struct.unpack_from("<d", p.buffer, 8)[0] == 10.0
    del a
    release(p)


# --------------------------------------------------------------------------------------
# Rule 2: device
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [(kDLCUDA, 0), (kDLOneAPI, 0), (kDLCUDA, 3), (10, 0)])
def test_device_the_cpu_cannot_address_is_rejected(route, device):
    msg = route.reject(f64_tensor(device=device))
    assert "field device" in msg
    assert "not CPU-accessible" in msg
    assert f"device_type={device[0]}" in msg


@pytest.mark.parametrize("device_type", [99, 0, -1, 5, 6])
def test_unknown_device_type_is_rejected(route, device_type):
    msg = route.reject(f64_tensor(device=(device_type, 0)))
    assert "field device" in msg
    assert f"unknown device type {device_type}" in msg


@pytest.mark.parametrize(
    "device", [(kDLCUDAHost, 0), (kDLROCMHost, 1), (kDLCUDAManaged, 2), (kDLCPU, 5)]
)
def test_host_accessible_device_is_accepted_and_reported(route, device):
    p = f64_tensor(device=device)
    a = route.accept(p)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert tuple(a.__dlpack_device__()) == device
    del a
    release(p)


# --------------------------------------------------------------------------------------
# Rule 3: dtype
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, fragment",
    [
        ((99, 8, 1), "code=99"),
        ((CODE_FLOAT, 24, 1), "bits=24"),
        ((CODE_INT, 12, 1), "bits=12"),
        ((CODE_INT, 0, 1), "bits=0"),
        ((CODE_BOOL, 16, 1), "bits=16"),
        ((CODE_BFLOAT, 32, 1), "bits=32"),
        ((CODE_OPAQUE, 64, 1), "code=3"),
        ((CODE_FLOAT4_E2M1FN, 8, 1), "bits=8"),
        ((CODE_FLOAT, 32, 2), "lanes"),
        ((CODE_FLOAT, 32, 0), "lanes"),
        ((CODE_FLOAT4_E2M1FN, 4, 2), "lanes"),
    ],
)
def test_unsupported_dtype_is_rejected(route, dtype, fragment):
    msg = route.reject(f64_tensor(dtype=dtype))
    assert "field dtype" in msg
    assert fragment in msg


# --------------------------------------------------------------------------------------
# Rule 4: ndim
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("ndim", [-1, -(2**31), 1000, 2**31 - 1])
def test_ndim_out_of_range_is_rejected(route, ndim):
    # shape and strides hold 1 entry only: reading ndim of them would overrun.
    msg = route.reject(f64_tensor(n=1, ndim=ndim))
    assert "field ndim" in msg
    assert str(ndim) in msg


def test_ndim_64_is_accepted(route):
    p = f64_tensor(n=1, shape=(1,) * 64)
    a = route.accept(p)
    assert a.ndim == 64 and a.size == 1
    del a
    release(p)


def test_null_shape_with_ndim_above_0_is_rejected(route):
    msg = route.reject(f64_tensor(shape=None, ndim=2, strides=(3, 1)))
    assert "field shape" in msg
    assert "NULL" in msg


# --------------------------------------------------------------------------------------
# Rule 5: shape
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(-1,), (2, -3), (0, -1), (-(2**63),)])
def test_negative_shape_entry_is_rejected(route, shape):
    msg = route.reject(f64_tensor(shape=shape, strides=(1,) * len(shape)))
    assert "field shape" in msg
    assert "negative" in msg


@pytest.mark.parametrize("shape", [(2**32, 2**32), (2**62, 2, 2), (3, 2**62)])
def test_element_count_overflowing_int64_is_rejected(route, shape):
    msg = route.reject(f64_tensor(shape=shape, strides=(0,) * len(shape)))
    assert "field shape" in msg
    assert "overflows int64" in msg


def test_contiguous_strides_of_empty_shape_overflowing_int64_is_rejected(route):
    # Legacy NULL strides mean C-contiguous; for this (empty) shape they do not fit int64.
    msg = route.reject(f64_tensor(shape=(0, 2**40, 2**40), strides=None, versioned=False))
    assert "field shape" in msg
    assert "overflow" in msg


# --------------------------------------------------------------------------------------
# Rules 6 and 9: the bytes the elements reach, and data
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, strides",
    [
        ((3,), (2**62,)),  # element offsets overflow int64
        ((2,), (2**61,)),  # byte offsets (8-byte elements) overflow int64
        ((2, 2), (2**62, 2**62)),  # their sum overflows
        ((3,), (-(2**62),)),
        ((2,), (-(2**59),)),  # reaches 2**62 bytes below element 0: below address 0
    ],
)
def test_byte_extent_overflow_is_rejected(route, shape, strides):
    msg = route.reject(f64_tensor(shape=shape, strides=strides))
    assert "field strides" in msg


def test_byte_offset_wrapping_the_address_space_is_rejected(route):
    msg = route.reject(f64_tensor(byte_offset=2**64 - 8))
    assert "field byte_offset" in msg
    assert "wraps" in msg


@pytest.mark.parametrize("shape", [(3,), (2, 2), None])
def test_null_data_with_elements_is_rejected(route, shape):
    msg = route.reject(f64_tensor(shape=shape, data=0))
    assert "field data" in msg
    assert "NULL" in msg


@pytest.mark.parametrize("shape, as_list", [((0,), []), ((0, 3), []), ((2, 0), [[], []])])
def test_null_data_without_elements_is_accepted(route, shape, as_list):
    p = f64_tensor(shape=shape, data=0, byte_offset=123)
    a = route.accept(p)
    assert a.shape == shape and a.size == 0
    assert a.tolist() == as_list
    del a
    release(p)


# --------------------------------------------------------------------------------------
# Rule 7: strides
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [(1, 2), (1, 3), (1, 7)])
def test_null_strides_from_dlpack_1_2_on_are_rejected(route, version):
    msg = route.reject(f64_tensor(shape=(2, 3), strides=None, version=version))
    assert "field strides" in msg
    assert "1.2" in msg


@pytest.mark.parametrize("versioned, version", [(True, (1, 0)), (True, (1, 1)), (False, None)])
def test_null_strides_before_dlpack_1_2_mean_c_contiguous(route, versioned, version):
    kw = {"version": version} if versioned else {}
    p = f64_tensor(shape=(2, 3), strides=None, versioned=versioned, **kw)
    a = route.accept(p)
    assert a.shape == (2, 3)
    assert a.strides == (3, 1)
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    del a
    release(p)


def test_zero_dim_tensor_with_null_shape_and_strides_is_accepted_in_1_3(route):
    p = f64_tensor(shape=None, byte_offset=16)
    a = route.accept(p)
    assert a.shape == () and a.ndim == 0
    assert a.tolist() == 2.0
    del a
    release(p)


# Layouts that are valid however unusual they look: the values must be read right.
LAYOUTS = {
    # name: (shape, strides in elements, byte_offset, data offset into the buffer)
    "empty-rows": ((0, 4), (4, 1), 0, 0),
    "empty-cols": ((3, 0), (1, 1), 0, 0),
    "0-d": ((), (), 24, 0),
    "negative-1d": ((3,), (-1,), 16, 0),
    "negative-2d": ((2, 3), (-3, -1), 40, 0),
    "negative-rows": ((2, 3), (-3, 1), 24, 0),
    "zero-stride-broadcast": ((2, 3), (0, 1), 0, 0),
    "all-zero-strides": ((4, 2), (0, 0), 8, 0),
    "byte-offset": ((2, 2), (3, 1), 8, 0),
    "data-inside-buffer": ((2, 2), (1, 2), 0, 16),
    "byte-offset-and-data": ((2,), (2,), 8, 8),
    "fortran": ((3, 2), (1, 3), 0, 0),
    "extent-1-odd-stride": ((1, 3), (1000, 1), 0, 0),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_unusual_valid_layout_is_accepted_and_read_correctly(route, layout):
    shape, strides, byte_offset, data_offset = LAYOUTS[layout]
    p = f64_tensor(n=8, shape=shape, strides=strides, byte_offset=byte_offset)
    p.tensor.data = p.buffer_address + data_offset
    a = route.accept(p)
    assert a.shape == shape
    assert a.strides == strides
    assert a.dtype == g.float64
    assert a.tolist() == expected(p, np.float64, shape, strides, byte_offset, data_offset)
    if a.size:
        assert a.data_ptr == p.buffer_address + data_offset + byte_offset
    del a
    release(p)


@pytest.mark.parametrize(
    "np_dtype, code",
    [(np.int16, CODE_INT), (np.uint32, 1), (np.float32, CODE_FLOAT), (np.complex64, 5)],
)
def test_negative_strides_and_byte_offset_read_right_for_other_dtypes(route, np_dtype, code):
    values = np.arange(12).astype(np_dtype)
    itemsize = values.itemsize
    shape, strides = (2, 3), (-4, -1)
    byte_offset = 7 * itemsize  # element 0 is values[7]
    p = filled(values.tobytes(), dtype=(code, 8 * itemsize, 1), shape=shape, strides=strides)
    p.tensor.byte_offset = byte_offset
    a = route.accept(p)
    assert a.tolist() == expected(p, np_dtype, shape, strides, byte_offset)
    assert a.tolist() == values[7::-1][[0, 1, 2, 4, 5, 6]].reshape(2, 3).tolist()
    del a
    release(p)


# --------------------------------------------------------------------------------------
# Rule 8: sub-byte dtypes (float4 / float6), packed or padded
# --------------------------------------------------------------------------------------


def pack_bits(codes, width) -> bytes:
    """Elements packed one after another, least significant bits first."""
    acc = 0
    for i, c in enumerate(codes):
        acc |= c << (i * width)
    nbytes = (len(codes) * width + 7) // 8
    return acc.to_bytes(nbytes, "little")


SUBBYTE = {
    "float4_e2m1fn": (CODE_FLOAT4_E2M1FN, 4, ml_dtypes.float4_e2m1fn),
    "float6_e2m3fn": (CODE_FLOAT6_E2M3FN, 6, ml_dtypes.float6_e2m3fn),
    "float6_e3m2fn": (CODE_FLOAT6_E3M2FN, 6, ml_dtypes.float6_e3m2fn),
}


def decode(codes, np_dtype):
    return np.array(codes, np.uint8).view(np_dtype).astype(np.float64).tolist()


@pytest.mark.parametrize("name", list(SUBBYTE))
@pytest.mark.parametrize("shape", [(5,), (2, 3), (7,), ()])
@pytest.mark.parametrize("versioned", [True, False])
def test_packed_subbyte_contiguous_is_accepted_with_right_values(route, name, shape, versioned):
    code, bits, np_dtype = SUBBYTE[name]
    n = int(np.prod(shape))
    codes = [(5 * i + 3) % (1 << bits) for i in range(n)]
    p = filled(pack_bits(codes, bits), dtype=(code, bits, 1), shape=shape, versioned=versioned)
    a = route.accept(p)
    assert a.dtype.name == name
    assert not a.flags["subbyte_padded"]
    assert a.shape == shape
    assert a.tolist() == np.array(decode(codes, np_dtype)).reshape(shape).tolist()
    del a
    release(p)


@pytest.mark.parametrize("name", list(SUBBYTE))
@pytest.mark.parametrize(
    "shape, strides", [((3,), (2,)), ((3,), (-1,)), ((2, 2), (1, 2)), ((2, 2), (0, 1))]
)
def test_packed_subbyte_non_contiguous_is_rejected(route, name, shape, strides):
    code, bits, _ = SUBBYTE[name]
    p = filled(bytes(range(8)), dtype=(code, bits, 1), shape=shape, strides=strides)
    if strides[0] < 0:
        p.tensor.byte_offset = 4
    msg = route.reject(p)
    assert "field strides" in msg
    assert "packed" in msg


@pytest.mark.parametrize("name", list(SUBBYTE))
@pytest.mark.parametrize("shape, strides", [((4,), (1,)), ((3,), (2,)), ((2, 2), (1, 2))])
def test_padded_subbyte_takes_one_byte_per_element_and_may_be_strided(route, name, shape, strides):
    code, bits, np_dtype = SUBBYTE[name]
    codes = [(7 * i + 1) % (1 << bits) for i in range(8)]
    p = filled(
        bytes(codes),
        dtype=(code, bits, 1),
        shape=shape,
        strides=strides,
        flags=FLAG_IS_SUBBYTE_TYPE_PADDED,
    )
    a = route.accept(p)
    assert a.flags["subbyte_padded"]
    assert a.dtype.name == name
    byte_view = np.ndarray(shape, np.uint8, buffer=p.buffer, strides=strides)
    want = np.array(decode(byte_view.ravel().tolist(), np_dtype)).reshape(shape)
    assert a.tolist() == want.tolist()
    del a
    release(p)


def test_padded_flag_on_a_whole_byte_dtype_is_accepted_and_ignored(route):
    p = f64_tensor(flags=FLAG_IS_SUBBYTE_TYPE_PADDED)
    a = route.accept(p)
    assert not a.flags["subbyte_padded"]
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del a
    release(p)


# --------------------------------------------------------------------------------------
# Capsules that are not fresh DLPack capsules: ValueError, capsule untouched
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "versioned, name", [(True, "used_dltensor_versioned"), (False, "used_dltensor")]
)
def test_already_consumed_capsule_is_refused_and_left_alone(route, versioned, name):
    p = f64_tensor(versioned=versioned)
    cap = p.capsule(name=name)
    if route.kind == "capsule":
        with pytest.raises(ValueError, match="already consumed"):
            g.from_dlpack(cap, **route.kwargs)
    else:
        prod = Producer(cap)
        with pytest.raises(ValueError, match="already consumed"):
            g.from_dlpack(prod, **route.kwargs)
        del prod
    assert capsule_name(cap) == name
    assert p.deleted == 0
    # A used capsule belongs to whoever consumed it: its destructor leaves the tensor.
    del cap
    collect()
    assert p.deleted == 0
    assert p.buffer[0] != 0xEE


def test_capsule_imported_twice_is_refused_the_second_time():
    p = f64_tensor()
    cap = p.capsule()
    a = g.from_dlpack(cap)
    for kw in ({}, {"copy": None}, {"copy": True}):
        with pytest.raises(ValueError, match="already consumed"):
            g.from_dlpack(cap, **kw)
    assert capsule_name(cap) == "used_dltensor_versioned"
    del cap
    collect()
    assert p.deleted == 0
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del a
    release(p)


@pytest.mark.parametrize("name", ["foo", "dltensor_versioned_", "DLTENSOR", "", None])
def test_capsule_with_a_foreign_name_is_refused_and_left_alone(route, name):
    p = f64_tensor()
    cap = p.capsule(name=name)
    shown = "NULL" if name is None else repr(name)
    if route.kind == "capsule":
        with pytest.raises(ValueError, match="not a DLPack capsule") as ei:
            g.from_dlpack(cap, **route.kwargs)
    else:
        prod = Producer(cap)
        with pytest.raises(ValueError, match="not a DLPack capsule") as ei:
            g.from_dlpack(prod, **route.kwargs)
        del prod
    assert shown in str(ei.value)
    del ei
    assert capsule_name(cap) == name
    assert p.deleted == 0
    del cap
    collect()
    assert p.deleted == 0  # not a DLPack capsule: its destructor does not know the deleter


# A capsule holding a NULL pointer cannot be made: PyCapsule_New refuses NULL pointers
# (ValueError "PyCapsule_New called with null pointer"), so that case is not tested.


# --------------------------------------------------------------------------------------
# The deleter
# --------------------------------------------------------------------------------------


def test_null_deleter_is_accepted_and_release_does_not_crash(route):
    p = f64_tensor(deleter=False)
    a = route.accept(p)
    v = a[1:]
    assert v.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    del a, v
    collect()
    assert p.deleted == 0


def test_null_deleter_on_a_rejected_tensor_does_not_crash(route):
    p = f64_tensor(deleter=False, device=(kDLCUDA, 0))
    cap = p.capsule()
    with pytest.raises(BufferError, match="field device"):
        route._call(cap)
    del cap
    collect()
    assert p.deleted == 0
    assert DESTRUCTOR_ERRORS == []


def test_accepted_tensor_is_deleted_once_after_the_array_and_its_views(route):
    p = f64_tensor(shape=(2, 3))
    a = route.accept(p)
    row = a[1]
    col = a[:, ::-2]
    copy = a.copy()
    del a
    collect()
    assert p.deleted == 0
    assert row.tolist() == [3.0, 4.0, 5.0]
    del row
    collect()
    assert p.deleted == 0
    assert col.tolist() == [[2.0, 0.0], [5.0, 3.0]]
    del col
    release(p)
    assert copy.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_copy_true_of_a_capsule_releases_the_tensor_at_once(route):
    p = f64_tensor()
    cap = p.capsule()
    if route.kind == "capsule":
        a = g.from_dlpack(cap, copy=True)
    else:
        a = g.from_dlpack(Producer(cap), copy=True)
    assert capsule_name(cap) == "used_dltensor_versioned"
    del cap
    assert p.deleted == 1  # before any collection: the copy does not hold the tensor
    assert a.flags["is_copied"] and a.flags["owndata"]
    assert a.data_ptr != p.buffer_address
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # the buffer is poisoned now


# --------------------------------------------------------------------------------------
# Producers that misbehave at the Python level
# --------------------------------------------------------------------------------------

KW_VARIANTS = [{}, {"copy": None}, {"device": None}, {"copy": False}, {"device": "cpu"}]


@pytest.mark.parametrize("kw", KW_VARIANTS, ids=repr)
@pytest.mark.parametrize("result", [42, None, "dltensor", b"", 1.5], ids=repr)
def test_dlpack_returning_a_non_capsule_is_a_type_error(kw, result):
    prod = Producer(result=result)
    with pytest.raises(TypeError, match="not a DLPack capsule"):
        g.from_dlpack(prod, **kw)
    assert prod.calls


@pytest.mark.parametrize("kw", KW_VARIANTS, ids=repr)
@pytest.mark.parametrize(
    "error", [BufferError("nope"), RuntimeError("boom"), ValueError("bad"), MemoryError()]
)
def test_exception_from_dlpack_propagates_unchanged(kw, error):
    prod = Producer(raises=error)
    with pytest.raises(type(error)) as ei:
        g.from_dlpack(prod, **kw)
    assert ei.value is error


@pytest.mark.parametrize("kw", [{}, {"copy": None}, {"device": None}], ids=repr)
@pytest.mark.parametrize(
    "error, calls",
    [
        (BufferError("nope"), [(1, 3)]),
        (RuntimeError("boom"), [(1, 3)]),
        (AttributeError("inner"), [(1, 3)]),
        (KeyError("k"), [(1, 3)]),
        # A TypeError may mean "I do not know max_version": one retry without keywords.
        (TypeError("inner"), [(1, 3), None]),
    ],
    ids=repr,
)
def test_failing_dlpack_is_called_the_same_number_of_times_on_every_path(kw, error, calls):
    prod = Producer(raises=error)
    with pytest.raises(type(error)) as ei:
        g.from_dlpack(prod, **kw)
    assert ei.value is error
    assert [c["max_version"] for c in prod.calls] == calls


@pytest.mark.parametrize("kw", KW_VARIANTS, ids=repr)
@pytest.mark.parametrize("obj", [42, [1.0, 2.0], object(), "abc", np.float64(1.0).item()])
def test_object_without_dlpack_is_a_type_error(kw, obj):
    with pytest.raises(TypeError, match="DLPack"):
        g.from_dlpack(obj, **kw)


def test_class_attribute_dlpack_that_is_not_callable_is_a_type_error():
    class Odd:
        __dlpack__ = None

    with pytest.raises(TypeError):
        g.from_dlpack(Odd())


def test_ctypes_buffer_sizes_match_the_abi():
    # The helper's own sanity: the struct layout is dlpack.h v1.3's.
    from _malformed import DLManagedTensor, DLManagedTensorVersioned, DLTensor

    assert ctypes.sizeof(DLTensor) == 48
    assert DLManagedTensor.deleter.offset == 56
    assert DLManagedTensorVersioned.flags.offset == 24
    assert DLManagedTensorVersioned.dl_tensor.offset == 32


# --------------------------------------------------------------------------------------
# Argument errors come before anything is taken
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, exc",
    [
        ({"device": "cuda"}, ValueError),
        ({"device": (kDLCUDA, 0)}, ValueError),
        ({"device": 7}, TypeError),
        ({"copy": "no"}, TypeError),
        ({"stream": None}, TypeError),
    ],
    ids=repr,
)
def test_bad_arguments_leave_the_capsule_and_the_producer_untouched(kw, exc):
    p = f64_tensor()
    cap = p.capsule()
    with pytest.raises(exc):
        g.from_dlpack(cap, **kw)
    assert capsule_name(cap) == "dltensor_versioned"
    prod = Producer(cap)
    with pytest.raises(exc):
        g.from_dlpack(prod, **kw)
    assert prod.calls == []
    assert p.deleted == 0
    del cap, prod
    collect()
    assert p.deleted == 1


# --------------------------------------------------------------------------------------
# Instance attributes
# --------------------------------------------------------------------------------------


class InstanceDLPack:
    """__dlpack__ set on the instance, not the class (numpy.from_dlpack and
    torch.from_dlpack both accept such an object: they look the method up on it)."""

    def __init__(self, arr):
        self.__dlpack__ = arr.__dlpack__
        self.__dlpack_device__ = arr.__dlpack_device__


@pytest.mark.parametrize("kw", [{}, {"copy": None}, {"device": None}], ids=repr)
def test_instance_attribute_dlpack_is_used_on_every_path(kw):
    n = np.arange(3.0)
    assert np.from_dlpack(InstanceDLPack(n)).tolist() == [0.0, 1.0, 2.0]
    a = g.from_dlpack(InstanceDLPack(n), **kw)
    assert a.data_ptr == n.__array_interface__["data"][0]
    assert a.tolist() == [0.0, 1.0, 2.0]


# --------------------------------------------------------------------------------------
# Producers with a hand-made C exchange API (__dlpack_c_exchange_api__ on the type)
# --------------------------------------------------------------------------------------

EXCHANGE_KW = [{}, {"copy": None}, {"copy": False}]


@pytest.mark.parametrize("kw", EXCHANGE_KW, ids=repr)
def test_exchange_api_tensor_is_imported_without_calling_dlpack(kw):
    p = f64_tensor(shape=(2, 3))
    cls = exchange_api_type(lambda: p)
    a = g.from_dlpack(cls(), **kw)
    assert cls.from_py_calls == 1 and cls.dlpack_calls == 0
    assert a.data_ptr == p.buffer_address
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert p.deleted == 0
    del a
    release(p)


@pytest.mark.parametrize("kw", EXCHANGE_KW, ids=repr)
@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"version": (2, 0)}, "field version"),
        ({"flags": 1 << 9}, "field flags"),
        ({"device": (kDLCUDA, 0)}, "field device"),
        ({"dtype": (CODE_FLOAT, 24, 1)}, "field dtype"),
        ({"ndim": 1000}, "field ndim"),
        ({"shape": (3, -1), "strides": (1, 1)}, "field shape"),
        ({"strides": None}, "field strides"),
        ({"data": 0}, "field data"),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else None,
)
def test_exchange_api_malformed_tensor_is_rejected_and_deleted_at_once(kw, fields, fragment):
    p = f64_tensor(**fields)
    cls = exchange_api_type(lambda: p)
    with pytest.raises(BufferError, match=fragment):
        g.from_dlpack(cls(), **kw)
    # No capsule to drop: godlpack was handed the tensor, so it deletes it itself.
    assert p.deleted == 1
    assert cls.from_py_calls == 1
    assert cls.dlpack_calls == 0  # a tensor it rejected is not asked for again


@pytest.mark.parametrize("kw", EXCHANGE_KW, ids=repr)
def test_exchange_api_failing_without_an_exception_is_a_buffer_error(kw):
    cls = exchange_api_type(lambda: None)
    with pytest.raises(BufferError, match="without an exception"):
        g.from_dlpack(cls(), **kw)
    assert cls.from_py_calls == 1, "the exchange API was called more than once"


@pytest.mark.parametrize("kw", EXCHANGE_KW, ids=repr)
@pytest.mark.parametrize("api", ["major-2", "major-0", "no-from-py"])
def test_unusable_exchange_api_is_ignored_for_dlpack(kw, api):
    p = f64_tensor()
    q = f64_tensor()
    opts = {"version": (2, 0)} if api == "major-2" else {"version": (0, 9)}
    if api == "no-from-py":
        opts = {"with_from_py": False}
    cls = exchange_api_type(lambda: q, dlpack=p.capsule, **opts)
    a = g.from_dlpack(cls(), **kw)
    assert cls.from_py_calls == 0 and cls.dlpack_calls == 1
    assert a.data_ptr == p.buffer_address
    del a
    release(p)
    assert q.deleted == 0


def test_exchange_api_is_bypassed_when_a_device_is_asked_for():
    p = f64_tensor()
    q = f64_tensor()
    cls = exchange_api_type(lambda: q, dlpack=p.capsule)
    a = g.from_dlpack(cls(), device="cpu")
    assert cls.from_py_calls == 0 and cls.dlpack_calls == 1
    assert a.data_ptr == p.buffer_address
    del a
    release(p)


@pytest.mark.parametrize("kw", EXCHANGE_KW, ids=repr)
def test_exchange_api_flags_are_carried(kw):
    p = f64_tensor(flags=FLAG_READ_ONLY | FLAG_IS_COPIED)
    cls = exchange_api_type(lambda: p)
    a = g.from_dlpack(cls(), **kw)
    assert a.readonly and a.flags["is_copied"]
    with pytest.raises(ValueError):
        a[0] = 1.0
    del a
    release(p)


def test_exchange_api_tensor_with_copy_true_is_copied_and_released_at_once():
    p = f64_tensor()
    cls = exchange_api_type(lambda: p)
    a = g.from_dlpack(cls(), copy=True)
    assert cls.from_py_calls == 1
    assert p.deleted == 1
    assert a.flags["is_copied"] and a.data_ptr != p.buffer_address
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
