"""Round trips between godlpack and TVM-FFI (apache-tvm-ffi), zero-copy both ways.

TVM-FFI takes godlpack's DLPack C exchange API
(godlpack.Array.__dlpack_c_exchange_api__): tvm_ffi.from_dlpack(array) and every
FFI function call with an Array argument convert it with no capsule, and a tensor
an FFI function returns comes back as a godlpack.Array.

Run: python examples/tvm_ffi_roundtrip.py
(godlpack importable: installed, or PYTHONPATH=pyext after `python build.py ext`)
"""

from __future__ import annotations

import godlpack
import tvm_ffi


def go_to_tvm_ffi() -> None:
    """A Go-owned Array as a tvm_ffi.Tensor, and back."""
    a = godlpack.arange(6, dtype=godlpack.float32).reshape(2, 3)
    t = tvm_ffi.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr, "TVM-FFI views the Array's own memory"
    assert t.shape == (2, 3) and str(t.dtype) == "float32"

    # The full circle: godlpack -> TVM-FFI -> godlpack, still the same memory.
    b = godlpack.from_dlpack(t)
    assert b.data_ptr == a.data_ptr and b.tolist() == a.tolist()
    b[1, 2] = 50.0
    assert a[1, 2] == 50.0
    print(f"godlpack -> tvm_ffi -> godlpack: zero-copy, {t.dtype}{list(t.shape)}")


def through_an_ffi_function() -> None:
    """An FFI function call: the Array goes in and comes out as a godlpack.Array."""
    echo = tvm_ffi.get_global_func("testing.echo", allow_missing=True)
    if echo is None:  # a TVM-FFI build without its testing functions
        print("tvm_ffi function call: skipped (no testing.echo in this build)")
        return
    a = godlpack.ones((2, 2), dtype=godlpack.int32)
    out = echo(a)
    assert isinstance(out, godlpack.Array), "returned through godlpack's exchange API"
    assert out.data_ptr == a.data_ptr and out.tolist() == [[1, 1], [1, 1]]
    print(f"tvm_ffi function call: {type(out).__module__}.{type(out).__name__}, zero-copy")


def main() -> None:
    go_to_tvm_ffi()
    through_an_ffi_function()
    print("tvm_ffi round trip: OK")


if __name__ == "__main__":
    main()
