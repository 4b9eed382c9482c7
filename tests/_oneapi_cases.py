"""The kDLOneAPI cases of tests/test_oneapi.py, run in one child interpreter of the dpnp venv
(tests/requirements-oneapi.txt) with the OpenCL loader pointed at Intel's CPU runtime, so
dpnp arrays live on a real CPU SYCL device. Each case is a function; ``main`` runs them all
and prints one JSON line per case ({"case", "error"}), which the parent test reads: a crash
fails the parent's tests instead of killing pytest. Importable without dpnp (CASES only).
"""

from __future__ import annotations

import ctypes
import gc
import json
import sys
import traceback

CASES: list = []


def case(f):
    CASES.append(f)
    return f


def usm_address(x) -> int:
    """The address of x's element 0 (the SYCL USM array interface dpctl and dpnp implement:
    the allocation's address and an offset in elements)."""
    suai = x.__sycl_usm_array_interface__
    return suai["data"][0] + suai.get("offset", 0) * x.itemsize


def dtypes(dpnp) -> list:
    """Every dtype dpnp has that this SYCL device supports."""
    dev = dpnp.empty(1).sycl_device
    names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
    names += ["float16"] if dev.has_aspect_fp16 else []
    names += ["float32"] + (["float64"] if dev.has_aspect_fp64 else [])
    names += ["complex64"] + (["complex128"] if dev.has_aspect_fp64 else [])
    return [getattr(dpnp, n) for n in names]


@case
def dpnp_is_on_a_cpu_sycl_device_as_kdloneapi(dpnp, g, np, torch, goext):
    x = dpnp.arange(3)
    assert x.sycl_device.is_cpu, x.sycl_device
    assert tuple(x.__dlpack_device__()) == (14, 0), x.__dlpack_device__()


@case
def every_dtype_every_usm_kind_imported_without_a_copy(dpnp, g, np, torch, goext):
    for dt in dtypes(dpnp):
        for usm in ("device", "shared", "host"):
            want = np.arange(1, 7).reshape(2, 3).astype(dt)
            x = dpnp.asarray(want, usm_type=usm)  # a kernel's copy: waited for (sycl_wait)
            a = g.from_dlpack(x)
            what = f"{dt} {usm}"
            assert a.__dlpack_device__() == (1, 0), what
            assert a.data_ptr == usm_address(x), what
            assert str(a.dtype) == np.dtype(dt).name, (what, a.dtype)
            assert a.tolist() == want.tolist(), (what, a.tolist())
            a[1, 2] = want[0, 0]  # a write through godlpack is dpnp's too
            got = dpnp.asnumpy(x)
            assert got[1, 2] == want[0, 0] and got[0, 1] == want[0, 1], (what, got)


@case
def kernels_queued_before_the_import_have_run(dpnp, g, np, torch, goext):
    for _ in range(20):
        x = dpnp.ones(100_000, dtype=dpnp.float32, usm_type="device")
        assert np.from_dlpack(g.from_dlpack(x)).sum() == 100_000


@case
def views_keep_their_strides_and_offset(dpnp, g, np, torch, goext):
    base = dpnp.arange(24, dtype=dpnp.float64).reshape(2, 3, 4)
    want = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    for view, ref in [
        (base.transpose(2, 0, 1), want.transpose(2, 0, 1)),
        (base[:, ::2, 1:], want[:, ::2, 1:]),
        (base[::-1, :, ::-3], want[::-1, :, ::-3]),
        (base[1, 2], want[1, 2]),
        (base[1, 1, 1], want[1, 1, 1]),
        (base[:, :0], want[:, :0]),
    ]:
        a = g.from_dlpack(view)
        in_elements = tuple(s // ref.itemsize for s in ref.strides)  # godlpack's, as DLPack's
        assert a.shape == ref.shape and a.strides == in_elements, (a.shape, a.strides, ref.strides)
        assert a.tolist() == ref.tolist()
        if a.size:
            assert a.data_ptr == usm_address(view)
            assert np.from_dlpack(a).strides == view.strides


@case
def read_only_holds(dpnp, g, np, torch, goext):
    x = dpnp.arange(4.0)
    x.flags.writable = False
    a = g.from_dlpack(x)
    assert a.readonly
    try:
        a[0] = 9.0
    except ValueError:
        pass
    else:
        raise AssertionError("a read-only dpnp array was written through godlpack")
    assert not np.from_dlpack(a).flags.writeable
    assert dpnp.asnumpy(x).tolist() == [0.0, 1.0, 2.0, 3.0]


@case
def the_import_keeps_dpnp_alive_after_dpnp_lets_go(dpnp, g, np, torch, goext):
    x = dpnp.arange(1000, dtype=dpnp.int64, usm_type="device")
    a = g.from_dlpack(x[10:20])
    del x
    gc.collect()
    # were the allocation freed, these would reuse it (dpctl's allocator hands out what it frees)
    churn = [dpnp.full(1000, -1, dtype=dpnp.int64, usm_type="device") for _ in range(50)]
    assert a.tolist() == list(range(10, 20)), a.tolist()
    n = np.from_dlpack(a)
    del a, churn
    gc.collect()
    assert n.tolist() == list(range(10, 20))


@case
def reexported_to_numpy_and_pytorch_as_cpu_memory(dpnp, g, np, torch, goext):
    x = dpnp.arange(6, dtype=dpnp.float32).reshape(2, 3)
    a = g.from_dlpack(x)
    n = np.from_dlpack(a)
    t = torch.from_dlpack(a)
    assert t.device.type == "cpu" and n.ctypes.data == t.data_ptr() == usm_address(x)
    n[0, 0] = 100.0
    t[1, 2] = 200.0
    assert dpnp.asnumpy(x).tolist() == [[100.0, 1.0, 2.0], [3.0, 4.0, 200.0]]
    assert tuple(n.strides) == tuple(x.strides)
    # the capsule itself says CPU, not kDLOneAPI (NumPy and PyTorch refuse kDLOneAPI)
    assert a.__dlpack_device__() == (1, 0)
    assert g.from_dlpack(a.__dlpack__(max_version=(1, 3))).__dlpack_device__() == (1, 0)


@case
def an_extension_argument_is_imported_the_same_way(dpnp, g, np, torch, goext):
    x = dpnp.arange(1, 7, dtype=dpnp.float64, usm_type="device")
    assert goext.sum(x) == 21.0
    goext.scale_(x, 2.0)
    assert dpnp.asnumpy(x).tolist() == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    ro = dpnp.arange(3.0)
    ro.flags.writable = False
    try:
        goext.scale_(ro, 2.0)
    except (ValueError, BufferError, TypeError) as e:
        assert "read-only" in str(e), e
    else:
        raise AssertionError("scale_ wrote a read-only dpnp array")


def oneapi_capsule(buf, device_id: int = 0):
    """A hand-made kDLOneAPI capsule over buf (memory the SYCL runtime does not know)."""
    from _malformed import CODE_FLOAT, ManagedTensor

    return ManagedTensor(buf, dtype=(CODE_FLOAT, 64, 1), shape=(2,), device=(14, device_id))


@case
def a_pointer_the_runtime_does_not_know_is_refused(dpnp, g, np, torch, goext):
    for device_id, says in [(0, "is not a USM allocation"), (7, "none of them device_id 7")]:
        buf = (ctypes.c_double * 2)(1.0, 2.0)
        t = oneapi_capsule(buf, device_id)
        cap = t.capsule()
        try:
            g.from_dlpack(cap)
        except BufferError as e:
            msg = str(e)
            assert says in msg and "device=(1, 0)" in msg, msg
        else:
            raise AssertionError("a malloc'd pointer labelled kDLOneAPI was imported")
        del cap
        gc.collect()
        assert t.deleted == 1, "the refused tensor's deleter did not run once"


@case
def the_named_fix_works_for_dpnp(dpnp, g, np, torch, goext):
    x = dpnp.arange(3.0)
    c = g.from_dlpack(x, device=(1, 0))  # dpnp's own copy to host memory
    assert c.tolist() == [0.0, 1.0, 2.0] and c.data_ptr != usm_address(x)


class ToSycl:
    """Hands dpnp godlpack's own USM copy: __dlpack__(dl_device=(14, id), copy=True)."""

    def __init__(self, a, device_id: int = 0):
        self.a, self.device_id = a, device_id

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        want = (14, self.device_id)
        return self.a.__dlpack__(max_version=max_version, dl_device=want, copy=True)

    def __dlpack_device__(self):
        return (14, self.device_id)


@case
def exported_to_the_sycl_device_as_a_usm_copy_dpnp_takes(dpnp, g, np, torch, goext):
    for dt in dtypes(dpnp):
        want = np.arange(1, 13).reshape(3, 4).astype(dt)
        a = g.asarray(want)
        for src, ref in [
            (a, want),
            (a[::2, 1::2], want[::2, 1::2]),
            (a[0, 0, ...], want[0, 0, ...]),
        ]:
            base = g._live_allocations()
            x = dpnp.from_dlpack(ToSycl(src))
            assert x.usm_type == "shared" and tuple(x.__dlpack_device__()) == (14, 0), dt
            assert x.dtype == dt and dpnp.asnumpy(x).tolist() == ref.tolist(), (dt, x)
            assert usm_address(x) != src.data_ptr
            x[...] = 0  # dpnp's kernel on its own copy: godlpack's array is unchanged
            assert not dpnp.asnumpy(x).any() and src.tolist() == ref.tolist()
            del x
            gc.collect()
            assert g._live_allocations() == base, "the USM copy's deleter did not run"
    from _dlpack_abi import FLAG_IS_COPIED, DLManagedTensorVersioned
    from _malformed import capsule_pointer

    cap = a.__dlpack__(max_version=(1, 3), dl_device=(14, 0), copy=True)
    m = DLManagedTensorVersioned.from_address(capsule_pointer(cap, "dltensor_versioned"))
    dev = m.dl_tensor.device
    assert m.flags == FLAG_IS_COPIED and (dev.device_type, dev.device_id) == (14, 0)
    # dpnp asks for the copy itself when told where the result goes
    y = dpnp.from_dlpack(a, device=dpnp.empty(1).sycl_device)
    assert dpnp.asnumpy(y).tolist() == want.tolist()


@case
def the_usm_copy_is_freed_from_any_thread_without_the_gil(dpnp, g, np, torch, goext):
    import threading

    from _malformed import call_deleter_of, consume

    base = g._live_allocations()
    caps = [
        g.arange(1000.0).__dlpack__(max_version=(1, 3), dl_device=(14, 0), copy=True)
        for _ in range(8)
    ]
    ptrs = [consume(c) for c in caps]
    threads = [threading.Thread(target=call_deleter_of, args=(p, True)) for p in ptrs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    del caps
    gc.collect()
    assert g._live_allocations() == base


@case
def a_usm_export_that_cannot_be_made_is_refused(dpnp, g, np, torch, goext):
    a = g.arange(3.0)
    for kw, exc, says in [
        (dict(dl_device=(14, 0), copy=False), BufferError, "copy=False forbids it"),
        (dict(dl_device=(14, 7), copy=True), BufferError, "none of them device_id 7"),
        (dict(dl_device=(14, -1)), BufferError, "none of them device_id -1"),
    ]:
        try:
            a.__dlpack__(max_version=(1, 3), **kw)
        except exc as e:
            assert says in str(e), e
        else:
            raise AssertionError(f"__dlpack__({kw}) exported")
    # a SYCL consumer's queue is a valid stream for it: the copy is complete on return
    q = dpnp.empty(1).sycl_queue
    cap = a.__dlpack__(stream=q, max_version=(1, 3), dl_device=(14, 0))
    assert type(cap).__name__ == "PyCapsule"


def main() -> None:
    sys.path.insert(0, sys.argv[1])  # the built examples/goext
    import dpnp
    import godlpack as g
    import goext
    import numpy as np
    import torch

    for f in CASES:
        try:
            f(dpnp, g, np, torch, goext)
            error = None
        except BaseException:
            error = traceback.format_exc()
        print(json.dumps({"case": f.__name__, "error": error}), flush=True)


if __name__ == "__main__":
    main()
