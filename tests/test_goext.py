"""examples/goext, a Python extension written in Go with godlpack (docs/extensions.md): every
function on tensors from NumPy, PyTorch, JAX, TVM-FFI, godlpack and raw capsules, in
every layout; the constraints and their error messages; errors and panics; Keep."""

from __future__ import annotations

import gc
import inspect
import math
import shutil
import subprocess

import godlpack as g
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from _vec_sum import float32_sum_bound
from conftest import optional_consumer
from goext_build import folder, load

CPU = jax.devices("cpu")[0]
tvm_ffi, needs_tvm_ffi = optional_consumer("tvm_ffi", "apache-tvm-ffi")


@pytest.fixture(scope="module")
def goext():
    return load("goext")


def layouts(dtype):
    """Arrays of dtype in every layout a producer can send: contiguous, transposed,
    negative and stepped strides, 0-d, empty."""
    base = np.arange(1, 25, dtype=dtype).reshape(2, 3, 4) / 7
    return {
        "contiguous": base,
        "transposed": base.transpose(2, 0, 1),
        "negative": base[::-1, :, ::-2],
        "stepped": base[:, ::2, 1::2],
        "0-d": np.asarray(dtype(2.5)),
        "empty": np.zeros((3, 0, 2), dtype=dtype),
        "1-d": np.arange(5, dtype=dtype),
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", list(layouts(np.float32)))
def test_scale_numpy_every_layout(goext, dtype, layout):
    x = layouts(dtype)[layout]
    before = x.copy()
    r = goext.scale(x, 3.0)
    assert type(r) is g.Array
    assert r.dtype == np.dtype(dtype).name and r.shape == x.shape
    np.testing.assert_array_equal(np.from_dlpack(r), x * dtype(3.0))
    np.testing.assert_array_equal(x, before)  # x untouched


def test_scale_from_every_producer(goext):
    want = np.arange(12, dtype=np.float32).reshape(3, 4) * np.float32(0.5)
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    producers = {
        "numpy": n,
        "torch": torch.arange(12, dtype=torch.float32).reshape(3, 4),
        "torch view": torch.arange(24, dtype=torch.float32).reshape(3, 8)[:, ::2] / 2,
        "jax": jax.device_put(jnp.arange(12, dtype=jnp.float32).reshape(3, 4), CPU),
        "godlpack": g.arange(12, dtype="float32").reshape(3, 4),
        "godlpack view": g.asarray(np.arange(24, dtype=np.float32).reshape(3, 8) / 2)[:, ::2],
        "capsule": n.copy().__dlpack__(),
        "legacy capsule": n.copy().__dlpack__(max_version=None),
    }
    if tvm_ffi is not None:  # no TVM-FFI wheel for some interpreters (3.13t)
        producers["tvm_ffi"] = tvm_ffi.from_dlpack(n.copy())
    for name, x in producers.items():
        r = goext.scale(x, 0.5)
        assert type(r) is g.Array, name
        np.testing.assert_array_equal(np.from_dlpack(r), want, err_msg=name)


def test_scale_keyword_and_int_k(goext):
    x = np.ones(3)
    np.testing.assert_array_equal(np.from_dlpack(goext.scale(x=x, k=2)), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.from_dlpack(goext.scale(x, k=np.float64(4))), [4.0] * 3)


@pytest.mark.parametrize(
    "x, got",
    [
        (np.arange(3), "int64"),
        (np.ones(3, dtype=np.float16), "float16"),
        (np.ones(3, dtype=np.complex64), "complex64"),
        (np.ones(3, dtype=bool), "bool"),
        (torch.ones(3, dtype=torch.bfloat16), "bfloat16"),
        (torch.ones(3, dtype=torch.int32), "int32"),
    ],
)
def test_scale_other_dtypes_type_error_names_x(goext, x, got):
    msg = f"scale(): argument x: expected a float32 or float64 tensor, got {got}"
    with pytest.raises(TypeError) as e:
        goext.scale(x, 2.0)
    assert str(e.value) == msg
    with pytest.raises(TypeError) as e:
        goext.scale_(x, 2.0)
    assert str(e.value) == msg.replace("scale()", "scale_()")


def test_argument_errors(goext):
    x = np.ones(3)
    cases = [
        (lambda: goext.scale(x), "scale() missing required argument 'k' (pos 2)"),
        (lambda: goext.scale(x, 1.0, 2.0), "scale() takes 2 positional arguments but 3 were given"),
        (lambda: goext.scale(x, q=1.0), "scale() got an unexpected keyword argument 'q'"),
        (lambda: goext.scale(x, 1.0, x=x), "scale() got multiple values for argument 'x'"),
        (lambda: goext.scale(x, "2"), "scale(): argument k: expected a float, got str"),
        (lambda: goext.scale(x, None), "scale(): argument k: expected a float, got NoneType"),
        (lambda: goext.fail(3), "fail(): argument msg: expected a str, got int"),
        (
            lambda: goext.scale([1.0, 2.0], 2.0),
            "scale(): argument x: expected a tensor (a DLPack producer or capsule), got list",
        ),
        (
            lambda: goext.scale(None, 2.0),
            "scale(): argument x: expected a tensor (a DLPack producer or capsule), got NoneType",
        ),
    ]
    for call, msg in cases:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == msg


def test_used_capsule_is_refused_with_the_parameter_named(goext):
    cap = np.ones(3).__dlpack__()
    goext.scale(cap, 2.0)  # consumed
    with pytest.raises(ValueError) as e:
        goext.scale(cap, 2.0)
    # the import's own error, passed on unchanged, the parameter named by a note
    assert str(e.value).startswith("this DLPack capsule was already consumed")
    assert getattr(e.value, "__notes__", None) == ["scale(): argument x"]


VIEWS = {
    "contiguous": lambda b: b,
    "transposed": lambda b: b.transpose(2, 0, 1),
    "negative": lambda b: b[::-1, :, ::-2],
    "stepped": lambda b: b[:, ::2, 1::2],
    "1-d": lambda b: b.reshape(-1)[::-3],
    "0-d": lambda b: b[1, 2, 3, ...],  # a 0-d view
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_inplace_numpy_zero_copy(goext, view, dtype):
    base = np.arange(1, 25, dtype=dtype).reshape(2, 3, 4)
    expect = base.copy()
    VIEWS[view](expect)[...] *= dtype(2)
    assert goext.scale_(VIEWS[view](base), 2.0) is None
    np.testing.assert_array_equal(base, expect)  # the view doubled, nothing else touched


def test_scale_inplace_torch_godlpack_tvm(goext):
    t = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    goext.scale_(t[:, 1::2], 10.0)
    assert t.tolist() == [[0, 10, 2, 30], [4, 50, 6, 70]]
    a = g.arange(6, dtype="float64")
    goext.scale_(a[::-1], -1.0)
    assert a.tolist() == [-0.0, -1.0, -2.0, -3.0, -4.0, -5.0]
    if tvm_ffi is not None:  # no TVM-FFI wheel for some interpreters (3.13t)
        n = np.arange(4, dtype=np.float64)
        goext.scale_(tvm_ffi.from_dlpack(n), 3.0)
        assert n.tolist() == [0.0, 3.0, 6.0, 9.0]


def test_scale_inplace_read_only_refused_and_unchanged(goext):
    n = np.arange(4, dtype=np.float64)
    n.flags.writeable = False
    ro = {"numpy": n, "godlpack": g.arange(4, dtype="float64").toreadonly()}
    for name, x in ro.items():
        with pytest.raises(TypeError) as e:
            goext.scale_(x, 5.0)
        assert (
            str(e.value) == "scale_(): argument x: expected a writable tensor, got a read-only one"
        )
        assert np.from_dlpack(x).tolist() == [0.0, 1.0, 2.0, 3.0], name
    assert goext.sum(n) == 6.0  # read-only is fine where the function only reads


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_every_layout(goext, dtype):
    for name, x in layouts(dtype).items():
        got = goext.sum(x)
        assert type(got) is float
        assert got == pytest.approx(float(np.sum(x, dtype=np.float64)), rel=1e-12), name


def test_sum_large_parallel(goext):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3_000_001).astype(np.float32)
    # float32 lanes (dlpack/vec/reduce.go): within vec.Sum's bound (tests/_vec_sum.py)
    assert abs(goext.sum(x) - math.fsum(x.astype(np.float64).tolist())) <= float32_sum_bound(x)
    y = rng.standard_normal((4096, 513))  # strided: slabs along the first dimension
    for v in (y[:, ::2], y[::-1, 1::3], y.T):
        assert goext.sum(v) == pytest.approx(float(v.sum()), rel=1e-9)
    t = torch.from_numpy(y)[:, ::2]
    assert goext.sum(t) == pytest.approx(float(y[:, ::2].sum()), rel=1e-9)


def test_matmul_against_numpy(goext):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 7))
    b = rng.standard_normal((7, 3)).astype(np.float32)
    cases = [
        (a, b),
        (a[::-1, ::2], rng.standard_normal((4, 6))[:, ::-1]),
        (a.T, rng.standard_normal((5, 2))),
        (torch.from_numpy(a), torch.from_numpy(b)),
        (g.asarray(a), jax.device_put(jnp.asarray(b), CPU)),
        (np.ones((0, 3)), np.ones((3, 4))),
        (np.ones((2, 0)), np.ones((0, 4))),
    ]
    for x, y in cases:
        r = goext.matmul(x, y)
        assert type(r) is g.Array and r.dtype == "float64"
        xn, yn = np.from_dlpack(x).astype(np.float64), np.from_dlpack(y).astype(np.float64)
        np.testing.assert_allclose(np.from_dlpack(r), xn @ yn, rtol=1e-12, atol=1e-12)


def test_matmul_errors(goext):
    with pytest.raises(
        ValueError, match=r"^matmul\(\): shapes \(2, 3\) and \(2, 3\) do not align$"
    ):
        goext.matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(TypeError) as e:
        goext.matmul(np.ones(3), np.ones((3, 1)))
    assert str(e.value) == "matmul(): argument a: expected a 2-d tensor, got a 1-d one"
    with pytest.raises(TypeError) as e:
        goext.matmul(np.ones((3, 1)), np.ones((1, 1, 1)))
    assert str(e.value) == "matmul(): argument b: expected a 2-d tensor, got a 3-d one"


def test_fail_and_panic(goext):
    for msg in ("the message", "héllo \u2603 \U0001f600", ""):  # any str, both ways
        with pytest.raises(ValueError) as e:
            goext.fail(msg)
        assert str(e.value) == msg
        with pytest.raises(RuntimeError) as e:
            goext.panic(msg)
        assert str(e.value) == f"panic(): Go panic: {msg}"


def test_fail_and_panic_in_a_loop_then_the_interpreter_works(isolated):
    code = f"""
import sys; sys.path.insert(0, {folder("goext")!r})
import numpy as np, goext
for i in range(1000):
    try:
        goext.fail(f"e{{i}}")
    except ValueError as e:
        assert str(e) == f"e{{i}}"
    try:
        goext.panic(f"p{{i}}")
    except RuntimeError as e:
        assert f"p{{i}}" in str(e)
assert float(np.from_dlpack(goext.scale(np.ones(3), 2.0)).sum()) == 6.0
print("ok")
"""
    proc = isolated(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_results_of_every_kind(goext):
    assert goext.describe(np.ones((2, 3), dtype=np.int8)[:, ::2]) == ("int8", (2, 2), False)
    ro = np.ones(2)
    ro.flags.writeable = False
    assert goext.describe(ro) == ("float64", (2,), True)
    assert goext.describe(np.float32(1).__array__()) == ("float32", (), False)
    x = np.ones(4)
    assert goext.fill(x) is None and x.tolist() == [0.0] * 4
    goext.fill(x, value=2)
    assert x.tolist() == [2.0] * 4
    with pytest.raises(TypeError, match=r"^fill\(\): argument x: expected a C-contiguous tensor"):
        goext.fill(np.ones(4)[::2])


def test_signatures_and_docs(goext):
    assert str(inspect.signature(goext.scale)) == "(x, k)"
    assert str(inspect.signature(goext.fill)) == "(x, value=0.0)"
    assert "The float64 sum" in goext.sum.__doc__
    assert goext.scale.__module__ == "goext" and goext.__doc__


def test_results_are_godlpack_arrays_that_travel(goext):
    r = goext.scale(torch.ones(2, 3), 2.0)
    assert type(r) is g.Array
    assert torch.from_dlpack(r).tolist() == [[2.0] * 3] * 2
    assert np.from_dlpack(r).tolist() == [[2.0] * 3] * 2
    m = goext.matmul(np.eye(2), np.eye(2))  # gonum's memory, pinned until released
    n = np.from_dlpack(m)
    del m
    gc.collect()
    assert n.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_keep_keeps_the_producer_alive_until_release(goext, live):
    x = g.arange(5, dtype="float64")
    assert goext.hold(x) == 5
    del x
    gc.collect()
    assert live.delta() >= 1  # the owner is alive: Go holds an export of it
    assert goext.held_sum() == 10.0
    goext.release()
    gc.collect()
    assert live.delta() == 0
    n = np.arange(4, dtype=np.float64)
    goext.hold(n[::-1])
    del n
    gc.collect()
    assert goext.held_sum() == 6.0
    goext.release()
    with pytest.raises(ValueError, match="nothing is held"):
        goext.held_sum()


def test_no_leaks(goext, live):
    x = np.ones((3, 4), dtype=np.float32)
    t = torch.ones(3, 4)
    a = g.ones((3, 4))
    for _ in range(200):
        goext.scale(x, 2.0)
        goext.scale(t, 2.0)
        goext.scale(a, 2.0)
        goext.sum(a)
        goext.matmul(a, a.reshape(4, 3))
        with pytest.raises(TypeError):
            goext.scale_(np.arange(3), 1.0)
        with pytest.raises(ValueError):
            goext.fail("x")
    del x, t, a
    gc.collect()
    assert live.delta() == 0


def test_torch_tensors_lent_without_an_import(goext, live):
    # A read-only parameter takes a PyTorch tensor through its exchange API's
    # dltensor_from_py_object_no_sync: no allocation, nothing to release.
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    for v in (t, t[:, ::2], t.T, t[1], t[1, 2], t[:0], torch.ones((1,) * 9, dtype=torch.float64)):
        assert goext.sum(v) == float(v.sum())
    assert live.delta() == 0
    z = torch.ones(4, dtype=torch.complex64)
    with pytest.raises(BufferError, match=r"(?s)(negative|conj).*\nsum\(\): argument x$"):
        goext.sum(z.conj().imag)  # a lazy negative view: its memory holds +1
    assert goext.hold(t[:, 1]) == 3  # lent, so Keep imports it
    del t
    gc.collect()
    assert goext.held_sum() == 15.0
    goext.release()


@pytest.mark.parametrize(
    "dtype",
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    + ["float16", "float32", "float64", "complex64", "complex128"]
    # the C names: NumPy numbers each type apart (long and longlong are both int64 here)
    + ["byte", "short", "intc", "long", "longlong", "ubyte", "ushort", "uintc", "ulong"]
    + ["ulonglong", "half", "single", "double", "csingle", "cdouble", "=f4", "<u2"],
)
def test_numpy_arrays_lent_with_their_dtype(goext, dtype, live):
    # numpy.ndarray arguments are lent from the array's own fields (numpy_lend.c),
    # subclasses through the buffer protocol: either way the dtype is NumPy's, as
    # NumPy's own __dlpack__ would give it.
    name = np.dtype(dtype).name
    for x in (
        np.zeros((2, 3), dtype=dtype)[:, ::2],
        np.zeros((2, 3), dtype=dtype).view(Sub)[:, ::2],
    ):
        assert goext.describe(x) == (name, (2, 2), False)
        x.flags.writeable = False
        assert goext.describe(x) == (name, (2, 2), True)
    assert live.delta() == 0


class Sub(np.ndarray):
    pass


def test_numpy_arrays_lent_see_the_arrays_layout(goext):
    x = np.arange(24.0).reshape(2, 3, 4)
    for v in (x, x[::-1, :, ::-2], x.T, x[1, 2], x[:0], x[:, None, 1]):
        assert goext.sum(v) == float(v.sum())
        assert goext.describe(v) == ("float64", v.shape, False)
    ro = np.frombuffer(b"\0" * 16, dtype=np.float32)  # read-only memory
    with pytest.raises(TypeError, match=r"^scale_\(\): argument x: expected a writable"):
        goext.scale_(ro, 2.0)
    # a field of a packed record: 5-byte strides are no whole number of float32s
    rec = np.zeros(4, dtype=[("a", "<f4"), ("b", "u1")])["a"]
    with pytest.raises(BufferError, match=r"\ndescribe\(\): argument x$"):
        goext.describe(rec)


def test_numpy_arrays_a_buffer_cannot_describe_go_through_dlpack(goext):
    be = np.arange(4, dtype=">f8")  # big-endian: no buffer lending, and no DLPack
    with pytest.raises(BufferError, match=r"\ndescribe\(\): argument x$"):
        goext.describe(be)
    dt = np.array(["2020-01-01"], dtype="datetime64[D]")
    with pytest.raises(BufferError, match=r"\ndescribe\(\): argument x$"):
        goext.describe(dt)
    assert goext.sum(np.arange(4.0)[::-1]) == 6.0  # negative strides lend fine
    assert goext.describe(np.ones((1,) * 9)) == ("float64", (1,) * 9, False)  # > 8 dims


def test_scalar_parameters():
    goext2 = load("goext2")  # ramp(n: int, step: float)
    assert np.from_dlpack(goext2.ramp(np.int64(3), 2)).tolist() == [0.0, 2.0, 4.0]
    assert np.from_dlpack(goext2.ramp(True, 1.5)).tolist() == [0.0]  # bool is an int
    with pytest.raises(TypeError) as e:
        goext2.ramp(1.5, 1.0)
    assert str(e.value) == "ramp(): argument n: expected an int, got float"
    with pytest.raises(OverflowError) as e:
        goext2.ramp(2**70, 1.0)
    assert str(e.value) == "ramp(): argument n: int too large for int64"
    with pytest.raises(ValueError, match="negative"):
        goext2.ramp(-1, 1.0)  # tensor.New's error, a ValueError


def test_shape_and_dtypes_constraints():
    goext2 = load("goext2")  # pixels(img): Shape(-1, -1, 3), DTypes(uint8, float32)
    assert goext2.pixels(np.zeros((4, 5, 3), dtype=np.uint8)) == 20
    assert goext2.pixels(torch.zeros(2, 7, 3)[:, ::2]) == 8
    cases = [
        (np.zeros((4, 5, 4), dtype=np.uint8), "expected shape (*, *, 3), got (4, 5, 4)"),
        (np.zeros((4, 3), dtype=np.uint8), "expected a 3-d tensor, got a 2-d one"),
        (np.zeros((4, 5, 3)), "expected a uint8 or float32 tensor, got float64"),
    ]
    for img, msg in cases:
        with pytest.raises(TypeError) as e:
            goext2.pixels(img)
        assert str(e.value) == "pixels(): argument img: " + msg


def test_one_dtype_parameters_checked_without_a_call(goext, live):
    """A tensor parameter of one dtype with no shape or layout rule (touch's x:
    Tensor[float32]; negate's x: MutTensor[float64]; weighted_sum's w: a 1-d float64)
    is checked in Go's call path with no call (ext_func.go's arg); every producer
    still gets the same refusals as through the full check, and a scalar argument
    beside it is never mistaken for a tensor."""
    goext2 = load("goext2")
    f32 = np.ones((2, 3), np.float32)
    for x in (f32, f32[:, ::-2], torch.from_numpy(f32), g.asarray(f32), g.asarray(f32)[0]):
        assert goext.touch(x) is None
    for x in (np.ones(3), torch.ones(3, dtype=torch.float64), g.asarray(np.ones(3, np.int32))):
        with pytest.raises(TypeError) as e:
            goext.touch(x)
        got = np.from_dlpack(x).dtype.name
        assert str(e.value) == f"touch(): argument x: expected a float32 tensor, got {got}"
    y = np.arange(4.0)
    goext2.negate(y)
    assert y.tolist() == [-0.0, -1.0, -2.0, -3.0]
    ro = np.arange(4.0)
    ro.flags.writeable = False
    for x in (ro, g.asarray(ro)):
        with pytest.raises(TypeError) as e:
            goext2.negate(x)
        assert str(e.value) == (
            "negate(): argument x: expected a writable tensor, got a read-only one"
        )
    assert ro.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match=r"^negate\(\): argument x: expected a float64 tensor"):
        goext2.negate(f32)
    x, w = np.arange(3.0), np.array([1.0, 2.0, 3.0])
    assert goext2.weighted_sum(x, w, 2.0) == 2.0 * float(x @ w)
    with pytest.raises(TypeError, match=r"^weighted_sum\(\): argument w: expected a 1-d tensor"):
        goext2.weighted_sum(x, np.array(1.0), 1.0)
    gc.collect()
    assert live.delta() == 0


def test_borrowed_tensor_tensor_api(live):
    goext2 = load("goext2")  # total/negate/give_back use x.Tensor(), dlpack/tensor's API
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    for v in (x, x[::-1, 1::2], torch.from_numpy(x).T, g.asarray(x)[1], x[2, 3, ...]):
        assert goext2.total(v) == float(np.from_dlpack(v).sum())
    y = x.copy()
    goext2.negate(y[:, ::-2])
    expect = x.copy()
    expect[:, ::-2] *= -1
    np.testing.assert_array_equal(y, expect)
    with pytest.raises(ValueError) as e:
        goext2.give_back(x)
    assert str(e.value) == (
        "give_back(): returned its borrowed argument x; return a copy (Clone) or the tensor of Keep"
    )
    gc.collect()
    assert live.delta() == 0


def test_results_own_their_data(goext):
    # An extension's result is memory made in Go and handed over whole: owndata, as
    # for godlpack's own arrays and their views; not so memory a producer lent.
    x = np.arange(6.0)
    assert goext.scale(x, 2.0).flags["owndata"] is True
    assert goext.scale(x, 2.0)[1:].flags["owndata"] is True
    assert goext.matmul(np.eye(2), np.eye(2)).flags["owndata"] is True  # gonum's slice
    assert g.from_dlpack(x).flags["owndata"] is False
    assert g.from_dlpack(torch.ones(2)).flags["owndata"] is False


def _dynamic_symbols(path: str, which: str) -> set[str]:
    """The names of the ELF file's dynamic symbols, ``which`` "defined" or "undefined"."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) on PATH")
    out = subprocess.run(
        [nm, "-D", f"--{which}-only", path], capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def test_extension_links_none_of_the_godlpack_module(goext):
    """An extension reaches godlpack.Array, from_dlpack and the exchange API through the
    godlpack module's C-API capsule, so it links none of the module's own files (package
    internal/arraymodule, which an extension does not import; the files named below are
    its): about 0.5 MB of each extension. Every symbol it needs of godlpack's C is in it:
    none left for the loader to miss."""
    defined = _dynamic_symbols(goext.__file__, "defined")
    assert {"PyInit_goext", "gd_ext_call", "goExtCall"} <= defined  # the reading works
    module_only = {
        "gd_ArrayType",  # array_type.c
        "goArrayReshape",  # array_index.go
        "goFromDLPack",  # import.go
        "gd_from_dlpack",  # dlpack_import.c
        "gd_export_versioned",  # dlpack_export.c
        "gd_xchg_register",  # exchange.c
        "gd_capi_publish",  # capi.c
        "gd_module_def_init",  # module.c
        "goEmpty",  # constructors.go
        "goConsumeCapsule",  # import.go
    }
    assert sorted(defined & module_only) == []
    ours = {s for s in _dynamic_symbols(goext.__file__, "undefined") if s.startswith(("gd", "go"))}
    assert sorted(ours) == []
