"""Arrays inside the process: the buffer protocol, NumPy's __array__, truth and
scalar conversions, pickling (protocols 2-5, out of band), copy/deepcopy, and
damaged pickles (a fuzzed set) that must raise, never crash or read out of bounds."""

from __future__ import annotations

import copy
import operator
import pickle

import godlpack as g
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

NUMPY_DTYPES = [
    d
    for d in g.dtypes
    if hasattr(np, d.name) and d.kind != "float" or d.name in ("float16", "float32", "float64")
]
ML_DTYPES = [d for d in g.dtypes if d.name not in NUMPY_DTYPES and d.bits >= 8]
PACKED = [d for d in g.dtypes if d.bits < 8]


def sample(dt, shape=(3, 4)):
    """An Array of dt with distinct representable values."""
    n = int(np.prod(shape))
    vals = [(i % 4) * 0.5 for i in range(n)] if dt.kind == "float" else list(range(n))
    if dt.kind == "bool":
        vals = [i % 3 == 0 for i in range(n)]
    if dt.name == "float8_e8m0fnu":
        vals = [2.0 ** (i % 4) for i in range(n)]
    return g.asarray(vals, dtype=dt).reshape(*shape)


# ---- buffer protocol ---------------------------------------------------------------


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_memoryview_is_zero_copy_with_format_shape_strides(dt):
    a = sample(dt)
    v = a[1:, ::-2]
    m = memoryview(v)
    ref = np.asarray(sample(dt))[1:, ::-2]
    assert m.shape == ref.shape and m.strides == ref.strides and m.itemsize == ref.itemsize
    assert np.asarray(m).dtype == np.dtype(dt.name)
    assert np.asarray(m).tolist() == ref.tolist() and not m.readonly  # memoryview.tolist lacks 'e'
    assert np.asarray(m).ctypes.data == v.data_ptr
    assert memoryview(v.toreadonly()).readonly


@pytest.mark.parametrize("dt", ML_DTYPES + PACKED, ids=str)
def test_memoryview_of_a_dtype_without_format_raises_buffer_error(dt):
    with pytest.raises(BufferError, match=dt.name):
        memoryview(g.zeros(4, dtype=dt))


def test_buffer_requests_the_array_cannot_meet_raise():
    import ctypes

    with pytest.raises(TypeError):  # ctypes asks for a writable buffer
        (ctypes.c_char * 4).from_buffer(g.zeros(4, dtype="uint8").toreadonly())
    strided = g.zeros(8, dtype="uint8")[::2]
    with pytest.raises(BufferError, match="contiguous"):
        pickle.PickleBuffer(strided).raw()
    assert bytes(g.arange(3, dtype="uint8")) == b"\x00\x01\x02"


PYBUF_ND, PYBUF_STRIDES, PYBUF_C, PYBUF_F, PYBUF_ANY = 0x8, 0x18, 0x38, 0x58, 0x98


def request_buffer(obj, flags: int) -> None:
    """PyObject_GetBuffer(obj, flags) then PyBuffer_Release; raises what it raises."""
    import ctypes

    view = ctypes.create_string_buffer(256)  # larger than any Py_buffer
    ctypes.pythonapi.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    ctypes.pythonapi.PyBuffer_Release.argtypes = [ctypes.c_void_p]
    ctypes.pythonapi.PyObject_GetBuffer(obj, view, flags)
    ctypes.pythonapi.PyBuffer_Release(view)


def test_contiguity_requests_are_met_or_refused():
    a = g.arange(12, dtype="int32").reshape(3, 4)
    col = a[:, :1]
    for flags in (0, PYBUF_ND, PYBUF_STRIDES, PYBUF_C, PYBUF_ANY):
        request_buffer(a, flags)
    with pytest.raises(BufferError, match="Fortran"):
        request_buffer(a, PYBUF_F)
    request_buffer(a[:1, :].reshape(4), PYBUF_F)  # 1-d: both orders
    strided = a[:, ::2]
    request_buffer(strided, PYBUF_STRIDES)
    for flags, what in (
        (0, "strided"),
        (PYBUF_ND, "strided"),
        (PYBUF_C, "C-contiguous"),
        (PYBUF_ANY, "not contiguous"),
    ):
        with pytest.raises(BufferError, match=what):
            request_buffer(strided, flags)
    assert memoryview(col).tolist() == [[0], [4], [8]]


def test_a_buffer_keeps_the_memory_alive():
    a = g.arange(5, dtype="int64")
    m = memoryview(a)
    del a
    assert m.tolist() == [0, 1, 2, 3, 4]


# ---- NumPy --------------------------------------------------------------------------


@pytest.mark.parametrize("dt", NUMPY_DTYPES + ML_DTYPES, ids=str)
def test_np_asarray_is_zero_copy_with_the_same_dtype(dt):
    a = sample(dt)
    v = a[::2, 1:]
    n = np.asarray(v)
    want = np.dtype(getattr(ml_dtypes, dt.name, None) or dt.name)
    assert n.dtype == want and n.ctypes.data == v.data_ptr and n.shape == (2, 3)
    assert n.tolist() == [
        [float(x) if dt.kind == "float" else x for x in row] for row in v.tolist()
    ]
    assert n.flags.writeable
    r = np.asarray(v.toreadonly())
    assert not r.flags.writeable and r.ctypes.data == v.data_ptr
    c = np.array(v)
    assert c.dtype == want and c.ctypes.data != v.data_ptr and (c == n).all()


def test_array_protocol_follows_numpy2_copy_semantics():
    a = g.arange(4, dtype="float32")
    assert np.asarray(a.__array__()).ctypes.data == a.data_ptr
    assert a.__array__(copy=True).ctypes.data != a.data_ptr
    assert a.__array__(copy=False).ctypes.data == a.data_ptr
    assert a.__array__("float64").dtype == np.float64
    with pytest.raises(ValueError, match="copy=False"):
        a.__array__(np.float64, copy=False)
    assert np.asarray(a, dtype=np.float32, copy=False).ctypes.data == a.data_ptr
    b = g.zeros(3, dtype="bfloat16")
    assert b.__array__(copy=False).dtype == ml_dtypes.bfloat16


@pytest.mark.parametrize("dt", PACKED, ids=str)
def test_packed_subbyte_has_no_numpy_layout(dt):
    with pytest.raises(TypeError, match=f"packed {dt.name}"):
        np.asarray(g.zeros(4, dtype=dt))


def test_without_ml_dtypes_bfloat16_raises_a_clear_error(isolated):
    r = isolated(
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import numpy as np, godlpack as g\n"
        "try:\n"
        "    np.asarray(g.zeros(3, dtype='bfloat16'))\n"
        "except TypeError as e:\n"
        "    print('TypeError', e)\n"
    )
    assert r.returncode == 0, r.stderr
    assert "TypeError NumPy has no bfloat16 dtype: install ml_dtypes" in r.stdout


@settings(max_examples=150, deadline=None, database=None)
@given(
    dt=st.sampled_from([d for d in g.dtypes if d.bits >= 8]),
    shape=st.lists(st.integers(0, 5), min_size=0, max_size=3),
    data=st.data(),
    protocol=st.sampled_from([2, 4, 5]),
    readonly=st.booleans(),
)
def test_any_view_travels_with_its_elements(dt, shape, data, protocol, readonly):
    base = g.zeros(tuple(shape), dtype=dt)
    np.asarray(base._bytes())[:] = np.arange(base.nbytes, dtype=np.uint64) % 7  # bit patterns
    keys = tuple(
        slice(data.draw(st.integers(0, n)), None, data.draw(st.sampled_from([1, 2, -1])))
        for n in shape
    )
    v = base[keys] if keys else base
    if readonly:
        v = v.toreadonly()
    ref = np.asarray(v)  # zero-copy view with the same dtype
    assert ref.shape == v.shape and (v.size == 0 or ref.ctypes.data == v.data_ptr)
    b = pickle.loads(pickle.dumps(v, protocol))
    assert b.shape == v.shape and b.dtype == v.dtype and b.readonly == readonly
    assert np.asarray(b).tobytes() == ref.tobytes()


# ---- truth and scalars ---------------------------------------------------------------


def test_truth_and_scalar_conversions_like_numpy():
    assert bool(g.asarray([3])) and not bool(g.asarray(0.0))
    for bad in (g.asarray([1, 2]), g.zeros(0)):
        with pytest.raises(ValueError, match="truth value"):
            bool(bad)
    assert float(g.asarray([[2.5]])) == 2.5 and int(g.asarray(7.9)) == 7
    assert complex(g.asarray([1 + 2j])) == 1 + 2j and float(g.asarray(1, dtype="bfloat16")) == 1.0
    assert operator.index(g.asarray(5, dtype="uint16")) == 5
    assert [10, 11, 12][g.asarray(1)] == 11
    with pytest.raises(TypeError, match="only one-element"):
        float(g.asarray([1.0, 2.0]))
    with pytest.raises(TypeError, match="integer scalar"):
        operator.index(g.asarray(1.0))
    with pytest.raises(TypeError, match="integer scalar"):
        operator.index(g.asarray([1]))


# ---- pickling ------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
@pytest.mark.parametrize("dt", g.dtypes, ids=str)
def test_pickle_round_trips_every_dtype_and_protocol(dt, protocol):
    a = sample(dt) if dt.bits >= 8 else g.asarray([0.5, 1, 2, -3, 0, 6], dtype=dt)
    b = pickle.loads(pickle.dumps(a, protocol))
    assert b.dtype == dt and b.shape == a.shape and b.tolist() == a.tolist()
    assert not b.readonly and b.data_ptr != a.data_ptr


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_views_pickle_their_own_elements_and_read_only_is_kept(protocol):
    big = g.arange(10_000, dtype="float64").reshape(100, 100)
    v = big[3:5, ::-50]
    s = pickle.dumps(v, protocol)
    assert len(s) < 200  # 4 elements, not the base's 80 kB
    b = pickle.loads(s)
    assert b.tolist() == v.tolist() and b.flags["c_contiguous"]
    r = pickle.loads(pickle.dumps(v.toreadonly(), protocol))
    assert r.readonly and r.tolist() == v.tolist()


def test_dtypes_pickle_as_godlpack_dtypes():
    for dt in g.dtypes:
        assert pickle.loads(pickle.dumps(dt)) is dt


def test_protocol5_out_of_band_is_zero_copy_both_ways():
    a = g.arange(1000, dtype="int32")
    bufs: list[pickle.PickleBuffer] = []
    s = pickle.dumps(a, 5, buffer_callback=bufs.append)
    assert len(bufs) == 1 and len(s) < 200
    assert np.frombuffer(bufs[0], dtype=np.int32).ctypes.data == a.data_ptr  # no copy out
    b = pickle.loads(s, buffers=bufs)
    assert b.data_ptr == a.data_ptr and not b.readonly  # loads wrapped what it was given
    store = bytearray(bufs[0].raw())
    c = pickle.loads(s, buffers=[store])
    c[0] = 77
    assert store[:4] == (77).to_bytes(4, "little")
    ro = pickle.loads(s, buffers=[bytes(store)])
    assert ro.readonly  # a read-only buffer gives a read-only array (Ray's rule)


def test_a_wrapped_buffer_is_released_by_a_deleter_on_a_thread_without_the_gil(dl):
    # The Python-buffer owner's release takes the GIL itself: a consumer's deleter on
    # another thread (ctypes releases the GIL for the call) lets go of the buffer.
    import ctypes
    import threading

    bufs: list[pickle.PickleBuffer] = []
    s = pickle.dumps(g.arange(64, dtype="int64"), 5, buffer_callback=bufs.append)
    store = bytearray(bufs[0].raw())
    del bufs
    a = pickle.loads(s, buffers=[store])
    pairs = [dl.consume_capsule(a[i::4].__dlpack__(max_version=(1, 3))) for i in range(4)]
    del a
    with pytest.raises(BufferError):
        store.append(0)  # exported: the exports still hold it
    threads = [threading.Thread(target=d, args=(ctypes.addressof(m),)) for m, d in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.append(0)  # every export released the buffer
    assert len(store) == 64 * 8 + 1


def test_protocol5_in_band_loads_without_a_second_copy():
    a = g.zeros(1 << 16, dtype="uint8")
    b = pickle.loads(pickle.dumps(a, 5))
    assert b._keep() is None and not b.readonly
    assert isinstance(memoryview(b).obj, g.Array)


def test_protocol4_loads_takes_over_large_bytes_and_copies_small_ones():
    from godlpack._pickling import _rebuild

    big = bytes(range(256)) * 8
    a = _rebuild("uint8", (len(big),), False, big, True)
    assert not a.readonly and a.data_ptr == np.frombuffer(big, np.uint8).ctypes.data
    small = b"\x01\x02"
    b = _rebuild("uint8", (2,), False, small, True)
    assert not b.readonly and b.data_ptr != np.frombuffer(small, np.uint8).ctypes.data
    b[0] = 9
    assert small == b"\x01\x02"  # CPython may share short bytes: never written
    r = _rebuild("uint8", (len(big),), True, big, True)
    assert r.readonly  # a read-only array stays read-only over the same bytes


def test_shared_arrays_pickle_as_plain_arrays_outside_multiprocessing():
    s = g.shared_asarray([[1, 2], [3, 4]], dtype="int16")
    assert g.is_shared(s) and not g.is_shared(g.zeros(2))
    for p in (2, 5):
        b = pickle.loads(pickle.dumps(s[:, 1], p))
        assert not g.is_shared(b) and b.tolist() == [2, 4]
    assert not g.is_shared(copy.copy(s))


def test_zero_d_and_empty_arrays_travel():
    for a in (g.asarray(2.5), g.zeros((0, 3), dtype="int8"), g.asarray(True)):
        assert np.asarray(a).shape == a.shape and np.asarray(a).tolist() == a.tolist()
        b = pickle.loads(pickle.dumps(a, 5))
        assert b.shape == a.shape and b.tolist() == a.tolist() and b.dtype == a.dtype


def test_copy_and_deepcopy_copy():
    a = g.arange(6, dtype="int16").reshape(2, 3)[:, ::2]
    for c in (copy.copy(a), copy.deepcopy(a), copy.deepcopy([a, a])[0]):
        assert c.tolist() == a.tolist() and c.data_ptr != a.data_ptr and c.dtype == "int16"
    r = copy.copy(a.toreadonly())
    assert r.tolist() == a.tolist()


# ---- damaged pickles -----------------------------------------------------------------


def test_wrong_size_buffers_and_unknown_dtypes_raise():
    from godlpack._pickling import _rebuild

    with pytest.raises(ValueError, match="needs exactly 16"):
        _rebuild("float32", (4,), False, bytearray(15))
    with pytest.raises(ValueError, match="needs exactly 16"):
        _rebuild("float32", (4,), False, bytearray(17))
    with pytest.raises(TypeError, match="not understood"):
        _rebuild("float128", (4,), False, bytearray(16))
    with pytest.raises(ValueError, match="negative"):
        _rebuild("float32", (-4,), False, bytearray(16))
    with pytest.raises(ValueError):
        _rebuild("float32", (1 << 62, 1 << 62), False, bytearray(16))
    with pytest.raises(TypeError):
        _rebuild("float32", (4,), False, 12345)
    with pytest.raises(TypeError):
        _rebuild("float32", [4], False, bytearray(16))
    with pytest.raises(ValueError, match="no dtype named"):
        pickle.loads(pickle.dumps(g.float32).replace(b"float32", b"float99"))


def test_fuzzed_pickles_raise_clear_errors(isolated):
    # In a child: a crash there fails this test instead of killing the run.
    # Errors that pickle's own opcodes raise are CPython's; those raised while godlpack
    # rebuilds an Array must be ValueError, TypeError or BufferError (or MemoryError).
    code = """
import pickle, random, resource, sys, traceback
import godlpack as g
OURS = (ValueError, TypeError, BufferError, MemoryError)
rng = random.Random(1313)
seeds = [g.arange(24, dtype=d).reshape(2, 3, 4) if d.bits >= 8 else g.zeros(8, dtype=d)
         for d in g.dtypes]
good = [pickle.dumps(a, p) for a in seeds for p in (2, 4, 5)]
# A flipped length or memo index asks pickle for gigabytes. With glibc's malloc that fails
# at once (MemoryError); 3.13t's mimalloc grants it and pickle zero-fills a 36 GB memo
# (LONG_BINPUT), paging until the timeout. 2 GiB of address space more than now makes
# every build answer MemoryError, which is pickle's error, not godlpack's. The "SystemError:
# deallocated bytearray object has exported buffers" lines it prints meanwhile are
# CPython's too (3.11 to 3.13t): a failed PyByteArray_FromStringAndSize frees its bytearray
# before it has set the export count, and prints whatever the reused memory held there.
vm = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (2 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
outcomes = {}
for i in range(6000):
    s = bytearray(rng.choice(good))
    op = rng.randrange(4)
    if op == 0:
        del s[rng.randrange(1, len(s)):]                      # truncated
    elif op == 1:
        for _ in range(rng.randrange(1, 4)):                  # flipped bytes
            s[rng.randrange(len(s))] = rng.randrange(256)
    elif op == 2:
        j = rng.randrange(len(s)); s[j:j] = bytes(rng.randrange(256) for _ in range(3))
    else:
        j = rng.randrange(len(s)); del s[j:j + rng.randrange(1, 6)]
    try:
        out = pickle.loads(bytes(s))
    except SystemError as e:
        raise AssertionError(("SystemError", e, bytes(s)))
    except Exception as e:
        in_godlpack = any("godlpack" in f.filename for f in traceback.extract_tb(e.__traceback__))
        assert not in_godlpack or isinstance(e, OURS), (e, bytes(s))
        name = type(e).__name__ + (" (godlpack)" if in_godlpack else "")
        outcomes[name] = outcomes.get(name, 0) + 1
        continue
    if isinstance(out, g.Array):                              # whatever loaded is sound
        n = 1
        for d in out.shape:
            n *= d
        assert out.nbytes <= len(s) or n == 0, (out.shape, out.dtype, len(s))
        out.tolist()
    outcomes["loaded"] = outcomes.get("loaded", 0) + 1
print(sorted(outcomes.items()))
"""
    r = isolated(code, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    # the fuzz reached godlpack's checks, and pickle's own, and some data still loaded
    assert "ValueError (godlpack)" in r.stdout and "UnpicklingError" in r.stdout, r.stdout
    assert "loaded" in r.stdout, r.stdout
