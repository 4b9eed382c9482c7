"""godlpack.Array.__dlpack_c_exchange_api__: the DLPack v1.3 C exchange API.

Every function pointer of the table is called directly from C by a small consumer,
tests/exchange_harness.c, compiled here with gcc against the upstream dlpack.h that
TVM-FFI ships (so the ABI is checked against a header that is not ours). Each call
reports what it saw: return code, the Python exception set (then cleared), fields
written, reference counts, producer deleter calls and SetError calls. Ownership is
checked with godlpack's count of live C allocations.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sysconfig

import godlpack
import numpy as np
import pytest
import torch
from conftest import optional_consumer

# The harness compiles against the dlpack.h TVM-FFI ships (a header not ours): where this
# interpreter has no TVM-FFI wheel (3.13t) the module skips, saying why.
tvm_ffi, pytestmark = optional_consumer("tvm_ffi", "apache-tvm-ffi")

HERE = os.path.dirname(os.path.abspath(__file__))
Array = godlpack.Array

kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged = 1, 2, 3, 10, 11, 13
FLAG_READ_ONLY, FLAG_IS_COPIED, FLAG_PADDED = 1, 2, 4
F32 = (2, 32, 1)  # (code, bits, lanes) of float32


# --------------------------------------------------------------------------------------
# The harness
# --------------------------------------------------------------------------------------


def build_harness(out_dir: str) -> str:
    """Compiles tests/exchange_harness.c into a shared library in out_dir."""
    so = os.path.join(out_dir, "exchange_harness.so")
    cmd = [
        os.environ.get("CC", "gcc"),
        "-O1",
        "-g",
        "-shared",
        "-fPIC",
        "-Wall",
        "-Wno-deprecated-declarations",  # PyErr_Fetch: still the way on 3.11
        "-I",
        sysconfig.get_paths()["include"],
        "-I",
        os.path.join(os.path.dirname(tvm_ffi.__file__), "include"),  # upstream dlpack.h
        os.path.join(HERE, "exchange_harness.c"),
        "-o",
        so,
        "-lpthread",
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"building the harness failed:\n{' '.join(cmd)}\n{res.stderr}"
    return so


class Harness:
    def __init__(self, path: str):
        lib = ctypes.PyDLL(path)  # PyDLL: GIL held; NULL return raises the set exception
        obj, i = ctypes.py_object, ctypes.c_int
        sigs = {
            "hx_api_info": [obj],
            "hx_dltensor": [obj, obj, i],
            "hx_managed_from_py": [obj, obj, i],
            "hx_delete": [obj],
            "hx_alloc": [obj, obj, i],
            "hx_touch": [obj, obj],
            "hx_deleter_calls": [obj],
            "hx_make_tensor": [obj],
            "hx_to_py": [obj, obj, i],
            "hx_stream": [obj, i, i, i],
        }
        for name, argtypes in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes = argtypes
            fn.restype = obj
            setattr(self, name[3:], fn)
        self._deleter_calls = self.deleter_calls
        self.deleter_calls = lambda: self._deleter_calls(None)


@pytest.fixture(scope="session")
def hx(tmp_path_factory):
    return Harness(build_harness(str(tmp_path_factory.mktemp("harness"))))


def make_tensor(
    hx,
    shape=(2, 3),
    strides=(3, 1),
    dtype=F32,
    device=kDLCPU,
    version=(1, 3),
    flags=0,
    data_null=False,
):
    """A DLManagedTensorVersioned made by the harness (float32 data i * 1.5)."""
    code, bits, lanes = dtype
    spec = (*version, device, code, bits, lanes, tuple(shape), strides, flags, data_null)
    return hx.make_tensor(spec)


def c_strides(shape):
    """C-order strides in elements, as dlpack.ContiguousStrides computes them."""
    out, s = [0] * len(shape), 1
    for i in range(len(shape) - 1, -1, -1):
        out[i] = s
        if shape[i] > 1:
            s *= shape[i]
    return tuple(out)


def packed_nbytes(shape, bits):
    n = int(np.prod(shape, dtype=object)) if shape else 1
    return (n * bits + 7) // 8


def sample_arrays():
    a = godlpack.arange(12, dtype="int64").reshape(3, 4)
    return {
        "f32-1d": godlpack.arange(7, dtype="float32"),
        "i64-2d": a,
        "i64-strided-view": a[::2, 1:],
        "f64-0d": godlpack.zeros((), dtype="float64"),
        "bool-empty": godlpack.zeros((0, 3), dtype="bool"),
        "float4-packed": godlpack.zeros((5,), dtype="float4_e2m1fn"),
        "bf16": godlpack.ones((2, 2), dtype="bfloat16"),
    }


SAMPLES = list(sample_arrays())


# --------------------------------------------------------------------------------------
# The table and the attributes
# --------------------------------------------------------------------------------------


def capsule_pointer(cap) -> int:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(cap, b"dlpack_exchange_api")


def test_capsule_is_set_on_the_type():
    cap = Array.__dict__["__dlpack_c_exchange_api__"]  # on the type itself, not inherited
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype, is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
    assert type(cap).__name__ == "PyCapsule"
    assert is_valid(cap, b"dlpack_exchange_api") == 1
    assert type(godlpack.zeros(3)).__dlpack_c_exchange_api__ is cap
    assert Array.__dlpack_c_exchange_api__ is cap  # one capsule, not one per lookup


def test_table_header_and_functions(hx):
    info = hx.api_info(Array)
    assert (info["major"], info["minor"]) == (1, 3)
    assert info["prev_api"] is None
    for fn in ("allocator", "from_py", "to_py", "dltensor", "stream"):
        assert info[fn] == 1, f"{fn} is NULL"
    assert info["address"] == capsule_pointer(Array.__dlpack_c_exchange_api__)
    # Process lifetime: the same static table on every lookup.
    assert hx.api_info(Array)["address"] == info["address"]


def test_pre_rename_int_alias_points_at_the_same_table():
    alias = Array.__dict__["__c_dlpack_exchange_api__"]
    assert type(alias) is int
    assert alias == capsule_pointer(Array.__dlpack_c_exchange_api__)


def test_table_survives_a_fresh_interpreter(isolated):
    # The capsule is made at module init; a child process sees a working table too.
    res = isolated(
        "import godlpack, tvm_ffi\n"
        "a = godlpack.arange(4, dtype='float32').toreadonly()\n"
        "t = tvm_ffi.from_dlpack(a)\n"  # read-only: only the exchange path accepts it
        "assert t.data_ptr() == a.data_ptr, (t.data_ptr(), a.data_ptr)\n"
        "print('ok')\n"
    )
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


# --------------------------------------------------------------------------------------
# dltensor_from_py_object_no_sync
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SAMPLES)
def test_dltensor_fills_a_view_without_allocating(hx, live, name):
    a = sample_arrays()[name]
    before = live.now()
    r = hx.dltensor(Array, a, 0)
    assert live.now() == before, "dltensor_from_py_object_no_sync allocated"
    assert r["rc"] == 0 and r["error_set"] == 0 and r["exc_type"] is None
    assert r["refcnt_delta"] == 0
    assert r["data"] == a.data_ptr
    assert (r["device_type"], r["device_id"]) == (kDLCPU, 0)
    assert r["ndim"] == a.ndim
    assert (r["code"], r["bits"], r["lanes"]) == (a.dtype.code, a.dtype.bits, 1)
    assert r["byte_offset"] == 0
    if a.ndim == 0:
        assert r["shape"] is None and r["strides"] is None
    else:
        assert r["shape"] == a.shape and r["strides"] == a.strides
    assert r["dims_inside_object"] == 1, "shape/strides must point into the Array object"


@pytest.mark.parametrize(
    "obj", [[1.0, 2.0], np.arange(3.0), torch.arange(3.0), None, Array], ids=type
)
def test_dltensor_rejects_other_objects(hx, obj):
    r = hx.dltensor(Array, obj, 0)
    assert r["rc"] == -1 and r["error_set"] == 1
    assert r["exc_type"] == "TypeError"
    assert "godlpack.Array" in r["exc_msg"] and type(obj).__name__ in r["exc_msg"]


@pytest.mark.parametrize("mode,what", [(1, "py_object is NULL"), (2, "out is NULL")])
def test_dltensor_null_pointers(hx, mode, what):
    r = hx.dltensor(Array, godlpack.zeros(3), mode)
    assert r["rc"] == -1 and r["error_set"] == 1
    assert r["exc_type"] == "ValueError" and what in r["exc_msg"]


def test_dltensor_refuses_read_only_arrays(hx):
    # A bare DLTensor cannot say "read-only": a consumer would feel free to write.
    r = hx.dltensor(Array, godlpack.zeros(3).toreadonly(), 0)
    assert r["rc"] == -1 and r["exc_type"] == "BufferError"
    assert "read-only" in r["exc_msg"] and "managed_tensor_from_py_object_no_sync" in r["exc_msg"]


def test_dltensor_refuses_padded_sub_byte_arrays(hx):
    # One float4 per byte (IS_SUBBYTE_TYPE_PADDED): a bare DLTensor would read as packed.
    m = make_tensor(hx, shape=(4,), strides=(1,), dtype=(17, 4, 1), flags=FLAG_PADDED)
    r = hx.to_py(Array, m, 0)
    assert r["rc"] == 0, r
    padded = r.pop("obj")
    assert padded.flags["subbyte_padded"]
    d = hx.dltensor(Array, padded, 0)
    assert d["rc"] == -1 and d["exc_type"] == "BufferError" and "padded" in d["exc_msg"]
    # ... while the managed path carries the flag.
    e = hx.managed_from_py(Array, padded, 0)
    assert e["rc"] == 0 and e["flags"] & FLAG_PADDED
    hx.delete(e["tensor"])


# --------------------------------------------------------------------------------------
# managed_tensor_from_py_object_no_sync (+ its deleter)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SAMPLES)
def test_managed_from_py_owns_the_memory(hx, live, name):
    a = sample_arrays()[name]
    base = live.now()
    r = hx.managed_from_py(Array, a, 0)
    assert r["rc"] == 0 and r["error_set"] == 0 and r["exc_type"] is None
    assert r["refcnt_delta"] == 0, "the tensor holds the owner, not the Python object"
    assert (r["version_major"], r["version_minor"]) == (1, 3)
    assert r["flags"] == 0
    assert r["has_deleter"] == 1
    assert r["data"] == a.data_ptr
    assert (r["device_type"], r["device_id"]) == (kDLCPU, 0)
    assert (r["code"], r["bits"], r["lanes"]) == (a.dtype.code, a.dtype.bits, 1)
    assert r["byte_offset"] == 0
    if a.ndim:
        assert r["shape"] == a.shape and r["strides"] == a.strides
    else:
        assert r["shape"] is None and r["strides"] is None
    assert live.now() == base + 1  # one block: struct + shape + strides
    hx.delete(r["tensor"])
    assert live.now() == base


def test_managed_tensor_keeps_data_alive_after_the_array_dies(hx, live):
    base = live.now()
    a = godlpack.arange(5, dtype="float64")
    r = hx.managed_from_py(Array, a, 0)
    data = r["data"]
    del a
    assert live.now() == base + 2, "owner and tensor block must outlive the Array"
    assert list((ctypes.c_double * 5).from_address(data)) == [0.0, 1.0, 2.0, 3.0, 4.0]
    hx.delete(r["tensor"])  # the deleter needs no Array and releases everything
    assert live.now() == base


def test_managed_from_py_of_read_only_and_copied_arrays_carries_flags(hx):
    r = hx.managed_from_py(Array, godlpack.zeros(3).toreadonly(), 0)
    assert r["rc"] == 0 and r["flags"] == FLAG_READ_ONLY
    hx.delete(r["tensor"])


@pytest.mark.parametrize("obj", [[1, 2], np.zeros(2), torch.zeros(2), 3.5], ids=type)
def test_managed_from_py_rejects_other_objects(hx, live, obj):
    base = live.now()
    r = hx.managed_from_py(Array, obj, 0)
    assert r["rc"] == -1 and r["error_set"] == 1 and r["exc_type"] == "TypeError"
    assert r["out_untouched"] == 0 and r["tensor"] is None, "*out must be NULL on failure"
    assert live.now() == base


@pytest.mark.parametrize("mode,what", [(1, "py_object is NULL"), (2, "out is NULL")])
def test_managed_from_py_null_pointers(hx, live, mode, what):
    base = live.now()
    r = hx.managed_from_py(Array, godlpack.zeros(3), mode)
    assert r["rc"] == -1 and r["error_set"] == 1
    assert r["exc_type"] == "ValueError" and what in r["exc_msg"]
    if mode == 1:
        assert r["tensor"] is None
    assert live.now() == base


# --------------------------------------------------------------------------------------
# managed_tensor_allocator
# --------------------------------------------------------------------------------------

SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 5), (1, 1, 3)]


@pytest.mark.parametrize("dt", godlpack.dtypes, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_allocator_makes_aligned_contiguous_tensors(hx, dt, shape):
    # No Python cycles are involved: the raw count needs no gc.collect() (156 cases).
    live_now = godlpack._live_allocations
    base = live_now()
    spec = (kDLCPU, 0, dt.code, dt.bits, 1, len(shape), shape)
    r = hx.alloc(Array, spec, 0)
    assert r["rc"] == 0 and r["seterror_calls"] == 0 and r["python_error_set"] == 0
    assert r["out_null"] == 0 and r["tensor"] is not None
    assert (r["version_major"], r["version_minor"]) == (1, 3)
    assert r["flags"] == 0 and r["has_deleter"] == 1
    assert r["data"] is not None and r["align256"] == 1
    assert (r["device_type"], r["device_id"]) == (kDLCPU, 0)
    assert (r["code"], r["bits"], r["lanes"]) == (dt.code, dt.bits, 1)
    assert r["byte_offset"] == 0
    if shape:
        assert r["shape"] == shape and r["strides"] == c_strides(shape)
        assert r["shape_aliases_prototype"] == 0, "shape must be the tensor's own copy"
    else:
        assert r["shape"] is None and r["strides"] is None
    assert r["prototype_shape_kept"] == 1
    nbytes = packed_nbytes(shape, dt.bits)
    assert hx.touch(r["tensor"], nbytes) == nbytes  # every byte is ours to write
    assert live_now() == base + 2  # data owner + tensor block
    hx.delete(r["tensor"])
    assert live_now() == base


@pytest.mark.parametrize("flags,where", [(8, "GIL released"), (16, "a thread with no GIL")])
def test_allocator_needs_no_gil(hx, live, flags, where):
    base = live.now()
    r = hx.alloc(Array, (kDLCPU, 0, *F32[:2], 1, 2, (4, 4)), flags)
    assert r["had_gil"] == 0, where
    assert r["rc"] == 0 and r["seterror_calls"] == 0
    hx.delete(r["tensor"])
    # ... and its failures too go only through SetError.
    r = hx.alloc(Array, (kDLCUDA, 0, *F32[:2], 1, 1, (4,)), flags)
    assert r["rc"] != 0 and r["seterror_calls"] == 1 and r["python_error_set"] == 0
    assert live.now() == base


ALLOC_ERRORS = [
    # (id, spec, harness flags, kind, message fragment)
    ("NULL prototype", (1, 0, 2, 32, 1, 1, (3,)), 1, "ValueError", "prototype is NULL"),
    ("NULL out", (1, 0, 2, 32, 1, 1, (3,)), 2, "ValueError", "out is NULL"),
    ("CUDA device", (kDLCUDA, 0, 2, 32, 1, 1, (3,)), 0, "ValueError", "kDLCUDA"),
    ("pinned host", (kDLCUDAHost, 0, 2, 32, 1, 1, (3,)), 0, "ValueError", "kDLCUDAHost"),
    ("unknown device", (99, 0, 2, 32, 1, 1, (3,)), 0, "ValueError", "device_type=99"),
    ("opaque handle", (1, 0, 3, 64, 1, 1, (3,)), 0, "ValueError", "code=3, bits=64"),
    ("vector lanes", (1, 0, 2, 32, 4, 1, (3,)), 0, "ValueError", "lanes != 1"),
    ("int4", (1, 0, 0, 4, 1, 1, (3,)), 0, "ValueError", "code=0, bits=4"),
    ("float7", (1, 0, 2, 7, 1, 1, (3,)), 0, "ValueError", "bits=7"),
    ("code 200", (1, 0, 200, 8, 1, 1, (3,)), 0, "ValueError", "code=200"),
    ("ndim -1", (1, 0, 2, 32, 1, -1, ()), 0, "ValueError", "ndim -1"),
    ("ndim 65", (1, 0, 2, 32, 1, 65, (1,) * 65), 0, "ValueError", "ndim 65"),
    ("NULL shape", (1, 0, 2, 32, 1, 2, None), 0, "ValueError", "shape is NULL"),
    ("negative dim", (1, 0, 2, 32, 1, 2, (3, -1)), 0, "ValueError", "shape[1] is negative"),
    ("count overflow", (1, 0, 2, 32, 1, 2, (2**62, 2**62)), 0, "ValueError", "overflows"),
    ("bytes overflow", (1, 0, 2, 64, 1, 1, (2**61,)), 0, "ValueError", "overflow"),
    ("out of memory", (1, 0, 1, 8, 1, 1, (2**59,)), 0, "MemoryError", "cannot allocate"),
]


@pytest.mark.parametrize(
    "spec,flags,kind,fragment", [e[1:] for e in ALLOC_ERRORS], ids=[e[0] for e in ALLOC_ERRORS]
)
def test_allocator_errors_call_set_error_exactly_once(hx, live, spec, flags, kind, fragment):
    base = live.now()
    r = hx.alloc(Array, spec, flags)
    assert r["rc"] != 0
    assert r["seterror_calls"] == 1, "SetError must be called exactly once on failure"
    assert r["kind"] == kind and fragment in r["message"], r["message"]
    assert r["python_error_set"] == 0, "the allocator must not touch Python"
    if not flags & 2:
        assert r["out_null"] == 1 and "tensor" not in r
    assert live.now() == base
    # Without a SetError the failure is still a clean non-zero return.
    r = hx.alloc(Array, spec, flags | 4)
    assert r["rc"] != 0 and r["seterror_calls"] == 0
    assert live.now() == base


def test_allocator_zero_extent_beats_overflow(hx):
    r = hx.alloc(Array, (1, 0, 2, 32, 1, 3, (2**62, 2**62, 0)), 0)
    assert r["rc"] == 0 and r["shape"] == (2**62, 2**62, 0)
    hx.delete(r["tensor"])


def test_allocator_keeps_a_cpu_device_id(hx):
    r = hx.alloc(Array, (1, 2, 2, 32, 1, 1, (3,)), 0)
    assert r["rc"] == 0 and (r["device_type"], r["device_id"]) == (kDLCPU, 2)
    hx.delete(r["tensor"])


def test_allocated_tensor_round_trips_to_an_array(hx, live):
    base = live.now()
    r = hx.alloc(Array, (1, 0, 2, 32, 1, 2, (2, 3)), 0)
    p = hx.to_py(Array, r["tensor"], 0)
    assert p["rc"] == 0 and p["deleter_calls_during"] == 0
    a = p.pop("obj")
    assert type(a) is Array and a.shape == (2, 3) and a.dtype == "float32"
    assert a.data_ptr == r["data"]
    a[...] = 2.5
    assert a.tolist() == [[2.5] * 3] * 2
    assert np.from_dlpack(a).sum() == 15.0
    del a, p
    assert live.now() == base


# --------------------------------------------------------------------------------------
# managed_tensor_to_py_object_no_sync
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(),  # plain: made in C
        dict(shape=(3, 2), strides=(1, 3)),  # Fortran order
        dict(shape=(), strides=None),  # 0-d
        dict(shape=(4,), strides=(1,), dtype=(17, 4, 1)),  # packed float4: Go validator
        dict(device=kDLCUDAHost),  # pinned host memory: Go validator
        dict(flags=FLAG_READ_ONLY),
        dict(version=(1, 1), strides=None),  # before 1.2 NULL strides meant C order
    ],
    ids=["plain", "fortran", "0d", "float4", "cuda-host", "readonly", "v1.1-null-strides"],
)
def test_to_py_adopts_the_tensor(hx, live, kw):
    base = live.now()
    m = make_tensor(hx, **kw)
    calls = hx.deleter_calls()
    r = hx.to_py(Array, m, 0)
    assert r["rc"] == 0 and r["error_set"] == 0 and r["out_null"] == 0, r
    assert r["deleter_calls_during"] == 0
    assert r["obj_refcnt"] == 1  # a new reference, ours alone
    a = r.pop("obj")
    assert type(a) is Array
    shape = kw.get("shape", (2, 3))
    assert a.shape == shape
    if kw.get("dtype") is None:
        want = np.arange(int(np.prod(shape)), dtype=np.float32) * 1.5
        strides = kw.get("strides", (3, 1))
        if strides is not None and shape:
            assert a.strides == strides
            want = np.lib.stride_tricks.as_strided(want, shape, tuple(s * 4 for s in strides))
        else:
            want = want.reshape(shape)
        assert a.tolist() == want.tolist()
    if kw.get("device") == kDLCUDAHost:
        assert tuple(a.__dlpack_device__()) == (kDLCUDAHost, 0)
    assert a.readonly == bool(kw.get("flags", 0) & FLAG_READ_ONLY)
    del a, r
    assert hx.deleter_calls() == calls + 1, "the Array must call the deleter exactly once"
    assert live.now() == base


TO_PY_REJECTS = [
    ("major 2", dict(version=(2, 0)), "version"),
    ("major 0", dict(version=(0, 9)), "version"),
    ("opaque dtype", dict(dtype=(3, 64, 1)), "dtype"),
    ("lanes 2", dict(dtype=(2, 32, 2)), "lanes"),
    ("CUDA device", dict(device=kDLCUDA), "kDLCUDA"),
    ("unknown flag", dict(flags=1 << 20), "flags"),
    ("NULL strides at 1.3", dict(strides=None), "strides"),
    ("negative extent", dict(shape=(2, -3)), "negative"),
]


@pytest.mark.parametrize(
    "kw,fragment", [t[1:] for t in TO_PY_REJECTS], ids=[t[0] for t in TO_PY_REJECTS]
)
def test_to_py_rejects_bad_tensors_without_taking_them(hx, live, kw, fragment):
    base = live.now()
    m = make_tensor(hx, **kw)
    calls = hx.deleter_calls()
    r = hx.to_py(Array, m, 0)
    assert r["rc"] == -1 and r["error_set"] == 1
    assert r["exc_type"] == "BufferError" and fragment in r["exc_msg"], r["exc_msg"]
    assert r["out_null"] == 1
    # Not taken on failure (PyTorch 2.15 does the same; TVM-FFI then deletes it itself).
    assert r["deleter_calls_during"] == 0
    hx.delete(m)
    assert hx.deleter_calls() == calls + 1
    assert live.now() == base


def test_to_py_null_tensor(hx):
    r = hx.to_py(Array, None, 0)
    assert r["rc"] == -1 and r["exc_type"] == "ValueError" and "tensor is NULL" in r["exc_msg"]
    assert r["out_null"] == 1


def test_to_py_null_out_leaves_the_tensor_to_the_caller(hx, live):
    base = live.now()
    m = make_tensor(hx)
    calls = hx.deleter_calls()
    r = hx.to_py(Array, m, 2)
    assert r["rc"] == -1 and r["exc_type"] == "ValueError" and "out_py_object" in r["exc_msg"]
    assert r["deleter_calls_during"] == 0
    hx.delete(m)
    assert hx.deleter_calls() == calls + 1
    assert live.now() == base


def test_to_py_failure_ownership_matches_torch(hx):
    """The convention we follow, checked on PyTorch's own table: a failed
    managed_tensor_to_py_object_no_sync leaves the tensor with the caller."""
    for kw in (dict(dtype=(3, 64, 1)), dict(dtype=(2, 32, 4))):
        m = make_tensor(hx, **kw)
        calls = hx.deleter_calls()
        r = hx.to_py(torch.Tensor, m, 0)
        assert r["rc"] != 0 and r["error_set"] == 1
        assert r["deleter_calls_during"] == 0, "torch took the tensor on failure"
        hx.delete(m)
        assert hx.deleter_calls() == calls + 1


def test_exported_tensor_round_trips(hx, live):
    # from_py then to_py: the new Array views the same bytes through our own tensor.
    base = live.now()
    a = godlpack.arange(6, dtype="int32").reshape(2, 3)
    r = hx.managed_from_py(Array, a, 0)
    p = hx.to_py(Array, r["tensor"], 0)
    b = p.pop("obj")
    assert b.data_ptr == a.data_ptr and b.tolist() == a.tolist()
    del a
    b[0, 0] = 42
    assert b.tolist()[0][0] == 42
    del b, p
    assert live.now() == base


# --------------------------------------------------------------------------------------
# current_work_stream
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "device_type,device_id",
    [(kDLCPU, 0), (kDLCPU, 5), (kDLCUDAHost, 0), (kDLROCMHost, 1), (kDLCUDAManaged, 0)],
)
def test_stream_is_null_for_memory_we_hold(hx, device_type, device_id):
    r = hx.stream(Array, device_type, device_id, 0)
    assert r["rc"] == 0 and r["error_set"] == 0
    assert r["stream_untouched"] == 0 and r["stream"] is None


@pytest.mark.parametrize(
    "device_type,name",
    [
        (kDLCUDA, "kDLCUDA"),
        (kDLROCM, "kDLROCM"),
        (14, "kDLOneAPI"),
        (99, "device_type=99"),
        (-1, "device_type=-1"),
    ],
)
def test_stream_errors_name_the_device_type(hx, device_type, name):
    r = hx.stream(Array, device_type, 0, 0)
    assert r["rc"] == -1 and r["error_set"] == 1
    assert r["exc_type"] == "ValueError" and name in r["exc_msg"], r["exc_msg"]
    assert r["stream"] is None  # *out is NULL after a failure


def test_stream_null_out(hx):
    r = hx.stream(Array, kDLCPU, 0, 1)
    assert r["rc"] == -1 and r["exc_type"] == "ValueError"


# --------------------------------------------------------------------------------------
# From Python
# --------------------------------------------------------------------------------------


def test_godlpack_consumes_its_own_exchange_api():
    # from_dlpack on a type with the exchange API is the consumer side of this table.
    a = godlpack.arange(4, dtype="float32")
    b = godlpack.from_dlpack(a)
    assert b.data_ptr == a.data_ptr
