"""A real consumer of godlpack's DLPack C exchange API: apache-tvm-ffi (PyPI).

What TVM-FFI 0.1.15 does with a type that has ``__dlpack_c_exchange_api__`` (read in
its installed sources, tvm_ffi/cython/*.pxi and tvm_ffi_python_helpers.h):

- ``tvm_ffi.from_dlpack(x)`` calls the table's managed_tensor_from_py_object_no_sync
  first, and falls back to ``x.__dlpack__()`` (legacy, no max_version) only if that
  raises BufferError (tensor.pxi, _from_dlpack_universal).
- Calling an FFI function: each argument whose class has the attribute is converted
  with managed_tensor_from_py_object_no_sync, and the table becomes the call's
  "context" API (function.pxi, TVMFFIPyArgSetterDLPackExchangeAPI_: every such
  argument sets it, so the last one wins). For the duration of the call its
  managed_tensor_allocator is installed as the thread-local environment allocator
  (TVMFFIEnvSetDLPackManagedTensorAllocator in FuncCall), used by
  ``ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ...)``; the GIL may be released
  meanwhile. A returned tensor goes through the context API's
  managed_tensor_to_py_object_no_sync (make_tensor_from_chandle), so it comes back as
  the argument's array type. If that fails, TVM-FFI calls the tensor's deleter
  itself and returns a tvm_ffi.Tensor.
"""

from __future__ import annotations

import gc
import os
import textwrap

import godlpack
import numpy as np
import pytest
import torch
from conftest import optional_consumer

# where this interpreter has no TVM-FFI wheel (3.13t) the module skips, saying why
tvm_ffi, pytestmark = optional_consumer("tvm_ffi", "apache-tvm-ffi")
if tvm_ffi is not None:
    import tvm_ffi.cpp

CPP = r"""
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <cstdlib>
namespace ffi = tvm::ffi;

// Reads and writes a float32 tensor through its strides.
void scale_inplace(ffi::TensorView x, double k) {
  TVM_FFI_ICHECK(x.dtype().code == kDLFloat && x.dtype().bits == 32) << "float32 only";
  float* p = static_cast<float*>(x.data_ptr());
  int64_t n = x.numel(), nd = x.ndim();
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, off = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += (rem % x.size(d)) * x.stride(d);
      rem /= x.size(d);
    }
    p[off] = static_cast<float>(p[off] * k);
  }
}

// A new tensor from the environment allocator: the context exchange API's.
ffi::Tensor add_new(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_ICHECK(x.IsContiguous() && y.IsContiguous());
  ffi::Tensor out =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  float* o = static_cast<float*>(out.data_ptr());
  const float* a = static_cast<const float*>(x.data_ptr());
  const float* b = static_cast<const float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] + b[i];
  return out;
}

// Asks the environment allocator for a tensor of any dtype.
ffi::Tensor alloc_dtype(ffi::TensorView x, int64_t code, int64_t bits, int64_t lanes) {
  DLDataType dt{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                static_cast<uint16_t>(lanes)};
  return ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), dt, x.device());
}

// A tensor godlpack cannot represent (int4), from TVM-FFI's own allocator, whose
// frees are counted: returning it makes godlpack's to_py fail.
static int64_t g_frees = 0;
struct CountingCPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t) + 1); }
  void FreeData(DLTensor* t) { ++g_frees; std::free(t->data); }
};
ffi::Tensor make_int4(ffi::TensorView x) {
  DLDataType int4{kDLInt, 4, 1};
  return ffi::Tensor::FromNDAlloc(CountingCPUAlloc(), x.shape(), int4, x.device());
}
int64_t frees() { return g_frees; }
"""
FUNCTIONS = ["scale_inplace", "add_new", "alloc_dtype", "make_int4", "frees"]


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("tvm_ffi_build"))


@pytest.fixture(scope="session")
def mod(build_dir):
    return tvm_ffi.cpp.load_inline(
        name="godlpack_exchange_test",
        cpp_sources=CPP,
        functions=FUNCTIONS,
        build_directory=build_dir,
    )


# --------------------------------------------------------------------------------------
# tvm_ffi.from_dlpack
# --------------------------------------------------------------------------------------


def test_from_dlpack_shares_memory():
    a = godlpack.arange(6, dtype="float32").reshape(2, 3)
    t = tvm_ffi.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr
    assert t.shape == (2, 3) and t.strides == (3, 1) and str(t.dtype) == "float32"
    view = np.from_dlpack(t)  # back out through TVM-FFI's own __dlpack__
    view[1, 2] = 99.0
    assert a.tolist()[1][2] == 99.0


def test_from_dlpack_takes_the_exchange_path():
    """A read-only Array cannot be exported by the call TVM-FFI's fallback makes
    (``__dlpack__()`` with no max_version: a legacy capsule has no read-only flag, so
    godlpack raises BufferError). tvm_ffi.from_dlpack still imports it, zero-copy:
    only managed_tensor_from_py_object_no_sync can have produced that tensor."""
    ro = godlpack.arange(4, dtype="float32").toreadonly()
    with pytest.raises(BufferError, match="read-only"):
        ro.__dlpack__()
    t = tvm_ffi.from_dlpack(ro)
    assert t.data_ptr() == ro.data_ptr and t.shape == (4,)


def test_from_dlpack_never_calls_dunder_dlpack(isolated):
    """Second proof, in a child process: replace Array.__dlpack__ with a function
    that counts and raises. tvm_ffi.from_dlpack works and never calls it."""
    res = isolated(
        textwrap.dedent("""
        import godlpack, tvm_ffi
        calls = []
        def trap(self, *a, **k):
            calls.append(1)
            raise RuntimeError("__dlpack__ was called")
        try:
            godlpack.Array.__dlpack__ = trap
        except TypeError:
            print("immutable")  # a hardened (immutable) type: the read-only proof stands
            raise SystemExit(0)
        a = godlpack.arange(5, dtype="int32")
        t = tvm_ffi.from_dlpack(a)
        assert t.data_ptr() == a.data_ptr
        try:
            a.__dlpack__()
        except RuntimeError:
            pass
        print("calls", len(calls))
    """)
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() in ("calls 1", "immutable"), res.stdout
    # "calls 1" is our own probe call after the import: the import made none.


def test_from_dlpack_keeps_the_array_memory_alive(live):
    base = live.now()
    a = godlpack.arange(8, dtype="float64")
    t = tvm_ffi.from_dlpack(a)
    del a
    gc.collect()
    assert np.from_dlpack(t).tolist() == [float(i) for i in range(8)]
    del t
    assert live.now() == base


# --------------------------------------------------------------------------------------
# FFI functions called with godlpack arrays (load_inline, a C++ compiler)
# --------------------------------------------------------------------------------------


def test_function_writes_go_arrays_in_place(mod):
    a = godlpack.arange(12, dtype="float32").reshape(3, 4)
    mod.scale_inplace(a, 2.0)
    assert a.tolist() == (np.arange(12, dtype=np.float32).reshape(3, 4) * 2).tolist()
    # A strided view: strides go through the exchange untouched.
    v = a[::2, 1::2]
    mod.scale_inplace(v, -1.0)
    want = np.arange(12, dtype=np.float32).reshape(3, 4) * 2
    want[::2, 1::2] *= -1
    assert a.tolist() == want.tolist()


@pytest.mark.parametrize("release_gil", [False, True])
def test_returned_tensor_comes_back_as_a_godlpack_array(mod, live, release_gil):
    """add_new allocates through the environment allocator (ours, since the arguments
    are Arrays) and its result is converted by our managed_tensor_to_py_object_no_sync.
    With release_gil the allocator runs with the GIL released."""
    base = live.now()
    fn = mod.add_new
    fn.release_gil = release_gil
    x = godlpack.arange(6, dtype="float32")
    y = godlpack.full((6,), 10.0, dtype="float32")
    r = fn(x, y)
    assert type(r) is godlpack.Array
    assert r.tolist() == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert r.data_ptr % 256 == 0, "our allocator's 256-byte alignment"
    assert r.data_ptr not in (x.data_ptr, y.data_ptr)
    assert r.flags["owndata"] is False  # it owns a foreign (TVM-FFI) tensor...
    assert np.from_dlpack(r).sum() == 75.0
    del r, x, y
    assert live.now() == base  # ...which releases our allocation when it goes


def test_result_type_follows_the_last_argument_with_an_exchange_api(mod):
    g = godlpack.arange(3, dtype="float32")
    t = torch.arange(3, dtype=torch.float32)
    assert type(mod.add_new(g, g)) is godlpack.Array
    assert type(mod.add_new(t, t)) is torch.Tensor
    assert type(mod.add_new(g, t)) is torch.Tensor
    assert type(mod.add_new(t, g)) is godlpack.Array


def test_without_the_exchange_api_there_is_no_allocator(isolated, build_dir):
    # TVM-FFI's own switch turns the exchange path off: the arguments then go through
    # __dlpack__, no context API exists, and FromEnvAlloc finds no allocator at all.
    # The contrast shows that the allocation and the godlpack.Array result above came
    # from our table.
    code = textwrap.dedent(f"""
        import os, sys
        os.environ["TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API"] = "1"
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import godlpack, tvm_ffi, tvm_ffi.cpp
        import test_tvm_ffi as T
        mod = tvm_ffi.cpp.load_inline(name="godlpack_exchange_test", cpp_sources=T.CPP,
                                      functions=T.FUNCTIONS, build_directory={build_dir!r})
        g = godlpack.arange(3, dtype="float32")
        mod.scale_inplace(g, 3.0)  # arguments still work, through __dlpack__
        print(g.tolist())
        try:
            mod.add_new(g, g)
        except RuntimeError as e:
            print("no allocator" if "allocator is nullptr" in str(e) else e)
    """)
    res = isolated(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:2] == ["[0.0, 3.0, 6.0]", "no allocator"], res.stdout


@pytest.mark.parametrize(
    "dtype,fragment",
    [((3, 64, 1), "code=3, bits=64"), ((2, 32, 4), "lanes"), ((0, 4, 1), "code=0, bits=4")],
)
def test_allocator_errors_reach_python(mod, live, dtype, fragment):
    base = live.now()
    x = godlpack.zeros((4,), dtype="float32")
    with pytest.raises(ValueError, match="godlpack managed_tensor_allocator") as e:
        mod.alloc_dtype(x, *dtype)
    assert fragment in str(e.value)
    del x, e
    assert live.now() == base


def test_allocator_serves_every_godlpack_dtype(mod):
    x = godlpack.zeros((5,), dtype="float32")
    for dt in godlpack.dtypes:
        r = mod.alloc_dtype(x, dt.code, dt.bits, 1)
        assert type(r) is godlpack.Array and r.dtype == dt and r.shape == (5,)


def test_rejected_return_is_freed_exactly_once(isolated, build_dir):
    """make_int4 returns a tensor godlpack cannot represent: our to_py fails, TVM-FFI
    deletes the tensor and hands back its own Tensor. Had to_py also called the
    deleter (as the header's "stolen" might suggest), the tensor would be released
    twice: the data freed while still in use, then a crash. Run in a child process
    so that a regression crashes it, not the test run."""
    code = textwrap.dedent(f"""
        import gc, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import godlpack, tvm_ffi, tvm_ffi.cpp
        import test_tvm_ffi as T
        mod = tvm_ffi.cpp.load_inline(name="godlpack_exchange_test", cpp_sources=T.CPP,
                                      functions=T.FUNCTIONS, build_directory={build_dir!r})
        a = godlpack.zeros((8,), dtype="float32")
        for _ in range(3):
            r = mod.make_int4(a)
            before = mod.frees()
            kind = type(r).__module__ + "." + type(r).__name__
            del r
            gc.collect()
            print(kind, before, mod.frees())
    """)
    res = isolated(code)
    assert res.returncode == 0, f"child died (rc {res.returncode}):\n{res.stderr[-3000:]}"
    lines = res.stdout.split()
    assert lines[0].startswith("tvm_ffi") and lines[0].endswith("Tensor"), res.stdout
    # While the result lives its data is not freed; after del it is freed once.
    want = [f"{lines[0]} {i} {i + 1}" for i in range(3)]
    assert res.stdout.split("\n")[:3] == want, res.stdout


# --------------------------------------------------------------------------------------
# The attribute names consumers look up (evidence for docs/internals/exchange-api.md)
# --------------------------------------------------------------------------------------


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_installed_consumers_look_up_the_new_name():
    root = os.path.dirname(tvm_ffi.__file__)
    tensor = _read(os.path.join(root, "cython", "tensor.pxi"))
    function = _read(os.path.join(root, "cython", "function.pxi"))
    # tvm_ffi 0.1.15: the generic paths use only the v1.3 name (capsule or int)...
    assert "ext_tensor.__dlpack_c_exchange_api__" in tensor
    assert "arg_class.__dlpack_c_exchange_api__" in function
    assert "__c_dlpack_exchange_api__" not in tensor + function
    # ...and the old name only in a shim that upgrades torch.Tensor.
    shim = _read(os.path.join(root, "_optional_torch_c_dlpack.py"))
    assert "__c_dlpack_exchange_api__" in shim
    # torch 2.15 publishes the new name only, and its from_dlpack consumes neither.
    assert "__dlpack_c_exchange_api__" in torch.Tensor.__dict__
    assert "__c_dlpack_exchange_api__" not in torch.Tensor.__dict__
    src = _read(torch.utils.dlpack.__file__)
    assert "__c_dlpack_exchange_api__" not in src
    body = src[src.index("def from_dlpack") :]
    assert "__dlpack_c_exchange_api__" not in body
