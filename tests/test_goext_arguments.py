"""Extension arguments, hostile ones included: a MutTensor whose elements alias
is refused unless the parameter allows it (AllowOverlap); an argument's own
exception passes on as it was raised, with the function and parameter as a note;
an empty tensor is contiguous whatever its strides; functions pickle by reference;
constraint messages print strides as numbers; and a bounded round of the extension
arguments' fuzz (tests/fuzz_goext_args.py)."""

from __future__ import annotations

import ctypes
import enum
import gc
import hashlib
import pickle
import sys

import godlpack as g
import numpy as np
import pytest
import torch
from conftest import run_python, run_script
from goext_build import folder, load
from numpy.lib.stride_tricks import as_strided

HERE = __file__.rsplit("/", 1)[0]
NOTES = sys.version_info >= (3, 11)  # add_note; 3.10 gets __notes__ set, not printed


@pytest.fixture(scope="module")
def goext():
    return load("goext")


@pytest.fixture(scope="module")
def goext2():
    return load("goext2")


def aliased_views():
    """Writable views whose elements alias, from every producer, with the base they
    view: zero strides (broadcast, expand), rows sharing elements (as_strided)."""
    out = {}
    b = np.arange(1.0, 5.0)
    out["numpy zero stride"] = (b, as_strided(b, (8,), (0,), writeable=True))
    b = np.arange(1.0, 5.0)
    out["numpy rows sharing"] = (b, as_strided(b, (3, 2), (8, 8), writeable=True))
    b = np.arange(1.0, 7.0)
    out["numpy 2-d broadcast"] = (b, as_strided(b, (4, 6), (0, 8), writeable=True))
    b = np.arange(1.0, 6.0)  # rows of 3 starting 2 apart, the last axis reversed
    out["numpy interleaved"] = (b, as_strided(b, (2, 3), (16, 8), writeable=True)[:, ::-1])
    t = torch.ones(1, dtype=torch.float64)
    out["torch expand"] = (t, t.expand(5))
    t = torch.arange(1.0, 7.0, dtype=torch.float64)
    out["torch as_strided"] = (t, t.as_strided((3, 3), (1, 1)))
    a = g.arange(1, 5, dtype="float64")
    out["godlpack zero stride"] = (a, g.from_dlpack(as_strided(np.from_dlpack(a), (6,), (0,))))
    return out


ALIASED = list(aliased_views())


def mirror_view(copy, base, view):
    """The view of copy (a copy of the 1-d base) that view is of base."""
    nb, nv = np.from_dlpack(base), np.from_dlpack(view)
    start = (nv.__array_interface__["data"][0] - nb.__array_interface__["data"][0]) // 8
    return as_strided(copy[start:], nv.shape, nv.strides)


def snapshot(base):
    return np.array(np.from_dlpack(base), copy=True)


@pytest.mark.parametrize("name", ALIASED)
def test_in_place_on_aliased_elements_is_refused(goext, goext2, name):
    """scale_ (AnyFloat: the full check) and negate (one dtype: the check with no call)
    refuse; nothing is written. Before: 8 aliases of one element scaled it 2**8 times."""
    base, view = aliased_views()[name]
    before = snapshot(base)
    for call in (lambda: goext.scale_(view, 2.0), lambda: goext2.negate(view)):
        with pytest.raises(ValueError) as e:
            call()
        msg = str(e.value)
        assert msg.startswith(("scale_(): argument x: ", "negate(): argument x: ")), msg
        assert "its elements share memory" in msg and "pass a copy" in msg, msg
        np.testing.assert_array_equal(snapshot(base), before)


def test_aliased_message_names_shape_and_strides(goext):
    b = np.arange(4.0)
    with pytest.raises(ValueError) as e:
        goext.scale_(as_strided(b, (3, 2), (8, 8), writeable=True), 2.0)
    assert str(e.value) == (
        "scale_(): argument x: it is written in place, but its elements share memory "
        "(shape (3, 2), strides (1, 1)), so a shared one would be written once per index; "
        "pass a copy (NumPy: x.copy(), PyTorch: x.clone())"
    )
    with pytest.raises(ValueError, match=r"shape \(5,\), strides \(0,\)"):
        goext.scale_(torch.ones(1, dtype=torch.float32).expand(5), 2.0)


def test_aliasing_too_costly_to_rule_out_is_refused_as_may_share(goext):
    """as_strided strides no one-pass rule decides, over more elements than the check
    lists (65536): refused, saying so (AllowOverlap is the author's way out)."""
    b = np.zeros(4000)
    v = as_strided(b, (300, 300), (16, 24), writeable=True)  # 2i + 3j: aliased, 90000
    with pytest.raises(ValueError) as e:
        goext.scale_(v, 2.0)
    assert (
        "its elements may share memory (a layout too costly to rule it out over more than "
        "65536 elements) (shape (300, 300), strides (2, 3))"
    ) in str(e.value)
    assert not b.any()


def test_aliased_but_allowed_with_allow_overlap(goext2):
    """fill_all declares AllowOverlap: every alias gets the value, as NumPy's
    view[...] = value does."""
    for name in ALIASED:
        base, view = aliased_views()[name]
        want = snapshot(base)
        mirror_view(want, base, view)[...] = 7.0
        assert goext2.fill_all(view, 7.0) is None
        np.testing.assert_array_equal(snapshot(base), want, err_msg=name)


@pytest.mark.parametrize(
    "make",
    [
        lambda b: b[::-1, :, ::-2],
        lambda b: b.transpose(2, 0, 1),
        lambda b: b[:, ::2, 1::2],
        lambda b: as_strided(b.reshape(-1), (2, 3), (8 * 5, 8 * 2), writeable=True),  # disjoint
        lambda b: as_strided(b.reshape(-1), (2, 3), (8 * 3, 8 * 2), writeable=True),  # interleaved
        lambda b: b[:1].reshape(1, -1)[:, :1].reshape(1, 1),  # extent-1 axes, any stride
        lambda b: as_strided(b.reshape(-1), (0, 5), (0, 0), writeable=True),  # empty
    ],
    ids=["negative", "transposed", "stepped", "disjoint", "interleaved", "ones", "empty"],
)
def test_layouts_without_aliasing_are_written_in_place(goext, goext2, make):
    """Every layout whose elements are distinct is still accepted (and written as
    NumPy writes it), on both the full check and the check with no call."""
    base = np.arange(1.0, 25.0).reshape(2, 3, 4)
    expect = base.copy()
    make(expect)[...] *= 2.0
    goext.scale_(make(base), 2.0)
    np.testing.assert_array_equal(base, expect)
    expect = base.copy()
    make(expect)[...] *= -1.0
    goext2.negate(make(base))
    np.testing.assert_array_equal(base, expect)


def test_read_only_parameters_accept_aliased_views(goext):
    """A Tensor is only read: aliases are fine there (sum of 8 aliases of 2.0 is 16)."""
    b = np.full(3, 2.0)
    assert goext.sum(as_strided(b, (8,), (0,))) == 16.0
    assert goext.sum(torch.full((1,), 2.0).expand(8)) == 16.0


# ---- exceptions pass on as raised -------------------------------------------------------


def notes(e):
    return getattr(e, "__notes__", None)


def test_a_str_argument_utf8_cannot_encode_raises_unicode_encode_error(goext):
    """Before: TypeError "function takes exactly 5 arguments" (the rebuild)."""
    for s in ("\ud800", "ok \udfff"):
        with pytest.raises(UnicodeEncodeError) as e:
            goext.fail(s)
        assert e.value.object == s and e.value.reason == "surrogates not allowed"
        assert notes(e.value) == ["fail(): argument msg"]


class TwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)
        self.a, self.b = a, b


def raising_producer(exc):
    class Producer:
        def __dlpack__(self, *args, **kwargs):
            raise exc

        def __dlpack_device__(self):
            return (1, 0)

    return Producer()


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("k"),
        TwoArgs(1, [2]),
        TypeError("my producer cannot export this"),
        BufferError("my own refusal"),
        ValueError("x", 3),
        OSError(5, "I/O"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_producer_exceptions_pass_on_as_raised(goext, exc):
    """The producer's own exception object, its type, args and attributes intact, with
    the function and parameter as a note; through a Tensor and a MutTensor parameter.
    Before: KeyError's message quoted twice, TwoArgs unconstructible (TypeError), a
    producer's TypeError replaced by "expected a tensor"."""
    for call in (goext.sum, lambda x: goext.scale_(x, 2.0)):
        del_notes(exc)
        with pytest.raises(type(exc)) as e:
            call(raising_producer(exc))
        assert e.value is exc
        assert e.value.args == exc.args
        name = "sum" if call is goext.sum else "scale_"
        assert notes(e.value) == [f"{name}(): argument x"]


def test_non_producers_still_get_expected_a_tensor(goext):
    for x in ([1.0], None, "str", object()):
        with pytest.raises(TypeError) as e:
            goext.sum(x)
        assert str(e.value) == (
            f"sum(): argument x: expected a tensor (a DLPack producer or capsule), "
            f"got {type(x).__name__}"
        )


def test_system_exit_in_dlpack_exits_with_its_status():
    """Before: rebuilt as SystemExit("sum(): argument x: 3"), status 1."""
    code = f"""
import sys; sys.path.insert(0, {folder("goext")!r})
import goext
class P:
    def __dlpack__(self, *a, **k):
        raise SystemExit(3)
goext.sum(P())
"""
    proc = run_python(code)
    assert proc.returncode == 3, (proc.returncode, proc.stderr)


class Index:
    def __init__(self, exc):
        self.exc = exc

    def __index__(self):
        raise self.exc

    def __float__(self):
        raise self.exc


@pytest.mark.parametrize(
    "exc", [KeyError("idx"), TypeError("own message"), TwoArgs("a", "b"), OverflowError("mine")]
)
def test_int_and_float_argument_exceptions_pass_on(goext, goext2, exc):
    """What __index__ / __float__ raise is theirs (a TypeError too, which said
    "expected a float" before, an OverflowError, which said "int too large")."""
    for call, name in (
        (lambda o: goext2.ramp(o, 1.0), "ramp(): argument n"),
        (lambda o: goext.spin(o), "spin(): argument seconds"),
    ):
        del_notes(exc)
        with pytest.raises(type(exc)) as e:
            call(Index(exc))
        assert e.value is exc and notes(e.value) == [name]


def del_notes(exc):
    if hasattr(exc, "__notes__"):
        del exc.__notes__


def test_int_and_float_type_and_range_messages_unchanged(goext, goext2):
    with pytest.raises(TypeError, match=r"^spin\(\): argument seconds: expected a float, got str$"):
        goext.spin("1")
    with pytest.raises(
        TypeError, match=r"^spin\(\): argument seconds: expected a float, got list$"
    ):
        goext.spin([])
    with pytest.raises(OverflowError, match=r"^ramp\(\): argument n: int too large for int64$"):
        goext2.ramp(2**64, 1.0)
    with pytest.raises(OverflowError, match=r"^ramp\(\): argument n: int too large for int64$"):
        goext2.ramp(np.uint64(2**64 - 1), 1.0)  # through __index__
    assert np.from_dlpack(goext2.ramp(np.int8(2), 1.0)).tolist() == [0.0, 1.0]


@pytest.mark.skipif(not NOTES, reason="tracebacks print notes from 3.11 on")
def test_the_note_is_printed_in_the_traceback():
    code = f"""
import sys; sys.path.insert(0, {folder("goext")!r})
import goext
goext.fail("\\ud800")
"""
    proc = run_python(code)
    assert proc.returncode == 1
    assert "UnicodeEncodeError" in proc.stderr and "fail(): argument msg" in proc.stderr


# ---- empty tensors are contiguous ------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 5), (2, 0, 3), (0,), (3, 0), (0, 0, 7)])
def test_contiguous_accepts_every_empty_tensor(goext, goext2, shape):
    """NumPy gives np.zeros((0, 5)) strides (0, 0); PyTorch others: no elements, so
    contiguous whatever the strides. Before: fill refused (0, 5) and (2, 0, 3)."""
    for x in (np.zeros(shape), torch.zeros(shape, dtype=torch.float64), g.zeros(shape, "float64")):
        assert goext.fill(x, 1.0) is None
        assert goext2.clear(x) is True  # an optional MutTensor with Contiguous
        assert goext2.weighted_sum(x) == 0.0  # ReadSlice


def test_strided_non_empty_still_refused_with_numeric_strides(goext):
    """Before: "got strides (*, 1)" for the negative one."""
    cases = {
        (-4, 1): np.zeros((4, 4))[::-1],
        (1, 4): np.zeros((4, 4)).T,
        (8, -2): np.zeros((4, 8))[:, ::-2],
    }
    for strides, x in cases.items():
        with pytest.raises(TypeError) as e:
            goext.fill(x)
        assert str(e.value) == (
            f"fill(): argument x: expected a C-contiguous tensor, got strides {strides}"
        )


PyBUF_ND, PyBUF_STRIDES = 0x0008, 0x0018
PyBUF_C, PyBUF_F, PyBUF_ANY = 0x0020 | PyBUF_STRIDES, 0x0040 | PyBUF_STRIDES, 0x0080 | PyBUF_STRIDES


def get_buffer(obj, flags: int) -> bool:
    """PyObject_GetBuffer(obj, flags) through ctypes: True, or False on BufferError."""
    view = ctypes.create_string_buffer(256)  # a Py_buffer fits
    api = ctypes.pythonapi
    api.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    api.PyBuffer_Release.argtypes = [ctypes.c_void_p]
    try:
        api.PyObject_GetBuffer(obj, ctypes.addressof(view), flags)
    except BufferError:
        return False
    api.PyBuffer_Release(ctypes.addressof(view))
    return True


@pytest.mark.parametrize("shape", [(0, 5), (2, 0, 3), (5, 0)])
def test_empty_arrays_buffer_is_c_and_fortran_contiguous(shape):
    """An empty godlpack.Array with zero strides (as NumPy's import gives) offers
    C-, Fortran- and any-contiguous buffers and the plain bytes one, as NumPy's does.
    Before: refused when the zero extent was not met first."""
    a = g.asarray(np.zeros(shape))
    n = np.zeros(shape)
    for flags in (PyBUF_C, PyBUF_F, PyBUF_ANY, 0, PyBUF_ND):
        assert get_buffer(a, flags) == get_buffer(n, flags) is True, (shape, flags)
    assert hashlib.sha256(a).digest() == hashlib.sha256(b"").digest()
    nonempty = g.asarray(np.zeros((2, 3)))[:, ::2]
    assert not get_buffer(nonempty, PyBUF_C) and not get_buffer(nonempty, PyBUF_F)


# ---- pickling by reference ---------------------------------------------------------------


def test_functions_pickle_by_reference(goext, goext2):
    for f in (goext.sum, goext.scale_, goext2.ramp, goext.kernels, g._godlpack._dtype_table):
        for proto in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(f, proto)) is f
        assert repr(f) == f"<built-in function {f.__name__}>"
        assert f.__qualname__ == f.__name__
    assert goext.sum.__module__ == "goext"
    assert goext.sum.__self__.__name__ == "goext"


POOL_SCRIPT = """
import multiprocessing as mp, sys
sys.path.insert(0, {path!r})
import numpy as np
import goext

if __name__ == "__main__":
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(2) as pool:
            got = pool.map(goext.sum, [np.full(n, 1.5) for n in (1, 2, 3, 4)])
            assert got == [1.5, 3.0, 4.5, 6.0], (method, got)
            desc = pool.starmap(goext.describe, [(np.zeros((2, 3), np.float32),)])
            assert desc == [("float32", (2, 3), False)], desc
        print(method, "ok")
"""


def test_pool_map_of_extension_functions(tmp_path):
    """multiprocessing pickles the function itself: before, "cannot pickle
    'PyCapsule' object". fork (small inputs: no goroutines started in the child) and
    spawn."""
    out = run_script(tmp_path, "pool_goext", POOL_SCRIPT.format(path=folder("goext")), timeout=300)
    assert out.split() == ["fork", "ok", "spawn", "ok"]


# ---- the extension arguments' fuzz, briefly ----------------------------------------------


def test_goext_argument_fuzz_short_fixed_seed_round():
    proc = run_python(
        "import sys\n"
        f"sys.path[:0] = [{HERE!r}, {folder('goext')!r}, {folder('goext2')!r}]\n"
        "sys.argv = ['fuzz', '--seed', '19', '--iterations', '4000', '--seconds', '120']\n"
        "import fuzz_goext_args\nfuzz_goext_args.main()",
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "fuzz_goext_args ok" in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stderr and "Fatal" not in proc.stderr, proc.stderr[-4000:]


def test_no_leaks_through_refusals(goext, goext2, live):
    b = np.ones(4)
    v = as_strided(b, (8,), (0,), writeable=True)
    for _ in range(200):
        for call in (lambda: goext.scale_(v, 2.0), lambda: goext.sum(raising_producer(KeyError()))):
            with pytest.raises((ValueError, KeyError)):
                call()
    gc.collect()
    assert live.delta() == 0


def test_enum_results_are_members(goext2):
    """An IntEnumFor type's result is its member (a uint8 type here), in a tuple too; a
    value that is no member's raises ValueError; its parameter takes members and their
    ints only."""
    Level = goext2.Level
    assert issubclass(Level, enum.IntEnum)
    assert goext2.other_level(Level.LOW) is Level.HIGH
    assert goext2.other_level(200) is Level.LOW
    assert goext2.level_of(200) == (Level.HIGH, 200)
    assert type(goext2.level_of(1)[0]) is Level
    with pytest.raises(ValueError, match="9 is not a valid Level"):
        goext2.level_of(9)
    with pytest.raises(ValueError, match=r"argument level: 2 is not a member of Level \(LOW=1"):
        goext2.other_level(2)
    with pytest.raises(ValueError, match=r"argument level: 300 is not a member of Level"):
        goext2.other_level(300)  # beyond uint8: no member, so ValueError, not OverflowError
